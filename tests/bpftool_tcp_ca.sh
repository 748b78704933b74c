#!/bin/bash
# Stock user space drives a BPF congestion control: bpftool 7.1 registers,
# shows, dumps, pins and unregisters BPF DCTCP; sysctl lists it; iperf3 -C
# selects BPF CCs on both ends.
name=bpftool_tcp_ca
top=$(cd "$(dirname "$0")/.." && pwd)
obj=$top/build/tests/dctcp.bpf.o
pin=/sys/fs/bpf/so_dctcp
. "$top/lib/test.sh"
listed() { grep -qw "$2" "/proc/sys/net/ipv4/tcp_$1_congestion_control"; }
cleanup() {
	bpftool struct_ops unregister name dctcp >/dev/null 2>&1
	bpftool struct_ops unregister name cubic >/dev/null 2>&1
	rm -f $pin
}
trap cleanup EXIT

out=$(bpftool struct_ops register "$obj" 2>&1)
if echo "$out" | grep -q 'Registered tcp_congestion_ops dctcp id' &&
   listed available bpf_dctcp && ! listed allowed bpf_dctcp; then
	pass register
else
	fail register "bpftool said: $out"
	exit 1
fi
id=$(bpftool -j map show name dctcp | sed -n 's/.*"id":\([0-9]*\).*/\1/p')

json=$(bpftool -j struct_ops show name dctcp 2>&1)
echo "$json" | grep -q "\"id\":$id," && echo "$json" | grep -q '"tcp_congestion_ops"' &&
	pass show_json || fail show_json "$json"
plain=$(bpftool struct_ops list 2>&1)
echo "$plain" | grep -qE "^$id: dctcp +tcp_congestion_ops" && pass list_plain ||
	fail list_plain "$plain"

# dump: INUSE, the registration's reference, the CC's name and ECN flag
dump=$(bpftool -j struct_ops dump id "$id" 2>&1)
if echo "$dump" | grep -q '"state":"BPF_STRUCT_OPS_STATE_INUSE"' &&
   echo "$dump" | grep -q '"refcnt":{"refs":{"counter":1}}' &&
   echo "$dump" | grep -q '"flags":2' &&
   echo "$dump" | grep -qF "\"name\":\"bpf_dctcp\""; then
	pass dump
else
	fail dump "$dump"
fi
# every function pointer is a struct_ops program of the object
ids=$(echo "$dump" | grep -o 'prog_id:[0-9]*' | cut -d: -f2)
n=0
for p in $ids; do
	bpftool prog show id "$p" | grep -qE "struct_ops +name dctcp_" && n=$((n + 1))
done
# bpf/dctcp.bpf.c fills 8: init, in_ack_event, cwnd_event, ssthresh,
# cong_avoid, undo_cwnd, set_state, get_info
[ "$n" = 8 ] && pass prog_show || fail prog_show "$n of 8 slots are dctcp_* struct_ops programs: $ids"
mdump=$(bpftool map dump id "$id" 2>&1)
echo "$mdump" | grep -q 'bpf_dctcp' && pass map_dump || fail map_dump "$mdump"

# iperf3 -C sets a CC on both ends of its data connection. Not DCTCP's:
# its SYN is ECT, and only a DCTCP listener accepts ECN for such a SYN
# (RFC 3168), so DCTCP falls back to cubic, as the native one falls
# back to reno.
iperf3_C() {
	iperf3 -s -1 >/dev/null 2>&1 &
	local server=$! out
	sleep 1
	out=$(iperf3 -c 127.0.0.1 -n 4M -C "$1" -J 2>&1)
	wait $server
	if echo "$out" | grep -q "\"sender_tcp_congestion\":[[:space:]]*\"$2\"" &&
	   echo "$out" | grep -q "\"receiver_tcp_congestion\":[[:space:]]*\"$2\""; then
		pass "iperf3_C_$1"
	else
		fail "iperf3_C_$1" "$(echo "$out" | grep -E 'congestion|error' | head -5)"
	fi
}
iperf3_C bpf_dctcp cubic
fallbacks=$(bpftool -j map dump name dctcp.bss | grep -o '"fallback_calls":[0-9]*' | cut -d: -f2)
[ "${fallbacks:-0}" -ge 2 ] && pass dctcp_fell_back || fail dctcp_fell_back "fallback_calls=$fallbacks"
bpftool struct_ops register "$top/build/tests/cubic.bpf.o" >/dev/null 2>&1
iperf3_C bpf_cubic bpf_cubic
bpftool struct_ops unregister name cubic >/dev/null 2>&1

# pinned, then unregistered by id from another process: TOBEFREE, kept
# by the pin until it goes
bpftool map pin id "$id" $pin
out=$(bash -c "bpftool struct_ops unregister id $id" 2>&1)
state=$(bpftool -j struct_ops dump id "$id" 2>/dev/null | grep -o '"state":"[A-Z_]*"')
if echo "$out" | grep -q "Unregistered tcp_congestion_ops dctcp id $id" &&
   ! listed available bpf_dctcp &&
   [ "$state" = '"state":"BPF_STRUCT_OPS_STATE_TOBEFREE"' ]; then
	pass unregister_pinned
else
	fail unregister_pinned "bpftool said: $out; state: $state"
fi
rm -f $pin
for i in $(seq 50); do
	bpftool map show id "$id" >/dev/null 2>&1 || break
	sleep 0.1
done
bpftool map show id "$id" >/dev/null 2>&1 && fail freed "map $id still there" || pass freed
exit $rc
