// SPDX-License-Identifier: GPL-2.0
/*
 * Who may do what, by upstream 6.1's rules. Creating a struct_ops map
 * needs bpf_capable() (CAP_BPF or CAP_SYS_ADMIN; struct_ops map_alloc),
 * and loading a BPF_PROG_TYPE_STRUCT_OPS program bpf_capable() and
 * perfmon_capable() (CAP_PERFMON or CAP_SYS_ADMIN; it reads kernel
 * memory): with unprivileged BPF enabled, for both. And a registered BPF
 * congestion control is restricted as a native one is: a socket may
 * select it without CAP_NET_ADMIN (in its netns' user namespace) only if
 * tcp_allowed_congestion_control lists it.
 *
 * Each check runs in a forked child that dropped to uid 65534 and/or to
 * the capabilities of its case.
 *
 * A struct_ops map's trampoline page is executable memory: it counts
 * against net.core.bpf_jit_limit, which holds back the JIT of those
 * without CAP_BPF (upstream 6.1 did not count it).
 */
#define _GNU_SOURCE
#include <sched.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "lib/test.h"
#include "lib/insn.h"
#include "lib/net.h"
#include "lib/priv.h"
#include "lib/rawcc.h"
#include "lib/sock.h"
#include "lib/sops.h"
#include "lib/sys.h"

#define UNPRIV_BPF "/proc/sys/kernel/unprivileged_bpf_disabled"
#define JIT_LIMIT "/proc/sys/net/core/bpf_jit_limit"

