/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A minimal host unit-test harness: each test is a function that returns
 * NULL on success or a message saying what did not hold.  main() runs the
 * table and prints "PASS name" or "FAIL name: message" per test, the
 * format vmtests/check.sh collects.
 */
#ifndef __WSR_UNIT_H
#define __WSR_UNIT_H

#include <stdio.h>

struct unit_test {
	const char *name;
	const char *(*fn)(void);
};

/* room for a struct wsr_err message (a path and its words) and more */
static char unit_msg[16384];

/* CHECK(cond, fmt, ...): fail the current test with a formatted message */
#define CHECK(cond, ...)						\
	do {								\
		if (!(cond)) {						\
			snprintf(unit_msg, sizeof(unit_msg), __VA_ARGS__); \
			return unit_msg;				\
		}							\
	} while (0)

#define UNIT_MAIN(tests)						\
	int main(void)							\
	{								\
		int failed = 0;						\
		for (unsigned int i = 0; i < sizeof(tests) / sizeof(tests[0]); i++) { \
			const char *err = tests[i].fn();		\
			if (err)					\
				printf("FAIL %s: %s\n", tests[i].name, err); \
			else						\
				printf("PASS %s\n", tests[i].name);	\
			failed += !!err;				\
		}							\
		return failed != 0;					\
	}

#endif /* __WSR_UNIT_H */
