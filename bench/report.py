#!/usr/bin/env python3
"""Turn bench/run-guest's raw results into a report.

  python3 -m bench.report RAWDIR RESULTS_MD [SECTION...]   (from the top)

SECTIONs (anchor bulk behaviour callback machinery scale replace info;
default: all; anchor reads RAWDIR/anchor, the same run on upstream 6.1)
name the parts a run measured, for a run of some benchmarks alone. Reads RAWDIR (env.txt, *.csv, behaviour-*.json) and writes RESULTS_MD
(markdown), and next to it a directory of the same name without .md with
the plots (gnuplot PNG) and the per-run traces (CSV). Prints the summary
table that goes into the README.
"""
import csv
import glob
import os
import statistics
import subprocess
import sys

from lib.iperf3run import load, summary, write_trace

PAIRS = ("dctcp", "cubic", "reno")

# Why a BPF CC's trace parts from the native one's at the same moment in
# every run (an algorithmic difference, not the timing drift), as found by
# reading both and checking.
KNOWN_DIFFERENCES = {
    "cubic": "CUBIC's traces part at the same moment in every run, after the first "
             "loss: bpf/cubic.bpf.c computes K = cbrt(C (W_max − cwnd)) exactly, "
             "while net/ipv4/tcp_cubic.c's cubic_root() takes a table and one "
             "Newton step; evaluated for W_max − cwnd = 1…199 segments, the two "
             "disagree for 143 of the 199 values, by 1–2 units of 1/1024 s. K a "
             "millisecond apart moves the curve's target by a fraction of a segment, "
             "and a cwnd increment lands on another ACK.",
}



def rows(raw, name):
    path = os.path.join(raw, name)
    if not os.path.exists(path):
        sys.exit(f"bench.report: {path} is missing: did bench/run-guest finish?")
    with open(path) as f:
        return [r for r in csv.reader(f) if r]


def spread(values, fmt="{:.3f}"):
    """median (min-max)"""
    v = sorted(values)
    return f"{fmt.format(statistics.median(v))} ({fmt.format(v[0])}–{fmt.format(v[-1])})"


def med(values):
    return statistics.median(values)


def bulk_runs(raw):
    """{cc: {repeat: (Gbit/s, guest ms per GB, busy fraction, callbacks per GB)}}"""
    runs = {}
    for _, rep, cc, nbytes, wall, ticks, hz, calls in rows(raw, "bulk.csv"):
        gbytes = int(nbytes) / 1e9
        runs.setdefault(cc, {})[int(rep)] = (
            int(nbytes) * 8 / int(wall),              # Gbit/s
            int(wall) / 1e6 / gbytes,                 # guest ms per GB
            int(ticks) / int(hz) / (int(wall) / 1e9),  # busy fraction
            int(calls) / gbytes)                      # callbacks per GB
    return runs


def machinery_runs(raw):
    """({cc: [[load, register, unregister, close] ms per repeat]},
    [progmem rows], {stage: (maps, value size, [[slab, vmalloc, percpu kB]
    per round])})"""
    life, prog, maps = {}, [], {}
    for r in rows(raw, "machinery.csv"):
        if r[0] == "lifecycle":
            life.setdefault(r[2], []).append([int(x) / 1e6 for x in r[3:7]])
        elif r[0] == "progmem":
            prog.append(r[1:])
        elif r[0] == "mapmem":
            maps.setdefault(r[3], (int(r[1]), int(r[2]), []))[2].append(
                [int(x) for x in r[4:7]])
    return life, prog, maps


def scale_ccs_runs(raw):
    """([(registered, register µs)], [(registered, unregister µs)],
    {registered: {"newest"|"cubic": ns per setsockopt}})"""
    reg, unreg, look = [], [], {}
    for r in rows(raw, "scale_ccs.csv"):
        if r[0] == "scale_reg":
            reg.append((int(r[1]), int(r[2]) / 1e3))
        elif r[0] == "scale_unreg":
            unreg.append((int(r[1]), int(r[2]) / 1e3))
        elif r[0] == "scale_lookup":
            look.setdefault(int(r[1]), {})[r[2]] = int(r[3])
    return reg, unreg, look


