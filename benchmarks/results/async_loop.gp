# benchmarks/results/async_loop.gp - regular-pod throughput against API latency (async_loop.png).
#   cd benchmarks/results && gnuplot async_loop.gp
# Data: async_loop.dat, written by summarize.py from async_loop.json (preempt-async-loop-sim
# --output json); one block per preemptor rate r (index 0: the first rate, 1: the second).
set terminal pngcairo size 1100,480 font "DejaVu Sans,10"
set output "async_loop.png"
set datafile commentschars "#"
set multiplot layout 1,2 title "preempt-async-loop-sim: regular-pod throughput vs eviction API latency (virtual time; 5000 nodes, QPS 50/burst 100, 1% failures)"
set xlabel "API latency L (ms)"
set ylabel "regular pods scheduled per second"
set yrange [0:1100]
set xrange [-2:52]
set xtics (0, 5, 20, 50)
set grid
set key bottom left
do for [i=0:1] {
  r = (i == 0) ? 5 : 20
  set title sprintf("one preemptor every %d ms (r = %d/s)", 1000 / r, r)
  plot "async_loop.dat" index i using 2:3 with linespoints lw 2 pt 7 lc rgb "#555555" title "baseline (no preemptors)", \
       "" index i using 2:5 with linespoints lw 2 pt 5 lc rgb "#1f77b4" title "async dispatch", \
       "" index i using 2:4 with linespoints lw 2 pt 9 lc rgb "#d62728" title "inline dispatch", \
       "" index i using 2:6 with lines dt 2 lw 1.5 lc rgb "#d62728" title "inline, cost model"
}
unset multiplot
