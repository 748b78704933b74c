#!/bin/bash
# make cc's guest half on the suite's kernel, with the two CCs tests/Makefile
# writes from the Reno example and builds as make cc builds a user's
# (demo/Makefile's cc-obj): sk_cc, renamed, run by demo/cc-guest against
# Reno: the table with both rows, calls counted per op, the plot, nothing
# left registered. And bad_cc, which also writes tp->rcv_nxt, a field of
# tcp_sock no CC may write: the verdict demo/cc prints names that line of
# its source.
name=make_cc
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/lib/test.sh"
obj=${TEST_BIN:-$top/build/tests/bin}/../make_cc
dir=$(mktemp -d /tmp/make_cc.XXXXXX)
trap 'rm -rf "$dir"' EXIT

if [ -s "$obj/sk_cc.bpf.o" ] && [ -s "$obj/bad_cc.bpf.o" ]; then
	pass built
else
	fail built "no $obj/sk_cc.bpf.o or bad_cc.bpf.o: run make tests"
	exit 1
fi

mkdir "$dir/out"
CC_SECONDS=3 "$top/demo/cc-guest" "$obj/sk_cc.bpf.o" reno loopback "$dir/out" >"$dir/run.log" 2>&1
st=$?
table=$dir/out/table.txt
if [ $st = 0 ] && grep -qE '^sk_cc +[0-9.]+ ' "$table" && grep -qE '^reno +[0-9.]+ ' "$table"; then
	pass table
else
	fail table "cc-guest exit $st: $(tail -n 8 "$dir/run.log" | tr '\n' '|')"
fi
# the run was on sk_cc, and its cong_avoid ran (init once per socket)
calls=$(grep -oE 'cong_avoid [0-9,]+' "$table" | tr -d , | cut -d' ' -f2)
if [ "${calls:-0}" -gt 0 ] && grep -qE '^init [1-9]' "$dir/out/sk_cc.calls"; then
	pass calls_per_op
else
	fail calls_per_op "$(cat "$dir/out/sk_cc.calls" 2>/dev/null | tr '\n' ' ')"
fi
if [ -s "$dir/out/cwnd-sk_cc.png" ] && grep -q "cwnd plot: $dir/out/cwnd-sk_cc.png" "$dir/run.log"; then
	pass plot
else
	fail plot "no $dir/out/cwnd-sk_cc.png"
fi
if ! grep -qw sk_cc /proc/sys/net/ipv4/tcp_available_congestion_control &&
   ! bpftool struct_ops show | grep -qw sk_cc; then
	pass unregistered
else
	fail unregistered "sk_cc is still there"
fi

# the refused CC
line=$(grep -n 'tp->rcv_nxt = 0;' "$obj/bad_cc.bpf.c" | cut -d: -f1)
mkdir "$dir/bad"
"$top/demo/cc-guest" "$obj/bad_cc.bpf.o" reno loopback "$dir/bad" >"$dir/bad.log" 2>&1
st=$?
src=$(realpath "$obj/bad_cc.bpf.c")
verdict=$(cd "$top" && python3 -m demo.verifier_log "$dir/bad/register.log" "$src")
if [ $st = 2 ] && [ -n "$line" ] &&
   echo "$verdict" | grep -qF "$src:$line: tp->rcv_nxt = 0;" &&
   echo "$verdict" | grep -q "no write support to tcp_sock at off"; then
	pass refused_names_the_line
else
	fail refused_names_the_line "exit $st (want 2), line $line, verdict: $verdict"
fi
exit $rc
