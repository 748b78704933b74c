// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "insn.h"
#include "sops.h"
#include "sys.h"

struct sops_layout sops;

static __u32 member_off(const struct btf_type *t, const char *name)
{
	const struct btf_member *m = btf_members(t);
	int i;

	for (i = 0; i < btf_vlen(t); i++, m++)
		if (!strcmp(btf__name_by_offset(vmlinux_btf(), m->name_off), name))
			return btf_member_bit_offset(t, i) / 8;
	return ~0u;
}

int sops_init(void)
{
	const struct btf_type *vt, *t;

	if (sops.value_size)
		return 0;
	sops.value_id = vmlinux_struct_id("bpf_struct_ops_" SOPS);
	if (sops.value_id < 0)
		return -1;
	vt = btf__type_by_id(vmlinux_btf(), sops.value_id);
	t = btf__type_by_id(vmlinux_btf(), vmlinux_struct_id(SOPS));
	sops.data = member_off(vt, "data");
	sops.add = sops.data + member_off(t, "add");
	sops.widths = sops.data + member_off(t, "widths");
	sops.touch = sops.data + member_off(t, "touch");
	sops.refused = sops.data + member_off(t, "refused");
	sops.name = sops.data + member_off(t, "name");
	sops.flags = sops.data + member_off(t, "flags");
	sops.owner = sops.data + member_off(t, "owner");
	sops.reserved = sops.data + member_off(t, "reserved");
	sops.add_idx = vmlinux_member_index(SOPS, "add");
	sops.widths_idx = vmlinux_member_index(SOPS, "widths");
	sops.value_size = vt->size;
	return 0;
}

int sops_create_map(void)
{
	return create_struct_ops_map(SOPS, NULL, NULL);
}

int sops_load_member(int idx)
{
	static const struct bpf_insn ret5[] = { I_MOV64_IMM(BPF_REG_0, 5), I_EXIT() };

	return load_prog(BPF_PROG_TYPE_STRUCT_OPS, ret5, 2, vmlinux_struct_id(SOPS),
			 idx, "GPL", NULL, 0);
}

void sops_fill(void *v, int add_fd, const char *name)
{
	memset(v, 0, sops.value_size);
	*(__u64 *)(v + sops.add) = add_fd;
	strcpy(v + sops.name, name);
	*(__u32 *)(v + sops.flags) = 1;
}

int sops_cmd(const char *cmd)
{
	int fd = open(SOPS_DEBUGFS, O_WRONLY), ret;

	if (fd < 0)
		return -errno;
	ret = write(fd, cmd, strlen(cmd)) < 0 ? -errno : 0;
	close(fd);
	return ret;
}

const char *sops_field(const char *key, char *buf, size_t size)
{
	char line[128];
	FILE *f = fopen(SOPS_DEBUGFS, "r");
	size_t n = strlen(key);

	buf[0] = '\0';
	if (!f)
		return buf;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, n) && line[n] == ':') {
			snprintf(buf, size, "%s", line + n + 2);
			buf[strcspn(buf, "\n")] = '\0';
		}
	fclose(f);
	return buf;
}
