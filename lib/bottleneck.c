// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bottleneck.h"
#include "netns.h"

static const char * const snd_tc[] = {
	"qdisc add dev veth_snd root handle 1: htb default 1",
	"class add dev veth_snd parent 1: classid 1:1 htb rate 10mbit",
	"qdisc add dev veth_snd parent 1:1 handle 10: fq_codel ecn ce_threshold 1ms",
	NULL,
};

static const char * const rcv_tc[] = {
	"qdisc add dev veth_rcv root netem delay 2ms",
	NULL,
};

static const struct veth_path bottleneck = {
	.snd_ns = "so_snd", .rcv_ns = "so_rcv",
	.snd_dev = "veth_snd", .rcv_dev = "veth_rcv",
	.snd_addr = "10.77.0.1/24", .rcv_addr = BOTTLENECK_RCV "/24",
	.link_opts = "gso_max_size 1500",
	.snd_tc = snd_tc, .rcv_tc = rcv_tc,
};

void bottleneck_teardown(void)
{
	netns_delete("so_snd");
	netns_delete("so_rcv");
}

int bottleneck_up(int *snd, int *rcv)
{
	static bool registered;

	if (!registered)
		registered = !atexit(bottleneck_teardown);
	bottleneck_teardown();
	if (netns_veth_path(&bottleneck))
		return -1;
	*snd = open("/run/netns/so_snd", O_RDONLY);
	*rcv = open("/run/netns/so_rcv", O_RDONLY);
	return *snd >= 0 && *rcv >= 0 ? 0 : -1;
}

long bottleneck_ce_marked(char *stats, size_t size)
{
	char line[512];
	long marked = -1;
	const char *p;
	FILE *f;

	stats[0] = '\0';
	f = popen("tc -n so_snd -s qdisc show dev veth_snd", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		strncat(stats, line, size - strlen(stats) - 1);
		p = strstr(line, "ce_mark ");
		if (p)
			marked = atol(p + 8);
	}
	pclose(f);
	return marked;
}
