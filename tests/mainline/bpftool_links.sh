#!/bin/bash
# Mainline's bpftool 7.5 ('make clients'), unmodified, drives a struct_ops
# link: register the Reno example built as a link (.struct_ops.link) with
# its link pinned in a bpffs directory, show the link, detach it.
name=bpftool_links
top=$(cd "$(dirname "$0")/../.." && pwd)
bpftool=$top/build/clients/bpftool
obj=$top/build/tests/reno_link.bpf.o
dir=/sys/fs/bpf/bpftool_links
. "$top/lib/test.sh"
available() { grep -qw bpf_reno /proc/sys/net/ipv4/tcp_available_congestion_control; }

out=$($bpftool struct_ops register "$obj" "$dir" 2>&1)
re='Registered tcp_congestion_ops reno map id ([0-9]+) link id ([0-9]+)'
if [[ $out =~ $re ]] && available && [ -e "$dir/reno" ]; then
	map_id=${BASH_REMATCH[1]} link_id=${BASH_REMATCH[2]}
	pass register_pinned
else
	fail register_pinned "bpftool said: $out; pinned: $(ls "$dir" 2>&1)"
	exit $rc
fi

# the link shows its type and map
json=$($bpftool -j link show id "$link_id" 2>&1)
if echo "$json" | grep -q '"type":"struct_ops"' &&
   echo "$json" | grep -q "\"map_id\":$map_id"; then
	pass link_show
else
	fail link_show "$json"
fi
# a link map stays READY while its link registers it, as in mainline
state=$($bpftool -j struct_ops dump id "$map_id" 2>&1 | grep -o '"state":"[A-Z_]*"')
[ "$state" = '"state":"BPF_STRUCT_OPS_STATE_READY"' ] && pass map_ready || fail map_ready "$state"

# the map is the link's: it cannot be unregistered by deleting it
if out=$($bpftool struct_ops unregister id "$map_id" 2>&1); then
	fail unregister_refused "bpftool succeeded: $out"
elif ! echo "$out" | grep -q 'Operation not supported'; then
	fail unregister_refused "not EOPNOTSUPP: $out"
elif ! available; then
	fail unregister_refused "gone after a refused unregister: $out"
else
	pass unregister_refused
fi

# detach: gone from TCP, the link stays pinned with no map
out=$($bpftool link detach id "$link_id" 2>&1)
json=$($bpftool -j link show id "$link_id" 2>&1)
if ! available && ! echo "$json" | grep -q '"map_id":[1-9]'; then
	pass detach
else
	fail detach "bpftool said: $out; link: $json"
fi
rm -rf "$dir"
exit $rc
