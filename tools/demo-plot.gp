# cwnd over time, each BPF CC against its native counterpart, from the CSVs
# tools/demo-report writes. Run by tools/demo-guest: gnuplot -e "dir='DIR'"
set terminal pngcairo size 900,500 font ",11" noenhanced
set xlabel "time (s)"
set ylabel "cwnd (kB)"
set key top right
set grid
do for [cc in "dctcp cubic reno"] {
	set output sprintf("%s/cwnd-%s.png", dir, cc)
	set title sprintf("%s: BPF (bpf_%s) against native, one flow through a shaped bottleneck", cc, cc)
	plot sprintf("%s/bpf_%s.csv", dir, cc) using 1:2 with lines lw 2 title sprintf("bpf_%s", cc), \
	     sprintf("%s/%s.csv", dir, cc) using 1:2 with lines lw 2 dt 2 title sprintf("%s (native)", cc)
}
