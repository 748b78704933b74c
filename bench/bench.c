// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "bench.h"

unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

unsigned long long cpu_busy_ticks(void)
{
	unsigned long long user, nice, sys, idle, iowait, irq, softirq, steal;
	FILE *f = fopen("/proc/stat", "r");
	int n;

	if (!f)
		return 0;
	n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &user, &nice,
		   &sys, &idle, &iowait, &irq, &softirq, &steal);
	fclose(f);
	return n == 8 ? user + nice + sys + irq + softirq + steal : 0;
}

/* A /proc/meminfo field in kB, or -1. */
static long meminfo_kb(const char *field)
{
	char line[128];
	size_t len = strlen(field);
	long kb = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, field, len) && line[len] == ':') {
			sscanf(line + len + 1, "%ld", &kb);
			break;
		}
	fclose(f);
	return kb;
}

void kernel_mem_kb(long kb[NR_MEM])
{
	kb[MEM_SLAB] = meminfo_kb("Slab");
	kb[MEM_VMALLOC] = meminfo_kb("VmallocUsed");
	kb[MEM_PERCPU] = meminfo_kb("Percpu");
}

long kernel_mem_total_kb(void)
{
	long kb[NR_MEM];

	kernel_mem_kb(kb);
	return kb[MEM_SLAB] + kb[MEM_VMALLOC] + kb[MEM_PERCPU];
}

int bench_fail(const char *fmt, ...)
{
	va_list ap;

	fputs("bench: error: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 1;
}

int bench_usage(const char *usage)
{
	fprintf(stderr, "usage: %s\n", usage);
	return 2;
}

static void close_examples(struct bpf_cc *ccs, int n)
{
	while (n--)
		cc_close(&ccs[n]);
}

/* Register the "bpf_X" names of names into ccs: how many, or -1. */
static int register_examples(struct bpf_cc *ccs, char **names, int n)
{
	int i, nbpf = 0, err;

	for (i = 0; i < n; i++) {
		if (strncmp(names[i], "bpf_", 4))
			continue;
		err = cc_open(&ccs[nbpf], names[i] + 4, names[i]);
		if (!err)
			err = cc_attach(&ccs[nbpf]);
		if (err) {
			bench_fail("cannot register %s from %s.bpf.o: %s", names[i],
				   names[i] + 4, strerror(-err));
			close_examples(ccs, nbpf + 1);
			return -1;
		}
		nbpf++;
	}
	return nbpf;
}

/* The registered example named cc, NULL for a native CC. */
static struct bpf_cc *example_of(struct bpf_cc *ccs, int n, const char *cc)
{
	while (n--)
		if (!strcmp(ccs[n].name, cc))
			return &ccs[n];
	return NULL;
}

/* The i-th of n runs in repeat r: forwards in even repeats, backwards in
 * odd ones.
 */
static int interleaved(int r, int i, int n)
{
	return r % 2 ? n - 1 - i : i;
}

int bench_each_cc(const struct bench_runs *runs, char **names, int n)
{
	struct bpf_cc ccs[BENCH_MAX_CC];
	int nbpf, r, i, err = 0;

	if (n < 1 || n > BENCH_MAX_CC)
		return bench_fail("%d CCs to run: 1 to %d, please", n, BENCH_MAX_CC);
	nbpf = register_examples(ccs, names, n);
	if (nbpf < 0)
		return 1;
	if (runs->warm_up)
		err = runs->one(-1, names[0], example_of(ccs, nbpf, names[0]), runs->arg);
	for (r = 0; r < runs->repeats && !err; r++)
		for (i = 0; i < n && !err; i++) {
			const char *cc = names[interleaved(r, i, n)];

			err = runs->one(r, cc, example_of(ccs, nbpf, cc), runs->arg);
		}
	close_examples(ccs, nbpf);
	return err ? 1 : 0;
}
