# 500 fuzzed argument lists and knob values: no crash or sanitizer report,
# and a rejected one changes nothing (tests/guest/wsr_args_fuzz.sh)
sh "$(dirname "$0")/wsr_args_fuzz.sh" "${WSR_ARGS_FUZZ_CASES:-500}"
