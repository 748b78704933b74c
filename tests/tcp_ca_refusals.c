// SPDX-License-Identifier: GPL-2.0
/*
 * What a BPF congestion control may not do, and the exact error for each:
 * writes outside the congestion state, a non-GPL license,
 * sockopt helpers from release(); at registration, a missing mandatory op,
 * unknown flags, a bad or taken name. A refused registration leaves the
 * map INIT and usable. And programs written for upstream 6.1's selftests
 * load, or are refused, exactly as there.
 */
#include <unistd.h>
#include <sys/socket.h>
#include <bpf/bpf.h>

#include "lib/test.h"
#include "lib/cc.h"
#include "lib/insn.h"
#include "lib/net.h"
#include "lib/rawcc.h"
#include "lib/sys.h"

static char log_buf[65536];

/* An init() that stores an imm of size bytes at tcp_sock + off. */
static int load_write(int off, int size)
{
	static const int sizes[] = { [1] = BPF_B, [2] = BPF_H, [4] = BPF_W, [8] = BPF_DW };
	struct bpf_insn insns[] = {
		I_LDX(BPF_DW, BPF_REG_1, BPF_REG_1, 0),	/* r1 = sk */
		I_MOV64_IMM(BPF_REG_2, 10),
		I_STX(sizes[size], BPF_REG_1, BPF_REG_2, off),
		I_EXIT(),
	};

	return load_prog(BPF_PROG_TYPE_STRUCT_OPS, insns, ARRAY_LEN(insns),
			 vmlinux_struct_id(TCA), tca_member("init"), "GPL",
			 log_buf, sizeof(log_buf));
}

static const char * const writable[] = {
	"sk_pacing_rate", "sk_pacing_status", "icsk_ack.pending", "icsk_ca_priv",
	"snd_cwnd", "snd_cwnd_cnt", "snd_ssthresh", "ecn_flags",
};

/* Each writable field at its own size; the private area anywhere in it. */
static void writes_to_congestion_state(void)
{
	__u32 off, size;
	unsigned int i;
	int fd;

	for (i = 0; i < ARRAY_LEN(writable); i++) {
		CHECK_OK(vmlinux_field("tcp_sock", writable[i], &off, &size));
		fd = load_write(off, size > 8 ? 8 : size);
		CHECK(fd >= 0, "write to %s refused: %s", writable[i], log_buf);
		close(fd);
	}
	CHECK_OK(vmlinux_field("tcp_sock", "icsk_ca_priv", &off, &size));
	fd = load_write(off + size - 4, 4);
	CHECK(fd >= 0, "write to the end of icsk_ca_priv refused: %s", log_buf);
	close(fd);
}

static void check_refused_write(int off, int size, const char *want)
{
	CHECK_ERRNO(load_write(off, size), EACCES);
	CHECK(strstr(log_buf, want), "want \"%s\" in the log:\n%s", want, log_buf);
}

static void writes_elsewhere_refused(void)
{
	__u32 off, size;
	char want[160];

	/* a field not in the list */
	CHECK_OK(vmlinux_field("tcp_sock", "srtt_us", &off, &size));
	snprintf(want, sizeof(want), "no write support to tcp_sock at off %u\n", off);
	check_refused_write(off, 4, want);
	if (test_failed)
		return;
	/* inside snd_cwnd, not at its start */
	CHECK_OK(vmlinux_field("tcp_sock", "snd_cwnd", &off, &size));
	snprintf(want, sizeof(want), "no write support to tcp_sock at off %u\n", off + 1);
	check_refused_write(off + 1, 1, want);
	if (test_failed)
		return;
	/* spilling over the end of snd_cwnd */
	snprintf(want, sizeof(want),
		 "write access at off %u with size 8 beyond the member of tcp_sock ended at %u\n",
		 off, off + size);
	check_refused_write(off, 8, want);
	if (test_failed)
		return;
	/* over the end of the private area */
	CHECK_OK(vmlinux_field("tcp_sock", "icsk_ca_priv", &off, &size));
	snprintf(want, sizeof(want),
		 "write access at off %u with size 8 beyond the member of tcp_sock ended at %u\n",
		 off + size - 4, off + size);
	check_refused_write(off + size - 4, 8, want);
}

