// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "priv.h"

static int capset_all(__u64 caps)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2] = {
		{ .effective = caps, .permitted = caps },
		{ .effective = caps >> 32, .permitted = caps >> 32 },
	};

	return syscall(SYS_capset, &h, d);
}

int drop_privileges(uid_t uid, __u64 caps)
{
	if (uid != SAME_UID) {
		/* keep the permitted set across the uid change, to pick from */
		if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) || setgroups(0, NULL) ||
		    setresgid(uid, uid, uid) || setresuid(uid, uid, uid))
			return -1;
	}
	if (caps == ALL_CAPS)
		return 0;
	return capset_all(caps);
}

int run_as(uid_t uid, __u64 caps, int (*fn)(void *arg), void *arg)
{
	int status;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0)
		_exit(drop_privileges(uid, caps) ? 255 : fn(arg));
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status) == 255)
		return -1;
	return WEXITSTATUS(status);
}

void *shared_alloc(size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}
