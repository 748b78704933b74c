// SPDX-License-Identifier: GPL-2.0
/*
 * A seeded fuzzer of the struct_ops syscall surface: map create, prog
 * load, update, lookup, delete, get_next_key, freeze, close and reopen,
 * test_run, struct_ops link create, update and detach,
 * setsockopt(TCP_CONGESTION), getsockopt(TCP_CC_INFO) (a congestion
 * control's get_info answer, at most the union's 20 bytes and never past
 * the buffer) and the test target's debugfs commands, with
 * random and mutated arguments, on tcp_congestion_ops,
 * bpf_struct_ops_test and bpf_dummy_ops.
 *
 * The operations come from a xorshift64* PRNG seeded from FUZZ_SEED (else
 * the time) and run in one thread, so a seed replays the same sequence.
 * It runs FUZZ_OPS operations, or for FUZZ_SECONDS (default 120).
 *
 * Any errno is a possible answer to garbage, so results only go into a
 * histogram; what fails the run is a kernel splat right after an
 * operation (watched in /dev/kmsg), the fuzzer dying (an oops kills the
 * task: it runs in a child, the parent reports), or a map whose state
 * stops following the rules: update only from INIT, delete INUSE ->
 * TOBEFREE and otherwise ENOENT/EINPROGRESS, lookup showing the state the
 * map is in, a registered name listed and an unregistered one gone; a
 * BPF_F_LINK map READY once updated, never deleted, linked by one link at
 * a time, only when READY, and unregistered by its link's detach or close. At the
 * end everything is unregistered, released and closed, and every map and
 * program it made must be freed.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <bpf/bpf.h>

#include "lib/test.h"
#include "lib/insn.h"
#include "lib/kmsg.h"
#include "lib/net.h"
#include "lib/opstats.h"
#include "lib/rng.h"
#include "lib/sops.h"
#include "lib/sys.h"

/* mainline's UAPI (6.4+), which Debian's 6.1 headers do not have */
#define F_LINK (1U << 13)		/* BPF_F_LINK */
#define ATTACH_STRUCT_OPS 44		/* BPF_STRUCT_OPS */

#ifndef ENOTSUPP
#define ENOTSUPP 524
#endif

#define POOL 40		/* fds kept at once */
#define MAX_IDS 65536	/* maps, and programs, one run may make */
#define RING 24		/* the last operations, printed on failure */
#define NSOCK 4		/* two connected pairs: 0-1, 2-3 */

enum op {
	OP_MAP_CREATE, OP_PROG_LOAD, OP_UPDATE, OP_LOOKUP, OP_DELETE, OP_NEXT_KEY,
	OP_FREEZE, OP_CLOSE, OP_REOPEN, OP_INFO, OP_SOPS_CMD, OP_SOCK_CC, OP_SOCK_PING,
	OP_SOCK_RENEW, OP_TEST_RUN, OP_LINK_CREATE, OP_LINK_UPDATE, OP_LINK_DETACH,
	OP_SOCK_INFO, OP_N
};

static const struct { const char *name; unsigned int weight; } ops[OP_N] = {
	[OP_MAP_CREATE] = { "map_create", 10 },	[OP_PROG_LOAD] = { "prog_load", 10 },
	[OP_UPDATE] = { "update", 20 },		[OP_LOOKUP] = { "lookup", 8 },
	[OP_DELETE] = { "delete", 8 },		[OP_NEXT_KEY] = { "get_next_key", 3 },
	[OP_FREEZE] = { "freeze", 2 },		[OP_CLOSE] = { "close", 6 },
	[OP_REOPEN] = { "get_fd_by_id", 4 },	[OP_INFO] = { "obj_get_info", 2 },
	[OP_SOPS_CMD] = { "sops_debugfs", 6 },	[OP_SOCK_CC] = { "setsockopt_cc", 6 },
	[OP_SOCK_PING] = { "sock_ping", 4 },	[OP_SOCK_RENEW] = { "sock_renew", 1 },
	[OP_TEST_RUN] = { "prog_test_run", 6 },	[OP_LINK_CREATE] = { "link_create", 5 },
	[OP_LINK_UPDATE] = { "link_update", 4 },	[OP_LINK_DETACH] = { "link_detach", 3 },
	[OP_SOCK_INFO] = { "getsockopt_cc_info", 4 },
};

/* The three struct_ops types, from vmlinux BTF. */
#define NTYPES 3
enum { T_TCA, T_SOPS, T_DUMMY };
static struct stype {
	const char *name;
	const char *const mandatory[4];
	const char *prefix;		/* of the names it registers under */
	int type_id, value_id;
	__u32 vsize, data, name_off;	/* name_off 0: no name member */
	int nmembers;
	struct { __u32 off, size, nargs; bool func; } m[64];
	int base[64];			/* "return 1" prog per member; -1: refused */
} types[NTYPES] = {
	[T_TCA] = { "tcp_congestion_ops", { "ssthresh", "undo_cwnd", "cong_avoid" }, "fz" },
	[T_SOPS] = { SOPS, { "add" }, "fzs" },
	[T_DUMMY] = { "bpf_dummy_ops", { NULL }, "" },
};

/* What the fuzzer knows of a map it made: the model its results must fit. */
struct mrec {
	int type;		/* -1: not a struct_ops map */
	int state;
	char name[16];		/* registered under */
	bool link_map;		/* BPF_F_LINK: a link registers it */
	bool linked;		/* and one does */
};

enum kind { K_FREE, K_MAP, K_PROG, K_LINK, K_CLOSED };
struct ent {
	enum kind kind;
	int fd;
	int type, member;	/* a prog's struct and member, as loaded */
	int mrec;		/* a map's record; a link's map, -1 once detached */
};

/* Shared with the parent, which reports and cleans up if the child dies. */
static struct shared {
	unsigned long done;	/* operations finished */
	unsigned int ring_pos;
	char ring[RING][200];
	__u32 map_ids[MAX_IDS], prog_ids[MAX_IDS];
	unsigned int nmaps, nprogs;
	struct opstat stats[OP_N];
	double secs[OP_N];	/* time spent in each kind */
	char why[512];		/* the child's failure */
} *sh;

static struct {
	__u64 rng, seed;
	struct ent pool[POOL];
	struct mrec *maps;	/* indexed like sh->map_ids */
	int socks[NSOCK];
	int kmsg;
	char *cur;		/* this operation's line in the ring */
	char modprobe[256];	/* kernel.modprobe, to restore */
} fz;

