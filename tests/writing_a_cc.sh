#!/bin/bash
# docs/writing-a-cc.md, followed step by step in the guest: copy Reno,
# rename it, build it against the running kernel's BTF, register it with
# bpftool, select it, carry iperf3 traffic, observe, unregister.
name=writing_a_cc
top=$(cd "$(dirname "$0")/.." && pwd)
dir=$(mktemp -d /tmp/mycc.XXXXXX)
. "$top/lib/test.sh"
available() { cat /proc/sys/net/ipv4/tcp_available_congestion_control; }
cleanup() {
	sysctl -qw net.ipv4.tcp_congestion_control="$saved"
	bpftool struct_ops unregister name my_cc >/dev/null 2>&1
	rm -rf "$dir"
}
saved=$(sysctl -n net.ipv4.tcp_congestion_control)
trap cleanup EXIT

# 1-2: start from Reno, build
cp "$top/bpf/reno.bpf.c" "$top/bpf/tcp_ca.h" "$dir/"
sed -e 's/"bpf_reno"/"my_cc"/' -e 's/tcp_congestion_ops reno =/tcp_congestion_ops my_cc =/' \
	"$dir/reno.bpf.c" >"$dir/my_cc.bpf.c"
cd "$dir" || exit 1
out=$( { bpftool btf dump file /sys/kernel/btf/vmlinux format c >vmlinux.h &&
	 clang -O2 -g -target bpf -mcpu=v3 -I. -c my_cc.bpf.c -o my_cc.bpf.o; } 2>&1)
[ -s my_cc.bpf.o ] && pass build || { fail build "$out"; exit 1; }

# 3: register
out=$(bpftool struct_ops register my_cc.bpf.o 2>&1)
if echo "$out" | grep -q 'Registered tcp_congestion_ops my_cc id' &&
   available | grep -qw my_cc; then
	pass register
else
	fail register "bpftool said: $out; available: $(available)"
	exit 1
fi

# 4: select it as the default and carry traffic
sysctl -qw net.ipv4.tcp_congestion_control=my_cc
iperf3 -s -1 >/dev/null 2>&1 &
server=$!
sleep 1
out=$(iperf3 -c 127.0.0.1 -n 4M -J 2>&1)
wait $server
if echo "$out" | grep -q '"sender_tcp_congestion":[[:space:]]*"my_cc"' &&
   echo "$out" | grep -q '"receiver_tcp_congestion":[[:space:]]*"my_cc"' &&
   echo "$out" | grep -q '"bytes":[[:space:]]*4194304'; then
	pass iperf3_default
else
	fail iperf3_default "$(echo "$out" | grep -E 'congestion|error' | head -5)"
fi

# 5: observe: its callbacks ran
calls=$(bpftool -j map dump name my_cc.bss | grep -o '"cong_avoid_calls":[0-9]*' | cut -d: -f2)
[ "${calls:-0}" -gt 0 ] && pass counters || fail counters "cong_avoid_calls=${calls:-none}"

# 6: unregister: gone at once
sysctl -qw net.ipv4.tcp_congestion_control="$saved"
out=$(bpftool struct_ops unregister name my_cc 2>&1)
if echo "$out" | grep -q 'Unregistered tcp_congestion_ops my_cc' &&
   ! available | grep -qw my_cc; then
	pass unregister
else
	fail unregister "bpftool said: $out; available: $(available)"
fi
exit $rc
