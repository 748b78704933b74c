// SPDX-License-Identifier: GPL-2.0
/*
 * A BPF congestion control seen from outside as a native one is: its
 * get_info() answers ss -ti (inet_diag) and getsockopt(TCP_CC_INFO) with
 * the same values, bpf_dctcp's match native DCTCP's through an ECN
 * bottleneck, the kernel bounds what a program answers, a CC without
 * get_info shows nothing, and its programs are counted by bpf_stats and
 * traceable with fentry like any BPF program.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/inet_diag.h>
#include <linux/sockios.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "lib/test.h"
#include "lib/bottleneck.h"
#include "lib/cc.h"
#include "lib/insn.h"
#include "lib/net.h"
#include "lib/sock.h"
#include "lib/sys.h"
#include "cc_fentry.skel.h"

#define MB (1000 * 1000)
#define STATS_ENABLED "/proc/sys/kernel/bpf_stats_enabled"

/* getsockopt(TCP_CC_INFO) into buf, poisoned first; the length, or -1. */
static int cc_info(int fd, void *buf, size_t size)
{
	socklen_t len = size;

	memset(buf, 0xa5, size);
	if (getsockopt(fd, IPPROTO_TCP, TCP_CC_INFO, buf, &len))
		return -1;
	return len;
}

/*
 * What ss -ti prints for the established socket with local port port
 * (in netns so_snd if ns), from its congestion control's name on.
 */
