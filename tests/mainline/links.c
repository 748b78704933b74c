// SPDX-License-Identifier: GPL-2.0
/*
 * struct_ops links, driven as mainline's libbpf 1.5 drives them (built
 * from linux-source-6.12 by 'make clients', unmodified): attach, update,
 * detach, pin, poll and link info, and every errno the kernel answers,
 * which are mainline's except where mainline has a hole (each says so).
 */
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <unistd.h>
#include <sys/stat.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "lib/cc.h"
#include "lib/net.h"
#include "lib/sys.h"
#include "lib/test.h"

#define NAME "bpf_link_cc"
#define SYSCTL_CC "/proc/sys/net/ipv4/tcp_congestion_control"
#define PIN "/sys/fs/bpf/links_test"
#define MOVE_OUT "/tmp/cc-move.out"

static struct bpf_cc cc;

static struct bpf_map *map(const char *name)
{
	return bpf_object__find_map_by_name(cc.obj, name);
}

static int fd_of(const char *name)
{
	return bpf_map__fd(map(name));
}

/* The map a struct_ops link holds, 0 once detached, -1 on error. */
static long long link_map_id(int fd)
{
	struct bpf_link_info info = {};
	__u32 len = sizeof(info);

	if (bpf_link_get_info_by_fd(fd, &info, &len))
		return -1;
	if (info.type != BPF_LINK_TYPE_STRUCT_OPS)
		return -2;
	return info.struct_ops.map_id;
}

static __u64 counter(const char *var, int version)
{
	__u64 v[5] = {};

	cc_read(&cc, var, v, sizeof(v));
	return v[version - 1];
}

/*
 * Fill a link map in as libbpf does, by attaching it, and let the link go:
 * the map stays READY for another link to register. The name must be free.
 */
static int fill(const char *name)
{
	struct bpf_link *link = bpf_map__attach_struct_ops(map(name));

	if (!link)
		return -errno;
	bpf_link__destroy(link);
	return 0;
}

static int open_cc(void)
{
	return cc_open(&cc, "link_cc", NAME);
}

static bool registered(const char *name)
{
	return sysctl_lists(AVAILABLE, name);
}

/* A BPF_F_LINK map of tcp_congestion_ops that nobody filled in. */
static int unfilled_link_map(void)
{
	int value_id = vmlinux_struct_id("bpf_struct_ops_tcp_congestion_ops");
	LIBBPF_OPTS(bpf_map_create_opts, opts, .map_flags = BPF_F_LINK, .btf_fd = map_btf_fd(),
		    .btf_vmlinux_value_type_id = value_id);

	return bpf_map_create(BPF_MAP_TYPE_STRUCT_OPS, "unfilled", 4,
			      btf__type_by_id(vmlinux_btf(), value_id)->size, 1, &opts);
}

static void attach_info_detach(void)
{
	struct bpf_link *link;
	char line[64], buf[4096];
	int fd, n;

	CHECK_OK(open_cc());
	link = bpf_map__attach_struct_ops(map("v1"));
	CHECK(link, "attach v1: errno %d", errno);
	CHECK(registered(NAME), NAME " is not in %s", AVAILABLE);
	CHECK_EQ(link_map_id(bpf_link__fd(link)), map_id(fd_of("v1")));

	snprintf(line, sizeof(line), "/proc/self/fdinfo/%d", bpf_link__fd(link));
	fd = open(line, O_RDONLY);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = 0;
	snprintf(line, sizeof(line), "map_id:\t%u\n", map_id(fd_of("v1")));
	CHECK(strstr(buf, line), "fdinfo has no \"%s\": %s", line, buf);

	/* the registration is the link's: the map cannot be deleted */
	CHECK_ERRNO(bpf_map_delete_elem(fd_of("v1"), &(int){ 0 }), EOPNOTSUPP);
	CHECK(registered(NAME), "gone after a refused delete");

	CHECK_OK(bpf_link__detach(link));
	CHECK(!registered(NAME), "still registered after detach");
	CHECK_EQ(link_map_id(bpf_link__fd(link)), 0);
	/* a second detach finds nothing to do */
	CHECK_OK(bpf_link_detach(bpf_link__fd(link)));
	bpf_link__destroy(link);
}

