// SPDX-License-Identifier: GPL-2.0
/*
 * Replacing a BPF congestion control, and moving the connections on it.
 * Built on mainline's libbpf 1.5 ('make clients'): links need 1.2+.
 *
 *   replace swap [-r REPEATS] [-n REPLACEMENTS] OBJ_DIR
 *
 * While a connector opens loopback connections as fast as the guest lets
 * it, alternately asking for the CC by name (setsockopt) and taking the
 * netns default, the CC is replaced N times: by delete and register
 * (upstream 6.1's only way; a new version is a new map, loaded before) and
 * by BPF_LINK_UPDATE. One CSV line per repeat and way:
 *   swap,REPEAT,HOW,CONNECTS,FAILED_SETSOCKOPT,FALLBACKS,US_MIN,US_MEDIAN,US_MAX
 * FAILED_SETSOCKOPT: the name was missing; FALLBACKS: a connection on the
 * default got another CC; US_*: one replacement's time.
 *
 *   replace move [-r REPEATS] [-n CONNS] [-k KIB] OBJ_DIR CC_MOVE
 *
 * CONNS loopback connections, each sending KIB KiB, on version 1 of the
 * CC (the netns default); when half of all bytes have arrived the link
 * moves to version 2 and CC_MOVE moves every socket on version 1. One CSV
 * line per repeat:
 *   move,REPEAT,CONNS,MOVED,ALREADY,FAILED,MOVE_MS,FINISHED,V1_ACKS_AFTER
 * FINISHED: connections whose every byte arrived; V1_ACKS_AFTER: ACKs
 * version 1 still saw after the move (0: every socket left it).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bench.h"

#define NAME_LINK "bpf_link_cc"
#define NAME_PLAIN "bpf_plain_cc"
#define SYSCTL_CC "/proc/sys/net/ipv4/tcp_congestion_control"
#define CHUNK (64 << 10)

static char obj_path[4096];
static struct sockaddr_in srv;

static struct bpf_object *load_obj(void)
{
	struct bpf_object *o = bpf_object__open_file(obj_path, NULL);

	if (o && bpf_object__load(o)) {
		bpf_object__close(o);
		return NULL;
	}
	return o;
}

static struct bpf_map *map(struct bpf_object *o, const char *name)
{
	return bpf_object__find_map_by_name(o, name);
}

static int set_default(const char *name)
{
	FILE *f = fopen(SYSCTL_CC, "w");
	int err;

	if (!f)
		return -errno;
	err = fputs(name, f) < 0;
	return fclose(f) || err ? -EIO : 0;
}

static int listener(void)
{
	socklen_t len = sizeof(srv);
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	srv = (struct sockaddr_in){ .sin_family = AF_INET,
				    .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	if (fd < 0 || bind(fd, (void *)&srv, sizeof(srv)) || listen(fd, 4096) ||
	    getsockname(fd, (void *)&srv, &len))
		return -1;
	return fd;
}

/* The swap benchmark's load: an accepter and a connector thread. */
struct load {
	pthread_t accepter, connector;
	int lfd;
	const char *want;
	atomic_bool stop;
	atomic_ulong connects, failed_setsockopt, fallbacks;
};

static void *accept_all(void *arg)
{
	struct load *l = arg;
	int fd;

	while (!l->stop) {
		fd = accept(l->lfd, NULL, NULL);
		if (fd >= 0)
			close(fd);
	}
	return NULL;
}

/* Alternately by name and by default: each way a lookup can miss. */
static void *connect_all(void *arg)
{
	struct load *l = arg;
	char got[16];
	socklen_t len;
	unsigned long i;
	int fd;

	for (i = 0; !l->stop; i++) {
		fd = socket(AF_INET, SOCK_STREAM, 0);
		if ((i & 1) && setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, l->want,
					  strlen(l->want)))
			l->failed_setsockopt++;
		if (!connect(fd, (void *)&srv, sizeof(srv))) {
			len = sizeof(got);
			if (!(i & 1) &&
			    (getsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, got, &len) ||
			     strcmp(got, l->want)))
				l->fallbacks++;
			l->connects++;
		}
		close(fd);
	}
	return NULL;
}

