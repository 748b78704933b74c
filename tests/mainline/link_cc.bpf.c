// SPDX-License-Identifier: GPL-2.0
/*
 * Two versions of one congestion control, each in a struct_ops map that a
 * link registers (.struct_ops.link), a third in a map registered the old
 * way (.struct_ops), another by another name, and a link map of the test type, for the links test.
 * Each version counts its init() and cong_avoid() calls, so that the test
 * can tell which one a connection runs.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char _license[] SEC("license") = "GPL";

__u64 inits[5], acks[5];

#define VERSION(N, SEC_NAME, CC_NAME)					\
SEC("struct_ops/v" #N "_init")						\
void BPF_PROG(v##N##_init, struct sock *sk)				\
{									\
	inits[N - 1]++;							\
}									\
SEC("struct_ops/v" #N "_ssthresh")					\
__u32 BPF_PROG(v##N##_ssthresh, struct sock *sk)			\
{									\
	const struct tcp_sock *tp = (const struct tcp_sock *)sk;	\
									\
	return tp->snd_cwnd / 2 > 2 ? tp->snd_cwnd / 2 : 2;		\
}									\
SEC("struct_ops/v" #N "_cong_avoid")					\
void BPF_PROG(v##N##_cong_avoid, struct sock *sk, __u32 ack, __u32 acked) \
{									\
	struct tcp_sock *tp = (struct tcp_sock *)sk;			\
									\
	acks[N - 1]++;							\
	if (tp->snd_cwnd < 64)						\
		tp->snd_cwnd++;						\
}									\
SEC("struct_ops/v" #N "_undo_cwnd")					\
__u32 BPF_PROG(v##N##_undo_cwnd, struct sock *sk)			\
{									\
	return ((const struct tcp_sock *)sk)->snd_cwnd;			\
}									\
SEC(SEC_NAME)								\
struct tcp_congestion_ops v##N = {					\
	.init		= (void *)v##N##_init,				\
	.ssthresh	= (void *)v##N##_ssthresh,			\
	.cong_avoid	= (void *)v##N##_cong_avoid,			\
	.undo_cwnd	= (void *)v##N##_undo_cwnd,			\
	.name		= CC_NAME,					\
}

VERSION(1, ".struct_ops.link", "bpf_link_cc");
VERSION(2, ".struct_ops.link", "bpf_link_cc");
VERSION(3, ".struct_ops", "bpf_plain_cc");
VERSION(4, ".struct_ops.link", "bpf_link_cc2");
VERSION(5, ".struct_ops", "bpf_plain_cc");

/* no undo_cwnd: TCP's validate refuses it when its map is filled in */
SEC("struct_ops/bad_ssthresh")
__u32 BPF_PROG(bad_ssthresh, struct sock *sk)
{
	return 2;
}
SEC("struct_ops/bad_cong_avoid")
void BPF_PROG(bad_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
}
SEC(".struct_ops.link")
struct tcp_congestion_ops incomplete = {
	.ssthresh	= (void *)bad_ssthresh,
	.cong_avoid	= (void *)bad_cong_avoid,
	.name		= "bpf_link_bad",
};

SEC("struct_ops/add")
int BPF_PROG(add, int a, int b)
{
	return a + b;
}

/* a type that registers, but has no update operation */
SEC(".struct_ops.link")
struct bpf_struct_ops_test sops = {
	.add = (void *)add,
	.name = "sops_link",
};
