#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t88-summaries.sh - a comparison of captures' summaries (wcanalyze
# --format json CAPTURE, the map) is the comparison of the captures
# themselves (the reduce, analysis/capsule.h): byte for byte in text,
# JSON, CSV and --runs, with a baseline and without, with --btt, with
# kernel counters and a name of odd bytes, mixed with captures, and a
# comparison's own JSON fed back.  Then the summary as hostile input:
# every malformed one refused with its offset, exit status 2.
# shellcheck source=tests/lib/common.sh
source "$(dirname "$0")/lib/common.sh"

[[ -x $WCSYNTH ]] || fail "$WCSYNTH not built"
command -v jq >/dev/null || fail "jq is missing (make deps)"

caps=()
for f in "$TOP"/samples/ssd-ext4-cache-o*-barrier-on-run[123].tar.xz \
	"$TOP"/samples/hdd7200-xfs-cache-o*-barrier-on-run[12].tar.xz; do
	[[ -e $f ]] && caps+=("$f")
done
[[ ${#caps[@]} -ge 6 ]] || fail "samples/ has too few captures: ${#caps[@]}"

# A name of odd bytes: a quote, a backslash, UTF-8 and a byte that is not.
mkdir "$TMP/odd"
tar -xJf "$TOP/samples/ssd-ext4-cache-on-barrier-on-run2.tar.xz" -C "$TMP/odd"
odd=$TMP/odd/ssd-ext4-cache-on-barrier-on-run2
sed -i "s/^name = .*/name = odd\"quote\\\\back\\xc3\\xa9\\xff-run4/" "$odd/capture.conf"
# Another host: the host_state finding, made from every capture's keys.
sed -i 's/^host_cpus = .*/host_cpus = 8/' "$odd/capture.conf"
caps+=("$odd")

# wcsynth's capture with the kernel's counters (all zero: the trace
# holds more than they counted, a kernel_counters finding).
"$WCSYNTH" --capture "$TMP/synth"
row="0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0"
printf 'when\tdevice\tdisk\tstart_ns\tend_ns\tstat\nbefore\tloop9\tloop9\t0\t1\t%s\nafter\tloop9\tloop9\t999000000000\t999000000001\t%s\n' \
	"$row" "$row" >"$TMP/synth/counters.tsv"
caps+=("$TMP/synth")

# The map: one summary per capture.
mkdir "$TMP/s"
sums=()
i=0
for c in "${caps[@]}"; do
	i=$((i + 1))
	"$WCANALYZE" --format json "$c" >"$TMP/s/$i.json" ||
		fail "the summary of $c: exit $?"
	sums+=("$TMP/s/$i.json")
done
jq -e '.captures[0].raw.capture.kcheck.state == 2' "$TMP/s/$i.json" >/dev/null ||
	fail "wcsynth's summary holds no kernel counters"

# same WHAT ARGS...: the reduce of the summaries against the analysis of
# the captures, ARGS before the inputs.
same() {
	local what=$1
	shift
	"$WCANALYZE" "$@" "${caps[@]}" >"$TMP/caps.out" 2>"$TMP/caps.err" ||
		fail "$what: the captures: exit $?: $(head -n 3 "$TMP/caps.err")"
	"$WCANALYZE" "$@" "${sums[@]}" >"$TMP/sums.out" 2>"$TMP/sums.err" ||
		fail "$what: the summaries: exit $?: $(head -n 3 "$TMP/sums.err")"
	cmp -s "$TMP/caps.out" "$TMP/sums.out" ||
		{ diff "$TMP/caps.out" "$TMP/sums.out" >"$TMP/diff" || :; fail "$what: differs: $(sed -n 1,6p "$TMP/diff")"; }
	echo "ok: $what"
}
same "text"
same "json" --format json
same "csv" --format csv
same "runs" --runs
same "baseline" --baseline ssd-ext4-cache-off-barrier-on-run2 --format json
same "drop first, equivalence" --drop-first --equivalence 0.2
same "one job" -j 1 --format csv
"$WCANALYZE" --runs "${sums[@]}" >"$TMP/odd.out"
grep -qF 'odd"quote\\back\303\251\377-run4' "$TMP/odd.out" ||
	fail "the odd name is not in the text, escaped"

# With --btt in the map, as --btt over the captures.
bsums=()
for c in "${caps[@]:0:3}"; do
	"$WCANALYZE" --btt --format json "$c" >"$TMP/b${#bsums[@]}.json"
	bsums+=("$TMP/b${#bsums[@]}.json")
done
"$WCANALYZE" --btt --format json "${caps[@]:0:3}" >"$TMP/btt.caps"
"$WCANALYZE" --format json "${bsums[@]}" >"$TMP/btt.sums"
cmp -s "$TMP/btt.caps" "$TMP/btt.sums" || fail "btt: differs"
echo "ok: btt"

# Captures and summaries mixed, and a comparison's JSON fed back.
"$WCANALYZE" --format json "${caps[@]}" >"$TMP/all.json"
"$WCANALYZE" "${sums[@]:0:3}" "${caps[@]:3}" >"$TMP/mixed.out"
"$WCANALYZE" "${caps[@]}" >"$TMP/ref.out"
cmp -s "$TMP/ref.out" "$TMP/mixed.out" || fail "mixed: differs"
"$WCANALYZE" "$TMP/all.json" >"$TMP/back.out"
cmp -s "$TMP/ref.out" "$TMP/back.out" || fail "fed back: differs"
echo "ok: mixed, fed back"

# What needs a trace is refused with a summary.
for opt in --btt --output=x "--window=0:1" --interval=1 --dump; do
	expect_exit 2 "$WCANALYZE" "$opt" "${sums[0]}"
done
echo "ok: options that need a trace"

# bad NAME JQ|- SED MESSAGE: a summary made from the first by jq (or by
# sed with jq -), refused with an offset and MESSAGE.
one=${sums[0]}
bad() {
	local name=$1 filter=$2 sedexpr=$3 msg=$4 out
	if [[ $filter != - ]]; then
		jq -c "$filter" "$one" >"$TMP/$name.json"
	else
		sed "$sedexpr" "$one" >"$TMP/$name.json"
	fi
	out=$("$WCANALYZE" "$TMP/$name.json" 2>&1 >/dev/null) && fail "$name: accepted"
	[[ $? -eq 2 ]] || fail "$name: exit status not 2: $out"
	[[ $out == "wcanalyze: $TMP/$name.json: offset "[0-9]*": "*"$msg"* ]] ||
		fail "$name: $out"
}
bad parts '.captures[0].raw.capture.devices[0].figures.idle_ns += 1' '' \
	'do not add up'
bad phase '.captures[0].raw.capture.phases[0].figures.idle_ns += 1' '' \
	'do not add up'
bad long '.captures[0].raw.capture.meta.fs = ("x" * 40)' '' 'longer than'
bad missing 'del(.captures[0].raw.capture.meta.digest)' '' "'digest': missing"
bad version '.captures[0].raw.raw_version = 1' '' 'not a version'
bad main '.captures[0].raw.capture.main = 9' '' 'no such device'
# shellcheck disable=SC2016 # $d is jq's
bad devices '.captures[0].raw.capture.devices as $d | .captures[0].raw.capture.devices = [range(65) | $d[0]]' '' \
	'more or fewer records'
bad type '.captures[0].raw.capture.meta.run = "1"' '' 'not an integer'
bad nul '.captures[0].raw.capture.meta.name = "a\u0000b"' '' 'malformed string'
bad format '.format = "other"' '' 'not a wcanalyze summary'
bad noraw 'del(.captures[0].raw)' '' 'made before summaries'
bad huge - 's/"digest": [0-9]*/"digest": 99999999999999999999/' 'not an integer of 64'
bad twice - 's/"digest": \([0-9]*\)/"digest": \1, "digest": \1/' 'given twice'
bad ctrl - 's/"fs": "ext4"/"fs": "ex\tt4"/' 'malformed string'
# cut where a key should follow, wherever the record's keys put it
at=$(grep -m 1 -bo '"raw": {' "$one") || fail "cut: no raw record"
at=$((${at%%:*} + 8))
head -c "$at" "$one" >"$TMP/cut.json"
out=$("$WCANALYZE" "$TMP/cut.json" 2>&1 >/dev/null) && fail "cut: accepted"
[[ $out == *"offset $at: "* ]] || fail "cut: $out"
{ printf '{"format": "wcanalyze", "version": 1, "x": '
  for _ in $(seq 40); do printf '['; done; } >"$TMP/deep.json"
out=$("$WCANALYZE" "$TMP/deep.json" 2>&1 >/dev/null) && fail "deep: accepted"
[[ $out == *"offset 74: nested deeper"* ]] || fail "deep: $out"
echo "ok: hostile summaries refused with their offsets"

# A fault in the last capture of a comparison's summary, read a capture
# at a time (capsule.h), past the bytes read before it: its offset from
# the file's start; the captures before it are compared, as those of a
# trace that turns bad midway, and the exit status says it.
ln=$(grep -n '"raw": {' "$TMP/all.json" | tail -n 1) || fail "last: no raw record"
sed "${ln%%:*}s/\"run\": \(-\?[0-9]*\)/\"run\": \"\1\"/" "$TMP/all.json" >"$TMP/last.json"
at=$(grep -bo '"run": "-\?[0-9]*"' "$TMP/last.json") || fail "last: no run"
at=$((${at%%:*} + 7))
((at > 65536)) || fail "last: the fault at $at, within the first read"
rc=0
"$WCANALYZE" "$TMP/last.json" >"$TMP/last.out" 2>"$TMP/last.err" || rc=$?
[[ $rc -eq 2 ]] || fail "last: exit $rc, not 2"
[[ $(cat "$TMP/last.err") == "wcanalyze: $TMP/last.json: offset $at: summary: 'run': not an integer" ]] ||
	fail "last: $(cat "$TMP/last.err"), not at offset $at"
"$WCANALYZE" "${caps[@]:0:${#caps[@]}-1}" >"$TMP/first.out"
cmp -s "$TMP/first.out" "$TMP/last.out" ||
	fail "last: not the report of the captures before it"
echo "ok: a fault in the last capture of $((${#caps[@]})), at offset $at"
