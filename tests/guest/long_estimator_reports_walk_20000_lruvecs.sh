# A reclaim report walks 10,000 memcgs (20,000 lruvecs, more than the
# 16,384 a map of lruvecs once held); make check-long runs it.
sh "$(dirname "$0")/estimator_walk_many.sh" 10000
