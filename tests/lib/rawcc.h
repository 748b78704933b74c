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

#endif
