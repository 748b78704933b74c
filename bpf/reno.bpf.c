// SPDX-License-Identifier: GPL-2.0
/*
 * TCP Reno in BPF: the smallest complete congestion control, written out
 * in full so that it shows what a BPF congestion control is made of.
 *
 *  - slow start: cwnd grows by one segment per segment acknowledged, which
 *    doubles it every round trip, until it reaches ssthresh;
 *  - congestion avoidance: then it grows by one segment per round trip;
 *  - on loss TCP asks ssthresh() where to go: half of cwnd (RENO_BETA:
 *    the share kept, in 1/1024; make demo's second version keeps 0.7);
 *  - if the loss turns out to be spurious, undo_cwnd() gives back what
 *    cwnd was before.
 *
 * Build, register and use it (see docs/writing-a-cc.md):
 *   clang -O2 -g -target bpf -mcpu=v3 -I<dir of vmlinux.h> -c reno.bpf.c
 *   bpftool struct_ops register reno.bpf.o
 *   sysctl net.ipv4.tcp_congestion_control=bpf_reno
 */
#include "tcp_ca.h"

char _license[] SEC("license") = "GPL";

#ifndef RENO_BETA
#define RENO_BETA 512
#endif

/* Per connection, in icsk_ca_priv: cwnd when the last loss was seen. */
struct reno_ca {
	__u32 loss_cwnd;
};

/* How often TCP called each callback, for tests and the curious. */
__u64 init_calls, ssthresh_calls, cong_avoid_calls, undo_cwnd_calls;

void TCP_CA_OP(reno_init, struct sock *sk)
{
	struct reno_ca *ca = inet_csk_ca(sk);

	COUNT(init_calls);
	ca->loss_cwnd = 0;
}

__u32 TCP_CA_OP(reno_ssthresh, struct sock *sk)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	struct reno_ca *ca = inet_csk_ca(sk);

	COUNT(ssthresh_calls);
	ca->loss_cwnd = tp->snd_cwnd;
	return max((__u32)((__u64)tp->snd_cwnd * RENO_BETA >> 10), 2U);
}

void TCP_CA_OP(reno_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	struct tcp_sock *tp = tcp_sk(sk);
	__u32 cwnd = tp->snd_cwnd, grow;

	COUNT(cong_avoid_calls);
	/* an application that does not fill cwnd says nothing about the path */
	if (!tcp_is_cwnd_limited(sk))
		return;

	if (tcp_in_slow_start(tp)) {
		grow = min(acked, tp->snd_ssthresh - cwnd);
		cwnd = min(cwnd + grow, tp->snd_cwnd_clamp);
		acked -= grow;
		if (!acked) {
			tp->snd_cwnd = cwnd;
			return;
		}
	}

	/*
	 * Count acknowledged segments in snd_cwnd_cnt; each full window of
	 * them is one more segment. Credit left from a larger window (cwnd
	 * was cut since) is worth one segment, not more.
	 */
	if (tp->snd_cwnd_cnt >= cwnd) {
		tp->snd_cwnd_cnt = 0;
		cwnd++;
	}
	tp->snd_cwnd_cnt += acked;
	if (tp->snd_cwnd_cnt >= cwnd) {
		grow = tp->snd_cwnd_cnt / cwnd;
		tp->snd_cwnd_cnt -= grow * cwnd;
		cwnd += grow;
	}
	tp->snd_cwnd = min(cwnd, tp->snd_cwnd_clamp);
}

__u32 TCP_CA_OP(reno_undo_cwnd, struct sock *sk)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	const struct reno_ca *ca = inet_csk_ca(sk);

	COUNT(undo_cwnd_calls);
	return max(tp->snd_cwnd, ca->loss_cwnd);
}

CC_SECTION
struct tcp_congestion_ops reno = {
	.init		= (void *)reno_init,
	.ssthresh	= (void *)reno_ssthresh,
	.cong_avoid	= (void *)reno_cong_avoid,
	.undo_cwnd	= (void *)reno_undo_cwnd,
	.name		= "bpf_reno",
};
