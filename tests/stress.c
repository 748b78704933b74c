// SPDX-License-Identifier: GPL-2.0
/*
 * Concurrency stress of one BPF congestion control: threads that, all at
 * once, register, look up and unregister its struct_ops map, open and
 * close fds of it by id, switch sockets to it and away, and run short and
 * bulk loopback transfers on it and on a native CC.
 *
 * A deleted map is TOBEFREE for good, so a replacer thread makes a fresh
 * map of the same name whenever the current one is deleted: registrations
 * of the old and the new map race too. Every result must be one the
 * kernel's rules allow; a map registers and unregisters at most once; a
 * map's state never goes back; every transfer delivers every byte. At the
 * end every map and program ever made is freed and the name is gone.
 *
 * Runs STRESS_SECONDS (default 60).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <pthread.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <bpf/bpf.h>

#include "lib/test.h"
#include "lib/insn.h"
#include "lib/net.h"
#include "lib/opstats.h"
#include "lib/rawcc.h"
#include "lib/rng.h"
#include "lib/sys.h"

#define NAME "so_stress"
#define NATIVE "cubic"
#define MAX_MAPS 65536
#define KB 1024
#define MB (1024 * 1024)

enum op {
	OP_REGISTER, OP_LOOKUP, OP_DELETE, OP_REPLACE, OP_OPEN, OP_CLOSE,
	OP_CC_SET, OP_CC_BACK, OP_XFER_SHORT, OP_XFER_NATIVE, OP_XFER_BPF, OP_N
};

static struct opstat stats[OP_N] = {
	[OP_REGISTER] = { "register" },	[OP_LOOKUP] = { "lookup" },
	[OP_DELETE] = { "delete" },	[OP_REPLACE] = { "new_map" },
	[OP_OPEN] = { "open_by_id" },	[OP_CLOSE] = { "close" },
	[OP_CC_SET] = { "setsockopt_bpf" }, [OP_CC_BACK] = { "setsockopt_back" },
	[OP_XFER_SHORT] = { "xfer_short" }, [OP_XFER_NATIVE] = { "xfer_bulk_native" },
	[OP_XFER_BPF] = { "xfer_bulk_bpf" },
};

/*
 * What the rules allow besides success. Register: EBUSY once the map left
 * INIT, EEXIST while another map holds the name. Delete: ENOENT before
 * registration, EINPROGRESS after a delete. Open by id: ENOENT once a
 * map is freed. Switching to the CC, and transfers on it: ENOENT while
 * no map holds the name.
 */
static const int allowed[OP_N][3] = {
	[OP_REGISTER] = { EBUSY, EEXIST },
	[OP_DELETE] = { ENOENT, EINPROGRESS },
	[OP_OPEN] = { ENOENT },
	[OP_CC_SET] = { ENOENT },
	[OP_XFER_SHORT] = { ENOENT },
	[OP_XFER_BPF] = { ENOENT },
};

/* One map after another, all for the CC NAME. */
struct map_rec {
	__u32 id;
	unsigned int registered, deleted;	/* successful updates, deletes */
};

static struct {
	struct raw_cc cc;	/* the programs, the value; cc.map: current map */
	bool cc_open;
	char modprobe[256];	/* kernel.modprobe, to restore */
	pthread_mutex_t lock;	/* the current map: maps[], nmaps, cc.map */
	struct map_rec maps[MAX_MAPS];
	unsigned int nmaps;	/* maps[nmaps - 1] is current */
	/* where a looked-up value has the name and ssthresh's prog id */
	__u32 name_off, ssthresh_off, ssthresh_id;
	bool stop;
	char why[512];		/* the first failure */
	unsigned long sockets_opened, sockets_closed;
	unsigned long xfers_started, xfers_done, bytes;
} st = { .lock = PTHREAD_MUTEX_INITIALIZER };

static bool stopping(void)
{
	return __atomic_load_n(&st.stop, __ATOMIC_RELAXED);
}

/* Threads cannot CHECK: the first failure is kept and stops them all. */
static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void fail(const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&st.lock);
	if (!st.why[0]) {
		va_start(ap, fmt);
		vsnprintf(st.why, sizeof(st.why), fmt, ap);
		va_end(ap);
	}
	pthread_mutex_unlock(&st.lock);
	__atomic_store_n(&st.stop, true, __ATOMIC_RELAXED);
}

static void count(unsigned long *c)
{
	__atomic_add_fetch(c, 1, __ATOMIC_RELAXED);
}

