#!/usr/bin/env python3
"""Summarise the demo's iperf3 runs (demo/run-guest). From the top:

  python3 -m demo.report --one RUN.json        one line: throughput, retransmits, RTT
  python3 -m demo.report --trace RUN.json CSV  RUN's (time, cwnd, RTT) to CSV, for a plot
  python3 -m demo.report --table DIR CC...     the side-by-side table of bpf_CC and CC
                                      from DIR/<name>.json and DIR/<name>.ce,
                                      and DIR/<name>.csv (time, cwnd, RTT)
                                      for the plot
"""
import sys

from lib.iperf3run import load, summary, write_trace


def one(path):
    s = summary(load(path))
    print(f"{s['mbps']:6.2f} Mbit/s, {s['retrans']} retransmits, "
          f"mean RTT {s['rtt_ms']:.1f} ms (sender {s['cc']}, receiver {s['peer_cc']})")


def table(outdir, ccs):
    rows = []
    bad = []
    for cc in ccs:
        pair = {}
        for name in (f"bpf_{cc}", cc):
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
        rows.append((cc, pair[f"bpf_{cc}"], pair[cc]))

    print(f"{'CC':<10} {'Mbit/s':>7} {'retrans':>8} {'RTT ms':>7} "
          f"{'max cwnd kB':>12} {'CE marks':>9}   BPF/native Mbit/s")
    for cc, b, n in rows:
        for name, s in ((f"bpf_{cc}", b), (cc, n)):
            ratio = f"{b['mbps'] / n['mbps']:.3f}" if s is b else ""
            print(f"{name:<10} {s['mbps']:7.2f} {s['retrans']:8d} {s['rtt_ms']:7.1f} "
                  f"{s['max_cwnd_kb']:12.1f} {s['ce']:9d}   {ratio}")
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
