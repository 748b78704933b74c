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

static void preemptible_caller(void)
{
	struct run_guarantees *skel = run_guarantees__open_and_load();
	struct bpf_link *link = skel ? bpf_map__attach_struct_ops(skel->maps.guarantees) : NULL;
	char buf[32];
	int err = -1;

	if (link)
		err = sops_cmd("call");
	sops_field("add", buf, sizeof(buf));
	bpf_link__destroy(link);
	CHECK(link, "load or attach failed: errno %d", errno);
	CHECK_EQ(err, 0);
	/* "call" adds 2 and 3: 0 if the program found a promise broken */
	CHECK_STR(buf, "5");
	CHECK_EQ(skel->bss->migrate_disabled_calls, 1);
	CHECK_EQ(skel->bss->preempt_off_calls, 0);
	CHECK_EQ(skel->bss->unpinned_calls, 0);
	CHECK_EQ(skel->bss->outside_rcu_calls, 0);
	run_guarantees__destroy(skel);
}

static void caller_with_preemption_off(void)
{
	struct run_guarantees *skel = run_guarantees__open_and_load();
	struct bpf_link *link = skel ? bpf_map__attach_struct_ops(skel->maps.guarantees) : NULL;
	int err = -1;

	if (link)
		err = sops_cmd("bench 10000");
	bpf_link__destroy(link);
	CHECK(link, "load or attach failed: errno %d", errno);
	/* -EDOM: the sums differ, a call found a promise broken */
	CHECK_EQ(err, 0);
	CHECK_EQ(skel->bss->preempt_off_calls, BENCH_CALLS);
	CHECK_EQ(skel->bss->migrate_disabled_calls, 0);
	CHECK_EQ(skel->bss->unpinned_calls, 0);
	CHECK_EQ(skel->bss->outside_rcu_calls, 0);
	run_guarantees__destroy(skel);
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
