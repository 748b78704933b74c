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

int register_examples(struct bpf_cc *ccs, char **names, int n)
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

void close_examples(struct bpf_cc *ccs, int n)
{
	while (n--)
		cc_close(&ccs[n]);
}
