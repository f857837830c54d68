#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t30-synth-recovery.sh - on wcsynth's traces, whose answers are known,
# wcanalyze recovers every category's time within 2 %, the positioning
# time within 2 % and the media rate within 5 %, for several disk models
# (in order, and NCQ-like reordering), byte orders, a capture directory,
# a capture archive and a plain trace.  The truth is the model's own
# bookkeeping: the time its disk spent serving each request and the
# positioning part of it, not the analyser's slice formula.
# shellcheck source=tests/lib/common.sh
source "$(dirname "$0")/lib/common.sh"

[[ -x $WCSYNTH ]] || fail "$WCSYNTH not built"

# value KEY FILE: the value of "KEY = value" in an --expect file.
value() { awk -v k="$1" '$1 == k { print $3 }' "$2"; }

# within GOT WANT PCT: GOT is WANT within PCT percent (1 us slack at 0).
within() {
	awk -v g="$1" -v w="$2" -v p="$3" 'BEGIN {
		d = g - w; if (d < 0) d = -d
		exit !(d <= w * p / 100 + 1e-6)
	}'
}

# check NAME INPUT EXPECT [wcanalyze options]
check() {
	local name=$1 input=$2 expect=$3 csv json got want cat col rate
	shift 3
	csv=$("$WCANALYZE" --format csv "$@" "$input")
	json=$("$WCANALYZE" --format json "$@" "$input")
	col=8
	for cat in flush journal metadata data_read data_write discard other; do
		got=$(echo "$csv" | awk -F, -v c=$col '$2 == "all" { print $c }')
		want=$(awk -v w="$(value "time.$cat" "$expect")" 'BEGIN { printf "%.9f", w / 1e9 }')
		within "$got" "$want" 2 ||
			fail "$name: $cat time $got s, expected $want s"
		got=$(echo "$csv" | awk -F, -v c=$((col + 8)) '$2 == "all" { print $c }')
		[[ $got == "$(value "requests.$cat" "$expect")" ]] ||
			fail "$name: $cat requests $got, expected $(value "requests.$cat" "$expect")"
		col=$((col + 1))
	done
	# Every row, whole window and phases, partitions to the nanosecond
	# (idle, the categories and the time outstanding, never completed):
	# 9 decimals are whole nanoseconds, summed as integers.
	echo "$csv" | awk -F, 'NR == 1 {
		if ($NF != "outstanding_s") { print "outstanding_s not last"; exit 1 }
		next
	} {
		w = $6; gsub(/\./, "", w); s = $NF; gsub(/\./, "", s); s += 0
		for (i = 7; i <= 14; i++) { v = $i; gsub(/\./, "", v); s += v }
		if (s != w + 0) { print $1 "," $2 ": parts " s " ns, window " w " ns"; bad = 1 }
	} END { exit bad }' || fail "$name: time partition does not add up"
	got=$(echo "$csv" | awk -F, '$2 == "all" { print $15 }')
	want=$(awk -v w="$(value positioning_ns "$expect")" 'BEGIN { printf "%.9f", w / 1e9 }')
	within "$got" "$want" 2 || fail "$name: positioning $got s, expected $want s"
	rate=$(echo "$json" | jq '.captures[0].media_rate_mb_s * 1e6')
	within "$rate" "$(value media_rate "$expect")" 5 ||
		fail "$name: media rate $rate B/s, expected $(value media_rate "$expect")"
	echo "ok: $name"
}

"$WCSYNTH" --capture --expect "$TMP/a.expect" "$TMP/a"
check "default model, capture directory" "$TMP/a" "$TMP/a.expect"

"$WCSYNTH" --capture --other-device --seed 7 --depth 1 --flush-ms 30 \
	--rate 150 --seek 0.8,6,14 --rpm 10000 --big-endian \
	--expect "$TMP/b.expect" "$TMP/b"
tar -C "$TMP" -czf "$TMP/b.tar.gz" b
check "fast disk, depth 1, big-endian, second device, tar.gz" \
	"$TMP/b.tar.gz" "$TMP/b.expect"
# At depth 1 a flush never waits behind another request at the device:
# its D2C is the model's flush latency, and the depth never exceeds 1.
json=$("$WCANALYZE" --format json "$TMP/b.tar.gz")
echo "$json" | jq -e '.captures[0].flush_d2c_s |
	.n == 92 and .min == 0.03 and .p50 == 0.03 and .p90 == 0.03 and .p99 == 0.03 and .max == 0.03' >/dev/null ||
	fail "depth 1: flush D2C is not the model's 30 ms: $(echo "$json" | jq -c '.captures[0].flush_d2c_s')"
echo "$json" | jq -e '.captures[0].queue_depth.max == 1' >/dev/null ||
	fail "depth 1: $(echo "$json" | jq -c '.captures[0].queue_depth')"
echo "$json" | jq -e '.captures[0].device_source == "capture.conf"' >/dev/null ||
	fail "second device: the destination was not taken from capture.conf"

"$WCSYNTH" --seed 3 --depth 16 --flush-ms 2 --rate 40 --files 500 \
	--expect "$TMP/c.expect" "$TMP/c"
check "plain trace, deep queue, journal by heuristic" "$TMP/c" "$TMP/c.expect"
"$WCANALYZE" "$TMP/c" | grep 'journal: guessed from flags' >/dev/null ||
	fail "plain trace: the report does not say the journal was guessed"

# A disk that reorders its queue (nearest sector first) completes
# requests out of issue order: the analyser must slice by completion,
# not by issue.  The model must really have reordered for this to count.
"$WCSYNTH" --capture --ncq --depth 16 --seed 5 --expect "$TMP/d.expect" "$TMP/d"
n=$(value served_out_of_order "$TMP/d.expect")
[[ $n -ge 50 ]] || fail "ncq model: only $n requests served out of order"
[[ $(value served_out_of_order "$TMP/a.expect") == 0 ]] ||
	fail "default model: requests served out of order"
check "NCQ-like disk, nearest first, depth 16 ($n out of order)" \
	"$TMP/d" "$TMP/d.expect"

# --media-rate replaces the estimate, and positioning follows it.
check "given media rate" "$TMP/a" "$TMP/a.expect" --media-rate 80
"$WCANALYZE" --media-rate 80 "$TMP/a" | grep 'given with --media-rate' >/dev/null ||
	fail "the report does not say the media rate was given"
