// SPDX-License-Identifier: GPL-2.0
/*
 * BPF congestion controls carry traffic: the examples in bpf/ registered
 * with libbpf, selected by setsockopt() and by the sysctl default, over
 * IPv4 and IPv6 loopback and through an ECN-marking bottleneck between
 * two network namespaces; and what happens when one is unregistered
 * while connections use it.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <unistd.h>
#include <sys/socket.h>
#include <bpf/bpf.h>

#include "lib/test.h"
#include "lib/bottleneck.h"
#include "lib/cc.h"
#include "lib/net.h"
#include "lib/sys.h"
#include "reno.skel.h"
#include "dctcp.skel.h"
#include "cubic.skel.h"

#define MB (1000 * 1000)
#define DEFAULT "/proc/sys/net/ipv4/tcp_congestion_control"
#define TCP_ECN "/proc/sys/net/ipv4/tcp_ecn"

static const struct { const char *obj, *name, *busy_counter; } examples[] = {
	{ "reno", "bpf_reno", "cong_avoid_calls" },
	{ "dctcp", "bpf_dctcp", "in_ack_event_calls" },
	{ "cubic", "bpf_cubic", "pkts_acked_calls" },
};
#define NR_EXAMPLES 3

/* Registering adds the name to the available list, not to the allowed. */
static void register_lists_name(void)
{
	struct bpf_cc cc;
	int i;

	for (i = 0; i < NR_EXAMPLES; i++) {
		CHECK_OK(cc_open(&cc, examples[i].obj, examples[i].name));
		CHECK(!sysctl_lists(AVAILABLE, cc.name), "%s before attach", cc.name);
		CHECK_OK(cc_attach(&cc));
		CHECK(sysctl_lists(AVAILABLE, cc.name), "%s not available", cc.name);
		CHECK(!sysctl_lists(ALLOWED, cc.name), "%s allowed while restricted", cc.name);
		cc_detach(&cc);
		CHECK(!sysctl_lists(AVAILABLE, cc.name), "%s still available", cc.name);
		cc_close(&cc);
	}
}

