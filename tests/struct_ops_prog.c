// SPDX-License-Identifier: GPL-2.0
/*
 * BPF_PROG_TYPE_STRUCT_OPS: what the verifier accepts and refuses, with
 * upstream 6.1's errnos and log lines, and the trampolines of the
 * bpf_dummy_ops test target run through BPF_PROG_TEST_RUN.
 */
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "lib/test.h"
#include "lib/sys.h"
#include "lib/insn.h"
#include "dummy_ops.skel.h"

#ifndef ENOTSUPP
#define ENOTSUPP 524
#endif

#define SOPS "bpf_struct_ops_test"
static char log_buf[4096];

static int sops_load(const char *member, const struct bpf_insn *insns,
		     unsigned int n, const char *license)
{
	int idx = vmlinux_member_index(SOPS, member);

	if (idx < 0)
		return -100;
	return load_prog(BPF_PROG_TYPE_STRUCT_OPS, insns, n, vmlinux_struct_id(SOPS),
			 idx, license, log_buf, sizeof(log_buf));
}

static const struct bpf_insn ret5[] = { I_MOV64_IMM(BPF_REG_0, 5), I_EXIT() };

static void loads_for_member(void)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);
	int fd = sops_load("add", ret5, ARRAY_LEN(ret5), "GPL");

	CHECK(fd >= 0, "errno %d, log: %s", errno, log_buf);
	CHECK_OK(bpf_obj_get_info_by_fd(fd, &info, &len));
	close(fd);
	CHECK_EQ(info.type, BPF_PROG_TYPE_STRUCT_OPS);
}

static void member_index_out_of_range(void)
{
	int id = vmlinux_struct_id(SOPS);
	int nr = btf_vlen(btf__type_by_id(vmlinux_btf(), id));
	char want[128];

	/* one past the last member */
	CHECK_ERRNO(load_prog(BPF_PROG_TYPE_STRUCT_OPS, ret5, 2, id, nr, "GPL",
			      log_buf, sizeof(log_buf)), EINVAL);
	snprintf(want, sizeof(want), "attach to invalid member idx %d of struct %s", nr, SOPS);
	CHECK(strstr(log_buf, want), "log: %s", log_buf);
	CHECK_ERRNO(load_prog(BPF_PROG_TYPE_STRUCT_OPS, ret5, 2, id, 0xffffffff, "GPL",
			      log_buf, sizeof(log_buf)), EINVAL);
	CHECK(strstr(log_buf, "attach to invalid member idx 4294967295 of struct"),
	      "log: %s", log_buf);
}

static void non_function_member(void)
{
	CHECK_ERRNO(sops_load("name", ret5, 2, "GPL"), EINVAL);
	CHECK(strstr(log_buf, "attach to invalid member name(@idx 4) of struct " SOPS),
	      "log: %s", log_buf);
}

static void member_refused_by_type(void)
{
	CHECK_ERRNO(sops_load("refused", ret5, 2, "GPL"), EOPNOTSUPP);
	CHECK(strstr(log_buf, "attach to unsupported member refused of struct " SOPS),
	      "log: %s", log_buf);
}

static void unknown_struct(void)
{
	int id = vmlinux_struct_id("task_struct");
	char want[64];

	CHECK_ERRNO(load_prog(BPF_PROG_TYPE_STRUCT_OPS, ret5, 2, id, 0, "GPL",
			      log_buf, sizeof(log_buf)), ENOTSUPP);
	snprintf(want, sizeof(want), "attach_btf_id %d is not a supported struct", id);
	CHECK(strstr(log_buf, want), "log: %s", log_buf);
}

static void missing_attach_btf_id(void)
{
	CHECK_ERRNO(load_prog(BPF_PROG_TYPE_STRUCT_OPS, ret5, 2, 0, 0, "GPL",
			      log_buf, sizeof(log_buf)), ENOTSUPP);
	CHECK(strstr(log_buf, "attach_btf_id 0 is not a supported struct"), "log: %s", log_buf);
}

static void non_gpl_license(void)
{
	CHECK_ERRNO(sops_load("add", ret5, 2, "Proprietary"), EINVAL);
	CHECK(strstr(log_buf, "struct ops programs must have a GPL compatible license"),
	      "log: %s", log_buf);
}

/* touch(ctx): ctx->out may be written, ctx->in may not */
static void write_where_allowed(void)
{
	const struct bpf_insn out[] = {
		I_LDX(BPF_DW, BPF_REG_1, BPF_REG_1, 0),
		I_MOV64_IMM(BPF_REG_2, 1),
		I_STX(BPF_DW, BPF_REG_1, BPF_REG_2, 8),
		I_EXIT(),
	};
	const struct bpf_insn in[] = {
		I_LDX(BPF_DW, BPF_REG_1, BPF_REG_1, 0),
		I_MOV64_IMM(BPF_REG_2, 1),
		I_STX(BPF_DW, BPF_REG_1, BPF_REG_2, 0),
		I_EXIT(),
	};
	int fd = sops_load("touch", out, ARRAY_LEN(out), "GPL");

	CHECK(fd >= 0, "write to out refused: errno %d, log: %s", errno, log_buf);
	close(fd);
	CHECK_ERRNO(sops_load("touch", in, ARRAY_LEN(in), "GPL"), EACCES);
	CHECK(strstr(log_buf, "no write access to bpf_struct_ops_test_ctx at off 0 size 8"),
	      "log: %s", log_buf);
}