/* Another struct reached from the socket is read-only. */
static void writes_through_pointers_refused(void)
{
	__u32 off, size;
	struct bpf_insn insns[] = {
		I_LDX(BPF_DW, BPF_REG_1, BPF_REG_1, 0),	/* r1 = sk */
		I_LDX(BPF_DW, BPF_REG_1, BPF_REG_1, 0),	/* r1 = sk->sk_socket */
		I_MOV64_IMM(BPF_REG_2, 1),
		I_STX(BPF_W, BPF_REG_1, BPF_REG_2, 0),
		I_EXIT(),
	};

	CHECK_OK(vmlinux_field("tcp_sock", "sk_socket", &off, &size));
	insns[1].off = off;
	CHECK_ERRNO(load_prog(BPF_PROG_TYPE_STRUCT_OPS, insns, ARRAY_LEN(insns),
			      vmlinux_struct_id(TCA), tca_member("init"), "GPL",
			      log_buf, sizeof(log_buf)), EACCES);
	CHECK(strstr(log_buf, "only read is supported\n"), "log:\n%s", log_buf);
}

/*
 * get_info is the one member upstream 6.1 refuses (ENOTSUPP) that this
 * series lets a program implement: what it may do is in bad_input's
 * get_info cases and in cc_info.
 */
static void get_info_loads(void)
{
	int fd = load_trivial_prog(BPF_PROG_TYPE_STRUCT_OPS, vmlinux_struct_id(TCA),
				   tca_member("get_info"), "GPL", 0, log_buf, sizeof(log_buf));

	CHECK(fd >= 0, "errno %d; log:\n%s", errno, log_buf);
	close(fd);
}

static void license_must_be_gpl(void)
{
	CHECK_ERRNO(load_trivial_prog(BPF_PROG_TYPE_STRUCT_OPS, vmlinux_struct_id(TCA),
				      tca_member("ssthresh"), "Proprietary", 2, log_buf,
				      sizeof(log_buf)), EINVAL);
	CHECK(strstr(log_buf, "struct ops programs must have a GPL compatible license"),
	      "log:\n%s", log_buf);
}

/* bpf_setsockopt(sk, SOL_TCP, TCP_CONGESTION, "", 16) from member m */
static int load_sockopt_call(const char *m, int helper)
{
	struct bpf_insn insns[] = {
		I_LDX(BPF_DW, BPF_REG_1, BPF_REG_1, 0),
		I_MOV64_IMM(BPF_REG_2, 0),
		I_STX(BPF_DW, BPF_REG_10, BPF_REG_2, -8),
		I_STX(BPF_DW, BPF_REG_10, BPF_REG_2, -16),
		I_SOCKOPT_ARGS(6, 13, -16, 16),
		I_CALL(helper),
		I_EXIT(),
	};

	return load_prog(BPF_PROG_TYPE_STRUCT_OPS, insns, ARRAY_LEN(insns),
			 vmlinux_struct_id(TCA), tca_member(m), "GPL", log_buf,
			 sizeof(log_buf));
}

static void sockopt_not_from_release(void)
{
	int fd;

	fd = load_sockopt_call("init", BPF_FUNC_setsockopt);
	CHECK(fd >= 0, "setsockopt from init refused:\n%s", log_buf);
	close(fd);
	fd = load_sockopt_call("init", BPF_FUNC_getsockopt);
	CHECK(fd >= 0, "getsockopt from init refused:\n%s", log_buf);
	close(fd);
	CHECK_ERRNO(load_sockopt_call("release", BPF_FUNC_setsockopt), EINVAL);
	CHECK(strstr(log_buf, "unknown func bpf_setsockopt#49"), "log:\n%s", log_buf);
	CHECK_ERRNO(load_sockopt_call("release", BPF_FUNC_getsockopt), EINVAL);
	CHECK(strstr(log_buf, "unknown func bpf_getsockopt#57"), "log:\n%s", log_buf);
}

