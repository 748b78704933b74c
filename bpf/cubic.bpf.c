// SPDX-License-Identifier: GPL-2.0
/*
 * CUBIC (RFC 8312) with HyStart, in BPF.
 *
 * After a reduction cwnd follows W(t) = C * (t - K)^3 + Wmax: it climbs
 * fast back towards Wmax, the window where the last loss happened,
 * flattens out around it and then probes beyond it, slowly at first.
 * Time t is measured from the start of the epoch (the first ACK after the
 * reduction) plus the minimum RTT. HyStart leaves slow start before the
 * first loss when ACK trains stretch to half the minimum RTT or the RTT
 * climbs well above its minimum.
 *
 * The constants are those of the kernel's cubic with its default module
 * parameters, and time is kept in jiffies as it does (bpf_jiffies64()
 * and CONFIG_HZ from the running kernel), so that the two behave alike.
 */
#include "tcp_ca.h"

char _license[] SEC("license") = "GPL";

#define BETA		717U	/* multiplicative decrease: 717/1024 = 0.7 */
#define BETA_SCALE	1024U
#define TIME_SHIFT	10	/* t and K are in 1/1024 s */
#define C_SCALED	41U	/* C = 0.4: 41 * 10 / 1024 */
#define MAX_GROWTH_CNT	2U	/* at most 1 segment per 2 acked (1.5x/RTT) */

/* Reno's window at the same time, for TCP friendliness: 3B/(2-B) in 1/8. */
#define RENO_SCALE	(8 * (BETA_SCALE + BETA) / 3 / (BETA_SCALE - BETA))

/* K = cbrt(CUBE_FACTOR * (Wmax - cwnd)) in 1/1024 s: 2^40 / (10 * C_SCALED) */
#define CUBE_FACTOR	((1ULL << (10 + 3 * TIME_SHIFT)) / (10 * C_SCALED))
/* (t - K)^3 * C in segments: C_SCALED * 10, shifted back by 10 + 3 * 10 */
#define CUBE_SCALE	(C_SCALED * 10)

/* HyStart */
#define HYSTART_LOW_WINDOW	16	/* not below this cwnd */
#define HYSTART_ACK_GAP_US	2000	/* ACKs closer than this form a train */
#define HYSTART_SAMPLES		8	/* RTT samples per round */
#define HYSTART_DELAY_MIN_US	4000U
#define HYSTART_DELAY_MAX_US	16000U

struct cubic_ca {
	__u32 cnt;		/* grow cwnd by 1 every cnt segments acked */
	__u32 w_max;		/* cwnd at the last reduction (Wmax) */
	__u32 last_cwnd;	/* cwnd when cnt was last computed */
	__u32 last_time;	/* jiffies when cnt was last computed */
	__u32 origin;		/* the curve's plateau, in segments */
	__u32 k;		/* time from epoch start to the plateau */
	__u32 rtt_min_us;	/* lowest RTT seen */
	__u32 epoch_start;	/* jiffies; 0: no epoch yet */
	__u32 acked;		/* segments acked in this epoch, for reno_cwnd */
	__u32 reno_cwnd;	/* what Reno's cwnd would be now */
	/* HyStart, per round trip */
	__u32 found;		/* slow start exit found */
	__u32 round_start_us;
	__u32 round_end_seq;
	__u32 last_ack_us;
	__u32 round_rtt_us;	/* lowest RTT sample of this round */
	__u32 samples;
};

__u64 init_calls, ssthresh_calls, cong_avoid_calls, set_state_calls;
__u64 undo_cwnd_calls, cwnd_event_calls, pkts_acked_calls;
__u64 hystart_train_exits, hystart_delay_exits;

static __always_inline __u32 now_us(const struct sock *sk)
{
	return tcp_sk(sk)->tcp_mstamp;
}

/* Forget the curve: the next ACK starts a new epoch. */
static __always_inline void cubic_reset(struct cubic_ca *ca)
{
	ca->cnt = 0;
	ca->w_max = 0;
	ca->last_cwnd = 0;
	ca->last_time = 0;
	ca->origin = 0;
	ca->k = 0;
	ca->rtt_min_us = 0;
	ca->epoch_start = 0;
	ca->acked = 0;
	ca->reno_cwnd = 0;
	ca->found = 0;
}

static __always_inline void hystart_new_round(struct sock *sk)
{
	struct cubic_ca *ca = inet_csk_ca(sk);

	ca->round_start_us = ca->last_ack_us = now_us(sk);
	ca->round_end_seq = tcp_sk(sk)->snd_nxt;
	ca->round_rtt_us = ~0U;
	ca->samples = 0;
}

void TCP_CA_OP(cubic_init, struct sock *sk)
{
	COUNT(init_calls);
	cubic_reset(inet_csk_ca(sk));
	hystart_new_round(sk);
}

