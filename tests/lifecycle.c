// SPDX-License-Identifier: GPL-2.0
/*
 * Lifecycle faults of a BPF congestion control: the registering process
 * killed at each step of registration; unregistering under 1,000 live
 * sockets; 1,000 register/unregister cycles with slab usage flat; a
 * pinned map outliving its creator; programs that cannot be unloaded from
 * under a registered CC. After each, nothing is left behind.
 *
 * Upstream's semantics, which bpftool struct_ops register relies on: a
 * registration outlives the process that made it, until someone deletes
 * the map's element.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <arpa/inet.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <linux/magic.h>

#include "lib/test.h"
#include "lib/net.h"
#include "lib/rawcc.h"
#include "lib/sock.h"
#include "lib/sys.h"

#define NAME "bpf_life"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The map and every program id in ids[] freed, and the name unlisted. */
static void check_all_gone(__u32 map, const __u32 *ids, int n)
{
	int i;

	CHECK(!map || wait_id_gone(map, true), "map %u left", map);
	for (i = 0; i < n; i++)
		CHECK(!ids[i] || wait_id_gone(ids[i], false), "prog %u left", ids[i]);
	CHECK(!sysctl_lists(AVAILABLE, NAME), NAME " still available");
}

/* Find a registered map by id: INUSE, held by its registration alone. */
static void check_registered(__u32 map, const __u32 *want_progs, int *fd)
{
	__u32 ids[RAW_NPROGS];
	struct struct_ops_header h;
	int i;

	*fd = bpf_map_get_fd_by_id(map);
	CHECK(*fd >= 0, "map %u: errno %d", map, errno);
	CHECK_OK(struct_ops_header(*fd, &h));
	CHECK_EQ(h.state, STATE_INUSE);
	CHECK_EQ(h.refcnt, 1);
	CHECK_OK(raw_value_prog_ids(*fd, ids));
	/* raw_reset() registers all but cong_control */
	for (i = 0; i < RAW_NPROGS - 1; i++)
		CHECK_EQ(ids[i], want_progs[i]);
	CHECK_EQ(ids[RAW_NPROGS - 1], 0);
	CHECK(sysctl_lists(AVAILABLE, NAME), NAME " registered but not available");
}

/* Delete a registered map's element and close it: everything goes. */
static void unregister_and_check(int fd, __u32 map, const __u32 *progs)
{
	__u32 zero = 0;

	CHECK_OK(bpf_map_delete_elem(fd, &zero));
	close(fd);
	check_all_gone(map, progs, RAW_NPROGS);
}

/* vmlinux BTF and the maps' BTF object loaded once, for the children to
 * inherit rather than parse again (seconds each on the debug guest).
 */
static int preload_btf(void)
{
	return vmlinux_btf() && map_btf_fd() >= 0 ? 0 : -1;
}

/* The steps of registration, in the order the registrar takes them. */
enum step { STEP_MAP, STEP_PROGS, STEP_VALUE, STEP_UPDATE, STEP_REGISTERED, NR_STEPS };
static const char * const step_names[] = {
	"map created", "programs loaded", "value filled", "racing update", "registered",
};

struct report {
	int step, err;
	__u32 map, progs[RAW_NPROGS];
};

/*
 * The registering process: reports each step done on fd and, at stop_at,
 * stops there for its parent to kill it. STEP_UPDATE is reported before
 * the update, so that a kill on that report races the syscall.
 */
static void __attribute__((noreturn)) registrar(int fd, int stop_at)
{
	struct report rep = {};
	struct raw_cc r;

	for (rep.step = 0; rep.step < NR_STEPS; rep.step++) {
		switch (rep.step) {
		case STEP_MAP:
			rep.err = raw_open_map(&r) ? errno : 0;
			rep.map = map_id(r.map);
			break;
		case STEP_PROGS:
			rep.err = raw_load_progs(&r) ? errno : 0;
			raw_prog_ids(&r, rep.progs);
			break;
		case STEP_VALUE:
			raw_reset(&r, NAME);
			break;
		case STEP_UPDATE:
			break;
		case STEP_REGISTERED:
			rep.err = raw_update(&r) ? errno : 0;
			break;
		}
		if (write(fd, &rep, sizeof(rep)) != sizeof(rep) || rep.err)
			_exit(1);
		if (rep.step == stop_at)
			raise(SIGSTOP);
	}
	for (;;)
		pause();
}

/*
 * Fork a registrar and SIGKILL it at step: stopped there, or (race) as
 * soon as it reports it. Its last report lands in *rep.
 */
