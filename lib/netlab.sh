# A bottleneck between two network namespaces, for the demo and the
# benchmarks (guest side). Source, don't run. Functions return non-zero
# after saying what failed.
#
#   lab_snd --veth-- lab_rtr --veth-- lab_rcv
#
# The router's side towards the receiver is shaped by htb at $netlab_rate
# into a queue chosen for the CC under test (netlab_queue_for); netem delays the receiver's ACKs by $netlab_delay. The
# queue sits in a router, not on the sender's own interface, where TCP
# Small Queues would keep it near empty: the router's IP stack orphans
# the packets, so the sender only sees the queue through its ACKs, as it
# would on a real path.

netlab_rate=${netlab_rate:-20mbit}
netlab_delay=${netlab_delay:-20ms}
netlab_snd=lab_snd netlab_rtr=lab_rtr netlab_rcv=lab_rcv netlab_lo=lab_lo
netlab_snd_ip=10.78.0.1 netlab_rcv_ip=10.78.1.2

netlab_err() { printf 'netlab: %s\n' "$*" >&2; return 1; }

# netlab_link NS1 DEV1 ADDR1 NS2 DEV2 ADDR2: a veth pair, one packet per
# segment (gso_max_size) so that the queue shapes and marks packets.
netlab_link() {
	ip link add "$2" netns "$1" type veth peer name "$5" netns "$4" &&
	ip -n "$1" addr add "$3" dev "$2" && ip -n "$4" addr add "$6" dev "$5" &&
	ip -n "$1" link set "$2" up gso_max_size 1500 &&
	ip -n "$4" link set "$5" up gso_max_size 1500
}

# netlab_up: the namespaces, the links and the shaper.
netlab_up() {
	local s=$netlab_snd t=$netlab_rtr r=$netlab_rcv ns
	for ns in $s $t $r; do
		ip netns add $ns && ip -n $ns link set lo up &&
		# each run starts afresh, not from what the last one left in
		# the route's TCP metrics (ssthresh, RTT)
		ip netns exec $ns sysctl -qw net.ipv4.tcp_no_metrics_save=1 || break
	done &&
	netlab_link $s veth_s 10.78.0.1/24 $t veth_ts 10.78.0.254/24 &&
	netlab_link $t veth_tr 10.78.1.254/24 $r veth_r 10.78.1.2/24 &&
	ip netns exec $t sysctl -qw net.ipv4.ip_forward=1 &&
	ip -n $s route add default via 10.78.0.254 &&
	ip -n $r route add default via 10.78.1.254 &&
	tc -n $t qdisc add dev veth_tr root handle 1: htb default 1 &&
	tc -n $t class add dev veth_tr parent 1: classid 1:1 htb rate "$netlab_rate" &&
	tc -n $t qdisc add dev veth_tr parent 1:1 handle 10: pfifo limit 50 &&
	tc -n $r qdisc add dev veth_r root netem delay "$netlab_delay" ||
		netlab_err "could not build the bottleneck (ip/tc above): check that" \
			"kconfig/base.config still has VETH, NET_SCH_HTB, the qdisc and NETEM"
}

# netlab_queue QDISC...: another queue at the bottleneck.
# (tc cannot replace a qdisc by one of another kind under the same handle)
netlab_queue() {
	tc -n $netlab_rtr qdisc del dev veth_tr parent 1:1 handle 10: &&
	tc -n $netlab_rtr qdisc add dev veth_tr parent 1:1 handle 10: "$@" ||
		netlab_err "tc could not set the bottleneck's queue to: $*"
}

# The queue a CC is measured through. DCTCP: RED marking CE once the
# queue passes 10 kB (DCTCP's K; above a seventh of the bandwidth-delay
# product, 50 kB, as RFC 8257 advises), on its length in bytes rather than
# on sojourn time, which TCG's coarse timers inflate. Others: drop-tail,
# 50 packets, about one bandwidth-delay product.
netlab_queue_for() {
	case $1 in
	*dctcp) netlab_queue red limit 1000000 min 10000 max 10001 avpkt 1000 burst 11 \
			probability 1.0 ecn bandwidth "$netlab_rate" ;;
	*) netlab_queue pfifo limit 50 ;;
	esac
}

