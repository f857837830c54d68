# SPDX-License-Identifier: GPL-2.0-or-later
# heatmap-latency.gp - D2C latency against completion time, a panel a
# category: each cell shaded by its requests (log scale), and each
# column's p50, p90 and p99 drawn across it.  A CDF of the whole capture
# draws flushes that are fast at one time and slow at another as one
# smooth curve; here they are two bands.
#
# Variables set by wcanalyze: out, title, datafile (heatmap-latency.dat:
# a block a category of hcats, cells t0 t1 lat0 lat1 requests), bandfile
# (heatmap-band.dat: the same blocks, t0 t1 mid requests p50 p90 p99),
# hcats (categories with latencies, in block order), ylo and yhi (the
# latency span of each, ms), xmin and xmax (s: the columns' span, the
# first may begin before 0), cmax (the largest cell), height (pixels).
do for [fmt in formats] {
	eval outcmd(fmt, 1200, height)
	set lmargin 12
	set rmargin 14
	set multiplot layout words(hcats), 1 title title
	set xrange [xmin:xmax]
	set logscale y 10
	set format y "%g"
	set logscale cb 10
	set cbrange [1:(cmax > 1 ? cmax : 2)]
	set cblabel "requests a cell"
	eval heatpalette
	set grid xtics ytics lc rgb "#E5E5E5"
	set border 3
	set tics out nomirror
	set key above horizontal samplen 2 spacing 1
	set style fill solid 1.0 noborder
	do for [i=1:words(hcats)] {
		k = word(hcats, i) + 0
		set xlabel (i == words(hcats) ? "completion time since the capture started (s)" : "")
		set ylabel cname(k) . ": D2C (ms)"
		set yrange [word(ylo, i) + 0:word(yhi, i) + 0]
		plot datafile index (i - 1) using (($1 + $2) / 2):(sqrt($3 * $4)):1:2:3:4:5 \
			with boxxyerror lc palette notitle, \
		     bandfile index (i - 1) using 1:5:($2 - $1):(0) with vectors nohead \
			lw 2 lc rgb "#000000" title "p50", \
		     bandfile index (i - 1) using 1:6:($2 - $1):(0) with vectors nohead \
			lw 2 lc rgb "#0072B2" title "p90", \
		     bandfile index (i - 1) using 1:7:($2 - $1):(0) with vectors nohead \
			lw 2 lc rgb "#7B3294" title "p99"
	}
	unset multiplot
	unset output
}
