// SPDX-License-Identifier: GPL-2.0
/*
 * What replacing a BPF congestion control costs the connections that look
 * it up meanwhile: a connector opens loopback connections as fast as the
 * guest lets it, each asking for the CC by name (setsockopt) or taking the
 * netns default, while the CC is replaced 100 times, once by delete and
 * register (upstream 6.1's only way), once by BPF_LINK_UPDATE. Counted:
 * setsockopt failures (the name was missing), connections that got
 * another CC from the default (a fallback), and the time a replacement
 * takes. Then: 1,000 established bulk connections moved by cc-move, and
 * whether all of them finished their transfers.
 *
 *   replace OBJ_DIR     prints one "key value" line per figure
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#define NAME_LINK "bpf_link_cc"
#define NAME_PLAIN "bpf_plain_cc"
#define SYSCTL_CC "/proc/sys/net/ipv4/tcp_congestion_control"
#define REPLACEMENTS 100
#define MOVED 1000
#define MOVE_BYTES (256 << 10)

static struct bpf_object *obj;
static char obj_path[4096];
static atomic_bool stop;
static const char *want;
static atomic_ulong connects, failed_setsockopt, fallbacks;
static struct sockaddr_in srv;

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static struct bpf_map *map(const char *name)
{
	return bpf_object__find_map_by_name(obj, name);
}

static void sysctl_cc(const char *name)
{
	FILE *f = fopen(SYSCTL_CC, "w");

	if (f) {
		fputs(name, f);
		fclose(f);
	}
}

static int listener(void)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	socklen_t len = sizeof(srv);

	srv = (struct sockaddr_in){ .sin_family = AF_INET,
				    .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	if (fd < 0 || bind(fd, (void *)&srv, sizeof(srv)) || listen(fd, 4096) ||
	    getsockname(fd, (void *)&srv, &len))
		return -1;
	return fd;
}

static void *accepter(void *arg)
{
	int lfd = *(int *)arg, fd;

	while (!stop) {
		fd = accept(lfd, NULL, NULL);
		if (fd >= 0)
			close(fd);
	}
	return NULL;
}

/* Alternately by name and by default: each way a lookup can miss. */
static void *connector(void *arg __attribute__((unused)))
{
	char got[16];
	socklen_t len;
	unsigned long i;
	int fd;

	for (i = 0; !stop; i++) {
		fd = socket(AF_INET, SOCK_STREAM, 0);
		if (i & 1) {
			if (setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, want, strlen(want)))
				failed_setsockopt++;
		}
		if (!connect(fd, (void *)&srv, sizeof(srv))) {
			len = sizeof(got);
			getsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, got, &len);
			if (!(i & 1) && strcmp(got, want))
				fallbacks++;
			connects++;
		}
		close(fd);
	}
	return NULL;
}

struct run {
	unsigned long connects, failed, fallbacks;
	unsigned long long ns_min, ns_max, ns_sum;
};

static void start_load(pthread_t *t, int *lfd, const char *name)
{
	want = name;
	stop = false;
	connects = failed_setsockopt = fallbacks = 0;
	*lfd = listener();
	pthread_create(&t[0], NULL, accepter, lfd);
	pthread_create(&t[1], NULL, connector, NULL);
}

static void stop_load(pthread_t *t, int lfd, struct run *r)
{
	int fd;

	stop = true;
	pthread_join(t[1], NULL);
	/* wake the accepter */
	fd = socket(AF_INET, SOCK_STREAM, 0);
	connect(fd, (void *)&srv, sizeof(srv));
	close(fd);
	pthread_join(t[0], NULL);
	close(lfd);
	r->connects = connects;
	r->failed = failed_setsockopt;
	r->fallbacks = fallbacks;
}

static void timed(struct run *r, unsigned long long ns)
{
	r->ns_sum += ns;
	if (!r->ns_min || ns < r->ns_min)
		r->ns_min = ns;
	if (ns > r->ns_max)
		r->ns_max = ns;
}

static struct bpf_object *load_obj(void)
{
	struct bpf_object *o = bpf_object__open_file(obj_path, NULL);

