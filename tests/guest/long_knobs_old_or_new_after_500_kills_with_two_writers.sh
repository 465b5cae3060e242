# test_knobs_old_or_new_after_kills_with_two_writers with 500 kills, not
# 50 (about 10 minutes under TCG); make check-long runs it.
WSR_KNOB_KILLS=500 sh "$(dirname "$0")/test_knobs_old_or_new_after_kills_with_two_writers.sh"
