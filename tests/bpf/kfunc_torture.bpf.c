// SPDX-License-Identifier: GPL-2.0
/*
 * Every kfunc a BPF congestion control may call, called on every ACK with
 * the worst this program can hand it: the window, ssthresh, the window
 * counter and the whole private area set to 0, 1, 2^31 - 1, 2^31, 2^32 - 1
 * or a random value, and arguments drawn the same way (samples built on
 * the stack). Then the program puts back the window, ssthresh and pacing
 * it found, so that the transfer it rides on goes on; the private area
 * stays as the kfunc left it. tests/hostile_cc.c picks the kfunc with
 * `kfunc`, one per subtest, in the order of enum kfunc below. CUBIC's,
 * DCTCP's and BBR's are in the kernel's set only with
 * CONFIG_DYNAMIC_FTRACE; the verifier refuses them otherwise.
 */
#include "tcp_ca.h"

char _license[] SEC("license") = "GPL";

extern void cubictcp_init(struct sock *sk) __ksym;
extern __u32 cubictcp_recalc_ssthresh(struct sock *sk) __ksym;
extern void cubictcp_cong_avoid(struct sock *sk, __u32 ack, __u32 acked) __ksym;
extern void cubictcp_state(struct sock *sk, __u8 new_state) __ksym;
extern void cubictcp_cwnd_event(struct sock *sk, enum tcp_ca_event event) __ksym;
extern void cubictcp_acked(struct sock *sk, const struct ack_sample *sample) __ksym;
extern void dctcp_init(struct sock *sk) __ksym;
extern void dctcp_update_alpha(struct sock *sk, __u32 flags) __ksym;
extern void dctcp_cwnd_event(struct sock *sk, enum tcp_ca_event ev) __ksym;
extern __u32 dctcp_ssthresh(struct sock *sk) __ksym;
extern __u32 dctcp_cwnd_undo(struct sock *sk) __ksym;
extern void dctcp_state(struct sock *sk, __u8 new_state) __ksym;
extern void bbr_init(struct sock *sk) __ksym;
extern void bbr_main(struct sock *sk, const struct rate_sample *rs) __ksym;
extern __u32 bbr_sndbuf_expand(struct sock *sk) __ksym;
extern __u32 bbr_undo_cwnd(struct sock *sk) __ksym;
extern void bbr_cwnd_event(struct sock *sk, enum tcp_ca_event event) __ksym;
extern __u32 bbr_ssthresh(struct sock *sk) __ksym;
extern __u32 bbr_min_tso_segs(struct sock *sk) __ksym;
extern void bbr_set_state(struct sock *sk, __u8 new_state) __ksym;

enum kfunc {
	K_TCP_RENO_SSTHRESH, K_TCP_RENO_CONG_AVOID, K_TCP_RENO_UNDO_CWND,
	K_TCP_SLOW_START, K_TCP_CONG_AVOID_AI,
	K_CUBICTCP_INIT, K_CUBICTCP_RECALC_SSTHRESH, K_CUBICTCP_CONG_AVOID,
	K_CUBICTCP_STATE, K_CUBICTCP_CWND_EVENT, K_CUBICTCP_ACKED,
	K_DCTCP_INIT, K_DCTCP_UPDATE_ALPHA, K_DCTCP_CWND_EVENT, K_DCTCP_SSTHRESH,
	K_DCTCP_CWND_UNDO, K_DCTCP_STATE,
	K_BBR_INIT, K_BBR_MAIN, K_BBR_SNDBUF_EXPAND, K_BBR_UNDO_CWND,
	K_BBR_CWND_EVENT, K_BBR_SSTHRESH, K_BBR_MIN_TSO_SEGS, K_BBR_SET_STATE,
};

/* set before the load: the verifier then checks only this kfunc's call */
const volatile __u32 kfunc;
__u64 kfunc_calls;

/* 0, 1, 2^31 - 1, 2^31, 2^32 - 1, or random: what breaks arithmetic */
static __u32 pick(void)
{
	__u32 r = bpf_get_prandom_u32();

	switch (r & 7) {
	case 0: return 0;
	case 1: return 1;
	case 2: return 0x7fffffff;
	case 3: return 0x80000000;
	case 4: return ~0U;
	default: return bpf_get_prandom_u32();
	}
}

static __u64 pick64(void)
{
	return (__u64)pick() << 32 | pick();
}

static void scramble(struct sock *sk)
{
	struct inet_connection_sock *icsk = inet_csk(sk);
	struct tcp_sock *tp = tcp_sk(sk);

	tp->snd_cwnd = pick();
	tp->snd_ssthresh = pick();
	tp->snd_cwnd_cnt = pick();
	icsk->icsk_ca_priv[0] = pick64();
	icsk->icsk_ca_priv[1] = pick64();
	icsk->icsk_ca_priv[2] = pick64();
	icsk->icsk_ca_priv[3] = pick64();
	icsk->icsk_ca_priv[4] = pick64();
	icsk->icsk_ca_priv[5] = pick64();
	icsk->icsk_ca_priv[6] = pick64();
	icsk->icsk_ca_priv[7] = pick64();
	icsk->icsk_ca_priv[8] = pick64();
	icsk->icsk_ca_priv[9] = pick64();
	icsk->icsk_ca_priv[10] = pick64();
	icsk->icsk_ca_priv[11] = pick64();
	icsk->icsk_ca_priv[12] = pick64();
}