static void poll_hup(void)
{
	struct bpf_link *link;
	struct pollfd pfd;

	CHECK_OK(open_cc());
	link = bpf_map__attach_struct_ops(map("v1"));
	CHECK(link, "attach: errno %d", errno);
	pfd = (struct pollfd){ .fd = bpf_link__fd(link), .events = POLLIN };
	CHECK_EQ(poll(&pfd, 1, 0), 0);
	CHECK_OK(bpf_link__detach(link));
	CHECK_EQ(poll(&pfd, 1, 1000), 1);
	CHECK(pfd.revents & POLLHUP, "revents %#x", pfd.revents);
	bpf_link__destroy(link);
}

static void last_close_unregisters(void)
{
	struct bpf_link *link;

	CHECK_OK(open_cc());
	link = bpf_map__attach_struct_ops(map("v1"));
	CHECK(link, "attach: errno %d", errno);
	bpf_link__destroy(link);
	CHECK(!registered(NAME), "registered after its link's last close");
}

static void pin_outlives_process_view(void)
{
	struct bpf_link *link, *again;

	unlink(PIN);
	CHECK_OK(open_cc());
	link = bpf_map__attach_struct_ops(map("v1"));
	CHECK(link, "attach: errno %d", errno);
	CHECK_OK(bpf_link__pin(link, PIN));
	bpf_link__destroy(link);
	CHECK(registered(NAME), "a pinned link's CC went away with the fd");

	again = bpf_link__open(PIN);
	CHECK(again, "open " PIN ": errno %d", errno);
	CHECK_EQ(link_map_id(bpf_link__fd(again)), map_id(fd_of("v1")));
	CHECK_OK(bpf_link__detach(again));
	CHECK(!registered(NAME), "registered after detaching the pinned link");
	bpf_link__destroy(again);
	CHECK_OK(unlink(PIN));
}

static void create_refusals(void)
{
	LIBBPF_OPTS(bpf_link_create_opts, flags, .flags = 1);
	struct bpf_link *plain, *held;
	int unfilled;

	CHECK_OK(open_cc());
	/* a BPF_F_LINK map that was never filled in is not READY */
	unfilled = unfilled_link_map();
	CHECK_OK(unfilled);
	CHECK_ERRNO(bpf_link_create(unfilled, 0, BPF_STRUCT_OPS, NULL), EINVAL);
	close(unfilled);

	/* a map registered the old way is not a link's */
	plain = bpf_map__attach_struct_ops(map("v3"));
	CHECK(plain, "attach v3: errno %d", errno);
	CHECK_ERRNO(bpf_link_create(fd_of("v3"), 0, BPF_STRUCT_OPS, NULL), EINVAL);
	bpf_link__destroy(plain);

	/* beyond mainline: flags and a target it would ignore */
	CHECK_OK(fill("v1"));
	CHECK_ERRNO(bpf_link_create(fd_of("v1"), 0, BPF_STRUCT_OPS, &flags), EINVAL);
	CHECK_ERRNO(bpf_link_create(fd_of("v1"), 1, BPF_STRUCT_OPS, NULL), EINVAL);

	/* a map one link holds is not another's */
	held = bpf_map__attach_struct_ops(map("v1"));
	CHECK(held, "attach v1: errno %d", errno);
	CHECK_ERRNO(bpf_link_create(fd_of("v1"), 0, BPF_STRUCT_OPS, NULL), EEXIST);
	bpf_link__destroy(held);
	CHECK(!registered(NAME), "registered after the only link closed");
}

/*
 * TCP's validate runs when a link map is filled in, before anything can
 * register it: a CC without undo_cwnd is EINVAL there, as a plain map's
 * registration is, and its name is never listed.
 */
static void incomplete_refused(void)
{
	struct bpf_link *link;

	CHECK_OK(open_cc());
	link = bpf_map__attach_struct_ops(map("incomplete"));
	CHECK(!link && errno == EINVAL, "attach of a CC without undo_cwnd: errno %d", errno);
	CHECK(!registered("bpf_link_bad"), "bpf_link_bad registered");
	CHECK_ERRNO(bpf_link_create(fd_of("incomplete"), 0, BPF_STRUCT_OPS, NULL), EINVAL);
}

/* While a transfer runs on v1, the link moves to v2. */
static void update_mid_transfer(struct xfer *x, int fd)
{
	struct bpf_link *link = x->arg;

	x->err = bpf_link__update_map(link, map("v2"));
	if (x->err)
		x->failed = "bpf_link__update_map";
}

