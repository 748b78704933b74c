// SPDX-License-Identifier: GPL-2.0
/*
 * Bad input to every struct_ops entry point, as a table: prog load, map
 * create, update, lookup, delete, setsockopt(TCP_CONGESTION) and the TCP
 * sysctls. Each case must fail with exactly its errno (and, for loads,
 * print its verifier log line), and leave everything as it was: the
 * same map and prog ids, the same congestion controls available, allowed
 * and default, the fixtures' maps in their states, the socket on its CC.
 *
 * Upstream 6.1 gives these errnos; ENOTSUPP (524) is its ABI where listed.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "lib/test.h"
#include "lib/insn.h"
#include "lib/net.h"
#include "lib/rawcc.h"
#include "lib/sops.h"
#include "lib/sys.h"

#define ENOTSUPP 524
#define DEFAULT_CC "/proc/sys/net/ipv4/tcp_congestion_control"
#define CC_NAME "bpf_badin"		/* the registered fixture */
#define CC_INIT_NAME "bpf_badin_init"	/* a map of it never registered */

/* What the cases run against, made once. */
static struct {
	int sops_map;		/* bpf_struct_ops_test map, INIT */
	int sops_gone;		/* one registered and deleted: TOBEFREE */
	int add, widths;	/* its programs */
	int dummy;		/* a bpf_dummy_ops program */
	int filter;		/* a socket filter */
	int closed;		/* an fd number that is not open */
	struct raw_cc cc;	/* tcp_congestion_ops registered as CC_NAME */
	struct raw_cc cc_init;	/* one left INIT */
	int tcp, udp;		/* sockets; tcp is on CC_NAME */
} F;

static char v[4096];		/* the value an update case sends */
static char log_buf[65536];	/* the verifier log of a load case */

/* Everything a bad input must leave alone. */
struct snapshot {
	char ids[8192];
	char available[512], allowed[512], dflt[64];
	char sops_registered[64];
	char sock_cc[16];
	bool sops_map_zero;
	struct struct_ops_header cc, cc_init, sops_gone;
};

static void append_ids(char *buf, size_t size, char kind,
		       int (*next)(__u32 start, __u32 *id))
{
	__u32 id = 0;
	size_t n = strlen(buf);

	while (!next(id, &id) && n < size - 16)
		n += snprintf(buf + n, size - n, "%c%u ", kind, id);
}

static void take_snapshot(struct snapshot *s)
{
	char value[4096];

	memset(s, 0, sizeof(*s));
	append_ids(s->ids, sizeof(s->ids), 'm', bpf_map_get_next_id);
	append_ids(s->ids, sizeof(s->ids), 'p', bpf_prog_get_next_id);
	sysctl_read(AVAILABLE, s->available, sizeof(s->available));
	sysctl_read(ALLOWED, s->allowed, sizeof(s->allowed));
	sysctl_read(DEFAULT_CC, s->dflt, sizeof(s->dflt));
	sops_field("registered", s->sops_registered, sizeof(s->sops_registered));
	socket_cc(F.tcp, s->sock_cc, sizeof(s->sock_cc));
	s->sops_map_zero = !struct_ops_lookup(F.sops_map, value) &&
			   all_zero(value, sops.value_size);
	struct_ops_header(F.cc.map, &s->cc);
	struct_ops_header(F.cc_init.map, &s->cc_init);
	struct_ops_header(F.sops_gone, &s->sops_gone);
}

/* The first part of the state that differs, or NULL. */
static const char *snapshot_diff(const struct snapshot *a, const struct snapshot *b)
{
	if (strcmp(a->ids, b->ids))
		return "map/prog ids";
	if (strcmp(a->available, b->available))
		return "tcp_available_congestion_control";
	if (strcmp(a->allowed, b->allowed))
		return "tcp_allowed_congestion_control";
	if (strcmp(a->dflt, b->dflt))
		return "tcp_congestion_control";
	if (strcmp(a->sops_registered, b->sops_registered))
		return "the registered bpf_struct_ops_test";
	if (strcmp(a->sock_cc, b->sock_cc))
		return "the socket's congestion control";
	if (a->sops_map_zero != b->sops_map_zero)
		return "the INIT bpf_struct_ops_test map's value";
	if (memcmp(&a->cc, &b->cc, sizeof(a->cc)))
		return "the registered CC's refcnt/state";
	if (memcmp(&a->cc_init, &b->cc_init, sizeof(a->cc_init)))
		return "the INIT CC map's state";
	if (memcmp(&a->sops_gone, &b->sops_gone, sizeof(a->sops_gone)))
		return "the TOBEFREE map's state";
	return NULL;
}

/* ---- map create ---- */

static int create(enum bpf_map_type type, __u32 key, __u32 value, __u32 max,
		  struct bpf_map_create_opts *opts)
{
	return bpf_map_create(type, "badin", key, value, max, opts);
}

/* a valid struct_ops create, for one field to be spoiled */
#define SOPS_OPTS(o) LIBBPF_OPTS(bpf_map_create_opts, o,			\
				 .btf_fd = map_btf_fd(),			\
				 .btf_vmlinux_value_type_id = sops.value_id)

static int create_no_btf_fd(void)
{
	SOPS_OPTS(o);

	o.btf_fd = 0;
	return create(BPF_MAP_TYPE_STRUCT_OPS, 4, sops.value_size, 1, &o);
}

static int create_closed_btf_fd(void)
{
	SOPS_OPTS(o);

	o.btf_fd = F.closed;
	return create(BPF_MAP_TYPE_STRUCT_OPS, 4, sops.value_size, 1, &o);
}

static int create_btf_fd_is_a_map(void)
{
	SOPS_OPTS(o);

	o.btf_fd = F.sops_map;
	return create(BPF_MAP_TYPE_STRUCT_OPS, 4, sops.value_size, 1, &o);
}

static int create_key_size_8(void)
{
	SOPS_OPTS(o);

	return create(BPF_MAP_TYPE_STRUCT_OPS, 8, sops.value_size, 1, &o);
}

static int create_two_entries(void)
{
	SOPS_OPTS(o);

	return create(BPF_MAP_TYPE_STRUCT_OPS, 4, sops.value_size, 2, &o);
}