/* Append to the current operation's line. */
static void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void note(const char *fmt, ...)
{
	size_t n = strlen(fz.cur);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(fz.cur + n, sizeof(sh->ring[0]) - n, fmt, ap);
	va_end(ap);
}

/* A broken rule: the child stops with why. */
static void violation(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void violation(const char *fmt, ...)
{
	int n;
	va_list ap;

	n = snprintf(sh->why, sizeof(sh->why), "op %lu (seed %llu): ", sh->done + 1,
		     (unsigned long long)fz.seed);
	va_start(ap, fmt);
	vsnprintf(sh->why + n, sizeof(sh->why) - n, fmt, ap);
	va_end(ap);
}

/* Record op's result: ret < 0 means errno. */
static long result(enum op op, long ret)
{
	int err = ret < 0 ? errno : 0;

	opstat_add(&sh->stats[op], err);
	if (err)
		note(" -> %s", strerrorname_np(err) ?: "?");
	else
		note(" -> %ld", ret);
	errno = err;
	return ret;
}

static __u32 rnd(__u32 n)
{
	return rng_below(&fz.rng, n);
}

static bool one_in(__u32 n)
{
	return rng_one_in(&fz.rng, n);
}

/* ---- struct types ---- */

static int init_type(struct stype *t)
{
	struct btf *btf = vmlinux_btf();
	const struct btf_type *st, *vt;
	const struct btf_member *m;
	char vname[128];
	int i;

	snprintf(vname, sizeof(vname), "bpf_struct_ops_%s", t->name);
	t->type_id = vmlinux_struct_id(t->name);
	t->value_id = vmlinux_struct_id(vname);
	if (t->type_id < 0 || t->value_id < 0 ||
	    vmlinux_field(vname, "data", &t->data, NULL))
		return -1;
	vt = btf__type_by_id(btf, t->value_id);
	st = btf__type_by_id(btf, t->type_id);
	t->vsize = vt->size;
	t->nmembers = btf_vlen(st) < 64 ? btf_vlen(st) : 64;
	for (i = 0, m = btf_members(st); i < t->nmembers; i++, m++) {
		const struct btf_type *mt = btf__type_by_id(btf, btf__resolve_type(btf, m->type));

		t->m[i].off = t->data + btf_member_bit_offset(st, i) / 8;
		t->m[i].size = btf__resolve_size(btf, m->type);
		const struct btf_type *proto = btf_is_ptr(mt) ?
			btf__type_by_id(btf, btf__resolve_type(btf, mt->type)) : NULL;

		t->m[i].func = proto && btf_is_func_proto(proto);
		t->m[i].nargs = t->m[i].func ? btf_vlen(proto) : 0;
		t->base[i] = 0;
		if (!strcmp(btf__name_by_offset(btf, m->name_off), "name"))
			t->name_off = t->m[i].off;
	}
	return 0;
}

static int member_index(const struct stype *t, const char *name)
{
	return vmlinux_member_index(t->name, name);
}

static void add_id(__u32 *ids, unsigned int *n, __u32 id)
{
	if (id && *n < MAX_IDS)
		ids[(*n)++] = id;
}

/* A "return 1" program for member i of t, loaded once; -1 if refused. */
static int base_prog(struct stype *t, int i)
{
	int fd;

	if (!t->base[i]) {
		fd = load_trivial_prog(BPF_PROG_TYPE_STRUCT_OPS, t->type_id, i, "GPL", 1, NULL, 0);
		t->base[i] = fd < 0 ? -1 : fd;
		if (fd >= 0)
			add_id(sh->prog_ids, &sh->nprogs, prog_id(fd));
	}
	return t->base[i];
}

/* ---- the fd pool ---- */

static struct ent *pick(enum kind kind)
{
	unsigned int i, start = rnd(POOL);

	for (i = 0; i < POOL; i++) {
		struct ent *e = &fz.pool[(start + i) % POOL];

		if (e->kind == kind)
			return e;
	}
	return NULL;
}

/* Any fd number the pool knows, stale ones included, or a random one. */
static int any_fd(void)
{
	struct ent *e = &fz.pool[rnd(POOL)];

	if (e->kind != K_FREE && !one_in(8))
		return e->fd;
	return one_in(2) ? -1 : (int)rnd(1024);
}

static void unlinked(struct ent *link);

static void close_ent(struct ent *e)
{
	if (e->kind == K_MAP || e->kind == K_PROG || e->kind == K_LINK) {
		close(e->fd);
		/* a link's only reference: its last close detached it */
		if (e->kind == K_LINK)
			unlinked(e);
		e->kind = K_CLOSED;	/* its number stays, as a stale fd */
	}
}

/* A slot for a new fd: a free or stale one, else close one at random. */
static struct ent *new_ent(int fd, enum kind kind)
{
	struct ent *e = pick(K_FREE) ?: pick(K_CLOSED);

	if (!e) {
		e = &fz.pool[rnd(POOL)];
		close_ent(e);
	}
	memset(e, 0, sizeof(*e));
	e->kind = kind;
	e->fd = fd;
	e->type = e->mrec = -1;
	return e;
}

static struct ent *pick_map(void)
{
	return pick(K_MAP);
}

/*
 * The model of the struct_ops map behind fd, whichever entry holds it: an
 * operation on a random fd (any_fd()) may well hit a live map, and what it
 * does to that map must reach the map's record.
 */
static struct mrec *model(int fd)
{
	int i;

	for (i = 0; fd >= 0 && i < POOL; i++) {
		struct ent *e = &fz.pool[i];

		if (e->kind == K_MAP && e->fd == fd && e->mrec >= 0)
			return fz.maps[e->mrec].type < 0 ? NULL : &fz.maps[e->mrec];
	}
	return NULL;
}

/* A new map fd: which record, by id (reopened maps share theirs). */
static void add_map(int fd)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);
	struct ent *e;
	unsigned int i;
	int t;

	e = new_ent(fd, K_MAP);
	if (bpf_obj_get_info_by_fd(fd, &info, &len)) {
		close_ent(e);
		return;
	}
	for (i = 0; i < sh->nmaps; i++)
		if (sh->map_ids[i] == info.id)
			break;
	if (i == sh->nmaps) {
		if (i == MAX_IDS) {
			close_ent(e);
			return;
		}
		add_id(sh->map_ids, &sh->nmaps, info.id);
		fz.maps[i].type = -1;
		fz.maps[i].state = STATE_INIT;
		fz.maps[i].link_map = info.map_flags & F_LINK;
		fz.maps[i].linked = false;
		for (t = 0; t < NTYPES; t++)
			if (info.type == BPF_MAP_TYPE_STRUCT_OPS &&
			    info.btf_vmlinux_value_type_id == (__u32)types[t].value_id)
				fz.maps[i].type = t;
	}
	e->mrec = i;
}

