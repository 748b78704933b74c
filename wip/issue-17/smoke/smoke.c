// SPDX-License-Identifier: GPL-2.0
/* Smoke test of struct_ops links with libbpf 1.5 (build/clients). */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

static int fails;
#define CHECK(c, ...) do { if (!(c)) { fails++; printf("FAIL %s:%d %s: ", __FILE__, __LINE__, #c); printf(__VA_ARGS__); printf(" (errno %d)\n", errno); } else printf("ok   %s\n", #c); } while (0)

static unsigned int link_map_id(int fd)
{
	struct bpf_link_info info = {};
	__u32 len = sizeof(info);

	if (bpf_link_get_info_by_fd(fd, &info, &len))
		return ~0u;
	return info.struct_ops.map_id;
}

static unsigned int map_id(struct bpf_map *m)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);

	bpf_map_get_info_by_fd(bpf_map__fd(m), &info, &len);
	return info.id;
}

static int sock_cc(char *name, size_t n)
{
	socklen_t len = n;
	int fd = socket(AF_INET, SOCK_STREAM, 0), err;

	err = getsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, name, &len);
	close(fd);
	return err;
}

static void sysctl(const char *v, char *out, size_t n)
{
	FILE *f = fopen("/proc/sys/net/ipv4/tcp_congestion_control", v ? "w" : "r");

	if (v)
		fputs(v, f);
	else if (!fgets(out, n, f))
		out[0] = 0;
	fclose(f);
	if (out)
		out[strcspn(out, "\n")] = 0;
}

int main(int argc, char **argv)
{
	struct bpf_object *obj = bpf_object__open_file(argv[1], NULL);
	struct bpf_map *v1, *v2;
	struct bpf_link *link;
	char name[32], def[32];
	struct pollfd pfd;
	int zero = 0, err;

	CHECK(!bpf_object__load(obj), "load");
	v1 = bpf_object__find_map_by_name(obj, "v1");
	v2 = bpf_object__find_map_by_name(obj, "v2");
	link = bpf_map__attach_struct_ops(v1);
	CHECK(link, "attach v1");
	if (!link)
		return 1;
	CHECK(link_map_id(bpf_link__fd(link)) == map_id(v1), "map id v1");
	sysctl("bpf_link_cc", NULL, 0);
	sysctl(NULL, def, sizeof(def));
	CHECK(!strcmp(def, "bpf_link_cc"), "default %s", def);
	CHECK(!sock_cc(name, sizeof(name)) && !strcmp(name, "bpf_link_cc"), "socket cc %s", name);
	errno = 0;
	CHECK(bpf_map_delete_elem(bpf_map__fd(v1), &zero) && errno == EOPNOTSUPP, "delete on a link map");
	CHECK(!bpf_link__update_map(link, v2), "update to v2");
	CHECK(link_map_id(bpf_link__fd(link)) == map_id(v2), "map id v2");
	CHECK(!bpf_link__update_map(link, v2), "update to the map it holds");
	errno = 0;
	err = bpf_link__update_map(link, v1);
	CHECK(!err, "update back to v1: %d", err);
	CHECK(!bpf_link__detach(link), "detach");
	CHECK(!bpf_link__detach(link), "second detach");
	pfd.fd = bpf_link__fd(link);
	pfd.events = POLLIN;
	CHECK(poll(&pfd, 1, 0) == 1 && (pfd.revents & POLLHUP), "poll HUP %x", pfd.revents);
	CHECK(link_map_id(bpf_link__fd(link)) == 0, "map id 0 after detach");
	err = bpf_link__update_map(link, v2);
	CHECK(err == -ENOLINK, "update after detach: %d", err);
	sysctl(NULL, def, sizeof(def));
	CHECK(strcmp(def, "bpf_link_cc"), "default after detach: %s", def);
	CHECK(!sock_cc(name, sizeof(name)) && strcmp(name, "bpf_link_cc"), "socket cc after detach %s", name);
	printf("%d failed\n", fails);
	return !!fails;
}
