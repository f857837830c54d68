# phases.gp - where the time of each phase went: one stacked bar per
# phase (and one for the whole capture), time by category plus idle time.
# A bar's height is the phase's wall time.
#
# Variables set by wcanalyze: out, title, datafile (columns: label, idle s,
# then seconds per category in enum order), cats.
do for [fmt in formats] {
	eval outcmd(fmt, 1000, 650)
	set title title
	set style data histograms
	set style histogram rowstacked
	set style fill solid 0.9 border lc rgb "#FFFFFF"
	set boxwidth 0.6
	set xlabel "phase"
	set ylabel "time (s)"
	set yrange [0:*]
	set grid ytics lc rgb "#E5E5E5"
	set border 3
	set tics out nomirror
	set xtics scale 0
	set key outside right top vertical reverse Left
	plot for [w in cats] datafile using (column(3 + w)):xtic(1) lc rgb ccolor(w + 0) title cname(w + 0), \
	     '' using 2 lc rgb idlecolor title "idle"
	unset output
}
