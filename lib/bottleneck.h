/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An ECN-marking bottleneck between two network namespaces over veth:
 * so_snd (10.77.0.1) sends through a 10 Mbit/s HTB whose fq_codel marks
 * CE on every packet queued over 1 ms, DCTCP-style; so_rcv
 * (BOTTLENECK_RCV) is 2 ms away.
 */
#ifndef STRUCT_OPS_BOTTLENECK_H
#define STRUCT_OPS_BOTTLENECK_H

#include <stddef.h>

#define BOTTLENECK_RCV "10.77.0.2"

/* Set it up afresh; fds of the sender's and receiver's netns. 0 or -1. */
int bottleneck_up(int *snd, int *rcv);
/* Remove it (also at exit, once it was up). */
void bottleneck_teardown(void);
/* Packets it marked CE so far, -1 if tc cannot tell; tc's statistics
 * in stats, for a failure message.
 */
long bottleneck_ce_marked(char *stats, size_t size);

#endif