static int start_load(struct load *l, const char *name)
{
	memset(l, 0, sizeof(*l));
	l->want = name;
	l->lfd = listener();
	if (l->lfd < 0) {
		l->stop = true;		/* nothing to stop */
		return -errno;
	}
	pthread_create(&l->accepter, NULL, accept_all, l);
	pthread_create(&l->connector, NULL, connect_all, l);
	usleep(100000);
	return 0;
}

static void stop_load(struct load *l)
{
	int fd;

	l->stop = true;
	pthread_join(l->connector, NULL);
	/* wake the accepter */
	fd = socket(AF_INET, SOCK_STREAM, 0);
	connect(fd, (void *)&srv, sizeof(srv));
	close(fd);
	pthread_join(l->accepter, NULL);
	close(l->lfd);
}

static int cmp_ull(const void *a, const void *b)
{
	unsigned long long x = *(const unsigned long long *)a;
	unsigned long long y = *(const unsigned long long *)b;

	return x < y ? -1 : x > y;
}

static void print_swap(int rep, const char *how, struct load *l,
		       unsigned long long *ns, int n)
{
	qsort(ns, n, sizeof(*ns), cmp_ull);
	printf("swap,%d,%s,%lu,%lu,%lu,%.1f,%.1f,%.1f\n", rep, how, l->connects,
	       l->failed_setsockopt, l->fallbacks, ns[0] / 1e3, ns[n / 2] / 1e3,
	       ns[n - 1] / 1e3);
}

/* The run is over: stop the load and, if every replacement went through, report it. */
static void end_swap(struct load *l, int err, int rep, const char *how,
		     unsigned long long *ns, int n)
{
	if (l->stop)
		return;		/* the load never started */
	stop_load(l);
	if (!err)
		print_swap(rep, how, l, ns, n);
}

/*
 * Upstream 6.1's way: a new version is a new map (a deleted one cannot be
 * registered again), loaded beforehand; the replacement is the delete of
 * the old map and the update of the new one, the window without the name.
 * The default follows the name away, as it must: an operator sets it again.
 */
static int by_delete_and_register(int rep, unsigned long long *ns, int n)
{
	struct bpf_object *cur_obj, *next_obj;
	struct bpf_link *cur, *next;
	struct load l = { .stop = true };
	unsigned long long t;
	int i, err;

	cur_obj = load_obj();
	cur = cur_obj ? bpf_map__attach_struct_ops(map(cur_obj, "v3")) : NULL;
	if (!cur)
		return -errno;
	err = set_default(NAME_PLAIN) ?: start_load(&l, NAME_PLAIN);
	for (i = 0; i < n && !err; i++) {
		next_obj = load_obj();
		if (!next_obj) {
			err = -errno;
			break;
		}
		t = now_ns();
		bpf_link__destroy(cur);		/* BPF_MAP_DELETE_ELEM */
		next = bpf_map__attach_struct_ops(map(next_obj, "v3"));
		ns[i] = now_ns() - t;
		bpf_object__close(cur_obj);
		cur = next;
		cur_obj = next_obj;
		if (!next)
			err = -errno;
		else
			err = set_default(NAME_PLAIN);
		usleep(20000);
	}
	end_swap(&l, err, rep, "delete_register", ns, n);
	bpf_link__destroy(cur);
	bpf_object__close(cur_obj);
	return err;
}

static int by_link_update(int rep, unsigned long long *ns, int n)
{
	struct bpf_object *o = load_obj();
	struct bpf_link *link;
	struct load l = { .stop = true };
	unsigned long long t;
	int i, err;

	link = o ? bpf_map__attach_struct_ops(map(o, "v1")) : NULL;
	if (!link) {
		err = -errno;
		bpf_object__close(o);
		return err;
	}
	err = set_default(NAME_LINK) ?: start_load(&l, NAME_LINK);
	for (i = 0; i < n && !err; i++) {
		t = now_ns();
		err = bpf_link__update_map(link, map(o, i & 1 ? "v1" : "v2"));
		ns[i] = now_ns() - t;
		usleep(20000);
	}
	end_swap(&l, err, rep, "link_update", ns, n);
	bpf_link__destroy(link);
	bpf_object__close(o);
	return err;
}

