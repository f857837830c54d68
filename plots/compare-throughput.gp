# SPDX-License-Identifier: GPL-2.0-or-later
# compare-throughput.gp - total throughput over time, small multiples: a
# panel per group of runs (one configuration), its runs overlaid, each
# run's clock starting at its own first event; every panel has the same
# time axis.  Groups are numbered as in report.txt.
#
# Variables set by wcanalyze: out, title, datafile (one block per capture,
# in input order, separated by two blank lines; columns: time s, MB/s),
# ngroups, g1... (the block numbers of each group's runs), t1... (each
# panel's title), cols, rows, xmax (s), width, height.
do for [fmt in formats] {
	eval outcmd(fmt, width, height)
	set multiplot layout rows, cols title title font ",12"
	set xrange [0:xmax]
	set yrange [0:*]
	set xlabel "time (s)" font ",9"
	set ylabel "MB/s" font ",9"
	set xtics font ",8"
	set ytics font ",8"
	set grid xtics ytics lc rgb "#E5E5E5"
	set border 3
	set tics out nomirror
	set key top right font ",8" samplen 2
	do for [g=1:ngroups] {
		m = value(sprintf("g%d", g))
		set title value(sprintf("t%d", g)) font ",9"
		plot for [j=1:words(m)] datafile index int(word(m, j)) using 1:2 \
			with lines lw 1.2 lc rgb scolor(j) title sprintf("run %d", j)
	}
	unset multiplot
	unset output
}
