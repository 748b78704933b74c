/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How often an operation ended in success and in each errno, for the
 * stress test and the fuzzer to print. Counting is atomic: threads share
 * a struct opstat.
 */
#ifndef STRUCT_OPS_OPSTATS_H
#define STRUCT_OPS_OPSTATS_H

#include <stddef.h>

/* errnos at or above this (none the kernel returns) count in the last slot */
#define OPSTAT_ERRNOS 1024

struct opstat {
	const char *name;
	unsigned long total;
	unsigned long by_errno[OPSTAT_ERRNOS];	/* [0]: successes */
};

/* Count one result: 0 for success, else the (positive) errno. */
void opstat_add(struct opstat *s, int err);
/* "name N (ok N, ENOENT N, ...)", errnos by name, ENOTSUPP as E524. */
const char *opstat_format(const struct opstat *s, char *buf, size_t size);

#endif
