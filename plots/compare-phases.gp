# SPDX-License-Identifier: GPL-2.0-or-later
# compare-phases.gp - wall time of each phase (copy, sync, delete, ...)
# in each configuration: one group of bars per group of runs, one bar per
# phase at the mean of its runs, with their range.  A panel per disk, at
# most 12 groups a panel; groups are numbered as in report.txt.
#
# Variables set by wcanalyze: out, title, datafile (columns: first
# capture's name, fs, write cache, barriers, disk (its model, else "loop",
# the device or "unknown"),
# then per phase mean, lowest and highest wall seconds (NaN when no run
# has the phase), last the runs with phases.tsv), phases (the phase
# names), ncap (groups), panels, npanels, ptitle1..., width, height.
# wcanalyze leaves out a panel where no run has phases; a group without
# phases in a panel drawn keeps its place, labelled so.
phased = 3 * words(phases) + 6
grlabel(i) = sprintf("#%d", int(i) + 1) . "\n" . strcol(2) . "\ncache " . strcol(3) . "\nbarriers " . strcol(4) . "\n" . strcol(5) . (column(phased) > 0 ? "" : "\nno phases.tsv")
# Rows of other panels are NaN: autoscaling then sees only this panel's.
in(v) = column(0) >= a && column(0) <= b ? v : NaN
# ... and their labels empty, when a narrow panel shows their places.
xl(i) = column(0) >= a && column(0) <= b ? grlabel(i) : ""
do for [fmt in formats] {
	eval outcmd(fmt, width, height)
	set multiplot layout npanels, 1 title title font ",12"
	set style data histograms
	set style histogram errorbars gap 1 lw 1
	set style fill solid 1.0 border lc rgb "#000000"
	set ylabel "wall time (s)"
	set yrange [0:*]
	set grid ytics lc rgb "#E5E5E5"
	set border 3
	set tics out nomirror
	set xtics scale 0 font ",8"
	set bmargin 7
	set rmargin 16
	set key outside right top vertical reverse Left title "phase" font ",9"
	do for [i=1:npanels] {
		a = int(word(panels, 2 * i - 1))
		b = int(word(panels, 2 * i))
		set xrange [a - 0.6:(b < a + 3 ? a + 3 : b) + 0.4]
		set title value(sprintf("ptitle%d", i)) font ",10"
		# the legend is the first panel's alone: no title over an empty one
		set key title (i == 1 ? "phase" : "")
		plot for [p=1:words(phases)] datafile \
			using (in(column(3 * p + 3))):(in(column(3 * p + 4))):(in(column(3 * p + 5))):xtic(xl(column(0))) \
			lc rgb pcolor(p) title (i == 1 ? word(phases, p) : "")
	}
	unset multiplot
	unset output
}
