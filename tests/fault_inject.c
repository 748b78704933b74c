// SPDX-License-Identifier: GPL-2.0
/*
 * Every allocation on the struct_ops paths, failed in turn: for an
 * operation (prog load, map create, update = register, lookup, delete =
 * unregister, the last close), fail its 1st allocation, then its 2nd, ...
 * until it runs through without reaching the N-th (fail-nth, with failslab
 * and fail_page_alloc armed for every kind of allocation). After each
 * injected fault: a clean error (ENOMEM), the map in a consistent state
 * (INIT and updatable again, or registered, or cleanly freed), and no map
 * or program id left behind. kmemleak is scanned at the end.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "lib/test.h"
#include "lib/insn.h"
#include "lib/net.h"
#include "lib/rawcc.h"
#include "lib/sops.h"
#include "lib/sys.h"

#define KMEMLEAK "/sys/kernel/debug/kmemleak"
/* No operation here makes this many allocations: a runaway guard. */
#define MAX_STEPS 2000
#define ENOTSUPP 524

static int fail_nth = -1;	/* /proc/thread-self/fail-nth */
static unsigned long total_faults;

/* failslab and fail_page_alloc's knobs, and what they were */
static const struct knob {
	const char *path, *value;
} knobs[] = {
	{ "/sys/kernel/debug/failslab/ignore-gfp-wait", "N" },
	{ "/sys/kernel/debug/failslab/verbose", "0" },
	{ "/sys/kernel/debug/fail_page_alloc/ignore-gfp-wait", "N" },
	{ "/sys/kernel/debug/fail_page_alloc/ignore-gfp-highmem", "N" },
	{ "/sys/kernel/debug/fail_page_alloc/min-order", "0" },
	{ "/sys/kernel/debug/fail_page_alloc/verbose", "0" },
};
static char saved[ARRAY_LEN(knobs)][16];

/* Let fail-nth fail any allocation, sleeping or not, of any order. */
static int arm(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_LEN(knobs); i++)
		if (sysctl_read(knobs[i].path, saved[i], sizeof(saved[i])) ||
		    sysctl_write(knobs[i].path, knobs[i].value))
			return -1;
	fail_nth = open("/proc/thread-self/fail-nth", O_RDWR);
	return fail_nth < 0 ? -1 : 0;
}

static void disarm(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_LEN(knobs); i++)
		if (saved[i][0])
			sysctl_write(knobs[i].path, saved[i]);
	close(fail_nth);
}

/* The n-th allocation of this thread from now on fails. */
static void fail_nth_alloc(int n)
{
	char buf[16];
	int len = snprintf(buf, sizeof(buf), "%d", n);

	pwrite(fail_nth, buf, len, 0);
}

/* Whether the fault was injected; disarms it either way. */
static bool fault_injected(void)
{
	char buf[16] = "";

	pread(fail_nth, buf, sizeof(buf) - 1, 0);
	pwrite(fail_nth, "0", 1, 0);
	return atoi(buf) == 0;
}

/* What the targets work on, made afresh for every step. */
static struct {
	int map, prog;
	struct raw_cc cc;
	bool cc_open;
	char value[4096];
} S = { .map = -1, .prog = -1 };

/*
 * One operation under fault injection. prepare() makes what op() needs
 * without faults; op() is the operation, nothing else; after_fault() and
 * after_success() say what is wrong with the state after op() failed or
 * succeeded (NULL: nothing); cleanup() frees it all.
 */
struct target {
	const char *name;
	int (*prepare)(void);
	int (*op)(void);
	/*
	 * Besides ENOMEM: a program whose JIT image cannot be allocated fails
	 * with ENOTSUPP under CONFIG_BPF_JIT_ALWAYS_ON (no interpreter).
	 */
	int alt_err;
	const char *(*after_fault)(void);
	const char *(*after_success)(void);
	void (*cleanup)(void);
};

/* All map and prog ids, as text: nothing may be left over. */
static const char *ids_now(char *ids, size_t size)
{
	size_t n = 0;
	__u32 id = 0;

	ids[0] = '\0';
	while (!bpf_map_get_next_id(id, &id) && n < size - 16)
		n += snprintf(ids + n, size - n, "m%u ", id);
	id = 0;
	while (!bpf_prog_get_next_id(id, &id) && n < size - 16)
		n += snprintf(ids + n, size - n, "p%u ", id);
	return ids;
}

/* Freeing waits for RCU: give the ids 10 s to go back to what they were. */
static bool ids_back_to(const char *before)
{
	char now[4096];
	int i;

	for (i = 0; i < 500; i++) {
		if (!strcmp(ids_now(now, sizeof(now)), before))
			return true;
		usleep(20 * 1000);
	}
	return false;
}

static int nothing_to_prepare(void)
{
	return 0;
}

static const char *nothing_to_check(void)
{
	return NULL;
}

