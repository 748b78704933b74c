// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bottleneck.h"

static const char * const bottleneck_setup[] = {
	"ip netns add so_snd",
	"ip netns add so_rcv",
	"ip link add veth_snd netns so_snd type veth peer name veth_rcv netns so_rcv",
	"ip -n so_snd addr add 10.77.0.1/24 dev veth_snd",
	"ip -n so_rcv addr add " BOTTLENECK_RCV "/24 dev veth_rcv",
	"ip -n so_snd link set veth_snd up gso_max_size 1500",
	"ip -n so_rcv link set veth_rcv up gso_max_size 1500",
	"ip -n so_snd link set lo up",
	"ip -n so_rcv link set lo up",
	"tc -n so_snd qdisc add dev veth_snd root handle 1: htb default 1",
	"tc -n so_snd class add dev veth_snd parent 1: classid 1:1 htb rate 10mbit",
	"tc -n so_snd qdisc add dev veth_snd parent 1:1 handle 10: fq_codel ecn "
	"ce_threshold 1ms",
	"tc -n so_rcv qdisc add dev veth_rcv root netem delay 2ms",
	NULL,
};

void bottleneck_teardown(void)
{
	if (system("ip netns del so_snd 2>/dev/null; ip netns del so_rcv 2>/dev/null"))
		return;
}

int bottleneck_up(int *snd, int *rcv)
{
	static bool registered;
	int i;

	if (!registered)
		registered = !atexit(bottleneck_teardown);
	bottleneck_teardown();
	for (i = 0; bottleneck_setup[i]; i++) {
		if (system(bottleneck_setup[i])) {
			fprintf(stderr, "failed: %s\n", bottleneck_setup[i]);
			return -1;
		}
	}
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
