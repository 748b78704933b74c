// SPDX-License-Identifier: GPL-2.0
/*
 * make demo's roll-out scene: hold a BPF congestion control registered
 * through a struct_ops link, and put its next version in its place when
 * told, as a daemon that owns a CC would. On mainline's libbpf 1.5
 * ('make clients'): links need libbpf 1.2+.
 *
 *   demo-roll V1.bpf.o V2.bpf.o
 *
 * Registers V1's struct_ops map through a link and prints "registered";
 * on SIGUSR1 updates the link to V2's map (BPF_LINK_UPDATE: the name never
 * goes missing) and prints "updated in N us"; on SIGTERM or SIGINT
 * detaches (unregisters) and exits. Both objects hold one struct_ops map,
 * in SEC(".struct_ops.link"), with the same .name.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <bpf/libbpf.h>

static struct bpf_map *load_ops(const char *path, struct bpf_object **obj)
{
	struct bpf_map *map;

	*obj = bpf_object__open_file(path, NULL);
	if (!*obj || bpf_object__load(*obj)) {
		fprintf(stderr, "demo-roll: cannot load %s: %s\n", path, strerror(errno));
		return NULL;
	}
	bpf_object__for_each_map(map, *obj)
		if (bpf_map__type(map) == BPF_MAP_TYPE_STRUCT_OPS)
			return map;
	fprintf(stderr, "demo-roll: %s has no struct_ops map\n", path);
	return NULL;
}

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

int main(int argc, char **argv)
{
	struct bpf_object *obj1 = NULL, *obj2 = NULL;
	struct bpf_map *v1, *v2;
	struct bpf_link *link = NULL;
	int sig, err = 1;
	sigset_t set;
	double t;

	if (argc != 3) {
		fprintf(stderr, "usage: %s V1.bpf.o V2.bpf.o\n", argv[0]);
		return 2;
	}
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigprocmask(SIG_BLOCK, &set, NULL);

	v1 = load_ops(argv[1], &obj1);
	v2 = v1 ? load_ops(argv[2], &obj2) : NULL;
	if (v2)
		link = bpf_map__attach_struct_ops(v1);
	if (v2 && !link)
		fprintf(stderr, "demo-roll: cannot register %s: %s\n", argv[1], strerror(errno));
	if (link) {
		printf("registered\n");
		fflush(stdout);
		err = 0;
	}
	while (link && !sigwait(&set, &sig) && sig == SIGUSR1) {
		t = now_us();
		err = bpf_link__update_map(link, v2);
		if (err) {
			fprintf(stderr, "demo-roll: update: %s\n", strerror(-err));
			break;
		}
		printf("updated in %.0f us\n", now_us() - t);
		fflush(stdout);
	}
	bpf_link__destroy(link);
	bpf_object__close(obj2);
	bpf_object__close(obj1);
	return err ? 1 : 0;
}