static void ss_info(bool ns, unsigned short port, char *out, size_t size)
{
	char cmd[256], line[2048];
	FILE *f;

	out[0] = '\0';
	snprintf(cmd, sizeof(cmd),
		 "ss %s-tiH state established '( sport = :%u )'",
		 ns ? "-N so_snd " : "", port);
	f = popen(cmd, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		strncat(out, line, size - strlen(out) - 1);
	pclose(f);
}

/* Where ss's output has what, or an empty string. */
static const char *ss_part(const char *ss, const char *what)
{
	const char *p = strstr(ss, what);

	return p ? p : "";
}

/* ss's dctcp:(...) fields; the number of fields found. */
static int ss_dctcp(const char *ss, struct tcp_dctcp_info *d)
{
	const char *p = strstr(ss, "dctcp:(");
	unsigned int ce_state;

	memset(d, 0, sizeof(*d));
	if (!p)
		return 0;
	d->dctcp_enabled = 1;
	if (sscanf(p, "dctcp:(ce_state:%u,alpha:%u,ab_ecn:%u,ab_tot:%u)", &ce_state,
		   &d->dctcp_alpha, &d->dctcp_ab_ecn, &d->dctcp_ab_tot) != 4)
		return 0;
	d->dctcp_ce_state = ce_state;
	return 4;
}

/* ---- the kernel bounds what get_info() answers ---- */

struct answer {
	int attr;
	__u64 size;
	__u32 fill_words;
	size_t want_len;	/* what getsockopt(TCP_CC_INFO) must give */
};

static int set_answer(struct bpf_cc *cc, const struct answer *a)
{
	return cc_write(cc, "answer_attr", &a->attr, sizeof(a->attr)) ?:
	       cc_write(cc, "answer_size", &a->size, sizeof(a->size)) ?:
	       cc_write(cc, "fill_words", &a->fill_words, sizeof(a->fill_words));
}

/* words the union is filled with; as DCTCP: enabled 1, ce_state 1, ... */
static const __u32 words[5] = { 0x10001, 123, 4567, 89012, 0x5a5a5a5a };

/* bpf_info_cc registered and answering a, and a connection on it */
static int info_cc_up(struct bpf_cc *cc, struct tcp_pair *p, const struct answer *a)
{
	return cc_open(cc, "info_cc", "bpf_info_cc") ?:
	       cc_write(cc, "words", words, sizeof(words)) ?:
	       set_answer(cc, a) ?:
	       cc_attach(cc) ?:
	       tcp_pair_open(p, "bpf_info_cc");
}

static void answers_bounded(void)
{
	static const struct answer answers[] = {
		{ INET_DIAG_DCTCPINFO, 16, 4, 16 },
		/* past the layout: cut to it */
		{ INET_DIAG_DCTCPINFO, 1000, 5, 16 },
		{ INET_DIAG_DCTCPINFO, (__u64)-1, 5, 16 },
		{ INET_DIAG_BBRINFO, 20, 5, 20 },
		{ INET_DIAG_BBRINFO, 64, 5, 20 },
		{ INET_DIAG_VEGASINFO, 16, 4, 16 },
		/* less than the layout: as asked */
		{ INET_DIAG_DCTCPINFO, 8, 4, 8 },
		/* written in part: the rest is the kernel's zeroes */
		{ INET_DIAG_DCTCPINFO, 16, 1, 16 },
		{ INET_DIAG_DCTCPINFO, 16, 0, 16 },
		/* no layout of the union, or nothing: no answer */
		{ INET_DIAG_CONG, 16, 4, 0 },
		{ 0, 16, 4, 0 },
		{ -1, 16, 4, 0 },
		{ INET_DIAG_DCTCPINFO, 0, 4, 0 },
	};
	unsigned char buf[64], want[64];
	struct bpf_cc cc;
	struct tcp_pair p;
	unsigned int i;
	int len;

	CHECK_OK(info_cc_up(&cc, &p, &answers[0]));
	for (i = 0; i < ARRAY_LEN(answers); i++) {
		const struct answer *a = &answers[i];

		CHECK_OK(set_answer(&cc, a));
		len = cc_info(p.client, buf, sizeof(buf));
		CHECK(len == (int)a->want_len, "answer %u (attr %d, size %lld, %u words): %d bytes, want %zu",
		      i, a->attr, (long long)a->size, a->fill_words, len, a->want_len);
		memset(want, 0, sizeof(want));
		memcpy(want, words, a->fill_words * sizeof(__u32));
		memset(want + len, 0xa5, sizeof(want) - len);
		CHECK(!memcmp(buf, want, sizeof(buf)), "answer %u: the bytes differ", i);
	}
	/* getsockopt asks for everything */
	CHECK_EQ(cc_u32(&cc, "last_ext"), 0xffffffff);
	CHECK_EQ(cc_u64(&cc, "get_info_calls"), ARRAY_LEN(answers));
	tcp_pair_close(&p);
	cc_close(&cc);
}

/* inet_diag gets the same answer: ss prints it as native DCTCP's */
static void ss_prints_answer(void)
{
	static const struct answer a = { INET_DIAG_DCTCPINFO, 16, 4, 16 };
	struct tcp_dctcp_info d;
	char ss[4096];
	struct bpf_cc cc;
	struct tcp_pair p;
	__u32 ext;

	CHECK_OK(info_cc_up(&cc, &p, &a));
	ss_info(false, p.port, ss, sizeof(ss));
	CHECK(strstr(ss, "bpf_info_cc"), "ss shows no bpf_info_cc: %s", ss);
	CHECK(strstr(ss, "dctcp:(ce_state:1,alpha:123,ab_ecn:4567,ab_tot:89012)"),
	      "ss: %s", ss);
	CHECK_EQ(ss_dctcp(ss, &d), 4);
	/* ss asks for VEGASINFO, which stands for every kind of answer */
	ext = cc_u32(&cc, "last_ext");
	CHECK(ext & 1 << (INET_DIAG_VEGASINFO - 1), "ext %#x", ext);
	CHECK(ext != 0xffffffff, "ext %#x: getsockopt's", ext);

	/* an answer the kernel refuses leaves ss with nothing to print */
	CHECK_OK(cc_write(&cc, "answer_attr", &(int){ INET_DIAG_CONG }, sizeof(int)));
	ss_info(false, p.port, ss, sizeof(ss));
	CHECK(strstr(ss, "bpf_info_cc") && !strstr(ss, "dctcp:"), "ss: %s", ss);
	tcp_pair_close(&p);
	cc_close(&cc);
}

/* A congestion control without get_info shows nothing, BPF or native. */
static void nothing_without_get_info(void)
{
	static const struct { const char *obj, *name, *map; } ccs[] = {
		{ NULL, "cubic", NULL }, { "cubic", "bpf_cubic", NULL },
		{ "reno", "bpf_reno", NULL },
		/* upstream 6.1's selftest, written before get_info was BPF's */
		{ "upstream_bpf_dctcp", "bpf_dctcp", "dctcp" },
	};
	unsigned char buf[64];
	unsigned int i;
	char ss[4096];

	for (i = 0; i < ARRAY_LEN(ccs); i++) {
		struct bpf_cc cc = { 0 };
		struct tcp_pair p;

		if (ccs[i].obj) {
			CHECK_OK(cc_open(&cc, ccs[i].obj, ccs[i].name));
			if (ccs[i].map)
				cc.ops = bpf_object__find_map_by_name(cc.obj, ccs[i].map);
			CHECK_OK(cc_attach(&cc));
		}
		CHECK_OK(tcp_pair_open(&p, ccs[i].name));
		CHECK(cc_info(p.client, buf, sizeof(buf)) == 0, "%s answers", ccs[i].name);
		ss_info(false, p.port, ss, sizeof(ss));
		CHECK(strstr(ss, ccs[i].name) && !strstr(ss, "dctcp:") && !strstr(ss, "bbr:"),
		      "%s: ss: %s", ccs[i].name, ss);
		tcp_pair_close(&p);
		if (ccs[i].obj)
			cc_close(&cc);
	}
}

/* ---- bpf_dctcp and native DCTCP through the ECN bottleneck ---- */

struct dctcp_seen {
	const char *name;
	int len;			/* getsockopt(TCP_CC_INFO)'s */
	struct tcp_dctcp_info sock;	/* getsockopt's answer */
	struct tcp_dctcp_info diag;	/* ss's */
	struct tcp_dctcp_info again;	/* getsockopt's after ss */
	unsigned int alpha_min, alpha_max;	/* sampled while sending */
	char ss[4096];
	unsigned int delivered_ce, delivered;	/* the whole transfer's */
};

/* Sample alpha while sending, then let the socket go idle (nothing left
 * to send or to be acked, so that DCTCP's state stands still) and read it
 * through both paths.
 */
static void sample_dctcp(struct xfer *x, int fd)
{
	struct dctcp_seen *s = x->arg;
	struct sockaddr_in a;
	socklen_t len = sizeof(a);
	struct tcp_dctcp_info d;
	int i, queued;

	s->alpha_min = ~0U;
	for (i = 0; i < 20; i++) {
		if (cc_info(fd, &d, sizeof(d)) == sizeof(d)) {
			if (d.dctcp_alpha < s->alpha_min)
				s->alpha_min = d.dctcp_alpha;
			if (d.dctcp_alpha > s->alpha_max)
				s->alpha_max = d.dctcp_alpha;
		}
		usleep(50 * 1000);
	}
	for (i = 0; i < 300; i++) {
		struct tcp_info ti;
		socklen_t l = sizeof(ti);

		if (!ioctl(fd, SIOCOUTQ, &queued) && !queued &&
		    !getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &l) && !ti.tcpi_unacked)
			break;
		usleep(100 * 1000);
	}
	getsockname(fd, (void *)&a, &len);
	s->len = cc_info(fd, &s->sock, sizeof(s->sock));
	ss_info(true, ntohs(a.sin_port), s->ss, sizeof(s->ss));
	ss_dctcp(s->ss, &s->diag);
	cc_info(fd, &s->again, sizeof(s->again));
}

