#!/usr/bin/env python3
"""Summarise the demo's iperf3 runs (demo/run-guest). From the top:

  python3 -m demo.report --one RUN.json        one line: throughput, retransmits, RTT
  python3 -m demo.report --trace RUN.json CSV  RUN's (time, cwnd, RTT) to CSV, for a plot
  python3 -m demo.report --table DIR PAIR...   the side-by-side table of each PAIR,
                                      A:B (A against B) or CC (bpf_CC:CC),
                                      from DIR/<name>.json and DIR/<name>.ce,
                                      and DIR/<name>.csv (time, cwnd, RTT)
                                      for the plot; DIR/A.calls (lines
                                      "op count"), if there, below it
"""
import sys

from lib.iperf3run import load, summary, write_trace


def one(path):
    s = summary(load(path))
    print(f"{s['mbps']:6.2f} Mbit/s, {s['retrans']} retransmits, "
          f"mean RTT {s['rtt_ms']:.1f} ms (sender {s['cc']}, receiver {s['peer_cc']})")


def pair_names(arg):
    a, sep, b = arg.partition(":")
    return (a, b) if sep else (f"bpf_{a}", a)


def calls(outdir, name):
    """The calls of each op a run made, as make cc counts them."""
    try:
        with open(f"{outdir}/{name}.calls") as f:
            ops = [line.split() for line in f if line.strip()]
    except FileNotFoundError:
        return None
    return ", ".join(f"{op} {int(n):,}" for op, n in ops)


def table(outdir, pairs):
    rows = []
    bad = []
    for a, b in map(pair_names, pairs):
        pair = {}
        for name in (a, b):
            run = load(f"{outdir}/{name}.json")
            s = summary(run)
            with open(f"{outdir}/{name}.ce") as f:
                s["ce"] = int(f.read())
            # a CC that fell back (DCTCP without ECN) would compare the
            # wrong thing: say so rather than print a misleading row
            if s["cc"] != name or s["peer_cc"] != name:
                bad.append(f"{name}: the connection ran {s['cc']}/{s['peer_cc']}")
            write_trace(s["trace"], f"{outdir}/{name}.csv")
            pair[name] = s
        rows.append((a, b, pair[a], pair[b]))

    width = max(10, *(len(n) for row in rows for n in row[:2]))
    print(f"{'CC':<{width}} {'Mbit/s':>7} {'retrans':>8} {'RTT ms':>7} "
          f"{'max cwnd kB':>12} {'CE marks':>9}   A/B Mbit/s")
    for a, b, sa, sb in rows:
        for name, s in ((a, sa), (b, sb)):
            ratio = f"{sa['mbps'] / sb['mbps']:.3f}" if s is sa else ""
            print(f"{name:<{width}} {s['mbps']:7.2f} {s['retrans']:8d} {s['rtt_ms']:7.1f} "
                  f"{s['max_cwnd_kb']:12.1f} {s['ce']:9d}   {ratio}")
    for a, _, _, _ in rows:
        ops = calls(outdir, a)
        if ops:
            print(f"calls into {a} during its run: {ops}")
    print("One run of each under TCG, where timing wobbles: for medians over "
          "interleaved repeats, see 'make bench'.")
    if bad:
        sys.exit("CC mismatch: " + "; ".join(bad))


def main(argv):
    if len(argv) == 3 and argv[1] == "--one":
        one(argv[2])
    elif len(argv) == 4 and argv[1] == "--trace":
        write_trace(summary(load(argv[2]))["trace"], argv[3])
    elif len(argv) >= 4 and argv[1] == "--table":
        table(argv[2], argv[3:])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
