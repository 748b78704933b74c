/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A BPF congestion control from build/tests/<obj>.bpf.o, driven through
 * libbpf as a user would: open and load, attach (register), detach.
 */
#ifndef STRUCT_OPS_CC_H
#define STRUCT_OPS_CC_H

#include <stddef.h>
#include <bpf/libbpf.h>

struct bpf_cc {
	struct bpf_object *obj;
	struct bpf_map *ops;	/* its struct_ops map */
	struct bpf_link *link;	/* while registered */
	const char *name;	/* the name TCP knows it by */
};

/* Open and load (verify) obj's programs; 0 or -errno. */
int cc_open(struct bpf_cc *cc, const char *obj, const char *name);
/* cc_open() with the const volatile global var set to val before the
 * load, so that the verifier sees its value (and prunes what it rules out).
 */
int cc_open_const(struct bpf_cc *cc, const char *obj, const char *name,
		  const char *var, const void *val, size_t size);
/* Register it; 0 or -errno. */
int cc_attach(struct bpf_cc *cc);
/* Register another struct_ops map of the same object; 0 or -errno. */
int cc_attach_map(struct bpf_cc *cc, struct bpf_map *map);
/* Unregister it; the map lives on while sockets or fds hold it. */
void cc_detach(struct bpf_cc *cc);
void cc_close(struct bpf_cc *cc);

/* Read or write the global variable var of its programs (.bss, .data). */
int cc_read(struct bpf_cc *cc, const char *var, void *buf, size_t size);
int cc_write(struct bpf_cc *cc, const char *var, const void *buf, size_t size);
__u64 cc_u64(struct bpf_cc *cc, const char *var);
__u32 cc_u32(struct bpf_cc *cc, const char *var);

/* The callbacks its programs ran so far, by the examples' "<op>_calls"
 * counters (fallback_calls, which counts DCTCP's fallbacks, included).
 */
__u64 cc_callbacks(struct bpf_cc *cc);

/* The path of build/tests/<name>, next to the test binaries' bin/. */
const char *test_file(const char *name);

#endif
