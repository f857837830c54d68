# SPDX-License-Identifier: GPL-2.0-or-later
# compare-configs.gp - what each configuration added or saved against its
# baseline, the mean of its runs: one diverging bar per configuration
# (run group), the parts of its mean wall-time difference stacked up from
# zero when they added time and down from zero when they saved it, a dot
# at the mean wall difference (the sum of the parts), and a bar through
# the dot from the lowest to the highest run's wall difference: what the
# verdicts weigh.  Under each bar: the group number as in report.txt's
# group tables, the configuration, the runs and the tests' verdicts: on
# the device's time ("disk:", whether the disk caused it) and the wall's.
#
# Variables set by wcanalyze: out, title, datafile (columns: first
# capture's name, fs, write cache, barriers, disk (its model, else "loop",
# the device or "unknown"),
# role ("baseline", "other-disk" when its baseline is on another disk,
# else "-"), runs, verdict on device time (baseline, real, bounded,
# undecided), mean wall difference s, lowest and highest run's wall
# difference s, then the mean difference in seconds of flush journal
# metadata data_read data_write discard other and off_device, then the
# wall's verdict, and when a capture has a ledger the mean difference of
# the drive's destage of no request), ncap (the configurations), flat (1:
# every difference and spread is 0).  No variable holds text
# from a capture: names reach the figure only as data.
pname(k) = k < 7 ? cname(k) : k == 7 ? "off device (idle)" : "destage (no request)"
pcol(k) = k < 7 ? ccolor(k) : k == 7 ? idlecolor : destagecolor
part(k) = k < 8 ? column(12 + k) : column(21)
pos(k) = k < 1 ? 0 : sum [j=0:k-1] (part(j) > 0 ? part(j) : 0)
neg(k) = k < 1 ? 0 : sum [j=0:k-1] (part(j) < 0 ? part(j) : 0)
lo(k) = part(k) >= 0 ? pos(k) : neg(k) + part(k)
hi(k) = part(k) >= 0 ? pos(k) + part(k) : neg(k)
verdict(s) = s eq "real" ? "REAL" : s eq "bounded" ? "no larger than bound" : s eq "baseline" ? "baseline" : "not decided"
grlabel(i) = sprintf("#%d", int(i) + 1) . "\n" . strcol(2) . "\ncache " . strcol(3) . "\nbarriers " . strcol(4) . "\n" . strcol(5) . sprintf("\n%d run%s\n", int(column(7)), int(column(7)) == 1 ? "" : "s") . (strcol(8) eq "baseline" ? "baseline" : "disk: " . verdict(strcol(8)) . "\nwall: " . verdict(strcol(20))) . (strcol(6) eq "other-disk" ? "\nother disk!" : "")
pk(i) = int(word(parts, i))
# Dots in the background colour at +-0.1 s keep a panel of zeros (a
# baseline alone on its disk) from an empty range.
# Rows of other panels are NaN: autoscaling then sees only this panel's.
in(v) = column(0) >= a && column(0) <= b ? v : NaN
# ... and their labels empty, when a narrow panel shows their places.
xl(i) = column(0) >= a && column(0) <= b ? grlabel(i) : ""
do for [fmt in formats] {
	eval outcmd(fmt, width, height)
	set multiplot layout npanels, 1 title title font ",12"
	set style fill solid 0.9 border lc rgb "#FFFFFF"
	set ylabel "difference (s)"
	if (flat) { set yrange [-1:1] } else { set yrange [*:*] }
	set grid ytics lc rgb "#E5E5E5"
	set border 3
	set tics out nomirror
	set xtics scale 0 font ",8"
	set bmargin 10
	set rmargin 22
	set xzeroaxis lt 1 lc rgb "#000000"
	set offsets 0, 0, graph 0.06, graph 0.04
	set key outside right top vertical reverse Left font ",9"
	do for [i=1:npanels] {
		a = int(word(panels, 2 * i - 1))
		b = int(word(panels, 2 * i))
		set xrange [a - 0.6:(b < a + 3 ? a + 3 : b) + 0.4]
		set title value(sprintf("ptitle%d", i)) font ",10"
		plot for [j=1:words(parts)] datafile using (column(0)):(in((lo(pk(j)) + hi(pk(j))) / 2)): \
			(column(0) - 0.35):(column(0) + 0.35):(in(lo(pk(j)))):(in(hi(pk(j)))) \
			with boxxyerror fc rgb pcol(pk(j)) title (i == 1 ? pname(pk(j)) : ""), \
		     datafile using (column(0)):(in(column(9))):(in(column(10))):(in(column(11))) \
			with yerrorbars pt 7 ps 1.1 lw 1.5 lc rgb "#000000" title (i == 1 ? "mean wall, runs' range" : ""), \
		     datafile using (column(0)):(in(column(9))):xtic(xl(column(0))) \
			with points pt 7 ps 1.1 lc rgb "#000000" notitle, \
		     datafile using (column(0)):(in(0.1)) with dots lc bgnd notitle, \
		     datafile using (column(0)):(in(-0.1)) with dots lc bgnd notitle
	}
	unset multiplot
	unset output
}
