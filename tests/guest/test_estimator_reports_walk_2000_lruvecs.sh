# A reclaim report walks 1,000 memcgs (2,000 lruvecs); see estimator_walk_many.sh.
sh "$(dirname "$0")/estimator_walk_many.sh" 1000
