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

#define MAX_CC 8

static int time_answers(int repeat, const char *cc, int calls)
{
	union tcp_cc_info info;
	unsigned long long t0, t1;
	struct tcp_pair p;
	socklen_t len = 0;
	int i;

	if (tcp_pair_open(&p, cc))
		return bench_fail("a connection on %s: %s", cc, strerror(errno));
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
	struct bpf_cc ccs[MAX_CC];
	int repeats = 5, calls = 100000, n, i, r, opt, nbpf, err = 0;

	while ((opt = getopt(argc, argv, "r:n:")) != -1) {
		switch (opt) {
		case 'r': repeats = atoi(optarg); break;
		case 'n': calls = atoi(optarg); break;
		default: return bench_usage("info [-r REPEATS] [-n CALLS] CC...");
		}
	}
	n = argc - optind;
	if (n < 1 || n > MAX_CC || calls < 1)
		return bench_usage("info [-r REPEATS] [-n CALLS] CC... (1 to 8)");
	nbpf = register_examples(ccs, argv + optind, n);
	if (nbpf < 0)
		return 1;
	for (r = 0; r < repeats && !err; r++)
		for (i = 0; i < n && !err; i++)
			err = time_answers(r, argv[optind + interleaved(r, i, n)], calls);
	close_examples(ccs, nbpf);
	return err;
}