/* bpf_tcp_send_ack() takes the program's tcp_sock, nothing else. */
static void send_ack_takes_the_socket(void)
{
	struct bpf_insn insns[] = {
		I_LDX(BPF_DW, BPF_REG_1, BPF_REG_1, 0),
		I_MOV64_IMM(BPF_REG_2, 0),
		I_CALL(BPF_FUNC_tcp_send_ack),
		I_EXIT(),
	};
	int fd;

	fd = load_prog(BPF_PROG_TYPE_STRUCT_OPS, insns, ARRAY_LEN(insns),
		       vmlinux_struct_id(TCA), tca_member("cwnd_event"), "GPL",
		       log_buf, sizeof(log_buf));
	CHECK(fd >= 0, "send_ack refused:\n%s", log_buf);
	close(fd);
	insns[0] = I_MOV64_IMM(BPF_REG_1, 0);
	CHECK_ERRNO(load_prog(BPF_PROG_TYPE_STRUCT_OPS, insns, ARRAY_LEN(insns),
			      vmlinux_struct_id(TCA), tca_member("cwnd_event"), "GPL",
			      log_buf, sizeof(log_buf)), EACCES);
	CHECK(strstr(log_buf, "R1 type=scalar expected="), "log:\n%s", log_buf);
}

/* Refused with errno, the map stays INIT and nothing is registered. */
#define CHECK_REFUSED(r, err)							\
	do {									\
		CHECK_ERRNO(raw_update(r), err);				\
		CHECK_EQ(raw_state(r), 0);					\
		CHECK(!sysctl_lists(AVAILABLE, "so_raw_cc"), "registered anyway");	\
	} while (0)

static void registration_refusals(void)
{
	char unterminated[16], bad[16] = "so-raw-cc";
	__u32 flags = 0x4, key = 1;
	struct raw_cc r;

	CHECK_OK(raw_open(&r));
	memset(unterminated, 'a', sizeof(unterminated));

	raw_reset(&r, "so_raw_cc");
	raw_put_prog(&r, "ssthresh", 0);
	CHECK_REFUSED(&r, EINVAL);
	raw_reset(&r, "so_raw_cc");
	raw_put_prog(&r, "undo_cwnd", 0);
	CHECK_REFUSED(&r, EINVAL);
	raw_reset(&r, "so_raw_cc");
	raw_put_prog(&r, "cong_avoid", 0);
	CHECK_REFUSED(&r, EINVAL);
	raw_reset(&r, "so_raw_cc");
	raw_put_bytes(&r, "flags", &flags, sizeof(flags));
	CHECK_REFUSED(&r, EINVAL);
	raw_reset(&r, "so_raw_cc");
	raw_put_bytes(&r, "key", &key, sizeof(key));
	CHECK_REFUSED(&r, EINVAL);
	raw_reset(&r, "");
	CHECK_REFUSED(&r, EINVAL);
	raw_reset(&r, "so_raw_cc");
	raw_put_bytes(&r, "name", unterminated, sizeof(unterminated));
	CHECK_REFUSED(&r, EINVAL);
	raw_reset(&r, "so_raw_cc");
	raw_put_bytes(&r, "name", bad, sizeof(bad));
	CHECK_REFUSED(&r, EINVAL);
	raw_reset(&r, "cubic");
	CHECK_REFUSED(&r, EEXIST);
	raw_reset(&r, "reno");
	CHECK_REFUSED(&r, EEXIST);
	/* a program in a member it was not verified for */
	raw_reset(&r, "so_raw_cc");
	raw_put_prog(&r, "cong_avoid", r.ssthresh);
	CHECK_REFUSED(&r, EINVAL);

	/* after all that, the same map registers */
	raw_reset(&r, "so_raw_cc");
	CHECK_OK(raw_update(&r));
	CHECK_EQ(raw_state(&r), 1);
	CHECK(sysctl_lists(AVAILABLE, "so_raw_cc"), "so_raw_cc not registered");
	CHECK(!sysctl_lists(ALLOWED, "so_raw_cc"), "so_raw_cc allowed while restricted");
	CHECK_OK(bpf_map_delete_elem(r.map, &(int){ 0 }));
	CHECK(!sysctl_lists(AVAILABLE, "so_raw_cc"), "so_raw_cc still registered");
	raw_close(&r);
}

