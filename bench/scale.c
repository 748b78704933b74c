// SPDX-License-Identifier: GPL-2.0
/*
 * Scale:
 *
 *   scale ccs [-n N]
 *	register N distinct congestion controls (hand-made struct_ops maps
 *	sharing three trivial programs), timing each registration; at 1, 10,
 *	100, 1000... registered, time setsockopt(TCP_CONGESTION) to the
 *	newest one (the end of TCP's list) and to "cubic" (near its head),
 *	each alternated with "reno"; then unregister them, timing each.
 *	  scale_reg,COUNT,NS   scale_lookup,COUNT,newest|cubic,NS_PER_CALL
 *	  scale_unreg,COUNT,NS
 *   scale conns [-n N] [-r REPEATS] CC...
 *	N concurrent loopback connections on each CC in turn, interleaved as
 *	in bench/bulk.c after one untimed round that grows the slab caches:
 *	set-up time, kernel memory (Slab + VmallocUsed + Percpu), one 1 KiB
 *	request and reply on each, teardown.
 *	  conns,REPEAT,CC,N,SETUP_NS,MEM_KB,EXCHANGE_NS,CLOSE_NS
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <bpf/bpf.h>

#include "lib/net.h"
#include "lib/rawcc.h"
#include "lib/sys.h"
#include "bench.h"

#define LOOKUPS 20000

static int set_cc(int fd, const char *cc)
{
	return setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, cc, strlen(cc));
}

/* ns per setsockopt(TCP_CONGESTION, name), alternated with "reno" */
static int lookup_cost(int count, const char *kind, const char *name)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0), i;
	unsigned long long t0, t1;

	if (fd < 0)
		return bench_fail("socket: %s", strerror(errno));
	t0 = now_ns();
	for (i = 0; i < LOOKUPS; i++)
		if (set_cc(fd, name) || set_cc(fd, "reno")) {
			close(fd);
			return bench_fail("setsockopt(%s): %s", name, strerror(errno));
		}
	t1 = now_ns();
	close(fd);
	printf("scale_lookup,%d,%s,%llu\n", count, kind, (t1 - t0) / (2 * LOOKUPS));
	return 0;
}

static int many_ccs(int n)
{
	int *maps = calloc(n, sizeof(*maps)), zero = 0, i, err = 0, next = 1;
	unsigned long long t0;
	struct raw_cc r;
	char name[16];

	if (!maps || raw_open(&r))
		return bench_fail("cannot create a struct_ops map or its programs");
	for (i = 0; i < n && !err; i++) {
		maps[i] = create_struct_ops_map(TCA, NULL, NULL);
		snprintf(name, sizeof(name), "bench_cc%d", i % 1000000);
		raw_reset(&r, name);
		t0 = now_ns();
		err = maps[i] < 0 || bpf_map_update_elem(maps[i], &zero, r.value, 0);
		if (err) {
			bench_fail("registering %s: %s", name, strerror(errno));
			break;
		}
		printf("scale_reg,%d,%llu\n", i + 1, now_ns() - t0);
		if (i + 1 == next) {
			err = lookup_cost(i + 1, "newest", name) ||
			      lookup_cost(i + 1, "cubic", "cubic");
			next *= 10;
		}
	}
	while (i--) {
		t0 = now_ns();
		bpf_map_delete_elem(maps[i], &zero);
		if (!err)
			printf("scale_unreg,%d,%llu\n", i + 1, now_ns() - t0);
		close(maps[i]);
	}
	raw_close(&r);
	free(maps);
	return err;
}

/* Read exactly len bytes. */
static int read_full(int fd, char *buf, size_t len)
{
	ssize_t n;

	for (; len; buf += n, len -= n) {
		n = read(fd, buf, len);
		if (n <= 0)
			return -1;
	}
	return 0;
}

static int exchange(int client, int server)
{
	static char buf[1024];

	return write(client, buf, sizeof(buf)) != sizeof(buf) ||
	       read_full(server, buf, sizeof(buf)) ||
	       write(server, buf, sizeof(buf)) != sizeof(buf) ||
	       read_full(client, buf, sizeof(buf));
}

/* arg's number of connections at once. */
static int many_conns(int repeat, const char *cc, struct bpf_cc *bpf, void *arg)
{
	int n = *(int *)arg;
	struct sockaddr_in a = { .sin_family = AF_INET };
	unsigned long long t0, t1, t2, t3;
	int *fds = calloc(2 * n, sizeof(int)), lfd, i, err = 0;
	socklen_t len = sizeof(a);
	char got[16] = "";
	long mem0, mem1;

	inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
	lfd = socket(AF_INET, SOCK_STREAM, 0);
	if (!fds || lfd < 0 || set_cc(lfd, cc) || bind(lfd, (void *)&a, len) ||
	    listen(lfd, 128) || getsockname(lfd, (void *)&a, &len))
		return bench_fail("listener on %s: %s", cc, strerror(errno));
	mem0 = kernel_mem_total_kb();
	t0 = now_ns();
	for (i = 0; i < n && !err; i++) {
		fds[2 * i] = socket(AF_INET, SOCK_STREAM, 0);
		err = fds[2 * i] < 0 || set_cc(fds[2 * i], cc) ||
		      connect(fds[2 * i], (void *)&a, len);
		fds[2 * i + 1] = err ? -1 : accept(lfd, NULL, NULL);
		err = err || fds[2 * i + 1] < 0;
	}
	t1 = now_ns();
	mem1 = kernel_mem_total_kb();
	if (err)
		bench_fail("connection %d of %d on %s: %s", i, n, cc, strerror(errno));
	for (i = 0; i < n && !err; i++)
		err = exchange(fds[2 * i], fds[2 * i + 1]);
	t2 = now_ns();
	if (!err && (socket_cc(fds[2 * n - 1], got, sizeof(got)) || strcmp(got, cc)))
		err = bench_fail("the last accepted connection runs %s, not %s", got, cc);
	for (i = 0; i < 2 * n; i++)
		if (fds[i] > 0)
			close(fds[i]);
	t3 = now_ns();
	close(lfd);
	free(fds);
	if (!err && repeat >= 0)
		printf("conns,%d,%s,%d,%llu,%ld,%llu,%llu\n", repeat, cc, n, t1 - t0,
		       mem1 - mem0, t2 - t1, t3 - t2);
	return err;
}

int main(int argc, char **argv)
{
	const char *usage = "scale ccs [-n N] | scale conns [-n N] [-r REPEATS] CC...";
	struct bench_runs runs = { .repeats = 1, .warm_up = true, .one = many_conns };
	struct rlimit rl;
	int n = 0, opt;

	if (argc < 2)
		return bench_usage(usage);
	while ((opt = getopt(argc - 1, argv + 1, "n:r:")) != -1) {
		switch (opt) {
		case 'n': n = atoi(optarg); break;
		case 'r': runs.repeats = atoi(optarg); break;
		default: return bench_usage(usage);
		}
	}
	if (!strcmp(argv[1], "ccs"))
		return many_ccs(n ?: 1000);
	if (strcmp(argv[1], "conns"))
		return bench_usage(usage);
	n = n ?: 10000;
	rl.rlim_cur = rl.rlim_max = 2 * n + 64;
	if (setrlimit(RLIMIT_NOFILE, &rl))
		return bench_fail("RLIMIT_NOFILE %d: %s", 2 * n + 64, strerror(errno));
	runs.arg = &n;
	return bench_each_cc(&runs, argv + optind + 1, argc - optind - 1);
}
