#!/bin/bash
# Stock bpftool (Debian's 7.1) drives a struct_ops type unchanged:
# register an object, show and dump the map, read the pinned map's bpffs
# file, unregister it, all against bpf_struct_ops_test.
name=bpftool_struct_ops
top=$(cd "$(dirname "$0")/.." && pwd)
obj=$top/build/tests/sops_test.bpf.o
dbg=/sys/kernel/debug/bpf_struct_ops_test
. "$top/lib/test.sh"
field() { sed -n "s/^$1: //p" $dbg; }

out=$(bpftool struct_ops register "$obj" 2>&1)
if echo "$out" | grep -q 'Registered bpf_struct_ops_test sops id' &&
   [ "$(field registered)" = sops_t1 ]; then
	pass register
else
	fail register "bpftool said: $out; registered: $(field registered)"
fi

# JSON: the map by name, its kernel struct and its state
json=$(bpftool -j struct_ops show name sops 2>&1)
if echo "$json" | grep -q '"name":"sops"' &&
   echo "$json" | grep -q '"bpf_struct_ops_test"'; then
	pass show_json
else
	fail show_json "$json"
fi
plain=$(bpftool struct_ops list 2>&1)
echo "$plain" | grep -qE '^[0-9]+: sops +bpf_struct_ops_test' && pass list_plain ||
	fail list_plain "$plain"

# dump: state INUSE, refcnt 1 (the registration), prog ids in the slots
dump=$(bpftool -j struct_ops dump name sops 2>&1)
id=$(bpftool -j map show name sops | sed -n 's/.*"id":\([0-9]*\).*/\1/p')
if echo "$dump" | grep -q '"state":"BPF_STRUCT_OPS_STATE_INUSE"' &&
   echo "$dump" | grep -q '"refcnt":{"refs":{"counter":1}}' &&
   echo "$dump" | grep -q '"name":"sops_t1"'; then
	pass dump
else
	fail dump "$dump"
fi
# each function pointer shows as "<prototype> <member>/prog_id:<id>"
add_id=$(echo "$dump" | sed -n 's/.*"add":"int (int, int) add\/prog_id:\([0-9]*\)".*/\1/p')
if [ -n "$add_id" ] && bpftool prog show id "$add_id" | grep -q 'struct_ops'; then
	pass prog_ids
else
	fail prog_ids "add slot '$add_id' is not a struct_ops prog id"
fi

# pin it; the bpffs file shows the value (map_seq_show_elem), the name
# as a char array
bpftool map pin id "$id" /sys/fs/bpf/sops 2>/dev/null
if grep -qF "['s','o','p','s','_','t','1',]" /sys/fs/bpf/sops 2>/dev/null &&
   grep -q 'BPF_STRUCT_OPS_STATE_INUSE' /sys/fs/bpf/sops; then
	pass pinned_file
else
	fail pinned_file "$(head -c 300 /sys/fs/bpf/sops 2>&1)"
fi
mdump=$(bpftool map dump pinned /sys/fs/bpf/sops 2>&1)
echo "$mdump" | grep -q 'sops_t1' && pass map_dump || fail map_dump "$mdump"

# the registration outlived bpftool; unregister from here
echo call >$dbg
[ "$(field add)" = 5 ] && pass call_after_bpftool || fail call_after_bpftool "add: $(field add)"
out=$(bpftool struct_ops unregister name sops 2>&1)
if echo "$out" | grep -q 'Unregistered bpf_struct_ops_test sops id' &&
   [ "$(field registered)" = - ]; then
	pass unregister
else
	fail unregister "bpftool said: $out; registered: $(field registered)"
fi
# the pin keeps the map: deleted, not yet freed
state=$(bpftool -j struct_ops dump id "$id" 2>/dev/null | grep -o '"state":"[A-Z_]*"')
[ "$state" = '"state":"BPF_STRUCT_OPS_STATE_TOBEFREE"' ] && pass tobefree || fail tobefree "$state"
rm -f /sys/fs/bpf/sops
exit $rc
