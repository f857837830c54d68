#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t74-flush-rate.sh - the flushes figure's rate is taken over a bin wider
# than the flushes (issue 43: "a handful of flushes cannot draw a spike
# of 280 a second"): in timeline.dat, column 18 (flushes/s) is the rate
# over a flush bin of at least a second and at least the capture's span
# over its flushes, so that it never exceeds the flushes over that bin;
# the rates still count every flush once (rate x row span, summed, is the
# count); the figure's script is told the bin (flush_bin_s), draws steps,
# not impulses, and renders.
# shellcheck source=tests/lib/common.sh
source "$(dirname "$0")/lib/common.sh"

[[ -x $WCSYNTH ]] || fail "$WCSYNTH not built"
cd "$TMP"

# few: a handful of flushes in about a second (wcsynth, 20 files);
# many: 92 flushes in 15 s.
"$WCSYNTH" --capture -n 20 few >/dev/null
"$WCSYNTH" --capture many >/dev/null
for cap in few many; do
	WCANALYZE_GNUPLOT="" "$WCANALYZE" -o "out-$cap" --capture-pages all "$cap" >/dev/null 2>err.txt ||
		fail "$cap: exit $?: $(head -n 3 err.txt)"
	dat=out-$cap/$cap/timeline.dat
	gp=out-$cap/$cap/flushes.gp
	[[ -f $dat && -f $gp ]] || fail "$cap: no timeline.dat or flushes.gp"
	flushes=$(sed -n 's/^flushes = //p' "$gp")
	bin=$(sed -n 's/^flush_bin_s = //p' "$gp")
	[[ -n $flushes && $flushes -gt 0 ]] || fail "$cap: no flushes in $gp"
	[[ -n $bin ]] || fail "$cap: flushes.gp has no flush_bin_s"
	span=$(awk '!/^#/ { s += $3 } END { printf "%.9f", s }' "$dat")
	awk -v n="$flushes" -v bin="$bin" -v span="$span" -v cap="$cap" '
		!/^#/ { if ($18 > max) max = $18; sum += $18 * $3 }
		END {
			want = span / n; if (want < 1) want = 1
			if (want > span) want = span
			if (bin < want - 1e-9) { print cap ": flush bin " bin " s, under " want " s"; exit 1 }
			if (max > n / bin * 1.0001) { print cap ": a spike of " max "/s from " n " flushes over " bin " s bins"; exit 1 }
			if (sum < n * 0.9999 || sum > n * 1.0001) { print cap ": the rates count " sum " flushes, not " n; exit 1 }
			print "ok: " cap ": " n " flushes, at most " max "/s over " bin " s bins"
		}' "$dat" || fail "$cap: the flush rate"
	grep -q 'using 1:18 with steps' "$gp" || fail "$cap: the flush rate is not drawn as steps"
done

# The script renders: gnuplot reads it without a word on standard error.
if command -v gnuplot >/dev/null; then
	(cd out-few/few && gnuplot flushes.gp) 2>gp.err || fail "gnuplot: $(head -n 3 gp.err)"
	[[ ! -s gp.err && -s out-few/few/flushes.png ]] || fail "gnuplot: $(head -n 3 gp.err)"
	echo "ok: flushes.gp renders"
fi

# The flushes finding's median and p99 are the "flush D2C" line's p50
# and p99, in the one millisecond format (base/numfmt.h, wc_fmt_ms):
# "3.604 ms" in both, never "3.60" in the sentence beside "3.604".  The
# loop sample's flushes take under 10 ms and over 100 ms, where the two
# formats differed; wcsynth's take 10 to 100 ms.
for cap in few many "$TOP/samples/loop-ext4-cache-on-barrier-on-run1.tar.xz"; do
	name=${cap##*/}
	"$WCANALYZE" "$cap" >"$name.txt" || fail "$name: the text report: exit $?"
	line=$(grep '^flush D2C ' "$name.txt") || fail "$name: no flush D2C line"
	p50=$(sed -n 's/.* p50 \([^ ]*\) .*/\1/p' <<<"$line")
	p99=$(sed -n 's/.* p99 \([^ ]*\) .*/\1/p' <<<"$line")
	sed -n '/^findings$/,/^$/p' "$name.txt" | tr -s ' \n' ' ' |
		grep -F "x median $p50 ms (p99 $p99 ms)" >/dev/null ||
		fail "$name: the finding's flush times are not the table's ($p50, $p99 ms): $(grep -A1 'cache flushes x' "$name.txt")"
done
echo "ok: the finding's flush times are the table's"
