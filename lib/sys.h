/* SPDX-License-Identifier: GPL-2.0 */
/* Raw bpf(2) calls and vmlinux BTF lookups shared by the tests. */
#ifndef STRUCT_OPS_SYS_H
#define STRUCT_OPS_SYS_H

#include <linux/bpf.h>
#include <stdbool.h>
#include <stddef.h>
#include <bpf/btf.h>

int sys_bpf(enum bpf_cmd cmd, union bpf_attr *attr, unsigned int size);

/* vmlinux BTF, loaded once. */
struct btf *vmlinux_btf(void);
/* The id of a named struct in vmlinux BTF, or -ENOENT. */
int vmlinux_struct_id(const char *name);
/* The index of a named member of a vmlinux struct, or -ENOENT. */
int vmlinux_member_index(const char *struct_name, const char *member);

/* Byte offset (and size) of a field of a vmlinux struct, found by name
 * through nested structs; path may name nested fields, "a.b".
 */
int vmlinux_field(const char *struct_name, const char *path, __u32 *off,
		  __u32 *size);

/* A BTF object to pass as btf_fd: map_create insists on one whenever a
 * map has BTF ids, vmlinux value types included. Loaded once.
 */
int map_btf_fd(void);

/* A struct_ops map for the struct_ops type named tname, with its value
 * type's id and size in *value_id and *value_size (may be NULL).
 */
int create_struct_ops_map(const char *tname, int *value_id, __u32 *value_size);

/* Load insns as prog_type with the given attach attributes; the
 * verifier log, if any, lands in log.
 */
int load_prog(enum bpf_prog_type type, const struct bpf_insn *insns,
	      unsigned int insn_cnt, __u32 attach_btf_id,
	      __u32 expected_attach_type, const char *license,
	      char *log, size_t log_size);

/* load_prog() of "r0 = ret; exit" */
int load_trivial_prog(enum bpf_prog_type type, __u32 attach_btf_id,
		      __u32 expected_attach_type, const char *license,
		      int ret, char *log, size_t log_size);

/* The header every struct_ops map value starts with, and its states. */
enum { STATE_INIT, STATE_INUSE, STATE_TOBEFREE, STATE_READY };
struct struct_ops_header {
	__u32 refcnt;
	__u32 state;
};

/* Update or look up element 0 of a struct_ops map; 0 or -1 with errno. */
int struct_ops_update(int map_fd, const void *value);
int struct_ops_lookup(int map_fd, void *value);
/* The header of element 0; 0 or -errno. */
int struct_ops_header(int map_fd, struct struct_ops_header *h);

/* The id of the map or program behind fd, 0 if it has none. */
__u32 map_id(int fd);
__u32 prog_id(int fd);
/* Whether a map (or program) id still names a live object. */
bool id_exists(__u32 id, bool is_map);
/* Wait up to 10 s for an id to go (freeing waits for RCU); true if gone. */
bool wait_id_gone(__u32 id, bool is_map);

/* The id of a struct_ops map (or program) still in the kernel, 0 if none. */
__u32 struct_ops_left(bool is_map);

bool all_zero(const void *p, size_t n);

#endif
