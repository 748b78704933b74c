// SPDX-License-Identifier: GPL-2.0
#include <fnmatch.h>
#include <libgen.h>
#include <time.h>
#include <unistd.h>

#include "test.h"

const char *test_prog_name;
bool test_failed;
bool test_skipped;
char test_why[512];
void (*test_after_each)(void);

void test_fail(const char *file, int line, const char *fmt, ...)
{
	int n;
	va_list ap;

	test_failed = true;
	n = snprintf(test_why, sizeof(test_why), "%s:%d: ", basename((char *)file), line);
	va_start(ap, fmt);
	vsnprintf(test_why + n, sizeof(test_why) - n, fmt, ap);
	va_end(ap);
}

void test_skip(const char *fmt, ...)
{
	va_list ap;

	test_skipped = true;
	va_start(ap, fmt);
	vsnprintf(test_why, sizeof(test_why), fmt, ap);
	va_end(ap);
}

static double monotonic_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* TEST_FILTER=glob runs only the subtests whose "prog/subtest" matches. */
int run_subtests(int argc, char **argv, const struct subtest *tests, int n)
{
	const char *filter = getenv("TEST_FILTER");
	int i, failed = 0;
	char full[256];
	double start;

	(void)argc;
	test_prog_name = basename(argv[0]);
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (i = 0; i < n; i++) {
		snprintf(full, sizeof(full), "%s/%s", test_prog_name, tests[i].name);
		if (filter && *filter && fnmatch(filter, full, 0) &&
		    fnmatch(filter, test_prog_name, 0))
			continue;
		test_failed = false;
		test_skipped = false;
		test_why[0] = '\0';
		start = monotonic_s();
		tests[i].fn();
		/* a subtest that failed half-way leaves nothing to the next */
		if (test_after_each)
			test_after_each();
		if (test_failed) {
			printf("FAIL %s: %s\n", full, test_why);
			failed++;
		} else if (test_skipped) {
			printf("SKIP %s: %s\n", full, test_why);
		} else {
			printf("PASS %s\n", full);
		}
		/* where a slow suite spends its time (docs/testing.md) */
		if (monotonic_s() - start >= 10)
			printf("# time %s: %.0f s\n", full, monotonic_s() - start);
	}
	return failed ? 1 : 0;
}