/* ---- operations ---- */

static __u32 random_type_id(const struct stype *t, bool value)
{
	switch (rnd(12)) {
	case 0:
		return value ? t->type_id : t->value_id;	/* the other one */
	case 1:
		return rnd(200000);
	case 2:
		return one_in(2) ? 0 : vmlinux_struct_id("tcp_sock");
	default:
		return value ? t->value_id : t->type_id;
	}
}

static void op_map_create(void)
{
	struct stype *t = &types[rnd(NTYPES)];
	union bpf_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.map_type = one_in(10) ? BPF_MAP_TYPE_ARRAY : BPF_MAP_TYPE_STRUCT_OPS;
	attr.key_size = one_in(8) ? rnd(10) : 4;
	attr.value_size = one_in(8) ? t->vsize + rnd(17) - 8 : one_in(30) ? rnd(8192) : t->vsize;
	attr.max_entries = one_in(8) ? rnd(4) : 1;
	attr.map_flags = one_in(8) ? 1u << rnd(20) : one_in(4) ? F_LINK : 0;
	attr.btf_vmlinux_value_type_id = one_in(20) ? 0 : random_type_id(t, true);
	attr.btf_fd = one_in(8) ? (one_in(2) ? 0 : any_fd()) : map_btf_fd();
	if (attr.map_type == BPF_MAP_TYPE_ARRAY && one_in(2))
		attr.btf_vmlinux_value_type_id = attr.btf_fd = 0;	/* a foreign map */
	snprintf(attr.map_name, sizeof(attr.map_name), "fz%u", rnd(100));
	note("%s type %u key %u value %u (%s: %u) max %u flags %#x vtid %u btf_fd %d",
	     ops[OP_MAP_CREATE].name, attr.map_type, attr.key_size, attr.value_size, t->name,
	     t->vsize, attr.max_entries, attr.map_flags, attr.btf_vmlinux_value_type_id,
	     attr.btf_fd);
	fd = result(OP_MAP_CREATE, sys_bpf(BPF_MAP_CREATE, &attr, sizeof(attr)));
	if (fd >= 0)
		add_map(fd);
}

/* One of a few program shapes, for a member of t. */
static unsigned int make_insns(struct bpf_insn *in, const struct stype *t)
{
	unsigned int n = 0, i;
	__u32 off;

	switch (rnd(5)) {
	case 0:		/* return a constant */
		in[n++] = I_MOV64_IMM(BPF_REG_0, rnd(8) - 2);
		break;
	case 1:		/* read argument k */
		in[n++] = I_LDX(BPF_DW, BPF_REG_0, BPF_REG_1, 8 * rnd(7));
		break;
	case 2:		/* write through the first argument */
		if (t == &types[T_TCA] && !one_in(4))
			vmlinux_field("tcp_sock", one_in(2) ? "snd_cwnd" : "snd_ssthresh",
				      &off, NULL);
		else if (t == &types[T_SOPS] && !one_in(4))
			vmlinux_field("bpf_struct_ops_test_ctx", "out", &off, NULL);
		else if (t == &types[T_DUMMY] && !one_in(4))
			off = 0;	/* bpf_dummy_ops_state's val */
		else
			off = one_in(2) ? 0 : rnd(512) & ~3u;
		in[n++] = I_LDX(BPF_DW, BPF_REG_2, BPF_REG_1, 0);
		/* bpf_dummy_ops's state may be NULL: the verifier wants a check */
		if (one_in(2))
			in[n++] = I_JEQ_IMM(BPF_REG_2, 0, 2);
		in[n++] = I_MOV64_IMM(BPF_REG_3, 1 + rnd(100));
		in[n++] = I_STX(one_in(2) ? BPF_W : BPF_DW, BPF_REG_2, BPF_REG_3, off);
		in[n++] = I_MOV64_IMM(BPF_REG_0, 0);
		break;
	case 3:		/* call a helper */
		in[n++] = I_CALL(one_in(2) ? BPF_FUNC_ktime_get_ns :
				 one_in(2) ? BPF_FUNC_get_prandom_u32 : (int)rnd(212));
		in[n++] = I_MOV64_IMM(BPF_REG_0, 0);
		break;
	default:	/* a few random instructions */
		for (i = 1 + rnd(4); i; i--) {
			__u64 r = rng_next(&fz.rng);

			memcpy(&in[n++], &r, sizeof(r));
		}
		break;
	}
	in[n++] = I_EXIT();
	return n;
}

/*
 * get_info(sk, ext, attr, info)'s shape: a word into info and an attribute
 * into attr, mostly ones the kernel takes, and a size to return.
 */
static unsigned int make_get_info_insns(struct bpf_insn *in)
{
	static const int attrs[] = { 3, 9, 16 };	/* VEGAS, DCTCP, BBR */
	unsigned int n = 0;

	in[n++] = I_LDX(BPF_DW, BPF_REG_2, BPF_REG_1, 24);
	in[n++] = I_LDX(BPF_DW, BPF_REG_3, BPF_REG_1, 16);
	in[n++] = I_MOV64_IMM(BPF_REG_4, (int)rnd(1u << 31));
	in[n++] = I_STX(one_in(2) ? BPF_W : BPF_H, BPF_REG_2, BPF_REG_4,
			rnd(4) ? rnd(17) & ~1u : rnd(64));
	in[n++] = I_MOV64_IMM(BPF_REG_5, rnd(4) ? attrs[rnd(3)] : (int)rnd(64) - 8);
	in[n++] = I_STX(BPF_W, BPF_REG_3, BPF_REG_5, 0);
	in[n++] = I_MOV64_IMM(BPF_REG_0, rnd(4) ? (int)rnd(21) : (int)rnd(64) - 16);
	in[n++] = I_EXIT();
	return n;
}

/* A function pointer member mostly, now and then any member. */
static __u32 func_member(const struct stype *t)
{
	__u32 i = rnd(t->nmembers), k;

	for (k = 0; k < (__u32)t->nmembers && !one_in(8); k++)
		if (t->m[(i + k) % t->nmembers].func)
			return (i + k) % t->nmembers;
	return i;
}

static const enum bpf_prog_type other_types[] = {
	BPF_PROG_TYPE_SOCKET_FILTER, BPF_PROG_TYPE_KPROBE, BPF_PROG_TYPE_TRACING,
	BPF_PROG_TYPE_LSM, BPF_PROG_TYPE_EXT, BPF_PROG_TYPE_SCHED_CLS,
};