static int create_value_short(void)
{
	SOPS_OPTS(o);

	return create(BPF_MAP_TYPE_STRUCT_OPS, 4, sops.value_size - 8, 1, &o);
}

static int create_value_long(void)
{
	SOPS_OPTS(o);

	return create(BPF_MAP_TYPE_STRUCT_OPS, 4, sops.value_size + 8, 1, &o);
}

static int create_rdonly(void)
{
	SOPS_OPTS(o);

	o.map_flags = BPF_F_RDONLY;
	return create(BPF_MAP_TYPE_STRUCT_OPS, 4, sops.value_size, 1, &o);
}

static int create_no_value_type(void)
{
	SOPS_OPTS(o);

	o.btf_vmlinux_value_type_id = 0;
	return create(BPF_MAP_TYPE_STRUCT_OPS, 4, sops.value_size, 1, &o);
}

static int create_not_a_value_type(void)
{
	SOPS_OPTS(o);

	o.btf_vmlinux_value_type_id = vmlinux_struct_id("tcp_sock");
	return create(BPF_MAP_TYPE_STRUCT_OPS, 4, sops.value_size, 1, &o);
}

static int create_value_type_huge(void)
{
	SOPS_OPTS(o);

	o.btf_vmlinux_value_type_id = 0x7fffffff;
	return create(BPF_MAP_TYPE_STRUCT_OPS, 4, sops.value_size, 1, &o);
}

static int create_with_btf_value_type(void)
{
	SOPS_OPTS(o);

	o.btf_value_type_id = 1;
	return create(BPF_MAP_TYPE_STRUCT_OPS, 4, sops.value_size, 1, &o);
}

static int create_array_of_value_type(void)
{
	SOPS_OPTS(o);

	return create(BPF_MAP_TYPE_ARRAY, 4, sops.value_size, 1, &o);
}

static int create_map_extra(void)
{
	SOPS_OPTS(o);

	o.map_extra = 1;
	return create(BPF_MAP_TYPE_STRUCT_OPS, 4, sops.value_size, 1, &o);
}

static int create_bad_map_name(void)
{
	SOPS_OPTS(o);

	return bpf_map_create(BPF_MAP_TYPE_STRUCT_OPS, "bad/name", 4, sops.value_size, 1, &o);
}

static int create_as_inner_map(void)
{
	LIBBPF_OPTS(bpf_map_create_opts, o, .inner_map_fd = F.sops_map);

	return create(BPF_MAP_TYPE_ARRAY_OF_MAPS, 4, 4, 1, &o);
}

/* attr bytes past the ones this kernel knows must be zero */
static int create_attr_tail_set(void)
{
	char attr[sizeof(union bpf_attr) + 8] = { 0 };
	union bpf_attr *a = (union bpf_attr *)attr;

	a->map_type = BPF_MAP_TYPE_STRUCT_OPS;
	a->key_size = 4;
	a->value_size = sops.value_size;
	a->max_entries = 1;
	a->btf_fd = map_btf_fd();
	a->btf_vmlinux_value_type_id = sops.value_id;
	attr[sizeof(union bpf_attr) + 4] = 1;
	return sys_bpf(BPF_MAP_CREATE, a, sizeof(attr));
}

/* ---- prog load ---- */

static int load(const struct bpf_insn *insns, unsigned int n, const char *tname,
		__u32 member, const char *license)
{
	return load_prog(BPF_PROG_TYPE_STRUCT_OPS, insns, n, vmlinux_struct_id(tname),
			 member, license, log_buf, sizeof(log_buf));
}

static int load_ret(const char *tname, __u32 member, const char *license)
{
	return load_trivial_prog(BPF_PROG_TYPE_STRUCT_OPS, vmlinux_struct_id(tname), member,
				 license, 0, log_buf, sizeof(log_buf));
}

static int load_unknown_struct(void)
{
	return load_ret("tcp_sock", 0, "GPL");
}

static int load_no_struct(void)
{
	return load_trivial_prog(BPF_PROG_TYPE_STRUCT_OPS, 0, 0, "GPL", 0, log_buf,
				 sizeof(log_buf));
}

static int load_member_past_end(void)
{
	return load_ret(SOPS, btf_vlen(btf__type_by_id(vmlinux_btf(),
						       vmlinux_struct_id(SOPS))), "GPL");
}

static int load_member_huge(void)
{
	return load_ret(SOPS, 0xffffffff, "GPL");
}

static int load_data_member(void)
{
	return load_ret(SOPS, vmlinux_member_index(SOPS, "name"), "GPL");
}

static int load_refused_member(void)
{
	return load_ret(SOPS, vmlinux_member_index(SOPS, "refused"), "GPL");
}

static int load_not_gpl(void)
{
	return load_ret(SOPS, sops.add_idx, "Proprietary");
}

static int load_sleepable(void)
{
	static const struct bpf_insn insns[] = { I_MOV64_IMM(BPF_REG_0, 0), I_EXIT() };
	LIBBPF_OPTS(bpf_prog_load_opts, o, .attach_btf_id = vmlinux_struct_id(SOPS),
		    .expected_attach_type = sops.add_idx, .prog_flags = BPF_F_SLEEPABLE,
		    .log_buf = log_buf, .log_size = sizeof(log_buf), .log_level = 1);

	return bpf_prog_load(BPF_PROG_TYPE_STRUCT_OPS, "badin", "GPL", insns, 2, &o);
}

/* touch(ctx) may write ctx->out only: this writes ctx->in */
static int load_touch_writes_in(void)
{
	static const struct bpf_insn insns[] = {
		I_LDX(BPF_DW, BPF_REG_1, BPF_REG_1, 0),
		I_MOV64_IMM(BPF_REG_2, 1),
		I_STX(BPF_DW, BPF_REG_1, BPF_REG_2, 0),
		I_EXIT(),
	};

	return load(insns, ARRAY_LEN(insns), SOPS, vmlinux_member_index(SOPS, "touch"), "GPL");
}

