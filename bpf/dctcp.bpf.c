// SPDX-License-Identifier: GPL-2.0
/*
 * DCTCP (RFC 8257) in BPF. The bottleneck marks packets CE instead of
 * dropping them once its queue passes a small threshold; the receiver
 * echoes each mark exactly; the sender keeps alpha, a moving average of
 * the fraction of marked bytes, and once per window of marks cuts cwnd by
 * alpha / 2 rather than by half. Queues stay short and the link full.
 *
 * Both ends of a connection must run DCTCP and negotiate ECN. When the
 * peer does not, init() switches the socket to fallback_cc, an ordinary
 * congestion control ("cubic" unless user space changes it).
 *
 * State per connection lives in icsk_ca_priv (struct dctcp_ca); callback
 * counts and the last cut are globals that tests and users read.
 */
#include "tcp_ca.h"

char _license[] SEC("license") = "GPL";

#define DCTCP_MAX_ALPHA	1024U	/* alpha is in 1/1024 */
#define DCTCP_SHIFT_G	4	/* the moving average's gain: g = 1/16 */

struct dctcp_ca {
	/* sender: alpha, and where the current observation window started */
	__u32 alpha;
	__u32 window_end;	/* snd_nxt when the window began */
	__u32 delivered;	/* tp->delivered then */
	__u32 delivered_ce;	/* tp->delivered_ce then */
	__u32 loss_cwnd;	/* cwnd before the last reduction, for undo */
	/* receiver: the CE state of the last data and up to where it goes */
	__u32 ce_state;
	__u32 ce_rcv_nxt;
};

/* alpha of a new connection (the kernel's dctcp_alpha_on_init) */
__u32 alpha_on_init = DCTCP_MAX_ALPHA;
/* The congestion control for peers without ECN; writable before use. */
char fallback_cc[TCP_CA_NAME_MAX] = "cubic";
/* The error of the last fallback's bpf_setsockopt() that failed. */
int fallback_err;

__u64 init_calls, fallback_calls, ssthresh_calls, undo_cwnd_calls;
__u64 cong_avoid_calls, in_ack_event_calls, cwnd_event_calls;
__u64 set_state_calls, ce_changes, ce_acks_sent, alpha_updates;
__u64 get_info_calls;

/* For tests: the largest alpha seen and the last cut ssthresh() made. */
__u32 max_alpha;
__u32 cut_alpha, cut_cwnd, cut_ssthresh;

/* Start a new observation window at the next segment to send. */
static __always_inline void dctcp_new_window(struct dctcp_ca *ca,
					     const struct tcp_sock *tp)
{
	ca->window_end = tp->snd_nxt;
	ca->delivered = tp->delivered;
	ca->delivered_ce = tp->delivered_ce;
}

void TCP_CA_OP(dctcp_init, struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct dctcp_ca *ca = inet_csk_ca(sk);
	int state = sk->__sk_common.skc_state, err;

	COUNT(init_calls);
	if (!(tp->ecn_flags & TCP_ECN_OK) &&
	    state != TCP_LISTEN && state != TCP_CLOSE) {
		/* no ECN on this connection: DCTCP would never see a mark */
		COUNT(fallback_calls);
		err = bpf_setsockopt(sk, SOL_TCP, TCP_CONGESTION, fallback_cc,
				     sizeof(fallback_cc));
		if (err)
			fallback_err = err;
		return;
	}

	ca->alpha = min(alpha_on_init, DCTCP_MAX_ALPHA);
	ca->loss_cwnd = 0;
	ca->ce_state = 0;
	ca->ce_rcv_nxt = tp->rcv_nxt;
	dctcp_new_window(ca, tp);
}

/* Once per window: alpha = (1 - g) * alpha + g * (marked / delivered). */
void TCP_CA_OP(dctcp_in_ack_event, struct sock *sk, __u32 flags)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	struct dctcp_ca *ca = inet_csk_ca(sk);
	__u32 alpha = ca->alpha, decay, marked, delivered;

	COUNT(in_ack_event_calls);
	if (before(tp->snd_una, ca->window_end))
		return;

	/* below 16 the shift yields 0: let alpha decay to 0, not stick */
	decay = alpha >> DCTCP_SHIFT_G;
	alpha -= decay ?: alpha;

	marked = tp->delivered_ce - ca->delivered_ce;
	if (marked) {
		delivered = max(tp->delivered - ca->delivered, 1U);
		/* g * marked / delivered in 1/1024, g = 2^-DCTCP_SHIFT_G */
		alpha += (marked << (10 - DCTCP_SHIFT_G)) / delivered;
		alpha = min(alpha, DCTCP_MAX_ALPHA);
	}
	ca->alpha = alpha;
	COUNT(alpha_updates);
	if (alpha > max_alpha)
		max_alpha = alpha;
	dctcp_new_window(ca, tp);
}

/* On marks: cwnd * (1 - alpha / 2). */
__u32 TCP_CA_OP(dctcp_ssthresh, struct sock *sk)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	struct dctcp_ca *ca = inet_csk_ca(sk);
	__u32 cwnd = tp->snd_cwnd, ssthresh;

	COUNT(ssthresh_calls);
	ca->loss_cwnd = cwnd;
	ssthresh = max(cwnd - ((cwnd * ca->alpha) >> 11), 2U);
	cut_alpha = ca->alpha;
	cut_cwnd = cwnd;
	cut_ssthresh = ssthresh;
	return ssthresh;
}

