// SPDX-License-Identifier: GPL-2.0
/*
 * Congestion controls that break TCP's rules on purpose, for
 * tests/hostile_cc.c: what each does is set in its globals before it is
 * registered. TCP must carry the traffic anyway, with no WARN and no
 * crash, and its watchdog must move a connection that one of them stalls
 * to the built-in default.
 *
 * bpf_hostile runs cong_avoid, bpf_hostile_ctl cong_control. Every
 * callback records the window and ssthresh it finds: what TCP let through
 * from the previous one.
 */
#include "tcp_ca.h"

char _license[] SEC("license") = "GPL";

enum avoid_mode {
	AVOID_RENO,		/* tcp_reno_cong_avoid(), as a sane CC would */
	AVOID_AI_ZERO,		/* tcp_cong_avoid_ai(tp, 0, acked) */
	AVOID_SET_CWND,		/* snd_cwnd = cwnd_value on every ACK */
};

__u32 avoid_mode = AVOID_RENO;
__u32 cwnd_value;
/* what ssthresh() and undo_cwnd() return; -1: Reno's value */
__s64 ssthresh_ret = -1;
__s64 undo_ret = -1;
/* bpf_hostile_ctl: after pace_after calls, pace at pace_rate bytes/s */
__u64 pace_after = ~0ULL;
__u64 pace_rate;

__u64 avoid_calls, control_calls, ssthresh_calls, undo_calls;
__u32 min_cwnd_seen = ~0U, max_cwnd_seen;
__u32 min_ssthresh_seen = ~0U;

/* What TCP left in the state since the last callback. */
static void seen(const struct sock *sk)
{
	const struct tcp_sock *tp = tcp_sk(sk);

	min_cwnd_seen = min(min_cwnd_seen, tp->snd_cwnd);
	max_cwnd_seen = max(max_cwnd_seen, tp->snd_cwnd);
	min_ssthresh_seen = min(min_ssthresh_seen, tp->snd_ssthresh);
}

__u32 TCP_CA_OP(hostile_ssthresh, struct sock *sk)
{
	seen(sk);
	COUNT(ssthresh_calls);
	return ssthresh_ret < 0 ? tcp_reno_ssthresh(sk) : ssthresh_ret;
}

__u32 TCP_CA_OP(hostile_undo_cwnd, struct sock *sk)
{
	seen(sk);
	COUNT(undo_calls);
	return undo_ret < 0 ? tcp_reno_undo_cwnd(sk) : undo_ret;
}

void TCP_CA_OP(hostile_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	struct tcp_sock *tp = tcp_sk(sk);

	seen(sk);
	COUNT(avoid_calls);
	switch (avoid_mode) {
	case AVOID_AI_ZERO:
		tcp_cong_avoid_ai(tp, 0, acked);
		break;
	case AVOID_SET_CWND:
		tp->snd_cwnd = cwnd_value;
		break;
	default:
		tcp_reno_cong_avoid(sk, ack, acked);
	}
}

void TCP_CA_OP(hostile_cong_control, struct sock *sk,
	       const struct rate_sample *rs)
{
	seen(sk);
	if (COUNT(control_calls) >= pace_after) {
		sk->sk_pacing_status = SK_PACING_NEEDED;
		sk->sk_pacing_rate = pace_rate;
	}
	tcp_reno_cong_avoid(sk, 0, rs->acked_sacked);
}

SEC(".struct_ops")
struct tcp_congestion_ops hostile = {
	.ssthresh	= (void *)hostile_ssthresh,
	.undo_cwnd	= (void *)hostile_undo_cwnd,
	.cong_avoid	= (void *)hostile_cong_avoid,
	.name		= "bpf_hostile",
};

SEC(".struct_ops")
struct tcp_congestion_ops hostile_ctl = {
	.ssthresh	= (void *)hostile_ssthresh,
	.undo_cwnd	= (void *)hostile_undo_cwnd,
	.cong_control	= (void *)hostile_cong_control,
	.name		= "bpf_hostile_ctl",
};