/* touch() returns void: no R0 needed. add() returns int: R0 must be set. */
static void return_value_rules(void)
{
	const struct bpf_insn bare[] = { I_EXIT() };
	int fd = sops_load("touch", bare, 1, "GPL");

	CHECK(fd >= 0, "void member: errno %d, log: %s", errno, log_buf);
	close(fd);
	CHECK_ERRNO(sops_load("add", bare, 1, "GPL"), EACCES);
	CHECK(strstr(log_buf, "R0 !read_ok"), "log: %s", log_buf);
}

static void map_not_usable_by_progs(void)
{
	int mfd, err;

	mfd = create_struct_ops_map(SOPS, NULL, NULL);
	CHECK(mfd >= 0, "map create: errno %d", errno);
	{
		const struct bpf_insn use[] = {
			I_LD_MAP_FD(BPF_REG_1, mfd),
			I_MOV64_IMM(BPF_REG_0, 0),
			I_EXIT(),
		};

		errno = 0;
		err = load_prog(BPF_PROG_TYPE_SOCKET_FILTER, use, ARRAY_LEN(use), 0, 0,
				"GPL", log_buf, sizeof(log_buf));
	}
	close(mfd);
	CHECK(err < 0 && errno == EINVAL, "load returned %d errno %d", err, errno);
	CHECK(strstr(log_buf, "bpf_struct_ops map cannot be used in prog"), "log: %s", log_buf);
}

static int test_run(int prog_fd, __u64 *args, __u32 nargs, int *retval)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts, .ctx_in = args,
		    .ctx_size_in = nargs * sizeof(__u64));
	int err = bpf_prog_test_run_opts(prog_fd, &opts);

	*retval = opts.retval;
	return err;
}

/* test_1(state): reads state->val, writes 0x5a back; NULL state too */
static void dummy_pointer_argument(void)
{
	struct bpf_dummy_ops_state { int val; } state = { .val = 7 };
	struct dummy_ops *skel = dummy_ops__open_and_load();
	__u64 args[1] = { (__u64)(unsigned long)&state };
	int fd, retval, err;

	CHECK(skel, "skeleton load failed: errno %d", errno);
	fd = bpf_program__fd(skel->progs.test_1);
	err = test_run(fd, args, 1, &retval);
	if (!err && retval == 7 && state.val == 0x5a) {
		args[0] = 0;
		err = test_run(fd, args, 1, &retval);
	} else {
		err = err ?: -1000;
	}
	CHECK(!err, "test_run: %d, retval %d, state %#x", err, retval, state.val);
	CHECK_EQ(retval, (int)0xf2f3f4f5);
	CHECK_EQ(skel->bss->test_1_calls, 2);
	dummy_ops__destroy(skel);
}

/* test_2(state, int, unsigned short, char, unsigned long): each argument
 * arrives intact through the trampoline, and so does the return value.
 */
static void dummy_argument_widths(void)
{
	struct dummy_ops *skel = dummy_ops__open_and_load();
	/* a NULL state: the program sees NULL */
	__u64 args[5] = { 0, (__u32)-3, 0xfffe, 0x7f, 0x8877665544332211ULL };
	int retval = 0;

	CHECK(skel, "skeleton load failed: errno %d", errno);
	CHECK_OK(test_run(bpf_program__fd(skel->progs.test_2), args, 5, &retval));
	CHECK_EQ(retval, -3 + 0xfffe);
	CHECK_EQ(skel->bss->test_2_args[0], 0);
	CHECK_EQ((int)skel->bss->test_2_args[1], -3);
	CHECK_EQ(skel->bss->test_2_args[2], 0xfffe);
	CHECK_EQ(skel->bss->test_2_args[3], 0x7f);
	CHECK_EQ(skel->bss->test_2_args[4], 0x8877665544332211ULL);
	dummy_ops__destroy(skel);
}

static void dummy_test_run_errors(void)
{
	struct dummy_ops *skel = dummy_ops__open_and_load();
	__u64 args[2] = {};
	int retval, fd;

	CHECK(skel, "skeleton load failed: errno %d", errno);
	/* ctx_size_in must be one u64 per argument */
	errno = 0;
	retval = test_run(bpf_program__fd(skel->progs.test_1), args, 2, &retval);
	dummy_ops__destroy(skel);
	CHECK(retval < 0 && errno == EINVAL, "returned %d errno %d", retval, errno);
	/* only bpf_dummy_ops programs can be test-run */
	fd = sops_load("add", ret5, 2, "GPL");
	CHECK(fd >= 0, "errno %d", errno);
	errno = 0;
	retval = test_run(fd, args, 2, &retval);
	close(fd);
	CHECK(retval < 0 && errno == EOPNOTSUPP, "returned %d errno %d", retval, errno);
}

/* bpf_dummy_ops cannot be registered: attaching its map fails. */
static void dummy_registration_refused(void)
{
	struct dummy_ops *skel = dummy_ops__open_and_load();
	struct bpf_link *link;
	long err;

	CHECK(skel, "skeleton load failed: errno %d", errno);
	link = bpf_map__attach_struct_ops(skel->maps.dummy);
	err = link ? 0 : -errno;
	bpf_link__destroy(link);
	dummy_ops__destroy(skel);
	CHECK_EQ(err, -EOPNOTSUPP);
}

TEST_MAIN(SUBTEST(loads_for_member), SUBTEST(member_index_out_of_range),
	  SUBTEST(non_function_member), SUBTEST(member_refused_by_type),
	  SUBTEST(unknown_struct), SUBTEST(missing_attach_btf_id),
	  SUBTEST(non_gpl_license), SUBTEST(write_where_allowed),
	  SUBTEST(return_value_rules), SUBTEST(map_not_usable_by_progs),
	  SUBTEST(dummy_pointer_argument), SUBTEST(dummy_argument_widths),
	  SUBTEST(dummy_test_run_errors), SUBTEST(dummy_registration_refused))