/* the arguments themselves are read-only */
static int load_writes_arguments(void)
{
	static const struct bpf_insn insns[] = {
		I_MOV64_IMM(BPF_REG_2, 1),
		I_STX(BPF_DW, BPF_REG_1, BPF_REG_2, 0),
		I_MOV64_IMM(BPF_REG_0, 0),
		I_EXIT(),
	};

	return load(insns, ARRAY_LEN(insns), SOPS, sops.add_idx, "GPL");
}

/* add(a, b) has no third argument */
static int load_reads_missing_argument(void)
{
	static const struct bpf_insn insns[] = {
		I_LDX(BPF_DW, BPF_REG_0, BPF_REG_1, 16),
		I_EXIT(),
	};

	return load(insns, ARRAY_LEN(insns), SOPS, sops.add_idx, "GPL");
}

/* bpf_tcp_send_ack is TCP's, not every struct_ops type's */
static int load_foreign_helper(void)
{
	static const struct bpf_insn insns[] = {
		I_MOV64_IMM(BPF_REG_2, 0),
		I_CALL(BPF_FUNC_tcp_send_ack),
		I_MOV64_IMM(BPF_REG_0, 0),
		I_EXIT(),
	};

	return load(insns, ARRAY_LEN(insns), SOPS, sops.add_idx, "GPL");
}

/*
 * A socket read out of the congestion control's own, tp->fastopen_rsk->sk:
 * NULL here, and in general not locked. The program may load through it,
 * but no kfunc or helper takes it (upstream 6.1 handed it to either).
 */
static int load_walked_sk(const struct bpf_insn *call, unsigned int n)
{
	struct bpf_insn insns[16] = {
		I_LDX(BPF_DW, BPF_REG_1, BPF_REG_1, 0),
		I_LDX(BPF_DW, BPF_REG_1, BPF_REG_1, 0),	/* + fastopen_rsk */
		I_LDX(BPF_DW, BPF_REG_1, BPF_REG_1, 0),	/* + request_sock.sk */
	};
	__u32 rsk_off, sk_off, size;

	if (vmlinux_field("tcp_sock", "fastopen_rsk", &rsk_off, &size) ||
	    vmlinux_field("request_sock", "sk", &sk_off, &size))
		return -ENOENT;
	insns[1].off = rsk_off;
	insns[2].off = sk_off;
	memcpy(insns + 3, call, n * sizeof(*call));
	insns[3 + n] = I_EXIT();
	return load(insns, 4 + n, TCA, tca_member("cong_avoid"), "GPL");
}

static int load_walked_sk_to_kfunc(void)
{
	struct bpf_insn call[] = {
		I_MOV64_IMM(BPF_REG_2, 0),
		I_MOV64_IMM(BPF_REG_3, 1),
		{ .code = BPF_JMP | BPF_CALL, .src_reg = BPF_PSEUDO_KFUNC_CALL,
		  .imm = btf__find_by_name_kind(vmlinux_btf(), "tcp_reno_cong_avoid",
						BTF_KIND_FUNC) },
	};

	return load_walked_sk(call, ARRAY_LEN(call));
}

/* bpf_setsockopt(sk, SOL_TCP, TCP_NODELAY, &one, 4) */
static int load_walked_sk_to_helper(void)
{
	static const struct bpf_insn call[] = {
		I_MOV64_IMM(BPF_REG_0, 1),
		I_STX(BPF_W, BPF_REG_10, BPF_REG_0, -8),
		I_SOCKOPT_ARGS(6, 1, -8, 4),
		I_CALL(BPF_FUNC_setsockopt),
	};

	return load_walked_sk(call, ARRAY_LEN(call));
}

/*
 * get_info(sk, ext, attr, info): the kernel zeroes *attr and *info and
 * copies out only what the program answered, so it writes them and never
 * reads them, answers with a layout of union tcp_cc_info, returns a size
 * within the union, and does not store a kernel address where ss can read
 * it. It runs without the socket lock: it may look at the socket, not
 * change it or hand it to a helper or kfunc.
 */
#define GI_ARG(reg, n)	I_LDX(BPF_DW, reg, BPF_REG_1, 8 * (n))
#define GI_SK		0
#define GI_ATTR		2
#define GI_INFO		3

static int load_get_info(const struct bpf_insn *body, unsigned int n)
{
	struct bpf_insn insns[16];

	memcpy(insns, body, n * sizeof(*body));
	insns[n] = I_MOV64_IMM(BPF_REG_0, 0);
	insns[n + 1] = I_EXIT();
	return load(insns, n + 2, TCA, tca_member("get_info"), "GPL");
}

static int load_get_info_reads_info(void)
{
	static const struct bpf_insn body[] = {
		GI_ARG(BPF_REG_2, GI_INFO),
		I_LDX(BPF_W, BPF_REG_3, BPF_REG_2, 0),
	};

	return load_get_info(body, ARRAY_LEN(body));
}

static int load_get_info_writes_past_info(void)
{
	static const struct bpf_insn body[] = {
		GI_ARG(BPF_REG_2, GI_INFO),
		I_MOV64_IMM(BPF_REG_3, 0),
		I_STX(BPF_W, BPF_REG_2, BPF_REG_3, 20),
	};

	return load_get_info(body, ARRAY_LEN(body));
}

static int load_get_info_reads_attr(void)
{
	static const struct bpf_insn body[] = {
		GI_ARG(BPF_REG_2, GI_ATTR),
		I_LDX(BPF_W, BPF_REG_3, BPF_REG_2, 0),
	};

	return load_get_info(body, ARRAY_LEN(body));
}

static int load_get_info_half_attr(void)
{
	static const struct bpf_insn body[] = {
		GI_ARG(BPF_REG_2, GI_ATTR),
		I_MOV64_IMM(BPF_REG_3, 9),
		I_STX(BPF_H, BPF_REG_2, BPF_REG_3, 0),
	};

	return load_get_info(body, ARRAY_LEN(body));
}

/* INET_DIAG_CONG (4) is the name's attribute, no layout of the union */
static int load_get_info_bad_attr(void)
{
	static const struct bpf_insn body[] = {
		GI_ARG(BPF_REG_2, GI_ATTR),
		I_MOV64_IMM(BPF_REG_3, 4),
		I_STX(BPF_W, BPF_REG_2, BPF_REG_3, 0),
	};

	return load_get_info(body, ARRAY_LEN(body));
}