static void update_keeps_name_and_connections(void)
{
	struct xfer x = { .family = AF_INET, .bytes = 4 << 20, .cc = NAME,
			  .midway = update_mid_transfer, .timeout_s = 60 };
	char sock_cc[16];
	struct bpf_link *link;
	__u64 v1_acks;
	int fd;

	CHECK_OK(open_cc());
	link = bpf_map__attach_struct_ops(map("v1"));
	CHECK(link, "attach v1: errno %d", errno);
	x.arg = link;
	CHECK_OK(run_xfer(&x));
	CHECK_EQ(x.err, 0);
	CHECK_EQ(x.received, x.bytes);
	CHECK_EQ(link_map_id(bpf_link__fd(link)), map_id(fd_of("v2")));
	/* the connection stayed on v1 (both ends) through the update */
	CHECK_STR(x.client_cc_end, NAME);
	CHECK_EQ(counter("inits", 2), 0);
	CHECK(counter("acks", 1) > 0, "v1 saw no ACK");

	/* new sockets get v2 by the same name */
	fd = socket(AF_INET, SOCK_STREAM, 0);
	CHECK_OK(setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, NAME, sizeof(NAME)));
	CHECK_OK(socket_cc(fd, sock_cc, sizeof(sock_cc)));
	close(fd);
	CHECK_STR(sock_cc, NAME);
	v1_acks = counter("acks", 1);
	x = (struct xfer){ .family = AF_INET, .bytes = 1 << 20, .cc = NAME, .timeout_s = 60 };
	CHECK_OK(run_xfer(&x));
	CHECK_EQ(x.received, x.bytes);
	CHECK(counter("inits", 2) >= 2, "v2 init ran %llu times", counter("inits", 2));
	CHECK_EQ(counter("acks", 1), v1_acks);

	/* updating to the map the link holds changes nothing */
	CHECK_OK(bpf_link__update_map(link, map("v2")));
	CHECK_EQ(link_map_id(bpf_link__fd(link)), map_id(fd_of("v2")));
	bpf_link__destroy(link);
	CHECK(!registered(NAME), "registered after the link closed");
}

static __u64 v1_acks_at_move;

/* Half-way: the link moves to v2, and cc-move moves the connection. */
static void update_and_move(struct xfer *x, int fd)
{
	struct bpf_link *link = x->arg;
	char cmd[PATH_MAX + 64];

	x->err = bpf_link__update_map(link, map("v2"));
	if (x->err) {
		x->failed = "bpf_link__update_map";
		return;
	}
	snprintf(cmd, sizeof(cmd), "%s " NAME " >" MOVE_OUT " 2>&1", test_file("cc-tools/cc-move"));
	if (system(cmd)) {
		x->err = EIO;
		x->failed = "cc-move";
	}
	v1_acks_at_move = counter("acks", 1);
}

static void move_live_connection(void)
{
	struct xfer x = { .family = AF_INET, .bytes = 8 << 20, .cc = NAME,
			  .midway = update_and_move, .timeout_s = 60 };
	struct bpf_link *link;
	char out[256] = "";
	FILE *f;

	CHECK_OK(open_cc());
	link = bpf_map__attach_struct_ops(map("v1"));
	CHECK(link, "attach v1: errno %d", errno);
	x.arg = link;
	run_xfer(&x);
	CHECK(!x.err, "%s: %s (received %zu, server state %u)", x.failed, strerror(x.err),
	      x.received, x.server_info.tcpi_state);
	CHECK_EQ(x.received, x.bytes);
	CHECK(!x.corrupt, "data corrupted");
	f = fopen(MOVE_OUT, "r");
	CHECK(f && fgets(out, sizeof(out), f), "no cc-move output");
	fclose(f);
	/* both ends, and the listener, which chose its CC (no init: listening) */
	CHECK(strstr(out, NAME ": 3 moved, 0 already current, 0 failed"), "cc-move: %s", out);
	/* each end ran v2's init once, and v1 saw no ACK after the move */
	CHECK_EQ(counter("inits", 2), 2);
	CHECK(v1_acks_at_move > 0, "v1 saw no ACK before the move");
	CHECK_EQ(counter("acks", 1), v1_acks_at_move);
	CHECK(counter("acks", 2) > 0, "v2 saw no ACK after the move");
	bpf_link__destroy(link);
}

