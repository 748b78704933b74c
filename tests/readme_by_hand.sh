#!/bin/bash
# README.md's "A congestion control in BPF, by hand", run as printed: the
# lines between its <!-- by hand --> markers, each in the project's
# directory as make shell starts there; each must succeed, the transfer
# must have run bpf_cubic at both ends, and the unregister must leave the
# default at the built-in cubic and bpf_cubic gone.
name=readme_by_hand
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/lib/test.sh"
saved=$(sysctl -n net.ipv4.tcp_congestion_control)
cleanup() {
	bpftool struct_ops unregister name cubic >/dev/null 2>&1
	sysctl -qw net.ipv4.tcp_congestion_control="$saved"
	rm -f /tmp/vmlinux.h /tmp/cubic.bpf.o
}
trap cleanup EXIT
cd "$top" || exit 1

mapfile -t lines < <(sed -n '/^<!-- by hand -->$/,/^<!-- end by hand -->$/s/^    //p' README.md)
[ ${#lines[@]} -ge 5 ] || { fail extract "found ${#lines[@]} lines between the markers"; exit 1; }
ok=1
for line in "${lines[@]}"; do
	if ! out=$(bash -c "$line" 2>&1); then
		fail "line_$(( ${#ran[@]} + 1 ))" "'$line' failed: $(echo "$out" | tail -n 3 | tr '\n' '|')"
		ok=0
		break
	fi
	ran+=("$line")
	case $line in
	iperf3*) transfer=$out ;;
	esac
done
[ $ok = 1 ] && pass "every_line_succeeds"
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
