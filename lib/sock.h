/* SPDX-License-Identifier: GPL-2.0 */
/* Sockets that select a congestion control, and hold it while open. */
#ifndef STRUCT_OPS_SOCK_H
#define STRUCT_OPS_SOCK_H

/* An IPv4 TCP socket on congestion control cc; the fd, or -1 with errno. */
int tcp_socket_cc(const char *cc);

/* setsockopt(TCP_CONGESTION) on a new socket: 0 or the errno; on success
 * the socket must then report cc (else EPROTO).
 */
int try_select_cc(const char *cc);

/* A connected IPv4 loopback pair, both ends on congestion control cc. */
struct tcp_pair {
	int client, server;
	unsigned short port;	/* the client's */
};

/* 0, or -1 with errno and nothing left open. */
int tcp_pair_open(struct tcp_pair *p, const char *cc);
void tcp_pair_close(struct tcp_pair *p);

#endif