static void op_prog_load(void)
{
	int ti = rnd(NTYPES), fd;
	struct stype *t = &types[ti];
	enum bpf_prog_type type = one_in(8) ? other_types[rnd(ARRAY_LEN(other_types))] :
					      BPF_PROG_TYPE_STRUCT_OPS;
	__u32 attach = random_type_id(t, false);
	__u32 member = rnd(8) ? func_member(t) :
		       one_in(2) ? (__u32)t->nmembers + rnd(4) : one_in(2) ? ~0u : 1u << 31;
	const char *license = one_in(8) ? "Proprietary" : "GPL";
	struct bpf_insn insns[8];
	unsigned int n;
	struct ent *e;

	if (t == &types[T_TCA] && one_in(4)) {
		member = vmlinux_member_index(t->name, "get_info");
		n = make_get_info_insns(insns);
	} else {
		n = make_insns(insns, t);
	}

	note("%s type %u attach %u (%s %d) member %u insns %u %s", ops[OP_PROG_LOAD].name,
	     type, attach, t->name, t->type_id, member, n, license);
	fd = result(OP_PROG_LOAD, load_prog(type, insns, n, attach, member, license, NULL, 0));
	if (fd < 0)
		return;
	add_id(sh->prog_ids, &sh->nprogs, prog_id(fd));
	e = new_ent(fd, K_PROG);
	if (type == BPF_PROG_TYPE_STRUCT_OPS && attach == (__u32)t->type_id) {
		e->type = ti;
		e->member = member;
	}
}

/* A prog fd for member i of t: the base one mostly, else from the pool. */
static __u64 prog_for(struct stype *t, int i)
{
	struct ent *e;
	int k;

	if (!one_in(4))
		return base_prog(t, i) < 0 ? 0 : t->base[i];
	for (k = 0; k < 4; k++) {
		e = pick(K_PROG);
		if (e && e->type == t - types && e->member == i)
			return e->fd;
	}
	return one_in(2) ? (__u64)any_fd() : 0;
}

static bool mandatory(const struct stype *t, int i)
{
	int k;

	for (k = 0; t->mandatory[k]; k++)
		if (member_index(t, t->mandatory[k]) == i)
			return true;
	return false;
}

/* A value that registers, unless the name is taken. */
static void fill_value(struct stype *t, char *v)
{
	int i;

	memset(v, 0, t->vsize);
	for (i = 0; i < t->nmembers; i++)
		if (t->m[i].func && (mandatory(t, i) || one_in(4)))
			*(__u64 *)(v + t->m[i].off) = prog_for(t, i);
	if (t->name_off)
		snprintf(v + t->name_off, 16, "%s%u", t->prefix, rnd(4));
	if (t == &types[T_SOPS])
		*(__u32 *)(v + sops.flags) = rnd(2);
}

static void mutate(struct stype *t, char *v)
{
	__u32 at = rnd(t->vsize), i;
	int k = rnd(t->nmembers);

	switch (rnd(9)) {
	case 0:
		v[at] ^= 1 << rnd(8);
		note(" flip@%u", at);
		break;
	case 1:
		v[at] = rng_next(&fz.rng);
		note(" byte@%u", at);
		break;
	case 2:		/* the header: refcnt, state */
		v[rnd(8)] = rnd(4);
		note(" header");
		break;
	case 3:		/* inside the struct: padding, reserved, flags */
		at = t->data + rnd(t->vsize - t->data);
		v[at] = 1 << rnd(8);
		note(" data@%u", at);
		break;
	case 4:
		if (t->m[k].func) {
			*(__u64 *)(v + t->m[k].off) = any_fd();
			note(" slot%d=fd", k);
		}
		break;
	case 5:
		if (t->m[k].func) {
			*(__u64 *)(v + t->m[k].off) = one_in(2) ? rng_next(&fz.rng) : 1000 + rnd(100);
			note(" slot%d=junk", k);
		}
		break;
	case 6:
		if (t->name_off) {
			for (i = 0; i < 16; i++)
				v[t->name_off + i] = one_in(3) ? 'a' + rnd(26) : rnd(256);
			note(" name");
		}
		break;
	case 7:
		if (t == &types[T_SOPS] || t == &types[T_TCA]) {
			__u32 off;

			vmlinux_field(t->name, "flags", &off, NULL);
			*(__u32 *)(v + t->data + off) = 1u << rnd(32);
			note(" flags");
		}
		break;
	default:
		memset(v + t->data, 0, t->vsize - t->data);
		note(" empty");
		break;
	}
}

static const char *state_name(int s)
{
	return s == STATE_INIT ? "INIT" : s == STATE_INUSE ? "INUSE" :
	       s == STATE_TOBEFREE ? "TOBEFREE" : s == STATE_READY ? "READY" : "?";
}

/* The map's state and value, by lookup; the state or -1. */
static int lookup_state(int fd, char *v)
{
	struct struct_ops_header h;

	if (struct_ops_lookup(fd, v))
		return -1;
	memcpy(&h, v, sizeof(h));
	return h.state;
}

/* Whatever is registered under name is (on) or is not listed. */
static void check_listed(const struct stype *t, const char *name, bool on)
{
	char buf[64];
	bool listed;

	if (t == &types[T_TCA])
		listed = sysctl_lists(AVAILABLE, name);
	else if (t == &types[T_SOPS])
		listed = !strcmp(sops_field("registered", buf, sizeof(buf)), name);
	else
		return;
	if (listed != on)
		violation("%s \"%s\" %s", t->name, name, on ? "not registered" : "still registered");
}

/*
 * An update went through: the map is registered (INUSE), or filled in for
 * a link (READY); record the name, check a registered one is live.
 */
static void updated(int fd, struct mrec *r)
{
	int want = r->link_map ? STATE_READY : STATE_INUSE;
	struct stype *t = &types[r->type];
	char out[4096];

	if (r->state != STATE_INIT) {
		violation("update succeeded on a %s map", state_name(r->state));
		return;
	}
	r->state = want;
	if (lookup_state(fd, out) != want) {
		violation("updated map not %s", state_name(want));
		return;
	}
	if (t->name_off) {
		snprintf(r->name, sizeof(r->name), "%.15s", out + t->name_off);
		if (!r->link_map)
			check_listed(t, r->name, true);
	}
}

/* A map to register, one still INIT mostly: the others only say EBUSY. */
static struct ent *pick_update_map(void)
{
	struct ent *e = pick_map();
	int k;

