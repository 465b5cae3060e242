# Aging every node of a memcg back to back (as the balloon's answers do).
# With MGLRU's non-leaf young capability (0x0004 in
# /sys/kernel/mm/lru_gen/enabled) the first node's page-table walk clears
# the PMD accessed bits that the next node's walk needs, so a hot set on
# node 1 reads as idle (a kernel behaviour, seen with lru_gen itself).
# With it off, as the daemon advises on NUMA machines, agings of node 0
# then node 1 keep the hot set in the young bin and the cold set in the
# old bins, each within 10%.
. "$(dirname "$0")/lib.sh"
nonleaf_young_off
sh "$(dirname "$0")/estimator_hot_cold.sh" anon every-node
