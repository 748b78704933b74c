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

long meminfo_kb(const char *field)
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

int register_example(struct bpf_cc *cc, const char *name)
{
	int err;

	if (strncmp(name, "bpf_", 4))
		return 0;
	err = cc_open(cc, name + 4, name);
	if (!err)
		err = cc_attach(cc);
	if (err) {
		bench_fail("cannot register %s from %s.bpf.o: %s", name, name + 4,
			   strerror(-err));
		return -1;
	}
	return 1;
}