static void run_dctcp(struct dctcp_seen *s)
{
	struct xfer x = { .family = AF_INET, .bytes = 4 * MB, .cc = s->name,
			  .addr = BOTTLENECK_RCV, .midway = sample_dctcp, .arg = s };
	char stats[2048];
	long marked;

	CHECK_OK(bottleneck_up(&x.client_ns, &x.server_ns));
	run_xfer(&x);
	marked = bottleneck_ce_marked(stats, sizeof(stats));
	bottleneck_teardown();
	close(x.client_ns);
	close(x.server_ns);
	CHECK(!x.err, "%s: %s: %s", s->name, x.failed, strerror(x.err));
	CHECK_EQ(x.received, x.bytes);
	CHECK_STR(x.client_cc, s->name);
	CHECK(x.client_info.tcpi_options & TCPI_OPT_ECN, "%s: ECN not negotiated", s->name);
	CHECK(marked > 0, "the bottleneck marked %ld packets: %s", marked, stats);
	s->delivered_ce = x.client_info.tcpi_delivered_ce;
	s->delivered = x.client_info.tcpi_delivered;
	printf("# %s: alpha %u-%u while sending; idle, ss -ti: %.*s; CE on %u of %u delivered\n",
	       s->name, s->alpha_min, s->alpha_max,
	       (int)strcspn(ss_part(s->ss, "dctcp:"), " \n"), ss_part(s->ss, "dctcp:"),
	       s->delivered_ce, s->delivered);
}

/*
 * Both paths agree on an idle socket, and the values are DCTCP's: enabled,
 * ce_state 0 or 1, alpha within 1024, no more marked than sent. alpha
 * itself is no yardstick between two runs: sampled for a second it was
 * anywhere from 0 (a stretch of windows without a mark zeroes it) to ~100
 * for either CC from one run to the next.
 */
