// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <bpf/bpf.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

#include "sys.h"

int sys_bpf(enum bpf_cmd cmd, union bpf_attr *attr, unsigned int size)
{
	return syscall(__NR_bpf, cmd, attr, size);
}

struct btf *vmlinux_btf(void)
{
	static struct btf *btf;

	if (!btf)
		btf = btf__load_vmlinux_btf();
	return btf;
}

int vmlinux_struct_id(const char *name)
{
	struct btf *btf = vmlinux_btf();

	if (!btf)
		return -ENOENT;
	return btf__find_by_name_kind(btf, name, BTF_KIND_STRUCT);
}

int vmlinux_member_index(const char *struct_name, const char *member)
{
	int id = vmlinux_struct_id(struct_name);
	const struct btf_type *t;
	const struct btf_member *m;
	int i;

	if (id < 0)
		return id;
	t = btf__type_by_id(vmlinux_btf(), id);
	m = btf_members(t);
	for (i = 0; i < btf_vlen(t); i++, m++)
		if (!strcmp(btf__name_by_offset(vmlinux_btf(), m->name_off), member))
			return i;
	return -ENOENT;
}

int map_btf_fd(void)
{
	static int fd = -1;
	struct btf *btf;

	if (fd >= 0)
		return fd;
	btf = btf__new_empty();
	if (!btf)
		return -errno;
	btf__add_int(btf, "int", 4, BTF_INT_SIGNED);
	if (!btf__load_into_kernel(btf))
		fd = btf__fd(btf);
	return fd;
}

int create_struct_ops_map(const char *tname, int *value_id, __u32 *value_size)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts, .btf_fd = map_btf_fd());
	const struct btf_type *vt;
	char vname[128];
	int vid;

	snprintf(vname, sizeof(vname), "bpf_struct_ops_%s", tname);
	vid = vmlinux_struct_id(vname);
	if (vid < 0)
		return vid;
	vt = btf__type_by_id(vmlinux_btf(), vid);
	if (value_id)
		*value_id = vid;
	if (value_size)
		*value_size = vt->size;
	opts.btf_vmlinux_value_type_id = vid;
	return bpf_map_create(BPF_MAP_TYPE_STRUCT_OPS, tname, 4, vt->size, 1, &opts);
}

int load_prog(enum bpf_prog_type type, const struct bpf_insn *insns,
	      unsigned int insn_cnt, __u32 attach_btf_id,
	      __u32 expected_attach_type, const char *license,
	      char *log, size_t log_size)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.prog_type = type;
	attr.insns = (__u64)(unsigned long)insns;
	attr.insn_cnt = insn_cnt;
	attr.license = (__u64)(unsigned long)license;
	attr.attach_btf_id = attach_btf_id;
	attr.expected_attach_type = expected_attach_type;
	if (log && log_size) {
		log[0] = '\0';
		attr.log_buf = (__u64)(unsigned long)log;
		attr.log_size = log_size;
		attr.log_level = 1;
	}
	return sys_bpf(BPF_PROG_LOAD, &attr, sizeof(attr));
}

int load_trivial_prog(enum bpf_prog_type type, __u32 attach_btf_id,
		      __u32 expected_attach_type, const char *license,
		      int ret, char *log, size_t log_size)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = ret },
		{ .code = BPF_JMP | BPF_EXIT },
	};

	return load_prog(type, insns, 2, attach_btf_id, expected_attach_type,
			 license, log, log_size);
}

/* Depth-first search of t's members, through nested structs and unions. */
static int find_member(const struct btf_type *t, const char *name, __u32 base,
		       __u32 *off, __u32 *type_id)
{
	struct btf *btf = vmlinux_btf();
	const struct btf_member *m = btf_members(t);
	int i;

	for (i = 0; i < btf_vlen(t); i++, m++) {
		const struct btf_type *mt = btf__type_by_id(btf, m->type);
		__u32 moff = base + btf_member_bit_offset(t, i) / 8;

		if (!strcmp(btf__name_by_offset(btf, m->name_off), name)) {
			*off = moff;
			*type_id = m->type;
			return 0;
		}
		while (btf_is_mod(mt) || btf_is_typedef(mt))
			mt = btf__type_by_id(btf, mt->type);
		if ((btf_is_struct(mt) || btf_is_union(mt)) &&
		    !find_member(mt, name, moff, off, type_id))
			return 0;
	}
	return -ENOENT;
}