/* One connection of the move benchmark: client c sends, server s reads. */
struct conn {
	int c, s;
	size_t sent, rcvd;
};

static int open_conns(struct conn *cs, int n, int lfd)
{
	int i, one = 1;

	for (i = 0; i < n; i++) {
		cs[i].c = socket(AF_INET, SOCK_STREAM, 0);
		if (cs[i].c < 0 || connect(cs[i].c, (void *)&srv, sizeof(srv)))
			return -errno;
		cs[i].s = accept(lfd, NULL, NULL);
		if (cs[i].s < 0)
			return -errno;
		setsockopt(cs[i].c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		fcntl(cs[i].c, F_SETFL, O_NONBLOCK);
		fcntl(cs[i].s, F_SETFL, O_NONBLOCK);
		cs[i].sent = cs[i].rcvd = 0;
	}
	return 0;
}

static void close_conns(struct conn *cs, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		close(cs[i].c);
		close(cs[i].s);
	}
}

/*
 * Move bytes on every connection until @until bytes have arrived in all,
 * or a second passes with none; returns the total.
 */
static size_t pump(struct conn *cs, struct pollfd *pfd, int n, size_t bytes,
		   size_t until)
{
	static char buf[CHUNK];
	size_t total = 0;
	ssize_t k;
	int i, ready;

	for (i = 0; i < n; i++)
		total += cs[i].rcvd;
	while (total < until) {
		for (i = 0; i < n; i++) {
			pfd[2 * i] = (struct pollfd){ .fd = cs[i].c,
				.events = cs[i].sent < bytes ? POLLOUT : 0 };
			pfd[2 * i + 1] = (struct pollfd){ .fd = cs[i].s, .events = POLLIN };
		}
		ready = poll(pfd, 2 * n, 1000);
		if (ready <= 0)
			break;
		for (i = 0; i < n; i++) {
			if ((pfd[2 * i].revents & POLLOUT) && cs[i].sent < bytes) {
				k = write(cs[i].c, buf, bytes - cs[i].sent < CHUNK ?
					  bytes - cs[i].sent : CHUNK);
				if (k > 0)
					cs[i].sent += k;
			}
			if (pfd[2 * i + 1].revents & POLLIN) {
				k = read(cs[i].s, buf, CHUNK);
				if (k > 0) {
					cs[i].rcvd += k;
					total += k;
				}
			}
		}
	}
	return total;
}

/* The ACKs version 1 has seen (link_cc.bpf.c counts them per version). */
static __u64 v1_acks(struct bpf_object *o)
{
	struct bpf_cc cc = { .obj = o };
	__u64 acks[5] = {};

	cc_read(&cc, "acks", acks, sizeof(acks));
	return acks[0];
}

/* Run cc-move; its line: "NAME: M moved, A already current, F failed ... in T ms". */
static int run_cc_move(const char *cc_move, unsigned long long *m, unsigned long long *a,
		       unsigned long long *f, double *ms)
{
	char cmd[4200], line[256] = "";
	FILE *p;

	snprintf(cmd, sizeof(cmd), "%s " NAME_LINK, cc_move);
	p = popen(cmd, "r");
	if (!p)
		return -errno;
	if (!fgets(line, sizeof(line), p))
		line[0] = 0;
	if (pclose(p) || sscanf(line, NAME_LINK ": %llu moved, %llu already current, %llu failed",
				m, a, f) != 3 || !strstr(line, " in ")) {
		bench_fail("cc-move: %s", line[0] ? line : "no output");
		return -EIO;
	}
	*ms = atof(strstr(line, " in ") + 4);
	return 0;
}

