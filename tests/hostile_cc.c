// SPDX-License-Identifier: GPL-2.0
/*
 * Hostile congestion controls (tests/bpf/hostile.bpf.c): each breaks one of
 * TCP's rules and carries 10 MB over lossy loopback and through a shaped,
 * drop-tail bottleneck. Each transfer must arrive whole within its bound,
 * with no splat, with the state every callback found within TCP's
 * invariants, and with exactly the watchdog moves expected:
 * TcpExtTCPCAWatchdogFallback, as nstat shows it, and the kernel's log line.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib/cc.h"
#include "lib/kmsg.h"
#include "lib/net.h"
#include "lib/netns.h"
#include "lib/test.h"

#define MB (1000 * 1000)
#define XFER_BYTES (10 * MB)
/* the bound each transfer must finish in, cwnd 1 through the bottleneck
 * being the slowest (about 20 s in the debug guest)
 */
#define XFER_BOUND_S 120
/* what the guards keep snd_cwnd under: min(snd_cwnd_clamp, 2^24) */
#define MAX_CWND (1U << 24)
#define DEFAULT_CC "cubic"

enum avoid_mode { AVOID_RENO, AVOID_AI_ZERO, AVOID_SET_CWND };

/* The two paths every case runs on: a namespace's loopback (setup), or
 * two namespaces over a veth pair (veth).
 */
struct path {
	const char *name;
	const struct netns_batch *setup;
	const struct veth_path *veth;
	const char *snd_ns, *rcv_ns, *addr;
};

static const char * const lossy_lo_ip[] = { "netns add hl_lo", NULL };
static const char * const lo_up[] = { "link set lo up", NULL };
static const char * const lossy_lo_tc[] = { "qdisc add dev lo root netem loss 2%", NULL };

static const struct netns_batch lossy_lo_setup[] = {
	{ "ip", NULL, lossy_lo_ip },
	{ "ip", "hl_lo", lo_up },
	{ "tc", "hl_lo", lossy_lo_tc },
	{ NULL },
};

/* 20 Mbit/s into a 20-packet queue that also drops 1% at random (on the
 * sender's own interface TCP Small Queues keeps the queue from filling,
 * so the losses recovery needs come from netem), 5 ms more on the ACK
 * path; jumbo frames, so that a window of one segment moves 10 MB in
 * seconds
 */
static const char * const bottleneck_snd_tc[] = {
	"qdisc add dev veth_hl root handle 1: htb default 1",
	"class add dev veth_hl parent 1: classid 1:1 htb rate 20mbit",
	"qdisc add dev veth_hl parent 1:1 netem loss 1% limit 20",
	NULL,
};

static const char * const bottleneck_rcv_tc[] = {
	"qdisc add dev veth_hl root netem delay 5ms",
	NULL,
};

static const struct veth_path bottleneck = {
	.snd_ns = "hl_snd", .rcv_ns = "hl_rcv",
	.snd_dev = "veth_hl", .rcv_dev = "veth_hl",
	.snd_addr = "10.78.0.1/24", .rcv_addr = "10.78.0.2/24",
	.link_opts = "mtu 9000",
	.snd_tc = bottleneck_snd_tc, .rcv_tc = bottleneck_rcv_tc,
};

static const char * const plain_lo_ip[] = { "netns add hl_kf", NULL };

static const struct netns_batch plain_lo_setup[] = {
	{ "ip", NULL, plain_lo_ip },
	{ "ip", "hl_kf", lo_up },
	{ NULL },
};

static const struct path paths[] = {
	{ "loopback", lossy_lo_setup, NULL, "hl_lo", "hl_lo", "127.0.0.1" },
	{ "bottleneck", NULL, &bottleneck, "hl_snd", "hl_rcv", "10.78.0.2" },
};

/* for the kfuncs: loopback without loss */
static const struct path plain_lo = { "loopback", plain_lo_setup, NULL, "hl_kf",
				      "hl_kf", "127.0.0.1" };

