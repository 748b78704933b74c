/* SPDX-License-Identifier: GPL-2.0 */
/* What the guest-side benchmarks share. */
#ifndef STRUCT_OPS_BENCH_H
#define STRUCT_OPS_BENCH_H

#include <stdbool.h>

#include "lib/cc.h"

/* CLOCK_MONOTONIC in ns. */
unsigned long long now_ns(void);
/* The guest's busy CPU time so far, all CPUs, in USER_HZ ticks. */
unsigned long long cpu_busy_ticks(void);
/* The kernel's own memory, from /proc/meminfo, in kB. */
enum { MEM_SLAB, MEM_VMALLOC, MEM_PERCPU, NR_MEM };
void kernel_mem_kb(long kb[NR_MEM]);
/* Their sum, in kB. */
long kernel_mem_total_kb(void);

/* "bench: error: ..." on stderr; returns 1 (an exit status). */
int bench_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "usage: ..." on stderr; returns 2. */
int bench_usage(const char *usage);

/* At most this many CCs in one benchmark run. */
#define BENCH_MAX_CC 8

/* One benchmark's runs over a list of CCs: one() for each CC in each of
 * repeats, in the order A B C, then C B A, and so on, so that a drift in
 * the machine over the repeats hits every CC alike. bpf is the registered
 * example for a "bpf_X" name, NULL for a native CC. With warm_up, the
 * first CC runs once before, as repeat -1, for one() not to report.
 */
struct bench_runs {
	int repeats;
	bool warm_up;
	int (*one)(int repeat, const char *cc, struct bpf_cc *bpf, void *arg);
	void *arg;
};

/* Register bpf/X.bpf.c for each name "bpf_X" of names (the other names are
 * native CCs), do the runs, stop at the first that fails, unregister.
 * Returns an exit status: 0, or 1 after saying what failed.
 */
int bench_each_cc(const struct bench_runs *runs, char **names, int n);

#endif
