// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "net.h"

#define CHUNK (64 * 1024)

/* The byte at offset off of every transfer. */
static unsigned char pattern(size_t off)
{
	return off % 251;
}

int socket_cc(int fd, char *name, size_t len)
{
	socklen_t l = len;

	memset(name, 0, len);
	return getsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, name, &l);
}

static int tcp_info(int fd, struct tcp_info *info)
{
	socklen_t l = sizeof(*info);

	return getsockopt(fd, IPPROTO_TCP, TCP_INFO, info, &l);
}

/* Move this thread into netns ns; the fd of the one it left, or -1. */
static int enter_netns(int ns)
{
	int self = open("/proc/thread-self/ns/net", O_RDONLY);

	if (self >= 0 && setns(ns, CLONE_NEWNET)) {
		close(self);
		return -1;
	}
	return self;
}

static void leave_netns(int self)
{
	setns(self, CLONE_NEWNET);
	close(self);
}

/* A TCP socket in netns ns (0: this thread's), with cc set if given. */
static int tcp_socket(int family, int ns, const char *cc)
{
	int self = -1, fd;

	if (ns) {
		self = enter_netns(ns);
		if (self < 0)
			return -1;
	}
	fd = socket(family, SOCK_STREAM, 0);
	if (ns)
		leave_netns(self);
	if (fd >= 0 && cc &&
	    setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, cc, strlen(cc))) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Where name is in a "TcpExt: name name ..." header line; -1 if absent. */
static int netstat_column(char *header, const char *name)
{
	char *save, *word;
	int col = 0;

	strtok_r(header, " \n", &save);	/* the group, "TcpExt:" */
	while ((word = strtok_r(NULL, " \n", &save))) {
		if (!strcmp(word, name))
			return col;
		col++;
	}
	return -1;
}

long netns_counter(int ns, const char *group, const char *name)
{
	char header[4096], values[4096], *save, *word;
	size_t glen = strlen(group);
	long value = -1;
	int self, col;
	FILE *f;

	self = enter_netns(ns);
	if (self < 0)
		return -1;
	f = fopen("/proc/thread-self/net/netstat", "r");
	leave_netns(self);
	if (!f)
		return -1;
	/* pairs of lines: the group's names, then its values */
	while (fgets(header, sizeof(header), f) && fgets(values, sizeof(values), f)) {
		if (strncmp(header, group, glen) || header[glen] != ':')
			continue;
		col = netstat_column(header, name);
		if (col < 0)
			break;
		strtok_r(values, " \n", &save);
		while ((word = strtok_r(NULL, " \n", &save)) && col--)
			;
		if (word)
			value = atol(word);
		break;
	}
	fclose(f);
	return value;
}

static int make_addr(const struct xfer *x, struct sockaddr_storage *ss,
		     socklen_t *len)
{
	const char *addr = x->addr;

	memset(ss, 0, sizeof(*ss));
	if (x->family == AF_INET6) {
		struct sockaddr_in6 *a = (void *)ss;

		a->sin6_family = AF_INET6;
		*len = sizeof(*a);
		return inet_pton(AF_INET6, addr ? addr : "::1", &a->sin6_addr) == 1 ? 0 : -1;
	} else {
		struct sockaddr_in *a = (void *)ss;

		a->sin_family = AF_INET;
		*len = sizeof(*a);
		return inet_pton(AF_INET, addr ? addr : "127.0.0.1", &a->sin_addr) == 1 ? 0 : -1;
	}
}

static void set_timeout(int fd, int opt, unsigned int seconds)
{
	struct timeval tv = { .tv_sec = seconds };

	if (seconds)
		setsockopt(fd, SOL_SOCKET, opt, &tv, sizeof(tv));
}

struct server {
	struct xfer *x;
	int lfd;
};

/* Accept one connection and read it to the end, checking every byte. */
static void *serve(void *arg)
{
	struct server *srv = arg;
	struct xfer *x = srv->x;
	static __thread unsigned char buf[CHUNK];
	ssize_t n, i;
	int fd, one = 1;

	fd = accept(srv->lfd, NULL, NULL);
	if (fd < 0) {
		if (!x->err) {	/* not the client's failure unblocking us */
			x->err = errno;
			x->failed = "accept";
		}
		return NULL;
	}
	socket_cc(fd, x->server_cc, sizeof(x->server_cc));
	set_timeout(fd, SO_RCVTIMEO, x->timeout_s);
	/* a signal (a child's SIGCHLD, say) is no end of the stream */
	while ((n = read(fd, buf, sizeof(buf))) > 0 || (n < 0 && errno == EINTR)) {
		if (n < 0)
			continue;
		for (i = 0; i < n && !x->unchecked; i++)
			if (buf[i] != pattern(x->received + i))
				x->corrupt = true;
		x->received += n;
		/* TCP drops quickack mode on its own: ask again each time */
		if (x->quickack)
			setsockopt(fd, IPPROTO_TCP, TCP_QUICKACK, &one, sizeof(one));
	}
	if (n < 0) {
		x->err = errno;
		x->failed = "read";
	}
	tcp_info(fd, &x->server_info);
	close(fd);
	return NULL;
}