static int load_get_info_returns(int size)
{
	struct bpf_insn insns[] = { I_MOV64_IMM(BPF_REG_0, size), I_EXIT() };

	return load(insns, ARRAY_LEN(insns), TCA, tca_member("get_info"), "GPL");
}

static int load_get_info_returns_past_info(void)
{
	return load_get_info_returns(21);
}

static int load_get_info_returns_negative(void)
{
	return load_get_info_returns(-1);
}

static int load_get_info_stores_pointer(void)
{
	static const struct bpf_insn body[] = {
		GI_ARG(BPF_REG_2, GI_INFO),
		GI_ARG(BPF_REG_3, GI_SK),
		I_STX(BPF_DW, BPF_REG_2, BPF_REG_3, 0),
	};

	return load_get_info(body, ARRAY_LEN(body));
}

static int load_get_info_writes_sk(void)
{
	struct bpf_insn body[] = {
		GI_ARG(BPF_REG_2, GI_SK),
		I_MOV64_IMM(BPF_REG_3, 10),
		I_STX(BPF_W, BPF_REG_2, BPF_REG_3, 0),	/* + snd_cwnd */
	};
	__u32 off, size;

	if (vmlinux_field("tcp_sock", "snd_cwnd", &off, &size))
		return -ENOENT;
	body[2].off = off;
	return load_get_info(body, ARRAY_LEN(body));
}

static int load_get_info_sends_ack(void)
{
	static const struct bpf_insn body[] = {
		GI_ARG(BPF_REG_1, GI_SK),
		I_MOV64_IMM(BPF_REG_2, 0),
		I_CALL(BPF_FUNC_tcp_send_ack),
	};

	return load_get_info(body, ARRAY_LEN(body));
}

static int load_get_info_calls_kfunc(void)
{
	struct bpf_insn body[] = {
		GI_ARG(BPF_REG_1, GI_SK),
		I_MOV64_IMM(BPF_REG_2, 0),
		I_MOV64_IMM(BPF_REG_3, 1),
		{ .code = BPF_JMP | BPF_CALL, .src_reg = BPF_PSEUDO_KFUNC_CALL,
		  .imm = btf__find_by_name_kind(vmlinux_btf(), "tcp_reno_cong_avoid",
						BTF_KIND_FUNC) },
	};

	return load_get_info(body, ARRAY_LEN(body));
}

/* a get_info program loaded for cong_avoid(sk, ack, acked) */
static int load_get_info_as_cong_avoid(void)
{
	static const struct bpf_insn insns[] = {
		GI_ARG(BPF_REG_2, GI_INFO),
		I_MOV64_IMM(BPF_REG_3, 1),
		I_STX(BPF_H, BPF_REG_2, BPF_REG_3, 0),
		I_MOV64_IMM(BPF_REG_0, 0),
		I_EXIT(),
	};

	return load(insns, ARRAY_LEN(insns), TCA, tca_member("cong_avoid"), "GPL");
}

/*
 * test_1's state is NULL when BPF_PROG_TEST_RUN is given 0 for it: using
 * it unchecked is refused (upstream 6.1 took it and wrote through NULL)
 */
static int load_dummy_state_unchecked(void)
{
	static const struct bpf_insn insns[] = {
		I_LDX(BPF_DW, BPF_REG_2, BPF_REG_1, 0),
		I_LDX(BPF_W, BPF_REG_0, BPF_REG_2, 0),
		I_EXIT(),
	};

	return load(insns, ARRAY_LEN(insns), "bpf_dummy_ops", 0, "GPL");
}

static int load_attr_tail_set(void)
{
	static const struct bpf_insn insns[] = { I_MOV64_IMM(BPF_REG_0, 0), I_EXIT() };
	char attr[sizeof(union bpf_attr) + 8] = { 0 };
	union bpf_attr *a = (union bpf_attr *)attr;

	a->prog_type = BPF_PROG_TYPE_STRUCT_OPS;
	a->insns = (unsigned long)insns;
	a->insn_cnt = 2;
	a->license = (unsigned long)"GPL";
	a->attach_btf_id = vmlinux_struct_id(SOPS);
	a->expected_attach_type = sops.add_idx;
	attr[sizeof(union bpf_attr) + 4] = 1;
	return sys_bpf(BPF_PROG_LOAD, a, sizeof(attr));
}

/* ---- update ---- */

/* A good bpf_struct_ops_test value in v, for one field to be spoiled. */
static void *good_sops_value(void)
{
	sops_fill(v, F.add, "sops_badin");
	return v;
}

static int update_sops(void)
{
	return struct_ops_update(F.sops_map, v);
}

#define U32_AT(off) (*(__u32 *)(v + (off)))
#define U64_AT(off) (*(__u64 *)(v + (off)))

static int update_key_1(void)
{
	__u32 key = 1;

	return bpf_map_update_elem(F.sops_map, &key, good_sops_value(), 0);
}

static int update_flag_noexist(void)
{
	__u32 key = 0;

	return bpf_map_update_elem(F.sops_map, &key, good_sops_value(), BPF_NOEXIST);
}

static int update_refcnt_set(void)
{
	good_sops_value();
	U32_AT(0) = 1;
	return update_sops();
}

static int update_state_set(void)
{
	good_sops_value();
	U32_AT(4) = STATE_INUSE;
	return update_sops();
}

static int update_header_padding_set(void)
{
	good_sops_value();
	v[sops.data - 1] = 1;
	return update_sops();
}

static int update_data_padding_set(void)
{
	good_sops_value();
	v[sops.flags + 4] = 1;
	return update_sops();
}

static int update_owner_set(void)
{
	good_sops_value();
	U64_AT(sops.owner) = 1;
	return update_sops();
}

static int update_reserved_set(void)
{
	good_sops_value();
	U64_AT(sops.reserved) = 1;
	return update_sops();
}

static int update_empty_name(void)
{
	good_sops_value();
	v[sops.name] = 0;
	return update_sops();
}

static int update_bad_name_char(void)
{
	good_sops_value();
	v[sops.name + 2] = '/';
	return update_sops();
}

