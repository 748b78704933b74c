// SPDX-License-Identifier: GPL-2.0
/*
 * fentry and fexit on a congestion control's program, as on any BPF
 * program: the test points both at bpf_dctcp's in_ack_event program
 * with bpf_program__set_attach_target() and counts the calls.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char _license[] SEC("license") = "GPL";

__u64 entered, left;

/* a BPF_PROG() program takes the array of its arguments */
SEC("fentry/dctcp_in_ack_event")
int BPF_PROG(enter, unsigned long long *args)
{
	__sync_fetch_and_add(&entered, 1);
	return 0;
}

SEC("fexit/dctcp_in_ack_event")
int BPF_PROG(leave, unsigned long long *args)
{
	__sync_fetch_and_add(&left, 1);
	return 0;
}
