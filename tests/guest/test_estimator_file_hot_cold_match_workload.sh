# File (page-cache) pages: as for anon, with the workload's pages in a
# file on an ext2 disk.
exec sh "$(dirname "$0")/estimator_hot_cold.sh" file
