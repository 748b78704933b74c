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
	const char *argv[] = { b->tool, "-n", b->ns, "-batch", "-", NULL };
	int pipefd[2], status;
	pid_t pid;

	if (!b->ns)		/* no "-n NS" */
		memmove(&argv[1], &argv[3], 3 * sizeof(argv[0]));
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
		if (run_batch(steps)) {
			fprintf(stderr, "failed: %s%s%s -batch of '%s' ...\n", steps->tool,
				steps->ns ? " -n " : "", steps->ns ? steps->ns : "",
				steps->lines[0]);
			return -1;
		}
	}
	return 0;
}

void netns_delete(const char *name)
{
	char path[128];

	snprintf(path, sizeof(path), "/run/netns/%s", name);
	umount2(path, MNT_DETACH);
	unlink(path);
}