static int kill_registrar_at(int step, bool race, struct report *rep)
{
	int p[2], status;
	pid_t pid;

	memset(rep, 0, sizeof(*rep));
	if (pipe(p))
		return -1;
	pid = fork();
	if (pid == 0) {
		close(p[0]);
		registrar(p[1], race ? -1 : step);
	}
	close(p[1]);
	while (read(p[0], rep, sizeof(*rep)) == sizeof(*rep) && !rep->err && rep->step < step)
		;
	close(p[0]);
	if (pid < 0)
		return -1;
	if (!race)
		waitpid(pid, &status, WUNTRACED);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	return rep->step == step && !rep->err &&
	       WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL ? 0 : -1;
}

/* After the kill: either all of it is gone, or it is registered and
 * outlives its creator until deleted. Which one, in *registered.
 */
static void check_after_kill(const struct report *rep, bool *registered)
{
	int fd = -1;

	*registered = sysctl_lists(AVAILABLE, NAME);
	if (!*registered) {
		check_all_gone(rep->map, rep->progs, RAW_NPROGS);
		return;
	}
	check_registered(rep->map, rep->progs, &fd);
	if (test_failed) {
		if (fd >= 0) {
			bpf_map_delete_elem(fd, &(__u32){ 0 });
			close(fd);
		}
		return;
	}
	unregister_and_check(fd, rep->map, rep->progs);
}

#define RACES 8

static void killed_at_each_step(void)
{
	int step, i, races_registered = 0;
	struct report rep;
	bool registered;

	CHECK_OK(preload_btf());
	for (step = STEP_MAP; step < NR_STEPS; step++) {
		if (step == STEP_UPDATE)
			continue;
		CHECK(!kill_registrar_at(step, false, &rep), "%s: registrar failed: step %d err %d",
		      step_names[step], rep.step, rep.err);
		check_after_kill(&rep, &registered);
		if (test_failed)
			return;
		/* killed before the update: nothing; after it: it stays */
		CHECK(registered == (step == STEP_REGISTERED), "%s: registered %d",
		      step_names[step], registered);
	}
	/* the update itself is not interruptible: it happened or it did not */
	for (i = 0; i < RACES; i++) {
		CHECK(!kill_registrar_at(STEP_UPDATE, true, &rep),
		      "racing update: registrar failed: step %d err %d", rep.step, rep.err);
		check_after_kill(&rep, &registered);
		if (test_failed)
			return;
		races_registered += registered;
	}
	printf("# killed racing the update: %d of %d registered\n", races_registered, RACES);
}

/* 500 loopback connections on the CC: 1,001 sockets with the listener. */
#define PAIRS 500

struct live {
	struct raw_cc r;
	bool registered;
	int lfd, c[PAIRS], s[PAIRS];
	__u32 map, progs[RAW_NPROGS];
};

static int listener(int *port)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof(a);
	int fd = tcp_socket_cc(NAME);

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || bind(fd, (void *)&a, len) || listen(fd, PAIRS) ||
	    getsockname(fd, (void *)&a, &len))
		return -1;
	*port = a.sin_port;
	return fd;
}

static int connect_pair(struct live *l, int i, int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = port };

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	l->c[i] = tcp_socket_cc(NAME);
	if (l->c[i] < 0 || connect(l->c[i], (void *)&a, sizeof(a)))
		return -1;
	l->s[i] = accept(l->lfd, NULL, NULL);
	return l->s[i] < 0 ? -1 : 0;
}

/* Each connection carries some bytes both ways, as sent. */
static int exchange(int from, int to, int i)
{
	char out[100], in[sizeof(out)];
	ssize_t n, got = 0;

	memset(out, 'a' + i % 26, sizeof(out));
	if (write(from, out, sizeof(out)) != sizeof(out))
		return -1;
	while (got < (ssize_t)sizeof(in) && (n = read(to, in + got, sizeof(in) - got)) > 0)
		got += n;
	return got == sizeof(in) && !memcmp(in, out, sizeof(in)) ? 0 : -1;
}

static void close_sockets(struct live *l)
{
	int i;

	for (i = 0; i < PAIRS; i++) {
		if (l->c[i] >= 0)
			close(l->c[i]);
		if (l->s[i] >= 0)
			close(l->s[i]);
		l->c[i] = l->s[i] = -1;
	}
	if (l->lfd >= 0)
		close(l->lfd);
	l->lfd = -1;
}

