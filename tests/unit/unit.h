/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A minimal host unit-test harness: each test is a function that returns
 * NULL on success or a message saying what did not hold.  main() runs the
 * table and prints "PASS name" or "FAIL name: message" per test, the
 * format vmtests/check.sh collects.
 *
 * A test states what must hold with the ASSERT_*() macros, as the BPF
 * selftests' test_progs.h does: each takes a name for the check, a printf
 * format and its arguments, and on failure returns a message with that
 * name and both values, so that no check needs a message of its own.
 */
#ifndef __WSR_UNIT_H
#define __WSR_UNIT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

struct unit_test {
	const char *name;
	const char *(*fn)(void);
};

/* room for a struct wsr_err message (a path and its words) and more */
static char unit_msg[16384];

/* "NAME: " (NAME formatted from @fmt) and the rest (@what, formatted) */
__attribute__((format(printf, 1, 2)))
static inline const char *unit_name(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(unit_msg, sizeof(unit_msg), fmt, ap);
	va_end(ap);
	return unit_msg;
}

__attribute__((format(printf, 1, 2)))
static inline const char *unit_fail(const char *fmt, ...)
{
	size_t n = strlen(unit_msg);
	va_list ap;

	if (n + 2 < sizeof(unit_msg)) {
		memcpy(unit_msg + n, ": ", 3);
		va_start(ap, fmt);
		vsnprintf(unit_msg + n + 2, sizeof(unit_msg) - n - 2, fmt, ap);
		va_end(ap);
	}
	return unit_msg;
}

/* an integer of either sign, as it was: compared and printed by value */
struct unit_int {
	bool neg;
	unsigned long long v;	/* its magnitude when neg */
};

/*
 * Whether @x's type is signed.  Unsigned types narrower than long long
 * are taken as signed: their values are all at or above 0 either way.
 */
#define UNIT_SIGNED(x)							\
	_Generic((x), unsigned long: 0, unsigned long long: 0, bool: 0, default: 1)

/* @bits as the value of a signed or an unsigned type */
static inline struct unit_int unit_int(bool is_signed, unsigned long long bits)
{
	long long v = (long long)bits;

	if (is_signed && v < 0)
		return (struct unit_int){ .neg = true, .v = -(unsigned long long)v };
	return (struct unit_int){ .v = bits };
}

