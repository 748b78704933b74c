// SPDX-License-Identifier: GPL-2.0
/*
 * Bulk cost: loopback transfers, CPU-bound, with each congestion control
 * in turn, interleaved over repeats (bench.h). One CSV line per transfer:
 *
 *   bulk,REPEAT,CC,BYTES,WALL_NS,CPU_TICKS,USER_HZ,CALLBACKS
 *
 * CPU_TICKS is the whole guest's busy time over the transfer from
 * /proc/stat (both ends and the softirqs between them); CALLBACKS how many
 * times TCP called into a BPF CC's programs (0 for a native CC).
 *
 *   bulk [-r REPEATS] [-m MBYTES] CC...   ("bpf_X" registers X.bpf.o first)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib/cc.h"
#include "lib/net.h"
#include "bench.h"

/* One transfer of arg's bytes. */
static int transfer(int repeat, const char *cc, struct bpf_cc *bpf, void *arg)
{
	size_t bytes = *(size_t *)arg;
	struct xfer x = {
		.family = AF_INET, .cc = cc, .bytes = bytes,
		.timeout_s = 60, .unchecked = true,
	};
	unsigned long long t0, t1, c0, c1, calls = bpf ? cc_callbacks(bpf) : 0;

	c0 = cpu_busy_ticks();
	t0 = now_ns();
	if (run_xfer(&x))
		return bench_fail("transfer over %s: %s: %s", cc, x.failed, strerror(x.err));
	t1 = now_ns();
	c1 = cpu_busy_ticks();
	if (x.received != bytes || strcmp(x.client_cc, cc) || strcmp(x.server_cc, cc))
		return bench_fail("transfer over %s: %zu of %zu bytes, ran %s/%s",
				  cc, x.received, bytes, x.client_cc, x.server_cc);
	if (bpf)
		calls = cc_callbacks(bpf) - calls;
	printf("bulk,%d,%s,%zu,%llu,%llu,%ld,%llu\n", repeat, cc, bytes, t1 - t0, c1 - c0,
	       sysconf(_SC_CLK_TCK), calls);
	fflush(stdout);
	return 0;
}

int main(int argc, char **argv)
{
	size_t bytes = 256 << 20;
	struct bench_runs runs = { .repeats = 5, .one = transfer, .arg = &bytes };
	int opt;

	while ((opt = getopt(argc, argv, "r:m:")) != -1) {
		switch (opt) {
		case 'r': runs.repeats = atoi(optarg); break;
		case 'm': bytes = (size_t)atoi(optarg) << 20; break;
		default: return bench_usage("bulk [-r REPEATS] [-m MBYTES] CC...");
		}
	}
	return bench_each_cc(&runs, argv + optind, argc - optind);
}