/* The refcnt the map value shows, once it settled at want (20 s at most). */
static __u32 refcnt_settled(int fd, __u32 want)
{
	struct struct_ops_header h = { .refcnt = ~0U };
	int i;

	for (i = 0; i < 200; i++) {
		if (struct_ops_header(fd, &h) || h.refcnt == want)
			break;
		usleep(100 * 1000);
	}
	return h.refcnt;
}

static void live_sockets_body(struct live *l)
{
	struct rlimit rl = { 4 * PAIRS + 64, 4 * PAIRS + 64 };
	struct struct_ops_header h;
	int i, port, nsock = 2 * PAIRS + 1;
	char cc[16];

	CHECK_OK(setrlimit(RLIMIT_NOFILE, &rl));
	CHECK_OK(raw_open(&l->r));
	raw_reset(&l->r, NAME);
	CHECK_OK(raw_update(&l->r));
	l->registered = true;
	l->map = map_id(l->r.map);
	raw_prog_ids(&l->r, l->progs);

	l->lfd = listener(&port);
	CHECK(l->lfd >= 0, "listener: errno %d", errno);
	for (i = 0; i < PAIRS; i++)
		CHECK(!connect_pair(l, i, port), "connection %d: errno %d", i, errno);
	/* every socket holds the CC, and so does the registration */
	CHECK_OK(struct_ops_header(l->r.map, &h));
	CHECK_EQ(h.state, STATE_INUSE);
	CHECK_EQ(h.refcnt, nsock + 1);

	CHECK_OK(bpf_map_delete_elem(l->r.map, &(__u32){ 0 }));
	l->registered = false;
	CHECK_OK(struct_ops_header(l->r.map, &h));
	CHECK_EQ(h.state, STATE_TOBEFREE);
	CHECK_EQ(h.refcnt, nsock);
	CHECK_EQ(try_select_cc(NAME), ENOENT);
	CHECK(!sysctl_lists(AVAILABLE, NAME), NAME " still available");

	/* the sockets still work on it */
	for (i = 0; i < PAIRS; i++) {
		CHECK(!exchange(l->c[i], l->s[i], i), "connection %d: client to server", i);
		CHECK(!exchange(l->s[i], l->c[i], i), "connection %d: server to client", i);
	}
	CHECK_OK(socket_cc(l->c[PAIRS - 1], cc, sizeof(cc)));
	CHECK_STR(cc, NAME);
	CHECK_OK(socket_cc(l->s[0], cc, sizeof(cc)));
	CHECK_STR(cc, NAME);

	/* they let go as they close; the last one frees it all */
	close_sockets(l);
	CHECK_EQ(refcnt_settled(l->r.map, 0), 0);
	CHECK(id_exists(l->progs[0], false), "prog freed while the map fd is open");
	raw_close(&l->r);
	l->r.map = -1;
	check_all_gone(l->map, l->progs, RAW_NPROGS);
}

static void unregister_with_live_sockets(void)
{
	static struct live l;
	int i;

	memset(&l, 0, sizeof(l));
	l.r.map = l.lfd = -1;
	for (i = 0; i < PAIRS; i++)
		l.c[i] = l.s[i] = -1;
	live_sockets_body(&l);
	/* whatever a failed check left */
	close_sockets(&l);
	if (l.registered)
		bpf_map_delete_elem(l.r.map, &(__u32){ 0 });
	if (l.r.map >= 0)
		raw_close(&l.r);
}

/*
 * Register and unregister 1,000 times, a fresh map each time (a deleted
 * one stays TOBEFREE, it cannot register again), the programs shared.
 */
#define CYCLES 1000
#define WARMUP 50
/* < 1 KiB a cycle */
#define SLAB_GROWTH_MAX_KB 1024

static long meminfo_kb(const char *key)
{
	char line[256];
	size_t n = strlen(key);
	long kb = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, key, n) && line[n] == ':')
			kb = atol(line + n + 1);
	if (f)
		fclose(f);
	return kb;
}

/*
 * Slab in kB once freed objects really are free: KASAN keeps freed objects
 * in its quarantine (up to 1/32 of memory), and shrinking a cache empties
 * its part of the quarantine; reclaimable dentries and inodes go too.
 */
