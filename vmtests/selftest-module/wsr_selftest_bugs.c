// SPDX-License-Identifier: GPL-2.0
/*
 * Deliberate bugs for the harness's self-tests (vmtests/selftest.sh): the
 * debug kernel's sanitizers must catch each one and the guest run must
 * fail.  "insmod wsr_selftest_bugs.ko bug=NAME" commits one of:
 *
 *   leak             16 kmalloc()ed blocks whose only pointers are dropped
 *   use-after-free   a read of a block after kfree()
 *   lock-inversion   two mutexes taken in both orders, one after the other
 *                    (no deadlock happens; lockdep sees that one could)
 *   shift-out-of-bounds
 *                    an int shifted left by 40 bits (UBSAN_SHIFT)
 *
 * Never load it outside a throwaway test guest.
 */
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>

static char *bug = "";
module_param(bug, charp, 0444);
MODULE_PARM_DESC(bug, "leak, use-after-free, lock-inversion or shift-out-of-bounds");

static DEFINE_MUTEX(wsr_selftest_a);
static DEFINE_MUTEX(wsr_selftest_b);

/*
 * Sixteen blocks, each pointer dropped for the next: a stale copy of one
 * left in a register or on a stack (insmod's, cached for the next task)
 * can hide that block from kmemleak, so a single leaked block may go
 * unreported; it cannot hide the fifteen before it.
 */
static noinline void commit_leak(void)
{
	int i;

	for (i = 0; i < 16; i++) {
		char *p = kmalloc(1000, GFP_KERNEL);

		if (p)
			memset(p, 0x5a, 1000);
		/* the pointer dies here: nothing refers to the block any more */
	}
}

static noinline int commit_use_after_free(void)
{
	char *p = kmalloc(64, GFP_KERNEL);

	if (!p)
		return -ENOMEM;
	kfree(p);
	OPTIMIZER_HIDE_VAR(p);
	return READ_ONCE(p[8]);
}

static noinline void commit_lock_inversion(void)
{
	mutex_lock(&wsr_selftest_a);
	mutex_lock(&wsr_selftest_b);
	mutex_unlock(&wsr_selftest_b);
	mutex_unlock(&wsr_selftest_a);

	mutex_lock(&wsr_selftest_b);
	mutex_lock(&wsr_selftest_a);
	mutex_unlock(&wsr_selftest_a);
	mutex_unlock(&wsr_selftest_b);
}

/*
 * The shift count hidden from the compiler: a constant one it would fold,
 * warn of at build time, or drop as undefined, and UBSAN would see nothing
 */
static noinline int commit_shift_out_of_bounds(void)
{
	int one = 1, bits = 40;

	OPTIMIZER_HIDE_VAR(bits);
	return one << bits;
}

static int __init wsr_selftest_bugs_init(void)
{
	if (!strcmp(bug, "leak"))
		commit_leak();
	else if (!strcmp(bug, "use-after-free"))
		pr_info("wsr_selftest_bugs: read %d\n", commit_use_after_free());
	else if (!strcmp(bug, "lock-inversion"))
		commit_lock_inversion();
	else if (!strcmp(bug, "shift-out-of-bounds"))
		pr_info("wsr_selftest_bugs: shifted %d\n", commit_shift_out_of_bounds());
	else
		return -EINVAL;
	pr_info("wsr_selftest_bugs: committed %s\n", bug);
	return 0;
}
module_init(wsr_selftest_bugs_init);

static void __exit wsr_selftest_bugs_exit(void)
{
}
module_exit(wsr_selftest_bugs_exit);

MODULE_DESCRIPTION("Deliberate bugs that wsr's sanitizer kernel must catch");
MODULE_LICENSE("GPL");