# What the bottleneck's queue marked CE since it was set (RED's "marked").
netlab_ce_marks() {
	local n
	n=$(tc -n $netlab_rtr -s qdisc show dev veth_tr | sed -n 's/.* marked \([0-9]*\).*/\1/p' | head -n1)
	echo "${n:-0}"
}

# netlab_transfer CC SECONDS JSON: iperf3 from sender to receiver on CC
# through a fresh queue for it, 0.1 s intervals, its JSON to JSON (the
# receiver's own intervals in .server_output_json), the
# CE marks it caused to JSON's .ce and, half-way, what 'ss -ti' shows of
# the sender's connections to JSON's .ss. Both namespaces' default is set rather than 'iperf3 -C': DCTCP's
# SYN asks for ECN, and only a listener running an ECN CC grants it (RFC
# 3168), so the server side must be on the CC before the connection exists.
# A namespace other than the first may only default to an allowed CC.
netlab_transfer() {
	local cc=$1 secs=$2 json=$3 ns
	netlab_queue_for "$cc" || return
	for ns in $netlab_snd $netlab_rcv; do
		netlab_default_cc $ns "$cc" || return
	done
	netlab_iperf3 $netlab_snd $netlab_rcv $netlab_rcv_ip "$cc" "$secs" "$json" || return
	netlab_ce_marks >"${json%.json}.ce"
}

# netlab_loopback CC SECONDS JSON: the same over the loopback of a
# namespace of its own, nothing in the way but the CPU; no CE marks.
netlab_loopback() {
	local cc=$1 secs=$2 json=$3
	ip netns add $netlab_lo 2>/dev/null
	ip netns exec $netlab_lo ip link set lo up ||
		netlab_err "could not make the namespace $netlab_lo" || return
	netlab_default_cc $netlab_lo "$cc" || return
	netlab_iperf3 $netlab_lo $netlab_lo 127.0.0.1 "$cc" "$secs" "$json" || return
	echo 0 >"${json%.json}.ce"
}

# cc_list available|allowed: the kernel's list of congestion controls
cc_list() { cat "/proc/sys/net/ipv4/tcp_$1_congestion_control"; }

netlab_default_cc() {
	ip netns exec "$1" sysctl -qw net.ipv4.tcp_congestion_control="$2" ||
		netlab_err "could not make $2 the default of $1: is it in tcp_allowed_congestion_control?"
}

# netlab_iperf3 SND_NS RCV_NS RCV_IP CC SECONDS JSON
netlab_iperf3() {
	local snd=$1 rcv=$2 ip=$3 cc=$4 secs=$5 json=$6
	ip netns exec "$rcv" iperf3 -s -1 -J -B "$ip" >/dev/null 2>&1 &
	sleep 1
	{ sleep "$((secs / 2 + 1))"
	  ip netns exec "$snd" ss -tiH state established dst "$ip" >"${json%.json}.ss"
	} &
	if ! ip netns exec "$snd" iperf3 -c "$ip" -t "$secs" -i 0.1 -J --get-server-output >"$json"; then
		wait
		netlab_err "iperf3 over $cc failed: see $json"
		return
	fi
	wait
}

# Let go of the CCs the namespaces hold (their cleanup runs later, in a
# work item) and remove them.
netlab_down() {
	local ns
	for ns in $netlab_snd $netlab_rtr $netlab_rcv $netlab_lo; do
		ip netns exec $ns sysctl -qw net.ipv4.tcp_congestion_control=reno 2>/dev/null
		ip netns del $ns 2>/dev/null
	done
	return 0
}