def scale_conns_runs(raw):
    """{cc: [(set-up µs, memory kB, request+reply µs, close µs) per
    connection, per round]}, and the connections per round"""
    conns, n = {}, 0
    for _, rep, cc, n, setup, mem, exch, close in rows(raw, "scale_conns.csv"):
        n = int(n)
        conns.setdefault(cc, []).append((int(setup) / n / 1e3, int(mem) / n,
                                         int(exch) / n / 1e3, int(close) / n / 1e3))
    return conns, n


def anchor_figures(raw):
    """The figures both kernels measure, [(what, [values over repeats],
    goal)], from one kernel's raw results; goal: issue 19 holds ours to
    at most upstream's (bulk of a BPF CC, a callback, registration,
    memory per map)."""
    figs = []
    bulk = bulk_runs(raw)
    for cc in sorted(bulk):
        figs.append((f"bulk {cc}: guest ms per GB", [x[1] for x in bulk[cc].values()],
                     cc.startswith("bpf_")))
    for cc in PAIRS:
        b, n = bulk.get("bpf_" + cc), bulk.get(cc)
        if b and n:
            # BPF − native guest ns per GB, over the callbacks per GB
            figs.append((f"bulk {cc}: BPF − native, guest ns per callback",
                         [(b[r][1] - n[r][1]) * 1e6 / b[r][3] for r in sorted(set(b) & set(n))],
                         True))
    life, _, maps = machinery_runs(raw)
    for cc, v in sorted(life.items()):
        for i, what in enumerate(("load+verify", "register", "unregister")):
            figs.append((f"{cc}: {what}, ms", [x[i] for x in v], what == "register"))
    if "create" in maps and "register" in maps:
        # what a map holds once registered: its creation and registration
        n = maps["create"][0]
        rounds = list(zip(maps["create"][2], maps["register"][2]))
        for i, what in enumerate(("Slab", "VmallocUsed", "Percpu")):
            figs.append((f"one registered map: {what} kB",
                         [(c[i] + r[i]) / n for c, r in rounds], True))
    reg, unreg, look = scale_ccs_runs(raw)
    for a, b in ((1, 10), (991, 1000)):
        figs.append((f"register the {a}th–{b}th BPF CC, µs",
                     [t for c, t in reg if a <= c <= b], False))
    for count in sorted(look):
        figs.append((f"setsockopt to the newest of {count} BPF CCs, ns",
                     [look[count]["newest"]], False))
    conns, nconns = scale_conns_runs(raw)
    for cc, v in sorted(conns.items()):
        for i, what in enumerate(("set-up µs", "kernel memory kB", "request+reply µs",
                                  "close µs")):
            figs.append((f"{nconns:,} connections, {cc}: {what} per connection",
                         [x[i] for x in v], False))
    return figs


