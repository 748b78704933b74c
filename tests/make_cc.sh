#!/bin/bash
# make cc's two halves on the suite's kernel: a CC this test writes (Reno
# renamed) built
# by demo/Makefile's cc-obj as make cc builds it, then demo/cc-guest: the
# table with both rows, calls counted per op, the plot, nothing left
# registered. And a CC that writes a field of tcp_sock no CC may write:
# the verdict demo/cc prints names that line of the source.
name=make_cc
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/lib/test.sh"
dir=$(mktemp -d /tmp/make_cc.XXXXXX)
trap 'rm -rf "$dir"' EXIT

# build NAME: demo/Makefile's cc-obj, as demo/cc runs it, against the
# running kernel's BTF
build() {
	make -s --no-print-directory -C "$top/demo" cc-obj CC_SRC="$dir/$1.bpf.c" \
		OUT="$dir/obj" VMLINUX=/sys/kernel/btf/vmlinux >"$dir/$1.build" 2>&1
}

sed -e 's/"bpf_reno"/"sk_cc"/' -e 's/^struct tcp_congestion_ops reno =/struct tcp_congestion_ops sk_cc =/' \
	"$top/bpf/reno.bpf.c" >"$dir/sk_cc.bpf.c"
if build sk_cc && [ -s "$dir/obj/sk_cc.bpf.o" ]; then
	pass build
else
	fail build "$(tail -n 5 "$dir/sk_cc.build")"
fi

mkdir "$dir/out"
CC_SECONDS=3 "$top/demo/cc-guest" "$dir/obj/sk_cc.bpf.o" reno loopback "$dir/out" >"$dir/run.log" 2>&1
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

# the refused CC: a write to tp->rcv_nxt after cong_avoid's last line
sed -e 's/"bpf_reno"/"bad_cc"/' -e 's/^struct tcp_congestion_ops reno =/struct tcp_congestion_ops bad_cc =/' \
    -e 's/^\ttp->snd_cwnd = min(cwnd, tp->snd_cwnd_clamp);$/&\n\ttp->rcv_nxt = 0;/' \
	"$top/bpf/reno.bpf.c" >"$dir/bad_cc.bpf.c"
line=$(grep -n 'tp->rcv_nxt = 0;' "$dir/bad_cc.bpf.c" | cut -d: -f1)
build bad_cc || fail refused_build "$(tail -n 5 "$dir/bad_cc.build")"
mkdir "$dir/bad"
"$top/demo/cc-guest" "$dir/obj/bad_cc.bpf.o" reno loopback "$dir/bad" >"$dir/bad.log" 2>&1
st=$?
verdict=$(cd "$top" && python3 -m demo.verifier_log "$dir/bad/register.log" "$dir/bad_cc.bpf.c")
if [ $st = 2 ] && [ -n "$line" ] &&
   echo "$verdict" | grep -qF "$dir/bad_cc.bpf.c:$line: tp->rcv_nxt = 0;" &&
   echo "$verdict" | grep -q "no write support to tcp_sock at off"; then
	pass refused_names_the_line
else
	fail refused_names_the_line "exit $st (want 2), line $line, verdict: $verdict"
fi
exit $rc
