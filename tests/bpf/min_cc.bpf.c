// SPDX-License-Identifier: GPL-2.0
/*
 * The smallest tcp_congestion_ops a BPF program can provide: Reno's
 * arithmetic, written out so that it needs no kfunc. The harness uses it
 * to drive the whole user-space path (vmlinux.h, clang, skeleton, libbpf's
 * .struct_ops handling) against whatever kernel it boots.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char _license[] SEC("license") = "GPL";

__u64 ssthresh_calls, cong_avoid_calls, undo_calls;

SEC("struct_ops/min_ssthresh")
__u32 BPF_PROG(min_ssthresh, struct sock *sk)
{
	const struct tcp_sock *tp = (const struct tcp_sock *)sk;
	__u32 half = tp->snd_cwnd >> 1;

	ssthresh_calls++;
	return half > 2 ? half : 2;
}

SEC("struct_ops/min_cong_avoid")
void BPF_PROG(min_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	struct tcp_sock *tp = (struct tcp_sock *)sk;

	cong_avoid_calls++;
	if (tp->snd_cwnd < tp->snd_ssthresh)
		tp->snd_cwnd += acked;
	else if (++tp->snd_cwnd_cnt >= tp->snd_cwnd) {
		tp->snd_cwnd_cnt = 0;
		tp->snd_cwnd++;
	}
}

SEC("struct_ops/min_undo_cwnd")
__u32 BPF_PROG(min_undo_cwnd, struct sock *sk)
{
	const struct tcp_sock *tp = (const struct tcp_sock *)sk;

	undo_calls++;
	return tp->snd_cwnd > tp->prior_cwnd ? tp->snd_cwnd : tp->prior_cwnd;
}

SEC(".struct_ops")
struct tcp_congestion_ops min_cc = {
	.ssthresh	= (void *)min_ssthresh,
	.cong_avoid	= (void *)min_cong_avoid,
	.undo_cwnd	= (void *)min_undo_cwnd,
	.name		= "bpf_min_cc",
};
