#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# report-2624.sh - the report's four XFS times beside the replay of the
# samples under 2.6.24's block-layer ordering (docs/what-if.md, "The
# report's table"), so that no number of it is typed by hand.
#
#   scripts/report-2624.sh [--samples DIR] [--update FILE]
#
# Prints the section (Markdown) on standard output; with --update, puts
# it into FILE between the lines
#   <!-- report-2624: begin (scripts/report-2624.sh --update) -->
#   <!-- report-2624: end -->
# instead.
#
# Every hdd7200 XFS capture with the cache and barriers on (the report's
# default mount) is replayed with wcanalyze --what-if kernel=2.6.24 in
# the report's four configurations (cache on/off x barriers on/off); the
# table gives the mean over those runs of the replays' copy phase and
# busy time, the flushes and the log writes drained, and the same scaled
# by the report's file count over the sample's (capture.conf
# source_files, read as every key here through wcanalyze --format json).  The bound on what 2008's XFS paid uses the per-barrier
# cost the replay measured and the log reservations of a v4 XFS of the
# samples' size (mkfs.xfs and xfs_db -c logres on a scratch image file,
# when both are installed).
#
#   BUILD=DIR   where wcanalyze was built (default: build/)
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$top/build}
wcanalyze=$build/wcanalyze
samples=$top/samples
update=

