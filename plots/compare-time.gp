# SPDX-License-Identifier: GPL-2.0-or-later
# compare-time.gp - where the time went in each configuration, side by
# side: one stacked bar per group of runs, the mean busy time of its
# runs by category, a bar through its top from the lowest to the highest
# run's busy time, so that a bug report's configurations (write cache,
# barriers, filesystems) can be compared at a glance.  Idle time is left
# out of the bars (it would dwarf the rest when the device waited most
# of the time); each bar is labelled with its busy time and the mean
# wall.  A panel per disk, at most 12 bars a panel; groups are numbered
# as in report.txt and the page's table.
#
# Variables set by wcanalyze: out, title, datafile (columns: first
# capture's name, fs, write cache, barriers, disk (its model, else "loop",
# the device or "unknown"),
# idle s, then mean seconds per category in enum order, runs, lowest and
# highest run's busy s, mean wall s, and with ndestage 1 the drive's
# destage of no request s), cats (the categories with time; 7 that
# destage), ndestage,
# ncap (groups), panels ("FIRST LAST" row numbers per panel), npanels,
# ptitle1... (the panels' titles), width, height.
if (!exists("ndestage")) ndestage = 0
busy(x) = (sum [k=0:6] column(7 + k)) + (ndestage ? column(18) : 0)
# Part 7 of cats: the drive's destage of no request, column 18.
pc(w) = w < 7 ? 7 + w : 18
pcol(k) = k < 7 ? ccolor(k) : destagecolor
pname(k) = k < 7 ? cname(k) : "destage (no request)"
# Rows of other panels are NaN: autoscaling then sees only this panel's.
in(v) = column(0) >= a && column(0) <= b ? v : NaN
# ... and their labels empty, when a narrow panel shows their places.
xl(i) = column(0) >= a && column(0) <= b ? grlabel(i) : ""
runs(n) = sprintf("\n%d run%s", n, n == 1 ? "" : "s")
grlabel(i) = sprintf("#%d", int(i) + 1) . "\n" . strcol(2) . "\ncache " . strcol(3) . "\nbarriers " . strcol(4) . "\n" . strcol(5) . runs(int(column(14)))
do for [fmt in formats] {
	eval outcmd(fmt, width, height)
	set multiplot layout npanels, 1 title title font ",12"
	set style data histograms
	set style histogram rowstacked
	set style fill solid 0.9 border lc rgb "#FFFFFF"
	set boxwidth 0.7
	set ylabel "busy time (s)"
	set yrange [0:*]
	set grid ytics lc rgb "#E5E5E5"
	set border 3
	set tics out nomirror
	set xtics scale 0 font ",8"
	set bmargin 8
	set rmargin 16
	set key outside right top vertical reverse Left font ",9"
	set offsets 0, 0, graph 0.15, 0
	do for [i=1:npanels] {
		a = int(word(panels, 2 * i - 1))
		b = int(word(panels, 2 * i))
		set xrange [a - 0.6:(b < a + 3 ? a + 3 : b) + 0.4]
		set title value(sprintf("ptitle%d", i)) font ",10"
		plot for [w in cats] datafile using (in(column(pc(w + 0)))):xtic(xl(column(0))) \
			lc rgb pcol(w + 0) title (i == 1 ? pname(w + 0) : ""), \
		     datafile using 0:(in(busy(0))):(in(column(15))):(in(column(16))) with yerrorbars pt -1 lw 1.2 \
			lc rgb "#000000" title (i == 1 ? "runs' range" : ""), \
		     datafile using 0:(in(column(16))):(sprintf("%.3g s\nof %.3g s", busy(0), column(17))) \
			with labels offset 0, 1.3 font ",8" notitle, \
		     datafile using 0:(in(0.001)) with dots lc bgnd notitle
	}
	unset multiplot
	unset output
}
