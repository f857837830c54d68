# SPDX-License-Identifier: GPL-2.0-or-later
# latency.gp - D2C latency (dispatch to completion) CDF per category,
# from a histogram with 20 logarithmic bins a decade.
#
# Variables set by wcanalyze: out, title, datafile (columns: latency ms at
# the top of the bin, then the fraction of each category's requests at
# most that slow, one column per category in enum order), lcats
# (categories with latencies), lcount (requests per category, enum order).
do for [fmt in formats] {
	eval outcmd(fmt, 1200, 680)
	set title title
	set logscale x 10
	set format x "%g"
	set xlabel "D2C latency (ms, log scale)"
	set ylabel "fraction of requests at most this slow"
	set yrange [0:1.02]
	set ytics 0.1
	set grid xtics mxtics ytics lc rgb "#E5E5E5"
	set border 3
	set tics out nomirror
	set key bottom right box opaque
	plot for [w in lcats] datafile using 1:(column(2 + w)) with steps lw 2 \
		lc rgb ccolor(w + 0) title sprintf("%s (%s requests)", cname(w + 0), word(lcount, w + 1))
	unset output
}