/* If v has bits above the lowest n, drop n of them and count them. */
static __always_inline void count_high_bits(__u64 *v, __u32 *bits, int n)
{
	if (*v >> n) {
		*v >>= n;
		*bits += n;
	}
}

/*
 * floor(cbrt(x)) by Newton's method, started above the root (within a
 * factor of two) so that six steps always converge. A handful of
 * branches, none in the loop: the verifier walks it in a single pass.
 */
static __always_inline __u32 cube_root(__u64 x)
{
	__u64 v = x, r;
	__u32 bits = 1;
	int i;

	if (!x)
		return 0;
	count_high_bits(&v, &bits, 32);
	count_high_bits(&v, &bits, 16);
	count_high_bits(&v, &bits, 8);
	count_high_bits(&v, &bits, 4);
	count_high_bits(&v, &bits, 2);
	count_high_bits(&v, &bits, 1);

	r = 1ULL << ((bits + 2) / 3);
#pragma unroll
	for (i = 0; i < 6; i++)
		r = (2 * r + x / (r * r)) / 3;
	/* Newton may stop one above the floor; r^3 > x, without overflow */
	if (r * r > x / r)
		r--;
	return r;
}

static __always_inline __u32 jiffies_from_us(__u32 us)
{
	__u32 us_per_jiffy = USEC_PER_SEC / HZ;

	return (us + us_per_jiffy - 1) / us_per_jiffy;
}

/* Where the cubic curve (or Reno, if that is ahead) puts cwnd now. */
static __always_inline void cubic_update(struct cubic_ca *ca, __u32 cwnd,
					 __u32 acked)
{
	__u32 now = tcp_jiffies32, target, delta, reno_step;
	__u64 t, dist;

	ca->acked += acked;
	/* cnt is recomputed at most every HZ/32 unless cwnd changed */
	if (ca->last_cwnd == cwnd && (__s32)(now - ca->last_time) <= HZ / 32)
		return;
	/* and at most once per jiffy */
	if (ca->epoch_start && now == ca->last_time)
		goto reno;

	ca->last_cwnd = cwnd;
	ca->last_time = now;
	if (!ca->epoch_start) {
		ca->epoch_start = now;
		ca->acked = acked;
		ca->reno_cwnd = cwnd;
		if (ca->w_max > cwnd) {
			ca->k = cube_root(CUBE_FACTOR * (ca->w_max - cwnd));
			ca->origin = ca->w_max;
		} else {
			ca->k = 0;
			ca->origin = cwnd;
		}
	}

	/* t: time into the epoch plus one minimum RTT, in 1/1024 s */
	t = (__s32)(now - ca->epoch_start);
	t += jiffies_from_us(ca->rtt_min_us);
	t = (t << TIME_SHIFT) / HZ;
	dist = t < ca->k ? ca->k - t : t - ca->k;
	delta = (CUBE_SCALE * dist * dist * dist) >> (10 + 3 * TIME_SHIFT);
	target = t < ca->k ? ca->origin - delta : ca->origin + delta;

	if (target > cwnd)
		ca->cnt = cwnd / (target - cwnd);
	else
		ca->cnt = 100 * cwnd;	/* at the plateau: barely grow */

	/* before the first loss nothing is known: grow at least 5% per RTT */
	if (!ca->w_max && ca->cnt > 20)
		ca->cnt = 20;

reno:
	/* Reno would grow one segment per RENO_SCALE/8 * cwnd acked */
	reno_step = (cwnd * RENO_SCALE) >> 3;
	if (reno_step && ca->acked > reno_step) {
		__u32 grown = (ca->acked - 1) / reno_step;

		ca->acked -= grown * reno_step;
		ca->reno_cwnd += grown;
	}
	if (ca->reno_cwnd > cwnd) {
		__u32 reno_cnt = cwnd / (ca->reno_cwnd - cwnd);

		ca->cnt = min(ca->cnt, reno_cnt);
	}

	ca->cnt = max(ca->cnt, MAX_GROWTH_CNT);
}

void TCP_CA_OP(cubic_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct cubic_ca *ca = inet_csk_ca(sk);

	COUNT(cong_avoid_calls);
	if (!tcp_is_cwnd_limited(sk))
		return;
	if (tcp_in_slow_start(tp)) {
		acked = tcp_slow_start(tp, acked);
		if (!acked)
			return;
	}
	cubic_update(ca, tp->snd_cwnd, acked);
	tcp_cong_avoid_ai(tp, ca->cnt, acked);
}

__u32 TCP_CA_OP(cubic_ssthresh, struct sock *sk)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	struct cubic_ca *ca = inet_csk_ca(sk);
	__u32 cwnd = tp->snd_cwnd;

	COUNT(ssthresh_calls);
	ca->epoch_start = 0;
	/* fast convergence: a second loss below Wmax gives way to newcomers */
	if (cwnd < ca->w_max)
		ca->w_max = cwnd * (BETA_SCALE + BETA) / (2 * BETA_SCALE);
	else
		ca->w_max = cwnd;
	return max(cwnd * BETA / BETA_SCALE, 2U);
}

