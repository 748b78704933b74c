// SPDX-License-Identifier: GPL-2.0
/*
 * What an answer to ss -ti costs: getsockopt(TCP_CC_INFO) on a connected
 * loopback socket, CALLS calls in a row, for each CC named ("bpf_X" is
 * bpf/X.bpf.c registered, anything else native), interleaved over the
 * repeats:
 *
 *   info,REPEAT,CC,CALLS,NS,LEN
 *
 * LEN is the answer's size: bpf_dctcp's goes through its get_info program
 * (the guard zeroes the union, runs it, checks what it answered), native
 * dctcp's is a direct call, and a CC without get_info (cubic) answers
 * nothing, which is the system call's own cost. None of it runs per ACK.
 *
 *   info [-r REPEATS] [-n CALLS] CC...
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <linux/inet_diag.h>

#include "lib/net.h"
#include "lib/sock.h"
#include "bench.h"

/* arg's number of answers in a row, on a new connection. */
static int time_answers(int repeat, const char *cc, struct bpf_cc *bpf, void *arg)
{
	int calls = *(int *)arg;
	char runs_on[16];	/* TCP_CA_NAME_MAX */
	union tcp_cc_info info;
	unsigned long long t0, t1;
	struct tcp_pair p;
	socklen_t len = 0;
	int i;

	if (tcp_pair_open(&p, cc))
		return bench_fail("a connection on %s: %s", cc, strerror(errno));
	/* a CC that fell back (bpf_dctcp without ECN) would time another's */
	if (socket_cc(p.client, runs_on, sizeof(runs_on)) || strcmp(runs_on, cc)) {
		tcp_pair_close(&p);
		return bench_fail("the connection on %s runs %s", cc, runs_on);
	}
	t0 = now_ns();
	for (i = 0; i < calls; i++) {
		len = sizeof(info);
		if (getsockopt(p.client, IPPROTO_TCP, TCP_CC_INFO, &info, &len))
			break;
	}
	t1 = now_ns();
	tcp_pair_close(&p);
	if (i < calls)
		return bench_fail("TCP_CC_INFO on %s: %s", cc, strerror(errno));
	printf("info,%d,%s,%d,%llu,%u\n", repeat, cc, calls, t1 - t0, len);
	return 0;
}

int main(int argc, char **argv)
{
	int calls = 100000, opt;
	struct bench_runs runs = { .repeats = 5, .one = time_answers, .arg = &calls };

	while ((opt = getopt(argc, argv, "r:n:")) != -1) {
		switch (opt) {
		case 'r': runs.repeats = atoi(optarg); break;
		case 'n': calls = atoi(optarg); break;
		default: return bench_usage("info [-r REPEATS] [-n CALLS] CC...");
		}
	}
	if (calls < 1)
		return bench_usage("info [-r REPEATS] [-n CALLS >= 1] CC...");
	return bench_each_cc(&runs, argv + optind, argc - optind);
}
