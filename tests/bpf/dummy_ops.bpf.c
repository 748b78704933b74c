// SPDX-License-Identifier: GPL-2.0
/*
 * Programs for bpf_dummy_ops, the test target whose members run through
 * BPF_PROG_TEST_RUN: test_1 reads and writes the state behind its pointer
 * argument, test_2 records arguments of several widths.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char _license[] SEC("license") = "GPL";

int test_1_calls;
__u64 test_2_args[5];

SEC("struct_ops/test_1")
int BPF_PROG(test_1, struct bpf_dummy_ops_state *state)
{
	int ret;

	test_1_calls++;
	if (!state)
		return 0xf2f3f4f5;
	ret = state->val;
	state->val = 0x5a;
	return ret;
}

SEC("struct_ops/test_2")
int BPF_PROG(test_2, struct bpf_dummy_ops_state *state, int a1,
	     unsigned short a2, char a3, unsigned long a4)
{
	test_2_args[0] = (unsigned long)state;
	test_2_args[1] = a1;
	test_2_args[2] = a2;
	test_2_args[3] = a3;
	test_2_args[4] = a4;
	return a1 + a2;
}

SEC(".struct_ops")
struct bpf_dummy_ops dummy = {
	.test_1 = (void *)test_1,
	.test_2 = (void *)test_2,
};
