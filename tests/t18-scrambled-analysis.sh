#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t18-scrambled-analysis.sh - traces that decode cleanly but make no sense
# (times backwards or far ahead, wild sectors and sizes, unknown actions,
# a second device, errors: wctrace_convert --scramble) go through the whole
# analysis: text, CSV and a bundle.  wcanalyze must never crash or hang;
# it exits 0 or 2, and every CSV row still adds up to its window (the time
# partition holds whatever the input).  Under "make SANITIZE=1 check" this
# also catches memory errors and undefined behaviour in the tracker,
# accountant, reports and bundle.
# shellcheck source=tests/lib/common.sh
source "$(dirname "$0")/lib/common.sh"

FIX=$TOP/tests/fixtures/reader
CONV=$BUILD/tests/wctrace_convert
export WCANALYZE_PLOTS=$TOP/plots WCANALYZE_GNUPLOT=
cd "$TMP"

n=0 bad=0
for fs in ext3 ext4 xfs; do
	for seed in $(seq 1 12); do
		t=s$n
		for f in "$FIX/$fs"/*.blktrace.*; do
			"$CONV" --scramble "$((seed * 7 + n))" "$f" "$t.blktrace.${f##*.}"
		done
		for args in "" "--format csv" "-o b$n"; do
			rc=0
			# shellcheck disable=SC2086 # args are words
			timeout 20 "$WCANALYZE" $args "$t" >out 2>err || rc=$?
			case $rc in
			0) ;;
			2) bad=$((bad + 1)) ;;
			*) fail "$t ($fs, seed $seed, '$args'): exit $rc: $(tail -n 3 err)" ;;
			esac
			if [[ $args == "--format csv" && $rc -eq 0 ]]; then
				# window = idle + the seven categories + the time
				# outstanding, never completed, to the printed ns
				awk -F, -v t="$t" 'NR == 1 {
					if ($NF != "outstanding_s") { print "outstanding_s not last"; exit 1 }
					next }
				{
					s = $NF; for (i = 7; i <= 14; i++) s += $i
					d = s - $6; if (d < 0) d = -d
					if (d > 1e-8) { printf "%s %s: parts %.9f, window %.9f\n", t, $2, s, $6; exit 1 } }' out ||
					fail "$t ($fs, seed $seed): the partition does not add up"
			fi
		done
		rm -rf "$t".blktrace.* "b$n"
		n=$((n + 1))
	done
done
echo "ok: $n scrambled traces analysed ($bad runs exited 2)"

# A corrupt device field on every record: tens of thousands of devices.
# The analysis keeps the first WC_MAX_DEVICES (64) and counts the rest;
# before that cap it took seconds to minutes and grew without bound.  The
# timeout only stops a hang: nothing here is timed.
"$WCSYNTH" -n 3000 big
for f in big.blktrace.*; do
	"$CONV" --scramble-devices 5 "$f" "dev.blktrace.${f##*.}"
done
rc=0
timeout 60 "$WCANALYZE" --btt --format json dev >out 2>err || rc=$?
[[ $rc -eq 0 ]] || fail "device-scrambled trace: exit $rc: $(tail -n 3 err)"
# by path: a capture's "raw" record (docs/json-format.md) repeats the
# figures, so the keys are not unique in the file
ign=$(jq '.captures[0].tracking.ignored_events' out)
bign=$(jq '.captures[0].btt.ignored' out)
ndev=$(jq '.captures[0].devices | length' out)
[[ -n $ign && $ign -gt 30000 ]] ||
	fail "device-scrambled trace: ignored_events '$ign', expected > 30000"
[[ -n $bign && $bign -gt 10000 ]] ||
	fail "device-scrambled trace: btt ignored '$bign', expected > 10000"
[[ $ndev -ge 1 && $ndev -le 64 ]] ||
	fail "device-scrambled trace: $ndev devices reported, expected 1 to 64"
echo "ok: device-scrambled trace: $ign events ignored ($bign by btt), $ndev devices"
