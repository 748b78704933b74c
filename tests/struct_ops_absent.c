// SPDX-License-Identifier: GPL-2.0
/*
 * The baseline: patch 0001 removed the base tree's struct_ops, so the
 * kernel must refuse both STRUCT_OPS types cleanly (an errno, no splat)
 * while the rest of BPF keeps working. This is the test that flips when
 * the series' own STRUCT_OPS core lands.
 */
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "lib/test.h"
#include "lib/sys.h"
#include "min_cc.skel.h"

/* BPF itself works: the refusals below are about struct_ops alone. */
static void bpf_works(void)
{
	char log[256];
	int fd;

	fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "sanity", 4, 8, 1, NULL);
	CHECK_OK(fd);
	close(fd);
	fd = load_trivial_prog(BPF_PROG_TYPE_SOCKET_FILTER, 0, 0, "GPL", 0,
			       log, sizeof(log));
	CHECK(fd >= 0, "socket filter load: errno %d, log: %s", errno, log);
	close(fd);
	CHECK(vmlinux_struct_id("tcp_congestion_ops") > 0, "no vmlinux BTF");
}

static void map_create_refused(void)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts);
	int id = vmlinux_struct_id("tcp_congestion_ops");

	CHECK(id > 0, "no tcp_congestion_ops in vmlinux BTF");
	opts.btf_vmlinux_value_type_id = id;
	CHECK_ERRNO(bpf_map_create(BPF_MAP_TYPE_STRUCT_OPS, "cc", 4, 256, 1, &opts),
		    EINVAL);
	CHECK_ERRNO(bpf_map_create(BPF_MAP_TYPE_STRUCT_OPS, "cc", 4, 256, 1, NULL),
		    EINVAL);
}

static void prog_load_refused(void)
{
	int id = vmlinux_struct_id("tcp_congestion_ops");
	int idx = vmlinux_member_index("tcp_congestion_ops", "ssthresh");
	char log[256];

	CHECK(id > 0 && idx >= 0, "no tcp_congestion_ops.ssthresh in vmlinux BTF");
	CHECK_ERRNO(load_trivial_prog(BPF_PROG_TYPE_STRUCT_OPS, id, idx, "GPL", 2,
				      log, sizeof(log)), EINVAL);
	/* refused before the verifier ran: nothing was logged */
	CHECK(log[0] == '\0', "unexpected verifier log: %s", log);
}

/* No "struct bpf_struct_ops_<name>" value types are emitted into BTF. */
static void no_value_types(void)
{
	CHECK_EQ(vmlinux_struct_id("bpf_struct_ops_tcp_congestion_ops"), -ENOENT);
	CHECK_EQ(vmlinux_struct_id("bpf_struct_ops_bpf_dummy_ops"), -ENOENT);
}

static void libbpf_probes_absent(void)
{
	CHECK_EQ(libbpf_probe_bpf_prog_type(BPF_PROG_TYPE_STRUCT_OPS, NULL), 0);
	CHECK_EQ(libbpf_probe_bpf_map_type(BPF_MAP_TYPE_STRUCT_OPS, NULL), 0);
}

static char libbpf_log[8192];

static int capture_libbpf(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	size_t n = strlen(libbpf_log);

	if (n < sizeof(libbpf_log) - 1)
		vsnprintf(libbpf_log + n, sizeof(libbpf_log) - n, fmt, ap);
	return 0;
}

/* What a user of libbpf sees: the object opens, loading it fails for
 * want of the map value type in the kernel's BTF.
 */
static void skeleton_load_fails(void)
{
	libbpf_print_fn_t old = libbpf_set_print(capture_libbpf);
	struct min_cc *skel = min_cc__open();
	int err;

	CHECK(skel, "open failed: errno %d", errno);
	err = min_cc__load(skel);
	min_cc__destroy(skel);
	libbpf_set_print(old);
	CHECK_EQ(err, -ENOENT);
	CHECK(strstr(libbpf_log, "struct bpf_struct_ops_tcp_congestion_ops is not found in kernel BTF"),
	      "libbpf said: %s", libbpf_log);
}

TEST_MAIN(SUBTEST(bpf_works), SUBTEST(map_create_refused),
	  SUBTEST(prog_load_refused), SUBTEST(no_value_types),
	  SUBTEST(libbpf_probes_absent), SUBTEST(skeleton_load_fails))
