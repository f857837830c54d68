# SPDX-License-Identifier: GPL-2.0-or-later
# scatter.gp - sector over time: one point per request, coloured by
# category, flushes marked in a strip above the data (flushes have no
# sector).  Requests are binned per pixel: a point stands for every
# request of its category in that pixel, and the title says when that
# merged points.
#
# Variables set by wcanalyze: out, title, note, datafile (one block per
# category: time s, sector, category bit; the flush marks, sector -1,
# first when has_flush), scats (categories with points, one block each
# in this order), has_flush, ps (point size),
# xmax (s), ymax (sectors).
do for [fmt in formats] {
	eval outcmd(fmt, 1200, 680)
	set title title . "\n" . note
	set xlabel "time since the capture started (s)"
	set ylabel "sector (512-byte units)"
	if (ymax >= 1e6) { set format y "%.1s%c" } else { set format y "%.0f" }
	set xrange [0:xmax]
	set yrange [0:ymax * 1.09]
	set ytics nomirror
	set grid xtics ytics lc rgb "#E5E5E5"
	set key above horizontal samplen 1.5 spacing 1.2 width 1
	set rmargin 6
	set border 3
	set tics out nomirror
	plot for [i=1:(has_flush ? 1 : 0)] datafile index 0 using 1:(ymax * 1.02):(0):(ymax * 0.06) \
		with vectors nohead lw 1.2 lc rgb ccolor(0) \
		title (has_flush ? "flush (marks above the data)" : ""), \
	     for [i=1:words(scats)] datafile index (i - 1 + has_flush) using 1:2 \
		with points pt 7 ps ps lc rgb ccolor(word(scats, i) + 0) \
		title cname(word(scats, i) + 0)
	unset output
}
