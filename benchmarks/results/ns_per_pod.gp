# benchmarks/results/ns_per_pod.gp - ns per pod read against the node count (ns_per_pod.png).
#   cd benchmarks/results && gnuplot ns_per_pod.gp
# Data: ns_per_pod.dat, written by summarize.py from dry_run.json (inline evaluator, thread CPU
# time) and, for the upstream column, x_upstream.json (or upstream_ns_per_pod.dat) when present. Blocks: index 0-2 full
# (100%) dry runs with 4, 30, 110 pods per node; 3-5 the same sampled (upstream defaults).
set terminal pngcairo size 1100,480 font "DejaVu Sans,10"
set output "ns_per_pod.png"
set datafile missing "-"
set multiplot layout 1,2 title "one preemption decision: ns per pod read against the node count (inline, one thread)"
set xlabel "nodes"
set ylabel "ns per pod"
set logscale x
set logscale y
set xrange [350:7000]
set xtics (500, 1000, 5000)
set grid
set key center right
colors = "#1f77b4 #2ca02c #d62728"
has_upstream = int(system("awk 'NF == 3 && $1 !~ /^#/ && $3 != \"-\" { n++ } END { print (n > 0) }' ns_per_pod.dat"))
do for [s=0:1] {
  set title (s == 0 ? "full dry run (every node)" : "sampled dry run (upstream defaults)")
  if (has_upstream) {
    plot for [i=0:2] "ns_per_pod.dat" index (3*s+i) using 1:2 with linespoints lw 2 pt 7 lc rgb word(colors, i+1) title sprintf("preempt, %s pods/node", word("4 30 110", i+1)), \
         for [i=0:2] "ns_per_pod.dat" index (3*s+i) using 1:3 with linespoints lw 1.5 dt 2 pt 5 lc rgb word(colors, i+1) title sprintf("upstream, %s pods/node", word("4 30 110", i+1))
  } else {
    plot for [i=0:2] "ns_per_pod.dat" index (3*s+i) using 1:2 with linespoints lw 2 pt 7 lc rgb word(colors, i+1) title sprintf("preempt, %s pods/node", word("4 30 110", i+1))
  }
}
unset multiplot
