// SPDX-License-Identifier: GPL-2.0
/*
 * BPF_MAP_TYPE_STRUCT_OPS on bpf_struct_ops_test (the registration test
 * target): create, update (register), lookup, delete (unregister) and the
 * lifetime of a registered struct, with the exact errnos. The debugfs
 * file bpf_struct_ops_test plays the subsystem: it calls the registered
 * struct and holds references on it.
 */
#define _GNU_SOURCE
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "lib/test.h"
#include "lib/sys.h"
#include "lib/insn.h"
#include "lib/sops.h"
#include "sops_test.skel.h"

#ifndef ENOTSUPP
#define ENOTSUPP 524
#endif

static void create_rules(void)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts);
	int fd;

	CHECK_OK(sops_init());
	opts.btf_vmlinux_value_type_id = sops.value_id;
	/* a map with BTF ids needs a btf_fd, even for a vmlinux value type */
	CHECK_ERRNO(bpf_map_create(BPF_MAP_TYPE_STRUCT_OPS, "m", 4, sops.value_size, 1, &opts), EINVAL);
	opts.btf_fd = map_btf_fd();
	CHECK_OK(opts.btf_fd);
	fd = bpf_map_create(BPF_MAP_TYPE_STRUCT_OPS, "m", 4, sops.value_size, 1, &opts);
	CHECK(fd >= 0, "good create: errno %d", errno);
	close(fd);
	CHECK_ERRNO(bpf_map_create(BPF_MAP_TYPE_STRUCT_OPS, "m", 8, sops.value_size, 1, &opts), EINVAL);
	CHECK_ERRNO(bpf_map_create(BPF_MAP_TYPE_STRUCT_OPS, "m", 4, sops.value_size, 2, &opts), EINVAL);
	CHECK_ERRNO(bpf_map_create(BPF_MAP_TYPE_STRUCT_OPS, "m", 4, sops.value_size - 8, 1, &opts), EINVAL);
	opts.map_flags = BPF_F_RDONLY;
	CHECK_ERRNO(bpf_map_create(BPF_MAP_TYPE_STRUCT_OPS, "m", 4, sops.value_size, 1, &opts), EINVAL);
	opts.map_flags = 0;
	/* a vmlinux type that is not a struct_ops value type */
	opts.btf_vmlinux_value_type_id = vmlinux_struct_id("tcp_sock");
	CHECK_ERRNO(bpf_map_create(BPF_MAP_TYPE_STRUCT_OPS, "m", 4, sops.value_size, 1, &opts), ENOTSUPP);
	/* no value type at all */
	CHECK_ERRNO(bpf_map_create(BPF_MAP_TYPE_STRUCT_OPS, "m", 4, sops.value_size, 1, NULL), EINVAL);
	/* the vmlinux value type is only for struct_ops maps */
	opts.btf_vmlinux_value_type_id = sops.value_id;
	CHECK_ERRNO(bpf_map_create(BPF_MAP_TYPE_ARRAY, "m", 4, sops.value_size, 1, &opts), EINVAL);
}

/* A struct_ops map cannot be the inner map of a map-in-map. */
static void not_an_inner_map(void)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts);
	int inner, outer;

	CHECK_OK(sops_init());
	inner = sops_create_map();
	CHECK(inner >= 0, "create: errno %d", errno);
	opts.inner_map_fd = inner;
	outer = bpf_map_create(BPF_MAP_TYPE_ARRAY_OF_MAPS, "outer", 4, 4, 1, &opts);
	close(inner);
	if (outer >= 0)
		close(outer);
	CHECK(outer < 0 && errno == ENOTSUPP, "outer map: %d errno %d", outer, errno);
}

