#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t35-jobs.sh - "wcanalyze -j N" analyses several inputs at once and
# writes exactly what -j 1 writes: the same report on standard output,
# the same messages on standard error in input order, the same exit
# status, whatever N, with bad inputs among good ones.  Speed is measured
# by make bench, never here.  The inputs: the full-scale run 1 of every
# configuration in make check-slow, three of them in make check
# (samples_pick), with the 16 small run 1s of samples/queue-depth behind:
# big inputs ahead of small ones end after them, which is what -j must
# put back in order.
# shellcheck source=tests/lib/common.sh
source "$(dirname "$0")/lib/common.sh"

# Run 1 of each configuration: enough inputs to keep N jobs busy, and
# fifteen runs over all three runs of every sample would be slow.
mapfile -t samples < <(samples_pick "$TOP"/samples/*-run1.tar.*)
[[ ${#samples[@]} -ge 3 ]] || fail "samples/ has ${#samples[@]} captures"
small=("$TOP"/samples/queue-depth/*-run1.tar.*)
[[ ${#small[@]} -ge 16 ]] || fail "samples/queue-depth has ${#small[@]} captures"
# A bad input early and one late: their messages must keep their places.
printf 'not a trace at all\n' >"$TMP/garbage.blktrace.0"
head -c 1000 "$TOP/tests/fixtures/reader/xfs/loop1.blktrace.0" >"$TMP/cut.blktrace.0"
inputs=("${samples[0]}" "$TMP/garbage.blktrace.0" "${samples[@]:1}" "${small[@]}"
	"$TMP/cut.blktrace.0" "$TOP/tests/fixtures/reader/ext4")

run() {
	local tag=$1 rc=0
	shift
	"$WCANALYZE" "$@" >"$TMP/$tag.out" 2>"$TMP/$tag.err" || rc=$?
	echo "$rc" >"$TMP/$tag.rc"
}

for fmt in text json csv; do
	run "$fmt-1" -j 1 --format "$fmt" "${inputs[@]}"
	[[ -s $TMP/$fmt-1.out ]] || fail "$fmt: -j 1 wrote no report"
	[[ $(cat "$TMP/$fmt-1.rc") == 2 ]] || fail "$fmt: -j 1 exited $(cat "$TMP/$fmt-1.rc"), expected 2 (bad inputs)"
	[[ $(wc -l <"$TMP/$fmt-1.err") -ge 2 ]] || fail "$fmt: -j 1 reported $(wc -l <"$TMP/$fmt-1.err") bad inputs"
	for j in 2 3 16 default; do
		if [[ $j == default ]]; then
			run "$fmt-$j" --format "$fmt" "${inputs[@]}"
		else
			run "$fmt-$j" --jobs "$j" --format "$fmt" "${inputs[@]}"
		fi
		for part in out err rc; do
			cmp -s "$TMP/$fmt-1.$part" "$TMP/$fmt-$j.$part" || {
				show_diff "$TMP/$fmt-1.$part" "$TMP/$fmt-$j.$part"
				fail "$fmt: -j $j: standard ${part/rc/exit status} differs from -j 1"
			}
		done
	done
done
# The messages name the bad inputs in the order given.
grep -n 'garbage' "$TMP/text-1.err" | grep '^1:' >/dev/null || fail "garbage is not the first message"
grep -q 'cut' "$TMP/text-1.err" || fail "no message for the truncated input"

expect_exit 2 "$WCANALYZE" -j 0 "${samples[0]}"
expect_exit 2 "$WCANALYZE" -j -1 "${samples[0]}"
expect_exit 2 "$WCANALYZE" --jobs lots "${samples[0]}"
"$WCANALYZE" --help | grep -- '--jobs N' >/dev/null || fail "--help does not show --jobs"
echo "ok"