static void paths_down(void)
{
	static const char * const names[] = { "hl_lo", "hl_snd", "hl_rcv", "hl_kf" };
	unsigned int i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		netns_delete(names[i]);
}

/*
 * Build a path the first time a case needs it and keep it to the end:
 * taking a network namespace down costs the debug guest seconds of RCU
 * barriers, and the cases only add to its counters, which they read
 * before and after.
 */
static int path_up(const struct path *p)
{
	static const struct path *built[3];
	unsigned int i;

	for (i = 0; i < 3 && built[i]; i++)
		if (built[i] == p)
			return 0;
	if (i == 3)
		return -1;
	if (!i) {
		paths_down();
		atexit(paths_down);
	}
	built[i] = p;
	return p->veth ? netns_veth_path(p->veth) : netns_setup(p->setup);
}

static int netns_fd(const char *name)
{
	char path[64];

	snprintf(path, sizeof(path), "/run/netns/%s", name);
	return open(path, O_RDONLY);
}

#define FALLBACKS "TcpExtTCPCAWatchdogFallback"

/* FALLBACKS in netns ns; -1 if it has none */
static long fallbacks_in(int ns)
{
	return netns_counter(ns, "TcpExt", "TCPCAWatchdogFallback");
}

/* One case: how to set the congestion control up, what must come out. */
struct hostile {
	bool ctl;		/* hostile_ctl (cong_control), else hostile */
	__u32 avoid_mode;
	__u32 cwnd_value;
	/* what ssthresh() and undo_cwnd() return, if set; else Reno's */
	bool set_ssthresh, set_undo;
	__u32 ssthresh, undo;
	/* cong_control paces at pace_rate after pace_after calls, if set */
	bool pace;
	__u64 pace_after, pace_rate;
	/* the watchdog's verdict: moved to DEFAULT_CC, or left alone */
	bool moved;
};

#define CASE(...) { __VA_ARGS__ }
#define CTL_CASE(...) { .ctl = true, __VA_ARGS__ }

/* The struct_ops map of hostile.bpf.o a case registers, and its name. */
static const char *case_map(const struct hostile *h)
{
	return h->ctl ? "hostile_ctl" : "hostile";
}

static const char *case_cc(const struct hostile *h)
{
	return h->ctl ? "bpf_hostile_ctl" : "bpf_hostile";
}

/* What a run found, for the case's own checks. */
struct outcome {
	struct xfer x;
	double seconds;
	long fallbacks;
	bool logged;
	char log[512];
	__u32 min_cwnd, max_cwnd, min_ssthresh;
	__u64 ssthresh_calls, undo_calls, avoid_calls, control_calls;
};