	for (k = 0; k < 3 && e && fz.maps[e->mrec].state != STATE_INIT && !one_in(4); k++)
		e = pick_map();
	return e;
}

static void op_update(void)
{
	struct ent *e = pick_update_map();
	struct stype *t = &types[e && fz.maps[e->mrec].type >= 0 ?
				 fz.maps[e->mrec].type : (int)rnd(NTYPES)];
	__u32 key = one_in(16) ? rnd(3) : 0;
	__u64 flags = one_in(16) ? 1ull << rnd(5) : 0;
	int fd = e && !one_in(20) ? e->fd : any_fd(), i;
	struct mrec *r = model(fd);
	char v[4096], out[4096];
	long ret;

	fill_value(t, v);
	note("%s fd %d (%s %s) key %u flags %#llx:", ops[OP_UPDATE].name, fd, t->name,
	     r ? state_name(r->state) : "-", key, (unsigned long long)flags);
	for (i = one_in(2) ? 0 : 1 + rnd(3); i; i--)
		mutate(t, v);
	ret = result(OP_UPDATE, bpf_map_update_elem(fd, &key, v, flags));
	if (!r)
		return;
	if (!ret) {
		updated(fd, r);
	} else if (r->state != STATE_INIT) {
		if (errno != EBUSY && errno != EINVAL && errno != E2BIG)
			violation("update of a %s map: errno %d", state_name(r->state), errno);
	} else if (errno == EBUSY) {
		violation("update of an INIT map: EBUSY");
	} else if (lookup_state(fd, out) != STATE_INIT || !all_zero(out, types[r->type].vsize)) {
		violation("failed update did not leave the map INIT and zero");
	}
}

static void op_lookup(void)
{
	struct ent *e = pick_map();
	__u32 key = one_in(8) ? rnd(3) : 0;
	int fd = e ? e->fd : any_fd();
	struct mrec *r = model(fd);
	char v[8192];
	long ret;

	note("%s fd %d key %u", ops[OP_LOOKUP].name, fd, key);
	ret = result(OP_LOOKUP, bpf_map_lookup_elem(fd, &key, v));
	if (!r)
		return;
	if (key && !(ret < 0 && errno == ENOENT))
		violation("lookup of key %u: %ld errno %d", key, ret, errno);
	else if (!key && ret)
		violation("lookup of key 0: errno %d", errno);
	else if (!key && ((struct struct_ops_header *)v)->state != (__u32)r->state)
		violation("lookup says %s, the map is %s",
			  state_name(((struct struct_ops_header *)v)->state), state_name(r->state));
	else if (!key && r->state == STATE_INIT && !all_zero(v, types[r->type].vsize))
		violation("INIT value not zero");
}

static void op_delete(void)
{
	static const int want[] = { [STATE_INIT] = ENOENT, [STATE_INUSE] = 0,
				    [STATE_TOBEFREE] = EINPROGRESS };
	struct ent *e = pick_map();
	int fd = e ? e->fd : any_fd();
	struct mrec *r = model(fd);
	__u32 key = one_in(8) ? rnd(3) : 0;
	int err;

	note("%s fd %d key %u (%s)", ops[OP_DELETE].name, fd, key,
	     r ? state_name(r->state) : "-");
	err = result(OP_DELETE, bpf_map_delete_elem(fd, &key)) ? errno : 0;
	if (!r)
		return;
	/* delete looks at the state only, not the key; a link map's link unregisters */
	if (err != (r->link_map ? EOPNOTSUPP : want[r->state])) {
		violation("delete of a %s %smap: errno %d", state_name(r->state),
			  r->link_map ? "link " : "", err);
		return;
	}
	if (r->state == STATE_INUSE) {
		r->state = STATE_TOBEFREE;
		if (types[r->type].name_off)
			check_listed(&types[r->type], r->name, false);
	}
}

static void op_next_key(void)
{
	struct ent *e = pick_map();
	int fd = e ? e->fd : any_fd();
	__u32 key = rnd(3), next;
	bool null = one_in(3);

	note("%s fd %d key %s%u", ops[OP_NEXT_KEY].name, fd, null ? "NULL " : "", key);
	result(OP_NEXT_KEY, bpf_map_get_next_key(fd, null ? NULL : &key, &next));
}

static void op_freeze(void)
{
	struct ent *e = pick_map();
	int fd = e ? e->fd : any_fd();

	note("%s fd %d", ops[OP_FREEZE].name, fd);
	result(OP_FREEZE, bpf_map_freeze(fd));
}

static void op_close(void)
{
	struct ent *e = &fz.pool[rnd(POOL)];

	note("%s slot %ld fd %d kind %d", ops[OP_CLOSE].name, (long)(e - fz.pool), e->fd,
	     e->kind);
	if (e->kind == K_MAP || e->kind == K_PROG || e->kind == K_LINK)
		result(OP_CLOSE, close(e->fd));
	close_ent(e);
}

/*
 * Whether an id is still there depends on when RCU freed it: a failed
 * open takes a pool slot all the same (fd -1), so that the operations
 * that follow are those the seed chose, whatever the timing.
 */
static void op_reopen(void)
{
	bool map = (one_in(2) || !sh->nprogs) && sh->nmaps;
	unsigned int i = map ? rnd(sh->nmaps) : rnd(sh->nprogs);
	__u32 id = map ? sh->map_ids[i] : sh->prog_ids[i];
	int fd;

	if (!map && !sh->nprogs)
		return;
	note("%s %s %u", ops[OP_REOPEN].name, map ? "map" : "prog", id);
	fd = result(OP_REOPEN, map ? bpf_map_get_fd_by_id(id) : bpf_prog_get_fd_by_id(id));
	/* a reopened program's struct and member are unknown: foreign */
	new_ent(fd < 0 ? -1 : fd, map ? K_MAP : K_PROG)->mrec = map ? (int)i : -1;
}

static void op_info(void)
{
	char info[256];
	__u32 len = one_in(4) ? rnd(sizeof(info)) : sizeof(info);
	int fd = any_fd();

	note("%s fd %d len %u", ops[OP_INFO].name, fd, len);
	result(OP_INFO, bpf_obj_get_info_by_fd(fd, info, &len));
}

static void op_sops_cmd(void)
{
	static const char *const cmds[] = { "call", "call", "hold", "release", "bench" };
	const char *cmd = cmds[rnd(ARRAY_LEN(cmds))];
	char buf[32];
	int err;

	if (!strcmp(cmd, "bench"))
		snprintf(buf, sizeof(buf), "bench %u", rnd(50));
	else
		snprintf(buf, sizeof(buf), "%s", cmd);
	note("%s %s", ops[OP_SOPS_CMD].name, buf);
	err = sops_cmd(buf);
	errno = -err;
	result(OP_SOPS_CMD, err);
}

