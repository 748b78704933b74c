// SPDX-License-Identifier: GPL-2.0
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>

#include "net.h"
#include "sock.h"

int tcp_socket_cc(const char *cc)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	if (fd >= 0 && setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, cc, strlen(cc))) {
		int err = errno;

		close(fd);
		errno = err;
		return -1;
	}
	return fd;
}

int try_select_cc(const char *cc)
{
	int fd = tcp_socket_cc(cc), err = 0;
	char now[16];

	if (fd < 0)
		return errno;
	if (socket_cc(fd, now, sizeof(now)) || strcmp(now, cc))
		err = EPROTO;
	close(fd);
	return err;
}

int tcp_pair_open(struct tcp_pair *p, const char *cc)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	int lfd, err;

	p->server = -1;
	p->client = tcp_socket_cc(cc);
	/* both ends on cc: a CC that needs ECN gets it only from a listener
	 * on an ECN CC, and bpf_dctcp would fall back to cubic without it
	 */
	lfd = tcp_socket_cc(cc);
	if (p->client < 0 || lfd < 0 || bind(lfd, (void *)&a, sizeof(a)) ||
	    listen(lfd, 1) || getsockname(lfd, (void *)&a, &len) ||
	    connect(p->client, (void *)&a, sizeof(a)))
		goto fail;
	p->server = accept(lfd, NULL, NULL);
	len = sizeof(a);
	if (p->server < 0 || getsockname(p->client, (void *)&a, &len))
		goto fail;
	p->port = ntohs(a.sin_port);
	close(lfd);
	return 0;
fail:
	err = errno;
	if (lfd >= 0)
		close(lfd);
	tcp_pair_close(p);
	errno = err;
	return -1;
}

void tcp_pair_close(struct tcp_pair *p)
{
	if (p->client >= 0)
		close(p->client);
	if (p->server >= 0)
		close(p->server);
	p->client = p->server = -1;
}
