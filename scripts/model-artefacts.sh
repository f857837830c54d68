#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# model-artefacts.sh - docs/model-disk.md's table of the artefacts still
# known, each measured in seconds of the disk's busy time over a capture
# of samples/, beside the smallest effect the guide concludes from those
# samples, so that no number of it is typed by hand.
#
#   scripts/model-artefacts.sh [--samples DIR] [--disk NAME] [--update FILE]
#
# Prints the section (Markdown) on standard output; with --update, puts
# it into FILE between the lines
#   <!-- model-artefacts: begin (scripts/model-artefacts.sh --update) -->
#   <!-- model-artefacts: end -->
# instead.
#
# For every capture of the lab matrix on DISK (default hdd7200) with a
# ledger (ledger.tsv: what the model disk did), it measures:
#   - the host's latency: the disk's busy time in the trace (wcanalyze:
#     the window less the time no request of the disk was in flight)
#     minus the model's own busy time (wcanalyze's JSON `ledger.busy_s`:
#     the union of the ledger's rows' intervals, start_ns to end_ns -
#     late_ns, docs/json-format.md); what FUSE and the loop driver add to
#     every request;
#   - the replay's own error: wcanalyze --what-if's replay as recorded
#     minus the recording (busy time);
#   - the drive's idle-destage delay, a policy no datasheet of the time
#     gives: 100 ms (idle_destage_ms=100) against the samples' 0;
#   - each simplification the model used to have, put back by a what-if
#     against the replay as recorded: interface_overlap=off,
#     write_settle_ms=0 with write_settle_track_ms=0,
#     readahead_segments=1.
# and, for each, the largest difference between the two sides of a
# comparison the guide draws (per filesystem: the cache off against on
# with barriers on, and barriers on against off with the cache on; the
# mean over the runs of each side), beside the smallest busy-time
# difference wcanalyze calls real among those comparisons.
#
#   BUILD=DIR   where wcanalyze was built (default: build/)
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$top/build}
wcanalyze=$build/wcanalyze
samples=$top/samples
disk=hdd7200
update=

