/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Network namespaces and their set-up for the tests, with as few processes
 * as can be: every fork and exec costs the debug guest a second or more.
 */
#ifndef STRUCT_OPS_NETNS_H
#define STRUCT_OPS_NETNS_H

/*
 * One process of ip or tc for many commands: "TOOL [-n NS] -batch -" fed
 * one line per command (ns NULL: this namespace). A NULL-terminated list of
 * such steps is a set-up (netns_setup()).
 */
struct netns_batch {
	const char *tool;		/* "ip" or "tc" */
	const char *ns;			/* NULL: the caller's namespace */
	const char * const *lines;	/* NULL-terminated */
};

/* Run steps in order until one fails; 0, or -1 with the tool's message
 * (which line) on stderr.
 */
int netns_setup(const struct netns_batch *steps);

/*
 * Two new namespaces joined by a veth pair: each end addressed and up (with
 * link_opts, e.g. "mtu 9000"), lo up in both, then each end's qdiscs (tc
 * lines, NULL: none). The bottlenecks of the tests are these, with
 * different qdiscs.
 */
struct veth_path {
	const char *snd_ns, *rcv_ns;
	const char *snd_dev, *rcv_dev;
	const char *snd_addr, *rcv_addr;	/* with the prefix: "10.77.0.1/24" */
	const char *link_opts;
	const char * const *snd_tc, * const *rcv_tc;
};

/* Build it; 0, or -1 with the failing tool's message on stderr. */
int netns_veth_path(const struct veth_path *p);

/* Delete the named namespace, as "ip netns del" does; an absent one is no
 * error. Its interfaces go with it once nothing holds it.
 */
void netns_delete(const char *name);

#endif
