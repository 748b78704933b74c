// SPDX-License-Identifier: GPL-2.0
/*
 * A congestion control whose get_info() answers what the test tells it:
 * Reno for the window, and for get_info() the attribute, the size and the
 * words of the union it writes, from globals the verifier cannot see, so
 * that only the kernel's bounds at run time stand between them and user
 * space.
 */
#include "tcp_ca.h"

char _license[] SEC("license") = "GPL";

int answer_attr = INET_DIAG_DCTCPINFO;
__u64 answer_size = sizeof(struct tcp_dctcp_info);
/* the first fill_words words of the union get words[] */
__u32 words[5];
__u32 fill_words;

__u64 get_info_calls;
__u32 last_ext;

__u32 TCP_CA_OP(info_ssthresh, struct sock *sk)
{
	return tcp_reno_ssthresh(sk);
}

void TCP_CA_OP(info_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	tcp_reno_cong_avoid(sk, ack, acked);
}

__u32 TCP_CA_OP(info_undo_cwnd, struct sock *sk)
{
	return tcp_reno_undo_cwnd(sk);
}

__u64 TCP_CA_OP(info_get_info, struct sock *sk, __u32 ext, int *attr,
		union tcp_cc_info *info)
{
	__u32 *w = (__u32 *)info;
	int i;

	COUNT(get_info_calls);
	last_ext = ext;
	/* unrolled: a store into the union takes a constant offset */
#pragma unroll
	for (i = 0; i < 5; i++)
		if (i < fill_words)
			w[i] = words[i];
	*attr = answer_attr;
	return answer_size;
}

SEC(".struct_ops")
struct tcp_congestion_ops info_cc = {
	.ssthresh	= (void *)info_ssthresh,
	.cong_avoid	= (void *)info_cong_avoid,
	.undo_cwnd	= (void *)info_undo_cwnd,
	.get_info	= (void *)info_get_info,
	.name		= "bpf_info_cc",
};