/* cong_control may stand in for cong_avoid; NON_RESTRICTED is allowed. */
static void registration_variants(void)
{
	__u32 flags = 0x1;	/* TCP_CONG_NON_RESTRICTED */
	struct raw_cc r;

	CHECK_OK(raw_open(&r));
	raw_reset(&r, "so_raw_cc");
	raw_put_prog(&r, "cong_avoid", 0);
	raw_put_prog(&r, "cong_control", r.cong_control);
	raw_put_bytes(&r, "flags", &flags, sizeof(flags));
	CHECK_OK(raw_update(&r));
	CHECK(sysctl_lists(ALLOWED, "so_raw_cc"), "non-restricted so_raw_cc not allowed");
	CHECK_OK(bpf_map_delete_elem(r.map, &(int){ 0 }));
	CHECK(!sysctl_lists(ALLOWED, "so_raw_cc"), "so_raw_cc still allowed");
	raw_close(&r);
}

/*
 * Upstream 6.1's selftest programs, built unchanged from the kernel
 * tree: the CUBIC and DCTCP carry traffic, the rest are refused as
 * upstream refuses them.
 */
static void upstream_ccs_carry_traffic(void)
{
	static const char * const progs[][3] = {
		{ "upstream_bpf_cubic", "bpf_cubic", "cubic" },
		{ "upstream_bpf_dctcp", "bpf_dctcp", "dctcp" },
		{ "upstream_tcp_ca_write_sk_pacing", "bpf_w_sk_pacing", "write_sk_pacing" },
	};
	struct xfer x = { .family = AF_INET6, .bytes = 4 * 1000 * 1000 };
	struct bpf_cc cc;
	unsigned int i;
	int err;

	for (i = 0; i < ARRAY_LEN(progs); i++) {
		CHECK_OK(cc_open(&cc, progs[i][0], progs[i][1]));
		cc.ops = bpf_object__find_map_by_name(cc.obj, progs[i][2]);
		CHECK(cc.ops, "%s: no map %s", cc.name, progs[i][2]);
		err = cc_attach(&cc);
		CHECK(!err, "%s: attach: %s", cc.name, strerror(-err));
		x.cc = cc.name;
		CHECK(!run_xfer(&x), "%s: %s: %s", cc.name, x.failed, strerror(x.err));
		CHECK_EQ(x.received, x.bytes);
		CHECK(!x.corrupt, "%s: data corrupted", cc.name);
		CHECK_STR(x.client_cc, cc.name);
		cc_close(&cc);
	}
}

static void upstream_refusals(void)
{
	struct bpf_cc cc;

	/* release() calling bpf_setsockopt() */
	CHECK_EQ(cc_open(&cc, "upstream_bpf_dctcp_release", "bpf_dctcp"), -EINVAL);
	/* get_info() alone: it loads here (upstream 6.1: ENOTSUPP), and the
	 * mandatory ops it lacks keep it from registering
	 */
	CHECK_OK(cc_open(&cc, "upstream_tcp_ca_unsupp_cong_op", "bpf_unsupp_op"));
	CHECK_EQ(cc_attach(&cc), -EINVAL);
	cc_close(&cc);
	/* load, but lack mandatory ops */
	CHECK_OK(cc_open(&cc, "upstream_tcp_ca_incompl_cong_ops", "bpf_incompl_ops"));
	CHECK_EQ(cc_attach(&cc), -EINVAL);
	cc_close(&cc);
	CHECK_OK(cc_open(&cc, "upstream_bpf_dctcp", "bpf_dctcp_nouse"));
	cc.ops = bpf_object__find_map_by_name(cc.obj, "dctcp_nouse");
	CHECK_EQ(cc_attach(&cc), -EINVAL);
	cc_close(&cc);
}

TEST_MAIN(SUBTEST(writes_to_congestion_state), SUBTEST(writes_elsewhere_refused),
	  SUBTEST(writes_through_pointers_refused), SUBTEST(get_info_loads),
	  SUBTEST(license_must_be_gpl), SUBTEST(sockopt_not_from_release),
	  SUBTEST(send_ack_takes_the_socket), SUBTEST(registration_refusals),
	  SUBTEST(registration_variants), SUBTEST(upstream_ccs_carry_traffic),
	  SUBTEST(upstream_refusals))
