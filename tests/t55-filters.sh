#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t55-filters.sh - --window, --phase, --device and --process (issue 27):
# a filtered report's parts sum to its window to the nanosecond; the
# window holds the requests --dump shows completing in it; the phase
# is its window; the device becomes the main one; the processes'
# requests partition the capture's (each request is one process's: a
# flush is the thread's that asked for it); the header says what was
# filtered; bad values are usage errors.
# shellcheck source=tests/lib/common.sh
source "$(dirname "$0")/lib/common.sh"

SAMPLE=$TOP/samples/loop-ext4-cache-on-barrier-on-run1.tar.xz
cd "$TMP"
"$WCANALYZE" --dump "$SAMPLE" >dump.txt

# json ARGS...: the report of the sample with ARGS.
json() { "$WCANALYZE" --format json "$@" "$SAMPLE"; }
# sums FILE: exits 1 unless the parts sum to the window, in nanoseconds.
sums() {
	jq -e '.captures[0] | ([.time_s[] * 1e9 | round] | add) == (.window_s * 1e9 | round)' "$1" >/dev/null
}
# requests FILE: the main device's completed requests.
requests() { jq '[.captures[0].requests[]] | add' "$1"; }
# dump_requests DEV FROM TO: completions of requests in --dump on DEV
# with a time in [FROM, TO] (a flush's "C FN", or one with "+ N"; not
# the empty completion that ends a flush sequence).
dump_requests() {
	awk -v d="$1" -v a="$2" -v b="$3" \
		'$1 == d && $6 == "C" && $4 >= a && $4 <= b && ($9 == "+" || $7 == "FN")' dump.txt | wc -l
}

# ---- no filter: the reference ------------------------------------------
json >all.json
sums all.json || fail "unfiltered: parts do not sum to the window"
all=$(requests all.json)
[[ $all -eq $(dump_requests 7,0 0 1e9) ]] || fail "unfiltered: $all requests, --dump has $(dump_requests 7,0 0 1e9)"
jq -e '.captures[0] | has("filter") | not' all.json >/dev/null || fail "unfiltered: a filter key"