static int update_unterminated_name(void)
{
	good_sops_value();
	memset(v + sops.name, 'a', 16);
	return update_sops();
}

static int update_unknown_flag(void)
{
	good_sops_value();
	U32_AT(sops.flags) = 2;
	return update_sops();
}

static int update_filter_prog(void)
{
	good_sops_value();
	U64_AT(sops.add) = F.filter;
	return update_sops();
}

static int update_other_structs_prog(void)
{
	good_sops_value();
	U64_AT(sops.add) = F.dummy;
	return update_sops();
}

static int update_other_members_prog(void)
{
	good_sops_value();
	U64_AT(sops.add) = F.widths;
	return update_sops();
}

static int update_closed_prog_fd(void)
{
	good_sops_value();
	U64_AT(sops.add) = F.closed;
	return update_sops();
}

static int update_map_fd_as_prog(void)
{
	good_sops_value();
	U64_AT(sops.add) = F.sops_map;
	return update_sops();
}

/* the slot is read as an int, as upstream: -1 is no fd */
static int update_negative_prog_fd(void)
{
	good_sops_value();
	U64_AT(sops.add) = (__u64)-1;
	return update_sops();
}

/* reg() refuses it, after the trampolines were built */
static int update_mandatory_missing(void)
{
	good_sops_value();
	U64_AT(sops.add) = 0;
	U64_AT(sops.widths) = F.widths;
	return update_sops();
}

static int update_bad_value_pointer(void)
{
	__u32 key = 0;

	return bpf_map_update_elem(F.sops_map, &key, (void *)8, 0);
}

static int update_registered(void)
{
	raw_reset(&F.cc, CC_NAME);
	return raw_update(&F.cc);
}

static int update_tobefree(void)
{
	return struct_ops_update(F.sops_gone, good_sops_value());
}

/* tcp_congestion_ops values, on the INIT map */
static int update_tcp(void (*spoil)(struct raw_cc *r))
{
	raw_reset(&F.cc_init, CC_INIT_NAME);
	spoil(&F.cc_init);
	return raw_update(&F.cc_init);
}

static void name_cubic(struct raw_cc *r)
{
	raw_put_bytes(r, "name", "cubic", 6);
}

static void name_registered(struct raw_cc *r)
{
	raw_put_bytes(r, "name", CC_NAME, sizeof(CC_NAME));
}

static void unknown_tcp_flags(struct raw_cc *r)
{
	__u32 flags = 0x80;

	raw_put_bytes(r, "flags", &flags, sizeof(flags));
}

static void no_ssthresh(struct raw_cc *r)
{
	raw_put_prog(r, "ssthresh", 0);
}

static void key_set(struct raw_cc *r)
{
	__u32 key = 0x1234;

	raw_put_bytes(r, "key", &key, sizeof(key));
}

static void list_set(struct raw_cc *r)
{
	__u64 p = 1;

	raw_put_bytes(r, "list", &p, sizeof(p));
}

static void tcp_name_unterminated(struct raw_cc *r)
{
	raw_put_bytes(r, "name", "bpf_badin_xxxxxxx", 16);
}

static int update_tcp_name_taken_native(void)
{
	return update_tcp(name_cubic);
}

static int update_tcp_name_taken_bpf(void)
{
	return update_tcp(name_registered);
}

static int update_tcp_unknown_flags(void)
{
	return update_tcp(unknown_tcp_flags);
}

static int update_tcp_no_ssthresh(void)
{
	return update_tcp(no_ssthresh);
}

static int update_tcp_key_set(void)
{
	return update_tcp(key_set);
}

static int update_tcp_list_set(void)
{
	return update_tcp(list_set);
}

static int update_tcp_name_unterminated(void)
{
	return update_tcp(tcp_name_unterminated);
}

/* ---- lookup, get_next_key, freeze, batch ---- */

static int lookup_key_1(void)
{
	__u32 key = 1;

	return bpf_map_lookup_elem(F.cc.map, &key, v);
}

static int lookup_f_lock(void)
{
	__u32 key = 0;

	return bpf_map_lookup_elem_flags(F.cc.map, &key, v, BPF_F_LOCK);
}

static int lookup_bad_value_pointer(void)
{
	__u32 key = 0;

	return bpf_map_lookup_elem(F.cc.map, &key, (void *)8);
}

static int lookup_prog_fd(void)
{
	return struct_ops_lookup(F.add, v);
}

static int lookup_closed_fd(void)
{
	return struct_ops_lookup(F.closed, v);
}

static int lookup_and_delete(void)
{
	__u32 key = 0;

	return bpf_map_lookup_and_delete_elem(F.cc.map, &key, v);
}

static int lookup_batch(void)
{
	__u32 count = 1, out;

	return bpf_map_lookup_batch(F.cc.map, NULL, &out, &out, v, &count, NULL);
}

static int next_key_after_0(void)
{
	__u32 key = 0, next;

	return bpf_map_get_next_key(F.cc.map, &key, &next);
}

static int freeze(void)
{
	return bpf_map_freeze(F.sops_map);
}

/* ---- delete ---- */

static int delete_init(void)
{
	__u32 key = 0;

	return bpf_map_delete_elem(F.sops_map, &key);
}

static int delete_tobefree(void)
{
	__u32 key = 0;

	return bpf_map_delete_elem(F.sops_gone, &key);
}

static int delete_closed_fd(void)
{
	__u32 key = 0;

	return bpf_map_delete_elem(F.closed, &key);
}

static int delete_prog_fd(void)
{
	__u32 key = 0;

	return bpf_map_delete_elem(F.add, &key);
}

static int delete_bad_key_pointer(void)
{
	return bpf_map_delete_elem(F.cc.map, (void *)8);
}

/* ---- setsockopt(TCP_CONGESTION) ---- */

static int set_cc(int fd, const void *name, socklen_t len)
{
	return setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, name, len);
}

static int sockopt_unknown(void)
{
	return set_cc(F.tcp, "bpf_nosuch", 10);
}

static int sockopt_unregistered(void)
{
	return set_cc(F.tcp, CC_INIT_NAME, sizeof(CC_INIT_NAME));
}

