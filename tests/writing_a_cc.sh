#!/bin/bash
# docs/writing-a-cc.md, typed as printed: every line between its
# <!-- guest --> markers, top to bottom, in one shell started in the
# project's directory (lib/by_hand.sh), each succeeding, or failing where
# the document says it is refused. Then what each step's output must show:
# the CC registered under its three names, picked by sysctl, setsockopt,
# iperf3 -C and a route, unprivileged and netns use refused until allowed,
# its callbacks counted, its programs timed, gone when unregistered, a link
# registered and detached with bpftool 7.5, cc-move built and run, and
# bpf_dctcp's get_info in ss and its silent fallback without ECN.
name=writing_a_cc
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/lib/test.sh"
. "$top/lib/by_hand.sh"
dir=$(mktemp -d /tmp/writing_a_cc.XXXXXX)
sysctls="net.ipv4.tcp_congestion_control net.ipv4.tcp_allowed_congestion_control
	kernel.bpf_stats_enabled"
declare -A saved
for s in $sysctls; do
	saved[$s]=$(sysctl -n "$s")
done
cleanup() {
	pkill -x iperf3
	ip netns del mycc 2>/dev/null
	ip route del local 127.0.0.2 dev lo table local 2>/dev/null
	"$top/build/clients/bpftool" link detach pinned /sys/fs/bpf/mycc/my_cc 2>/dev/null
	rm -rf /sys/fs/bpf/mycc
	for s in $sysctls; do
		sysctl -qw "$s=${saved[$s]}"
	done
	bpftool struct_ops unregister name my_cc >/dev/null 2>&1
	bpftool struct_ops unregister name dctcp >/dev/null 2>&1
	rm -rf /tmp/mycc "$dir"
}
trap cleanup EXIT
rm -rf /tmp/mycc

by_hand "$top/docs/writing-a-cc.md" "$dir" || exit $rc
out() { by_hand_out "$1"; }
# check NAME OUTPUT-OF-LINE ERE...: every ERE matches that line's output
check() {
	local what=$1 text ere
	text=$(out "$2")
	shift 2
	for ere in "$@"; do
		if ! grep -qE -- "$ere" <<<"$text"; then
			fail "$what" "no /$ere/ in: $(head -c 600 <<<"$text" | tr '\n' '|')"
			return
		fi
	done
	pass "$what"
}
both() { echo "\"sender_tcp_congestion\":[[:space:]]*\"$1\""; echo "\"receiver_tcp_congestion\":[[:space:]]*\"$2\""; }

check register 'struct_ops register /tmp/mycc/my_cc.bpf.o' '^Registered tcp_congestion_ops my_cc id [0-9]+$'
check available_lists_it 'tcp_available_congestion_control # ... my_cc' '\bmy_cc\b'
check setsockopt_as_root 'print(s.getsockopt' "^b'my_cc"
check unprivileged_eperm "--inh-caps=-all python3 -c 'import socket; socket.socket().setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, b\"my_cc\")'   # PermissionError" 'PermissionError: \[Errno 1\]'
check netns_default_eperm 'tcp_congestion_control=my_cc   # Operation not permitted' 'Operation not permitted'
check sysctl_default 'iperf3 -c 127.0.0.1 -t 3 -J' $(both my_cc my_cc)
check iperf3_C 'iperf3 -c 127.0.0.1 -t 3 -C my_cc -J' $(both my_cc my_cc)
check route_congctl 'iperf3 -c 127.0.0.2 -t 3 -J' $(both my_cc my_cc)
check ss_shows_it 'ss -tin dst 127.0.0.1' '\bmy_cc\b.*cwnd:[0-9]+'
check bss_counts 'bpftool map dump name my_cc.bss' '"cong_avoid_calls": [1-9]'
check struct_ops_dump 'bpftool struct_ops dump name my_cc' '"name": "my_cc"'
check prog_stats 'bpftool prog show name reno_cong_avoid' 'run_time_ns [1-9][0-9]* run_cnt [1-9]'
check unregister 'struct_ops unregister name my_cc' '^Unregistered tcp_congestion_ops my_cc id [0-9]+$'
check unregistered_gone 'my_cc is gone' '^reno( [a-z]+)*$'
check link_register 'struct_ops register /tmp/mycc/my_cc_link.bpf.o' 'Registered tcp_congestion_ops my_cc map id [0-9]+ link id [0-9]+'
check link_show 'bpftool link show' '^[0-9]+: struct_ops +map [0-9]+'
check cc_move '/tmp/mycc/cc-move cubic' '^cubic: [0-9]+ moved, [0-9]+ already current, 0 failed in [0-9.]+ ms$'
check get_info_in_ss 'ss -ti dst 127.0.0.1' 'bpf_dctcp.*dctcp:\(ce_state:[0-9]+,alpha:[0-9]+,ab_ecn:[0-9]+,ab_tot:[0-9]+\)'
check ecn_fallback 'iperf3 -c 127.0.0.1 -t 3 -C bpf_dctcp -J' $(both cubic cubic)
check fallback_counted 'grep fallback_calls' '"fallback_calls": 2$'
if grep -qwE 'my_cc|bpf_dctcp' /proc/sys/net/ipv4/tcp_available_congestion_control; then
	fail nothing_left "still registered: $(cat /proc/sys/net/ipv4/tcp_available_congestion_control)"
else
	pass nothing_left
fi
exit $rc
