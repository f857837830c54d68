# compare-time.gp - where the time went in each capture, side by side:
# one stacked bar per capture, time by category plus idle time, so a bug
# report's configurations (write cache, barriers, filesystems) can be
# compared at a glance.  A bar's height is the capture's window.
#
# Variables set by wcanalyze: out, title, datafile (columns: name, fs,
# write cache, barriers, idle s, then seconds per category in enum
# order), cats, ncap.
do for [fmt in formats] {
	eval outcmd(fmt, (ncap > 6 ? 260 + 125 * ncap : 1000), 700)
	set title title
	set style data histograms
	set style histogram rowstacked
	set style fill solid 0.9 border lc rgb "#FFFFFF"
	set boxwidth 0.7
	set ylabel "time (s)"
	set yrange [0:*]
	set grid ytics lc rgb "#E5E5E5"
	set border 3
	set tics out nomirror
	set xtics scale 0 font ",9"
	set bmargin 6
	set key outside right top vertical reverse Left
	plot for [w in cats] datafile using (column(6 + w)):xtic(strcol(1) . "\n" . strcol(2) . "\ncache " . strcol(3) . "\nbarriers " . strcol(4)) \
		lc rgb ccolor(w + 0) title cname(w + 0), \
	     '' using 5 lc rgb idlecolor title "idle"
	unset output
}