static long settled_slab_kb(void)
{
	struct dirent *d;
	char path[512];
	int fd, shrunk = 0;
	DIR *dir;

	sync();
	sysctl_write("/proc/sys/vm/drop_caches", "2");
	dir = opendir("/sys/kernel/slab");
	while (dir && (d = readdir(dir))) {
		if (d->d_type != DT_DIR || d->d_name[0] == '.')
			continue;	/* symlinks are aliases of a cache */
		snprintf(path, sizeof(path), "/sys/kernel/slab/%s/shrink", d->d_name);
		/* a cache that cannot shrink stays as it is: no error to act on */
		fd = open(path, O_WRONLY);
		if (fd >= 0 && write(fd, "1", 1) == 1)
			shrunk++;
		if (fd >= 0)
			close(fd);
	}
	if (dir)
		closedir(dir);
	return shrunk ? meminfo_kb("Slab") : -1;
}

static __u32 cycle_ids[CYCLES + WARMUP];

/* One register/unregister; the map's id in *id; 0 or -errno. */
static int cycle(struct raw_cc *r, __u32 *id)
{
	int err = 0;

	r->map = create_struct_ops_map(TCA, NULL, NULL);
	if (r->map < 0)
		return -errno;
	*id = map_id(r->map);
	if (raw_update(r) || bpf_map_delete_elem(r->map, &(__u32){ 0 }))
		err = -errno;
	close(r->map);
	r->map = -1;
	return err;
}

/* All maps of the cycles freed (their frees are deferred to a worker). */
static bool cycles_gone(int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (!wait_id_gone(cycle_ids[i], true))
			return false;
	return true;
}

static void cycles_body(struct raw_cc *r, __u32 *progs)
{
	long before, after;
	double t0, t1;
	int i;

	CHECK_OK(raw_open(r));
	raw_prog_ids(r, progs);
	close(r->map);
	r->map = -1;
	raw_reset(r, NAME);
	for (i = 0; i < WARMUP; i++)
		CHECK(!cycle(r, &cycle_ids[i]), "warm-up cycle %d: errno %d", i, errno);
	CHECK(cycles_gone(WARMUP), "warm-up maps not freed");
	sleep(2);
	before = settled_slab_kb();
	t0 = now_s();
	for (i = WARMUP; i < WARMUP + CYCLES; i++)
		CHECK(!cycle(r, &cycle_ids[i]), "cycle %d: errno %d", i - WARMUP, errno);
	t1 = now_s();
	CHECK(cycles_gone(WARMUP + CYCLES), "maps of the cycles not freed");
	sleep(2);
	after = settled_slab_kb();
	printf("# %d register/unregister cycles in %.1f s, settled in %.1f s; "
	       "Slab %ld kB before, %ld kB after\n", CYCLES, t1 - t0, now_s() - t1, before, after);
	CHECK(before > 0 && after > 0, "no Slab in /proc/meminfo");
	CHECK(after - before < SLAB_GROWTH_MAX_KB, "Slab grew %ld kB in %d cycles",
	      after - before, CYCLES);
	CHECK(!sysctl_lists(AVAILABLE, NAME), NAME " still available");
	/* the programs were held by each registration, and let go each time */
	raw_close(r);
	r->ssthresh = -1;
	check_all_gone(0, progs, RAW_NPROGS);
}

static void register_unregister_1000(void)
{
	struct raw_cc r = { .map = -1, .ssthresh = -1 };
	__u32 progs[RAW_NPROGS];

	cycles_body(&r, progs);
	if (r.ssthresh >= 0)
		raw_close(&r);
}

/* bpffs at /sys/fs/bpf; whether this test mounted it. */
#define BPFFS "/sys/fs/bpf"
#define PIN BPFFS "/" NAME

static int bpffs_up(bool *mounted)
{
	struct statfs st;

	*mounted = false;
	if (!statfs(BPFFS, &st) && st.f_type == BPF_FS_MAGIC)
		return 0;
	if (mount("bpf", BPFFS, "bpf", 0, NULL))
		return -1;
	*mounted = true;
	return 0;
}