# ---- --window ----------------------------------------------------------
for w in 2,6 0.5,1.25 5.02,5.04 '10,'; do
	json --window "$w" >w.json || fail "--window $w: exit $?"
	sums w.json || fail "--window $w: parts do not sum to the window"
	from=${w%,*} to=${w#*,}
	end=$(jq '.captures[0].window_s' all.json)
	[[ -n $to ]] || to=$end
	jq -e --argjson a "$from" --argjson b "$to" \
		'.captures[0].window_s * 1e9 | round == (($b - $a) * 1e9 | round)' w.json >/dev/null ||
		fail "--window $w: window $(jq '.captures[0].window_s' w.json) s"
	want=$(dump_requests 7,0 "$from" "$to")
	got=$(requests w.json)
	[[ $got -eq $want ]] || fail "--window $w: $got requests, --dump has $want completing in it"
	jq -e '.captures[0].filter | startswith("window ")' w.json >/dev/null || fail "--window $w: not in the header"
done
"$WCANALYZE" --window 2,6 "$SAMPLE" | grep '^  filtered: window 2 s to 6 s from the start$' >/dev/null ||
	fail "--window: the text report's header does not say it"

# Two windows side by side add up to the two as one: the slices of the
# whole trace cut to each (a request served across 5.03 s is split).
parts() { jq -c '.captures[0] | [(.time_s[] * 1e9 | round), ([.requests[]] | add)]' "$1"; }
json --window 2,5.03 >a.json
json --window 5.03,8 >b.json
json --window 2,8 >ab.json
jq -n -c --slurpfile a a.json --slurpfile b b.json \
	'[$a[0], $b[0]] | map(.captures[0] | [(.time_s[] * 1e9 | round), ([.requests[]] | add)]) | transpose | map(add)' >sum.txt
[[ $(cat sum.txt) == "$(parts ab.json)" ]] ||
	fail "windows do not add up: $(cat sum.txt) against $(parts ab.json)"

# The waits (text: "processes waiting on sync requests") too: two
# windows side by side add up to the whole trace's, requests exactly,
# times to the microsecond of each table's rounding.  Each window had
# the whole trace's table before (jbd2/loop0-8 12 requests in both).
# waits ARGS...: "command requests microseconds" per row, by command.
waits() {
	"$WCANALYZE" "$@" "$SAMPLE" | awk '/^processes waiting on sync requests/ { on = 1; next }
		on && $1 == "command" { next } on && NF == 0 { exit }
		on { printf "%s %d %.0f\n", $1, $2, $3 * 1e6 }' | LC_ALL=C sort
}
waits >w-all.txt
waits --window 0,5.03 >w-a.txt
waits --window 5.03, >w-b.txt
[[ -s w-all.txt ]] || fail "the sample's report has no waits"
cat w-a.txt w-b.txt | awk '{ n[$1] += $2; t[$1] += $3 } END { for (c in n) printf "%s %d %.0f\n", c, n[c], t[c] }' |
	LC_ALL=C sort >w-sum.txt
if ! join w-sum.txt w-all.txt | awk '$2 != $4 || $3 - $5 > 2 || $5 - $3 > 2 { bad = 1 } END { exit bad }' ||
	[[ $(wc -l <w-sum.txt) -ne $(wc -l <w-all.txt) ]]; then
	fail "the waits of two windows do not add up to the whole trace's: $(paste -d '|' w-sum.txt w-all.txt)"
fi

# ---- --phase, alone and with a window relative to it --------------------
for p in copy delete; do
	json --phase "$p" >p.json
	sums p.json || fail "--phase $p: parts do not sum"
	jq -e --arg p "$p" '.captures[0] as $c | ($c.phases[] | select(.name == $p) | .wall_s) as $w | ($c.window_s - $w | fabs) < 1e-9' p.json >/dev/null ||
		fail "--phase $p: the window is not the phase's"
	# The same figures as the unfiltered report's phase.
	[[ $(jq -c '.captures[0] | [.time_s, .requests, .bytes]' p.json) == \
		"$(jq -c --arg p "$p" '.captures[0].phases[] | select(.name == $p) | [.time_s, .requests, .bytes]' all.json)" ]] ||
		fail "--phase $p: not the figures of the phase in the whole report"
done
json --phase delete --window 0.1,0.2 >pw.json
sums pw.json || fail "--phase --window: parts do not sum"
jq -e '.captures[0].window_s * 1e9 | round == 100000000' pw.json >/dev/null || fail "--phase delete --window 0.1,0.2: not 0.1 s"
jq -e '.captures[0].filter == "window 0.1 s to 0.2 s of phase delete"' pw.json >/dev/null || fail "--phase --window: header"
"$WCANALYZE" --phase nosuch "$SAMPLE" >/dev/null 2>err || fail "--phase nosuch: exit $?"
grep -q 'no such phase' err || fail "--phase nosuch: no warning: $(cat err)"

# ---- --device: by number and by capture.conf's name ---------------------
for d in 7,2 7:2 loop2; do
	json --device "$d" >d.json
	sums d.json || fail "--device $d: parts do not sum"
	jq -e '.captures[0].device == "7,2"' d.json >/dev/null || fail "--device $d: main device $(jq .captures[0].device d.json)"
	[[ $(requests d.json) -eq $(dump_requests 7,2 0 1e9) ]] || fail "--device $d: requests"
done

# ---- --process: the processes partition the requests -------------------
sum=0
while read -r pid; do
	json --process "$pid" >q.json
	sums q.json || fail "--process $pid: parts do not sum"
	sum=$((sum + $(requests q.json)))
done < <(awk '$6 == "Q" || $6 == "D" { print $5 }' dump.txt | sort -un)
[[ $sum -eq $all ]] || fail "--process: the processes' requests sum to $sum, not $all"
# By name: jbd2's are the journal writes and the flushes its commits
# asked for (kworkers dispatched them: "Q FWFSM [jbd2/loop0-8]", then
# "D FN [kworker/0:2H]"); sync's are the two it queued itself ("Q FWS
# [sync]"): 8 and 2 of the 10.
json --process jbd2/loop0-8 >j.json
jq -e '.captures[0].requests.flush == 8 and .captures[0].requests.journal == 12' j.json >/dev/null ||
	fail "--process jbd2/loop0-8: $(jq -c .captures[0].requests j.json)"
json --process sync >j.json
jq -e '.captures[0].requests.flush == 2' j.json >/dev/null ||
	fail "--process sync: $(jq -c .captures[0].requests j.json)"
json --process jbd2/loop0-8 --window 2,6 --device loop0 >all3.json
sums all3.json || fail "three filters: parts do not sum"
jq -e '.captures[0].filter == "window 2 s to 6 s from the start; device loop0; process jbd2/loop0-8"' all3.json >/dev/null ||
	fail "three filters: header $(jq .captures[0].filter all3.json)"

# ---- no sentence a filter makes false ------------------------------------
# capture.conf names loop0 (the destination) and loop2 (the source); the
# command ended with sync and the whole report finds no data left
# unwritten.  Under every filter, every finding the sample yields is
# printed; a filter leaves I/O out, it does not make data pending, turn
# the source into the destination or untrace the other device.
"$WCANALYZE" "$SAMPLE" >all.txt
jq -e '[.findings[].kind] | index("dirty_at_end") | not' all.json >/dev/null ||
	fail "unfiltered: the reference finds data unwritten"
for f in "--device loop0" "--device loop2" "--process cp" "--process sync" \
	"--process jbd2/loop0-8" "--phase copy" "--phase delete" "--window 2,6" \
	"--window 0.5,1.25"; do
	# shellcheck disable=SC2086 # f is several words
	"$WCANALYZE" $f "$SAMPLE" >f.txt
	# shellcheck disable=SC2086
	json $f >f.json
	jq -e '[.findings[].kind] | index("dirty_at_end") | not' f.json >/dev/null ||
		fail "$f: \"dirty data was still pending\", though the command ended with sync"
	# The flushes' issuers are the filtered flushes' (their counts sum
	# to the finding's count), not the whole trace's.
	jq -e '[.findings[] | select(.kind == "flushes")][0] |
		.count == ([(.issued_by // "") | scan("\\(([0-9]+)\\)") | .[0] | tonumber] | add // 0) and
		(.journal_commits // 0) <= .count' f.json >/dev/null ||
		fail "$f: the flushes' issuers are not the filtered flushes': $(jq -c '.findings[] | select(.kind == "flushes") | [.count, .issued_by, .journal_commits]' f.json)"
	! grep -q 'No cache flush reached' f.txt ||
		fail "$f: \"no cache flush reached\" the device: only the filter's are known"
	! grep -q 'no other device was traced' f.txt ||
		fail "$f: \"no other device was traced\", though loop2 was"
	! grep -q '^  device loop2 (7,2), the destination' f.txt ||
		fail "$f: the source partition called the destination"
	if grep -q '^  device loop2' f.txt; then
		grep -q '^  journal: sectors [0-9+]* of the destination, none on this device$' f.txt ||
			fail "$f: the destination's journal range given as loop2's"
		jq -e '.captures[0].requests.journal == 0' f.json >/dev/null ||
			fail "$f: journal writes on loop2: $(jq -c .captures[0].requests f.json)"
	fi
done

# ---- a loop device's rotational flag ------------------------------------
# loop0 and loop2 say rotational = 1, of files on whatever medium, and the
# capture names no disk_model (wcdisk's model would be the evidence): no
# positioning split, and the report says why; --media-rate still splits.
for f in "" "--device loop2"; do
	# shellcheck disable=SC2086 # f is several words
	"$WCANALYZE" $f "$SAMPLE" >r.txt
	# shellcheck disable=SC2086
	json $f >r.json
	grep -q "^positioning    not split: loop[02] (7,[02])'s rotational flag cannot be trusted$" r.txt ||
		fail "${f:-unfiltered}: a positioning split on a loop device, or no reason: $(grep -A2 '^positioning' r.txt)"
	jq -e '.groups[0].figures_s.positioning.n == 0' r.json >/dev/null ||
		fail "${f:-unfiltered}: positioning $(jq -c .groups[0].figures_s.positioning r.json) in the JSON"
	! grep -q 'seeks and rotation' r.txt || fail "${f:-unfiltered}: seeks and rotation on a loop device"
done
"$WCANALYZE" --device loop2 --media-rate 100 "$SAMPLE" >mr.txt
grep -q '^positioning    [0-9.]* s' mr.txt ||
	fail "--media-rate: no positioning split on the loop device"

# ---- usage errors --------------------------------------------------------
for bad in "--window 5,2" "--window x,3" "--window 3" "--window -1,2" \
	"--device 7," "--device ,1" "--process ''" "--phase ''"; do
	eval "expect_exit 2 \"\$WCANALYZE\" $bad \"\$SAMPLE\""
done
echo "t50: ok"
