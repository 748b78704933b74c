// SPDX-License-Identifier: GPL-2.0
/*
 * A congestion control that sets snd_cwnd to forced_cwnd on every ACK,
 * whatever the value: it tests what TCP does with a window of 0 or of
 * 2^32 - 1 from a BPF congestion control.
 */
#include "tcp_ca.h"

char _license[] SEC("license") = "GPL";

__u32 forced_cwnd = 10;
__u64 cong_avoid_calls;

void TCP_CA_OP(wild_init, struct sock *sk)
{
	tcp_sk(sk)->snd_cwnd = forced_cwnd;
}

void TCP_CA_OP(wild_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	COUNT(cong_avoid_calls);
	tcp_sk(sk)->snd_cwnd = forced_cwnd;
}

__u32 TCP_CA_OP(wild_ssthresh, struct sock *sk)
{
	return max(tcp_sk(sk)->snd_cwnd >> 1, 2U);
}

__u32 TCP_CA_OP(wild_undo_cwnd, struct sock *sk)
{
	return tcp_sk(sk)->snd_cwnd;
}

SEC(".struct_ops")
struct tcp_congestion_ops wild_cwnd = {
	.init		= (void *)wild_init,
	.cong_avoid	= (void *)wild_cong_avoid,
	.ssthresh	= (void *)wild_ssthresh,
	.undo_cwnd	= (void *)wild_undo_cwnd,
	.name		= "bpf_wild_cwnd",
};