usage() {
	echo "usage: model-artefacts.sh [--samples DIR] [--disk NAME] [--update FILE]" >&2
	exit 2
}
while [[ $# -gt 0 ]]; do
	case $1 in
	--samples) [[ $# -ge 2 ]] || usage; samples=$2; shift 2 ;;
	--disk) [[ $# -ge 2 && $2 =~ ^[A-Za-z0-9._-]+$ ]] || usage; disk=$2; shift 2 ;;
	--update) [[ $# -ge 2 ]] || usage; update=$2; shift 2 ;;
	*) usage ;;
	esac
done
[[ -x $wcanalyze ]] || { echo "model-artefacts: $wcanalyze not built: run make" >&2; exit 1; }
command -v jq >/dev/null || { echo "model-artefacts: needs jq" >&2; exit 1; }
export WCANALYZE_DISKS=${WCANALYZE_DISKS:-$top/capture/disks}

work=$(mktemp -d "${TMPDIR:-/tmp}/wcartefacts.XXXXXX")
trap 'rm -rf "$work"' EXIT

# shellcheck source=scripts/lib/samples.sh
source "$top/scripts/lib/samples.sh"
sample_archives model-artefacts "$samples"

# The simplifications put back, in the order of the table.
whatifs=(idle_destage_ms=100 interface_overlap=off
	'write_settle_ms=0,write_settle_track_ms=0' readahead_segments=1)

# The busy time of a capture in wcanalyze's JSON: its window less the time
# the disk was idle (with a one-disk capture, the disk's figures).
# shellcheck disable=SC2016 # the $ are jq's
jq_busy='.window_s - .time_s.idle - (.outstanding_s // 0)'

# One row per capture: fs, cache, barrier, name, then the busy times
# (seconds): trace, model (ledger), replay as recorded, each what-if.
: >"$work/rows"
for a in "${archives[@]}"; do
	capture_keys model-artefacts "$wcanalyze" "$a"
	[[ ${cap[disk]} == "$disk" ]] || continue
	fs=${cap[fs]} wc=${cap[cache]} bar=${cap[barrier]} name=${cap[name]}
	model=${cap[ledger_busy]}
	[[ $fs =~ ^(xfs|ext3|ext4)$ && $wc =~ ^(on|off)$ && $bar =~ ^(on|off)$ && -n $model ]] || continue
	spec=()
	for w in "${whatifs[@]}"; do spec+=(--what-if "$w"); done
	"$wcanalyze" --format json "${spec[@]}" "$a" >"$work/json" ||
		{ echo "model-artefacts: wcanalyze --what-if failed on $name" >&2; exit 1; }
	mapfile -t busy < <(jq -r ".captures[] | $jq_busy" "$work/json")
	[[ ${#busy[@]} -eq $((2 + ${#whatifs[@]})) ]] ||
		{ echo "model-artefacts: $name: expected $((2 + ${#whatifs[@]})) analyses, got ${#busy[@]}" >&2; exit 1; }
	printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$fs" "$wc" "$bar" "$name" "$model" "$(IFS=$'\t'; echo "${busy[*]}")" >>"$work/rows"
done
[[ -s $work/rows ]] || { echo "model-artefacts: no $disk captures with a ledger in $samples" >&2; exit 1; }

# The smallest busy-time difference wcanalyze calls real among the
# comparisons the guide draws, each its own --baseline run.
: >"$work/effects"
for fs in xfs ext3 ext4; do
	for pair in off,on:on,on on,on:on,off; do
		a=${pair%:*} b=${pair#*:}
		mapfile -t files < <(for x in "${archives[@]}"; do
			n=$(basename "$x"); n=${n%.tar*}
			awk -F'\t' -v n="$n" -v fs="$fs" -v a="$a" -v b="$b" -v x="$x" \
				'$4 == n && $1 == fs && ($2 "," $3 == a || $2 "," $3 == b) { print x }' "$work/rows"
		done)
		base=$(awk -F'\t' -v fs="$fs" -v b="$b" '$1 == fs && $2 "," $3 == b { print $4; exit }' "$work/rows")
		[[ ${#files[@]} -ge 2 && -n $base ]] || continue
		"$wcanalyze" --format json --baseline "$base" "${files[@]}" >"$work/json" ||
			{ echo "model-artefacts: wcanalyze failed on $fs $pair" >&2; exit 1; }
		jq -r --arg fs "$fs" --arg pair "$pair" '.groups[] | select(.verdict != "baseline")
			| [$fs, $pair, .verdict, (.tests.busy.difference_s // 0)] | map(tostring) | join("\t")' \
			"$work/json" >>"$work/effects"
	done
done

awk -F'\t' -v disk="$disk" -v nw="${#whatifs[@]}" -v whatifs="${whatifs[*]}" '
FILENAME == ARGV[1] {
	if ($3 == "real") {
		x = $4 < 0 ? -$4 : $4
		if (!have || x < smallest) { smallest = x; what = $1 ", " ($2 == "off,on:on,on" ? "the cache off against on" : "barriers on against off") ; have = 1 }
	}
	next
}
{
	key = $1 SUBSEP $2 SUBSEP $3
	n[key]++
	runs++
	# sizes: 1 host latency, 2 replay error, 3.. each what-if
	v[1] = $6 - $5; v[2] = $7 - $6
	for (i = 1; i <= nw; i++) v[2 + i] = $(7 + i) - $7
	for (i = 1; i <= 2 + nw; i++) {
		sum[key, i] += v[i]
		if (!(i in lo) || v[i] < lo[i]) lo[i] = v[i]
		if (!(i in hi) || v[i] > hi[i]) hi[i] = v[i]
	}
	fss[$1] = 1
}
function side(fs, c, b, i) { return sum[fs SUBSEP c SUBSEP b, i] / n[fs SUBSEP c SUBSEP b] }
function has(fs, c, b) { return (fs SUBSEP c SUBSEP b) in n }
END {
	na = 2 + nw
	label[1] = "the host: FUSE and the loop driver between the model'"'"'s answer and the completion (trace busy minus the ledger'"'"'s)"
	label[2] = "the replay'"'"'s own error (replay as recorded minus the recording)"
	split(whatifs, w, " ")
	old["idle_destage_ms=100"] = "when the drive destages in idle time: at once (`idle_destage_ms = 0`, the samples) or after 100 ms (the model before); firmware differs, and no datasheet of the time says"
	old["interface_overlap=off"] = "the interface transfer after the destage (fixed: `interface_overlap = on`), put back"
	old["write_settle_ms=0,write_settle_track_ms=0"] = "reads and writes on one seek curve (fixed: the write settle), put back"
	old["readahead_segments=1"] = "one read-ahead segment (fixed: 16 segments), put back"
	for (i = 1; i <= nw; i++) label[2 + i] = old[w[i]]
	printf "Measured on the %d captures of `%s` in samples/ that have a ledger.\n", runs, disk
	if (have)
		printf "The smallest effect the guide concludes from them (a busy-time difference\nwcanalyze calls real) is %.3f s (%s).\n", smallest, what
	else
		print "No busy-time difference among the guide'"'"'s comparisons is real on them."
	print ""
	print "| artefact | size (s of busy time a capture: least to most) | difference between the sides, s, cache / barriers: xfs; ext3; ext4 | largest | against the smallest effect |"
	print "| --- | ---: | --- | ---: | --- |"
	nf = split("xfs ext3 ext4", fl, " ")
	for (i = 1; i <= na; i++) {
		big = 0; at = ""; by = ""
		for (j = 1; j <= nf; j++) {
			fs = fl[j]
			if (!(fs in fss)) continue
			dc = db = "-"
			if (has(fs, "off", "on") && has(fs, "on", "on")) {
				d = side(fs, "off", "on", i) - side(fs, "on", "on", i); d = d < 0 ? -d : d
				dc = sprintf("%.2f", d)
				if (d >= big) { big = d; at = fs ", cache" }
			}
			if (has(fs, "on", "on") && has(fs, "on", "off")) {
				d = side(fs, "on", "on", i) - side(fs, "on", "off", i); d = d < 0 ? -d : d
				db = sprintf("%.2f", d)
				if (d >= big) { big = d; at = fs ", barriers" }
			}
			by = by (by == "" ? "" : "; ") dc " / " db
		}
		if (!have)
			verdict = "no real effect to compare with"
		else if (i > 2 && w[i - 2] != "idle_destage_ms=100")
			verdict = big < smallest ? "fixed; smaller even put back" : \
				sprintf("fixed; put back, it would hide effects below %.3f s", big)
		else
			verdict = big < smallest ? "smaller" : \
				sprintf("not smaller: the model cannot tell effects below %.3f s", big)
		if (i == 2) verdict = verdict " (what-if predictions only)"
		printf "| %s | %+.3f to %+.3f | %s | %.3f (%s) | %s |\n", label[i], lo[i], hi[i], by, big, at, verdict
	}
}' "$work/effects" "$work/rows" >"$work/table"

if [[ -z $update ]]; then
	cat "$work/table"
	exit 0
fi
begin='<!-- model-artefacts: begin (scripts/model-artefacts.sh --update) -->'
end='<!-- model-artefacts: end -->'
put_between model-artefacts "$update" "$begin" "$end" "$work/table"
