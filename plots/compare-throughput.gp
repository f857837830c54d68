# compare-throughput.gp - total throughput over time of every capture,
# overlaid, each capture's clock starting at its own first event.
#
# Variables set by wcanalyze: out, title, datafile (one block per capture,
# in order, separated by two blank lines; columns: time s, MB/s), names
# (capture names), xmax (s).
# After the last colour of seriescolor, colours repeat with dashes.
dts(i) = 1 + int((i - 1) / words(seriescolor))
do for [fmt in formats] {
	eval outcmd(fmt, 1200, 680)
	set title title
	set xrange [0:xmax]
	set yrange [0:*]
	set xlabel "time since the capture started (s)"
	set ylabel "throughput (MB/s, 10^6 bytes)"
	set grid xtics ytics lc rgb "#E5E5E5"
	set border 3
	set tics out nomirror
	set key outside right top vertical
	plot for [i=1:words(names)] datafile index (i - 1) using 1:2 with lines lw 1.5 \
		dashtype dts(i) lc rgb scolor(i) title word(names, i)
	unset output
}
