# 500 fuzzed argument lists and knob values: no crash or sanitizer report,
# and a rejected one changes nothing (tests/guest/wsr_args_fuzz.sh).  It
# runs in make check's lane C at nice 15, where on a 2-core machine it
# took 281 to 308 s, about the runner's 300 s: it has 600.
# time-limit: 600
sh "$(dirname "$0")/wsr_args_fuzz.sh" "${WSR_ARGS_FUZZ_CASES:-500}"
