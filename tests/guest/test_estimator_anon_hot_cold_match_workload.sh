# Anon pages: the histogram's young bin holds the hot set and its old bins
# the cold set, each within 10%, on the workload's node only.
exec sh "$(dirname "$0")/estimator_hot_cold.sh" anon