static int setup_cc(struct bpf_cc *cc, const struct hostile *h)
{
	struct bpf_map *map;

#define SET(var, val)								\
	do {									\
		__typeof__(val) __v = (val);					\
		int __e = cc_write(cc, #var, &__v, sizeof(__v));		\
		if (__e)							\
			return __e;						\
	} while (0)
	SET(avoid_mode, h->avoid_mode);
	SET(cwnd_value, h->cwnd_value);
	SET(ssthresh_ret, h->set_ssthresh ? (__s64)h->ssthresh : -1);
	SET(undo_ret, h->set_undo ? (__s64)h->undo : -1);
	SET(pace_after, h->pace ? h->pace_after : ~0ULL);
	SET(pace_rate, h->pace_rate);
#undef SET
	map = bpf_object__find_map_by_name(cc->obj, case_map(h));
	return map ? cc_attach_map(cc, map) : -ENOENT;
}

/* a transfer that fails must say so, not die of SIGPIPE */
__attribute__((constructor)) static void ignore_sigpipe(void)
{
	signal(SIGPIPE, SIG_IGN);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Carry XFER_BYTES over path p with the case's congestion control. */
static int run_case(const struct hostile *h, const struct path *p,
		    struct outcome *o)
{
	struct xfer *x = &o->x;
	char pattern[128];
	struct bpf_cc cc;
	double start;
	int kmsg, err;

	memset(o, 0, sizeof(*o));
	*x = (struct xfer){ .family = AF_INET, .bytes = XFER_BYTES, .cc = case_cc(h),
			    .addr = p->addr, .quickack = true,
			    .timeout_s = XFER_BOUND_S };
	err = path_up(p);
	if (err)
		return err;
	x->client_ns = netns_fd(p->snd_ns);
	x->server_ns = netns_fd(p->rcv_ns);
	err = cc_open(&cc, "hostile", case_cc(h));
	if (!err)
		err = setup_cc(&cc, h);
	if (err || x->client_ns < 0 || x->server_ns < 0)
		goto out;

	kmsg = kmsg_open();
	o->fallbacks = -fallbacks_in(x->client_ns);
	start = now_s();
	run_xfer(x);
	o->seconds = now_s() - start;
	o->fallbacks += fallbacks_in(x->client_ns);
	snprintf(pattern, sizeof(pattern), "TCP: %s held a connection back for", case_cc(h));
	o->logged = kmsg_grep(kmsg, pattern, o->log, sizeof(o->log));
	close(kmsg);

	o->min_cwnd = cc_u32(&cc, "min_cwnd_seen");
	o->max_cwnd = cc_u32(&cc, "max_cwnd_seen");
	o->min_ssthresh = cc_u32(&cc, "min_ssthresh_seen");
	o->ssthresh_calls = cc_u64(&cc, "ssthresh_calls");
	o->undo_calls = cc_u64(&cc, "undo_calls");
	o->avoid_calls = cc_u64(&cc, "avoid_calls");
	o->control_calls = cc_u64(&cc, "control_calls");
out:
	cc_close(&cc);
	if (x->client_ns > 0)
		close(x->client_ns);
	if (x->server_ns > 0)
		close(x->server_ns);
	return err;
}

static const struct hostile *current;
static void (*current_check)(const struct outcome *o);

/* Run the current case on both paths; the checks every case shares. */
static void run_hostile(void)
{
	const struct hostile *h = current;
	struct outcome o;
	char splat[512];
	unsigned int i;
	int kmsg;

	for (i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		const struct path *p = &paths[i];

		kmsg = kmsg_open();
		CHECK(!run_case(h, p, &o), "%s: setting up %s failed", p->name, case_cc(h));
		CHECK(!kmsg_splat(kmsg, splat, sizeof(splat)), "%s: %s", p->name, splat);
		close(kmsg);
		printf("# %s %s: %.1f s, cwnd seen %u..%u, ssthresh >= %u, calls: "
		       "cong_avoid %llu cong_control %llu ssthresh %llu undo %llu, "
		       "fallbacks %ld\n", case_cc(h), p->name, o.seconds, o.min_cwnd,
		       o.max_cwnd, o.min_ssthresh, (unsigned long long)o.avoid_calls,
		       (unsigned long long)o.control_calls,
		       (unsigned long long)o.ssthresh_calls,
		       (unsigned long long)o.undo_calls, o.fallbacks);

		CHECK(!o.x.err, "%s: %s: %s", p->name, o.x.failed, strerror(o.x.err));
		CHECK(o.x.received == XFER_BYTES, "%s: %zu of %d bytes", p->name,
		      o.x.received, XFER_BYTES);
		CHECK(!o.x.corrupt, "%s: data corrupted", p->name);
		CHECK(o.seconds < XFER_BOUND_S, "%s: %.1f s", p->name, o.seconds);
		/* what the guards promise, seen from the next callback */
		CHECK(o.min_cwnd >= 1, "%s: a callback found snd_cwnd %u", p->name,
		      o.min_cwnd);
		CHECK(o.max_cwnd <= MAX_CWND, "%s: a callback found snd_cwnd %u",
		      p->name, o.max_cwnd);
		CHECK(o.min_ssthresh >= 2, "%s: a callback found snd_ssthresh %u",
		      p->name, o.min_ssthresh);
		/* the watchdog's verdict, counted and logged */
		CHECK(o.fallbacks == (h->moved ? 1 : 0), "%s: %s = %ld", p->name,
		      FALLBACKS, o.fallbacks);
		CHECK(o.logged == h->moved, "%s: watchdog log line %s", p->name,
		      o.logged ? o.log : "missing");
		CHECK_STR(o.x.client_cc, case_cc(h));
		CHECK_STR(o.x.client_cc_end, h->moved ? DEFAULT_CC : case_cc(h));
		if (current_check)
			current_check(&o);
		if (test_failed)
			return;
	}
}

/* Each case: its congestion control, and what only it must show. */
#define HOSTILE(name, check, ...)						\
	static void name(void)							\
	{									\
		static const struct hostile h = __VA_ARGS__;			\
		current = &h;							\
		current_check = check;						\
		run_hostile();							\
	}

static void losses_seen(const struct outcome *o)
{
	CHECK(o->ssthresh_calls > 0, "no loss: ssthresh() never ran");
}

static void cwnd_max(const struct outcome *o)
{
	CHECK_EQ(o->max_cwnd, MAX_CWND);
}

/* The oops of the issue: ssthresh() 0, then Reno's cong_avoid as a kfunc. */
HOSTILE(ssthresh_zero_reno_kfunc, losses_seen, CASE(.set_ssthresh = true, .ssthresh = 0))
/* tcp_cong_avoid_ai(tp, 0, acked) called directly: a divide error before */
HOSTILE(cong_avoid_ai_w_zero, NULL, CASE(.avoid_mode = AVOID_AI_ZERO))
HOSTILE(cwnd_zero_every_ack, NULL, CASE(.avoid_mode = AVOID_SET_CWND))
HOSTILE(ssthresh_one, losses_seen, CASE(.set_ssthresh = true, .ssthresh = 1))
HOSTILE(undo_cwnd_zero, NULL, CASE(.set_undo = true, .undo = 0))
HOSTILE(cwnd_all_ones, cwnd_max, CASE(.avoid_mode = AVOID_SET_CWND,
				       .cwnd_value = ~0U))
HOSTILE(pacing_zero, NULL, CTL_CASE(.pace = true, .pace_rate = 0))
/* slow but legal: never past one segment, and never moved */
HOSTILE(cwnd_never_past_one, NULL, CASE(.avoid_mode = AVOID_SET_CWND,
					     .cwnd_value = 1))
/* paces at a byte a second after 100 ACKs: nothing leaves, nothing in
 * flight; the watchdog moves it after 3 RTOs
 */
HOSTILE(stops_sending, NULL, CTL_CASE(.pace = true, .pace_after = 100, .pace_rate = 1,
				      .moved = true))

/*
 * Every kfunc of the congestion controls' set, called on every ACK with
 * hostile state and arguments (tests/bpf/kfunc_torture.bpf.c) while 2 MB
 * go over loopback: no splat, all the data, and the kfunc really ran. The
 * list is the BPF program's enum kfunc, in order.
 */
#define KFUNCS(X)								\
	X(tcp_reno_ssthresh) X(tcp_reno_cong_avoid) X(tcp_reno_undo_cwnd)	\
	X(tcp_slow_start) X(tcp_cong_avoid_ai)					\
	X(cubictcp_init) X(cubictcp_recalc_ssthresh) X(cubictcp_cong_avoid)	\
	X(cubictcp_state) X(cubictcp_cwnd_event) X(cubictcp_acked)		\
	X(dctcp_init) X(dctcp_update_alpha) X(dctcp_cwnd_event)			\
	X(dctcp_ssthresh) X(dctcp_cwnd_undo) X(dctcp_state)			\
	X(bbr_init) X(bbr_main) X(bbr_sndbuf_expand) X(bbr_undo_cwnd)		\
	X(bbr_cwnd_event) X(bbr_ssthresh) X(bbr_min_tso_segs) X(bbr_set_state)

#define KFUNC_NAME(name) #name,
static const char * const kfunc_names[] = { KFUNCS(KFUNC_NAME) };

static char libbpf_log[1 << 17];

/* libbpf's warnings, the verifier's log among them */
static int keep_libbpf_log(enum libbpf_print_level level, const char *fmt,
			   va_list args)
{
	size_t n = strlen(libbpf_log);

	if (level == LIBBPF_WARN)
		vsnprintf(libbpf_log + n, sizeof(libbpf_log) - n, fmt, args);
	return 0;
}

/* Load the torture for kfunc i; a kfunc the kernel does not offer to
 * struct_ops programs skips the subtest, any other refusal fails it.
 */
static int open_torture(struct bpf_cc *cc, const char *name, __u32 i)
{
	libbpf_print_fn_t old = libbpf_set_print(keep_libbpf_log);
	char not_allowed[128];
	int err;

	libbpf_log[0] = '\0';
	err = cc_open_const(cc, "kfunc_torture", "bpf_kf_torture", "kfunc", &i,
			    sizeof(i));
	libbpf_set_print(old);
	if (!err)
		return 0;
	snprintf(not_allowed, sizeof(not_allowed),
		 "calling kernel function %s is not allowed", name);
	if (strstr(libbpf_log, not_allowed))
		test_skip("%s: not in this kernel's kfunc set (CONFIG_DYNAMIC_FTRACE is off)",
			  name);
	else
		test_fail(__FILE__, __LINE__, "loading the torture of %s: %d\n%s", name,
			  err, libbpf_log);
	return err;
}

static void torture(const char *name)
{
	struct xfer x = { .family = AF_INET, .bytes = 2 * MB, .addr = "127.0.0.1",
			  .cc = "bpf_kf_torture", .timeout_s = XFER_BOUND_S };
	__u32 i;
	struct bpf_cc cc;
	char splat[512];
	long fallbacks;
	__u64 calls;
	int kmsg;

	for (i = 0; strcmp(kfunc_names[i], name); i++)
		;
	CHECK_OK(path_up(&plain_lo));
	x.client_ns = x.server_ns = netns_fd(plain_lo.snd_ns);
	CHECK(x.client_ns >= 0, "no netns %s", plain_lo.snd_ns);
	if (open_torture(&cc, name, i))
		return;
	CHECK_OK(cc_attach(&cc));
	kmsg = kmsg_open();
	fallbacks = -fallbacks_in(x.client_ns);
	run_xfer(&x);
	fallbacks += fallbacks_in(x.client_ns);
	calls = cc_u64(&cc, "kfunc_calls");
	cc_close(&cc);
	close(x.client_ns);
	CHECK(!kmsg_splat(kmsg, splat, sizeof(splat)), "%s", splat);
	close(kmsg);
	CHECK(!x.err, "%s: %s", x.failed, strerror(x.err));
	CHECK_EQ(x.received, x.bytes);
	CHECK(!x.corrupt, "data corrupted");
	CHECK(calls > 0, "%s never ran", name);
	/* nothing took the socket away from the program: not the kfunc
	 * (dctcp_init() once did), not the watchdog
	 */
	CHECK_STR(x.client_cc_end, "bpf_kf_torture");
	CHECK_EQ(fallbacks, 0);
	printf("# kfunc %s: %llu calls with hostile state\n", name,
	       (unsigned long long)calls);
}

#define KFUNC_TEST(name) static void kfunc_##name(void) { torture(#name); }
KFUNCS(KFUNC_TEST)

#define KFUNC_SUBTEST(name) SUBTEST(kfunc_##name),

TEST_MAIN(SUBTEST(ssthresh_zero_reno_kfunc), SUBTEST(cong_avoid_ai_w_zero),
	  SUBTEST(cwnd_zero_every_ack), SUBTEST(ssthresh_one),
	  SUBTEST(undo_cwnd_zero), SUBTEST(cwnd_all_ones), SUBTEST(pacing_zero),
	  SUBTEST(cwnd_never_past_one), SUBTEST(stops_sending),
	  KFUNCS(KFUNC_SUBTEST))
