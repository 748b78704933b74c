// SPDX-License-Identifier: GPL-2.0
/*
 * BPF_MAP_TYPE_STRUCT_OPS on bpf_struct_ops_test (the registration test
 * target): update (register), lookup, delete (unregister) and the
 * lifetime of a registered struct, with the exact errnos; the refusals
 * are in bad_input.c. The debugfs
 * file bpf_struct_ops_test plays the subsystem: it calls the registered
 * struct and holds references on it.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "lib/test.h"
#include "lib/sys.h"
#include "lib/insn.h"
#include "lib/kmsg.h"
#include "lib/sops.h"
#include "sops_test.skel.h"

#ifndef ENOTSUPP
#define ENOTSUPP 524
#endif

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
	char calls[32], bpf_ns[32], native_ns[32], batch[32], bpf_batch[64], native_batch[64];
	unsigned long long med, lo, hi;
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
	sops_field("bench_batch_calls", batch, sizeof(batch));
	sops_field("bench_bpf_batch_ns", bpf_batch, sizeof(bpf_batch));
	sops_field("bench_native_batch_ns", native_batch, sizeof(native_batch));
	bpf_link__destroy(link);
	sops_test__destroy(skel);
	CHECK(link, "skeleton load or attach failed: errno %d", errno);
	CHECK_EQ(ran, 0);
	CHECK_EQ(add_calls, 100000);
	CHECK_STR(calls, "100000");
	CHECK(atoll(bpf_ns) > 0 && atoll(native_ns) > 0, "bpf %s ns, native %s ns",
	      bpf_ns, native_ns);
	/* 100000 calls: 100 batches of 1000, each side's median, min, max */
	CHECK_STR(batch, "1000");
	CHECK(sscanf(bpf_batch, "%llu %llu %llu", &med, &lo, &hi) == 3 && lo <= med && med <= hi &&
	      lo > 0, "bench_bpf_batch_ns: %s", bpf_batch);
	CHECK(sscanf(native_batch, "%llu %llu %llu", &med, &lo, &hi) == 3 && lo <= med &&
	      med <= hi && lo > 0, "bench_native_batch_ns: %s", native_batch);
	CHECK_EQ(zero, -EINVAL);
	CHECK_EQ(junk, -EINVAL);
	CHECK_EQ(sops_cmd("bench 10"), -ENOENT);
}

/*
 * Upstream 6.1 unregisters whatever key BPF_MAP_DELETE_ELEM is given (the
 * map has one element), and reads a program slot's 8 bytes as an int fd,
 * so that 0x100000000 + fd is fd. User space may rely on both: kept.
 */
static void upstream_quirks_kept(void)
{
	int mfd = sops_create_map(), add_fd = sops_load_member(sops.add_idx);
	struct struct_ops_header h;
	char v[512], out[512];
	__u32 key = 7;

	CHECK(mfd >= 0 && add_fd >= 0, "errno %d", errno);
	sops_fill(v, add_fd, "sops_quirk");
	*(__u64 *)(v + sops.add) = (1ULL << 32) | add_fd;
	CHECK_OK(struct_ops_update(mfd, v));
	CHECK_OK(struct_ops_lookup(mfd, out));
	CHECK_EQ(*(__u64 *)(out + sops.add), prog_id(add_fd));
	CHECK_OK(bpf_map_delete_elem(mfd, &key));
	CHECK_OK(struct_ops_header(mfd, &h));
	CHECK_EQ(h.state, STATE_TOBEFREE);
	close(add_fd);
	close(mfd);
}

/*
 * bpf_struct_ops_test_wide's 64 six-argument members need more
 * trampoline than the page a map has: the registry refused the type when
 * it read vmlinux BTF, said so in the kernel log, and neither a map nor a
 * program of it can be made; nothing of it is left behind.
 */
#define WIDE "bpf_struct_ops_test_wide"

static void wide_type_refused(void)
{
	int kfd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK), mfd, pfd;
	int value_id = vmlinux_struct_id("bpf_struct_ops_" WIDE);
	char line[512], log[4096] = "";
	const char *need;

	CHECK(kfd >= 0, "/dev/kmsg: errno %d", errno);
	CHECK(kmsg_grep(kfd, "struct_ops: struct " WIDE ": its trampolines need [0-9]+ bytes, "
			"a map has 4096", line, sizeof(line)),
	      "no kernel log line refusing " WIDE);
	close(kfd);
	need = strstr(line, "need ");
	CHECK(need && atoi(need + 5) > 4096, "%s", line);

	CHECK(value_id > 0, "struct bpf_struct_ops_" WIDE " is not in vmlinux BTF");
	mfd = bpf_map_create(BPF_MAP_TYPE_STRUCT_OPS, "wide", 4,
			     btf__type_by_id(vmlinux_btf(), value_id)->size, 1,
			     &(struct bpf_map_create_opts){ .sz = sizeof(struct bpf_map_create_opts),
							     .btf_vmlinux_value_type_id = value_id });
	CHECK(mfd < 0 && errno == ENOTSUPP, "map of " WIDE ": fd %d errno %d", mfd, errno);
	pfd = load_trivial_prog(BPF_PROG_TYPE_STRUCT_OPS, vmlinux_struct_id(WIDE), 0, "GPL", 0,
				log, sizeof(log));
	CHECK(pfd < 0 && errno == ENOTSUPP, "program of " WIDE ": fd %d errno %d", pfd, errno);
	CHECK(strstr(log, "is not a supported struct"), "verifier log: %s", log);
	CHECK_EQ(struct_ops_left(true), 0);
}

TEST_MAIN(SUBTEST(register_lookup_delete), SUBTEST(reg_failure_leaves_init), SUBTEST(lifetime),
	  SUBTEST(skeleton_attach), SUBTEST(bench_command), SUBTEST(upstream_quirks_kept),
	  SUBTEST(wide_type_refused))