usage() {
	echo "usage: report-2624.sh [--samples DIR] [--update FILE]" >&2
	exit 2
}
while [[ $# -gt 0 ]]; do
	case $1 in
	--samples) [[ $# -ge 2 ]] || usage; samples=$2; shift 2 ;;
	--update) [[ $# -ge 2 ]] || usage; update=$2; shift 2 ;;
	*) usage ;;
	esac
done
[[ -x $wcanalyze ]] || { echo "report-2624: $wcanalyze not built: run make" >&2; exit 1; }
command -v jq >/dev/null || { echo "report-2624: needs jq" >&2; exit 1; }
export WCANALYZE_DISKS=${WCANALYZE_DISKS:-$top/capture/disks}

work=$(mktemp -d "${TMPDIR:-/tmp}/wc2624.XXXXXX")
trap 'rm -rf "$work"' EXIT

# The report: 800 MB in 4,000 files on XFS, one run each (2008).
report_files=4000
declare -A report=([on,on]=124 [on,off]=51 [off,on]=95 [off,off]=69)

# shellcheck source=scripts/lib/samples.sh
source "$top/scripts/lib/samples.sh"
sample_archives report-2624 "$samples"

: >"$work/rows"
files=
for a in "${archives[@]}"; do
	# capture.conf as its one reader gives it (docs/json-format.md)
	"$wcanalyze" --format json "$a" >"$work/json" 2>"$work/err" || {
		echo "report-2624: $a: $(cat "$work/err")" >&2
		exit 1
	}
	jq -e '.captures[0] | .fs == "xfs" and .disk == "hdd7200" and
		.write_cache == true and .barrier == true' "$work/json" >/dev/null || continue
	f=$(jq -r '.captures[0].source_files // empty' "$work/json")
	[[ $f =~ ^[1-9][0-9]*$ ]] || { echo "report-2624: $a: no source_files" >&2; exit 1; }
	[[ -z $files || $files == "$f" ]] || { echo "report-2624: captures of different scales" >&2; exit 1; }
	files=$f
	"$wcanalyze" --format json --what-if kernel=2.6.24 \
		--what-if kernel=2.6.24,barrier=off --what-if kernel=2.6.24,cache=off \
		--what-if kernel=2.6.24,cache=off,barrier=off "$a" >"$work/json" 2>"$work/err" || {
		echo "report-2624: $a: $(cat "$work/err")" >&2
		exit 1
	}
	# captures[2..5]: the four what-ifs, in the order given
	jq -r '.captures[2:6] | to_entries[] | .value as $c |
		[(["on,on", "on,off", "off,on", "off,off"])[.key],
		 ([$c.phases[] | select(.name == "copy") | .wall_s][0] // "-"),
		 ($c.time_s | .flush + .journal + .metadata + .data_read +
		  .data_write + .discard + .other),
		 $c.requests.flush, $c.requests.journal] | map(tostring) | join("\t")' \
		"$work/json" >>"$work/rows"
done
[[ -s $work/rows ]] || { echo "report-2624: no hdd7200 XFS capture with cache and barriers on in $samples" >&2; exit 1; }

# The log reservations of a v4 XFS (the 2008 on-disk format) of the
# samples' image size: what one transaction may write to the log at
# most (logres x logcount; xfs_db prints them in struct xfs_trans_resv's
# order: tr_write 0, tr_create 6, tr_ichange 10).
res_write=- res_create=- res_ichange=-
if command -v mkfs.xfs >/dev/null && command -v xfs_db >/dev/null; then
	truncate -s 1312M "$work/img"
	if mkfs.xfs -q -f -m crc=0,finobt=0,rmapbt=0,reflink=0 -i size=256 "$work/img" >/dev/null 2>&1 &&
		xfs_db -r -c logres "$work/img" >"$work/logres" 2>/dev/null; then
		res() { awk -v t="$1" '$1 == "type" && $2 == t { print $4 * ($6 > 0 ? $6 : 1) }' "$work/logres"; }
		res_write=$(res 0) res_create=$(res 6) res_ichange=$(res 10)
	fi
	rm -f "$work/img"
fi

awk -F'\t' -v files="$files" -v rfiles="$report_files" \
	-v r_onon="${report[on,on]}" -v r_onoff="${report[on,off]}" \
	-v r_offon="${report[off,on]}" -v r_offoff="${report[off,off]}" \
	-v rw="$res_write" -v rc="$res_create" -v ri="$res_ichange" '
{ k = $1; n[k]++; copy[k] += $2; busy[k] += $3; fl[k] += $4; jr[k] += $5
  if (!(k in lo) || $2 < lo[k]) lo[k] = $2
  if (!(k in hi) || $2 > hi[k]) hi[k] = $2 }
function order(v, keys,   i, j, t, s, o) {
	for (i = 1; i <= 4; i++) o[i] = keys[i]
	for (i = 1; i <= 4; i++) for (j = i + 1; j <= 4; j++)
		if (v[o[j]] > v[o[i]]) { t = o[i]; o[i] = o[j]; o[j] = t }
	s = ""
	for (i = 1; i <= 4; i++) s = s (i > 1 ? " > " : "") name[o[i]]
	return s
}
END {
	split("on,on on,off off,on off,off", keys, " ")
	name["on,on"] = "cache on, barriers"; name["on,off"] = "cache on, nobarrier"
	name["off,on"] = "cache off, barriers"; name["off,off"] = "cache off, nobarrier"
	rep["on,on"] = r_onon; rep["on,off"] = r_onoff; rep["off,on"] = r_offon; rep["off,off"] = r_offoff
	scale = rfiles / files
	for (i = 1; i <= 4; i++) { k = keys[i]; m[k] = copy[k] / n[k]; b[k] = busy[k] / n[k] }
	printf "**The replay.**  %d run%s of hdd7200 XFS with the cache and barriers on\n", n["on,on"], (n["on,on"] > 1 ? "s" : "")
	printf "(the samples: %d files), each replayed under 2.6.24 ordering in the\n", files
	print "report'"'"'s four configurations (`wcanalyze --what-if kernel=2.6.24,...`);"
	print "copy: the replay'"'"'s copy phase, mean and range; scaled: times"
	if (scale == 1)
		print "1.00, the samples being the report'"'"'s tree;"
	else
		printf "%.2f, the report'"'"'s 4,000 files over the sample'"'"'s (linear in the files);\n", scale
	print "busy: the disk'"'"'s time; flushes and log writes: per run."
	print ""
	print "| configuration | the report, s | replay copy, s | range | scaled, s | busy, s | flushes | log writes drained |"
	print "| --- | ---: | ---: | --- | ---: | ---: | ---: | ---: |"
	for (i = 1; i <= 4; i++) {
		k = keys[i]
		split(k, cb, ",")
		printf "| %s | %d | %.3f | %.3f to %.3f | %.2f | %.3f | %.0f | %.0f |\n", name[k], rep[k],
			m[k], lo[k], hi[k], m[k] * scale, b[k], fl[k] / n[k], cb[2] == "on" ? jr[k] / n[k] : 0
	}
	print ""
	print "**Orderings and ratios.**"
	print ""
	printf "- the report, slowest first: %s;\n", order(rep, keys)
	printf "- the replay'"'"'s copy, slowest first: %s.\n", order(m, keys)
	print ""
	print "| ratio | what it isolates | the report | the replay | reproduced |"
	print "| --- | --- | ---: | ---: | --- |"
	pair("on,on", "on,off", "barriers with the cache on: drains and two flushes each")
	pair("off,on", "off,off", "barriers with the cache off: the drains alone")
	pair("off,off", "on,off", "the cache off without barriers")
	pair("on,on", "off,on", "the cache on with barriers")
	print ""
	jw = jr["on,on"] / n["on,on"]
	d = m["on,on"] - m["on,off"]
	print "**What today'"'"'s traces cannot give, bounded.**  2008'"'"'s XFS logged without"
	print "delayed logging, so it wrote more log buffers, each a barrier, than"
	print "today'"'"'s log writes that the replay drains."
	print ""
	printf "- Lower bound: today'"'"'s %.0f log writes a run under 2.6.24 ordering cost\n", jw
	printf "  %+.3f s of the copy (barriers against nobarrier, cache on), %+.2f s\n", d, d * scale
	printf "  scaled to 4,000 files, against the report'"'"'s %d s.\n", r_onon - r_onoff
	if (jw > 0 && rw != "-" && rc != "-" && ri != "-") {
		c = d / jw
		per = rc + rw + 3 * ri
		nlog = per * rfiles / 32768
		printf "- Upper bound: a transaction writes at most its log reservation\n"
		printf "  (logres x logcount of a v4 XFS of the sample'"'"'s size, `xfs_db -c logres`:\n"
		printf "  create %d, write %d, ichange %d bytes).  A copied file is a create,\n", rc, rw, ri
		printf "  a write allocation and three inode changes (`cp -a`: owner, mode,\n"
		printf "  times): at most %d bytes, so 4,000 files wrote at most %.0f log\n", per, nlog
		printf "  buffers of 32 KiB (`logbsize=32k`), each a barrier; at the replay'"'"'s\n"
		printf "  %.2f ms a barrier that is at most %.0f s, against the report'"'"'s %d s.\n", c * 1000, nlog * c, r_onon - r_onoff
		printf "  Reservations are worst cases (every btree split at once), so this\n"
		printf "  bound is loose; the 2008 cost lies between the two.\n"
	} else {
		print "- Upper bound: not computed here (no log write drained, or mkfs.xfs and"
		print "  xfs_db are not installed)."
	}
}
function pair(a, b, what,   rr, pr, ok) {
	rr = rep[a] / rep[b]; pr = m[b] > 0 ? m[a] / m[b] : 0
	ok = (rr > 1.05 && pr > 1.05) || (rr < 0.95 && pr < 0.95) || (rr >= 0.95 && rr <= 1.05 && pr >= 0.95 && pr <= 1.05)
	printf "| %s / %s | %s | %.2f | %.3f | %s |\n", name[a], name[b], what, rr, pr,
		ok ? (pr / rr > 0.5 && pr / rr < 2 ? "yes" : "in direction, not in size") : "no"
}' "$work/rows" >"$work/section"

if [[ -z $update ]]; then
	cat "$work/section"
	exit 0
fi
begin='<!-- report-2624: begin (scripts/report-2624.sh --update) -->'
end='<!-- report-2624: end -->'
put_between report-2624 "$update" "$begin" "$end" "$work/section"
