// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
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
