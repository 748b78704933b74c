/* SPDX-License-Identifier: GPL-2.0 */
/* What the guest-side benchmarks share. */
#ifndef STRUCT_OPS_BENCH_H
#define STRUCT_OPS_BENCH_H

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

/* For each name "bpf_X" of names, open, load and register the example
 * bpf/X.bpf.c into ccs (the other names are native CCs). Returns how many
 * it registered, or -1 after saying why.
 */
int register_examples(struct bpf_cc *ccs, char **names, int n);
void close_examples(struct bpf_cc *ccs, int n);

#endif
