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
 *  - with BPF statistics on, every call is counted, and none with them off;
 *  - a program preempted while a grace period waits for it ends its RCU
 *    read-side critical section: grace periods go on completing.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <unistd.h>
#include <linux/membarrier.h>
#include <sys/syscall.h>
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

/*
 * Empty loops that keep the program running long enough to be preempted:
 * from a quarter million, four times more each try until it was, up to
 * bpf_loop()'s limit (a debug kernel runs them far slower than a release
 * one)
 */
#define SPIN_LOOPS_MIN (1 << 18)
#define SPIN_LOOPS_MAX (1 << 23)

static volatile int stop_threads;
static volatile __u64 grace_periods;

static int pin_to_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

/* On the program's CPU: something to preempt the program for */
static void *spinner(void *arg)
{
	pin_to_cpu(0);
	while (!stop_threads)
		;
	return NULL;
}

/* On the other CPU: grace period after grace period (synchronize_rcu()) */
static void *grace_period_waiter(void *arg)
{
	pin_to_cpu(1);
	while (!stop_threads) {
		if (syscall(__NR_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0))
			break;
		grace_periods++;
	}
	return NULL;
}

/*
 * Whether the kernel was booted to preempt anywhere (PREEMPT_DYNAMIC;
 * tests/run-guest checks that the kernel took the mode).
 */
static bool fully_preemptible(void)
{
	char cmdline[4096] = "";
	int fd = open("/proc/cmdline", O_RDONLY);

	if (fd >= 0) {
		if (read(fd, cmdline, sizeof(cmdline) - 1) < 0)
			cmdline[0] = '\0';
		close(fd);
	}
	return strstr(cmdline, "preempt=full");
}

/*
 * A preemptible caller whose program runs long, on a CPU shared with a
 * spinning thread, while the other CPU waits for grace periods: the
 * program is preempted inside its RCU read-side critical section, and a
 * grace period waits for it. Its exit must end that section: grace periods
 * go on completing, and the thread goes on to sleep without RCU's warning
 * of a voluntary context switch inside a reader (a splat fails the run).
 * On a kernel without lockdep the trampoline's RCU unlock is emitted
 * inline (patch 0029), and this is where its slow path runs; a slow path
 * skipped would only delay the grace period to the next tick, which this
 * cannot see.
 */
static void preempted_reader(void)
{
	struct run_guarantees *skel = run_guarantees__open_and_load();
	struct bpf_link *link = skel ? bpf_map__attach_struct_ops(skel->maps.guarantees) : NULL;
	__u64 unpinned = 0, outside_rcu = 0, preempted = 0, gp_after_call = 0;
	pthread_t spin, waiter;
	int err = -1, waited_ms, loops;

	CHECK(link, "load or attach failed: errno %d", errno);
	if (!link || pin_to_cpu(0) || sysconf(_SC_NPROCESSORS_ONLN) < 2 ||
	    !fully_preemptible()) {
		bpf_link__destroy(link);
		run_guarantees__destroy(skel);
		SKIP("needs two CPUs and a kernel booted preempt=full (make test's second boot)");
	}
	stop_threads = 0;
	pthread_create(&spin, NULL, spinner, NULL);
	pthread_create(&waiter, NULL, grace_period_waiter, NULL);

	for (loops = SPIN_LOOPS_MIN; ; loops *= 4) {
		if (loops > SPIN_LOOPS_MAX)
			loops = SPIN_LOOPS_MAX;
		skel->bss->spin_loops = loops;
		err = sops_cmd("call");
		preempted = skel->bss->preempted_inside_calls;
		if (err || preempted > 0 || loops == SPIN_LOOPS_MAX)
			break;
	}
	gp_after_call = grace_periods;
	/* two more grace periods: one that began after the program's exit */
	for (waited_ms = 0; waited_ms < 20000 && grace_periods < gp_after_call + 2; waited_ms += 10)
		usleep(10000);
	unpinned = skel->bss->unpinned_calls;
	outside_rcu = skel->bss->outside_rcu_calls;
	stop_threads = 1;
	pthread_join(spin, NULL);
	pthread_join(waiter, NULL);
	bpf_link__destroy(link);
	run_guarantees__destroy(skel);

	CHECK_EQ(err, 0);
	CHECK_EQ(unpinned, 0);
	CHECK_EQ(outside_rcu, 0);
	CHECK(preempted > 0, "the program ran %d loops without being preempted in them: "
	      "nothing tested", loops);
	CHECK(grace_periods >= gp_after_call + 2,
	      "no grace period completed in %d ms after the preempted program's exit", waited_ms);
}

TEST_MAIN(SUBTEST(preemptible_caller), SUBTEST(caller_with_preemption_off),
	  SUBTEST(stats_counted_when_on), SUBTEST(preempted_reader))
