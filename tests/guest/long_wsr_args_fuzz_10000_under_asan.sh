# test_wsr_args_fuzz_under_asan_rejects_without_change with 10,000 cases;
# make check-long runs it
sh "$(dirname "$0")/wsr_args_fuzz.sh" 10000
