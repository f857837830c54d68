# SPDX-License-Identifier: GPL-2.0-or-later
# phases.gp - where the time of each phase went: one stacked bar per
# phase (and one for the whole capture), busy time by category.  Idle time
# is left out of the bars (it would dwarf the rest when the device waited
# most of the time); each bar is labelled with its busy time and the
# phase's window.
#
# Variables set by wcanalyze: out, title, datafile (columns: label, idle s,
# then seconds per category in enum order, and with ndestage 1 the
# drive's destage of no request, part 7 of cats), cats, ndestage.
if (!exists("ndestage")) ndestage = 0
busy(x) = (sum [k=0:6] column(3 + k)) + (ndestage ? column(10) : 0)
pcol(k) = k < 7 ? ccolor(k) : destagecolor
pname(k) = k < 7 ? cname(k) : "destage (no request)"
do for [fmt in formats] {
	eval outcmd(fmt, 1000, 650)
	set title title
	set style data histograms
	set style histogram rowstacked
	set style fill solid 0.9 border lc rgb "#FFFFFF"
	set boxwidth 0.6
	set xlabel "phase"
	set ylabel "busy time of the main device (s)"
	set yrange [0:*]
	set grid ytics lc rgb "#E5E5E5"
	set border 3
	set tics out nomirror
	set xtics scale 0
	set key outside right top vertical reverse Left
	set offsets 0, 0, graph 0.08, 0
	plot for [w in cats] datafile using (column(3 + w)):xtic(1) lc rgb pcol(w + 0) title pname(w + 0), \
	     datafile using 0:(busy(0)):(sprintf("%.3g s\nof %.3g s", busy(0), busy(0) + column(2))) \
		with labels offset 0, 1.2 font ",9" notitle
	unset output
}
