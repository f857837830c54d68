#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t37-difference.sh - difference attribution, runs and findings on wcsynth
# captures whose answers are known (docs/methodology.md section 10):
#  - two captures that differ only in flush cost: the attributed flush
#    difference equals the injected one (the model's own flush time)
#    within 2 %, the parts sum to the wall difference, in the whole and
#    per phase, and the findings name flushes as the cause;
#  - three runs each of two configurations that do not differ: "no
#    larger than X" on device time (X = 5 % of the baseline's wall, its
#    90 % interval inside +-X), the wall not real either; the same with
#    flushes 40 ms instead of 12: real on device time, carried by the
#    flushes, with an interval (JSON, CSV);
#  - one run each: no verdict is decided;
#  - wcsynth's flush cost is its disk's (capture.conf disk_model): without
#    --baseline each configuration is compared with the fastest on the
#    same disk, never across; a named baseline on another disk is
#    compared with all the same, and the report says it crosses disks;
#  - the text stays within 80 columns and opens with the findings.
# shellcheck source=tests/lib/common.sh
source "$(dirname "$0")/lib/common.sh"

[[ -x $WCSYNTH ]] || fail "$WCSYNTH not built"
command -v jq >/dev/null || fail "jq is needed (scripts/deps.sh check installs it)"

# value KEY FILE: KEY's value in a wcsynth --expect file.
value() { awk -v k="$1" '$1 == k { print $3 }' "$2"; }

# within A B TOL: |A - B| <= TOL * |B|.
within() {
	awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN {
		d = a - b; if (d < 0) d = -d; m = b < 0 ? -b : b
		exit !(d <= t * m) }'
}

# sums_ok JSON-DIFFERENCE: the parts add up to wall_s, to the nanosecond.
sums_ok() {
	jq -e '((.parts_s | [.[]] | add) - .wall_s) | fabs < 5e-9' <<<"$1" >/dev/null
}

cd "$TMP"

# --fsync: the host waits for each commit, so flush time becomes wall time.
"$WCSYNTH" --capture --fsync --flush-ms 12 --expect f12.exp f12
"$WCSYNTH" --capture --fsync --flush-ms 30 --expect f30.exp f30
injected=$(( $(value time.flush f30.exp) - $(value time.flush f12.exp) ))
[[ $injected -gt 0 ]] || fail "wcsynth injected no flush difference"
# Two disks, one configuration each: nothing to compare without a name.
"$WCANALYZE" --format json f12 f30 >apart.json
jq -e '[.groups[].comparable_set] == [1, 2] and
	all(.captures[]; has("difference") | not) and
	([.findings[] | select(.kind == "difference")] | length == 0)' apart.json >/dev/null ||
	fail "two disks compared across: $(jq -c '[.groups[] | {group, comparable_set, difference}]' apart.json)"
"$WCANALYZE" --format json --baseline f12 f12 f30 >pair.json
diff=$(jq -c '.captures[] | select(.name == "f30") | .difference' pair.json)
[[ $(jq -r .baseline <<<"$diff") == f12 ]] || fail "baseline is not the named one"
[[ $(jq -r .across_disks <<<"$diff") == true ]] || fail "f30 against f12 does not cross disks: $diff"
flush=$(jq -r .parts_s.flush <<<"$diff")
within "$flush" "$(awk -v n="$injected" 'BEGIN { printf "%.9f", n / 1e9 }')" 0.02 ||
	fail "attributed flush difference $flush s, injected $injected ns"
sums_ok "$diff" || fail "parts do not sum to the wall difference: $diff"
[[ $(jq -r .main_cause <<<"$diff") == flush ]] || fail "main cause is not flush: $diff"
# The wall itself grew: with --fsync most of the flush time is waited for.
wall=$(jq -r .wall_s <<<"$diff")
awk -v w="$wall" -v f="$flush" 'BEGIN { exit !(w > 0.5 * f) }' ||
	fail "wall difference $wall s for $flush s more flush time"
