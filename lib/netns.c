// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include "netns.h"

static void write_lines(int fd, const char * const *lines)
{
	for (; *lines; lines++)
		if (write(fd, *lines, strlen(*lines)) < 0 || write(fd, "\n", 1) < 0)
			return;
}

static int run_batch(const struct netns_batch *b)
{
	const char *argv[6];
	int pipefd[2], status, n = 0;
	pid_t pid;

	argv[n++] = b->tool;
	if (b->ns) {
		argv[n++] = "-n";
		argv[n++] = b->ns;
	}
	argv[n++] = "-batch";
	argv[n++] = "-";
	argv[n] = NULL;
	if (pipe(pipefd))
		return -1;
	pid = fork();
	if (pid < 0) {
		close(pipefd[0]);
		close(pipefd[1]);
		return -1;
	}
	if (!pid) {
		dup2(pipefd[0], STDIN_FILENO);
		close(pipefd[0]);
		close(pipefd[1]);
		execvp(b->tool, (char * const *)argv);
		_exit(127);
	}
	close(pipefd[0]);
	write_lines(pipefd[1], b->lines);
	close(pipefd[1]);
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : -1;
}

int netns_setup(const struct netns_batch *steps)
{
	for (; steps->tool; steps++) {
		if (!steps->lines)
			continue;
		if (run_batch(steps)) {
			fprintf(stderr, "failed: %s%s%s -batch of '%s' ...\n", steps->tool,
				steps->ns ? " -n " : "", steps->ns ? steps->ns : "",
				steps->lines[0]);
			return -1;
		}
	}
	return 0;
}

int netns_veth_path(const struct veth_path *p)
{
	char add_snd[64], add_rcv[64], link[192];
	char snd_addr[96], rcv_addr[96], snd_up[128], rcv_up[128];
	const char *root[] = { add_snd, add_rcv, link, NULL };
	const char *snd[] = { snd_addr, snd_up, "link set lo up", NULL };
	const char *rcv[] = { rcv_addr, rcv_up, "link set lo up", NULL };
	const struct netns_batch steps[] = {
		{ "ip", NULL, root },
		{ "ip", p->snd_ns, snd },
		{ "ip", p->rcv_ns, rcv },
		{ "tc", p->snd_ns, p->snd_tc },
		{ "tc", p->rcv_ns, p->rcv_tc },
		{ NULL },
	};

	snprintf(add_snd, sizeof(add_snd), "netns add %s", p->snd_ns);
	snprintf(add_rcv, sizeof(add_rcv), "netns add %s", p->rcv_ns);
	snprintf(link, sizeof(link), "link add %s netns %s type veth peer name %s netns %s",
		 p->snd_dev, p->snd_ns, p->rcv_dev, p->rcv_ns);
	snprintf(snd_addr, sizeof(snd_addr), "addr add %s dev %s", p->snd_addr, p->snd_dev);
	snprintf(rcv_addr, sizeof(rcv_addr), "addr add %s dev %s", p->rcv_addr, p->rcv_dev);
	snprintf(snd_up, sizeof(snd_up), "link set %s up %s", p->snd_dev, p->link_opts);
	snprintf(rcv_up, sizeof(rcv_up), "link set %s up %s", p->rcv_dev, p->link_opts);
	return netns_setup(steps);
}

void netns_delete(const char *name)
{
	char path[128];

	snprintf(path, sizeof(path), "/run/netns/%s", name);
	umount2(path, MNT_DETACH);
	unlink(path);
}