static int map_errno(int fd)
{
	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

static int create_tca_map(void *arg)
{
	return map_errno(create_struct_ops_map(TCA, NULL, NULL));
}

static int create_sops_map(void *arg)
{
	return map_errno(sops_create_map());
}

static int load_tca_prog(void *arg)
{
	return map_errno(load_trivial_prog(BPF_PROG_TYPE_STRUCT_OPS, vmlinux_struct_id(TCA),
					   tca_member("ssthresh"), "GPL", 2, NULL, 0));
}

/* What unprivileged BPF may do, to show it is enabled. */
static int create_array_map(void *arg)
{
	return map_errno(bpf_map_create(BPF_MAP_TYPE_ARRAY, "a", 4, 4, 1, NULL));
}

static int load_socket_filter(void *arg)
{
	return map_errno(load_trivial_prog(BPF_PROG_TYPE_SOCKET_FILTER, 0, 0, "GPL", 0, NULL, 0));
}

static const struct bpf_case {
	const char *who;
	uid_t uid;
	__u64 caps;
	int map, prog;		/* errno of map create, of program load */
} bpf_cases[] = {
	{ "nobody", NOBODY, 0, EPERM, EPERM },
	{ "root without capabilities", SAME_UID, 0, EPERM, EPERM },
	{ "CAP_NET_ADMIN", NOBODY, CAPS(CAP_NET_ADMIN), EPERM, EPERM },
	{ "CAP_PERFMON", NOBODY, CAPS(CAP_PERFMON), EPERM, EPERM },
	/* bpf_capable() makes the map; the program also needs perfmon_capable() */
	{ "CAP_BPF", NOBODY, CAPS(CAP_BPF), 0, EPERM },
	{ "CAP_BPF+CAP_PERFMON", NOBODY, CAPS(CAP_BPF) | CAPS(CAP_PERFMON), 0, 0 },
	{ "CAP_SYS_ADMIN", NOBODY, CAPS(CAP_SYS_ADMIN), 0, 0 },
};
#define NR_BPF_CASES ARRAY_LEN(bpf_cases)

/* Per case: TCA map, bpf_struct_ops_test map, program, the two controls. */
enum { GOT_TCA_MAP, GOT_SOPS_MAP, GOT_PROG, GOT_ARRAY, GOT_FILTER, NR_GOT };
static int (* const got_fns[NR_GOT])(void *) = {
	create_tca_map, create_sops_map, load_tca_prog, create_array_map, load_socket_filter,
};

/* In the child: every attempt, each result into got[] (shared memory). */
static int try_all(void *arg)
{
	int *got = arg, i;

	for (i = 0; i < NR_GOT; i++)
		got[i] = got_fns[i](NULL);
	return 0;
}

/*
 * unprivileged_bpf_disabled at 0 for the test (the old value in old): else
 * the syscall itself says EPERM to everyone without bpf_capable(), before
 * struct_ops's own checks. 1 is sticky until reboot.
 */
static void unpriv_bpf_enable(char *old, size_t len)
{
	CHECK_OK(sysctl_read(UNPRIV_BPF, old, len));
	CHECK(strcmp(old, "1"), "kernel.unprivileged_bpf_disabled is 1, which only a reboot "
	      "undoes: boot with it at 0 or 2 to run this test");
	CHECK_OK(sysctl_write(UNPRIV_BPF, "0"));
}

static void bpf_needs_privilege(void)
{
	static int (*got)[NR_GOT];
	char old[16];
	unsigned int i;

	if (!got)
		got = shared_alloc(sizeof(int) * NR_BPF_CASES * NR_GOT);

	/* the child inherits vmlinux BTF and the map's BTF object: loading
	 * BTF needs privilege of its own
	 */
	CHECK(got, "mmap: errno %d", errno);
	CHECK_OK(sops_init());
	CHECK_OK(map_btf_fd());
	CHECK_OK(tca_member("ssthresh"));
	unpriv_bpf_enable(old, sizeof(old));
	if (test_failed)
		return;
	for (i = 0; i < NR_BPF_CASES; i++)
		if (run_as(bpf_cases[i].uid, bpf_cases[i].caps, try_all, got[i]))
			got[i][GOT_ARRAY] = -1;	/* could not drop privileges */
	CHECK_OK(sysctl_write(UNPRIV_BPF, old));

	for (i = 0; i < NR_BPF_CASES; i++) {
		const struct bpf_case *c = &bpf_cases[i];

		CHECK(got[i][GOT_ARRAY] == 0 && got[i][GOT_FILTER] == 0,
		      "%s: unprivileged BPF not enabled, or the child failed: "
		      "array map %d, socket filter %d",
		      c->who, got[i][GOT_ARRAY], got[i][GOT_FILTER]);
		CHECK(got[i][GOT_TCA_MAP] == c->map, "%s: tcp_congestion_ops map: %d, want %d",
		      c->who, got[i][GOT_TCA_MAP], c->map);
		CHECK(got[i][GOT_SOPS_MAP] == c->map, "%s: " SOPS " map: %d, want %d",
		      c->who, got[i][GOT_SOPS_MAP], c->map);
		CHECK(got[i][GOT_PROG] == c->prog, "%s: struct_ops program: %d, want %d",
		      c->who, got[i][GOT_PROG], c->prog);
	}
}

/*
 * With the JIT limit at 512 KiB, an unprivileged socket filter is JITed;
 * 128 struct_ops maps (a 4 KiB trampoline page each) fill the limit, and
 * the filter is refused: the kernel has no interpreter to fall back on
 * (CONFIG_BPF_JIT_ALWAYS_ON), so the load fails with ENOTSUPP. Once the
 * maps are freed the filter loads again: their pages were given back.
 */
#define JIT_MAPS 128
#ifndef ENOTSUPP
#define ENOTSUPP 524
#endif

/* ENOTSUPP does not fit an exit status: the child says it in *arg. */
static int load_socket_filter_into(void *arg)
{
	*(int *)arg = load_socket_filter(NULL);
	return 0;
}

/* The errno of an unprivileged socket filter's load, 0, or -1. */
static int unpriv_filter(void)
{
	static int *got;

	if (!got)
		got = shared_alloc(sizeof(*got));
	if (!got || run_as(NOBODY, 0, load_socket_filter_into, got))
		return -1;
	return *got;
}

/* Freeing a map or program gives its memory back after RCU: wait for it. */
static int unpriv_filter_loads_eventually(void)
{
	int err, tries;

	for (tries = 0; tries < 100; tries++) {
		err = unpriv_filter();
		if (!err)
			break;
		usleep(100 * 1000);
	}
	return err;
}

static void maps_count_against_jit_limit(void)
{
	int fds[JIT_MAPS], baseline, full, after = -1, made = 0, nmaps;
	char old_unpriv[16], old_limit[32];

	CHECK_OK(sops_init());
	CHECK_OK(map_btf_fd());
	unpriv_bpf_enable(old_unpriv, sizeof(old_unpriv));
	CHECK_OK(sysctl_read(JIT_LIMIT, old_limit, sizeof(old_limit)));
	CHECK_OK(sysctl_write(JIT_LIMIT, "524288"));

	baseline = unpriv_filter_loads_eventually();
	while (made < JIT_MAPS && (fds[made] = sops_create_map()) >= 0)
		made++;
	full = unpriv_filter();
	nmaps = made;
	while (made)
		close(fds[--made]);
	if (!baseline)
		after = unpriv_filter_loads_eventually();

	CHECK_OK(sysctl_write(JIT_LIMIT, old_limit));
	CHECK_OK(sysctl_write(UNPRIV_BPF, old_unpriv));
	CHECK(!baseline, "unprivileged filter under a 512 KiB JIT limit: errno %d", baseline);
	CHECK(nmaps == JIT_MAPS, "%d of %d struct_ops maps made: errno %d", nmaps, JIT_MAPS, errno);
	CHECK(full == ENOTSUPP, "with %d struct_ops maps filling the JIT limit, an unprivileged "
	      "filter loads: errno %d, want ENOTSUPP (%d)", JIT_MAPS, full, ENOTSUPP);
	CHECK(after == 0, "the maps are freed, but the filter still fails: errno %d", after);
}

/* setsockopt(TCP_CONGESTION) as each of these, in netns and userns of their own if asked. */
#define BPF_CC "bpf_priv"
#define ALL_BUT(c) (((1ULL << (CAP_LAST_CAP + 1)) - 1) & ~CAPS(c))

struct who {
	const char *name;
	uid_t uid;
	__u64 caps;
	int unshare;		/* CLONE_NEW* flags */
	int want[2];		/* not allowed, allowed */
};

static const struct who cc_table[] = {
	{ "root", SAME_UID, ALL_CAPS, 0, { 0, 0 } },
	{ "root without CAP_NET_ADMIN", SAME_UID, ALL_BUT(CAP_NET_ADMIN), 0, { EPERM, 0 } },
	{ "nobody", NOBODY, 0, 0, { EPERM, 0 } },
	{ "nobody with CAP_NET_ADMIN only", NOBODY, CAPS(CAP_NET_ADMIN), 0, { 0, 0 } },
};

/* CAP_NET_ADMIN counts in the user namespace owning the socket's netns */
static const struct who userns_table[] = {
	{ "nobody in its userns and netns", NOBODY, 0, CLONE_NEWUSER | CLONE_NEWNET, { 0, 0 } },
	{ "nobody in its userns, init netns", NOBODY, 0, CLONE_NEWUSER, { EPERM, 0 } },
};

struct select_arg {
	const struct who *who;
	const char *cc[2];	/* the BPF CC, the native one */
	int *got;		/* their results, in shared memory */
};

static int select_as(void *arg)
{
	struct select_arg *a = arg;
	int i;

	if (a->who->unshare && unshare(a->who->unshare))
		return errno;
	for (i = 0; i < 2; i++)
		a->got[i] = try_select_cc(a->cc[i]);
	return 0;
}

/* The BPF CC registered, a native one to compare with, the sysctl saved. */
struct cc_env {
	struct raw_cc r;
	bool registered;
	const char *native;
	char allowed[256], restricted[256];
};

/* A native CC other than the default, built in, restricted as it comes. */
static const char *pick_native(void)
{
	static const char * const natives[] = { "dctcp", "bbr" };
	unsigned int i;

	for (i = 0; i < ARRAY_LEN(natives); i++)
		if (sysctl_lists(AVAILABLE, natives[i]))
			return natives[i];
	return NULL;
}

/* list without the words a and b */
static void list_without(const char *list, const char *a, const char *b, char *out, size_t len)
{
	char buf[256], *w, *save;

	out[0] = '\0';
	snprintf(buf, sizeof(buf), "%s", list);
	for (w = strtok_r(buf, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		if (!strcmp(w, a) || !strcmp(w, b))
			continue;
		snprintf(out + strlen(out), len - strlen(out), "%s%s", out[0] ? " " : "", w);
	}
}

static void cc_env_up(struct cc_env *e)
{
	memset(e, 0, sizeof(*e));
	e->r.map = -1;
	e->native = pick_native();
	CHECK(e->native, "neither dctcp nor bbr available");
	CHECK_OK(sysctl_read(ALLOWED, e->allowed, sizeof(e->allowed)));
	list_without(e->allowed, e->native, BPF_CC, e->restricted, sizeof(e->restricted));
	CHECK_OK(raw_open(&e->r));
	raw_reset(&e->r, BPF_CC);
	CHECK_OK(raw_update(&e->r));
	e->registered = true;
}

static void cc_env_down(struct cc_env *e)
{
	if (e->allowed[0])
		sysctl_write(ALLOWED, e->allowed);
	if (e->registered)
		bpf_map_delete_elem(e->r.map, &(__u32){ 0 });
	if (e->r.map >= 0)
		raw_close(&e->r);
}

/* got[row][allowed][0: the BPF CC, 1: the native one], in shared memory */
static void run_table(struct cc_env *e, const struct who *t, int n, int (*got)[2][2])
{
	struct select_arg a = { .cc = { BPF_CC, e->native } };
	char list[300];
	int i, allowed, err;

	for (allowed = 0; allowed < 2; allowed++) {
		snprintf(list, sizeof(list), "%s %s %s", e->restricted, e->native, BPF_CC);
		CHECK_OK(sysctl_write(ALLOWED, allowed ? list : e->restricted));
		CHECK(sysctl_lists(ALLOWED, BPF_CC) == allowed, "allowed list: %s", list);
		for (i = 0; i < n; i++) {
			a.who = &t[i];
			a.got = got[i][allowed];
			err = run_as(t[i].uid, t[i].caps, select_as, &a);
			CHECK(!err, "%s: could not drop privileges or unshare: %d", t[i].name, err);
		}
	}
}

static void check_table(const struct cc_env *e, const struct who *t, int n, int (*got)[2][2])
{
	int i, allowed;

	for (i = 0; i < n; i++) {
		for (allowed = 0; allowed < 2; allowed++) {
			CHECK(got[i][allowed][0] == got[i][allowed][1],
			      "%s, %sallowed: " BPF_CC " %d, %s %d", t[i].name,
			      allowed ? "" : "not ", got[i][allowed][0], e->native,
			      got[i][allowed][1]);
			CHECK(got[i][allowed][0] == t[i].want[allowed],
			      "%s, %sallowed: %d, want %d", t[i].name, allowed ? "" : "not ",
			      got[i][allowed][0], t[i].want[allowed]);
		}
	}
}

/* A table's setsockopts, with a CC registered and the allowed list set
 * for them, then the list restored and the results checked.
 */
static void table_in_env(const struct who *t, int n, int (*got)[2][2])
{
	char restored[256] = "";
	struct cc_env e;

	cc_env_up(&e);
	if (!test_failed)
		run_table(&e, t, n, got);
	cc_env_down(&e);
	if (test_failed)
		return;
	CHECK_OK(sysctl_read(ALLOWED, restored, sizeof(restored)));
	CHECK_STR(restored, e.allowed);
	check_table(&e, t, n, got);
}

static void restricted_as_native(void)
{
	static int (*got)[2][2];

	if (!got)
		got = shared_alloc(sizeof(int) * 4 * ARRAY_LEN(cc_table));
	CHECK(got, "mmap: errno %d", errno);
	table_in_env(cc_table, ARRAY_LEN(cc_table), got);
}

/*
 * A netns other than init_net may not make a restricted CC its default:
 * the write fails with EPERM and holds nothing. Upstream 6.1 took a
 * reference on the CC before that check and kept it, so a BPF CC's map
 * refused this way could never be freed.
 */
#define NETNS_DEFAULT "/proc/sys/net/ipv4/tcp_congestion_control"
#define REFUSED_WRITES 8

/* EPERM if every write was refused with it, else the first other result. */
static int default_in_child_netns(void *arg)
{
	int i, err;

	if (unshare(CLONE_NEWNET))
		return errno;
	for (i = 0; i < REFUSED_WRITES; i++) {
		err = sysctl_write(NETNS_DEFAULT, BPF_CC);
		if (err != -EPERM)
			return -err;
	}
	return EPERM;
}

static void refused_netns_default_holds_nothing(void)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);
	struct cc_env e;
	int got = 0;

	cc_env_up(&e);
	if (!test_failed) {
		CHECK_OK(bpf_obj_get_info_by_fd(e.r.map, &info, &len));
		CHECK_OK(sysctl_write(ALLOWED, e.restricted));
		got = run_as(SAME_UID, ALL_CAPS, default_in_child_netns, NULL);
	}
	cc_env_down(&e);
	if (test_failed)
		return;
	CHECK(got == EPERM, "setting " BPF_CC " as a child netns' default: %d, want EPERM (%d)",
	      got, EPERM);
	CHECK(wait_id_gone(info.id, true), "map %u still held after %d refused writes of a "
	      "child netns' default, and unregistered", info.id, REFUSED_WRITES);
}

