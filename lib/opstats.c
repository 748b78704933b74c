// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "opstats.h"

void opstat_add(struct opstat *s, int err)
{
	if (err < 0 || err >= OPSTAT_ERRNOS)
		err = OPSTAT_ERRNOS - 1;
	__atomic_add_fetch(&s->total, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&s->by_errno[err], 1, __ATOMIC_RELAXED);
}

const char *opstat_format(const struct opstat *s, char *buf, size_t size)
{
	const char *sep = "";
	size_t n;
	int e;

	n = snprintf(buf, size, "%s %lu (", s->name, s->total);
	for (e = 0; e < OPSTAT_ERRNOS && n < size; e++) {
		const char *name = e ? strerrorname_np(e) : "ok";

		if (!s->by_errno[e])
			continue;
		if (name)
			n += snprintf(buf + n, size - n, "%s%s %lu", sep, name, s->by_errno[e]);
		else
			n += snprintf(buf + n, size - n, "%sE%d %lu", sep, e, s->by_errno[e]);
		sep = ", ";
	}
	if (n < size)
		snprintf(buf + n, size - n, ")");
	return buf;
}
