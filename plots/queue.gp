# SPDX-License-Identifier: GPL-2.0-or-later
# queue.gp - queue depth over time: the mean number of requests at the
# driver (dispatched, not completed) and in the block layer (queued, not
# completed) in each bin, weighted by time, and the deepest queue seen by
# a request when it was issued.
#
# Variables set by wcanalyze: out, title, datafile (timeline.dat), xmax
# (s), bin_ms.
do for [fmt in formats] {
	eval outcmd(fmt, 1200, 600)
	set title title . sprintf("\n(bins of %g ms)", bin_ms)
	set xrange [0:xmax]
	set yrange [0:*]
	set xlabel "time since the capture started (s)"
	set ylabel "requests"
	set grid xtics ytics lc rgb "#E5E5E5"
	set border 3
	set tics out nomirror
	set key above horizontal
	plot datafile using 2:(column(22) > 0 ? column(22) : NaN) with points pt 7 ps 0.5 lc rgb "#999999" title "deepest at issue (D)", \
	     datafile using 2:21 with lines lw 1.5 lc rgb "#0072B2" title "mean in the block layer (Q to C)", \
	     datafile using 2:20 with lines lw 1.5 lc rgb "#000000" title "mean at the driver (D to C)"
	unset output
}
