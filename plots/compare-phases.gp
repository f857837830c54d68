# compare-phases.gp - wall time of each phase (copy, sync, delete, ...)
# in each capture: one group of bars per capture, one bar per phase.
# Captures are numbered as in report.txt.
#
# Variables set by wcanalyze: out, title, datafile (columns: name, fs,
# write cache, barriers, disk (its model, or "-"), then wall seconds per phase; NaN when a capture
# has no such phase), phases (the phase names), ncap.
caplabel(i) = sprintf("#%d", int(i) + 1) . "\n" . strcol(2) . "\ncache " . strcol(3) . "\nbarriers " . strcol(4) . "\n" . strcol(5)
do for [fmt in formats] {
	eval outcmd(fmt, (ncap > 6 ? 260 + 125 * ncap : 1000), 700)
	set title title
	set style data histograms
	set style histogram clustered gap 1
	set style fill solid 1.0 border lc rgb "#000000"
	set ylabel "wall time (s)"
	set yrange [0:*]
	set grid ytics lc rgb "#E5E5E5"
	set border 3
	set tics out nomirror
	set xtics scale 0 font ",9"
	set bmargin 7
	set key outside right top vertical reverse Left title "phase"
	plot for [p=1:words(phases)] datafile using (column(5 + p)):xtic(caplabel(column(0))) \
		lc rgb pcolor(p) title word(phases, p)
	unset output
}
