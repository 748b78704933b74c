// SPDX-License-Identifier: GPL-2.0
/* Two versions of one congestion control, each a struct_ops map to link. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char _license[] SEC("license") = "GPL";

__u64 calls[2];

#define VERSION(N)							\
SEC("struct_ops/v" #N "_ssthresh")					\
__u32 BPF_PROG(v##N##_ssthresh, struct sock *sk)			\
{									\
	calls[N - 1]++;							\
	return 2;							\
}									\
SEC("struct_ops/v" #N "_cong_avoid")					\
void BPF_PROG(v##N##_cong_avoid, struct sock *sk, __u32 ack, __u32 acked) \
{									\
	calls[N - 1]++;							\
}									\
SEC("struct_ops/v" #N "_undo_cwnd")					\
__u32 BPF_PROG(v##N##_undo_cwnd, struct sock *sk)			\
{									\
	return ((const struct tcp_sock *)sk)->snd_cwnd;			\
}									\
SEC(".struct_ops.link")							\
struct tcp_congestion_ops v##N = {					\
	.ssthresh	= (void *)v##N##_ssthresh,			\
	.cong_avoid	= (void *)v##N##_cong_avoid,			\
	.undo_cwnd	= (void *)v##N##_undo_cwnd,			\
	.name		= "bpf_link_cc",				\
}

VERSION(1);
VERSION(2);