/* Each bad update fails with its errno and leaves the map INIT. */
static void update_rules(void)
{
	int mfd, add_fd, widths_fd, dummy_fd, filter_fd, err = 0;
	char v[512], out[512];
	__u32 key = 1;

	CHECK_OK(sops_init());
	CHECK(sops.value_size <= sizeof(v), "value too big");
	mfd = sops_create_map();
	CHECK_OK(mfd);
	add_fd = sops_load_member(sops.add_idx);
	widths_fd = sops_load_member(sops.widths_idx);
	dummy_fd = load_prog(BPF_PROG_TYPE_STRUCT_OPS,
			     (struct bpf_insn[]){ I_MOV64_IMM(0, 0), I_EXIT() }, 2,
			     vmlinux_struct_id("bpf_dummy_ops"), 0, "GPL", NULL, 0);
	filter_fd = load_trivial_prog(BPF_PROG_TYPE_SOCKET_FILTER, 0, 0, "GPL", 0, NULL, 0);
	CHECK(add_fd >= 0 && widths_fd >= 0 && dummy_fd >= 0 && filter_fd >= 0,
	      "prog load: errno %d", errno);

#define BAD_UPDATE(what, errno_want, mutate)				\
	do {								\
		sops_fill(v, add_fd, "sops_u");			\
		mutate;							\
		errno = 0;						\
		if (struct_ops_update(mfd, v) == 0 || errno != (errno_want)) {	\
			test_fail(__FILE__, __LINE__, "%s: errno %d, want %d", \
				  what, errno, errno_want);		\
			err = 1;					\
		}							\
		if (struct_ops_lookup(mfd, out) || !all_zero(out, sops.value_size)) { \
			test_fail(__FILE__, __LINE__, "%s: map not left INIT", what); \
			err = 1;					\
		}							\
	} while (0)

	sops_fill(v, add_fd, "sops_u");
	errno = 0;
	if (bpf_map_update_elem(mfd, &key, v, 0) == 0 || errno != E2BIG)
		CHECK(0, "key 1: errno %d, want E2BIG", errno);
	key = 0;
	errno = 0;
	if (bpf_map_update_elem(mfd, &key, v, BPF_NOEXIST) == 0 || errno != EINVAL)
		CHECK(0, "flags: errno %d, want EINVAL", errno);
	BAD_UPDATE("refcnt set", EINVAL, *(int *)v = 1);
	BAD_UPDATE("state set", EINVAL, *(int *)(v + 4) = STATE_INUSE);
	BAD_UPDATE("value padding set", EINVAL, v[sops.data - 1] = 1);
	BAD_UPDATE("data padding set", EINVAL, v[sops.flags + 4] = 1);
	BAD_UPDATE("owner set", EINVAL, *(__u64 *)(v + sops.owner) = 1);
	BAD_UPDATE("plain data field set", EINVAL, *(__u64 *)(v + sops.reserved) = 1);
	BAD_UPDATE("empty name", EINVAL, v[sops.name] = 0);
	BAD_UPDATE("bad name char", EINVAL, v[sops.name] = '/');
	BAD_UPDATE("unterminated name", EINVAL, memset(v + sops.name, 'a', 16));
	BAD_UPDATE("unknown flag", EINVAL, *(__u32 *)(v + sops.flags) = 2);
	BAD_UPDATE("socket filter prog", EINVAL, *(__u64 *)(v + sops.add) = filter_fd);
	BAD_UPDATE("other struct's prog", EINVAL, *(__u64 *)(v + sops.add) = dummy_fd);
	BAD_UPDATE("other member's prog", EINVAL, *(__u64 *)(v + sops.add) = widths_fd);
	BAD_UPDATE("closed fd", EBADF, *(__u64 *)(v + sops.add) = 999);
	/* reg() refuses a struct without add(): after the trampolines were built */
	BAD_UPDATE("mandatory add missing", EINVAL,
		   (*(__u64 *)(v + sops.add) = 0, *(__u64 *)(v + sops.widths) = widths_fd));
#undef BAD_UPDATE

	/* after all that, a good update registers */
	if (!err) {
		sops_fill(v, add_fd, "sops_u");
		err = struct_ops_update(mfd, v) ? -errno : 0;
		if (!err)
			bpf_map_delete_elem(mfd, &key);
	}
	close(add_fd);
	close(widths_fd);
	close(dummy_fd);
	close(filter_fd);
	close(mfd);
	CHECK(!err, "good update after failed ones: %d", err);
}

