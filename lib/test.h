/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small test harness for the guest-side tests.
 *
 * A test program is a list of subtests. Each prints one line,
 * "PASS prog/subtest" or "FAIL prog/subtest: why", which tests/run counts.
 * A CHECK that fails reports the expression, the values and errno, and
 * ends its subtest; the program exits non-zero if any subtest failed.
 */
#ifndef STRUCT_OPS_TEST_H
#define STRUCT_OPS_TEST_H

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct subtest {
	const char *name;
	void (*fn)(void);
};

extern const char *test_prog_name;
extern bool test_failed;
extern char test_why[512];
/* Called after every subtest, to undo what a failed one left behind. */
extern void (*test_after_each)(void);

void test_fail(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* What SKIP() says: the subtest cannot run here ("SKIP prog/subtest: why"). */
extern bool test_skipped;
void test_skip(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int run_subtests(int argc, char **argv, const struct subtest *tests, int n);

/* Fails the subtest and returns from it when cond is false. */
#define CHECK(cond, fmt, ...)							\
	do {									\
		if (!(cond)) {							\
			test_fail(__FILE__, __LINE__, "%s: " fmt, #cond,	\
				  ##__VA_ARGS__);				\
			return;							\
		}								\
	} while (0)

#define CHECK_EQ(a, b)								\
	do {									\
		long long __a = (long long)(a), __b = (long long)(b);		\
		CHECK(__a == __b, "got %lld, want %lld (errno %d %s)", __a,	\
		      __b, errno, strerror(errno));				\
	} while (0)

/* A call that must fail with exactly this errno. */
#define CHECK_ERRNO(call, want)							\
	do {									\
		long long __r;							\
		errno = 0;							\
		__r = (long long)(call);					\
		CHECK(__r < 0 && errno == (want),				\
		      "returned %lld with errno %d (%s), want errno %d (%s)",	\
		      __r, errno, strerror(errno), want, strerror(want));	\
	} while (0)

#define CHECK_OK(call)								\
	do {									\
		long long __r;							\
		__r = (long long)(call);					\
		CHECK(__r >= 0, "returned %lld, errno %d (%s)", __r, errno,	\
		      strerror(errno));						\
	} while (0)

#define CHECK_STR(got, want)						\
	do {									\
		const char *__g = (got), *__w = (want);				\
		CHECK(!strcmp(__g, __w), "got \"%s\", want \"%s\"", __g, __w); \
	} while (0)

/* Ends the subtest as skipped, with the reason it cannot run here. */
#define SKIP(fmt, ...)								\
	do {									\
		test_skip(fmt, ##__VA_ARGS__);					\
		return;								\
	} while (0)

#define SUBTEST(fn) { #fn, fn }
#define TEST_MAIN(...)								\
	int main(int argc, char **argv)						\
	{									\
		static const struct subtest __t[] = { __VA_ARGS__ };		\
		return run_subtests(argc, argv, __t,				\
				    sizeof(__t) / sizeof(__t[0]));		\
	}

#endif