static void close_all(void)
{
	__u32 zero = 0;

	if (S.map >= 0)
		bpf_map_delete_elem(S.map, &zero);
	if (S.cc_open) {
		bpf_map_delete_elem(S.cc.map, &zero);
		raw_close(&S.cc);
	}
	close(S.map);
	close(S.prog);
	S.map = S.prog = -1;
	S.cc_open = false;
}

/* ---- bpf_struct_ops_test ---- */

static int load_sops_prog(void)
{
	S.prog = sops_load_member(sops.add_idx);
	return S.prog;
}

static int create_sops_map(void)
{
	S.map = sops_create_map();
	return S.map;
}

static int prepare_sops(void)
{
	if (load_sops_prog() < 0 || create_sops_map() < 0)
		return -1;
	sops_fill(S.value, S.prog, "sops_fault");
	return 0;
}

static int prepare_sops_registered(void)
{
	return prepare_sops() ?: struct_ops_update(S.map, S.value);
}

static int register_sops(void)
{
	return struct_ops_update(S.map, S.value);
}

static int lookup_sops(void)
{
	return struct_ops_lookup(S.map, S.value);
}

static int unregister_sops(void)
{
	return bpf_map_delete_elem(S.map, &(__u32){ 0 });
}

/* The map's state and refcnt, and the name bpf_struct_ops_test has registered. */
static const char *sops_in_state(__u32 state, __u32 refcnt, const char *registered)
{
	struct struct_ops_header h;
	char buf[32];

	if (struct_ops_header(S.map, &h) || h.state != state || h.refcnt != refcnt)
		return "the map's state or refcnt is not what it should be";
	if (strcmp(sops_field("registered", buf, sizeof(buf)), registered))
		return "bpf_struct_ops_test has the wrong struct registered";
	return NULL;
}

static const char *sops_registered(void)
{
	const char *why = sops_in_state(STATE_INUSE, 1, "sops_fault");
	char buf[32];

	if (why)
		return why;
	if (sops_cmd("call") || strcmp(sops_field("add", buf, sizeof(buf)), "5"))
		return "its add() did not return 5 when called";
	return NULL;
}

/* A refused registration leaves the map INIT and zero; it registers after. */
static const char *sops_init_and_updatable(void)
{
	const char *why = sops_in_state(STATE_INIT, 0, "-");

	if (why)
		return why;
	if (struct_ops_lookup(S.map, S.value) || !all_zero(S.value, sops.value_size))
		return "the map is not zero after the failed update";
	sops_fill(S.value, S.prog, "sops_fault");
	if (struct_ops_update(S.map, S.value))
		return "the map cannot be registered after the failed update";
	return sops_registered();
}

/* A delete that failed (copying its key) left it registered, and deletable. */
static const char *sops_still_registered(void)
{
	return sops_registered() ?: unregister_sops() ? "it cannot be deleted after" : NULL;
}

static const char *sops_unregistered(void)
{
	return sops_in_state(STATE_TOBEFREE, 0, "-");
}

/* ---- tcp_congestion_ops ---- */

#define CC_NAME "bpf_fault"

static int create_tcp_map(void)
{
	S.map = create_struct_ops_map(TCA, NULL, NULL);
	return S.map;
}

static int prepare_tcp(void)
{
	S.cc_open = true;
	if (raw_open(&S.cc))
		return -1;
	raw_reset(&S.cc, CC_NAME);
	return 0;
}

static int prepare_tcp_registered(void)
{
	return prepare_tcp() ?: raw_update(&S.cc);
}

static int register_tcp(void)
{
	return raw_update(&S.cc);
}

static int unregister_tcp(void)
{
	return bpf_map_delete_elem(S.cc.map, &(__u32){ 0 });
}

static const char *tcp_registered(void)
{
	if (raw_state(&S.cc) != STATE_INUSE)
		return "the map is not INUSE";
	if (!sysctl_lists(AVAILABLE, CC_NAME))
		return CC_NAME " is not available";
	return NULL;
}

static const char *tcp_init_and_updatable(void)
{
	if (raw_state(&S.cc) != STATE_INIT)
		return "the map is not INIT after the failed update";
	if (sysctl_lists(AVAILABLE, CC_NAME))
		return CC_NAME " is available after the failed update";
	raw_reset(&S.cc, CC_NAME);
	if (raw_update(&S.cc))
		return "the map cannot be registered after the failed update";
	return tcp_registered();
}

static const char *tcp_unregistered(void)
{
	if (raw_state(&S.cc) != STATE_TOBEFREE)
		return "the map is not TOBEFREE";
	if (sysctl_lists(AVAILABLE, CC_NAME))
		return CC_NAME " is still available";
	return NULL;
}

static const char *tcp_still_registered(void)
{
	return tcp_registered() ?: unregister_tcp() ? "it cannot be deleted after" : NULL;
}