for p in copy delete; do
	d=$(jq -c --arg p "$p" '.captures[] | select(.name == "f30") |
		.phases[] | select(.name == $p) | .difference' pair.json)
	sums_ok "$d" || fail "phase $p: parts do not sum: $d"
done
jq -e '[.findings[] | select(.kind == "difference")][0] |
	.cause == "flush" and (.sentence | test("mostly flush")) and
	(.sentence | test("It compares across disks: f30 ran on disk wcsynth flush_ms=30"))' \
	pair.json >/dev/null ||
	fail "the difference finding does not name flushes and disks: $(jq -c .findings pair.json)"
jq -e '[.findings[] | select(.kind == "flushes")][0] | .count == 92' pair.json >/dev/null ||
	fail "the flush finding miscounts"
"$WCANALYZE" --baseline f12 f12 f30 >pair.txt
[[ $(head -1 pair.txt) == findings ]] || fail "text report does not open with findings"
grep -q "mostly flush" pair.txt || fail "text findings do not name flushes"
grep -q "one run per configuration: no verdict is decided" pair.txt || fail "one run each: no word on the verdicts"
grep -q '^f30\* ' pair.txt || fail "the text does not mark f30 as on another disk"
grep -q '^d2 = wcsynth flush_ms=30 ' pair.txt || fail "the text does not name the disks"
echo "ok: flush cost only ($flush s attributed, $injected ns injected, wall +$wall s)"

# Two configurations on each of two disks (fs is only a label to wcsynth,
# the seed makes them differ): each against the fastest of its own disk.
for d in 12 30; do
	"$WCSYNTH" --capture --fsync --flush-ms "$d" --seed 5 --conf fs=ext4 "d$d-ext4"
	"$WCSYNTH" --capture --fsync --flush-ms "$d" --seed 6 "d$d-xfs"
done
"$WCANALYZE" --format json d12-ext4 d30-ext4 d12-xfs d30-xfs >disks.json
jq -e '[.groups[] | .comparable_set] == [1, 2, 1, 2] and
	all(.groups[]; (.captures[0][0:3]) == (.difference.baseline[0:3]) and
		.difference.across_disks == false) and
	([.groups[] | select(.verdict == "baseline")] | length == 2) and
	([.findings[] | select(.kind == "difference") | .disk] | length == 2)' \
	disks.json >/dev/null ||
	fail "baselines across disks: $(jq -c '[.groups[] | {captures, comparable_set, b: .difference.baseline}]' disks.json)"
"$WCANALYZE" d12-ext4 d30-ext4 d12-xfs d30-xfs >disks.txt
for d in d1 d2; do
	grep -q "^disk $d: difference to " disks.txt ||
		fail "the text does not compare on disk $d: $(cat disks.txt)"
done
echo "ok: a baseline per disk"

# Runs: the same model, configurations that differ only by name in
# capture.conf, three seeds each.
for s in 1 2 3; do
	"$WCSYNTH" --capture --fsync --seed "$s" --conf fs=ext4 "ext4-run$s"
	"$WCSYNTH" --capture --fsync --seed "$((s + 3))" "xfs-run$s"
	"$WCSYNTH" --capture --fsync --seed "$((s + 3))" --flush-ms 40 --conf fs=ext3 "ext3-run$s"
done
"$WCANALYZE" ext4-run1 ext4-run2 ext4-run3 xfs-run1 xfs-run2 xfs-run3 >noise.txt
"$WCANALYZE" --format json ext4-run1 ext4-run2 ext4-run3 xfs-run1 xfs-run2 xfs-run3 >noise.json
grep -qE "^#[12] against #[12] \(3 and 3 runs\): device no larger than \+-0\.[0-9]{3} s,$" noise.txt ||
	fail "equal configurations: not bounded: $(grep -A1 against noise.txt)"
jq -e '.groups | length == 2 and all(.runs == 3) and
	([.[].verdict] | sort == ["baseline", "no_larger_than"]) and
	([.[].wall_verdict] | sort | .[1] != "real") and
	([.[].tests.busy.verdict] | sort == ["baseline", "no_larger_than"]) and
	([.[] | select(.verdict != "baseline") | .tests.busy |
	  .interval90_s[0] > -.bound_s and .interval90_s[1] < .bound_s and
	  .bound_s > 0] | all) and
	([.[].tests.busy.interval_s | .[0] < 0 and .[1] > 0] | all)' noise.json >/dev/null ||
	fail "groups: $(jq -c '[.groups[] | {runs, verdict, wall_verdict, tests}]' noise.json)"
jq -e '.groups[] | .figures_s.wall | .n == 3 and .sd > 0 and .min <= .mean and
	.mean <= .max' noise.json >/dev/null || fail "group spread"
grep -qE '^#1 +ext4 off on  d1 +3 ' noise.txt || fail "a group is not one row"
# A bound set smaller than the interval: not decided, with the runs a
# side that would decide it, and the text says which bound it used.
"$WCANALYZE" --format json --equivalence 0.001s ext4-run1 ext4-run2 ext4-run3 xfs-run1 xfs-run2 xfs-run3 >tight.json
jq -e '[.groups[] | select(.verdict != "baseline")][0] |
	.verdict == "not_decided" and .bound_s == 0.001 and
	(.tests.busy.runs_to_decide | . == null or . > 3)' tight.json >/dev/null ||
	fail "--equivalence 0.001s: $(jq -c '[.groups[] | {verdict, bound_s, b: .tests.busy}]' tight.json)"
"$WCANALYZE" --equivalence 2% ext4-run1 ext4-run2 ext4-run3 xfs-run1 xfs-run2 xfs-run3 >share.txt
grep -q "X = 2 %" share.txt || fail "--equivalence 2%: the text does not state the bound"
echo "ok: no larger than the bound"

# 40 ms flushes are another wcsynth disk: compared only when named.
"$WCANALYZE" --format json --baseline xfs-run1 ext3-run1 ext3-run2 ext3-run3 xfs-run1 xfs-run2 xfs-run3 >real.json
jq -e '[.groups[] | select(.verdict == "real")] | length == 1' real.json >/dev/null ||
	fail "flushes 40 ms against 12 ms: not real: $(jq -c '[.groups[].verdict]' real.json)"
# The flushes carry it, with an interval that holds the difference.
jq -e '[.groups[] | select(.verdict == "real")][0].tests.flush |
	.verdict == "real" and .interval_s[0] > 0 and
	.interval_s[0] <= .difference_s and .difference_s <= .interval_s[1]' real.json >/dev/null ||
	fail "the flush test: $(jq -c '[.groups[].tests.flush]' real.json)"
jq -e '[.findings[] | select(.kind == "difference")][0] | .cause == "flush" and
	.verdict == "real" and (.sentence | test("it is real: the disk.s work changed"))' real.json >/dev/null ||
	fail "real difference: $(jq -c '.findings[-1]' real.json)"
"$WCANALYZE" --format csv --baseline xfs-run1 ext3-run1 ext3-run2 ext3-run3 xfs-run1 xfs-run2 xfs-run3 >real.csv
col=$(head -1 real.csv | tr , '\n' | grep -nx verdict_busy | cut -d: -f1)
[[ -n $col ]] || fail "no verdict_busy column in the CSV"
# (The disk column is quoted and holds commas.)
[[ $(sed 's/"[^"]*"/disk/g' real.csv | awk -F, -v c="$col" '$1 ~ /^ext3/ && $2 == "all" { print $c }' | sort -u) == real ]] ||
	fail "the CSV's device verdict of ext3: $(cut -d, -f1,2,"$col" real.csv)"
echo "ok: a real difference"

for out in pair.txt noise.txt disks.txt; do
	awk -v f="$out" 'length($0) > 80 {
		print f ": line " NR " is " length($0) " columns"; bad = 1
	} END { exit bad }' "$out" || fail "text wider than 80 columns"
done
echo "ok: 80 columns"