static int send_all(struct xfer *x, int fd)
{
	/* per thread: transfers may run in several threads at once */
	static __thread unsigned char buf[CHUNK];
	size_t off = 0, len, i;
	bool midway_done = !x->midway;
	ssize_t n;

	while (off < x->bytes) {
		len = x->bytes - off < CHUNK ? x->bytes - off : CHUNK;
		for (i = 0; i < len && !x->unchecked; i++)
			buf[i] = pattern(off + i);
		for (i = 0; i < len; i += n) {
			n = write(fd, buf + i, len - i);
			if (n < 0 && errno == EINTR)
				n = 0;
			else if (n < 0)
				return -1;
		}
		off += len;
		if (!midway_done && off >= x->bytes / 2) {
			x->midway(x, fd);
			midway_done = true;
		}
		if (x->pace_us)
			usleep(x->pace_us);
	}
	return 0;
}

#define FAIL(step) do { x->err = errno; x->failed = step; goto out; } while (0)

int run_xfer(struct xfer *x)
{
	struct server srv = { .x = x, .lfd = -1 };
	struct sockaddr_storage ss;
	pthread_t thread;
	bool started = false;
	socklen_t len;
	int fd = -1;

	x->err = 0;
	x->received = 0;
	x->corrupt = false;
	if (make_addr(x, &ss, &len))
		FAIL("address");
	srv.lfd = tcp_socket(x->family, x->server_ns,
			     x->server_cc_set ? x->server_cc_set : x->cc);
	if (srv.lfd < 0)
		FAIL("listening socket");
	if (bind(srv.lfd, (void *)&ss, len) || listen(srv.lfd, 1) ||
	    getsockname(srv.lfd, (void *)&ss, &len))
		FAIL("listen");
	if (pthread_create(&thread, NULL, serve, &srv))
		FAIL("server thread");
	started = true;

	fd = tcp_socket(x->family, x->client_ns, x->cc);
	if (fd < 0)
		FAIL("client socket");
	if (connect(fd, (void *)&ss, len))
		FAIL("connect");
	socket_cc(fd, x->client_cc, sizeof(x->client_cc));
	set_timeout(fd, SO_SNDTIMEO, x->timeout_s);
	if (send_all(x, fd))
		FAIL("write");
	tcp_info(fd, &x->client_info);
	shutdown(fd, SHUT_WR);
out:
	if (started) {
		if (x->err)	/* unblock the server */
			shutdown(srv.lfd, SHUT_RDWR);
		pthread_join(thread, NULL);
	}
	/* the server read it all: what the client's CC is now is final */
	if (fd >= 0) {
		socket_cc(fd, x->client_cc_end, sizeof(x->client_cc_end));
		close(fd);
	}
	if (srv.lfd >= 0)
		close(srv.lfd);
	return -x->err;
}

int sysctl_read(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return -errno;
	n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = '\0';
	if (n && buf[n - 1] == '\n')
		buf[n - 1] = '\0';
	return 0;
}

int sysctl_write(const char *path, const char *value)
{
	FILE *f = fopen(path, "w");
	int err = 0;

	if (!f)
		return -errno;
	if (fputs(value, f) < 0)
		err = -errno;
	if (fclose(f) && !err)
		err = -errno;
	return err;
}

static bool word_in(const char *list, const char *name)
{
	size_t n = strlen(name);
	const char *p = list;

	while ((p = strstr(p, name))) {
		if ((p == list || p[-1] == ' ') && (p[n] == ' ' || !p[n]))
			return true;
		p += n;
	}
	return false;
}

bool sysctl_lists(const char *path, const char *name)
{
	char buf[1024];

	return !sysctl_read(path, buf, sizeof(buf)) && word_in(buf, name);
}

int modprobe_off(char *old, size_t len)
{
	int err = sysctl_read(MODPROBE, old, len);

	return err ? err : sysctl_write(MODPROBE, "\n");
}

int modprobe_restore(const char *old)
{
	return old[0] ? sysctl_write(MODPROBE, old) : 0;
}
