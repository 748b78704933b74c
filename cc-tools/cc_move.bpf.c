// SPDX-License-Identifier: GPL-2.0
/*
 * Move a netns's TCP connections that still run an older version of a
 * congestion control onto the version registered under its name now.
 *
 * A congestion control replaced in place (BPF_LINK_UPDATE) keeps its name,
 * and every connection that started on the old version stays on it. For
 * each TCP socket of the netns, this program asks for the socket's own
 * congestion control by that name again: TCP looks the name up, finds the
 * new version, and switches the socket exactly as setsockopt(TCP_CONGESTION)
 * does (the old version's release, the new one's init), under the socket's
 * lock, which the TCP iterator holds. A socket already on the registered
 * version is left as it is.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

#define SOL_TCP		6
#define TCP_CONGESTION	13
#define CC_NAME_MAX	16	/* TCP_CA_NAME_MAX */

/* set by the loader before load */
const volatile char cc_name[CC_NAME_MAX];

/* what the last pass did: read back by the loader */
__u64 moved, current, failed;
int last_error;

static bool is_named(const char *name)
{
	int i;

	for (i = 0; i < CC_NAME_MAX; i++) {
		if (name[i] != cc_name[i])
			return false;
		if (!name[i])
			return true;
	}
	return true;
}

/*
 * A listener's congestion control only matters to its children when it
 * was set on it (icsk_ca_setsockopt): those children inherit it. Leave
 * the others alone, so that their children keep taking the netns default.
 */
static bool chose_its_cc(struct tcp_sock *tp)
{
	struct inet_connection_sock *icsk = &tp->inet_conn;

	if (icsk->icsk_inet.sk.__sk_common.skc_state != TCP_LISTEN)
		return true;
	return BPF_CORE_READ_BITFIELD(icsk, icsk_ca_setsockopt);
}

SEC("iter/tcp")
int move_cc(struct bpf_iter__tcp *ctx)
{
	struct sock_common *skc = ctx->sk_common;
	char name[CC_NAME_MAX] = {}, want[CC_NAME_MAX];
	const struct tcp_congestion_ops *before;
	struct tcp_sock *tp;
	int err, i;

	if (!skc)
		return 0;
	/* time-wait and request sockets run no congestion control */
	tp = bpf_skc_to_tcp_sock(skc);
	if (!tp || !chose_its_cc(tp))
		return 0;
	if (bpf_getsockopt(tp, SOL_TCP, TCP_CONGESTION, name, sizeof(name)) ||
	    !is_named(name))
		return 0;

	for (i = 0; i < CC_NAME_MAX; i++)
		want[i] = cc_name[i];
	before = tp->inet_conn.icsk_ca_ops;
	err = bpf_setsockopt(tp, SOL_TCP, TCP_CONGESTION, want, sizeof(want));
	if (err) {
		failed++;
		last_error = err;
	} else if (tp->inet_conn.icsk_ca_ops != before) {
		moved++;
	} else {
		current++;
	}
	return 0;
}

char _license[] SEC("license") = "GPL";