static const struct target targets[] = {
	{ "load_prog", nothing_to_prepare, load_sops_prog, ENOTSUPP,
	  nothing_to_check, nothing_to_check, close_all },
	{ "create_map", nothing_to_prepare, create_sops_map, 0,
	  nothing_to_check, nothing_to_check, close_all },
	{ "register", prepare_sops, register_sops, 0,
	  sops_init_and_updatable, sops_registered, close_all },
	{ "lookup", prepare_sops_registered, lookup_sops, 0,
	  sops_registered, sops_registered, close_all },
	{ "unregister", prepare_sops_registered, unregister_sops, 0,
	  sops_still_registered, sops_unregistered, close_all },
	{ "tcp_create_map", nothing_to_prepare, create_tcp_map, 0,
	  nothing_to_check, nothing_to_check, close_all },
	{ "tcp_register", prepare_tcp, register_tcp, 0,
	  tcp_init_and_updatable, tcp_registered, close_all },
	{ "tcp_unregister", prepare_tcp_registered, unregister_tcp, 0,
	  tcp_still_registered, tcp_unregistered, close_all },
};

/*
 * Step one target through its allocations. An injected fault either fails
 * the operation with ENOMEM or is absorbed (a fallback allocation): the
 * state must be right for whichever happened.
 */
static void run_target(const struct target *t)
{
	unsigned int n, failed = 0, absorbed = 0;
	char before[4096], now[4096];
	const char *why;
	int ret, err;

	for (n = 1; n <= MAX_STEPS; n++) {
		ids_now(before, sizeof(before));
		if (t->prepare()) {
			printf("FAIL fault_inject/%s: preparing step %u: errno %d\n", t->name, n,
			       errno);
			goto fail;
		}
		fail_nth_alloc(n);
		errno = 0;
		ret = t->op();
		err = errno;
		if (!fault_injected()) {
			why = ret < 0 ? "failed with no fault injected" : t->after_success();
			t->cleanup();
			if (!why && !ids_back_to(before))
				why = "map or prog ids left";
			if (why) {
				printf("FAIL fault_inject/%s: %s (errno %d)\n", t->name, why, err);
				goto fail;
			}
			break;
		}
		if (ret < 0 && err != ENOMEM && err != t->alt_err) {
			printf("FAIL fault_inject/%s: allocation %u failed: returned %d errno %d (%s), want ENOMEM\n",
			       t->name, n, ret, err, strerror(err));
			t->cleanup();
			goto fail;
		}
		ret < 0 ? failed++ : absorbed++;
		why = ret < 0 ? t->after_fault() : t->after_success();
		t->cleanup();
		if (why) {
			printf("FAIL fault_inject/%s: allocation %u failed: %s\n", t->name, n, why);
			goto fail;
		}
		if (!ids_back_to(before)) {
			printf("FAIL fault_inject/%s: allocation %u failed (returned %d errno %d): "
			       "map or prog ids left: before \"%s\", now \"%s\"\n", t->name, n, ret, err,
			       before, ids_now(now, sizeof(now)));
			goto fail;
		}
	}
	if (n > MAX_STEPS) {
		printf("FAIL fault_inject/%s: still allocating after %u steps\n", t->name, n);
		goto fail;
	}
	total_faults += n - 1;
	printf("PASS fault_inject/%s: %u allocations failed in turn: %u clean ENOMEM, %u absorbed\n",
	       t->name, n - 1, failed, absorbed);
	return;
fail:
	test_failed = true;
}

/* kmemleak: forget what it knew, and after the runs, find nothing new. */
static void kmemleak_cmd(const char *cmd)
{
	sysctl_write(KMEMLEAK, cmd);
}

static void check_kmemleak(void)
{
	char line[256];
	int leaks = 0;
	FILE *f;

	kmemleak_cmd("scan");
	kmemleak_cmd("scan");
	f = fopen(KMEMLEAK, "r");
	if (!f) {
		printf("SKIP fault_inject/kmemleak: no %s\n", KMEMLEAK);
		return;
	}
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "unreferenced object", 19)) {
			if (!leaks)
				printf("#     %s", line);
			leaks++;
		}
	fclose(f);
	if (leaks) {
		printf("FAIL fault_inject/kmemleak: %d unreferenced objects after the faults\n",
		       leaks);
		test_failed = true;
	} else {
		printf("PASS fault_inject/kmemleak: no leak after %lu injected faults\n",
		       total_faults);
	}
}

int main(void)
{
	unsigned int i;

	test_prog_name = "fault_inject";
	if (sops_init() || arm()) {
		printf("FAIL fault_inject/setup: errno %d (%s); needs CONFIG_FAULT_INJECTION, "
		       "FAILSLAB, FAIL_PAGE_ALLOC and FAULT_INJECTION_DEBUG_FS\n",
		       errno, strerror(errno));
		disarm();
		return 1;
	}
	kmemleak_cmd("clear");
	for (i = 0; i < ARRAY_LEN(targets); i++)
		run_target(&targets[i]);
	disarm();
	check_kmemleak();
	printf("# fault_inject: %lu allocations failed on purpose across %zu operations\n",
	       total_faults, ARRAY_LEN(targets));
	return test_failed;
}
