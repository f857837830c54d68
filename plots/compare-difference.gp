# compare-difference.gp - what each category added or saved against the
# baseline: one diverging bar per capture, the parts of its wall-time
# difference stacked up from zero when they added time and down from zero
# when they saved it, with a dot at the wall difference itself (the sum of
# the parts, docs/methodology.md).  Captures are numbered as in the other
# comparison figures; the baseline's own bar is empty or shows its runs'
# spread around their mean.
#
# Variables set by wcanalyze: out, title, datafile (columns: name, fs,
# write cache, barriers, disk (its model, or "-"), role ("baseline" for a
# run of a baseline group, "other-disk" when its baseline is on another
# disk, else "-"), wall difference s, then
# the difference in seconds of flush journal metadata data_read data_write
# discard other and off_device), ncap, flat (1: every difference is 0,
# as when each capture is the only one on its disk).  No variable holds text from a
# capture: names reach the figure only as data.
pname(k) = k < 7 ? cname(k) : "off device (idle)"
pcol(k) = k < 7 ? ccolor(k) : idlecolor
part(k) = column(8 + k)
pos(k) = k < 1 ? 0 : sum [j=0:k-1] (part(j) > 0 ? part(j) : 0)
neg(k) = k < 1 ? 0 : sum [j=0:k-1] (part(j) < 0 ? part(j) : 0)
lo(k) = part(k) >= 0 ? pos(k) : neg(k) + part(k)
hi(k) = part(k) >= 0 ? pos(k) + part(k) : neg(k)
caplabel(i) = sprintf("#%d", int(i) + 1) . "\n" . strcol(2) . "\ncache " . strcol(3) . "\nbarriers " . strcol(4) . "\n" . strcol(5) . (strcol(6) eq "baseline" ? "\nbaseline" : strcol(6) eq "other-disk" ? "\nother disk!" : "")
do for [fmt in formats] {
	eval outcmd(fmt, (ncap > 6 ? 260 + 125 * ncap : 1000), 700)
	set title title
	set style fill solid 0.9 border lc rgb "#FFFFFF"
	set ylabel "difference against the baseline (s)"
	set xrange [-0.6:ncap - 0.4]
	if (flat) { set yrange [-1:1] } else { set yrange [*:*] }
	set grid ytics lc rgb "#E5E5E5"
	set border 3
	set tics out nomirror
	set xtics scale 0 font ",9"
	set bmargin 8
	set xzeroaxis lt 1 lc rgb "#000000"
	set key outside right top vertical reverse Left
	plot for [k=0:7] datafile using (column(0)):((lo(k) + hi(k)) / 2): \
		(column(0) - 0.35):(column(0) + 0.35):(lo(k)):(hi(k)) \
		with boxxyerror fc rgb pcol(k) title pname(k), \
	     datafile using (column(0)):7:xtic(caplabel(column(0))) \
		with points pt 7 ps 1.3 lc rgb "#000000" title "wall time"
	unset output
}
