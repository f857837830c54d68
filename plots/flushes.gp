# SPDX-License-Identifier: GPL-2.0-or-later
# flushes.gp - cache flushes per second, and the cumulative time spent in
# flush requests (the sum of their D2C times) against elapsed time.  The
# rate is over flush bins of at least a second and at least the span
# over the flushes (timeline.dat column 18): drawn as steps, one level a
# bin, never as a spike a row.
#
# Variables set by wcanalyze: out, title, datafile (timeline.dat), xmax
# (s), flushes (count), flush_s (total D2C of flushes, s), flush_bin_s
# (the shortest flush bin, s).
do for [fmt in formats] {
	eval outcmd(fmt, 1200, 760)
	set lmargin 12
	set multiplot layout 2, 1 title title . sprintf("\n%d flushes, %.3f s in flush requests", flushes, flush_s)
	set xrange [0:xmax]
	set grid xtics ytics lc rgb "#E5E5E5"
	set border 3
	set tics out nomirror
	set key top left
	set xlabel "time since the capture started (s)"
	set ylabel sprintf("flushes per second (bins of %.3g s)", flush_bin_s)
	# Without flushes both panels are flat zero: give them a range.
	if (flushes > 0) { set yrange [0:*] } else { set yrange [0:1] }
	set style fill solid 0.9 noborder
	plot datafile using 1:18 with steps lw 2 lc rgb ccolor(0) title "flush requests completed"
	set ylabel "time in flushes, cumulative (s)"
	plot datafile using 2:19 with lines lw 2 lc rgb ccolor(0) title "cumulative D2C of flush requests"
	unset multiplot
	unset output
}