/* A real loss is answered like Reno would: half the window. */
static __always_inline void dctcp_loss(struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct dctcp_ca *ca = inet_csk_ca(sk);

	ca->loss_cwnd = tp->snd_cwnd;
	tp->snd_ssthresh = max(tp->snd_cwnd >> 1, 2U);
}

void TCP_CA_OP(dctcp_set_state, struct sock *sk, __u8 new_state)
{
	COUNT(set_state_calls);
	if (new_state == TCP_CA_Recovery &&
	    new_state != inet_csk(sk)->icsk_ca_state)
		dctcp_loss(sk);
}

static __always_inline void dctcp_demand_cwr(struct tcp_sock *tp, __u32 ce)
{
	if (ce)
		tp->ecn_flags |= TCP_ECN_DEMAND_CWR;
	else
		tp->ecn_flags &= ~TCP_ECN_DEMAND_CWR;
}

/*
 * Receiver: echo ECE on exactly the data that came with CE. When the CE
 * state flips, data already waiting for a delayed ACK is acknowledged
 * first, with the old state, and the new state goes out at once.
 */
static __always_inline void dctcp_ce_event(struct sock *sk, __u32 ce)
{
	struct inet_connection_sock *icsk = inet_csk(sk);
	struct tcp_sock *tp = tcp_sk(sk);
	struct dctcp_ca *ca = inet_csk_ca(sk);

	if (ca->ce_state != ce) {
		COUNT(ce_changes);
		if (icsk->icsk_ack.pending & ICSK_ACK_TIMER) {
			dctcp_demand_cwr(tp, ca->ce_state);
			bpf_tcp_send_ack(tp, ca->ce_rcv_nxt);
			COUNT(ce_acks_sent);
		}
		icsk->icsk_ack.pending |= ICSK_ACK_NOW;
	}
	ca->ce_rcv_nxt = tp->rcv_nxt;
	ca->ce_state = ce;
	dctcp_demand_cwr(tp, ce);
}

void TCP_CA_OP(dctcp_cwnd_event, struct sock *sk, enum tcp_ca_event ev)
{
	COUNT(cwnd_event_calls);
	switch (ev) {
	case CA_EVENT_ECN_IS_CE:
		dctcp_ce_event(sk, 1);
		break;
	case CA_EVENT_ECN_NO_CE:
		dctcp_ce_event(sk, 0);
		break;
	case CA_EVENT_LOSS:
		dctcp_loss(sk);
		break;
	default:
		break;
	}
}

__u32 TCP_CA_OP(dctcp_undo_cwnd, struct sock *sk)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	const struct dctcp_ca *ca = inet_csk_ca(sk);

	COUNT(undo_cwnd_calls);
	return max(tp->snd_cwnd, ca->loss_cwnd);
}

/* Between cuts DCTCP grows like Reno: TCP's own code does that. */
void TCP_CA_OP(dctcp_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	COUNT(cong_avoid_calls);
	tcp_reno_cong_avoid(sk, ack, acked);
}

/*
 * What ss -ti and getsockopt(TCP_CC_INFO) show: the struct the kernel's
 * DCTCP fills, so that ss prints dctcp:(ce_state:..,alpha:..,ab_ecn:..,
 * ab_tot:..) for this one too. ab_ecn and ab_tot are the bytes marked and
 * delivered since the current observation window began. ss asks for
 * INET_DIAG_VEGASINFO (its request has bits for the first eight kinds of
 * answer only), getsockopt(TCP_CC_INFO) for everything. The kernel
 * zeroed *info, runs this without the socket lock, and copies out
 * sizeof(info->dctcp) bytes under the attribute set here.
 *
 * Upstream 6.1 refuses a BPF get_info (the program's load fails with
 * ENOTSUPP): build with -DDCTCP_NO_GET_INFO for such a kernel, as make
 * bench does to run one object on both.
 */
#ifndef DCTCP_NO_GET_INFO
__u64 TCP_CA_OP(dctcp_get_info, struct sock *sk, __u32 ext, int *attr,
		union tcp_cc_info *info)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	const struct dctcp_ca *ca = inet_csk_ca(sk);
	__u32 mss = tp->mss_cache;

	COUNT(get_info_calls);
	if (!(ext & (1 << (INET_DIAG_DCTCPINFO - 1) |
		     1 << (INET_DIAG_VEGASINFO - 1))))
		return 0;

	info->dctcp.dctcp_enabled = 1;
	info->dctcp.dctcp_ce_state = ca->ce_state;
	info->dctcp.dctcp_alpha = ca->alpha;
	info->dctcp.dctcp_ab_ecn = mss * (tp->delivered_ce - ca->delivered_ce);
	info->dctcp.dctcp_ab_tot = mss * (tp->delivered - ca->delivered);
	*attr = INET_DIAG_DCTCPINFO;
	return sizeof(info->dctcp);
}
#endif

CC_SECTION
struct tcp_congestion_ops dctcp = {
	.init		= (void *)dctcp_init,
	.in_ack_event	= (void *)dctcp_in_ack_event,
	.cwnd_event	= (void *)dctcp_cwnd_event,
	.ssthresh	= (void *)dctcp_ssthresh,
	.cong_avoid	= (void *)dctcp_cong_avoid,
	.undo_cwnd	= (void *)dctcp_undo_cwnd,
	.set_state	= (void *)dctcp_set_state,
#ifndef DCTCP_NO_GET_INFO
	.get_info	= (void *)dctcp_get_info,
#endif
	.flags		= TCP_CONG_NEEDS_ECN,
	.name		= "bpf_dctcp",
};
