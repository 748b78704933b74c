// SPDX-License-Identifier: GPL-2.0
/*
 * The machinery's costs outside the data path:
 *
 *   lifecycle,REPEAT,CC,LOAD_NS,REGISTER_NS,UNREGISTER_NS,CLOSE_NS
 *	open+load (verify, JIT) of an example, bpf_map__attach_struct_ops()
 *	(trampolines, registration), bpf_link__destroy() (unregistration),
 *	bpf_object__close();
 *   progmem,CC,PROGS,XLATED_BYTES,JITED_BYTES,MEMLOCK_BYTES
 *	its programs, as the kernel accounts them (bpf_prog_info, fdinfo);
 *   mapmem,MAPS,VALUE_SIZE,STAGE,SLAB_KB,VMALLOC_KB,PERCPU_KB
 *	what MAPS struct_ops maps of one tcp_congestion_ops cost once
 *	created (STAGE "create") and then registered ("register"; three
 *	programs, shared), from /proc/meminfo's Slab, VmallocUsed, Percpu;
 *	MAP_ROUNDS rounds, a pair of lines each: /proc/meminfo counts slab
 *	pages, not objects, and a round's figure depends on how full the
 *	caches' pages were when it began.
 *
 *   machinery [-r REPEATS] [-n MAPS] EXAMPLE...
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "lib/rawcc.h"
#include "lib/sys.h"
#include "bench.h"

static int lifecycle(int repeat, const char *name)
{
	unsigned long long t[5];
	struct bpf_cc cc;
	int err;

	t[0] = now_ns();
	err = cc_open(&cc, name + 4, name);
	t[1] = now_ns();
	if (!err)
		err = cc_attach(&cc);
	t[2] = now_ns();
	if (err) {
		cc_close(&cc);
		return bench_fail("%s: %s", name, strerror(-err));
	}
	cc_detach(&cc);
	t[3] = now_ns();
	cc_close(&cc);
	t[4] = now_ns();
	printf("lifecycle,%d,%s,%llu,%llu,%llu,%llu\n", repeat, name, t[1] - t[0],
	       t[2] - t[1], t[3] - t[2], t[4] - t[3]);
	return 0;
}

/* The prog's locked memory as its fdinfo reports it. */
static unsigned long memlock(int fd)
{
	char path[64], line[128];
	unsigned long bytes = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "memlock: %lu", &bytes) == 1)
			break;
	fclose(f);
	return bytes;
}

static int progmem(const char *name)
{
	unsigned long xlated = 0, jited = 0, locked = 0;
	struct bpf_program *prog;
	struct bpf_cc cc;
	int n = 0, err;

	err = cc_open(&cc, name + 4, name);
	if (err)
		return bench_fail("%s: %s", name, strerror(-err));
	bpf_object__for_each_program(prog, cc.obj) {
		struct bpf_prog_info info = {};
		__u32 len = sizeof(info);
		int fd = bpf_program__fd(prog);

		if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &len))
			continue;
		n++;
		xlated += info.xlated_prog_len;
		jited += info.jited_prog_len;
		locked += memlock(fd);
	}
	cc_close(&cc);
	printf("progmem,%s,%d,%lu,%lu,%lu\n", name, n, xlated, jited, locked);
	return 0;
}

static void print_mapmem(int nmaps, __u32 vsize, const char *stage,
			 const long *before, const long *after)
{
	printf("mapmem,%d,%u,%s,%ld,%ld,%ld\n", nmaps, vsize, stage,
	       after[MEM_SLAB] - before[MEM_SLAB], after[MEM_VMALLOC] - before[MEM_VMALLOC],
	       after[MEM_PERCPU] - before[MEM_PERCPU]);
}

#define MAP_ROUNDS 3

static int mapmem(int nmaps)
{
	int *maps = calloc(nmaps, sizeof(*maps)), zero = 0, i, err = 0;
	long before[NR_MEM], created[NR_MEM], registered[NR_MEM];
	struct raw_cc r;
	char name[16];

	if (!maps || raw_open(&r))
		return bench_fail("cannot create a struct_ops map or its programs");
	/* what earlier runs freed is freed after grace periods: let it go */
	sleep(3);
	kernel_mem_kb(before);
	for (i = 0; i < nmaps && !err; i++) {
		maps[i] = create_struct_ops_map(TCA, NULL, NULL);
		err = maps[i] < 0;
	}
	kernel_mem_kb(created);
	for (i = 0; i < nmaps && !err; i++) {
		snprintf(name, sizeof(name), "bench_m%d", i % 1000000);
		raw_reset(&r, name);
		err = bpf_map_update_elem(maps[i], &zero, r.value, 0);
	}
	kernel_mem_kb(registered);
	if (err)
		bench_fail("registering map %d of %d: %s", i - 1, nmaps, strerror(errno));
	else {
		print_mapmem(nmaps, r.vsize, "create", before, created);
		print_mapmem(nmaps, r.vsize, "register", created, registered);
	}
	for (i = 0; i < nmaps; i++) {
		bpf_map_delete_elem(maps[i], &zero);
		close(maps[i]);
	}
	raw_close(&r);
	free(maps);
	return err;
}

int main(int argc, char **argv)
{
	int repeats = 5, nmaps = 100, r, i, opt;

	while ((opt = getopt(argc, argv, "r:n:")) != -1) {
		switch (opt) {
		case 'r': repeats = atoi(optarg); break;
		case 'n': nmaps = atoi(optarg); break;
		default: return bench_usage("machinery [-r REPEATS] [-n MAPS] bpf_X...");
		}
	}
	for (i = optind; i < argc; i++) {
		if (strncmp(argv[i], "bpf_", 4))
			return bench_usage("machinery [-r REPEATS] [-n MAPS] bpf_X...");
		if (progmem(argv[i]))
			return 1;
	}
	for (r = 0; r < repeats; r++)
		for (i = optind; i < argc; i++)
			if (lifecycle(r, argv[i]))
				return 1;
	for (r = 0; r < MAP_ROUNDS; r++)
		if (mapmem(nmaps))
			return 1;
	return 0;
}