/* TCP reads 15 bytes at most: the registered name plus junk is no name */
static int sockopt_name_over_limit(void)
{
	return set_cc(F.tcp, CC_NAME "_xxxxxxxxxx", 20);
}

static int sockopt_empty(void)
{
	return set_cc(F.tcp, "", 0);
}

static int sockopt_bad_pointer(void)
{
	return set_cc(F.tcp, (void *)8, 8);
}

static int sockopt_udp(void)
{
	return set_cc(F.udp, CC_NAME, sizeof(CC_NAME));
}

/* ---- sysctl ---- */

static int sysctl_set(const char *path, const char *value)
{
	int err = sysctl_write(path, value);

	errno = -err;
	return err;
}

static int sysctl_default_unknown(void)
{
	return sysctl_set(DEFAULT_CC, "bpf_nosuch");
}

static int sysctl_default_unregistered(void)
{
	return sysctl_set(DEFAULT_CC, CC_INIT_NAME);
}

static int sysctl_default_over_limit(void)
{
	return sysctl_set(DEFAULT_CC, CC_NAME "_xxxxxxxxxx");
}

static int sysctl_allowed_unknown(void)
{
	return sysctl_set(ALLOWED, "bpf_nosuch");
}

/* one unknown name refuses the whole list */
static int sysctl_allowed_one_unknown(void)
{
	return sysctl_set(ALLOWED, "reno " CC_NAME " bpf_nosuch");
}

struct bad_input {
	const char *name;
	int (*call)(void);
	int err;
	const char *log;	/* a load's verifier log must have this line */
};