static void call_kfunc(struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct rate_sample rs;
	struct ack_sample as;

	__builtin_memset(&rs, 0, sizeof(rs));
	rs.prior_mstamp = pick64();
	rs.prior_delivered = pick();
	rs.delivered = pick();
	rs.delivered_ce = pick();
	rs.interval_us = (long)pick64();
	rs.snd_interval_us = pick();
	rs.rcv_interval_us = pick();
	rs.rtt_us = (long)pick64();
	rs.losses = pick();
	rs.acked_sacked = pick();
	rs.prior_in_flight = pick();
	rs.last_end_seq = pick();
	rs.is_app_limited = pick() & 1;
	as.pkts_acked = pick();
	as.rtt_us = pick();
	as.in_flight = pick();

	switch (kfunc) {
	case K_TCP_RENO_SSTHRESH: tcp_reno_ssthresh(sk); break;
	case K_TCP_RENO_CONG_AVOID: tcp_reno_cong_avoid(sk, pick(), pick()); break;
	case K_TCP_RENO_UNDO_CWND: tcp_reno_undo_cwnd(sk); break;
	case K_TCP_SLOW_START: tcp_slow_start(tp, pick()); break;
	case K_TCP_CONG_AVOID_AI: tcp_cong_avoid_ai(tp, pick(), pick()); break;
	case K_CUBICTCP_INIT: cubictcp_init(sk); break;
	case K_CUBICTCP_RECALC_SSTHRESH: cubictcp_recalc_ssthresh(sk); break;
	case K_CUBICTCP_CONG_AVOID: cubictcp_cong_avoid(sk, pick(), pick()); break;
	case K_CUBICTCP_STATE: cubictcp_state(sk, pick()); break;
	case K_CUBICTCP_CWND_EVENT: cubictcp_cwnd_event(sk, pick() & 15); break;
	case K_CUBICTCP_ACKED: cubictcp_acked(sk, &as); break;
	case K_DCTCP_INIT: dctcp_init(sk); break;
	case K_DCTCP_UPDATE_ALPHA: dctcp_update_alpha(sk, pick()); break;
	case K_DCTCP_CWND_EVENT: dctcp_cwnd_event(sk, pick() & 15); break;
	case K_DCTCP_SSTHRESH: dctcp_ssthresh(sk); break;
	case K_DCTCP_CWND_UNDO: dctcp_cwnd_undo(sk); break;
	case K_DCTCP_STATE: dctcp_state(sk, pick()); break;
	case K_BBR_INIT: bbr_init(sk); break;
	case K_BBR_MAIN: bbr_main(sk, &rs); break;
	case K_BBR_SNDBUF_EXPAND: bbr_sndbuf_expand(sk); break;
	case K_BBR_UNDO_CWND: bbr_undo_cwnd(sk); break;
	case K_BBR_CWND_EVENT: bbr_cwnd_event(sk, pick() & 15); break;
	case K_BBR_SSTHRESH: bbr_ssthresh(sk); break;
	case K_BBR_MIN_TSO_SEGS: bbr_min_tso_segs(sk); break;
	case K_BBR_SET_STATE: bbr_set_state(sk, pick()); break;
	default: return;
	}
	COUNT(kfunc_calls);
}

void TCP_CA_OP(torture_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	struct tcp_sock *tp = tcp_sk(sk);
	__u32 cwnd = tp->snd_cwnd, ssthresh = tp->snd_ssthresh;

	scramble(sk);
	call_kfunc(sk);
	/* the flow goes on from where it was; the private area is garbage */
	tp->snd_cwnd = cwnd;
	tp->snd_ssthresh = ssthresh;
	tp->snd_cwnd_cnt = 0;
	sk->sk_pacing_status = SK_PACING_NONE;
	sk->sk_pacing_rate = ~0UL;
	tcp_reno_cong_avoid(sk, ack, acked);
}

__u32 TCP_CA_OP(torture_ssthresh, struct sock *sk)
{
	return tcp_reno_ssthresh(sk);
}

__u32 TCP_CA_OP(torture_undo_cwnd, struct sock *sk)
{
	return tcp_reno_undo_cwnd(sk);
}

SEC(".struct_ops")
struct tcp_congestion_ops kfunc_torture = {
	.ssthresh	= (void *)torture_ssthresh,
	.undo_cwnd	= (void *)torture_undo_cwnd,
	.cong_avoid	= (void *)torture_cong_avoid,
	.name		= "bpf_kf_torture",
};
