// SPDX-License-Identifier: GPL-2.0
/*
 * An add() for bpf_struct_ops_test that checks, on every call, what the
 * trampoline promises a struct_ops program (tests/trampoline.c):
 *
 *  - it runs inside an RCU read-side critical section;
 *  - it cannot move to another CPU: either the trampoline disabled
 *    migration (a preemptible caller) or the caller runs with preemption
 *    off already (counted apart, to see which way each call went).
 *
 * It adds as the native add() does only when both hold, so that the test
 * target's "bench", which compares the sums, fails on a call that broke
 * one of them. With spin_loops set it first runs that many empty loops,
 * long enough for the scheduler to preempt it, and counts the calls in
 * which its task was preempted during them: inside its RCU section.
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char _license[] SEC("license") = "GPL";

/* x86's preempt count; its top bit is the inverted need-resched flag */
extern const int __preempt_count __ksym;
#define PREEMPT_COUNT_MASK 0x7fffffff

__u64 migrate_disabled_calls, preempt_off_calls, unpinned_calls, outside_rcu_calls;
__u32 spin_loops;
__u64 preempted_inside_calls;

static int spin(__u32 i, void *ctx)
{
	return 0;
}

SEC("struct_ops/add")
int BPF_PROG(guarded_add, int a, int b)
{
	struct task_struct *task = bpf_get_current_task_btf();
	const int *count = bpf_this_cpu_ptr(&__preempt_count);
	bool broken = false;

	if (spin_loops) {
		unsigned long preempted = task->nivcsw;

		bpf_loop(spin_loops, spin, NULL, 0);
		if (task->nivcsw != preempted)
			__sync_fetch_and_add(&preempted_inside_calls, 1);
	}
	if (task->rcu_read_lock_nesting <= 0) {
		__sync_fetch_and_add(&outside_rcu_calls, 1);
		broken = true;
	}
	if (task->migration_disabled) {
		__sync_fetch_and_add(&migrate_disabled_calls, 1);
	} else if (*count & PREEMPT_COUNT_MASK) {
		__sync_fetch_and_add(&preempt_off_calls, 1);
	} else {
		__sync_fetch_and_add(&unpinned_calls, 1);
		broken = true;
	}
	return broken ? 0 : a + b;
}

SEC(".struct_ops")
struct bpf_struct_ops_test guarantees = {
	.add = (void *)guarded_add,
	.name = "guarantees",
};