/* Count op's result (0 or an errno) and fail on one the rules forbid. */
static bool record(enum op op, int err, __u32 map)
{
	unsigned int i;

	opstat_add(&stats[op], err);
	if (!err)
		return true;
	for (i = 0; i < ARRAY_LEN(allowed[op]) && allowed[op][i]; i++)
		if (allowed[op][i] == err)
			return false;
	fail("%s (map %u): unexpected errno %d (%s)", stats[op].name, map, err, strerror(err));
	return false;
}

/* Each thread's own random stream: different per thread and per run. */
static void thread_rng(__u64 *rng, void *arg)
{
	rng_seed(rng, (unsigned long)arg * 7919 + time(NULL));
}

static void pause_us(__u64 *rng, __u32 max_us)
{
	struct timespec ts;
	__u32 us = rng_below(rng, max_us + 1);

	ts.tv_sec = us / 1000000;
	ts.tv_nsec = (us % 1000000) * 1000L;
	nanosleep(&ts, NULL);
}

/*
 * The current map's index in maps[], now and then the one before (which
 * may still hold the name) or any older one.
 */
static unsigned int pick_map(__u64 *rng)
{
	unsigned int n = __atomic_load_n(&st.nmaps, __ATOMIC_ACQUIRE);

	if (n > 1 && rng_one_in(rng, 8))
		return rng_below(rng, n);
	if (n > 1 && rng_one_in(rng, 4))
		return n - 2;
	return n - 1;
}

/* An fd of map i of our own, or -1 if it is gone. */
static int open_map(unsigned int i)
{
	int fd = bpf_map_get_fd_by_id(st.maps[i].id);

	record(OP_OPEN, fd < 0 ? errno : 0, st.maps[i].id);
	return fd;
}

static void close_fd(int fd, __u32 map)
{
	record(OP_CLOSE, close(fd) ? errno : 0, map);
}

/* Register or delete a random map; each map may succeed at either once. */
static void once_per_map(__u64 *rng, enum op op)
{
	unsigned int i = pick_map(rng), *done;
	int fd = open_map(i), err;

	if (fd < 0)
		return;
	if (op == OP_REGISTER) {
		err = struct_ops_update(fd, st.cc.value) ? errno : 0;
		done = &st.maps[i].registered;
	} else {
		err = bpf_map_delete_elem(fd, &(__u32){ 0 }) ? errno : 0;
		done = &st.maps[i].deleted;
	}
	if (record(op, err, st.maps[i].id) && __atomic_add_fetch(done, 1, __ATOMIC_RELAXED) > 1)
		fail("map %u %s twice", st.maps[i].id,
		     op == OP_REGISTER ? "registered" : "unregistered");
	close_fd(fd, st.maps[i].id);
}

static void *registerer(void *arg)
{
	__u64 rng;

	thread_rng(&rng, arg);
	while (!stopping()) {
		once_per_map(&rng, OP_REGISTER);
		pause_us(&rng, 500);
	}
	return NULL;
}

static void *deleter(void *arg)
{
	__u64 rng;

	thread_rng(&rng, arg);
	while (!stopping()) {
		once_per_map(&rng, OP_DELETE);
		/* leave it registered a while, for sockets to take it */
		pause_us(&rng, 100 * 1000);
	}
	return NULL;
}

/*
 * Look up map i through fd and check what the value says: INIT is all
 * zero; otherwise it names our CC and programs, INUSE has the
 * registration's reference; a state never goes back (last[i]).
 */
static void check_lookup(int fd, unsigned int i, unsigned char *last)
{
	struct struct_ops_header h;
	char v[4096];
	__u32 id = st.maps[i].id;

	if (!record(OP_LOOKUP, struct_ops_lookup(fd, v) ? errno : 0, id))
		return;
	memcpy(&h, v, sizeof(h));
	if (h.state > STATE_TOBEFREE || (last && h.state < last[i])) {
		fail("map %u: state %u after %u", id, h.state, last ? last[i] : 0);
		return;
	}
	if (last)
		last[i] = h.state;
	if (h.state == STATE_INIT) {
		if (!all_zero(v, st.cc.vsize))
			fail("map %u: INIT value not zero", id);
		return;
	}
	if (h.state == STATE_INUSE && h.refcnt < 1)
		fail("map %u: INUSE with refcnt %u", id, h.refcnt);
	if (strcmp(v + st.name_off, NAME))
		fail("map %u: name \"%.16s\"", id, v + st.name_off);
	if (*(__u64 *)(v + st.ssthresh_off) != st.ssthresh_id)
		fail("map %u: ssthresh prog id %llu, want %u", id,
		     (unsigned long long)*(__u64 *)(v + st.ssthresh_off), st.ssthresh_id);
}