/* A name to switch a socket to: a registered fuzz CC's, mostly. */
static const char *cc_name(char *buf)
{
	unsigned int i, start = sh->nmaps ? rnd(sh->nmaps) : 0;

	for (i = 0; i < sh->nmaps && !one_in(8); i++) {
		struct mrec *r = &fz.maps[(start + i) % sh->nmaps];

		if (r->type == T_TCA && (r->state == STATE_INUSE || r->linked))
			return r->name;
	}
	if (one_in(2))
		return "cubic";
	snprintf(buf, 16, "fz%u", rnd(4));
	return buf;
}

static int socket_pair(int *a, int *b)
{
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sa);
	int l = socket(AF_INET, SOCK_STREAM, 0);

	*a = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
	*b = -1;
	if (l >= 0 && !bind(l, (void *)&sa, len) && !listen(l, 1) &&
	    !getsockname(l, (void *)&sa, &len)) {
		connect(*a, (void *)&sa, len);	/* EINPROGRESS: accept completes it */
		*b = accept4(l, NULL, NULL, SOCK_NONBLOCK);
	}
	close(l);
	return *a >= 0 && *b >= 0 ? 0 : -1;
}

static void op_sock_cc(void)
{
	int s = rnd(NSOCK);
	char buf[16];
	const char *name = cc_name(buf);

	note("%s sock %d %s", ops[OP_SOCK_CC].name, s, name);
	result(OP_SOCK_CC, setsockopt(fz.socks[s], IPPROTO_TCP, TCP_CONGESTION, name,
				      strlen(name)));
}

/* Some bytes across a pair, without blocking: the CCs' programs run. */
static void op_sock_ping(void)
{
	static char buf[16384];
	int p = rnd(NSOCK / 2) * 2, dir = rnd(2);

	note("%s pair %d dir %d", ops[OP_SOCK_PING].name, p, dir);
	result(OP_SOCK_PING, send(fz.socks[p + dir], buf, 1 + rnd(sizeof(buf)), MSG_DONTWAIT));
	while (recv(fz.socks[p + !dir], buf, sizeof(buf), MSG_DONTWAIT) > 0)
		;
}

/*
 * get_info's answer: what the kernel copied, at most the union's 20
 * bytes and what was asked for, and not a byte past it.
 */
static void op_sock_info(void)
{
	unsigned char buf[64];
	int s = rnd(NSOCK);
	socklen_t asked = rnd(4) ? rnd(sizeof(buf) / 2) : rnd(sizeof(buf)), len = asked;
	unsigned int i;

	note("%s sock %d len %u", ops[OP_SOCK_INFO].name, s, asked);
	memset(buf, 0xa5, sizeof(buf));
	if (result(OP_SOCK_INFO, getsockopt(fz.socks[s], IPPROTO_TCP, TCP_CC_INFO, buf, &len)))
		return;
	if (len > asked || len > 20)
		violation("TCP_CC_INFO answered %u bytes to %u asked", len, asked);
	for (i = len; i < sizeof(buf); i++) {
		if (buf[i] != 0xa5) {
			violation("TCP_CC_INFO wrote byte %u past its %u", i, len);
			break;
		}
	}
}

static void op_sock_renew(void)
{
	int p = rnd(NSOCK / 2) * 2;

	note("%s pair %d", ops[OP_SOCK_RENEW].name, p);
	close(fz.socks[p]);
	close(fz.socks[p + 1]);
	result(OP_SOCK_RENEW, socket_pair(&fz.socks[p], &fz.socks[p + 1]));
}

/*
 * test_run runs bpf_dummy_ops programs only: pick one of those mostly,
 * with as many arguments as its member takes mostly.
 */
static void op_test_run(void)
{
	struct ent *e = pick(K_PROG);
	int fd, k;
	__u64 args[8], state[4] = { rng_next(&fz.rng) };
	union bpf_attr attr;
	unsigned int i, nargs;

	for (k = 0; k < 4 && e && e->type != T_DUMMY && !one_in(4); k++)
		e = pick(K_PROG);
	fd = e && !one_in(8) ? e->fd : any_fd();
	nargs = e && e->type == T_DUMMY && e->member < types[T_DUMMY].nmembers ?
		types[T_DUMMY].m[e->member].nargs : 5;
	if (one_in(8))
		nargs = rnd(8);

	for (i = 0; i < ARRAY_LEN(args); i++)
		args[i] = rng_next(&fz.rng);
	args[0] = one_in(3) ? 0 : one_in(8) ? 0x1000 : (__u64)(unsigned long)state;
	memset(&attr, 0, sizeof(attr));
	attr.test.prog_fd = fd;
	attr.test.ctx_in = (__u64)(unsigned long)args;
	attr.test.ctx_size_in = nargs * 8;
	note("%s fd %d args %u state %s", ops[OP_TEST_RUN].name, fd, nargs,
	     !args[0] ? "NULL" : args[0] == 0x1000 ? "bad" : "ok");
	if (result(OP_TEST_RUN, sys_bpf(BPF_PROG_TEST_RUN, &attr, sizeof(attr))) >= 0)
		note(" retval %u", attr.test.retval);
}

/* ---- struct_ops links ---- */

/* The live link entry behind fd, if the pool has one. */
static struct ent *link_ent(int fd)
{
	int i;

	for (i = 0; fd >= 0 && i < POOL; i++)
		if (fz.pool[i].kind == K_LINK && fz.pool[i].fd == fd)
			return &fz.pool[i];
	return NULL;
}

/* The link lets its map go: the map's name is no longer registered. */
static void unlinked(struct ent *link)
{
	struct mrec *r = link->mrec >= 0 ? &fz.maps[link->mrec] : NULL;

	link->mrec = -1;
	if (!r)
		return;
	r->linked = false;
	if (types[r->type].name_off)
		check_listed(&types[r->type], r->name, false);
}

/* A map to link, one READY and not linked mostly: the others only say EINVAL. */
static struct ent *pick_link_map(void)
{
	struct ent *e = pick_map();
	struct mrec *r;
	int k;

	for (k = 0; k < 4 && e && !one_in(4); k++) {
		r = &fz.maps[e->mrec];
		if (r->type >= 0 && r->state == STATE_READY && !r->linked)
			break;
		e = pick_map();
	}
	return e;
}

