#!/bin/bash
# The guest is the kernel the tests think it is: the project's build, with
# BTF, its config readable by libbpf, the congestion controls built in and
# the debug instruments armed.
name=guest_env
. "$(dirname "$0")/../lib/test.sh"

conf() { zgrep -q "^$1\$" /proc/config.gz; }

if [ -r /sys/kernel/btf/vmlinux ] && [ -r /proc/config.gz ]; then
	pass btf_and_config
else
	fail btf_and_config "missing /sys/kernel/btf/vmlinux or /proc/config.gz"
fi

avail=$(cat /proc/sys/net/ipv4/tcp_available_congestion_control)
missing=
for cc in reno cubic dctcp bbr; do
	case " $avail " in *" $cc "*) ;; *) missing+=" $cc" ;; esac
done
[ -z "$missing" ] && pass builtin_ccs || fail builtin_ccs "not available:$missing (have: $avail)"

# The suite is meant to run on the debug kernel: say so when it does not.
if conf CONFIG_KASAN=y && conf CONFIG_DEBUG_KMEMLEAK=y && conf CONFIG_PROVE_LOCKING=y &&
   conf CONFIG_DEBUG_ATOMIC_SLEEP=y; then
	if [ -w /sys/kernel/debug/kmemleak ]; then
		pass debug_instruments
	else
		fail debug_instruments "kmemleak is built in but not active"
	fi
elif [ "${ALLOW_RELEASE:-0}" = 1 ]; then
	echo "SKIP $name/debug_instruments: release kernel (ALLOW_RELEASE=1)"
else
	fail debug_instruments "not a debug kernel (KASAN, KMEMLEAK, PROVE_LOCKING, DEBUG_ATOMIC_SLEEP)"
fi
exit $rc
