/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bpf_struct_ops_test, the registration test target (patch 0005): where
 * its members sit in a map value, maps and programs for it, and its
 * debugfs file, which plays the subsystem.
 */
#ifndef STRUCT_OPS_SOPS_H
#define STRUCT_OPS_SOPS_H

#include <linux/types.h>

#define SOPS "bpf_struct_ops_test"
#define SOPS_DEBUGFS "/sys/kernel/debug/bpf_struct_ops_test"

/* Byte offsets in the map value (bpf_struct_ops_bpf_struct_ops_test). */
struct sops_layout {
	int value_id;
	__u32 value_size, data;
	__u32 add, widths, touch, refused, name, flags, owner, reserved;
	int add_idx, widths_idx;
};
extern struct sops_layout sops;

/* Fill in sops from vmlinux BTF (once); 0 or -1. */
int sops_init(void);
int sops_create_map(void);
/* A program returning 5 for member index idx. */
int sops_load_member(int idx);
/* A valid value: add() = add_fd, the given name, flags 1. */
void sops_fill(void *v, int add_fd, const char *name);

/* Write a command to the debugfs file; 0 or -errno. */
int sops_cmd(const char *cmd);
/* One "key: value" line of its state, the value as text ("" if none). */
const char *sops_field(const char *key, char *buf, size_t size);

#endif