static void op_link_create(void)
{
	struct ent *e = pick_link_map();
	int fd = e && !one_in(10) ? e->fd : any_fd(), lfd;
	struct mrec *r = model(fd);
	union bpf_attr attr;
	bool plain;

	memset(&attr, 0, sizeof(attr));
	attr.link_create.prog_fd = fd;	/* mainline's map_fd: the same field */
	attr.link_create.attach_type = one_in(10) ? rnd(50) : ATTACH_STRUCT_OPS;
	attr.link_create.target_fd = one_in(10) ? rnd(8) : 0;
	attr.link_create.flags = one_in(10) ? 1u << rnd(32) : 0;
	plain = attr.link_create.attach_type == ATTACH_STRUCT_OPS &&
		!attr.link_create.target_fd && !attr.link_create.flags;
	note("%s map fd %d (%s%s) type %u target %u flags %#x", ops[OP_LINK_CREATE].name, fd,
	     r ? state_name(r->state) : "-", r && r->link_map ? " link" : "",
	     attr.link_create.attach_type, attr.link_create.target_fd, attr.link_create.flags);
	lfd = result(OP_LINK_CREATE, sys_bpf(BPF_LINK_CREATE, &attr, sizeof(attr)));
	if (lfd < 0) {
		/* a map that cannot be linked says EINVAL; a linked one EEXIST */
		if (r && plain && (!r->link_map || r->state != STATE_READY) && errno != EINVAL)
			violation("link create on a %s map: errno %d", state_name(r->state), errno);
		else if (r && plain && r->linked && errno != EEXIST)
			violation("link create on a linked map: errno %d", errno);
		return;
	}
	e = new_ent(lfd, K_LINK);
	if (!r)
		return;		/* another kind of link, of a program */
	if (!plain || !r->link_map || r->state != STATE_READY || r->linked) {
		violation("link create succeeded on a %s%s map", state_name(r->state),
			  r->linked ? " linked" : "");
		return;
	}
	r->linked = true;
	e->mrec = r - fz.maps;
	if (types[r->type].name_off)
		check_listed(&types[r->type], r->name, true);
}

static void op_link_update(void)
{
	struct ent *l = pick(K_LINK), *m = pick_link_map();
	int lfd = l && !one_in(10) ? l->fd : any_fd();
	int nfd = m && !one_in(10) ? m->fd : any_fd();
	struct mrec *nr = model(nfd), *old;
	union bpf_attr attr;
	long ret;

	l = link_ent(lfd);
	old = l && l->mrec >= 0 ? &fz.maps[l->mrec] : NULL;
	memset(&attr, 0, sizeof(attr));
	attr.link_update.link_fd = lfd;
	/* mainline's new_map_fd and old_map_fd: the same fields */
	attr.link_update.new_prog_fd = nfd;
	if (one_in(4)) {
		attr.link_update.flags = one_in(4) ? 1u << rnd(32) : BPF_F_REPLACE;
		attr.link_update.old_prog_fd = one_in(2) && m ? pick_map()->fd : any_fd();
	}
	note("%s link fd %d (%s) new map fd %d (%s) flags %#x old %d", ops[OP_LINK_UPDATE].name,
	     lfd, old ? state_name(old->state) : "-", nfd, nr ? state_name(nr->state) : "-",
	     attr.link_update.flags, attr.link_update.old_prog_fd);
	ret = result(OP_LINK_UPDATE, sys_bpf(BPF_LINK_UPDATE, &attr, sizeof(attr)));
	if (ret || !l || nr == old)
		return;
	if (!old || !nr || !nr->link_map || nr->state != STATE_READY || nr->linked ||
	    nr->type != old->type) {
		violation("link update to a %s map succeeded", nr ? state_name(nr->state) : "foreign");
		return;
	}
	/* the name stays registered: the new map has the same one */
	old->linked = false;
	nr->linked = true;
	l->mrec = nr - fz.maps;
	if (types[nr->type].name_off)
		check_listed(&types[nr->type], nr->name, true);
}

static void op_link_detach(void)
{
	struct ent *l = pick(K_LINK);
	int fd = l && !one_in(10) ? l->fd : any_fd();
	union bpf_attr attr;
	long ret;

	memset(&attr, 0, sizeof(attr));
	attr.link_detach.link_fd = fd;
	l = link_ent(fd);
	note("%s link fd %d (%s)", ops[OP_LINK_DETACH].name, fd,
	     !l ? "-" : l->mrec >= 0 ? "linked" : "detached");
	ret = result(OP_LINK_DETACH, sys_bpf(BPF_LINK_DETACH, &attr, sizeof(attr)));
	if (!l)
		return;
	/* a struct_ops link detaches always, a second time too */
	if (ret && l->mrec >= 0)
		violation("detach of a struct_ops link: errno %d", errno);
	else if (!ret)
		unlinked(l);
}

static void (*const op_fns[OP_N])(void) = {
	[OP_MAP_CREATE] = op_map_create, [OP_PROG_LOAD] = op_prog_load,
	[OP_UPDATE] = op_update, [OP_LOOKUP] = op_lookup, [OP_DELETE] = op_delete,
	[OP_NEXT_KEY] = op_next_key, [OP_FREEZE] = op_freeze, [OP_CLOSE] = op_close,
	[OP_REOPEN] = op_reopen, [OP_INFO] = op_info, [OP_SOPS_CMD] = op_sops_cmd,
	[OP_SOCK_CC] = op_sock_cc, [OP_SOCK_PING] = op_sock_ping,
	[OP_SOCK_RENEW] = op_sock_renew, [OP_TEST_RUN] = op_test_run,
	[OP_LINK_CREATE] = op_link_create, [OP_LINK_UPDATE] = op_link_update,
	[OP_LINK_DETACH] = op_link_detach, [OP_SOCK_INFO] = op_sock_info,
};

static enum op choose_op(void)
{
	unsigned int total = 0, r, i;