/* The skeletons bpftool generates for the examples work as they are. */
#define SKELETON_ROUND_TRIP(skel, ops, cc_name)					\
	do {									\
		struct skel *s = skel##__open_and_load();			\
		struct bpf_link *link;						\
										\
		CHECK(s, #skel ": open_and_load: errno %d", errno);		\
		link = bpf_map__attach_struct_ops(s->maps.ops);			\
		CHECK(link, #skel ": attach: errno %d", errno);			\
		CHECK(sysctl_lists(AVAILABLE, cc_name), cc_name " not available");	\
		bpf_link__destroy(link);					\
		CHECK(!sysctl_lists(AVAILABLE, cc_name), cc_name " still available");	\
		skel##__destroy(s);						\
	} while (0)

static void skeletons(void)
{
	SKELETON_ROUND_TRIP(reno, reno, "bpf_reno");
	SKELETON_ROUND_TRIP(dctcp, dctcp, "bpf_dctcp");
	SKELETON_ROUND_TRIP(cubic, cubic, "bpf_cubic");
}

/* 10 MB with each example on both ends, chosen by setsockopt(). */
static void loopback(int family)
{
	struct xfer x = { .family = family, .bytes = 10 * MB };
	struct bpf_cc cc;
	int i;

	for (i = 0; i < NR_EXAMPLES; i++) {
		CHECK_OK(cc_open(&cc, examples[i].obj, examples[i].name));
		CHECK_OK(cc_attach(&cc));
		x.cc = cc.name;
		CHECK(!run_xfer(&x), "%s: %s: %s", cc.name, x.failed, strerror(x.err));
		CHECK_EQ(x.received, x.bytes);
		CHECK(!x.corrupt, "%s: data corrupted", cc.name);
		CHECK_STR(x.client_cc, cc.name);
		CHECK_STR(x.server_cc, cc.name);
		/* both ends initialized, and the CC ran on every ACK */
		CHECK(cc_u64(&cc, "init_calls") >= 2, "%s: init_calls %llu", cc.name,
		      (unsigned long long)cc_u64(&cc, "init_calls"));
		CHECK(cc_u64(&cc, "cong_avoid_calls") > 0, "%s: no cong_avoid", cc.name);
		CHECK(cc_u64(&cc, examples[i].busy_counter) > 10, "%s: %s = %llu",
		      cc.name, examples[i].busy_counter,
		      (unsigned long long)cc_u64(&cc, examples[i].busy_counter));
		cc_close(&cc);
	}
}

static void loopback_ipv4(void)
{
	loopback(AF_INET);
}

static void loopback_ipv6(void)
{
	loopback(AF_INET6);
}

/* As the sysctl default, new sockets get it without asking. */
static void sysctl_default(void)
{
	struct xfer x = { .family = AF_INET, .bytes = 10 * MB };
	char saved[64], now[64];
	struct bpf_cc cc;
	int i;

	CHECK_OK(sysctl_read(DEFAULT, saved, sizeof(saved)));
	for (i = 0; i < NR_EXAMPLES; i++) {
		CHECK_OK(cc_open(&cc, examples[i].obj, examples[i].name));
		CHECK_OK(cc_attach(&cc));
		CHECK_OK(sysctl_write(DEFAULT, cc.name));
		CHECK_OK(sysctl_read(DEFAULT, now, sizeof(now)));
		CHECK_STR(now, cc.name);
		/* the default is allowed to everybody */
		CHECK(sysctl_lists(ALLOWED, cc.name), "%s not allowed as default", cc.name);
		x.family = i == 1 ? AF_INET6 : AF_INET;
		CHECK(!run_xfer(&x), "%s: %s: %s", cc.name, x.failed, strerror(x.err));
		CHECK_EQ(x.received, x.bytes);
		CHECK(!x.corrupt, "%s: data corrupted", cc.name);
		CHECK_STR(x.client_cc, cc.name);
		CHECK_STR(x.server_cc, cc.name);
		CHECK(cc_u64(&cc, "cong_avoid_calls") > 0, "%s: no cong_avoid", cc.name);
		CHECK_OK(sysctl_write(DEFAULT, saved));
		cc_close(&cc);
	}
}

struct ss_probe {
	const char *name;
	bool seen;
};

/* ss -ti, half-way through: the connection shows the BPF name. */
static void run_ss(struct xfer *x, int fd)
{
	struct ss_probe *p = x->arg;
	char line[1024];
	FILE *f;

	f = popen("ss -tniH state established", "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, p->name))
			p->seen = true;
	pclose(f);
}

static void ss_shows_name(void)
{
	struct ss_probe probe = { .name = "bpf_cubic" };
	struct xfer x = { .family = AF_INET, .bytes = 4 * MB, .midway = run_ss,
			  .arg = &probe, .cc = "bpf_cubic" };
	struct bpf_cc cc;

	CHECK_OK(cc_open(&cc, "cubic", "bpf_cubic"));
	CHECK_OK(cc_attach(&cc));
	CHECK(!run_xfer(&x), "%s: %s", x.failed, strerror(x.err));
	CHECK(probe.seen, "ss -ti did not show bpf_cubic");
	cc_close(&cc);
}

/* Runs x with net.ipv4.tcp_ecn=0, so that the server will not do ECN. */
static void run_xfer_without_ecn(struct xfer *x)
{
	char ecn[16];

	if (sysctl_read(TCP_ECN, ecn, sizeof(ecn)) || sysctl_write(TCP_ECN, "0")) {
		x->err = errno;
		x->failed = "tcp_ecn sysctl";
		return;
	}
	run_xfer(x);
	sysctl_write(TCP_ECN, ecn);
}

/* The transfer went through on the fallback, cubic, without ECN. */
static void check_fell_back(const struct xfer *x, struct bpf_cc *cc)
{
	CHECK(!x->err, "%s: %s", x->failed, strerror(x->err));
	CHECK_EQ(x->received, x->bytes);
	CHECK(!(x->client_info.tcpi_options & TCPI_OPT_ECN), "ECN negotiated");
	CHECK_STR(x->client_cc, "cubic");
	CHECK_EQ(cc_u64(cc, "fallback_calls"), 1);
	CHECK_EQ((int)cc_u32(cc, "fallback_err"), 0);
}

/* A peer without ECN: DCTCP's init() switches the socket to its fallback. */
static void dctcp_fallback_without_ecn(void)
{
	struct xfer x = { .family = AF_INET, .bytes = 2 * MB, .cc = "bpf_dctcp",
			  .server_cc_set = "reno" };
	struct bpf_cc cc;

	CHECK_OK(cc_open(&cc, "dctcp", "bpf_dctcp"));
	CHECK_OK(cc_attach(&cc));
	run_xfer_without_ecn(&x);
	check_fell_back(&x, &cc);
	cc_close(&cc);
}

/*
 * The fallback is a BPF CC whose init() wants to switch again: that
 * second bpf_setsockopt(TCP_CONGESTION) is refused with -EBUSY rather
 * than recursing, and the socket stays on the first fallback.
 */
static void dctcp_fallback_chain_is_busy(void)
{
	struct xfer x = { .family = AF_INET, .bytes = 2 * MB, .cc = "bpf_dctcp",
			  .server_cc_set = "reno" };
	char fallback[16] = "bpf_dctcp2";
	struct bpf_cc cc;

	CHECK_OK(cc_open(&cc, "dctcp_pair", "bpf_dctcp"));
	CHECK_OK(cc_write(&cc, "fallback_cc", fallback, sizeof(fallback)));
	CHECK_OK(cc_attach(&cc));
	CHECK_OK(cc_attach_map(&cc, bpf_object__find_map_by_name(cc.obj, "dctcp2")));
	run_xfer_without_ecn(&x);
	CHECK(!x.err, "%s: %s", x.failed, strerror(x.err));
	CHECK_EQ(x.received, x.bytes);
	CHECK_STR(x.client_cc, "bpf_dctcp2");
	CHECK_EQ(cc_u64(&cc, "fallback_calls"), 2);
	CHECK_EQ((int)cc_u32(&cc, "fallback_err"), -EBUSY);
	cc_close(&cc);
}

static char tc_stats[2048];

static void ecn_bottleneck_dctcp(void)
{
	struct xfer x = { .family = AF_INET, .bytes = 4 * MB, .cc = "bpf_dctcp",
			  .addr = BOTTLENECK_RCV };
	__u32 zero = 0, alpha, cwnd, ssthresh, want;
	struct bpf_cc cc;
	long marked;

	CHECK_OK(bottleneck_up(&x.client_ns, &x.server_ns));
	CHECK_OK(cc_open(&cc, "dctcp", "bpf_dctcp"));
	/* start from alpha 0, so that any alpha comes from the marks */
	CHECK_OK(cc_write(&cc, "alpha_on_init", &zero, sizeof(zero)));
	CHECK_OK(cc_attach(&cc));
	run_xfer(&x);
	marked = bottleneck_ce_marked(tc_stats, sizeof(tc_stats));
	bottleneck_teardown();
	CHECK(!x.err, "%s: %s", x.failed, strerror(x.err));
	CHECK_EQ(x.received, x.bytes);
	CHECK(!x.corrupt, "data corrupted");
	CHECK_STR(x.client_cc, "bpf_dctcp");
	CHECK(x.client_info.tcpi_options & TCPI_OPT_ECN, "ECN not negotiated");
	CHECK(marked > 0, "the bottleneck marked %ld packets; tc said:\n%s", marked,
	      tc_stats);
	CHECK(x.client_info.tcpi_delivered_ce > 0, "sender saw no CE echo");
	CHECK(cc_u64(&cc, "ce_changes") > 0, "receiver saw no CE change");
	CHECK_EQ(cc_u64(&cc, "fallback_calls"), 0);
	CHECK(cc_u32(&cc, "max_alpha") > 0, "alpha stayed 0");
	CHECK(cc_u64(&cc, "ssthresh_calls") > 0, "cwnd never cut");
	/* the last cut was by alpha / 2, not by half */
	alpha = cc_u32(&cc, "cut_alpha");
	cwnd = cc_u32(&cc, "cut_cwnd");
	ssthresh = cc_u32(&cc, "cut_ssthresh");
	want = cwnd - ((cwnd * alpha) >> 11);
	CHECK_EQ(ssthresh, want < 2 ? 2 : want);
	CHECK(alpha < 1024, "alpha %u: a full halving", alpha);
	cc_close(&cc);
	close(x.client_ns);
	close(x.server_ns);
}

/* The same bottleneck with a receiver that does not do ECN. */
static void ecn_bottleneck_fallback(void)
{
	struct xfer x = { .family = AF_INET, .bytes = 1 * MB, .cc = "bpf_dctcp",
			  .server_cc_set = "cubic", .addr = BOTTLENECK_RCV };
	struct bpf_cc cc;

	CHECK_OK(bottleneck_up(&x.client_ns, &x.server_ns));
	CHECK(!system("ip netns exec so_rcv sysctl -qw net.ipv4.tcp_ecn=0"), "tcp_ecn");
	CHECK_OK(cc_open(&cc, "dctcp", "bpf_dctcp"));
	CHECK_OK(cc_attach(&cc));
	run_xfer(&x);
	bottleneck_teardown();
	check_fell_back(&x, &cc);
	cc_close(&cc);
	close(x.client_ns);
	close(x.server_ns);
}

/* A route's congctl picks the BPF CC for connections over that route. */
static void route_congctl(void)
{
	struct xfer x = { .family = AF_INET, .bytes = 1 * MB, .addr = BOTTLENECK_RCV };
	struct bpf_cc cc;

	CHECK_OK(bottleneck_up(&x.client_ns, &x.server_ns));
	CHECK_OK(cc_open(&cc, "reno", "bpf_reno"));
	CHECK_OK(cc_attach(&cc));
	CHECK(!system("ip -n so_snd route replace 10.77.0.0/24 dev veth_snd "
		       "congctl bpf_reno"), "ip route ... congctl bpf_reno failed");
	run_xfer(&x);
	bottleneck_teardown();
	CHECK(!x.err, "%s: %s", x.failed, strerror(x.err));
	CHECK_EQ(x.received, x.bytes);
	CHECK_STR(x.client_cc, "bpf_reno");
	CHECK(strcmp(x.server_cc, "bpf_reno"), "the server's route has no congctl");
	CHECK(cc_u64(&cc, "cong_avoid_calls") > 0, "no cong_avoid");
	cc_close(&cc);
	close(x.client_ns);
	close(x.server_ns);
}

struct unreg_probe {
	struct bpf_cc *cc;
	struct struct_ops_header during;
	int new_socket_errno;
	bool still_available;
};

/* Half-way: unregister, then look at what is left. */
static void unregister_now(struct xfer *x, int fd)
{
	struct unreg_probe *p = x->arg;
	int s;

	cc_detach(p->cc);
	struct_ops_header(bpf_map__fd(p->cc->ops), &p->during);
	s = socket(AF_INET, SOCK_STREAM, 0);
	errno = 0;
	if (setsockopt(s, IPPROTO_TCP, TCP_CONGESTION, "bpf_reno", 8))
		p->new_socket_errno = errno;
	close(s);
	p->still_available = sysctl_lists(AVAILABLE, "bpf_reno");
}

static void unregister_during_transfer(void)
{
	struct bpf_cc cc;
	struct unreg_probe probe = { .cc = &cc };
	struct xfer x = { .family = AF_INET, .bytes = 8 * MB, .cc = "bpf_reno",
			  .pace_us = 2000, .midway = unregister_now, .arg = &probe };
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);
	struct struct_ops_header after;
	int i;

	CHECK_OK(cc_open(&cc, "reno", "bpf_reno"));
	CHECK_OK(cc_attach(&cc));
	CHECK_OK(bpf_obj_get_info_by_fd(bpf_map__fd(cc.ops), &info, &len));
	CHECK(!run_xfer(&x), "%s: %s", x.failed, strerror(x.err));
	/* the connection finished on the unregistered CC */
	CHECK_EQ(x.received, x.bytes);
	CHECK(!x.corrupt, "data corrupted");
	/* while it ran: TOBEFREE, held by the listener and both ends */
	CHECK_EQ(probe.during.state, STATE_TOBEFREE);
	CHECK_EQ(probe.during.refcnt, 3);
	CHECK_EQ(probe.new_socket_errno, ENOENT);
	CHECK(!probe.still_available, "bpf_reno still available");
	CHECK(cc_u64(&cc, "cong_avoid_calls") > 0, "no cong_avoid");

	/* the sockets let go as they close */
	for (i = 0; i < 50; i++) {
		CHECK_OK(struct_ops_header(bpf_map__fd(cc.ops), &after));
		if (!after.refcnt)
			break;
		usleep(100 * 1000);
	}
	CHECK_EQ(after.state, STATE_TOBEFREE);
	CHECK_EQ(after.refcnt, 0);

	/* the last fd gone, the map goes */
	cc_close(&cc);
	CHECK(wait_id_gone(info.id, true), "map %u still there", info.id);

	/* and the name is free again */
	CHECK_OK(cc_open(&cc, "reno", "bpf_reno"));
	CHECK_OK(cc_attach(&cc));
	CHECK(sysctl_lists(AVAILABLE, "bpf_reno"), "bpf_reno not re-registered");
	cc_close(&cc);
}

/* A second registration of the same name fails as TCP's does. */
static void duplicate_name(void)
{
	struct bpf_cc a, b;
	struct struct_ops_header h;

	CHECK_OK(cc_open(&a, "reno", "bpf_reno"));
	CHECK_OK(cc_open(&b, "reno", "bpf_reno"));
	CHECK_OK(cc_attach(&a));
	CHECK_EQ(cc_attach(&b), -EEXIST);
	CHECK_OK(struct_ops_header(bpf_map__fd(b.ops), &h));
	CHECK_EQ(h.state, STATE_INIT);	/* still INIT: it can be used once the name is free */
	cc_close(&a);
	CHECK_OK(cc_attach(&b));
	cc_close(&b);
}

TEST_MAIN(SUBTEST(register_lists_name), SUBTEST(skeletons), SUBTEST(loopback_ipv4),
	  SUBTEST(loopback_ipv6), SUBTEST(sysctl_default), SUBTEST(ss_shows_name),
	  SUBTEST(dctcp_fallback_without_ecn),
	  SUBTEST(dctcp_fallback_chain_is_busy),
	  SUBTEST(ecn_bottleneck_dctcp), SUBTEST(ecn_bottleneck_fallback), SUBTEST(route_congctl),
	  SUBTEST(unregister_during_transfer), SUBTEST(duplicate_name))