class Report:
    def __init__(self, raw, md):
        self.raw = raw
        self.md = md
        self.dir = md[:-3] if md.endswith(".md") else md + ".d"
        os.makedirs(self.dir, exist_ok=True)
        self.out = []
        self.summary = []   # (what, BPF/native, goal)

    def w(self, line=""):
        self.out.append(line)

    def table(self, head, lines):
        self.w("| " + " | ".join(head) + " |")
        self.w("|" + " --- |" * len(head))
        for line in lines:
            self.w("| " + " | ".join(str(x) for x in line) + " |")
        self.w()

    def gnuplot(self, script):
        subprocess.run(["gnuplot"], input=script, text=True, check=True)

    # 0. ours against upstream 6.1
    def anchor(self):
        araw = os.path.join(self.raw, "anchor")
        if not os.path.isdir(araw):
            sys.exit(f"bench.report: {araw} is missing: make bench runs the anchor "
                     "(upstream 6.1) beside the series")
        with open(os.path.join(araw, "env.txt")) as f:
            self.anchor_env = f.read().strip().splitlines()
        theirs = {what: values for what, values, _ in anchor_figures(araw)}
        self.w("## 0. Against upstream 6.1")
        self.w()
        self.w("The same workloads, programs and BPF objects (DCTCP without `get_info`, "
               "which upstream 6.1 refuses) on the anchor: Debian's linux-source-6.1 "
               "without the series, with upstream 6.1's own STRUCT_OPS, built with the "
               "same config and compiler (`tools/build-anchor`) and booted right after "
               "ours under the same instruction-counted clock. Median (min–max) over "
               "repeats; the ratio is of the medians (below 1: ours is cheaper).")
        self.w()
        lines = []
        for what, ours, goal in anchor_figures(self.raw):
            up = theirs.get(what)
            if not up or not ours:
                continue
            ratio = f"{med(ours) / med(up):.4f}" if med(up) else "—"
            lines.append((what, spread(ours, "{:.3f}"), spread(up, "{:.3f}"), ratio))
            # a per-callback figure only where its repeats resolve it
            # above zero on both kernels
            resolved = "per callback" not in what or min(ours) > 0 and min(up) > 0
            if goal and resolved:
                self.summary.append((f"{what}: ours / upstream 6.1", ratio, "≤ 1.00"))
        self.table(("figure", "ours", "upstream 6.1", "ours / upstream"), lines)
        self.w("The per-callback figure divides a BPF CC's extra cost over its native "
               "counterpart per GB, within each repeat, by the callbacks it ran per GB: "
               "the trampoline, the guard in front of it (ours only) and the program's "
               "own code against the kernel's compiled C, per call into the CC. Where a "
               "CC makes few callbacks (Reno: most ACKs only grow cwnd in one call) the "
               "repeats' spread crosses zero and the figure is not resolved; the summary "
               "leaves it out. A registered map's memory is its creation's and its "
               "registration's, from /proc/meminfo over 1,000 maps, per round "
               "(three rounds): the Slab line counts pages, so one round's figure "
               "depends on how full the caches were when it began.")
        self.w()

    # 1. bulk
    def bulk(self):
        runs = bulk_runs(self.raw)
        self.w("## 1. Bulk cost (loopback, CPU-bound)")
        self.w()
        self.w("One TCP flow over loopback, both ends in the guest's one CPU, each CC "
               "in turn, the order reversed every other repeat. The CPU is busy "
               "throughout (the busy column, from /proc/stat), so the guest time a "
               "transfer takes is its CPU cost; with the instruction-counted clock "
               "it is the instructions executed (both ends, softirqs, the CC). "
               "Ratios pair BPF with native within a repeat; median (min–max).")
        self.w()
        lines = []
        for cc in sorted(runs):
            r = runs[cc].values()
            lines.append((cc, len(r), spread([x[0] for x in r], "{:.3f}"),
                          spread([x[1] for x in r], "{:.0f}"),
                          spread([100 * x[2] for x in r], "{:.0f}%")))
        self.table(("CC", "runs", "Gbit/s (guest clock)", "guest ms per GB", "busy"), lines)
        lines = []
        for cc in PAIRS:
            b, n = runs.get("bpf_" + cc), runs.get(cc)
            if not b or not n:
                continue
            reps = sorted(set(b) & set(n))
            eff = [n[r][1] / b[r][1] for r in reps]
            calls = med([b[r][3] for r in reps])
            lines.append((cc, spread(eff), f"{med([b[r][1] - n[r][1] for r in reps]):+.1f}",
                          f"{calls:,.0f}", f"{calls * self.overhead_ns() / 1e6:.1f}"))
            self.summary.append((f"bulk {cc}: cost native/BPF per GB", spread(eff), "≥ 0.99"))
        self.table(("pair", "native/BPF guest time per GB", "BPF − native, ms per GB",
                    "BPF callbacks per GB", "their trampolines, ms per GB"), lines)
        self.w("The last column is the callbacks a BPF CC ran per GB (its `<op>_calls` "
               "counters) times the trampoline's overhead per call measured in 3a: "
               "what the struct_ops machinery itself adds. The rest of the difference "
               "is the programs' own code against the kernel's compiled C.")
        self.w()

    def overhead_ns(self):
        """The trampoline's median overhead per call (3a), in guest ns."""
        r = rows(self.raw, "callback.csv")
        return med([(int(x[3]) - int(x[4])) / int(x[2]) for x in r])

    # 3a. callback
    def callback(self):
        r = rows(self.raw, "callback.csv")
        bpf = [int(x[3]) / int(x[2]) for x in r]
        nat = [int(x[4]) / int(x[2]) for x in r]
        over = [b - n for b, n in zip(bpf, nat)]
        self.w("## 3a. One callback: through the trampoline vs a native call")
        self.w()
        self.w(f"The test target's `bench N` (CONFIG_BPF_STRUCT_OPS_TEST): {int(r[0][2]):,} "
               f"calls of `add(s, 1)` through the registered struct's function pointer "
               f"(trampoline + BPF program `return a + b`), then as many of a native "
               f"`add()` through a function pointer; {len(r)} repeats.")
        self.w()
        self.w("Guest ns; with the instruction-counted clock, instructions.")
        self.w()
        self.table(("", "ns per call"), (
            ("BPF (trampoline)", spread(bpf, "{:.1f}")),
            ("native", spread(nat, "{:.1f}")),
            ("trampoline overhead", spread(over, "{:.1f}")),
            ("ratio native/BPF", spread([n / b for b, n in zip(bpf, nat)]))))
        batched = [x for x in r if len(x) >= 12]
        if batched:
            self.w()
            self.w(f"Within each repeat the kernel times batches of {int(batched[0][5]):,} calls, "
                   "a BPF batch and a native one back to back with preemption off; per call, "
                   "the median batch and the fastest and slowest of each repeat:")
            self.w()
            per = lambda x, i: int(x[i]) / int(x[5])
            self.table(("", "median batch", "fastest batch", "slowest batch"), (
                ("BPF (trampoline)", spread([per(x, 6) for x in batched], "{:.1f}"),
                 spread([per(x, 7) for x in batched], "{:.1f}"),
                 spread([per(x, 8) for x in batched], "{:.1f}")),
                ("native", spread([per(x, 9) for x in batched], "{:.1f}"),
                 spread([per(x, 10) for x in batched], "{:.1f}"),
                 spread([per(x, 11) for x in batched], "{:.1f}"))))
        self.summary.append(("one callback, guest ns: BPF / native (trampoline overhead)",
                             f"{med(bpf):.1f} / {med(nat):.1f} ({med(over):+.1f})", "—"))

    # 3b, 3c
    def machinery(self):
        life, prog, maps = machinery_runs(self.raw)
        self.w("## 3b. Load, register, unregister")
        self.w()
        self.w("libbpf: `bpf_object__open_file()` + `bpf_object__load()` (verify, JIT), "
               "`bpf_map__attach_struct_ops()` (trampolines, registration), "
               "`bpf_link__destroy()` (unregistration: TCP waits for an RCU grace "
               "period), `bpf_object__close()`; ms, median (min–max).")
        self.w()
        self.table(("CC", "load+verify", "register", "unregister", "close"),
                   [(cc,) + tuple(spread([x[i] for x in v], "{:.3f}") for i in range(4))
                    for cc, v in sorted(life.items())])
        self.w("## 3c. Memory held per registered CC")
        self.w()
        self.w("Programs, from the kernel's accounting (`bpf_prog_info`, fdinfo `memlock`):")
        self.w()
        self.table(("CC", "programs", "xlated bytes", "JITed bytes", "memlock bytes"), prog)
        if maps:
            n, vsize, _ = maps["create"]
            self.w(f"The map: {n} struct_ops maps of `tcp_congestion_ops` (value {vsize} "
                   "bytes) created, then registered (three programs, shared by all), "
                   "by /proc/meminfo, per map, median (min–max) of three rounds:")
            self.w()
            self.table(("stage", "Slab kB", "VmallocUsed kB", "Percpu kB"),
                       [(stage, *(spread([r[i] / n for r in maps[stage][2]], "{:.2f}")
                                  for i in range(3)))
                        for stage in ("create", "register")])
            self.w("Creation allocates the map with its kernel copy of the value, the "
                   "user's copy, the program table and the trampoline page "
                   "(VmallocUsed); registration allocates nothing more: the "
                   "trampolines are written into that page.")
            self.w()

    # 4. scale
    def scale(self):
        reg, unreg, look = scale_ccs_runs(self.raw)
        self.w("## 4. Scale")
        self.w()
        self.w(f"{len(reg)} distinct BPF CCs registered one after another "
               "(hand-made maps sharing three trivial programs), µs per registration:")
        self.w()
        buckets = [(1, 10), (11, 100), (101, 500), (501, 1000)]
        self.table(("registered so far", "register µs", "unregister µs"),
                   [(f"{a}–{b}", spread([t for c, t in reg if a <= c <= b], "{:.0f}"),
                     spread([t for c, t in unreg if a <= c <= b], "{:.0f}"))
                    for a, b in buckets if any(a <= c <= b for c, _ in reg)])
        self.w("`setsockopt(TCP_CONGESTION)` on an unconnected socket, ns per call "
               "(alternating with \"reno\", the list's head): to the newest BPF CC "
               "(the list's tail) and to \"cubic\" (near the head):")
        self.w()
        self.table(("registered", "newest BPF CC", "cubic"),
                   [(k, v.get("newest"), v.get("cubic")) for k, v in sorted(look.items())])
        with open(os.path.join(self.dir, "registration.csv"), "w") as f:
            f.write("# registered register_us\n")
            f.writelines(f"{c} {t:.1f}\n" for c, t in reg)
        self.gnuplot(f"""
set terminal pngcairo size 800,450 noenhanced
set output '{self.dir}/registration.png'
set xlabel 'BPF CCs registered'
set ylabel 'time to register one (us)'
set logscale y
set grid
plot '{self.dir}/registration.csv' using 1:2 with points pt 7 ps 0.4 title 'register'
""")
        self.w("![registration time](" + os.path.basename(self.dir) + "/registration.png)")
        self.w()

        conns, nconns = scale_conns_runs(self.raw)
        if conns:
            self.w(f"{nconns:,} concurrent loopback connections per CC (after an untimed "
                   "round): per connection, median (min–max) over rounds:")
            self.w()
            self.table(("CC", "set-up µs", "kernel memory kB", "1 KiB request+reply µs",
                        "close µs"),
                       [(cc,) + tuple(spread([x[i] for x in v], "{:.2f}") for i in range(4))
                        for cc, v in sorted(conns.items())])
            bpf = [k for k in conns if k.startswith("bpf_")]
            for b in bpf:
                n = conns.get(b[4:])
                if not n:
                    continue
                ratios = [med([x[i] for x in conns[b]]) / med([x[i] for x in n])
                          for i in range(4)]
                self.w(f"{b} against {b[4:]}: set-up ×{ratios[0]:.3f}, memory "
                       f"×{ratios[1]:.3f}, request+reply ×{ratios[2]:.3f}, close "
                       f"×{ratios[3]:.3f}: the BPF CC's init() on both ends and its "
                       "callbacks on each exchange's ACKs, each through a trampoline "
                       "(3a).")
                self.w()
                self.summary.append((f"{nconns:,} connections: request+reply per "
                                     f"connection, BPF/native ({b[4:]})",
                                     f"{ratios[2]:.3f}", "—"))

    # 2. behaviour
    def behaviour(self):
        runs = {}
        for path in sorted(glob.glob(os.path.join(self.raw, "behaviour-*.json"))):
            name = os.path.basename(path)[len("behaviour-"):-len(".json")]
            cc, rep = name.rsplit("-", 1)
            s = summary(load(path))
            if s["cc"] != cc or s["peer_cc"] != cc:
                sys.exit(f"bench.report: {path} ran {s['cc']}/{s['peer_cc']}, not {cc}")
            with open(path[:-5] + ".ce") as f:
                s["ce"] = int(f.read())
            runs.setdefault(cc, {})[int(rep)] = s
        with open(os.path.join(self.raw, "env.txt")) as f:
            bottleneck = [l.strip() for l in f if l.startswith(("bottleneck", "dctcp:"))]
        self.w("## 2. Behaviour through a bottleneck")
        self.w()
        self.w("Sender, router and receiver namespaces over veth (lib/netlab.sh), "
               "one iperf3 flow at a time: " + " ".join(bottleneck) +
               " Queueing delay = mean RTT − min RTT of the run (iperf3's TCP_INFO "
               "samples every 0.1 s). BPF and native alternate, same settings, no "
               "randomness in the path.")
        self.w()
        lines = []
        for cc in sorted(runs):
            r = list(runs[cc].values())
            lines.append((cc, len(r), spread([x["mbps"] for x in r], "{:.2f}"),
                          spread([x["rtt_ms"] for x in r], "{:.1f}"),
                          spread([x["qdelay_ms"] for x in r], "{:.2f}"),
                          spread([x["retrans"] for x in r], "{:.0f}"),
                          spread([x["ce"] for x in r], "{:.0f}")))
        self.table(("CC", "runs", "Mbit/s", "mean RTT ms", "queueing delay ms",
                    "retransmits", "CE marks"), lines)
        lines = []
        for cc in PAIRS:
            b, n = runs.get("bpf_" + cc), runs.get(cc)
            if not b or not n:
                continue
            thr = med([x["mbps"] for x in b.values()]) / med([x["mbps"] for x in n.values()])
            qb = med([x["qdelay_ms"] for x in b.values()])
            qn = med([x["qdelay_ms"] for x in n.values()])
            qdiff = (qb - qn) / qn if qn else 0
            equal, first = [], []
            for r in sorted(set(b) & set(n)):
                cb = [x[1] for x in b[r]["trace"]]
                cn = [x[1] for x in n[r]["trace"]]
                equal.append(sum(x == y for x, y in zip(cb, cn)) / max(len(cb), 1))
                diff = [i for i, (x, y) in enumerate(zip(cb, cn)) if x != y]
                first.append(b[r]["trace"][diff[0]][0] if diff else None)
            lines.append((cc, f"{thr:.3f}", f"{qdiff:+.1%}",
                          "yes" if abs(thr - 1) <= 0.02 else "no",
                          "yes" if abs(qdiff) <= 0.10 else "no",
                          spread([100 * e for e in equal], "{:.0f}%"),
                          ", ".join("never" if f is None else f"{f:.1f} s" for f in first)))
            self.summary.append((f"bottleneck {cc}: throughput BPF/native", f"{thr:.3f}",
                                 "within 2%"))
            self.summary.append((f"bottleneck {cc}: queueing delay BPF vs native",
                                 f"{qdiff:+.1%}", "within 10%"))
            self.plot_cwnd(cc, b, n)
        self.table(("pair", "throughput BPF/native (medians)", "queueing delay BPF vs native",
                    "within 2%", "within 10%", "cwnd samples equal", "first differing sample"),
                   lines)
        self.w("With the instruction-counted clock a run is deterministic, so BPF and "
               "native can be compared sample by sample. Their cwnd traces stay equal "
               "as long as both make the same decisions on the same ACKs; the BPF path "
               "runs a few hundred more instructions per ACK (trampolines, 3a), which "
               "moves later packets by nanoseconds of guest time, until one lands on the "
               "other side of a queue threshold or timer and the runs part. A trace "
               "that parts from the first samples on means the algorithm differs (as "
               "BPF CUBIC's HyStart did before this benchmark found it).")
        self.w()
        for cc in PAIRS:
            if cc in runs and f"bpf_{cc}" in runs and cc in KNOWN_DIFFERENCES:
                self.w(f"**{cc}**: " + KNOWN_DIFFERENCES[cc])
                self.w()
        for cc in PAIRS:
            if os.path.exists(os.path.join(self.dir, f"cwnd-{cc}.png")):
                self.w(f"![cwnd {cc}]({os.path.basename(self.dir)}/cwnd-{cc}.png)")
        self.w()

    def plot_cwnd(self, cc, b, n):
        files = []
        for name, runs in ((f"bpf_{cc}", b), (cc, n)):
            for rep, run in runs.items():
                path = os.path.join(self.dir, f"trace-{name}-{rep}.csv")
                write_trace(run["trace"], path)
            files.append((name, os.path.join(self.dir, f"trace-{name}-0.csv")))
        self.gnuplot(f"""
set terminal pngcairo size 900,700 noenhanced
set output '{self.dir}/cwnd-{cc}.png'
set multiplot layout 2,1 title '{cc}: BPF against native, first run of each'
set key bottom right opaque
set grid
set ylabel 'cwnd (kB)'
plot '{files[0][1]}' using 1:2 with lines lw 2 title '{files[0][0]}', \\
     '{files[1][1]}' using 1:2 with lines lw 2 dt 2 title '{files[1][0]} (native)'
set xlabel 'time (s)'
set ylabel 'RTT (ms)'
plot '{files[0][1]}' using 1:3 with lines lw 2 title '{files[0][0]}', \\
     '{files[1][1]}' using 1:3 with lines lw 2 dt 2 title '{files[1][0]} (native)'
unset multiplot
""")

    # 5. replacing a CC
    def replace(self):
        swap, move = {}, []
        for r in rows(self.raw, "replace.csv"):
            if r[0] == "swap":
                swap.setdefault(r[2], []).append([float(x) for x in r[3:9]])
            elif r[0] == "move":
                move.append([float(x) for x in r[2:9]])
        self.w("## 5. Replacing a BPF CC under load")
        self.w()
        self.w("A connector thread opens loopback connections as fast as the guest lets it, "
               "alternately asking for the CC by name (setsockopt) and taking the netns "
               "default, while the CC is replaced, 20 ms apart: by deleting its map and "
               "registering a new one (upstream 6.1's only way) or by `BPF_LINK_UPDATE`. "
               "Failed setsockopt: the name was missing; fallbacks: a connection on the "
               "default got another CC. Totals per run, median (min–max) over runs; a "
               "replacement's time in µs: the median of the runs' medians (the fastest–slowest replacement of all runs).")
        self.w()
        lines = []
        for how, title in (("delete_register", "delete + register"), ("link_update", "link update")):
            v = swap.get(how, [])
            if not v:
                continue
            lines.append((title, len(v), spread([x[0] for x in v], "{:.0f}"),
                          spread([x[1] for x in v], "{:.0f}"), spread([x[2] for x in v], "{:.0f}"),
                          f"{med([x[4] for x in v]):.1f} ({min(x[3] for x in v):.1f}–"
                          f"{max(x[5] for x in v):.1f})"))
        self.table(("way", "runs", "connections", "failed setsockopt", "fallbacks",
                    "one replacement, µs"), lines)
        if "delete_register" in swap and "link_update" in swap:
            fails = [sum(x[1] + x[2] for x in swap[h]) for h in ("delete_register", "link_update")]
            self.summary.append(("failed setsockopt + fallbacks in all replacement runs: "
                                 "delete+register / link update", f"{fails[0]:.0f} / {fails[1]:.0f}",
                                 "0 with links"))
        if move:
            n = int(move[0][0])
            self.w(f"Then {n} loopback connections, each sending its bytes on version 1 "
                   "(the netns default); half-way through the link moves to version 2 and "
                   "`cc-move` moves every socket still on version 1 (both ends of each "
                   "connection), with the transfers running.")
            self.w()
            self.table(("runs", "sockets moved", "already current", "failed", "cc-move ms",
                        "transfers finished", "ACKs on v1 after the move"),
                       [(len(move), spread([x[1] for x in move], "{:.0f}"),
                         spread([x[2] for x in move], "{:.0f}"), spread([x[3] for x in move], "{:.0f}"),
                         spread([x[4] for x in move], "{:.1f}"),
                         spread([x[5] for x in move], "{:.0f}"), spread([x[6] for x in move], "{:.0f}"))])
            self.summary.append((f"moving {n} live connections ({2 * n} sockets) with cc-move, ms",
                                 f"{med([x[4] for x in move]):.1f}, {min(x[5] for x in move):.0f} "
                                 f"of {n} transfers finished", "all finish"))

    # 6. get_info
    def info(self):
        per = {}
        for _, rep, cc, calls, ns, length in rows(self.raw, "info.csv"):
            per.setdefault(cc, []).append((int(ns) / int(calls), int(length)))
        self.w("## 6. What an answer to `ss -ti` costs")
        self.w()
        self.w("`getsockopt(TCP_CC_INFO)` on a connected loopback socket, the same number of "
               "calls in a row for each CC, interleaved over the repeats. A BPF CC's answer "
               "runs its `get_info` program behind the kernel's guard (zero the union, run, "
               "check the attribute and size); native DCTCP's is a direct call; a CC without "
               "`get_info` answers nothing, the system call's own cost. It runs when someone "
               "asks (`ss`, `TCP_CC_INFO`), never per ACK: the bulk figures above do not "
               "include it.")
        self.w()
        self.table(("CC", "answer, bytes", "ns per call"),
                   [(cc, v[0][1], spread([x[0] for x in v], "{:.0f}")) for cc, v in per.items()])
        if "bpf_dctcp" in per and "dctcp" in per:
            b, n = med([x[0] for x in per["bpf_dctcp"]]), med([x[0] for x in per["dctcp"]])
            self.summary.append(("one `TCP_CC_INFO` answer, guest ns: bpf_dctcp / dctcp",
                                 f"{b:.0f} / {n:.0f} ({b - n:+.0f})", "not per ACK"))

    def write(self):
        with open(os.path.join(self.raw, "env.txt")) as f:
            env = f.read().strip().splitlines()
        head = ["# Benchmarks: BPF congestion controls against native ones", "",
                "Made by `make bench` (`bench/run-guest` in the guest, `bench/report.py` "
                "here). The guest runs under QEMU TCG with an instruction-counted clock "
                "(`-icount shift=0`: one guest ns per instruction, one CPU): times are "
                "work done, repeatable to the instruction and unaffected by the host's "
                "load, but they are not a real CPU's nanoseconds — compare within this "
                "report, as ratios.", ""]
        head += ["    " + l for l in env] + [""]
        if getattr(self, "anchor_env", None):
            head += ["The anchor (section 0):", ""]
            head += ["    " + l for l in self.anchor_env] + [""]
        head += ["## Summary", ""]
        head += ["| what | measured | goal |", "| --- | --- | --- |"]
        head += [f"| {a} | {b} | {c} |" for a, b, c in self.summary] + [""]
        with open(self.md, "w") as f:
            f.write("\n".join(head + self.out) + "\n")
        print("\n".join(head[-len(self.summary) - 2:]))


SECTIONS = ("anchor", "bulk", "behaviour", "callback", "machinery", "scale", "replace", "info")


def main(argv):
    if len(argv) < 3 or any(s not in SECTIONS for s in argv[3:]):
        sys.exit(__doc__)
    rep = Report(argv[1], argv[2])
    for section in argv[3:] or SECTIONS:
        getattr(rep, section)()
    rep.write()


if __name__ == "__main__":
    main(sys.argv)
