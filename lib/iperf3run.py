"""One iperf3 -J run of a demo or a benchmark (lib/netlab.sh), read once:
what demo/report.py and bench/report.py both need from it.

  python3 -m lib.iperf3run --per-second IPERF3.json   (from the top)
"""
import json
import sys


def load(path):
    with open(path) as f:
        run = json.load(f)
    if "error" in run:
        sys.exit(f"{path}: iperf3 said: {run['error']}")
    return run


def summary(run):
    end = run["end"]
    sender = end["streams"][0]["sender"]
    return {
        "cc": end.get("sender_tcp_congestion", "?"),
        "peer_cc": end.get("receiver_tcp_congestion", "?"),
        "mbps": end["sum_received"]["bits_per_second"] / 1e6,
        "retrans": sender["retransmits"],
        "rtt_ms": sender["mean_rtt"] / 1000,
        # the RTT above the run's lowest: time spent in the queue
        "qdelay_ms": (sender["mean_rtt"] - sender["min_rtt"]) / 1000,
        "max_cwnd_kb": sender["max_snd_cwnd"] / 1024,
        # (time s, cwnd kB, smoothed RTT ms) at the end of every interval
        "trace": [(iv["streams"][0]["end"], iv["streams"][0]["snd_cwnd"] / 1024,
                   iv["streams"][0]["rtt"] / 1000) for iv in run["intervals"]],
    }


def write_trace(trace, path):
    with open(path, "w") as f:
        f.write("# time_s cwnd_kB rtt_ms\n")
        f.writelines(f"{t:.2f} {c:.1f} {r:.2f}\n" for t, c, r in trace)


def per_second(run):
    """Mbit/s the receiver read in each second of the run: the sender's
    intervals count what iperf3 wrote into the socket, and its buffer
    hides a stall of a second. The last second may be a short one."""
    bits, secs = {}, {}
    for iv in run["server_output_json"]["intervals"]:
        s = iv["sum"]
        sec = int(s["start"])
        bits[sec] = bits.get(sec, 0.0) + s["bytes"] * 8
        secs[sec] = secs.get(sec, 0.0) + s["seconds"]
    return [(sec, bits[sec] / secs[sec] / 1e6) for sec in sorted(bits)]


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] != "--per-second":
        sys.exit("usage: python3 -m lib.iperf3run --per-second IPERF3.json")
    for sec, mbit in per_second(load(sys.argv[2])):
        print(f"    {sec:3d}-{sec + 1:<3d} s  {mbit:6.2f} Mbit/s  {'#' * int(mbit)}")