static void *looker(void *arg)
{
	unsigned char *last = calloc(MAX_MAPS, 1);
	__u64 rng;

	thread_rng(&rng, arg);
	while (last && !stopping()) {
		unsigned int i = pick_map(&rng);
		int fd = open_map(i);

		if (fd >= 0) {
			check_lookup(fd, i, last);
			close_fd(fd, st.maps[i].id);
		}
		pause_us(&rng, 200);
	}
	free(last);
	return NULL;
}

/* The current map's state, through the fd that keeps it alive. */
static __u32 current_state(void)
{
	struct struct_ops_header h;

	return struct_ops_header(st.cc.map, &h) ? ~0u : h.state;
}

/*
 * Once the current map is deleted, a fresh one of the same name; one time
 * in four as soon as it is registered, so that the new map's registration
 * races the old one's unregistration.
 */
static void *replacer(void *arg)
{
	bool early = false;
	__u64 rng;
	int fd, old;
	__u32 state;

	thread_rng(&rng, arg);
	while (!stopping()) {
		state = current_state();
		if ((state == STATE_TOBEFREE || (early && state == STATE_INUSE)) &&
		    st.nmaps < MAX_MAPS) {
			early = rng_one_in(&rng, 4);
			fd = create_struct_ops_map(TCA, NULL, NULL);
			if (!record(OP_REPLACE, fd < 0 ? errno : 0, 0))
				break;
			pthread_mutex_lock(&st.lock);
			old = st.cc.map;
			st.cc.map = fd;
			st.maps[st.nmaps].id = map_id(fd);
			__atomic_store_n(&st.nmaps, st.nmaps + 1, __ATOMIC_RELEASE);
			pthread_mutex_unlock(&st.lock);
			/* the old map lives on while fds and sockets hold it */
			close_fd(old, st.maps[st.nmaps - 2].id);
		}
		pause_us(&rng, 1000);
	}
	return NULL;
}

/* Holds fds of the maps, opened by id and closed at random. */
static void *fd_churner(void *arg)
{
	struct { int fd; unsigned int map; } held[8];
	unsigned int i, k;
	__u64 rng;

	thread_rng(&rng, arg);
	for (k = 0; k < ARRAY_LEN(held); k++)
		held[k].fd = -1;
	while (!stopping()) {
		k = rng_below(&rng, ARRAY_LEN(held));
		if (held[k].fd >= 0) {
			check_lookup(held[k].fd, held[k].map, NULL);
			close_fd(held[k].fd, st.maps[held[k].map].id);
			held[k].fd = -1;
		} else {
			i = pick_map(&rng);
			held[k].fd = open_map(i);
			held[k].map = i;
		}
		pause_us(&rng, 2000);
	}
	for (k = 0; k < ARRAY_LEN(held); k++)
		if (held[k].fd >= 0)
			close_fd(held[k].fd, st.maps[held[k].map].id);
	return NULL;
}

static int counted_socket(void)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	if (fd >= 0)
		count(&st.sockets_opened);
	return fd;
}

static void counted_close(int *fd)
{
	if (*fd < 0)
		return;
	if (close(*fd))
		fail("close socket: %s", strerror(errno));
	count(&st.sockets_closed);
	*fd = -1;
}

/* s[0] unconnected, s[1] and s[2] the two ends of a loopback connection. */
static int socket_trio(int s[3])
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	int l = counted_socket(), err = 0;

	s[0] = counted_socket();
	s[1] = counted_socket();
	s[2] = -1;
	if (l < 0 || s[0] < 0 || s[1] < 0 || bind(l, (void *)&a, len) || listen(l, 1) ||
	    getsockname(l, (void *)&a, &len) || connect(s[1], (void *)&a, len))
		err = errno;
	else if ((s[2] = accept(l, NULL, NULL)) < 0)
		err = errno;
	else
		count(&st.sockets_opened);
	counted_close(&l);
	return err;
}

/* Some bytes one way, so that the CC's programs run on ACKs. */
static void ping(int s[3])
{
	static __thread char buf[4 * KB];
	ssize_t n, got = 0;

	if (write(s[1], buf, sizeof(buf)) != sizeof(buf)) {
		fail("write on the pair: %s", strerror(errno));
		return;
	}
	while (got < (ssize_t)sizeof(buf)) {
		n = read(s[2], buf, sizeof(buf) - got);
		if (n <= 0) {
			fail("read on the pair: %zd %s", n, strerror(errno));
			return;
		}
		got += n;
	}
}