static void check_dctcp_seen(const struct dctcp_seen *s)
{
	CHECK(s->len == sizeof(s->sock), "%s: TCP_CC_INFO gave %d bytes", s->name, s->len);
	CHECK(s->sock.dctcp_enabled == 1, "%s: not enabled", s->name);
	CHECK(!memcmp(&s->sock, &s->again, sizeof(s->sock)), "%s: not idle", s->name);
	CHECK(!memcmp(&s->sock, &s->diag, sizeof(s->sock)),
	      "%s: ss and getsockopt differ: ss %s", s->name, s->ss);
	CHECK(s->sock.dctcp_ce_state <= 1, "%s: ce_state %u", s->name, s->sock.dctcp_ce_state);
	CHECK(s->alpha_max <= 1024 && s->sock.dctcp_alpha <= 1024, "%s: alpha past 1024",
	      s->name);
	CHECK(s->sock.dctcp_ab_ecn <= s->sock.dctcp_ab_tot, "%s: more marked than sent",
	      s->name);
	CHECK(s->delivered_ce > 0, "%s: no CE echoed", s->name);
}

static void dctcp_info_bpf_and_native(void)
{
	struct dctcp_seen bpf = { .name = "bpf_dctcp" }, native = { .name = "dctcp" };
	struct bpf_cc cc;

	CHECK_OK(cc_open(&cc, "dctcp", "bpf_dctcp"));
	CHECK_OK(cc_attach(&cc));
	run_dctcp(&bpf);
	if (test_failed)
		return;
	CHECK(cc_u64(&cc, "get_info_calls") >= 22, "bpf_dctcp's get_info ran %llu times",
	      (unsigned long long)cc_u64(&cc, "get_info_calls"));
	cc_close(&cc);
	run_dctcp(&native);
	if (test_failed)
		return;
	check_dctcp_seen(&bpf);
	if (test_failed)
		return;
	check_dctcp_seen(&native);
}

/* ---- get_info while the socket changes its congestion control ---- */

struct flipper {
	int fd;
	volatile bool stop;
	unsigned long flips;
};

static void *flip_cc(void *arg)
{
	struct flipper *f = arg;
	static const char * const names[] = { "bpf_info_cc", "cubic" };

	while (!f->stop) {
		const char *n = names[f->flips++ & 1];

		setsockopt(f->fd, IPPROTO_TCP, TCP_CONGESTION, n, strlen(n));
	}
	return NULL;
}

/*
 * inet_diag and TCP_CC_INFO read icsk_ca_ops without the socket lock: a
 * get_info call racing a switch answers for one congestion control or
 * the other, and never runs a program of one on the other.
 */
static void get_info_races_cc_switch(void)
{
	static const struct answer a = { INET_DIAG_DCTCPINFO, 16, 4, 16 };
	struct flipper f = { 0 };
	unsigned char buf[64];
	unsigned long answered = 0, empty = 0, i;
	struct bpf_cc cc;
	struct tcp_pair p;
	pthread_t t;
	int len;

	CHECK_OK(info_cc_up(&cc, &p, &a));
	f.fd = p.client;
	CHECK_OK(-pthread_create(&t, NULL, flip_cc, &f));
	for (i = 0; i < 20000; i++) {
		len = cc_info(p.client, buf, sizeof(buf));
		if (len == 16 && !memcmp(buf, words, 16))
			answered++;
		else if (len == 0)
			empty++;
	}
	f.stop = true;
	pthread_join(t, NULL);
	printf("# %lu get_info calls over %lu switches: %lu answers, %lu empty\n",
	       i, f.flips, answered, empty);
	CHECK_EQ(answered + empty, i);
	CHECK(answered && empty, "the race was not run: %lu answers, %lu empty", answered, empty);
	tcp_pair_close(&p);
	cc_close(&cc);
}

/* ---- bpf_stats and fentry ---- */

/* The last ACKs of a transfer that run_xfer() saw end are processed by now. */
static void settle(void)
{
	usleep(300 * 1000);
}

static int prog_stats(struct bpf_program *prog, __u64 *cnt, __u64 *ns)
{
	struct bpf_prog_info info = { 0 };
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(bpf_program__fd(prog), &info, &len))
		return -1;
	*cnt = info.run_cnt;
	*ns = info.run_time_ns;
	return 0;
}