static void register_lookup_delete(void)
{
	int mfd, add_fd, err;
	char v[512], out[512], buf[64];
	struct struct_ops_header h;
	__u32 key = 0, next;

	CHECK_OK(sops_init());
	mfd = sops_create_map();
	add_fd = sops_load_member(sops.add_idx);
	CHECK(mfd >= 0 && add_fd >= 0, "errno %d", errno);
	sops_fill(v, add_fd, "sops_reg");

	CHECK_ERRNO(bpf_map_delete_elem(mfd, &key), ENOENT);
	CHECK_OK(struct_ops_lookup(mfd, out));
	CHECK(all_zero(out, sops.value_size), "INIT lookup not zero");
	CHECK_OK(struct_ops_update(mfd, v));
	CHECK_STR(sops_field("registered", buf, sizeof(buf)), "sops_reg");
	CHECK_STR(sops_field("flags", buf, sizeof(buf)), "0x1");

	CHECK_OK(struct_ops_lookup(mfd, out));
	memcpy(&h, out, sizeof(h));
	CHECK_EQ(h.state, STATE_INUSE);
	CHECK_EQ(h.refcnt, 1);
	CHECK_EQ(*(__u64 *)(out + sops.add), prog_id(add_fd));
	CHECK_EQ(*(__u64 *)(out + sops.widths), 0);
	CHECK(!strcmp(out + sops.name, "sops_reg"), "name %s", out + sops.name);
	CHECK_EQ(*(__u32 *)(out + sops.flags), 1);

	CHECK_ERRNO(struct_ops_update(mfd, v), EBUSY);
	key = 1;
	CHECK_ERRNO(bpf_map_lookup_elem(mfd, &key, out), ENOENT);
	CHECK_OK(bpf_map_get_next_key(mfd, NULL, &next));
	CHECK_EQ(next, 0);
	key = 0;
	CHECK_ERRNO(bpf_map_get_next_key(mfd, &key, &next), ENOENT);
	CHECK_ERRNO(bpf_map_freeze(mfd), ENOTSUPP);

	CHECK_OK(sops_cmd("call"));
	CHECK_STR(sops_field("add", buf, sizeof(buf)), "5");
	/* this add() returns 5: timing it against a real add is refused */
	CHECK_EQ(sops_cmd("bench 1000"), -EDOM);

	CHECK_OK(bpf_map_delete_elem(mfd, &key));
	CHECK_STR(sops_field("registered", buf, sizeof(buf)), "-");
	CHECK_EQ(sops_cmd("call"), -ENOENT);
	CHECK_OK(struct_ops_lookup(mfd, out));
	memcpy(&h, out, sizeof(h));
	CHECK_EQ(h.state, STATE_TOBEFREE);
	CHECK_EQ(h.refcnt, 0);
	CHECK_EQ(*(__u64 *)(out + sops.add), prog_id(add_fd));
	CHECK_ERRNO(bpf_map_delete_elem(mfd, &key), EINPROGRESS);
	/* deleted is not INIT: it cannot be registered again */
	err = struct_ops_update(mfd, v);
	close(add_fd);
	close(mfd);
	CHECK(err < 0 && errno == EBUSY, "update after delete: %d errno %d", err, errno);
}

/* Only one bpf_struct_ops_test may be registered: reg() says -EEXIST
 * and the second map stays INIT, usable once the first is gone.
 */
static void reg_failure_leaves_init(void)
{
	int m1 = sops_create_map(), m2 = sops_create_map(), add_fd = sops_load_member(sops.add_idx);
	char v[512], out[512];
	__u32 key = 0;
	int err;

	CHECK(m1 >= 0 && m2 >= 0 && add_fd >= 0, "errno %d", errno);
	sops_fill(v, add_fd, "sops_one");
	CHECK_OK(struct_ops_update(m1, v));
	errno = 0;
	err = struct_ops_update(m2, v) ? errno : 0;
	struct_ops_lookup(m2, out);
	bpf_map_delete_elem(m1, &key);
	if (err == EEXIST && all_zero(out, sops.value_size))
		err = struct_ops_update(m2, v) ? -errno : 0;
	else
		err = err ? -1000 - err : -1;
	bpf_map_delete_elem(m2, &key);
	close(add_fd);
	close(m1);
	close(m2);
	CHECK(!err, "second registration: %d", err);
}

/*
 * The registration outlives the map fd; after delete the struct lives on
 * while a user holds it (TOBEFREE, refcnt = the holds), and the map and
 * its programs are freed only once the last holder lets go.
 */
static void lifetime(void)
{
	int mfd = sops_create_map(), add_fd = sops_load_member(sops.add_idx);
	__u32 mid, pid, key = 0;
	char v[512], buf[64];
	struct struct_ops_header h;

	CHECK(mfd >= 0 && add_fd >= 0, "errno %d", errno);
	mid = map_id(mfd);
	pid = prog_id(add_fd);
	sops_fill(v, add_fd, "sops_life");
	CHECK_OK(struct_ops_update(mfd, v));
	close(add_fd);
	close(mfd);

	/* nothing of user space holds it now, the registration does */
	CHECK_OK(sops_cmd("call"));
	CHECK_OK(sops_cmd("hold"));
	CHECK_OK(sops_cmd("hold"));
	mfd = bpf_map_get_fd_by_id(mid);
	CHECK_OK(mfd);
	CHECK_OK(struct_ops_header(mfd, &h));
	CHECK_EQ(h.refcnt, 3);
	CHECK_OK(bpf_map_delete_elem(mfd, &key));
	CHECK_OK(struct_ops_header(mfd, &h));
	CHECK_EQ(h.state, STATE_TOBEFREE);
	CHECK_EQ(h.refcnt, 2);
	close(mfd);
	CHECK_STR(sops_field("holds", buf, sizeof(buf)), "2");
	/* held: the map and the program are still there */
	mfd = bpf_map_get_fd_by_id(mid);
	CHECK_OK(mfd);
	close(mfd);
	mfd = bpf_prog_get_fd_by_id(pid);
	CHECK_OK(mfd);
	close(mfd);

	CHECK_OK(sops_cmd("release"));
	CHECK(wait_id_gone(mid, true), "map %u not freed after release", mid);
	CHECK(wait_id_gone(pid, false), "prog %u not freed after release", pid);
}

