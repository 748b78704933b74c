/* SPDX-License-Identifier: GPL-2.0 */
/* TCP transfers between two sockets of the guest, checked byte by byte. */
#ifndef STRUCT_OPS_NET_H
#define STRUCT_OPS_NET_H

#include <stdbool.h>
#include <stddef.h>
#include <netinet/in.h>
#include <linux/tcp.h>

struct xfer {
	/* what to do */
	int family;		/* AF_INET or AF_INET6 */
	const char *addr;	/* server address; default: loopback */
	const char *cc;		/* setsockopt(TCP_CONGESTION) on both ends */
	const char *server_cc_set; /* on the listener instead, if set */
	size_t bytes;
	int client_ns, server_ns; /* netns fds for the sockets, or 0 */
	unsigned int pace_us;	/* pause after each 64 KiB, to stretch it */
	bool quickack;		/* the receiver acks every segment at once */
	bool unchecked;		/* benchmarks: no pattern written or checked */
	unsigned int timeout_s;	/* give up a write or read stalled this long */
	/* called once, half-way through, with the client socket */
	void (*midway)(struct xfer *x, int fd);
	void *arg;

	/* what happened */
	int err;		/* 0, or the errno of the step that failed */
	const char *failed;	/* that step */
	size_t received;	/* bytes the server read, all as sent */
	bool corrupt;		/* a byte differed from what was sent */
	char client_cc[16], server_cc[16];	/* when connected */
	char client_cc_end[16];	/* the client's once the server read it all */
	struct tcp_info client_info, server_info;
};

/* Run one transfer client -> server; returns 0 or -errno (x->failed). */
int run_xfer(struct xfer *x);

/* The congestion control a socket uses. */
int socket_cc(int fd, char *name, size_t len);

/*
 * A counter of /proc/net/netstat in netns ns, as nstat names it without
 * the group: netns_counter(ns, "TcpExt", "TCPCAWatchdogFallback"); -1 if
 * there is none. Read in this process: an "ip netns exec nstat" costs the
 * debug guest seconds.
 */
long netns_counter(int ns, const char *group, const char *name);

/* Read or write a sysctl under /proc/sys; the value without newline. */
int sysctl_read(const char *path, char *buf, size_t len);
int sysctl_write(const char *path, const char *value);

#define AVAILABLE "/proc/sys/net/ipv4/tcp_available_congestion_control"
#define ALLOWED "/proc/sys/net/ipv4/tcp_allowed_congestion_control"

/* Whether a sysctl holding a list of names (AVAILABLE, ALLOWED) has name. */
bool sysctl_lists(const char *path, const char *name);

#define MODPROBE "/proc/sys/kernel/modprobe"

/*
 * setsockopt(TCP_CONGESTION) to a name nobody registered runs
 * "modprobe tcp_<name>" first (seconds in the guest under TCG); with
 * kernel.modprobe empty it fails at once. modprobe_off() empties it and
 * keeps the old path in old; modprobe_restore() puts it back.
 */
int modprobe_off(char *old, size_t len);
int modprobe_restore(const char *old);

#endif
