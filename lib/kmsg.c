// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <regex.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "kmsg.h"

/* tools/splat-scan's pattern: keep the two in step */
static const char splat_pattern[] =
	"Kernel panic|Oops|kernel BUG at|BUG: |WARNING: CPU: "
	"|WARNING: (possible|inconsistent|suspicious|bad unlock|lock held|held lock|at )"
	"|general protection fault"
	"|KASAN|kmemleak: [0-9]+ new suspected|unreferenced object 0x"
	"|possible circular locking|possible recursive locking|inconsistent lock state"
	"|suspicious RCU usage|lock held when returning|UBSAN:|refcount_t: "
	"|list_add corruption|list_del corruption|ODEBUG: |rcu_sched self-detected stall"
	"|detected stall|INFO: task .* blocked";

int kmsg_open(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);

	if (fd >= 0)
		lseek(fd, 0, SEEK_END);
	return fd;
}

/* Read every record logged since; the first whose message matches re. */
static bool kmsg_scan(int fd, const regex_t *re, char *line, size_t size)
{
	char rec[8192], *msg;
	bool found = false;
	ssize_t n;

	for (;;) {
		n = read(fd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)	/* overwritten before we read it */
			continue;
		if (n <= 0)
			break;
		rec[n] = '\0';
		/* "prio,seq,time,flags;message\n" then " KEY=value" lines */
		msg = strchr(rec, ';');
		msg = msg ? msg + 1 : rec;
		msg[strcspn(msg, "\n")] = '\0';
		if (!found && !regexec(re, msg, 0, NULL, 0)) {
			snprintf(line, size, "%s", msg);
			found = true;
		}
	}
	return found;
}

bool kmsg_splat(int fd, char *line, size_t size)
{
	static regex_t re;
	static bool compiled;

	if (!compiled && regcomp(&re, splat_pattern, REG_EXTENDED | REG_NOSUB))
		return false;
	compiled = true;
	return kmsg_scan(fd, &re, line, size);
}

bool kmsg_grep(int fd, const char *pattern, char *line, size_t size)
{
	regex_t re;
	bool found;

	if (regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB))
		return false;
	found = kmsg_scan(fd, &re, line, size);
	regfree(&re);
	return found;
}