static int move_conns(int rep, int n, size_t bytes, const char *cc_move)
{
	unsigned long long moved, already, failed;
	struct bpf_object *o = load_obj();
	struct pollfd *pfd = calloc(2 * n, sizeof(*pfd));
	struct conn *cs = calloc(n, sizeof(*cs));
	struct bpf_link *link = NULL;
	int lfd = -1, err, i, finished = 0;
	__u64 acks_at_move;
	double ms;

	err = o && pfd && cs ? 0 : -ENOMEM;
	if (!err) {
		link = bpf_map__attach_struct_ops(map(o, "v1"));
		err = link ? set_default(NAME_LINK) : -errno;
	}
	if (!err) {
		lfd = listener();
		err = lfd < 0 ? -errno : open_conns(cs, n, lfd);
	}
	if (!err && pump(cs, pfd, n, bytes, (size_t)n * bytes / 2) < (size_t)n * bytes / 2) {
		bench_fail("the connections stalled before the move");
		err = -EIO;
	}
	if (!err)
		err = bpf_link__update_map(link, map(o, "v2"));
	if (!err)
		err = run_cc_move(cc_move, &moved, &already, &failed, &ms);
	if (!err) {
		acks_at_move = v1_acks(o);
		pump(cs, pfd, n, bytes, (size_t)n * bytes);
		for (i = 0; i < n; i++)
			finished += cs[i].rcvd == bytes;
		printf("move,%d,%d,%llu,%llu,%llu,%.1f,%d,%llu\n", rep, n, moved, already, failed,
		       ms, finished, (unsigned long long)(v1_acks(o) - acks_at_move));
	}
	close_conns(cs, n);
	if (lfd >= 0)
		close(lfd);
	bpf_link__destroy(link);
	bpf_object__close(o);
	free(cs);
	free(pfd);
	return err;
}

int main(int argc, char **argv)
{
	const char *usage = "replace swap [-r REPEATS] [-n REPLACEMENTS] OBJ_DIR | "
			    "replace move [-r REPEATS] [-n CONNS] [-k KIB] OBJ_DIR CC_MOVE";
	int repeats = 1, n = 0, kib = 256, r, opt, err = 0;
	char saved[32] = "cubic";
	unsigned long long *ns;
	struct rlimit rl;
	bool swap;
	FILE *f;

	if (argc < 2)
		return bench_usage(usage);
	swap = !strcmp(argv[1], "swap");
	while ((opt = getopt(argc - 1, argv + 1, "r:n:k:")) != -1) {
		switch (opt) {
		case 'r': repeats = atoi(optarg); break;
		case 'n': n = atoi(optarg); break;
		case 'k': kib = atoi(optarg); break;
		default: return bench_usage(usage);
		}
	}
	if ((!swap && strcmp(argv[1], "move")) || argc - optind - 1 != (swap ? 1 : 2))
		return bench_usage(usage);
	n = n ?: swap ? 100 : 1000;
	snprintf(obj_path, sizeof(obj_path), "%s/link_cc.bpf.o", argv[optind + 1]);
	rl.rlim_cur = rl.rlim_max = 2 * n + 64;
	if (!swap && setrlimit(RLIMIT_NOFILE, &rl))
		return bench_fail("RLIMIT_NOFILE %d: %s", 2 * n + 64, strerror(errno));
	ns = calloc(n, sizeof(*ns));
	f = fopen(SYSCTL_CC, "r");
	if (f && fgets(saved, sizeof(saved), f))
		saved[strcspn(saved, "\n")] = 0;
	if (f)
		fclose(f);

	for (r = 0; r < repeats && !err; r++) {
		if (!swap)
			err = move_conns(r, n, (size_t)kib << 10, argv[optind + 2]);
		else if (r % 2)
			err = by_link_update(r, ns, n) ?: by_delete_and_register(r, ns, n);
		else
			err = by_delete_and_register(r, ns, n) ?: by_link_update(r, ns, n);
	}
	set_default(saved);
	free(ns);
	if (err)
		return bench_fail("%s: %s", argv[1], strerror(err < 0 ? -err : err));
	return 0;
}