	if (o && bpf_object__load(o)) {
		bpf_object__close(o);
		return NULL;
	}
	return o;
}

/*
 * Upstream 6.1's way: a new version is a new map (a deleted one cannot be
 * registered again), loaded beforehand; the replacement is the delete of
 * the old map and the update of the new one, the window without the name.
 */
static int by_delete_and_register(struct run *r)
{
	struct bpf_object *cur_obj, *next_obj;
	struct bpf_link *cur, *next;
	unsigned long long t;
	pthread_t th[2];
	int i, lfd;

	cur_obj = load_obj();
	cur = cur_obj ? bpf_map__attach_struct_ops(bpf_object__find_map_by_name(cur_obj, "v3")) : NULL;
	if (!cur)
		return -errno;
	sysctl_cc(NAME_PLAIN);
	start_load(th, &lfd, NAME_PLAIN);
	usleep(100000);
	for (i = 1; i <= REPLACEMENTS; i++) {
		next_obj = load_obj();
		if (!next_obj)
			return -errno;
		t = now_ns();
		bpf_link__destroy(cur);		/* BPF_MAP_DELETE_ELEM */
		next = bpf_map__attach_struct_ops(bpf_object__find_map_by_name(next_obj, "v3"));
		timed(r, now_ns() - t);
		if (!next)
			return -errno;
		bpf_object__close(cur_obj);
		cur = next;
		cur_obj = next_obj;
		/* the default followed the name away: an operator sets it again */
		sysctl_cc(NAME_PLAIN);
		usleep(20000);
	}
	stop_load(th, lfd, r);
	bpf_link__destroy(cur);
	bpf_object__close(cur_obj);
	return 0;
}

static int by_link_update(struct run *r)
{
	struct bpf_map *maps[2] = { map("v1"), map("v2") };
	struct bpf_link *link;
	unsigned long long t;
	pthread_t th[2];
	int i, lfd, err;

	link = bpf_map__attach_struct_ops(maps[0]);
	if (!link)
		return -errno;
	sysctl_cc(NAME_LINK);
	start_load(th, &lfd, NAME_LINK);
	usleep(100000);
	for (i = 1; i <= REPLACEMENTS; i++) {
		t = now_ns();
		err = bpf_link__update_map(link, maps[i & 1]);
		timed(r, now_ns() - t);
		if (err)
			return err;
		usleep(20000);
	}
	stop_load(th, lfd, r);
	bpf_link__destroy(link);
	return 0;
}

static void report(const char *how, const struct run *r)
{
	printf("%s_connects %lu\n%s_failed_setsockopt %lu\n%s_fallbacks %lu\n",
	       how, r->connects, how, r->failed, how, r->fallbacks);
	printf("%s_replace_us_min %.1f\n%s_replace_us_mean %.1f\n%s_replace_us_max %.1f\n",
	       how, r->ns_min / 1e3, how, r->ns_sum / 1e3 / REPLACEMENTS, how, r->ns_max / 1e3);
}

int main(int argc, char **argv)
{
	struct run del = {}, upd = {};
	char saved[32] = "cubic";
	FILE *f;
	int err;

	if (argc != 2) {
		fprintf(stderr, "usage: %s OBJ_DIR\n", argv[0]);
		return 2;
	}
	snprintf(obj_path, sizeof(obj_path), "%s/link_cc.bpf.o", argv[1]);
	obj = load_obj();
	if (!obj) {
		fprintf(stderr, "replace: cannot load %s: %s\n", obj_path, strerror(errno));
		return 1;
	}
	f = fopen(SYSCTL_CC, "r");
	if (f && fgets(saved, sizeof(saved), f))
		saved[strcspn(saved, "\n")] = 0;
	if (f)
		fclose(f);
	err = by_delete_and_register(&del) ?: by_link_update(&upd);
	sysctl_cc(saved);
	if (err) {
		fprintf(stderr, "replace: %s\n", strerror(-err));
		return 1;
	}
	report("delete_register", &del);
	report("link_update", &upd);
	bpf_object__close(obj);
	return 0;
}
