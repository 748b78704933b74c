/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A tcp_congestion_ops registered by hand: a raw struct_ops map, trivial
 * programs for the mandatory ops, and a value filled in member by member,
 * for what libbpf cannot express (bad values, many copies of one CC).
 */
#ifndef STRUCT_OPS_RAWCC_H
#define STRUCT_OPS_RAWCC_H

#include <linux/types.h>

#define TCA "tcp_congestion_ops"

/* The index of a member of tcp_congestion_ops (expected_attach_type). */
int tca_member(const char *name);

/* A raw struct_ops map of tcp_congestion_ops and a value to fill in. */
struct raw_cc {
	int map;
	__u32 vsize, data;
	char value[4096];
	int ssthresh, undo, cong_avoid, cong_control;
};

/* Create the map and load the programs; 0 or -1. */
int raw_open(struct raw_cc *r);
/* raw_open() step by step: the map (r zeroed first), then the programs. */
int raw_open_map(struct raw_cc *r);
int raw_load_progs(struct raw_cc *r);
void raw_close(struct raw_cc *r);
/* The value of a complete congestion control named name. */
void raw_reset(struct raw_cc *r, const char *name);
/* Set function-pointer member m to prog fd (0: none), or member m's bytes. */
void raw_put_prog(struct raw_cc *r, const char *m, int fd);
void raw_put_bytes(struct raw_cc *r, const char *m, const void *p, size_t n);
/* Update element 0 with the value (register); 0 or -1 with errno. */
int raw_update(struct raw_cc *r);
/* The map's state (0 INIT, 1 INUSE, 2 TOBEFREE), ~0U if lookup failed. */
__u32 raw_state(struct raw_cc *r);

/* Program ids: ssthresh, undo_cwnd, cong_avoid, cong_control (0: none). */
#define RAW_NPROGS 4
/* Those of r's program fds. */
void raw_prog_ids(const struct raw_cc *r, __u32 ids[RAW_NPROGS]);
/* Those a registered map's value holds, read back; 0 or -errno. */
int raw_value_prog_ids(int map_fd, __u32 ids[RAW_NPROGS]);

#endif