	for (i = 0; i < OP_N; i++)
		total += ops[i].weight;
	r = rnd(total);
	for (i = 0; r >= ops[i].weight; i++)
		r -= ops[i].weight;
	return i;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The child: run the operations, exit 0, or 1 with sh->why. */
static void fuzz_loop(unsigned long max_ops, double deadline)
{
	char line[300];
	int i;

	fz.maps = calloc(MAX_IDS, sizeof(*fz.maps));
	for (i = 0; i < NSOCK; i += 2)
		if (!fz.maps || socket_pair(&fz.socks[i], &fz.socks[i + 1])) {
			snprintf(sh->why, sizeof(sh->why), "setup: %s", strerror(errno));
			_exit(1);
		}
	double t0, t1 = now();
	enum op op;

	while (max_ops ? sh->done < max_ops : t1 < deadline) {
		fz.cur = sh->ring[sh->done % RING];
		snprintf(fz.cur, sizeof(sh->ring[0]), "#%lu ", sh->done + 1);
		op = choose_op();
		t0 = t1;
		op_fns[op]();
		t1 = now();
		sh->secs[op] += t1 - t0;
		if (kmsg_splat(fz.kmsg, line, sizeof(line))) {
			snprintf(sh->why, sizeof(sh->why), "splat after op %lu (seed %llu): %s",
				 sh->done + 1, (unsigned long long)fz.seed, line);
			_exit(1);
		}
		if (sh->why[0])
			_exit(1);
		sh->done++;
	}
	_exit(0);
}

static void print_ring(void)
{
	unsigned long i, from = sh->done >= RING - 1 ? sh->done - (RING - 1) : 0;

	printf("# fuzz: the last operations:\n");
	for (i = from; i <= sh->done; i++)
		if (sh->ring[i % RING][0])
			printf("# fuzz:   %s\n", sh->ring[i % RING]);
}

static void print_stats(double secs)
{
	char buf[1024];
	int i;

	printf("# fuzz: seed %llu, %lu ops in %.0f s (%.0f ops/s), %u maps, %u progs\n",
	       (unsigned long long)fz.seed, sh->done, secs, secs > 0 ? sh->done / secs : 0,
	       sh->nmaps, sh->nprogs);
	for (i = 0; i < OP_N; i++) {
		sh->stats[i].name = ops[i].name;
		printf("# fuzz:   %s, %.1f s\n", opstat_format(&sh->stats[i], buf, sizeof(buf)),
		       sh->secs[i]);
	}
}

/* Unregister whatever the child left registered, drop the holds. */
static void unregister_all(void)
{
	unsigned int i;
	int fd;

	sops_cmd("release");
	for (i = 0; i < sh->nmaps; i++) {
		fd = bpf_map_get_fd_by_id(sh->map_ids[i]);
		if (fd < 0)
			continue;
		bpf_map_delete_elem(fd, &(__u32){ 0 });
		close(fd);
	}
}

/* Nothing of struct_ops type left anywhere, no fuzz name registered. */
static void check_all_gone(void)
{
	char avail[1024], buf[64], *w, *save;
	unsigned int i;
	__u32 id;

	for (i = 0; i < sh->nmaps; i++)
		CHECK(wait_id_gone(sh->map_ids[i], true), "map %u not freed", sh->map_ids[i]);
	for (i = 0; i < sh->nprogs; i++)
		CHECK(wait_id_gone(sh->prog_ids[i], false), "prog %u not freed", sh->prog_ids[i]);
	id = struct_ops_left(true);
	CHECK(!id, "struct_ops map %u left", id);
	id = struct_ops_left(false);
	CHECK(!id, "struct_ops prog %u left", id);
	CHECK_OK(sysctl_read(AVAILABLE, avail, sizeof(avail)));
	for (w = strtok_r(avail, " ", &save); w; w = strtok_r(NULL, " ", &save))
		CHECK(strncmp(w, "fz", 2), "%s still registered", w);
	CHECK_STR(sops_field("registered", buf, sizeof(buf)), "-");
	CHECK_STR(sops_field("holds", buf, sizeof(buf)), "0");
}

static __u64 seed_from_env(void)
{
	const char *env = getenv("FUZZ_SEED");

	if (env && *env)
		return strtoull(env, NULL, 0);
	return (__u64)time(NULL) * 1000003 ^ getpid();
}

static void syscalls(void)
{
	const char *ops_env = getenv("FUZZ_OPS"), *secs_env = getenv("FUZZ_SECONDS");
	unsigned long max_ops = ops_env ? strtoul(ops_env, NULL, 0) : 0;
	double secs = secs_env && atoi(secs_env) > 0 ? atoi(secs_env) : 120, start;
	char line[300] = "";
	int status, t;
	pid_t pid;

	fz.seed = seed_from_env();
	printf("# fuzz: seed %llu\n", (unsigned long long)fz.seed);
	rng_seed(&fz.rng, fz.seed);
	CHECK_OK(sops_init());
	for (t = 0; t < NTYPES; t++)
		CHECK(!init_type(&types[t]), "%s not in vmlinux BTF", types[t].name);
	CHECK_OK(map_btf_fd());
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	CHECK(sh != MAP_FAILED, "mmap: %s", strerror(errno));
	fz.kmsg = kmsg_open();
	CHECK_OK(fz.kmsg);
	/* most names it tries are unregistered: no modprobe for each */
	CHECK_OK(modprobe_off(fz.modprobe, sizeof(fz.modprobe)));

	start = now();
	pid = fork();
	CHECK_OK(pid);
	if (pid == 0)
		fuzz_loop(max_ops, start + secs);
	waitpid(pid, &status, 0);
	print_stats(now() - start);
	/* the child's splat, or one that killed it before it could look */
	if (!sh->why[0] && kmsg_splat(fz.kmsg, line, sizeof(line)))
		snprintf(sh->why, sizeof(sh->why), "splat after op %lu (seed %llu): %s",
			 sh->done + 1, (unsigned long long)fz.seed, line);
	if (!sh->why[0] && !(WIFEXITED(status) && WEXITSTATUS(status) == 0))
		snprintf(sh->why, sizeof(sh->why), "died in op %lu (seed %llu), status %#x",
			 sh->done + 1, (unsigned long long)fz.seed, status);
	if (sh->why[0]) {
		print_ring();
		printf("# fuzz: reproduce: tools/vm --env FUZZ_SEED=%llu --env FUZZ_OPS=%lu -- build/tests/bin/fuzz\n",
		       (unsigned long long)fz.seed, sh->done + 1);
	}
	unregister_all();
	CHECK(!sh->why[0], "%s", sh->why);
	check_all_gone();
	if (!test_failed && kmsg_splat(fz.kmsg, line, sizeof(line)))
		CHECK(0, "splat during cleanup (seed %llu): %s", (unsigned long long)fz.seed, line);
}

/* Whatever happened, kernel.modprobe is as before. */
static void restore(void)
{
	modprobe_restore(fz.modprobe);
	fz.modprobe[0] = '\0';
}

static void __attribute__((constructor)) set_restore(void)
{
	test_after_each = restore;
}

TEST_MAIN(SUBTEST(syscalls))