static int try_unshare(void *arg)
{
	return unshare(CLONE_NEWUSER | CLONE_NEWNET) ? errno : 0;
}

/* Debian's switch for unprivileged user namespaces */
#define USERNS_CLONE "/proc/sys/kernel/unprivileged_userns_clone"

static void userns_body(int (*got)[2][2])
{
	int err;

	err = run_as(NOBODY, 0, try_unshare, NULL);
	if (err)
		SKIP("nobody gets no user namespace: unshare(CLONE_NEWUSER | CLONE_NEWNET): %s",
		     err < 0 ? "child died" : strerror(err));
	table_in_env(userns_table, ARRAY_LEN(userns_table), got);
}

static void userns_netns_admin(void)
{
	static int (*got)[2][2];
	char old[16] = "";

	if (!got)
		got = shared_alloc(sizeof(int) * 4 * ARRAY_LEN(userns_table));

	CHECK(got, "mmap: errno %d", errno);
	if (access("/proc/self/ns/user", F_OK))
		SKIP("kernel without CONFIG_USER_NS (no /proc/self/ns/user)");
	/* on for the test, if this kernel has the switch */
	if (!sysctl_read(USERNS_CLONE, old, sizeof(old)))
		sysctl_write(USERNS_CLONE, "1");
	userns_body(got);
	if (old[0])
		sysctl_write(USERNS_CLONE, old);
}

TEST_MAIN(SUBTEST(bpf_needs_privilege), SUBTEST(maps_count_against_jit_limit),
	  SUBTEST(restricted_as_native), SUBTEST(refused_netns_default_holds_nothing),
	  SUBTEST(userns_netns_admin))
