/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Running a check with fewer privileges: a forked child that takes
 * another uid and keeps only the capabilities it is given.
 */
#ifndef STRUCT_OPS_PRIV_H
#define STRUCT_OPS_PRIV_H

#include <stdbool.h>
#include <sys/types.h>
#include <linux/capability.h>
#include <linux/types.h>

#define CAPS(c) (1ULL << (c))
/* run_as()'s "as we are": no uid change, every capability kept */
#define SAME_UID ((uid_t)-1)
#define ALL_CAPS (~0ULL)
#define NOBODY 65534

/* Become uid (and gid uid) with only caps, effective and permitted;
 * ALL_CAPS (with SAME_UID) changes nothing.
 */
int drop_privileges(uid_t uid, __u64 caps);

/*
 * Run fn(arg) in a forked child dropped to uid and caps; fn returns 0 or
 * an errno (< 250). Returns what fn returned, or -1 if the child could not
 * drop its privileges or died.
 */
int run_as(uid_t uid, __u64 caps, int (*fn)(void *arg), void *arg);

/* Zeroed memory that run_as()'s children share with their parent, for
 * results that do not fit an exit status; NULL on failure.
 */
void *shared_alloc(size_t size);

#endif
