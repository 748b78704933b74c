#!/bin/bash
# README.md's "A congestion control in BPF, by hand", run as printed: the
# lines between its <!-- guest --> markers, in the project's directory as
# make shell starts there (lib/by_hand.sh); each must succeed, the transfer
# must have run bpf_cubic at both ends, and the unregister must leave the
# default at the built-in cubic and bpf_cubic gone.
name=readme_by_hand
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/lib/test.sh"
. "$top/lib/by_hand.sh"
saved=$(sysctl -n net.ipv4.tcp_congestion_control)
dir=$(mktemp -d /tmp/readme_by_hand.XXXXXX)
cleanup() {
	bpftool struct_ops unregister name cubic >/dev/null 2>&1
	sysctl -qw net.ipv4.tcp_congestion_control="$saved"
	rm -rf /tmp/vmlinux.h /tmp/cubic.bpf.o "$dir"
}
trap cleanup EXIT

by_hand "$top/README.md" "$dir"
transfer=$(by_hand_out 'iperf3 -c')
if [ "$(echo "$transfer" | grep -c '_tcp_congestion":[[:space:]]*"bpf_cubic"')" = 2 ]; then
	pass transfer_on_bpf_cubic
else
	fail transfer_on_bpf_cubic "the transfer's JSON said: $transfer"
fi
if [ "$(sysctl -n net.ipv4.tcp_congestion_control)" = cubic ] &&
   ! grep -qw bpf_cubic /proc/sys/net/ipv4/tcp_available_congestion_control; then
	pass unregistered_default_back
else
	fail unregistered_default_back "default $(sysctl -n net.ipv4.tcp_congestion_control), available: $(cat /proc/sys/net/ipv4/tcp_available_congestion_control)"
fi
exit $rc
