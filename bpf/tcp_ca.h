/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a BPF congestion control needs beyond vmlinux.h: the kernel's
 * #defines (which BTF does not carry), its small inline helpers and the
 * kfuncs TCP offers to struct_ops programs.
 */
#ifndef TCP_CA_H
#define TCP_CA_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

/*
 * The section the struct goes in. ".struct_ops" (libbpf 0.7+): updating
 * the map registers it, deleting it unregisters it. Built with
 * -DSTRUCT_OPS_LINK, ".struct_ops.link" (libbpf 1.2+): a link registers
 * it, and can later put a new version in its place with no moment in
 * which the name is missing (bpf_link__update_map()).
 */
#ifdef STRUCT_OPS_LINK
#define CC_SECTION SEC(".struct_ops.link")
#else
#define CC_SECTION SEC(".struct_ops")
#endif

#define SOL_TCP			6
#define TCP_CONGESTION		13
#define TCP_CA_NAME_MAX		16

/* tcp_sock.ecn_flags */
#define TCP_ECN_OK		1
#define TCP_ECN_QUEUE_CWR	2
#define TCP_ECN_DEMAND_CWR	4
#define TCP_ECN_SEEN		8

/* tcp_congestion_ops.flags */
#define TCP_CONG_NON_RESTRICTED	0x1
#define TCP_CONG_NEEDS_ECN	0x2

#define TCP_INFINITE_SSTHRESH	0x7fffffff
#define USEC_PER_SEC		1000000UL
#define USEC_PER_MSEC		1000UL

/* The kernel's jiffies; CONFIG_HZ comes from the running kernel's config. */
extern unsigned int CONFIG_HZ __kconfig;
#define HZ			CONFIG_HZ
#define tcp_jiffies32		((__u32)bpf_jiffies64())

/* One callback of struct tcp_congestion_ops, in section struct_ops/NAME. */
#define TCP_CA_OP(name, args...)	\
SEC("struct_ops/" #name)		\
BPF_PROG(name, ##args)

#define min(a, b) ((a) < (b) ? (a) : (b))
#define max(a, b) ((a) > (b) ? (a) : (b))

/* Sequence number comparison, as the kernel's before()/after(). */
static __always_inline bool before(__u32 seq1, __u32 seq2)
{
	return (__s32)(seq1 - seq2) < 0;
}
#define after(seq2, seq1) before(seq1, seq2)

static __always_inline struct tcp_sock *tcp_sk(const struct sock *sk)
{
	return (struct tcp_sock *)sk;
}

static __always_inline struct inet_connection_sock *inet_csk(const struct sock *sk)
{
	return (struct inet_connection_sock *)sk;
}

/* The congestion control's per-connection area: 104 bytes, zeroed at start. */
static __always_inline void *inet_csk_ca(const struct sock *sk)
{
	return (void *)inet_csk(sk)->icsk_ca_priv;
}

static __always_inline bool tcp_in_slow_start(const struct tcp_sock *tp)
{
	return tp->snd_cwnd < tp->snd_ssthresh;
}

/* As the kernel's: grow only when cwnd, not the application, limits us. */
static __always_inline bool tcp_is_cwnd_limited(const struct sock *sk)
{
	const struct tcp_sock *tp = tcp_sk(sk);

	if (tp->is_cwnd_limited)
		return true;
	if (tcp_in_slow_start(tp))
		return tp->snd_cwnd < 2 * tp->max_packets_out;
	return false;
}

/* Reno's building blocks, exported by TCP as kfuncs. */
extern __u32 tcp_slow_start(struct tcp_sock *tp, __u32 acked) __ksym;
extern void tcp_cong_avoid_ai(struct tcp_sock *tp, __u32 w, __u32 acked) __ksym;
extern __u32 tcp_reno_ssthresh(struct sock *sk) __ksym;
extern void tcp_reno_cong_avoid(struct sock *sk, __u32 ack, __u32 acked) __ksym;
extern __u32 tcp_reno_undo_cwnd(struct sock *sk) __ksym;

/* Count a callback in a global that user space reads. */
#define COUNT(counter) __sync_fetch_and_add(&(counter), 1)

#endif