int vmlinux_field(const char *struct_name, const char *path, __u32 *off,
		  __u32 *size)
{
	int id = vmlinux_struct_id(struct_name);
	char buf[128], *part, *save;
	const struct btf_type *t;
	__u32 type_id, base = 0;

	if (id < 0)
		return id;
	t = btf__type_by_id(vmlinux_btf(), id);
	snprintf(buf, sizeof(buf), "%s", path);
	for (part = strtok_r(buf, ".", &save); part; part = strtok_r(NULL, ".", &save)) {
		if (find_member(t, part, base, &base, &type_id))
			return -ENOENT;
		t = btf__type_by_id(vmlinux_btf(), btf__resolve_type(vmlinux_btf(), type_id));
	}
	*off = base;
	if (size)
		*size = btf__resolve_size(vmlinux_btf(), type_id);
	return 0;
}

int struct_ops_update(int map_fd, const void *value)
{
	__u32 zero = 0;

	return bpf_map_update_elem(map_fd, &zero, value, 0);
}

int struct_ops_lookup(int map_fd, void *value)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(map_fd, &zero, value);
}

int struct_ops_header(int map_fd, struct struct_ops_header *h)
{
	char value[4096];

	if (struct_ops_lookup(map_fd, value))
		return -errno;
	memcpy(h, value, sizeof(*h));
	return 0;
}

__u32 map_id(int fd)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);

	return bpf_obj_get_info_by_fd(fd, &info, &len) ? 0 : info.id;
}

__u32 prog_id(int fd)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);

	return bpf_obj_get_info_by_fd(fd, &info, &len) ? 0 : info.id;
}

bool id_exists(__u32 id, bool is_map)
{
	int fd = is_map ? bpf_map_get_fd_by_id(id) : bpf_prog_get_fd_by_id(id);

	if (fd < 0)
		return errno != ENOENT;
	close(fd);
	return true;
}

bool wait_id_gone(__u32 id, bool is_map)
{
	struct timespec ts = { 0, 50 * 1000 * 1000 };
	int i;

	for (i = 0; i < 200; i++) {
		if (!id_exists(id, is_map))
			return true;
		nanosleep(&ts, NULL);
	}
	return false;
}

static bool is_struct_ops(int fd, bool is_map)
{
	struct bpf_map_info minfo = {};
	struct bpf_prog_info pinfo = {};
	__u32 len = is_map ? sizeof(minfo) : sizeof(pinfo);

	if (is_map)
		return !bpf_obj_get_info_by_fd(fd, &minfo, &len) &&
		       minfo.type == BPF_MAP_TYPE_STRUCT_OPS;
	return !bpf_obj_get_info_by_fd(fd, &pinfo, &len) &&
	       pinfo.type == BPF_PROG_TYPE_STRUCT_OPS;
}

__u32 struct_ops_left(bool is_map)
{
	__u32 id = 0;
	bool found;
	int fd;

	while (!(is_map ? bpf_map_get_next_id(id, &id) : bpf_prog_get_next_id(id, &id))) {
		fd = is_map ? bpf_map_get_fd_by_id(id) : bpf_prog_get_fd_by_id(id);
		if (fd < 0)
			continue;
		found = is_struct_ops(fd, is_map);
		close(fd);
		if (found)
			return id;
	}
	return 0;
}

bool all_zero(const void *p, size_t n)
{
	const unsigned char *c = p;

	while (n--)
		if (*c++)
			return false;
	return true;
}