static void update_refusals(void)
{
	LIBBPF_OPTS(bpf_link_update_opts, bad_flags, .flags = BPF_F_REPLACE << 1);
	LIBBPF_OPTS(bpf_link_update_opts, no_replace);
	LIBBPF_OPTS(bpf_link_update_opts, wrong_old, .flags = BPF_F_REPLACE);
	struct bpf_link *link, *other, *sops;
	int lfd, unfilled;

	CHECK_OK(open_cc());
	/* filled while its name is free: a link registers it for a moment */
	CHECK_OK(fill("v2"));
	link = bpf_map__attach_struct_ops(map("v1"));
	CHECK(link, "attach v1: errno %d", errno);
	lfd = bpf_link__fd(link);

	CHECK_ERRNO(bpf_link_update(lfd, fd_of("v2"), &bad_flags), EINVAL);
	no_replace.old_map_fd = fd_of("v1");
	CHECK_ERRNO(bpf_link_update(lfd, fd_of("v2"), &no_replace), EINVAL);
	wrong_old.old_map_fd = fd_of("v2");
	CHECK_ERRNO(bpf_link_update(lfd, fd_of("v2"), &wrong_old), EPERM);
	unfilled = unfilled_link_map();
	CHECK_OK(unfilled);
	CHECK_ERRNO(bpf_link_update(lfd, unfilled, NULL), EINVAL);
	close(unfilled);
	/* a map registered the old way */
	other = bpf_map__attach_struct_ops(map("v3"));
	CHECK(other, "attach v3: errno %d", errno);
	CHECK_ERRNO(bpf_link_update(lfd, fd_of("v3"), NULL), EINVAL);
	bpf_link__destroy(other);

	/* the test type has no update: to it, EOPNOTSUPP; from it, EINVAL */
	sops = bpf_map__attach_struct_ops(map("sops"));
	CHECK(sops, "attach sops: errno %d", errno);
	CHECK_ERRNO(bpf_link_update(lfd, fd_of("sops"), NULL), EOPNOTSUPP);
	CHECK_ERRNO(bpf_link_update(bpf_link__fd(sops), fd_of("v2"), NULL), EINVAL);
	bpf_link__destroy(sops);

	/* a second CC of a registered name */
	other = bpf_map__attach_struct_ops(map("v2"));
	CHECK(!other && errno == EEXIST, "a second " NAME " registered: errno %d", errno);
	/* a map another link holds stays where it is (beyond mainline) */
	other = bpf_map__attach_struct_ops(map("v4"));
	CHECK(other, "attach v4: errno %d", errno);
	CHECK_ERRNO(bpf_link_update(lfd, fd_of("v4"), NULL), EINVAL);
	CHECK_EQ(link_map_id(bpf_link__fd(other)), map_id(fd_of("v4")));
	bpf_link__destroy(other);

	CHECK_OK(bpf_link__detach(link));
	other = bpf_map__attach_struct_ops(map("v2"));
	CHECK(other, "attach v2: errno %d", errno);
	CHECK_ERRNO(bpf_link_update(lfd, fd_of("v2"), NULL), ENOLINK);
	bpf_link__destroy(other);

	/* with the right old map, the update goes through */
	bpf_link__destroy(link);
	link = bpf_map__attach_struct_ops(map("v1"));
	CHECK(link, "attach v1 again: errno %d", errno);
	wrong_old.old_map_fd = fd_of("v1");
	CHECK_OK(bpf_link_update(bpf_link__fd(link), fd_of("v2"), &wrong_old));
	CHECK_EQ(link_map_id(bpf_link__fd(link)), map_id(fd_of("v2")));
	bpf_link__destroy(link);
}

/*
 * Beyond mainline, which drops it: a CC the admin allowed for unprivileged
 * sockets (tcp_allowed_congestion_control) stays allowed through an update.
 */
static void allowed_through_update(void)
{
	struct bpf_link *link;

	CHECK_OK(open_cc());
	link = bpf_map__attach_struct_ops(map("v1"));
	CHECK(link, "attach v1: errno %d", errno);
	CHECK_OK(sysctl_write(ALLOWED, NAME));
	CHECK_OK(bpf_link__update_map(link, map("v2")));
	CHECK(sysctl_lists(ALLOWED, NAME), NAME " left %s with its update", ALLOWED);
	bpf_link__destroy(link);
}

