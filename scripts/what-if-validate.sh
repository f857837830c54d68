#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# what-if-validate.sh - the validation table of docs/what-if.md: for each
# pair of configurations recorded on a model disk in samples/, predict B
# from each run of A with wcanalyze --what-if and compare with B's runs
# as recorded, so that no number in the table is typed by hand.
#
#   scripts/what-if-validate.sh [--samples DIR] [--update FILE] [--tsv FILE]
#
# Prints the table (Markdown) on standard output; with --update, puts it
# into FILE between the lines
#   <!-- what-if-table: begin (scripts/what-if-validate.sh --update) -->
#   <!-- what-if-table: end -->
# instead.  --tsv also writes one row per prediction (A's run, B).
#
# Pairs: every two configurations (write cache, barriers) of the same
# filesystem on the same model disk, and the same configuration on two
# model disks with the same workload (capture.conf disk_model; lab_workload,
# source_files and source_bytes; loop captures are not on a model disk
# and are left out).  For a run of A:
#   device predicted = A's recorded device time (wcanalyze's busy time)
#                      + (replay as B - replay as recorded) on one disk;
#                      across disks A's recorded device time x (replay
#                      as B / replay as recorded): the model's error on
#                      A scales with the disk, and a difference larger
#                      than A's own time would predict a negative one
#   wall predicted   = A's copy + delete walls + the same difference of
#                      the replays' copy + delete walls
#   model            = the replay as B's device time, against B's
#                      ledger (the model's own time per request, summed)
# and the table gives the mean over A's runs against the mean of B's
# runs, with the error in % of B's, and the range of B's own walls (the
# same configuration's runs differ by more than 10 % on a loaded host).
#
#   BUILD=DIR   where wcanalyze was built (default: build/)
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$top/build}
wcanalyze=$build/wcanalyze
samples=$top/samples
update=
tsv=