/* Switch one of the sockets to the BPF CC; now and then back to NATIVE. */
static void switch_cc(__u64 *rng, int fd)
{
	char name[16];

	errno = 0;
	if (record(OP_CC_SET, setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, NAME,
					 strlen(NAME)) ? errno : 0, 0)) {
		if (socket_cc(fd, name, sizeof(name)) || strcmp(name, NAME))
			fail("socket's CC is \"%s\" after setsockopt(%s)", name, NAME);
	}
	/* sometimes keep it, so that sockets hold deleted maps */
	if (rng_one_in(rng, 2))
		record(OP_CC_BACK, setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, NATIVE,
					      strlen(NATIVE)) ? errno : 0, 0);
}

static void *cc_switcher(void *arg)
{
	unsigned long round = 0;
	int s[3] = { -1, -1, -1 }, k, err;
	__u64 rng;

	thread_rng(&rng, arg);
	while (!stopping()) {
		if (s[0] < 0 && (err = socket_trio(s))) {
			fail("socket pair: %s", strerror(err));
			break;
		}
		switch_cc(&rng, s[rng_below(&rng, 3)]);
		ping(s);
		/* new sockets now and then: closing lets go of the CC */
		if (++round % 64 == 0)
			for (k = 0; k < 3; k++)
				counted_close(&s[k]);
		pause_us(&rng, 1000);
	}
	for (k = 0; k < 3; k++)
		counted_close(&s[k]);
	return NULL;
}

/*
 * One transfer, checked: all bytes, uncorrupted, on the CC asked for. A
 * BPF CC may be missing when the sockets are set up (ENOENT), never later.
 */
static void xfer(enum op op, __u64 *rng, const char *cc, size_t bytes)
{
	struct xfer x = { .family = rng_one_in(rng, 2) ? AF_INET : AF_INET6, .cc = cc,
			  .bytes = bytes, .timeout_s = 120 };
	bool setup;

	count(&st.xfers_started);
	run_xfer(&x);
	count(&st.xfers_done);
	__atomic_add_fetch(&st.bytes, x.received, __ATOMIC_RELAXED);
	setup = x.failed && (!strcmp(x.failed, "listening socket") ||
			     !strcmp(x.failed, "client socket"));
	if (x.err && !(x.err == ENOENT && setup)) {
		opstat_add(&stats[op], x.err);
		fail("%s on %s: %s: %s", stats[op].name, cc, x.failed, strerror(x.err));
		return;
	}
	if (!record(op, x.err, 0)) {
		pause_us(rng, 1000);
		return;
	}
	if (x.received != x.bytes || x.corrupt)
		fail("%s on %s: %zu of %zu bytes%s", stats[op].name, cc, x.received, x.bytes,
		     x.corrupt ? ", corrupted" : "");
	else if (strcmp(x.client_cc, cc) || strcmp(x.server_cc, cc))
		fail("%s on %s: ran on %s and %s", stats[op].name, cc, x.client_cc, x.server_cc);
}

/* Transfers of op's kind until the end; bytes 0: 1 B to 64 KiB at random. */
static void xfers_until_stopped(void *arg, enum op op, const char *cc, size_t bytes)
{
	__u64 rng;

	thread_rng(&rng, arg);
	while (!stopping())
		xfer(op, &rng, cc, bytes ?: 1 + rng_below(&rng, 64 * KB));
}

static void *short_xfers(void *arg)
{
	xfers_until_stopped(arg, OP_XFER_SHORT, NAME, 0);
	return NULL;
}

static void *bulk_native(void *arg)
{
	xfers_until_stopped(arg, OP_XFER_NATIVE, NATIVE, 2 * MB);
	return NULL;
}

static void *bulk_bpf(void *arg)
{
	xfers_until_stopped(arg, OP_XFER_BPF, NAME, 2 * MB);
	return NULL;
}

static void *(*const threads[])(void *) = {
	registerer, registerer, deleter, deleter, looker, replacer, fd_churner,
	cc_switcher, short_xfers, bulk_native, bulk_bpf,
};

/*
 * A program for member m that passes its nargs arguments to the kfunc
 * named func and returns what it returns: Reno's building blocks, so that
 * the CC recovers from losses as a real one does. rawcc's constant
 * programs leave cwnd at 1 after a timeout, and loopback drops segments
 * under this load.
 */