void TCP_CA_OP(cubic_set_state, struct sock *sk, __u8 new_state)
{
	COUNT(set_state_calls);
	if (new_state == TCP_CA_Loss) {
		cubic_reset(inet_csk_ca(sk));
		hystart_new_round(sk);
	}
}

/* After an idle period, move the epoch so the curve resumes where it was. */
void TCP_CA_OP(cubic_cwnd_event, struct sock *sk, enum tcp_ca_event ev)
{
	struct cubic_ca *ca = inet_csk_ca(sk);
	__u32 now = tcp_jiffies32;
	__s32 idle;

	COUNT(cwnd_event_calls);
	if (ev != CA_EVENT_TX_START || !ca->epoch_start)
		return;
	idle = now - tcp_sk(sk)->lsndtime;
	if (idle > 0) {
		ca->epoch_start += idle;
		if (after(ca->epoch_start, now))
			ca->epoch_start = now;
	}
}

/* How late an ACK may come in a train when the sender paces (< 1 ms). */
static __always_inline __u32 hystart_pacing_slack_us(const struct sock *sk)
{
	__u64 rate = sk->sk_pacing_rate;

	if (!rate)
		return 0;
	/* time to send four of the socket's largest GSO packets */
	return min(4ULL * sk->sk_gso_max_size * USEC_PER_SEC / rate,
		   (__u64)USEC_PER_MSEC);
}

static __always_inline void hystart_exit(struct tcp_sock *tp, struct cubic_ca *ca,
					 __u64 *counter)
{
	ca->found = 1;
	tp->snd_ssthresh = tp->snd_cwnd;
	COUNT(*counter);
}

static __always_inline void hystart_update(struct sock *sk, __u32 rtt_us)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct cubic_ca *ca = inet_csk_ca(sk);
	__u32 now = now_us(sk), limit, slack;

	if (after(tp->snd_una, ca->round_end_seq))
		hystart_new_round(sk);
	/* rounds are kept from the start, the exits only looked for later */
	if (tp->snd_cwnd < HYSTART_LOW_WINDOW)
		return;

	/* ACK train: ACKs keep coming back to back for rtt_min / 2 */
	if ((__s32)(now - ca->last_ack_us) <= HYSTART_ACK_GAP_US) {
		ca->last_ack_us = now;
		limit = ca->rtt_min_us + hystart_pacing_slack_us(sk);
		/* unpaced, a train half the min RTT long fills the pipe */
		if (sk->sk_pacing_status == SK_PACING_NONE)
			limit >>= 1;
		if ((__s32)(now - ca->round_start_us) > (__s32)limit)
			hystart_exit(tp, ca, &hystart_train_exits);
	}

	/* delay: this round's lowest RTT is clearly above the minimum */
	ca->round_rtt_us = min(ca->round_rtt_us, rtt_us);
	if (ca->samples < HYSTART_SAMPLES) {
		ca->samples++;
		return;
	}
	slack = min(max(ca->rtt_min_us >> 3, HYSTART_DELAY_MIN_US),
		    HYSTART_DELAY_MAX_US);
	if (ca->round_rtt_us > ca->rtt_min_us + slack)
		hystart_exit(tp, ca, &hystart_delay_exits);
}

void TCP_CA_OP(cubic_pkts_acked, struct sock *sk,
	       const struct ack_sample *sample)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	struct cubic_ca *ca = inet_csk_ca(sk);
	__u32 rtt_us;

	COUNT(pkts_acked_calls);
	/* duplicate ACKs carry no RTT sample */
	if (sample->rtt_us < 0)
		return;
	/* RTTs right after a reduction still measure the old queue */
	if (ca->epoch_start && (__s32)(tcp_jiffies32 - ca->epoch_start) < HZ)
		return;

	rtt_us = sample->rtt_us ?: 1;
	if (!ca->rtt_min_us || rtt_us < ca->rtt_min_us)
		ca->rtt_min_us = rtt_us;

	if (!ca->found && tcp_in_slow_start(tp))
		hystart_update(sk, rtt_us);
}

__u32 TCP_CA_OP(cubic_undo_cwnd, struct sock *sk)
{
	COUNT(undo_cwnd_calls);
	return tcp_reno_undo_cwnd(sk);
}

CC_SECTION
struct tcp_congestion_ops cubic = {
	.init		= (void *)cubic_init,
	.ssthresh	= (void *)cubic_ssthresh,
	.cong_avoid	= (void *)cubic_cong_avoid,
	.set_state	= (void *)cubic_set_state,
	.undo_cwnd	= (void *)cubic_undo_cwnd,
	.cwnd_event	= (void *)cubic_cwnd_event,
	.pkts_acked	= (void *)cubic_pkts_acked,
	.name		= "bpf_cubic",
};
