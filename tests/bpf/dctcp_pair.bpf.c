// SPDX-License-Identifier: GPL-2.0
/*
 * The DCTCP of bpf/ registered under two names, bpf_dctcp and bpf_dctcp2,
 * with the same programs: with fallback_cc set to bpf_dctcp2, a peer
 * without ECN makes bpf_dctcp's init() switch to bpf_dctcp2, whose init()
 * tries to switch again and must get -EBUSY instead of recursing.
 */
#include "dctcp.bpf.c"

SEC(".struct_ops")
struct tcp_congestion_ops dctcp2 = {
	.init		= (void *)dctcp_init,
	.in_ack_event	= (void *)dctcp_in_ack_event,
	.cwnd_event	= (void *)dctcp_cwnd_event,
	.ssthresh	= (void *)dctcp_ssthresh,
	.cong_avoid	= (void *)dctcp_cong_avoid,
	.undo_cwnd	= (void *)dctcp_undo_cwnd,
	.set_state	= (void *)dctcp_set_state,
	.flags		= TCP_CONG_NEEDS_ECN,
	.name		= "bpf_dctcp2",
};