/* A child that registers the CC, pins its map and exits. */
static int register_and_pin(void)
{
	struct raw_cc r;
	int status;
	pid_t pid;

	pid = fork();
	if (pid == 0) {
		if (raw_open(&r))
			_exit(1);
		raw_reset(&r, NAME);
		if (raw_update(&r))
			_exit(2);
		_exit(bpf_obj_pin(r.map, PIN) ? 3 : 0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

static void pinned_body(int *fd, int *s)
{
	__u32 map, progs[RAW_NPROGS], zero = 0;
	struct struct_ops_header h;

	CHECK_EQ(register_and_pin(), 0);
	*fd = bpf_obj_get(PIN);
	CHECK(*fd >= 0, "bpf_obj_get(" PIN "): errno %d", errno);
	map = map_id(*fd);
	CHECK_OK(struct_ops_header(*fd, &h));
	CHECK_EQ(h.state, STATE_INUSE);
	CHECK_EQ(h.refcnt, 1);
	CHECK_OK(raw_value_prog_ids(*fd, progs));
	CHECK(sysctl_lists(AVAILABLE, NAME), NAME " not available");
	*s = tcp_socket_cc(NAME);
	CHECK(*s >= 0, "setsockopt(" NAME "): errno %d", errno);
	CHECK_OK(struct_ops_header(*fd, &h));
	CHECK_EQ(h.refcnt, 2);

	CHECK_OK(unlink(PIN));
	CHECK_OK(bpf_map_delete_elem(*fd, &zero));
	/* the socket still holds it */
	CHECK(id_exists(map, true), "map freed under a socket");
	close(*s);
	*s = -1;
	close(*fd);
	*fd = -1;
	check_all_gone(map, progs, RAW_NPROGS);
}

static void pinned_map_outlives_creator(void)
{
	int fd = -1, s = -1;
	bool mounted;

	CHECK_OK(preload_btf());
	CHECK(!bpffs_up(&mounted), "mount bpffs at " BPFFS ": errno %d", errno);
	unlink(PIN);
	pinned_body(&fd, &s);
	if (s >= 0)
		close(s);
	if (fd < 0)
		fd = bpf_obj_get(PIN);
	if (fd >= 0) {
		bpf_map_delete_elem(fd, &(__u32){ 0 });
		close(fd);
	}
	unlink(PIN);
	if (mounted)
		umount(BPFFS);
}

/*
 * With every fd closed, the registration holds the programs: they carry
 * traffic; after delete a socket still holds them; the last one to let go
 * frees them. The program that is not part of the CC goes with its fd.
 */
static void progs_body(int *mfd, int *s)
{
	struct xfer x = { .family = AF_INET, .bytes = 1 << 20, .cc = NAME, .timeout_s = 60 };
	__u32 map, progs[RAW_NPROGS];
	struct raw_cc r;
	int i;

	CHECK_OK(raw_open(&r));
	raw_reset(&r, NAME);
	if (raw_update(&r)) {
		raw_close(&r);
		CHECK(0, "register: errno %d", errno);
	}
	map = map_id(r.map);
	raw_prog_ids(&r, progs);
	*mfd = bpf_map_get_fd_by_id(map);	/* only for the cleanup */
	raw_close(&r);
	CHECK(wait_id_gone(progs[RAW_NPROGS - 1], false), "unused cong_control prog %u left",
	      progs[RAW_NPROGS - 1]);
	close(*mfd);
	*mfd = -1;
	for (i = 0; i < RAW_NPROGS - 1; i++)
		CHECK(id_exists(progs[i], false), "prog %u freed while registered", progs[i]);
	CHECK(id_exists(map, true), "map %u freed while registered", map);

	CHECK(!run_xfer(&x), "%s: %s", x.failed, strerror(x.err));
	CHECK_EQ(x.received, x.bytes);
	CHECK(!x.corrupt, "data corrupted");
	CHECK_STR(x.client_cc, NAME);

	*s = tcp_socket_cc(NAME);
	CHECK(*s >= 0, "setsockopt: errno %d", errno);
	*mfd = bpf_map_get_fd_by_id(map);
	CHECK(*mfd >= 0, "map %u: errno %d", map, errno);
	CHECK_OK(bpf_map_delete_elem(*mfd, &(__u32){ 0 }));
	close(*mfd);
	*mfd = -1;
	/* no fd, no registration: the socket alone holds them */
	for (i = 0; i < RAW_NPROGS - 1; i++)
		CHECK(id_exists(progs[i], false), "prog %u freed under a socket", progs[i]);
	CHECK(id_exists(map, true), "map %u freed under a socket", map);
	close(*s);
	*s = -1;
	check_all_gone(map, progs, RAW_NPROGS);
}

static void progs_outlive_their_fds(void)
{
	int mfd = -1, s = -1;

	progs_body(&mfd, &s);
	if (s >= 0)
		close(s);
	if (mfd >= 0) {
		bpf_map_delete_elem(mfd, &(__u32){ 0 });
		close(mfd);
	}
}

TEST_MAIN(SUBTEST(killed_at_each_step), SUBTEST(unregister_with_live_sockets),
	  SUBTEST(register_unregister_1000), SUBTEST(pinned_map_outlives_creator),
	  SUBTEST(progs_outlive_their_fds))
