// SPDX-License-Identifier: GPL-2.0
/*
 * What a struct_ops program may count on whichever way the trampoline
 * enters it, checked by the program itself on every call
 * (bpf/run_guarantees.bpf.c) on the test target:
 *
 *  - from a preemptible caller ("call", a debugfs write) the trampoline
 *    disables migration; from one that runs with preemption off ("bench",
 *    timed with preemption off) it need not, and does not;
 *  - every call runs under RCU;
 *  - with BPF statistics on, every call is counted, and none with them off.
 */
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "lib/test.h"
#include "lib/sops.h"
#include "run_guarantees.skel.h"

#define BENCH_CALLS 10000

/* The program's run count, as bpf_prog_info reports it. */
static __u64 run_cnt(const struct bpf_program *prog)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(bpf_program__fd(prog), &info, &len))
		return ~0ULL;
	return info.run_cnt;
}

/*
 * Run cmd on the test target with the program registered: every call must
 * have found its promises kept, want_migrate of them pinned by the
 * trampoline's migrate_disable() and want_preempt_off by the caller.
 */
static void calls_pinned(const char *cmd, __u64 want_migrate, __u64 want_preempt_off)
{
	struct run_guarantees *skel = run_guarantees__open_and_load();
	struct bpf_link *link = skel ? bpf_map__attach_struct_ops(skel->maps.guarantees) : NULL;
	__u64 unpinned = 0, outside_rcu = 0, migrate = 0, preempt_off = 0;
	int err = -1;

	if (link) {
		err = sops_cmd(cmd);
		unpinned = skel->bss->unpinned_calls;
		outside_rcu = skel->bss->outside_rcu_calls;
		migrate = skel->bss->migrate_disabled_calls;
		preempt_off = skel->bss->preempt_off_calls;
	}
	bpf_link__destroy(link);
	run_guarantees__destroy(skel);
	CHECK(link, "load or attach failed: errno %d", errno);
	/* "bench" fails with EDOM where a call broke a promise (sums differ) */
	CHECK_EQ(err, 0);
	CHECK_EQ(unpinned, 0);
	CHECK_EQ(outside_rcu, 0);
	CHECK_EQ(migrate, want_migrate);
	CHECK_EQ(preempt_off, want_preempt_off);
}

/* "call", a debugfs write: the trampoline itself must pin the program */
static void preemptible_caller(void)
{
	char buf[32];

	calls_pinned("call", 1, 0);
	/* "call" adds 2 and 3: 0 if the program found a promise broken */
	CHECK_STR(sops_field("add", buf, sizeof(buf)), "5");
}

/* "bench", batches with preemption off: no migrate_disable() needed */
static void caller_with_preemption_off(void)
{
	calls_pinned("bench 10000", 0, BENCH_CALLS);
}

static void stats_counted_when_on(void)
{
	struct run_guarantees *skel = run_guarantees__open_and_load();
	struct bpf_link *link = skel ? bpf_map__attach_struct_ops(skel->maps.guarantees) : NULL;
	const struct bpf_program *prog = skel ? skel->progs.guarded_add : NULL;
	__u64 off_before = 0, off_after = 0, on_before = 0, on_after = 0;
	int stats_fd = -1, err_on = -1, err_off = -1, err_call = -1;

	if (link) {
		off_before = run_cnt(prog);
		err_off = sops_cmd("bench 10000");
		off_after = run_cnt(prog);
		stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
		on_before = run_cnt(prog);
		err_on = sops_cmd("bench 10000");
		err_call = sops_cmd("call");
		on_after = run_cnt(prog);
	}
	if (stats_fd >= 0)
		close(stats_fd);
	bpf_link__destroy(link);
	run_guarantees__destroy(skel);
	CHECK(link, "load or attach failed: errno %d", errno);
	CHECK(stats_fd >= 0, "bpf_enable_stats: errno %d", errno);
	CHECK_EQ(err_off, 0);
	CHECK_EQ(err_on, 0);
	CHECK_EQ(err_call, 0);
	CHECK_EQ(off_after - off_before, 0);
	/* both ways in: the bench's calls and the preemptible call */
	CHECK_EQ(on_after - on_before, BENCH_CALLS + 1);
}

TEST_MAIN(SUBTEST(preemptible_caller), SUBTEST(caller_with_preemption_off),
	  SUBTEST(stats_counted_when_on))
