# cwnd over time, each BPF CC against its native counterpart, from the CSVs
# demo/report.py writes. Run by demo/run-guest: gnuplot -e "dir='DIR'";
# with roll=T set, the roll-out scene's flow instead, its link update at T s;
# with a='A' b='B' (make cc), A against B into cwnd-A.png.
set terminal pngcairo size 900,500 font ",11" noenhanced
set xlabel "time (s)"
set ylabel "cwnd (kB)"
set key top right
set grid
if (exists("roll")) {
	set output sprintf("%s/cwnd-roll.png", dir)
	set title "bpf_reno v1 (1/2 of cwnd kept on a loss) replaced mid-flow by v2 (0.7), the flow moved"
	set arrow from roll, graph 0 to roll, graph 1 nohead lw 2 dt 3
	set label "link update + cc-move" at roll, graph 0.95 offset 0.5, 0
	plot sprintf("%s/bpf_reno_roll.csv", dir) using 1:2 with lines lw 2 title "bpf_reno"
	exit
}
if (exists("a")) {
	set output sprintf("%s/cwnd-%s.png", dir, a)
	set title sprintf("%s against %s, one flow each", a, b)
	plot sprintf("%s/%s.csv", dir, a) using 1:2 with lines lw 2 title a, \
	     sprintf("%s/%s.csv", dir, b) using 1:2 with lines lw 2 dt 2 title b
	exit
}
do for [cc in "dctcp cubic reno"] {
	set output sprintf("%s/cwnd-%s.png", dir, cc)
	set title sprintf("%s: BPF (bpf_%s) against native, one flow through a shaped bottleneck", cc, cc)
	plot sprintf("%s/bpf_%s.csv", dir, cc) using 1:2 with lines lw 2 title sprintf("bpf_%s", cc), \
	     sprintf("%s/%s.csv", dir, cc) using 1:2 with lines lw 2 dt 2 title sprintf("%s (native)", cc)
}
