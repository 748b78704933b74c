// SPDX-License-Identifier: GPL-2.0
/*
 * A deliberately broken congestion control for the demo's watchdog scene:
 * Reno for stall_after_ns of each connection's life, then it paces at a
 * byte a second. With nothing in flight nothing leaves, and TCP's watchdog
 * moves the connection to the built-in default (docs/design.md).
 */
#include "tcp_ca.h"

char _license[] SEC("license") = "GPL";

const volatile __u64 stall_after_ns = 2000000000ULL;

struct stall {
	__u64 start_ns;
};

void TCP_CA_OP(stall_init, struct sock *sk)
{
	struct stall *ca = inet_csk_ca(sk);

	ca->start_ns = bpf_ktime_get_ns();
}

void TCP_CA_OP(stall_cong_control, struct sock *sk, const struct rate_sample *rs)
{
	struct stall *ca = inet_csk_ca(sk);

	/* TCP acks the SYN-ACK before init() runs: no clock yet, no stall */
	if (ca->start_ns && bpf_ktime_get_ns() - ca->start_ns > stall_after_ns) {
		sk->sk_pacing_status = SK_PACING_NEEDED;
		sk->sk_pacing_rate = 1;
	}
	tcp_reno_cong_avoid(sk, 0, rs->acked_sacked);
}

__u32 TCP_CA_OP(stall_ssthresh, struct sock *sk)
{
	return tcp_reno_ssthresh(sk);
}

__u32 TCP_CA_OP(stall_undo_cwnd, struct sock *sk)
{
	return tcp_reno_undo_cwnd(sk);
}

SEC(".struct_ops")
struct tcp_congestion_ops stall = {
	.init		= (void *)stall_init,
	.cong_control	= (void *)stall_cong_control,
	.ssthresh	= (void *)stall_ssthresh,
	.undo_cwnd	= (void *)stall_undo_cwnd,
	.name		= "bpf_stall",
};
