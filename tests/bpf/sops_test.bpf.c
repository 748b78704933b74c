// SPDX-License-Identifier: GPL-2.0
/*
 * An implementation of struct bpf_struct_ops_test, the registration test
 * target (CONFIG_BPF_STRUCT_OPS_TEST), as a user would write it.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char _license[] SEC("license") = "GPL";

__u64 add_calls, widths_calls, touch_calls;
__u64 widths_args[5];

SEC("struct_ops/add")
int BPF_PROG(add, int a, int b)
{
	add_calls++;
	return a + b;
}

/* Each argument as the program sees it, for the test to compare. */
SEC("struct_ops/widths")
__u64 BPF_PROG(widths, __u8 a, __u16 b, __u32 c, __u64 d, __s8 e)
{
	widths_calls++;
	widths_args[0] = a;
	widths_args[1] = b;
	widths_args[2] = c;
	widths_args[3] = d;
	widths_args[4] = (__s64)e;
	return a + b + c + d + e;
}

SEC("struct_ops/touch")
void BPF_PROG(touch, struct bpf_struct_ops_test_ctx *tctx)
{
	touch_calls++;
	tctx->out = tctx->in * 2;
}

SEC(".struct_ops")
struct bpf_struct_ops_test sops = {
	.add = (void *)add,
	.widths = (void *)widths,
	.touch = (void *)touch,
	.name = "sops_t1",
	.flags = 1,
};