static int load_kfunc_prog(const char *m, const char *func, int nargs)
{
	struct bpf_insn insns[8];
	int id = btf__find_by_name_kind(vmlinux_btf(), func, BTF_KIND_FUNC), n = 0, i;

	if (id < 0)
		return -1;
	insns[n++] = I_MOV64_REG(BPF_REG_6, BPF_REG_1);
	for (i = 0; i < nargs; i++)
		insns[n++] = I_LDX(BPF_DW, BPF_REG_1 + i, BPF_REG_6, 8 * i);
	insns[n++] = (struct bpf_insn){ .code = BPF_JMP | BPF_CALL,
					.src_reg = BPF_PSEUDO_KFUNC_CALL, .imm = id };
	insns[n++] = I_EXIT();
	return load_prog(BPF_PROG_TYPE_STRUCT_OPS, insns, n, vmlinux_struct_id(TCA),
			 tca_member(m), "GPL", NULL, 0);
}

/* rawcc's map and programs, with Reno's ops in place of its constants. */
static int open_reno(struct raw_cc *r)
{
	if (raw_open(r))
		return -1;
	close(r->ssthresh);
	close(r->undo);
	close(r->cong_avoid);
	r->ssthresh = load_kfunc_prog("ssthresh", "tcp_reno_ssthresh", 1);
	r->undo = load_kfunc_prog("undo_cwnd", "tcp_reno_undo_cwnd", 1);
	r->cong_avoid = load_kfunc_prog("cong_avoid", "tcp_reno_cong_avoid", 3);
	return r->ssthresh < 0 || r->undo < 0 || r->cong_avoid < 0 ? -1 : 0;
}

/* Start every thread, let them run for seconds, stop and join them. */
static int run_threads(unsigned int seconds)
{
	pthread_t tids[ARRAY_LEN(threads)];
	unsigned int i, n, tenths;

	for (n = 0; n < ARRAY_LEN(threads); n++)
		if (pthread_create(&tids[n], NULL, threads[n], (void *)(unsigned long)n)) {
			fail("pthread_create: %s", strerror(errno));
			break;
		}
	for (tenths = 0; tenths < seconds * 10 && !stopping(); tenths++)
		usleep(100 * 1000);
	__atomic_store_n(&st.stop, true, __ATOMIC_RELAXED);
	for (i = 0; i < n; i++)
		pthread_join(tids[i], NULL);
	return n;
}

static void print_totals(unsigned int seconds)
{
	char buf[512];
	int op;

	printf("# stress: %u s, %u maps, %lu transfers, %lu bytes, %lu sockets opened, %lu closed\n",
	       seconds, st.nmaps, st.xfers_done, st.bytes, st.sockets_opened,
	       st.sockets_closed);
	for (op = 0; op < OP_N; op++)
		printf("# stress:   %s\n", opstat_format(&stats[op], buf, sizeof(buf)));
}

/*
 * Each map registered and unregistered at most once, one at most holding
 * the name, the current one in the state its counts say.
 */
static void check_maps(void)
{
	struct map_rec *cur = &st.maps[st.nmaps - 1];
	unsigned int i, regs = 0, live = 0;
	__u32 state;

	for (i = 0; i < st.nmaps; i++) {
		CHECK(st.maps[i].registered <= 1 && st.maps[i].deleted <= st.maps[i].registered,
		      "map %u: registered %u times, deleted %u times", st.maps[i].id,
		      st.maps[i].registered, st.maps[i].deleted);
		regs += st.maps[i].registered;
		live += st.maps[i].registered - st.maps[i].deleted;
	}
	CHECK(regs > 0, "no map was ever registered");
	CHECK(live <= 1, "%u maps registered under one name", live);
	state = current_state();
	CHECK_EQ(state, cur->deleted ? STATE_TOBEFREE : cur->registered ? STATE_INUSE : STATE_INIT);
}

/*
 * The last step, alone: the map still registered (if any) unregisters,
 * goes TOBEFREE and stays so; one never registered is INIT.
 */
