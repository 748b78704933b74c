// SPDX-License-Identifier: GPL-2.0
/*
 * cc-move NAME: move the TCP connections of this netns that run an older
 * version of congestion control NAME (one a BPF_LINK_UPDATE replaced)
 * onto the version registered now. Nothing is reset: each socket switches
 * as on setsockopt(TCP_CONGESTION). Run it in each netns that has such
 * connections (ip netns exec NS cc-move NAME).
 *
 * Prints one line: how many sockets moved, were already on the registered
 * version, or could not move (with the last error), and how long the pass
 * took. Exits 1 if any could not move.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "cc_move.skel.h"

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* One pass of the TCP iterator: reading it to the end runs the program. */
static int run_iter(struct bpf_link *link)
{
	char buf[256];
	ssize_t n;
	int fd;

	fd = bpf_iter_create(bpf_link__fd(link));
	if (fd < 0)
		return -errno;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		;
	close(fd);
	return n < 0 ? -errno : 0;
}

int main(int argc, char **argv)
{
	struct cc_move *skel;
	struct bpf_link *link;
	double start;
	int err;

	if (argc != 2 || strlen(argv[1]) >= sizeof(skel->rodata->cc_name)) {
		fprintf(stderr, "usage: %s NAME (a congestion control name, at most %zu characters)\n",
			argv[0], sizeof(skel->rodata->cc_name) - 1);
		return 2;
	}
	skel = cc_move__open();
	if (!skel) {
		fprintf(stderr, "cc-move: cannot open the BPF program: %s\n", strerror(errno));
		return 2;
	}
	strncpy((char *)skel->rodata->cc_name, argv[1], sizeof(skel->rodata->cc_name) - 1);
	err = cc_move__load(skel);
	if (err) {
		fprintf(stderr, "cc-move: cannot load the BPF program (%s): it needs a kernel with BTF and TCP iterators (5.14+), CAP_BPF and CAP_NET_ADMIN; a verifier log above says what the kernel refused\n",
			strerror(-err));
		goto out;
	}
	link = bpf_program__attach_iter(skel->progs.move_cc, NULL);
	if (!link) {
		err = -errno;
		fprintf(stderr, "cc-move: cannot create the TCP iterator: %s\n", strerror(-err));
		goto out;
	}
	start = now_ms();
	err = run_iter(link);
	if (err)
		fprintf(stderr, "cc-move: the TCP iterator failed: %s\n", strerror(-err));
	else
		printf("%s: %llu moved, %llu already current, %llu failed%s%s in %.1f ms\n",
		       argv[1], skel->bss->moved, skel->bss->current, skel->bss->failed,
		       skel->bss->failed ? ", last error " : "",
		       skel->bss->failed ? strerror(-skel->bss->last_error) : "",
		       now_ms() - start);
	bpf_link__destroy(link);
	if (!err && skel->bss->failed)
		err = 1;
out:
	cc_move__destroy(skel);
	return err ? 1 : 0;
}