static const struct bad_input cases[] = {
	{ "create/no_btf_fd", create_no_btf_fd, EINVAL, NULL },
	{ "create/closed_btf_fd", create_closed_btf_fd, EBADF, NULL },
	{ "create/btf_fd_is_a_map", create_btf_fd_is_a_map, EINVAL, NULL },
	{ "create/key_size_8", create_key_size_8, EINVAL, NULL },
	{ "create/two_entries", create_two_entries, EINVAL, NULL },
	{ "create/value_size_short", create_value_short, EINVAL, NULL },
	{ "create/value_size_long", create_value_long, EINVAL, NULL },
	{ "create/rdonly", create_rdonly, EINVAL, NULL },
	{ "create/no_value_type", create_no_value_type, EINVAL, NULL },
	{ "create/not_a_value_type", create_not_a_value_type, ENOTSUPP, NULL },
	{ "create/value_type_huge", create_value_type_huge, ENOTSUPP, NULL },
	{ "create/with_btf_value_type", create_with_btf_value_type, EINVAL, NULL },
	{ "create/array_of_value_type", create_array_of_value_type, EINVAL, NULL },
	{ "create/map_extra", create_map_extra, EINVAL, NULL },
	{ "create/bad_map_name", create_bad_map_name, EINVAL, NULL },
	{ "create/as_inner_map", create_as_inner_map, ENOTSUPP, NULL },
	{ "create/attr_tail_set", create_attr_tail_set, E2BIG, NULL },

	{ "load/unknown_struct", load_unknown_struct, ENOTSUPP, "is not a supported struct" },
	{ "load/no_struct", load_no_struct, ENOTSUPP, "attach_btf_id 0 is not a supported struct" },
	{ "load/member_past_end", load_member_past_end, EINVAL,
	  "attach to invalid member idx 8 of struct " SOPS },
	{ "load/member_huge", load_member_huge, EINVAL,
	  "attach to invalid member idx 4294967295 of struct " SOPS },
	{ "load/data_member", load_data_member, EINVAL,
	  "attach to invalid member name(@idx 4) of struct " SOPS },
	{ "load/refused_member", load_refused_member, EOPNOTSUPP,
	  "attach to unsupported member refused of struct " SOPS },
	{ "load/get_info_reads_info", load_get_info_reads_info, EACCES,
	  "get_info's info is write-only: it starts zeroed, and the kernel copies out what the program wrote" },
	{ "load/get_info_writes_past_info", load_get_info_writes_past_info, EACCES,
	  "write access at off 20 with size 4 to get_info's info of 20 bytes" },
	{ "load/get_info_reads_attr", load_get_info_reads_attr, EACCES,
	  "get_info's attr is write-only" },
	{ "load/get_info_half_attr", load_get_info_half_attr, EACCES,
	  "write access at off 0 with size 2 to get_info's attr of 4 bytes" },
	{ "load/get_info_bad_attr", load_get_info_bad_attr, EINVAL,
	  "get_info sets *attr to 4: it may be INET_DIAG_VEGASINFO (3), INET_DIAG_DCTCPINFO (9) or INET_DIAG_BBRINFO (16)" },
	{ "load/get_info_returns_past_info", load_get_info_returns_past_info, EINVAL,
	  "get_info returns 21 or more: past the 20 bytes of union tcp_cc_info" },
	{ "load/get_info_returns_negative", load_get_info_returns_negative, EINVAL,
	  "get_info returns -1: a size, never negative" },
	{ "load/get_info_stores_pointer", load_get_info_stores_pointer, EACCES,
	  "get_info stores a pointer into its info: a kernel address would reach user space" },
	{ "load/get_info_writes_sk", load_get_info_writes_sk, EACCES,
	  "R2 is untrusted ptr_tcp_sock: only read is supported" },
	{ "load/get_info_sends_ack", load_get_info_sends_ack, EINVAL,
	  "unknown func bpf_tcp_send_ack#116" },
	{ "load/get_info_calls_kfunc", load_get_info_calls_kfunc, EINVAL,
	  "arg#0 pointer type STRUCT sock must point to scalar, or struct with scalar" },
	{ "load/get_info_as_cong_avoid", load_get_info_as_cong_avoid, EACCES,
	  "func 'cong_avoid' doesn't have 5-th argument" },
	{ "load/tcp_walked_sk_to_kfunc", load_walked_sk_to_kfunc, EINVAL,
	  "arg#0 pointer type STRUCT sock must point to scalar, or struct with scalar" },
	{ "load/tcp_walked_sk_to_helper", load_walked_sk_to_helper, EACCES,
	  "R1 type=untrusted_ptr_ expected=sock_common, sock, tcp_sock" },
	{ "load/not_gpl", load_not_gpl, EINVAL,
	  "struct ops programs must have a GPL compatible license" },
	{ "load/sleepable", load_sleepable, EINVAL,
	  "Only fentry/fexit/fmod_ret, lsm, and kprobe/uprobe programs can be sleepable" },
	{ "load/touch_writes_in", load_touch_writes_in, EACCES,
	  "no write access to bpf_struct_ops_test_ctx at off 0 size 8" },
	{ "load/writes_arguments", load_writes_arguments, EACCES,
	  "invalid bpf_context access off=0 size=8" },
	{ "load/reads_missing_argument", load_reads_missing_argument, EACCES,
	  "func 'add' doesn't have 3-th argument" },
	{ "load/foreign_helper", load_foreign_helper, EINVAL, "unknown func bpf_tcp_send_ack#116" },
	{ "load/dummy_state_unchecked", load_dummy_state_unchecked, EACCES,
	  "R2 invalid mem access 'ptr_or_null_'" },
	{ "load/attr_tail_set", load_attr_tail_set, E2BIG, NULL },

	{ "update/key_1", update_key_1, E2BIG, NULL },
	{ "update/flag_noexist", update_flag_noexist, EINVAL, NULL },
	{ "update/refcnt_set", update_refcnt_set, EINVAL, NULL },
	{ "update/state_set", update_state_set, EINVAL, NULL },
	{ "update/header_padding_set", update_header_padding_set, EINVAL, NULL },
	{ "update/data_padding_set", update_data_padding_set, EINVAL, NULL },
	{ "update/owner_set", update_owner_set, EINVAL, NULL },
	{ "update/reserved_set", update_reserved_set, EINVAL, NULL },
	{ "update/empty_name", update_empty_name, EINVAL, NULL },
	{ "update/bad_name_char", update_bad_name_char, EINVAL, NULL },
	{ "update/unterminated_name", update_unterminated_name, EINVAL, NULL },
	{ "update/unknown_flag", update_unknown_flag, EINVAL, NULL },
	{ "update/filter_prog", update_filter_prog, EINVAL, NULL },
	{ "update/other_structs_prog", update_other_structs_prog, EINVAL, NULL },
	{ "update/other_members_prog", update_other_members_prog, EINVAL, NULL },
	{ "update/closed_prog_fd", update_closed_prog_fd, EBADF, NULL },
	{ "update/map_fd_as_prog", update_map_fd_as_prog, EINVAL, NULL },
	{ "update/negative_prog_fd", update_negative_prog_fd, EBADF, NULL },
	{ "update/mandatory_missing", update_mandatory_missing, EINVAL, NULL },
	{ "update/bad_value_pointer", update_bad_value_pointer, EFAULT, NULL },
	{ "update/registered", update_registered, EBUSY, NULL },
	{ "update/tobefree", update_tobefree, EBUSY, NULL },
	{ "update/tcp_name_taken_native", update_tcp_name_taken_native, EEXIST, NULL },
	{ "update/tcp_name_taken_bpf", update_tcp_name_taken_bpf, EEXIST, NULL },
	{ "update/tcp_unknown_flags", update_tcp_unknown_flags, EINVAL, NULL },
	{ "update/tcp_no_ssthresh", update_tcp_no_ssthresh, EINVAL, NULL },
	{ "update/tcp_key_set", update_tcp_key_set, EINVAL, NULL },
	{ "update/tcp_list_set", update_tcp_list_set, EINVAL, NULL },
	{ "update/tcp_name_unterminated", update_tcp_name_unterminated, EINVAL, NULL },

	{ "lookup/key_1", lookup_key_1, ENOENT, NULL },
	{ "lookup/f_lock", lookup_f_lock, EINVAL, NULL },
	{ "lookup/bad_value_pointer", lookup_bad_value_pointer, EFAULT, NULL },
	{ "lookup/prog_fd", lookup_prog_fd, EINVAL, NULL },
	{ "lookup/closed_fd", lookup_closed_fd, EBADF, NULL },
	{ "lookup/and_delete", lookup_and_delete, ENOTSUPP, NULL },
	{ "lookup/batch", lookup_batch, ENOTSUPP, NULL },
	{ "lookup/next_key_after_0", next_key_after_0, ENOENT, NULL },
	{ "lookup/freeze", freeze, ENOTSUPP, NULL },

	{ "delete/init", delete_init, ENOENT, NULL },
	{ "delete/tobefree", delete_tobefree, EINPROGRESS, NULL },
	{ "delete/closed_fd", delete_closed_fd, EBADF, NULL },
	{ "delete/prog_fd", delete_prog_fd, EINVAL, NULL },
	{ "delete/bad_key_pointer", delete_bad_key_pointer, EFAULT, NULL },

	{ "sockopt/unknown", sockopt_unknown, ENOENT, NULL },
	{ "sockopt/unregistered", sockopt_unregistered, ENOENT, NULL },
	{ "sockopt/name_over_limit", sockopt_name_over_limit, ENOENT, NULL },
	{ "sockopt/empty", sockopt_empty, EINVAL, NULL },
	{ "sockopt/bad_pointer", sockopt_bad_pointer, EFAULT, NULL },
	{ "sockopt/udp", sockopt_udp, ENOPROTOOPT, NULL },

	{ "sysctl/default_unknown", sysctl_default_unknown, ENOENT, NULL },
	{ "sysctl/default_unregistered", sysctl_default_unregistered, ENOENT, NULL },
	{ "sysctl/default_over_limit", sysctl_default_over_limit, ENOENT, NULL },
	{ "sysctl/allowed_unknown", sysctl_allowed_unknown, ENOENT, NULL },
	{ "sysctl/allowed_one_unknown", sysctl_allowed_one_unknown, ENOENT, NULL },
};

static int closed_fd_number(void)
{
	int fd = dup(0);

	close(fd);
	return fd;
}

