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

/* fail unless @actual @op @expected; @not_op says what held instead */
#define UNIT_ASSERT_CMP(actual, expected, op, not_op, ...)		\
	do {								\
		UNIT_INT(___a, actual);					\
		UNIT_INT(___e, expected);				\
		char ___sa[24], ___se[24];				\
									\
		if (!(unit_cmp(___a, ___e) op 0)) {			\
			unit_name(__VA_ARGS__);				\
			return unit_fail("actual %s %s expected %s",	\
					 unit_int_str(___a, ___sa, sizeof(___sa)), \
					 not_op, unit_int_str(___e, ___se, sizeof(___se))); \
		}							\
	} while (0)

/* ASSERT_EQ(actual, expected, name...): integers of any type and sign */
#define ASSERT_EQ(a, e, ...)	UNIT_ASSERT_CMP(a, e, ==, "!=", __VA_ARGS__)
#define ASSERT_NEQ(a, e, ...)	UNIT_ASSERT_CMP(a, e, !=, "==", __VA_ARGS__)
#define ASSERT_LT(a, e, ...)	UNIT_ASSERT_CMP(a, e, <, ">=", __VA_ARGS__)
#define ASSERT_LE(a, e, ...)	UNIT_ASSERT_CMP(a, e, <=, ">", __VA_ARGS__)
#define ASSERT_GT(a, e, ...)	UNIT_ASSERT_CMP(a, e, >, "<=", __VA_ARGS__)
#define ASSERT_GE(a, e, ...)	UNIT_ASSERT_CMP(a, e, >=, "<", __VA_ARGS__)

/* a function's result: 0 (ASSERT_OK), or below 0 (ASSERT_ERR) */
#define ASSERT_OK(res, ...)						\
	do {								\
		UNIT_INT(___r, res);					\
		char ___s[24];						\
									\
		if (___r.v) {						\
			unit_name(__VA_ARGS__);				\
			return unit_fail("unexpected error %s",		\
					 unit_int_str(___r, ___s, sizeof(___s))); \
		}							\
	} while (0)

#define ASSERT_ERR(res, ...)						\
	do {								\
		UNIT_INT(___r, res);					\
		char ___s[24];						\
									\
		if (!___r.neg) {					\
			unit_name(__VA_ARGS__);				\
			return unit_fail("unexpected success (%s)",	\
					 unit_int_str(___r, ___s, sizeof(___s))); \
		}							\
	} while (0)

/* a condition that has no two values to show */
#define ASSERT_TRUE(cond, ...)						\
	do {								\
		if (!(cond)) {						\
			unit_name(__VA_ARGS__);				\
			return unit_fail("unexpected false (%s)", #cond); \
		}							\
	} while (0)

#define ASSERT_FALSE(cond, ...)						\
	do {								\
		if (cond) {						\
			unit_name(__VA_ARGS__);				\
			return unit_fail("unexpected true (%s)", #cond); \
		}							\
	} while (0)

/* pointers: NULL, or not */
#define ASSERT_NULL(ptr, ...)						\
	do {								\
		const void *___p = (ptr);				\
									\
		if (___p) {						\
			unit_name(__VA_ARGS__);				\
			return unit_fail("unexpected pointer %p", ___p); \
		}							\
	} while (0)

#define ASSERT_OK_PTR(ptr, ...)						\
	do {								\
		if (!(ptr)) {						\
			unit_name(__VA_ARGS__);				\
			return unit_fail("unexpected NULL (%s)", #ptr);	\
		}							\
	} while (0)

/* strings, NULL for none */
#define UNIT_STR(s)	((s) ? (s) : "(null)")

#define ASSERT_STREQ(actual, expected, ...)				\
	do {								\
		const char *___a = (actual), *___e = (expected);	\
									\
		if (!___a || !___e || strcmp(___a, ___e)) {		\
			unit_name(__VA_ARGS__);				\
			return unit_fail("actual '%s' != expected '%s'", UNIT_STR(___a), \
					 UNIT_STR(___e));		\
		}							\
	} while (0)

#define ASSERT_HAS_SUBSTR(str, substr, ...)				\
	do {								\
		const char *___s = (str), *___sub = (substr);		\
									\
		if (!___s || !strstr(___s, ___sub)) {			\
			unit_name(__VA_ARGS__);				\
			return unit_fail("'%s' does not contain '%s'", UNIT_STR(___s), ___sub); \
		}							\
	} while (0)

#define ASSERT_STRPREFIX(str, prefix, ...)				\
	do {								\
		const char *___s = (str), *___pre = (prefix);		\
									\
		if (!___s || strncmp(___s, ___pre, strlen(___pre))) {	\
			unit_name(__VA_ARGS__);				\
			return unit_fail("'%s' does not begin with '%s'", UNIT_STR(___s), ___pre); \
		}							\
	} while (0)

#define ASSERT_NO_SUBSTR(str, substr, ...)				\
	do {								\
		const char *___s = (str), *___sub = (substr);		\
									\
		if (___s && strstr(___s, ___sub)) {			\
			unit_name(__VA_ARGS__);				\
			return unit_fail("'%s' contains '%s'", ___s, ___sub); \
		}							\
	} while (0)

/* @len bytes: the first that differs, by offset and both values */
#define ASSERT_MEMEQ(actual, expected, len, ...)			\
	do {								\
		const unsigned char *___a = (const void *)(actual);	\
		const unsigned char *___e = (const void *)(expected);	\
		size_t ___i, ___n = (len);				\
									\
		for (___i = 0; ___i < ___n && ___a[___i] == ___e[___i]; ___i++) \
			;						\
		if (___i < ___n) {					\
			unit_name(__VA_ARGS__);				\
			return unit_fail("byte %zu of %zu: actual %#04x != expected %#04x", \
					 ___i, ___n, ___a[___i], ___e[___i]); \
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