/*
 * With kernel.bpf_stats_enabled a CC's programs count their runs and
 * time as any program does (bpftool prog show prints them), and not
 * without it.
 */
static void bpf_stats_count_callbacks(void)
{
	struct xfer x = { .family = AF_INET, .bytes = 2 * MB, .cc = "bpf_dctcp" };
	__u64 cnt0, ns0, cnt1, ns1, cnt2, ns2, calls0, calls1;
	struct bpf_program *prog;
	char cmd[128], line[4096] = "";
	struct bpf_cc cc;
	FILE *f;

	CHECK_OK(cc_open(&cc, "dctcp", "bpf_dctcp"));
	CHECK_OK(cc_attach(&cc));
	prog = bpf_object__find_program_by_name(cc.obj, "dctcp_in_ack_event");
	CHECK(prog, "no dctcp_in_ack_event");

	CHECK_OK(sysctl_write(STATS_ENABLED, "0"));
	CHECK_OK(prog_stats(prog, &cnt0, &ns0));
	CHECK_OK(run_xfer(&x));
	CHECK_OK(prog_stats(prog, &cnt1, &ns1));
	CHECK(cnt1 == cnt0 && ns1 == ns0, "counted with stats off: %llu runs",
	      (unsigned long long)(cnt1 - cnt0));

	CHECK_OK(sysctl_write(STATS_ENABLED, "1"));
	calls0 = cc_u64(&cc, "in_ack_event_calls");
	CHECK_OK(run_xfer(&x));
	settle();
	calls1 = cc_u64(&cc, "in_ack_event_calls");
	CHECK_OK(prog_stats(prog, &cnt2, &ns2));
	sysctl_write(STATS_ENABLED, "0");
	/* one run per callback, each taking some time */
	CHECK_EQ(cnt2 - cnt1, calls1 - calls0);
	CHECK(ns2 > ns1, "no run time");

	snprintf(cmd, sizeof(cmd), "bpftool prog show id %u", prog_id(bpf_program__fd(prog)));
	f = popen(cmd, "r");
	CHECK(f, "bpftool");
	while (fgets(line + strlen(line), sizeof(line) - strlen(line), f))
		;
	pclose(f);
	snprintf(cmd, sizeof(cmd), "run_cnt %llu", (unsigned long long)cnt2);
	CHECK(strstr(line, "run_time_ns") && strstr(line, cmd), "bpftool: %s", line);
	cc_close(&cc);
}

/* fentry and fexit programs attach to a CC's program and see every call */
static void fentry_on_cc_program(void)
{
	struct xfer x = { .family = AF_INET, .bytes = 2 * MB, .cc = "bpf_dctcp" };
	struct bpf_program *target;
	struct cc_fentry *skel;
	__u64 calls0, calls1;
	struct bpf_cc cc;

	CHECK_OK(cc_open(&cc, "dctcp", "bpf_dctcp"));
	CHECK_OK(cc_attach(&cc));
	target = bpf_object__find_program_by_name(cc.obj, "dctcp_in_ack_event");
	CHECK(target, "no dctcp_in_ack_event");
	skel = cc_fentry__open();
	CHECK(skel, "cc_fentry open");
	CHECK_OK(bpf_program__set_attach_target(skel->progs.enter, bpf_program__fd(target),
						"dctcp_in_ack_event"));
	CHECK_OK(bpf_program__set_attach_target(skel->progs.leave, bpf_program__fd(target),
						"dctcp_in_ack_event"));
	CHECK_OK(cc_fentry__load(skel));
	CHECK_OK(cc_fentry__attach(skel));
	calls0 = cc_u64(&cc, "in_ack_event_calls");
	CHECK_OK(run_xfer(&x));
	settle();
	calls1 = cc_u64(&cc, "in_ack_event_calls");
	cc_fentry__detach(skel);
	CHECK(calls1 > calls0, "no in_ack_event call");
	CHECK_EQ(skel->bss->entered, calls1 - calls0);
	CHECK_EQ(skel->bss->left, calls1 - calls0);
	cc_fentry__destroy(skel);
	cc_close(&cc);
}

TEST_MAIN(SUBTEST(answers_bounded), SUBTEST(ss_prints_answer),
	  SUBTEST(nothing_without_get_info), SUBTEST(dctcp_info_bpf_and_native),
	  SUBTEST(get_info_races_cc_switch), SUBTEST(bpf_stats_count_callbacks),
	  SUBTEST(fentry_on_cc_program))
