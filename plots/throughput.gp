# SPDX-License-Identifier: GPL-2.0-or-later
# throughput.gp - MB/s and IOPS over time, stacked by category; each time
# bin counts the requests that completed in it, as iostat does.
#
# Variables set by wcanalyze: out, title, datafile (timeline.dat), cats,
# xmax (s), bin_ms.
do for [fmt in formats] {
	eval outcmd(fmt, 1200, 760)
	set lmargin 12
	set multiplot layout 2, 1 title title . sprintf("\n(bins of %g ms)", bin_ms)
	set xrange [0:xmax]
	set grid xtics ytics lc rgb "#E5E5E5"
	set border 3
	set tics out nomirror
	set style fill solid 0.85 noborder
	set key above horizontal samplen 1.5
	set xlabel "time since the capture started (s)"
	set ylabel "throughput (MB/s, 10^6 bytes)"
	set yrange [0:*]
	plot for [i=1:words(cats)] datafile using 2:(cum(cats, i - 1, 4)):(cum(cats, i, 4)) \
		with filledcurves lc rgb ccolor(word(cats, i) + 0) title cname(word(cats, i) + 0)
	set key off
	set ylabel "requests completed per second (IOPS)"
	plot for [i=1:words(cats)] datafile using 2:(cum(cats, i - 1, 11)):(cum(cats, i, 11)) \
		with filledcurves lc rgb ccolor(word(cats, i) + 0) notitle
	unset multiplot
	unset output
}
