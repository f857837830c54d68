#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t65-what-if-words.sh - what --what-if's findings say (issue 43: "the
# what-if headline says what the replay predicts, not a verdict on one
# run").  On a sample and on the reader's ext4 fixture: each --what-if
# gets a finding of its own that opens "The model predicts", none is a
# verdict on runs ("not decided", "Runs used", "record each
# configuration"), the recording against its replay as recorded is a
# caveat (model_error) and never the headline, and in JSON each
# prediction's verdict is "prediction" and the model error's figures are
# the two walls' difference.  A capture whose window runs on to its data
# being durable has the model's error say how long that destage was.
# shellcheck source=tests/lib/common.sh
source "$(dirname "$0")/lib/common.sh"

export WCANALYZE_DISKS=$TOP/capture/disks
cd "$TMP"

mkdir fix
cp "$TOP"/tests/fixtures/reader/ext4/loop1.blktrace.* fix/
printf 'format_version = 1\nname = fixture\n' >fix/capture.conf
inputs=(fix)
s=$TOP/samples/hdd7200-xfs-cache-on-barrier-on-run1.tar.xz
[[ -f $s ]] || fail "no $s"
inputs+=("$s")

for in in "${inputs[@]}"; do
	"$WCANALYZE" --what-if barrier=off --what-if cache=off "$in" >out.txt 2>err.txt ||
		fail "$in: exit $?: $(head -n 3 err.txt)"
	# The findings block: up to the first blank line.
	sed -n '/^findings$/,/^$/p' out.txt >findings.txt
	n=$(grep -c '^  - The model predicts that ' findings.txt || true)
	[[ $n -eq 2 ]] || { cat findings.txt >&2; fail "$in: $n predictions among the findings, expected 2"; }
	[[ $(sed -n 2p findings.txt) == "  - The model predicts that "* ]] ||
		fail "$in: the first finding is not a what-if's prediction: $(sed -n 2,3p findings.txt)"
	if grep -E -q 'not decided|Runs used|record each configuration|no spread to test against' findings.txt; then
		fail "$in: a verdict on runs in a replay's findings: $(grep -m 2 -E 'not decided|Runs used|record each' findings.txt)"
	fi
	grep -q "^  - The model's error on " findings.txt || fail "$in: no model error caveat"
	sed -n '/^caveats$/,$p' findings.txt >caveats.txt
	grep -q "^  - The model's error on " caveats.txt ||
		fail "$in: the model's error is not among the caveats"
	grep -q 'no verdict is decided' out.txt && fail "$in: the verdict table speaks of runs"

	"$WCANALYZE" --format json --what-if barrier=off --what-if cache=off "$in" >out.json 2>err.txt ||
		fail "$in: json: exit $?"
	python3 - out.json <<'PY' || fail "$in: JSON findings"
import json, sys
d = json.load(open(sys.argv[1]))
f = d["findings"]
pred = [x for x in f if x["kind"] == "difference"]
assert len(pred) == 2, pred
assert f[0]["kind"] == "difference" and not f[0]["caveat"], f[0]["kind"]
for x in pred:
    assert x["verdict"] == "prediction", x["verdict"]
    assert " what-if " in x["capture"], x["capture"]
me = [x for x in f if x["kind"] == "model_error"]
assert len(me) == 1 and me[0]["caveat"], me
m = me[0]
caps = {c["name"]: c for c in d["captures"]}
assert abs(m["error_s"] - (m["replay_wall_s"] - m["recorded_wall_s"])) < 1e-6, m
assert " replayed as recorded" in m["baseline"], m["baseline"]
PY
	echo "$in: 2 predictions, the model's error a caveat"
done

# A lab capture's window runs on to its data being durable (capture.conf
# workload_end_ns, durable_ns: the drive's destage after the last sync),
# which the replay does not model: the model's error says how much of it
# that stretch can be.  The fixture's first event (the record's time, at
# offset 8) and its window place the command's return at the trace's
# end and the data durable 0.5 s after.
first=$(od -A n -t u8 -j 8 -N 8 fix/loop1.blktrace.0 | tr -d ' ')
win=$("$WCANALYZE" --format json fix | jq -r '.captures[0].window_s * 1e9 | floor')
[[ $first =~ ^[0-9]+$ && $win =~ ^[0-9]+$ ]] || fail "fixture: first event '$first', window '$win'"
printf 'workload_end_ns = %d\ndurable_ns = %d\n' "$((first + win))" "$((first + win + 500000000))" \
	>>fix/capture.conf
"$WCANALYZE" --what-if cache=off fix >out.txt 2>err.txt || fail "durable: exit $?: $(head -n 3 err.txt)"
tr '\n' ' ' <out.txt | tr -s ' ' >flat.txt
grep -q "The recording's window runs on to its data being durable, 0.500 s after the command returned" flat.txt ||
	fail "durable: the model's error does not say the window holds the destage: $(grep -A 8 "model's error" out.txt)"
"$WCANALYZE" --format json --what-if cache=off fix >out.json || fail "durable: json: exit $?"
jq -e '[.findings[] | select(.kind == "model_error")][0].durable_after_return_s | . > 0.499 and . < 0.501' out.json >/dev/null ||
	fail "durable: no durable_after_return_s in the JSON finding"
echo "durable: the model's error names the destage's 0.500 s"