static void update_keeps_allowed(void)
{
	char old[256];

	CHECK_OK(sysctl_read(ALLOWED, old, sizeof(old)));
	allowed_through_update();
	CHECK_OK(sysctl_write(ALLOWED, old));
}

#define NS "links_ns"

/* Netns NS's default, as its sysctl shows it; 0 or -errno. */
static int ns_default(char *buf, size_t len)
{
	FILE *p = popen("ip netns exec " NS " cat " SYSCTL_CC, "r");
	int err = -EIO;

	if (!p)
		return -errno;
	if (fgets(buf, len, p)) {
		buf[strcspn(buf, "\n")] = 0;
		err = 0;
	}
	return pclose(p) ? -EIO : err;
}

/* A transfer on netns ns's default CC (0: this one's); 0 or -errno. */
static int xfer_on_default(int ns)
{
	struct xfer x = { .family = AF_INET, .bytes = 256 << 10, .timeout_s = 60,
			  .client_ns = ns, .server_ns = ns };

	return run_xfer(&x) ?: (x.received == x.bytes ? 0 : -EIO);
}

/*
 * Both netns that have the CC as their default, init_net and one set up
 * from it, follow its name: new connections run v2 after the update, and
 * after the unregister each shows the default its new sockets get and
 * holds nothing of the CC.
 */
static void defaults_follow(int *ns)
{
	char def[32], ns_def[32], sock_cc[32];
	struct bpf_link *link;
	__u32 v1_id, v2_id;
	int fd;

	CHECK_OK(open_cc());
	v1_id = map_id(fd_of("v1"));
	v2_id = map_id(fd_of("v2"));
	link = bpf_map__attach_struct_ops(map("v1"));
	CHECK(link, "attach v1: errno %d", errno);
	CHECK_OK(sysctl_write(SYSCTL_CC, NAME));
	/* a netns set up now takes init_net's default */
	CHECK_OK(system("ip netns add " NS " && ip -n " NS " link set lo up"));
	*ns = open("/run/netns/" NS, O_RDONLY);
	CHECK(*ns >= 0, "open /run/netns/" NS ": %s", strerror(errno));
	CHECK_OK(ns_default(ns_def, sizeof(ns_def)));
	CHECK_STR(ns_def, NAME);

	CHECK_OK(bpf_link__update_map(link, map("v2")));
	CHECK_OK(sysctl_read(SYSCTL_CC, def, sizeof(def)));
	CHECK_STR(def, NAME);
	CHECK_OK(xfer_on_default(0));
	CHECK_OK(xfer_on_default(*ns));
	/* two sockets per connection, both on v2 */
	CHECK_EQ(counter("inits", 1), 0);
	CHECK_EQ(counter("inits", 2), 4);

	bpf_link__destroy(link);
	CHECK_OK(sysctl_read(SYSCTL_CC, def, sizeof(def)));
	CHECK(strcmp(def, NAME) && registered(def), "default after unregister: %s", def);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	CHECK_OK(socket_cc(fd, sock_cc, sizeof(sock_cc)));
	close(fd);
	CHECK_STR(sock_cc, def);
	CHECK_OK(ns_default(ns_def, sizeof(ns_def)));
	CHECK_STR(ns_def, def);
	/* neither netns keeps either version alive */
	cc_close(&cc);
	CHECK(wait_id_gone(v1_id, true), "map %u (v1) held after the unregister", v1_id);
	CHECK(wait_id_gone(v2_id, true), "map %u (v2) held after the unregister", v2_id);
}

static void default_follows_the_name(void)
{
	char old[32];
	int ns = -1;

	CHECK_OK(sysctl_read(SYSCTL_CC, old, sizeof(old)));
	defaults_follow(&ns);
	if (ns >= 0) {
		close(ns);
		if (system("ip netns del " NS))
			test_fail(__FILE__, __LINE__, "ip netns del " NS " failed");
	}
	sysctl_write(SYSCTL_CC, old);
}

TEST_MAIN(SUBTEST(attach_info_detach), SUBTEST(poll_hup), SUBTEST(last_close_unregisters),
	  SUBTEST(pin_outlives_process_view), SUBTEST(create_refusals), SUBTEST(incomplete_refused),
	  SUBTEST(update_keeps_name_and_connections), SUBTEST(move_live_connection),
	  SUBTEST(update_refusals), SUBTEST(update_keeps_allowed),
	  SUBTEST(default_follows_the_name))
