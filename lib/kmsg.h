/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Watch the kernel log from a test: a splat (what tools/splat-scan looks
 * for in the console log) seen right after the operation that caused it.
 */
#ifndef STRUCT_OPS_KMSG_H
#define STRUCT_OPS_KMSG_H

#include <stdbool.h>
#include <stddef.h>

/* /dev/kmsg, positioned after what is already logged; -1 on failure. */
int kmsg_open(void);
/* Read what was logged since; true and the first splat line in line if
 * there was one. Never blocks.
 */
bool kmsg_splat(int fd, char *line, size_t size);
/* The same for the first line matching the extended regex pattern. */
bool kmsg_grep(int fd, const char *pattern, char *line, size_t size);

#endif