usage() {
	echo "usage: what-if-validate.sh [--samples DIR] [--update FILE] [--tsv FILE]" >&2
	exit 2
}
while [[ $# -gt 0 ]]; do
	case $1 in
	--samples) [[ $# -ge 2 ]] || usage; samples=$2; shift 2 ;;
	--update) [[ $# -ge 2 ]] || usage; update=$2; shift 2 ;;
	--tsv) [[ $# -ge 2 ]] || usage; tsv=$2; shift 2 ;;
	*) usage ;;
	esac
done
[[ -x $wcanalyze ]] || { echo "what-if-validate: $wcanalyze not built: run make" >&2; exit 1; }
command -v jq >/dev/null || { echo "what-if-validate: needs jq" >&2; exit 1; }
export WCANALYZE_DISKS=${WCANALYZE_DISKS:-$top/capture/disks}

work=$(mktemp -d "${TMPDIR:-/tmp}/wcwhatif.XXXXXX")
trap 'rm -rf "$work"' EXIT

# shellcheck source=scripts/lib/samples.sh
source "$top/scripts/lib/samples.sh"
sample_archives what-if-validate "$samples"

# index: disk fs cache barrier name archive ledger-busy-s workload
: >"$work/index"
for a in "${archives[@]}"; do
	capture_keys what-if-validate "$wcanalyze" "$a"
	fs=${cap[fs]} wc=${cap[cache]} bar=${cap[barrier]} disk=${cap[disk]}
	[[ -n $disk && $disk != loop && $fs =~ ^(xfs|ext3|ext4)$ &&
		$wc =~ ^(on|off)$ && $bar =~ ^(on|off)$ ]] || continue
	# The ledger's busy time: its commands' own times summed (wcanalyze's
	# JSON `ledger.commands_s`); destage rows are not commands.
	workload=${cap[lab_workload]},${cap[source_files]},${cap[source_bytes]}
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$disk" "$fs" "$wc" "$bar" "${cap[name]}" "$a" \
		"${cap[ledger_commands]:-0}" "$workload" >>"$work/index"
done
[[ -s $work/index ]] || { echo "what-if-validate: no model-disk captures in $samples" >&2; exit 1; }

cp "$work/index" "$work/configs"

# One wcanalyze run per capture A, with a what-if for every B.
# rows: A-config B-config A-name rec-busy rec-wall base-busy base-wall
#       pred-busy pred-wall
# shellcheck disable=SC2016 # the $ are jq's
jq_rows='
def busy: .window_s - .time_s.idle;
def wall: [.phases[] | select(.name == "copy" or .name == "delete") | .wall_s] | add;
.captures as $c
| $c[2:][] as $w
| [ $c[0].name, ($c[0] | busy), ($c[0] | wall), ($c[1] | busy), ($c[1] | wall),
    $w.name, ($w | busy), ($w | wall) ]
| map(tostring) | join("\t")'
: >"$work/rows"
while IFS=$'\t' read -r disk fs wc bar name a _ workload; do
	specs=()
	targets=()
	while IFS=$'\t' read -r d2 _ wc2 bar2 w2; do
		if [[ $d2 == "$disk" && "$wc2,$bar2" != "$wc,$bar" ]]; then
			specs+=(--what-if "cache=$wc2,barrier=$bar2")
		elif [[ $d2 != "$disk" && "$wc2,$bar2" == "$wc,$bar" && $w2 == "$workload" ]]; then
			specs+=(--what-if "disk=$d2")
		else
			continue
		fi
		targets+=("$d2 $fs $wc2 $bar2")
	done < <(awk -F'\t' -v fs="$fs" '$2 == fs { print $1 "\t" $2 "\t" $3 "\t" $4 "\t" $8 }' "$work/configs" | sort -u)
	[[ ${#specs[@]} -gt 0 ]] || continue
	"$wcanalyze" --format json "${specs[@]}" "$a" 2>"$work/err" >"$work/json" || {
		echo "what-if-validate: $a: $(cat "$work/err")" >&2
		exit 1
	}
	i=0
	while IFS=$'\t' read -r _ rb rw bb bw _ pb pw; do
		printf '%s %s %s %s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$disk" "$fs" "$wc" "$bar" \
			"${targets[$i]}" "$name" "$rb" "$rw" "$bb" "$bw" "$pb" "$pw" >>"$work/rows"
		i=$((i + 1))
	done < <(jq -r "$jq_rows" "$work/json")
done <"$work/index"

# B's recorded figures, per configuration: mean busy, wall, ledger, and
# the least and largest wall of its runs.
awk -F'\t' '{ print $1 " " $2 " " $3 " " $4 "\t" $5 }' "$work/index" >"$work/names"
awk -F'\t' -v OFS='\t' '
FILENAME == ARGV[1] { cfg[$5] = $1 " " $2 " " $3 " " $4; led[$5] = $7; next }
# A -> B rows: the recorded A row holds A`s own busy and wall
{ n = $3; if (!(n in seen)) { seen[n] = 1; c = cfg[n]; rb[c] += $4; rw[c] += $5; lb[c] += led[n]; k[c]++
	if (!(c in lo) || $5 < lo[c]) lo[c] = $5
	if (!(c in hi) || $5 > hi[c]) hi[c] = $5 } }
END { for (c in k) print c, rb[c] / k[c], rw[c] / k[c], lb[c] / k[c], k[c], lo[c], hi[c] }' \
	"$work/index" "$work/rows" >"$work/recorded"
[[ -z $tsv ]] || cp "$work/rows" "$tsv"

awk -F'\t' '
function pct(p, r) { return r > 0 ? sprintf("%+.1f %%", (p - r) / r * 100) : "-" }
function cfg(s,   f) { split(s, f, " "); return f[1] " " f[2] " cache " f[3] ", barriers " f[4] }
FILENAME == ARGV[1] { rb[$1] = $2; rw[$1] = $3; lb[$1] = $4; runs[$1] = $5; lo[$1] = $6; hi[$1] = $7; next }
{
	key = $1 "\t" $2
	if (!(key in n)) order[++npairs] = key
	n[key]++
	split($1, da, " "); split($2, db, " ")
	if (da[1] == db[1] || $6 <= 0)
		pd[key] += $4 + ($8 - $6)
	else
		pd[key] += $4 * $8 / $6
	pw[key] += $5 + ($9 - $7)
	pm[key] += $8
}
END {
	print "| from A | predict B | A runs | device predicted (s) | B recorded | error | wall predicted (s) | B recorded | error | model (s) | B ledger | error | B runs, wall (s) |"
	print "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
	for (i = 1; i <= npairs; i++) {
		key = order[i]
		split(key, ab, "\t")
		b = ab[2]
		d = pd[key] / n[key]; w = pw[key] / n[key]; m = pm[key] / n[key]
		printf "| %s | %s | %d | %.3f | %.3f | %s | %.2f | %.2f | %s | %.3f | %.3f | %s | %.2f to %.2f |\n",
			cfg(ab[1]), cfg(b), n[key], d, rb[b], pct(d, rb[b]), w, rw[b], pct(w, rw[b]),
			m, lb[b], pct(m, lb[b]), lo[b], hi[b]
	}
}' "$work/recorded" "$work/rows" >"$work/table"

# The errors by kind of pair: within one disk where B's flushes are in
# A's capture too (or B has none), within one disk where B needs flushes
# A's capture lacks (B with the cache and barriers on, A without), and
# across disks.
awk -F'|' '
function num(s) { gsub(/[ %+]/, "", s); return s + 0 }
function abs(x) { return x < 0 ? -x : x }
NR > 2 {
	a = $2; b = $3
	split(a, A, " "); split(b, B, " ")
	if (A[1] != B[1]) g = 3
	else if (b ~ /cache on, barriers on/ && a !~ /cache on, barriers on/) g = 2
	else g = 1
	n[g]++
	d = abs(num($7)); w = abs(num($10)); m = abs(num($13))
	sd[g] += d; sw[g] += w; sm[g] += m
	if (d <= 10) kd[g]++
	if (w <= 10) kw[g]++
	split($14, r, " to ")
	if (num($8) >= num(r[1]) && num($8) <= num(r[2])) kr[g]++
	if (m <= 10) km[g]++
	if (d > xd[g]) xd[g] = d
	if (w > xw[g]) xw[g] = w
	if (m > xm[g]) xm[g] = m
}
END {
	name[1] = "one disk, B'"'"'s flushes in A"
	name[2] = "one disk, B needs flushes A lacks"
	name[3] = "across disks"
	print ""
	print "| pairs | n | device within 10 % | mean, largest error | wall within 10 % | within B'"'"'s runs | mean, largest error | model within 10 % of the ledger | mean, largest error |"
	print "|---|---|---|---|---|---|---|---|---|"
	for (g = 1; g <= 3; g++) {
		if (!n[g]) continue
		printf "| %s | %d | %d | %.1f %%, %.1f %% | %d | %d | %.1f %%, %.1f %% | %d | %.1f %%, %.1f %% |\n",
			name[g], n[g], kd[g], sd[g] / n[g], xd[g], kw[g], kr[g], sw[g] / n[g], xw[g],
			km[g], sm[g] / n[g], xm[g]
	}
}' "$work/table" >"$work/summary"
cat "$work/summary" >>"$work/table"

if [[ -z $update ]]; then
	cat "$work/table"
	exit 0
fi
begin='<!-- what-if-table: begin (scripts/what-if-validate.sh --update) -->'
end='<!-- what-if-table: end -->'
put_between what-if-validate "$update" "$begin" "$end" "$work/table"
