// SPDX-License-Identifier: GPL-2.0
/*
 * The smallest add() for bpf_struct_ops_test, the same work as the test
 * target's native add(): what "bench N" then times is the call itself
 * (bench/run-guest).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char _license[] SEC("license") = "GPL";

SEC("struct_ops/add")
int BPF_PROG(bench_add, int a, int b)
{
	return a + b;
}

SEC(".struct_ops")
struct bpf_struct_ops_test bench = {
	.add = (void *)bench_add,
	.name = "bench_add",
};