/* The way a user registers: a libbpf skeleton with SEC(".struct_ops"). */
static void skeleton_attach(void)
{
	struct sops_test *skel = sops_test__open_and_load();
	struct bpf_link *link;
	char buf[64], v_expect[32];
	__u64 want;

	CHECK(skel, "skeleton load failed: errno %d", errno);
	link = bpf_map__attach_struct_ops(skel->maps.sops);
	if (!link) {
		sops_test__destroy(skel);
		CHECK(0, "attach: errno %d", errno);
	}
	CHECK_STR(sops_field("registered", buf, sizeof(buf)), "sops_t1");
	CHECK_OK(sops_cmd("call"));
	CHECK_STR(sops_field("add", buf, sizeof(buf)), "5");
	CHECK_STR(sops_field("touch_out", buf, sizeof(buf)), "84");
	want = 0x81 + 0x8002 + 0x80000003ULL + 0x8000000000000004ULL - 5;
	snprintf(v_expect, sizeof(v_expect), "%#llx", (unsigned long long)want);
	CHECK_STR(sops_field("widths", buf, sizeof(buf)), v_expect);
	CHECK_EQ(skel->bss->add_calls, 1);
	CHECK_EQ(skel->bss->widths_calls, 1);
	CHECK_EQ(skel->bss->touch_calls, 1);
	CHECK_EQ(skel->bss->widths_args[0], 0x81);
	CHECK_EQ(skel->bss->widths_args[1], 0x8002);
	CHECK_EQ(skel->bss->widths_args[2], 0x80000003);
	CHECK_EQ(skel->bss->widths_args[3], 0x8000000000000004ULL);
	CHECK_EQ(skel->bss->widths_args[4], -5);
	bpf_link__destroy(link);
	CHECK_STR(sops_field("registered", buf, sizeof(buf)), "-");
	sops_test__destroy(skel);
}

/*
 * "bench N" calls the registered add() N times through its trampoline and
 * a native add() as often, and says how long each took.
 */
static void bench_command(void)
{
	struct sops_test *skel = sops_test__open_and_load();
	struct bpf_link *link = skel ? bpf_map__attach_struct_ops(skel->maps.sops) : NULL;
	char calls[32], bpf_ns[32], native_ns[32];
	int ran = -1, zero, junk;
	__u64 add_calls = 0;

	if (link) {
		ran = sops_cmd("bench 100000");
		add_calls = skel->bss->add_calls;
	}
	zero = sops_cmd("bench 0");
	junk = sops_cmd("bench x");
	sops_field("bench_calls", calls, sizeof(calls));
	sops_field("bench_bpf_ns", bpf_ns, sizeof(bpf_ns));
	sops_field("bench_native_ns", native_ns, sizeof(native_ns));
	bpf_link__destroy(link);
	sops_test__destroy(skel);
	CHECK(link, "skeleton load or attach failed: errno %d", errno);
	CHECK_EQ(ran, 0);
	CHECK_EQ(add_calls, 100000);
	CHECK_STR(calls, "100000");
	CHECK(atoll(bpf_ns) > 0 && atoll(native_ns) > 0, "bpf %s ns, native %s ns",
	      bpf_ns, native_ns);
	CHECK_EQ(zero, -EINVAL);
	CHECK_EQ(junk, -EINVAL);
	CHECK_EQ(sops_cmd("bench 10"), -ENOENT);
}

TEST_MAIN(SUBTEST(create_rules), SUBTEST(not_an_inner_map), SUBTEST(update_rules),
	  SUBTEST(register_lookup_delete), SUBTEST(reg_failure_leaves_init), SUBTEST(lifetime),
	  SUBTEST(skeleton_attach), SUBTEST(bench_command))
