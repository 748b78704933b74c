// SPDX-License-Identifier: GPL-2.0
/*
 * Is STRUCT_OPS there? Patch 0003 took the base tree's implementation out
 * and the series' own core put it back: both types are accepted, their
 * map value types are in BTF with upstream's layout and libbpf's probes
 * find them. (With patches 0001-0003 alone this test fails everywhere but in
 * bpf_works: that was the baseline.)
 */
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "lib/test.h"
#include "lib/sys.h"
#include "min_cc.skel.h"

/* BPF itself works. */
static void bpf_works(void)
{
	char log[256];
	int fd;

	fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "sanity", 4, 8, 1, NULL);
	CHECK(fd >= 0, "array map: errno %d", errno);
	close(fd);
	fd = load_trivial_prog(BPF_PROG_TYPE_SOCKET_FILTER, 0, 0, "GPL", 0,
			       log, sizeof(log));
	CHECK(fd >= 0, "socket filter load: errno %d, log: %s", errno, log);
	close(fd);
}

static const struct btf_member *member(const struct btf_type *t, const char *name)
{
	const struct btf_member *m = btf_members(t);
	int i;

	for (i = 0; i < btf_vlen(t); i++, m++)
		if (!strcmp(btf__name_by_offset(vmlinux_btf(), m->name_off), name))
			return m;
	return NULL;
}

/* struct bpf_struct_ops_<name> { refcnt; state; data on its own cache line } */
static void value_types_in_btf(void)
{
	const char *types[] = { "bpf_dummy_ops", "bpf_struct_ops_test",
				"tcp_congestion_ops" };
	char vname[64];
	unsigned int i;

	for (i = 0; i < 3; i++) {
		const struct btf_type *vt, *t;
		const struct btf_member *refcnt, *state, *data;
		int vid;

		snprintf(vname, sizeof(vname), "bpf_struct_ops_%s", types[i]);
		vid = vmlinux_struct_id(vname);
		CHECK(vid > 0, "no struct %s in vmlinux BTF", vname);
		vt = btf__type_by_id(vmlinux_btf(), vid);
		t = btf__type_by_id(vmlinux_btf(), vmlinux_struct_id(types[i]));
		refcnt = member(vt, "refcnt");
		state = member(vt, "state");
		data = member(vt, "data");
		CHECK(refcnt && state && data && btf_vlen(vt) == 3, "%s members", vname);
		CHECK_EQ(refcnt->offset, 0);
		CHECK_EQ(state->offset, 32);
		CHECK_EQ(data->offset, 64 * 8);
		CHECK_EQ(data->type, vmlinux_struct_id(types[i]));
		CHECK_EQ(vt->size, (64 + t->size + 63) / 64 * 64);
	}
}

/* upstream 6.1's three states, and mainline's READY (6.4+) for link maps */
static void state_enum_in_btf(void)
{
	static const char * const names[] = {
		"BPF_STRUCT_OPS_STATE_INIT", "BPF_STRUCT_OPS_STATE_INUSE",
		"BPF_STRUCT_OPS_STATE_TOBEFREE", "BPF_STRUCT_OPS_STATE_READY",
	};
	int id = btf__find_by_name_kind(vmlinux_btf(), "bpf_struct_ops_state", BTF_KIND_ENUM);
	const struct btf_type *t;
	const int n = sizeof(names) / sizeof(names[0]);
	const struct btf_enum *e;
	int i;

	CHECK(id > 0, "no enum bpf_struct_ops_state");
	t = btf__type_by_id(vmlinux_btf(), id);
	CHECK_EQ(btf_vlen(t), n);
	for (i = 0, e = btf_enum(t); i < n; i++, e++) {
		CHECK_STR(btf__name_by_offset(vmlinux_btf(), e->name_off), names[i]);
		CHECK_EQ(e->val, i);
	}
}

static void map_create_works(void)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);
	__u32 vsize;
	int vid, fd;

	fd = create_struct_ops_map("bpf_dummy_ops", &vid, &vsize);
	CHECK(fd >= 0, "create: errno %d", errno);
	CHECK_OK(bpf_obj_get_info_by_fd(fd, &info, &len));
	close(fd);
	CHECK_EQ(info.type, BPF_MAP_TYPE_STRUCT_OPS);
	CHECK_EQ(info.btf_vmlinux_value_type_id, vid);
	CHECK_EQ(info.value_size, vsize);
}

static void prog_load_works(void)
{
	int id = vmlinux_struct_id("bpf_dummy_ops");
	char log[256];
	int fd;

	fd = load_trivial_prog(BPF_PROG_TYPE_STRUCT_OPS, id, 0, "GPL", 0, log, sizeof(log));
	CHECK(fd >= 0, "errno %d, log: %s", errno, log);
	close(fd);
}

static void libbpf_probes_present(void)
{
	CHECK_EQ(libbpf_probe_bpf_prog_type(BPF_PROG_TYPE_STRUCT_OPS, NULL), 1);
	CHECK_EQ(libbpf_probe_bpf_map_type(BPF_MAP_TYPE_STRUCT_OPS, NULL), 1);
}

/* The smallest BPF congestion control loads and registers through libbpf. */
static void tcp_congestion_ops_registers(void)
{
	struct min_cc *skel = min_cc__open_and_load();
	struct bpf_link *link;

	CHECK(skel, "open_and_load: errno %d", errno);
	link = bpf_map__attach_struct_ops(skel->maps.min_cc);
	CHECK(link, "attach: errno %d", errno);
	bpf_link__destroy(link);
	min_cc__destroy(skel);
}

TEST_MAIN(SUBTEST(bpf_works), SUBTEST(value_types_in_btf), SUBTEST(state_enum_in_btf),
	  SUBTEST(map_create_works), SUBTEST(prog_load_works),
	  SUBTEST(libbpf_probes_present), SUBTEST(tcp_congestion_ops_registers))
