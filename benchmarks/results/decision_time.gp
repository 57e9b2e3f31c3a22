# benchmarks/results/decision_time.gp - one decision's time against the node count
# (decision_time.png).
#   cd benchmarks/results && gnuplot decision_time.gp
# Data: decision_time.dat, written by summarize.py from dry_run.json (preempt inline, one thread,
# report_only_chosen) and x_upstream.json (kube-scheduler v1.37 at parallelism 1 and 16), 30 pods
# per node; "-" where a side was not measured.
set terminal pngcairo size 900,520 font "DejaVu Sans,10"
set output "decision_time.png"
set datafile missing "-"
set title "one preemption decision, 30 pods per node: time against the node count"
set xlabel "nodes"
set ylabel "µs per decision"
set logscale x
set logscale y
set xrange [350:150000]
set xtics (500, 1000, 5000, 100000)
set grid
set key bottom right
plot "decision_time.dat" using 1:2 with linespoints lw 2 pt 7 lc rgb "#1f77b4" title "preempt, sampled (upstream defaults)", \
     "decision_time.dat" using 1:3 with linespoints lw 2 pt 5 lc rgb "#2ca02c" title "preempt, full (every node)", \
     "decision_time.dat" using 1:4 with linespoints lw 1.5 dt 2 pt 7 lc rgb "#1f77b4" title "kube-scheduler p1, sampled", \
     "decision_time.dat" using 1:5 with linespoints lw 1.5 dt 3 pt 7 lc rgb "#9467bd" title "kube-scheduler p16, sampled", \
     "decision_time.dat" using 1:6 with linespoints lw 1.5 dt 2 pt 5 lc rgb "#2ca02c" title "kube-scheduler p1, full", \
     "decision_time.dat" using 1:7 with linespoints lw 1.5 dt 3 pt 5 lc rgb "#d62728" title "kube-scheduler p16, full"
