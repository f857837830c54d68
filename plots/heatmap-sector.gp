# SPDX-License-Identifier: GPL-2.0-or-later
# heatmap-sector.gp - sector against dispatch time, each cell shaded by
# the requests in it (log scale): where on the disk the time went, and
# how much of it, where the scatter only says whether.
#
# Variables set by wcanalyze: out, title, datafile (heatmap-sector.dat:
# cells t0 t1 sector0 sector1 requests), xmin and xmax (s: the columns'
# span, the first may begin before 0), ymax (sectors), cmax (the largest
# cell).
do for [fmt in formats] {
	eval outcmd(fmt, 1200, 680)
	set title title
	set xlabel "dispatch time since the capture started (s)"
	set ylabel "sector (512-byte units)"
	if (ymax >= 1e6) { set format y "%.1s%c" } else { set format y "%.0f" }
	set xrange [xmin:xmax]
	set yrange [0:ymax]
	set logscale cb 10
	set cbrange [1:(cmax > 1 ? cmax : 2)]
	set cblabel "requests a cell"
	eval heatpalette
	set grid xtics ytics lc rgb "#E5E5E5" front
	set border 3
	set tics out nomirror
	set style fill solid 1.0 noborder
	plot datafile using (($1 + $2) / 2):(($3 + $4) / 2):1:2:3:4:5 \
		with boxxyerror lc palette notitle
	unset output
}
