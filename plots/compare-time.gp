# compare-time.gp - where the time went in each capture, side by side:
# one stacked bar per capture, busy time by category, so a bug report's
# configurations (write cache, barriers, filesystems) can be compared at a
# glance.  Idle time is left out of the bars (it would dwarf the rest when
# the device waited most of the time); each bar is labelled with its busy
# time and the capture's window.  Captures are numbered as in report.txt.
#
# Variables set by wcanalyze: out, title, datafile (columns: name, fs,
# write cache, barriers, disk (its model, or "-"), idle s, then seconds
# per category in enum order), cats, ncap.
# Seconds of all categories of the current line, from column base + 7.
busy(x) = sum [k=0:6] column(7 + k)
caplabel(i) = sprintf("#%d", int(i) + 1) . "\n" . strcol(2) . "\ncache " . strcol(3) . "\nbarriers " . strcol(4) . "\n" . strcol(5)
do for [fmt in formats] {
	eval outcmd(fmt, (ncap > 6 ? 260 + 125 * ncap : 1000), 700)
	set title title
	set style data histograms
	set style histogram rowstacked
	set style fill solid 0.9 border lc rgb "#FFFFFF"
	set boxwidth 0.7
	set ylabel "busy time of the main device (s)"
	set yrange [0:*]
	set grid ytics lc rgb "#E5E5E5"
	set border 3
	set tics out nomirror
	set xtics scale 0 font ",9"
	set bmargin 7
	set key outside right top vertical reverse Left
	set offsets 0, 0, graph 0.08, 0
	plot for [w in cats] datafile using (column(7 + w)):xtic(caplabel(column(0))) \
		lc rgb ccolor(w + 0) title cname(w + 0), \
	     datafile using 0:(busy(0)):(sprintf("%.3g s\nof %.3g s", busy(0), busy(0) + column(6))) \
		with labels offset 0, 1.2 font ",9" notitle
	unset output
}