/* @x (evaluated once) into the struct unit_int @var */
#define UNIT_INT(var, x)						\
	__typeof__(x) var##_x = (x);					\
	struct unit_int var = unit_int(UNIT_SIGNED(var##_x), (unsigned long long)var##_x)

/* -1, 0 or 1 as @a is below, equal to or above @b */
static inline int unit_cmp(struct unit_int a, struct unit_int b)
{
	if (a.neg != b.neg)
		return a.neg ? -1 : 1;
	if (a.v == b.v)
		return 0;
	return (a.v < b.v) != a.neg ? -1 : 1;
}

static inline const char *unit_int_str(struct unit_int a, char *buf, size_t len)
{
	snprintf(buf, len, "%s%llu", a.neg ? "-" : "", a.v);
	return buf;
}

/*
 * The current test fails, if @bad, with the check's name (formatted from
 * the arguments after @why) and @why, a parenthesized format and its
 * arguments saying what held instead.
 */
#define UNIT_FAIL_IF(bad, why, ...)					\
	do {								\
		if (bad) {						\
			unit_name(__VA_ARGS__);				\
			return unit_fail why;				\
		}							\
	} while (0)

/* fail unless @actual @op @expected; @not_op says what held instead */
#define UNIT_ASSERT_CMP(actual, expected, op, not_op, ...)		\
	do {								\
		UNIT_INT(___a, actual);					\
		UNIT_INT(___e, expected);				\
		char ___sa[24], ___se[24];				\
									\
		UNIT_FAIL_IF(!(unit_cmp(___a, ___e) op 0),		\
			     ("actual %s %s expected %s",		\
			      unit_int_str(___a, ___sa, sizeof(___sa)), not_op, \
			      unit_int_str(___e, ___se, sizeof(___se))), __VA_ARGS__); \
	} while (0)

/* ASSERT_EQ(actual, expected, name...): integers of any type and sign */
#define ASSERT_EQ(a, e, ...)	UNIT_ASSERT_CMP(a, e, ==, "!=", __VA_ARGS__)
#define ASSERT_NEQ(a, e, ...)	UNIT_ASSERT_CMP(a, e, !=, "==", __VA_ARGS__)
#define ASSERT_LT(a, e, ...)	UNIT_ASSERT_CMP(a, e, <, ">=", __VA_ARGS__)
#define ASSERT_LE(a, e, ...)	UNIT_ASSERT_CMP(a, e, <=, ">", __VA_ARGS__)
#define ASSERT_GT(a, e, ...)	UNIT_ASSERT_CMP(a, e, >, "<=", __VA_ARGS__)
#define ASSERT_GE(a, e, ...)	UNIT_ASSERT_CMP(a, e, >=, "<", __VA_ARGS__)

/* a function's result: 0 (ASSERT_OK), or below 0 (ASSERT_ERR) */
#define UNIT_ASSERT_RES(res, bad, why, ...)				\
	do {								\
		UNIT_INT(___r, res);					\
		char ___s[24];						\
									\
		UNIT_FAIL_IF(bad, (why " %s", unit_int_str(___r, ___s, sizeof(___s))), \
			     __VA_ARGS__);				\
	} while (0)
#define ASSERT_OK(res, ...)	UNIT_ASSERT_RES(res, ___r.v, "unexpected error", __VA_ARGS__)
#define ASSERT_ERR(res, ...)	UNIT_ASSERT_RES(res, !___r.neg, "unexpected success", __VA_ARGS__)

/* a condition that has no two values to show */
#define ASSERT_TRUE(cond, ...)	UNIT_FAIL_IF(!(cond), ("unexpected false (%s)", #cond), __VA_ARGS__)
#define ASSERT_FALSE(cond, ...)	UNIT_FAIL_IF(cond, ("unexpected true (%s)", #cond), __VA_ARGS__)

/* pointers: NULL, or not */
#define ASSERT_NULL(ptr, ...)						\
	do {								\
		const void *___p = (ptr);				\
									\
		UNIT_FAIL_IF(___p, ("unexpected pointer %p", ___p), __VA_ARGS__); \
	} while (0)
#define ASSERT_OK_PTR(ptr, ...)	UNIT_FAIL_IF(!(ptr), ("unexpected NULL (%s)", #ptr), __VA_ARGS__)

/* strings, NULL for none */
#define UNIT_STR(s)	((s) ? (s) : "(null)")

/* @str (evaluated once) and @s2 (a string), failing if @bad, saying @why */
#define UNIT_ASSERT_STR(str, s2, bad, why, ...)				\
	do {								\
		const char *___s = (str), *___s2 = (s2);		\
									\
		UNIT_FAIL_IF(bad, (why, UNIT_STR(___s), UNIT_STR(___s2)), __VA_ARGS__); \
	} while (0)
#define ASSERT_STREQ(actual, expected, ...)				\
	UNIT_ASSERT_STR(actual, expected, !___s || !___s2 || strcmp(___s, ___s2),	\
			"actual '%s' != expected '%s'", __VA_ARGS__)
#define ASSERT_HAS_SUBSTR(str, substr, ...)				\
	UNIT_ASSERT_STR(str, substr, !___s || !strstr(___s, ___s2),	\
			"'%s' does not contain '%s'", __VA_ARGS__)
#define ASSERT_NO_SUBSTR(str, substr, ...)				\
	UNIT_ASSERT_STR(str, substr, ___s && strstr(___s, ___s2), "'%s' contains '%s'", \
			__VA_ARGS__)
#define ASSERT_STRPREFIX(str, prefix, ...)				\
	UNIT_ASSERT_STR(str, prefix, !___s || strncmp(___s, ___s2, strlen(___s2)), \
			"'%s' does not begin with '%s'", __VA_ARGS__)

/* @len bytes: the first that differs, by offset and both values */
#define ASSERT_MEMEQ(actual, expected, len, ...)			\
	do {								\
		const unsigned char *___a = (const void *)(actual);	\
		const unsigned char *___e = (const void *)(expected);	\
		size_t ___i, ___n = (len);				\
									\
		for (___i = 0; ___i < ___n && ___a[___i] == ___e[___i]; ___i++) \
			;						\
		UNIT_FAIL_IF(___i < ___n, ("byte %zu of %zu: actual %#04x != expected %#04x", \
					   ___i, ___n, ___a[___i], ___e[___i]), __VA_ARGS__); \
	} while (0)

/*
 * @cmd run by the shell: its exit status (-1 if it did not exit), and its
 * output (what it sends to stdout; 2>&1 in @cmd for stderr too) in @out
 */
static inline int unit_run(const char *cmd, char *out, size_t len)
{
	FILE *p = popen(cmd, "r");
	size_t n;
	int st;

	if (!p)
		return -1;
	n = fread(out, 1, len - 1, p);
	out[n] = 0;
	st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

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
