/* SPDX-License-Identifier: GPL-2.0 */
/* What the guest-side benchmarks share. */
#ifndef STRUCT_OPS_BENCH_H
#define STRUCT_OPS_BENCH_H

#include "lib/cc.h"

/* CLOCK_MONOTONIC in ns. */
unsigned long long now_ns(void);
/* The guest's busy CPU time so far, all CPUs, in USER_HZ ticks. */
unsigned long long cpu_busy_ticks(void);
/* A /proc/meminfo field in kB, or -1. */
long meminfo_kb(const char *field);

/* The i-th of n runs in repeat r: A B C, then C B A, and so on, so
 * that a drift in the machine over the repeats hits every one alike.
 */
static inline int interleaved(int r, int i, int n)
{
	return r % 2 ? n - 1 - i : i;
}

/* "bench: error: ..." on stderr; returns 1 (an exit status). */
int bench_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "usage: ..." on stderr; returns 2. */
int bench_usage(const char *usage);

/* For a name "bpf_X", open, load and register the example bpf/X.bpf.c
 * and return 1; for any other name (a native CC) return 0; on failure
 * say why and return -1.
 */
int register_example(struct bpf_cc *cc, const char *name);

#endif