static void final_delete(void)
{
	struct map_rec *m;
	unsigned int i;
	int fd;

	for (i = 0; i < st.nmaps; i++) {
		m = &st.maps[i];
		if (m->registered == m->deleted && i + 1 < st.nmaps)
			continue;	/* may be freed already */
		fd = bpf_map_get_fd_by_id(m->id);
		CHECK(fd >= 0, "map %u (registered %u, deleted %u) gone: %s", m->id,
		      m->registered, m->deleted, strerror(errno));
		if (m->registered && !m->deleted)
			CHECK_OK(bpf_map_delete_elem(fd, &(__u32){ 0 }));
		else if (!m->registered)
			CHECK_ERRNO(bpf_map_delete_elem(fd, &(__u32){ 0 }), ENOENT);
		if (m->registered) {
			CHECK_ERRNO(bpf_map_delete_elem(fd, &(__u32){ 0 }), EINPROGRESS);
			CHECK_ERRNO(struct_ops_update(fd, st.cc.value), EBUSY);
		}
		close(fd);
	}
	CHECK_EQ(current_state(), st.maps[st.nmaps - 1].registered ? STATE_TOBEFREE : STATE_INIT);
	CHECK(!sysctl_lists(AVAILABLE, NAME), NAME " still available");
}

/* Close the programs and the current map; every id must go. */
static void close_and_wait(void)
{
	__u32 progs[] = { prog_id(st.cc.ssthresh), prog_id(st.cc.undo),
			  prog_id(st.cc.cong_avoid), prog_id(st.cc.cong_control) };
	unsigned int i;

	raw_close(&st.cc);
	st.cc_open = false;
	for (i = 0; i < st.nmaps; i++)
		CHECK(wait_id_gone(st.maps[i].id, true), "map %u (%u of %u) not freed",
		      st.maps[i].id, i + 1, st.nmaps);
	for (i = 0; i < ARRAY_LEN(progs); i++)
		CHECK(wait_id_gone(progs[i], false), "prog %u not freed", progs[i]);
}

static void concurrent_ops(void)
{
	const char *env = getenv("STRESS_SECONDS");
	unsigned int seconds = env && atoi(env) > 0 ? atoi(env) : 60;
	unsigned int started;

	CHECK(!sysctl_lists(AVAILABLE, NAME), NAME " registered before the test");
	/* the CC is often unregistered: no modprobe for each ENOENT */
	CHECK_OK(modprobe_off(st.modprobe, sizeof(st.modprobe)));
	st.cc_open = true;
	CHECK_OK(open_reno(&st.cc));
	raw_reset(&st.cc, NAME);
	CHECK_OK(vmlinux_field(TCA, "name", &st.name_off, NULL));
	CHECK_OK(vmlinux_field(TCA, "ssthresh", &st.ssthresh_off, NULL));
	st.name_off += st.cc.data;
	st.ssthresh_off += st.cc.data;
	st.ssthresh_id = prog_id(st.cc.ssthresh);
	st.maps[0].id = map_id(st.cc.map);
	st.nmaps = 1;

	started = run_threads(seconds);
	print_totals(seconds);
	CHECK(!st.why[0], "%s", st.why);
	CHECK_EQ(started, ARRAY_LEN(threads));
	CHECK_EQ(st.sockets_closed, st.sockets_opened);
	CHECK_EQ(st.xfers_done, st.xfers_started);
	/* each kind ran, and the BPF CC carried traffic */
	CHECK(stats[OP_XFER_BPF].by_errno[0] > 0, "no bulk transfer on " NAME);
	CHECK(stats[OP_XFER_SHORT].by_errno[0] > 0, "no short transfer on " NAME);
	CHECK(stats[OP_CC_SET].by_errno[0] > 0, "no socket switched to " NAME);
	CHECK(stats[OP_DELETE].by_errno[0] > 1, "fewer than two unregistrations");
	check_maps();
	if (test_failed)
		return;
	final_delete();
	if (test_failed)
		return;
	close_and_wait();
	if (test_failed)
		return;
	CHECK(!sysctl_lists(AVAILABLE, NAME), NAME " still available");
}

/* After a failure: unregister whatever is left and close everything. */
static void cleanup(void)
{
	unsigned int i;
	int fd;

	modprobe_restore(st.modprobe);
	st.modprobe[0] = '\0';
	if (!st.cc_open)
		return;
	for (i = 0; i < st.nmaps; i++) {
		fd = bpf_map_get_fd_by_id(st.maps[i].id);
		if (fd >= 0) {
			bpf_map_delete_elem(fd, &(__u32){ 0 });
			close(fd);
		}
	}
	raw_close(&st.cc);
	st.cc_open = false;
}

static void __attribute__((constructor)) set_cleanup(void)
{
	test_after_each = cleanup;
}

TEST_MAIN(SUBTEST(concurrent_ops))