static int setup_fixtures(void)
{
	char value[4096];

	memset(&F, -1, sizeof(F));
	if (sops_init() || raw_open(&F.cc) || raw_open(&F.cc_init))
		return -1;
	F.sops_map = sops_create_map();
	F.sops_gone = sops_create_map();
	F.add = sops_load_member(sops.add_idx);
	F.widths = sops_load_member(sops.widths_idx);
	F.dummy = load_trivial_prog(BPF_PROG_TYPE_STRUCT_OPS, vmlinux_struct_id("bpf_dummy_ops"),
				    0, "GPL", 0, NULL, 0);
	F.filter = load_trivial_prog(BPF_PROG_TYPE_SOCKET_FILTER, 0, 0, "GPL", 0, NULL, 0);
	F.tcp = socket(AF_INET, SOCK_STREAM, 0);
	F.udp = socket(AF_INET, SOCK_DGRAM, 0);
	if (F.sops_map < 0 || F.sops_gone < 0 || F.add < 0 || F.widths < 0 || F.dummy < 0 ||
	    F.filter < 0 || F.tcp < 0 || F.udp < 0)
		return -1;
	/* registered, then deleted: TOBEFREE for good */
	sops_fill(value, F.add, "sops_badin");
	if (struct_ops_update(F.sops_gone, value) || bpf_map_delete_elem(F.sops_gone, &(__u32){0}))
		return -1;
	raw_reset(&F.cc, CC_NAME);
	if (raw_update(&F.cc) || set_cc(F.tcp, CC_NAME, sizeof(CC_NAME)))
		return -1;
	F.closed = closed_fd_number();
	return 0;
}

static void close_fixtures(void)
{
	close(F.tcp);
	close(F.udp);
	bpf_map_delete_elem(F.cc.map, &(__u32){0});
	raw_close(&F.cc);
	raw_close(&F.cc_init);
	close(F.sops_map);
	close(F.sops_gone);
	close(F.add);
	close(F.widths);
	close(F.dummy);
	close(F.filter);
}

/* One case: its errno, its log line, and nothing changed. */
static void run_case(const struct bad_input *c)
{
	struct snapshot before, after;
	const char *diff;
	int ret, err;

	take_snapshot(&before);
	log_buf[0] = '\0';
	errno = 0;
	ret = c->call();
	err = errno;
	if (ret > 0)	/* a map or prog it should not have made */
		close(ret);
	take_snapshot(&after);
	diff = snapshot_diff(&before, &after);

	if (ret >= 0 || err != c->err)
		printf("FAIL bad_input/%s: returned %d errno %d (%s), want errno %d (%s)%s%s\n",
		       c->name, ret, err, strerror(err), c->err, strerror(c->err),
		       log_buf[0] ? "; log:\n" : "", log_buf);
	else if (c->log && !strstr(log_buf, c->log))
		printf("FAIL bad_input/%s: want \"%s\" in the log:\n%s\n", c->name, c->log,
		       log_buf);
	else if (diff)
		printf("FAIL bad_input/%s: %s changed\n", c->name, diff);
	else {
		printf("PASS bad_input/%s\n", c->name);
		return;
	}
	test_failed = true;
}

/*
 * A program of the wrong kind in each function-pointer slot of
 * tcp_congestion_ops: ssthresh's program, or cong_avoid's in ssthresh.
 */
static int run_wrong_slots(void)
{
	const struct btf_type *t = btf__type_by_id(vmlinux_btf(), vmlinux_struct_id(TCA));
	const struct btf_member *m = btf_members(t);
	struct snapshot before, after;
	char name[64];
	int i, ret, err, n = 0;

	for (i = 0; i < btf_vlen(t); i++, m++) {
		const char *mname = btf__name_by_offset(vmlinux_btf(), m->name_off);

		if (!btf_is_ptr(btf__type_by_id(vmlinux_btf(), m->type)))
			continue;
		take_snapshot(&before);
		raw_reset(&F.cc_init, CC_INIT_NAME);
		raw_put_prog(&F.cc_init, mname, strcmp(mname, "ssthresh") ? F.cc_init.ssthresh :
							      F.cc_init.cong_avoid);
		errno = 0;
		ret = raw_update(&F.cc_init);
		err = errno;
		take_snapshot(&after);
		snprintf(name, sizeof(name), "update/wrong_prog_in_%s", mname);
		n++;
		if (ret == 0 || err != EINVAL) {
			printf("FAIL bad_input/%s: returned %d errno %d, want EINVAL\n", name, ret,
			       err);
			test_failed = true;
		} else if (snapshot_diff(&before, &after)) {
			printf("FAIL bad_input/%s: %s changed\n", name,
			       snapshot_diff(&before, &after));
			test_failed = true;
		} else {
			printf("PASS bad_input/%s\n", name);
		}
	}
	return n;
}

/* Refused updates leave a map that registers with a good value. */
static void check_maps_still_register(void)
{
	char buf[32];
	bool ok;

	ok = !struct_ops_update(F.sops_map, good_sops_value()) &&
	     !strcmp(sops_field("registered", buf, sizeof(buf)), "sops_badin");
	raw_reset(&F.cc_init, CC_INIT_NAME);
	ok = ok && !raw_update(&F.cc_init) && sysctl_lists(AVAILABLE, CC_INIT_NAME);
	bpf_map_delete_elem(F.sops_map, &(__u32){ 0 });
	bpf_map_delete_elem(F.cc_init.map, &(__u32){ 0 });
	if (ok) {
		printf("PASS bad_input/after/maps_still_register\n");
	} else {
		printf("FAIL bad_input/after/maps_still_register: errno %d (%s)\n", errno,
		       strerror(errno));
		test_failed = true;
	}
}

int main(void)
{
	unsigned int i;
	int slots;

	test_prog_name = "bad_input";
	if (setup_fixtures()) {
		printf("FAIL bad_input/fixtures: errno %d (%s)\n", errno, strerror(errno));
		close_fixtures();
		return 1;
	}
	for (i = 0; i < ARRAY_LEN(cases); i++)
		run_case(&cases[i]);
	slots = run_wrong_slots();
	check_maps_still_register();
	printf("# bad_input: %u cases in the table, %d wrong-slot cases, %s\n", i, slots,
	       test_failed ? "some failed" : "all refused with their errno, nothing changed");
	close_fixtures();
	return test_failed;
}
