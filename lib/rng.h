/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xorshift64*: a small deterministic PRNG, so that a seeded run (the
 * fuzzer's) makes the same choices every time.
 */
#ifndef STRUCT_OPS_RNG_H
#define STRUCT_OPS_RNG_H

#include <linux/types.h>

/* A seed of 0 would stay 0 forever: use a fixed odd one instead. */
static inline void rng_seed(__u64 *s, __u64 seed)
{
	*s = seed ? seed : 0x9e3779b97f4a7c15ULL;
}

static inline __u64 rng_next(__u64 *s)
{
	__u64 x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545f4914f6cdd1dULL;
}

/* Uniform enough in [0, n) for n far below 2^32; 0 if n is 0. */
static inline __u32 rng_below(__u64 *s, __u32 n)
{
	return n ? (__u32)((rng_next(s) >> 32) % n) : 0;
}

/* True one time in n. */
static inline int rng_one_in(__u64 *s, __u32 n)
{
	return rng_below(s, n) == 0;
}

#endif
