#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# write-cache-table.sh - the measured tables of docs/write-cache.md,
# section 3, made from the captures in samples/ and what wcanalyze prints
# for them, so that no number in them is typed by hand.
#
#   scripts/write-cache-table.sh [--samples DIR] [--queue-depth | --report-table] [--update FILE]
#
# Prints the tables (Markdown) on standard output, or with --queue-depth
# the table of queue depth 1 against 32 (Table 6: each comparison's
# difference in the disk's busy time with its verdict, on a disk DISK-qd1
# and on DISK; --update takes it from DIR/queue-depth where that exists).  With --update, puts them into FILE instead, between the
# lines
#   <!-- write-cache-table: begin (scripts/write-cache-table.sh --update) -->
#   <!-- write-cache-table: end -->
# and Table 6 between
#   <!-- write-cache-queue-depth: begin (scripts/write-cache-table.sh --update) -->
#   <!-- write-cache-queue-depth: end -->
# where FILE has these (they are optional).  With --report-table, the
# report's four configurations beside the same four measured on the first
# lab disk (hdd7200), for XFS, ext3 and ext4 (README.md, samples/README.md);
# with --update, only that table, between
#   <!-- report-table: begin (scripts/write-cache-table.sh --report-table --update) -->
#   <!-- report-table: end -->
# tests/t47-write-cache-guide.sh regenerates them and fails when the page
# differs.
#
# Every capture of the lab matrix (capture.conf with fs, write_cache,
# barrier, as wcanalyze's JSON gives them) is used, grouped by disk
# (capture.conf disk_model; "loop" without one) and filesystem.  Each
# such set is analysed with one wcanalyze run whose baseline is its
# "cache on, barriers on" capture: the default mount, the report's
# 124 s.  The differences and the
# verdicts (real, no larger than X, not decided) are wcanalyze's own
# (docs/methodology.md, "Verdicts").
#
#   BUILD=DIR   where wcanalyze was built (default: build/)
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$top/build}
wcanalyze=$build/wcanalyze
samples=$top/samples
update=
print=main

usage() {
	echo "usage: write-cache-table.sh [--samples DIR] [--queue-depth | --report-table] [--update FILE]" >&2
	exit 2
}
while [[ $# -gt 0 ]]; do
	case $1 in
	--samples) [[ $# -ge 2 ]] || usage; samples=$2; shift 2 ;;
	--update) [[ $# -ge 2 ]] || usage; update=$2; shift 2 ;;
	--queue-depth) print=queue-depth; shift ;;
	--report-table) print='report-table'; shift ;;
	*) usage ;;
	esac
done
[[ -x $wcanalyze ]] || { echo "write-cache-table: $wcanalyze not built: run make" >&2; exit 1; }
command -v jq >/dev/null || { echo "write-cache-table: needs jq" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/wctable.XXXXXX")
trap 'rm -rf "$work"' EXIT

# The report's own copy times (2008, XFS, one run each), in the order of
# its configurations: cache on + barriers, cache on + nobarrier, cache
# off + barriers, cache off + nobarrier.  2m04s, 51 s, 1m35s, 1m09s.
declare -A report=([on,on]=124 [on,off]=51 [off,on]=95 [off,off]=69)

# shellcheck source=scripts/lib/samples.sh
source "$top/scripts/lib/samples.sh"
sample_archives write-cache-table "$samples"

: >"$work/index"
: >"$work/workloads"
for a in "${archives[@]}"; do
	capture_keys write-cache-table "$wcanalyze" "$a"
	fs=${cap[fs]} wc=${cap[cache]} bar=${cap[barrier]} disk=${cap[disk]}
	[[ $fs =~ ^(xfs|ext3|ext4)$ && $wc =~ ^(on|off)$ && $bar =~ ^(on|off)$ ]] || continue
	printf '%s\t%s\t%s\t%s\t%s\t%s\n' "${disk:-loop}" "$fs" "$wc" "$bar" "${cap[name]}" "$a" >>"$work/index"
	printf '%s\t%s\t%s\t%s\t%s\n' "${disk:-loop}" "${cap[lab_workload]}" \
		"${cap[source_files]:-?}" "${cap[source_bytes]:-?}" "${cap[kernel]:-?}" >>"$work/workloads"
done
[[ -s $work/index ]] || { echo "write-cache-table: no lab captures in $samples" >&2; exit 1; }

# Disks in a fixed order (the report's kind of disk first), then any other.
disks=()
for d in hdd7200 hdd7200-qd1 ssd ssd-plp loop $(cut -f1 "$work/index" | sort -u); do
	grep -q "^$d	" "$work/index" || continue
	[[ " ${disks[*]} " == *" $d "* ]] || disks+=("$d")
done

# One TSV row per configuration (disk, fs, cache, barrier) from the JSON of
# its disk and filesystem's comparison.  Group figures are wcanalyze's;
# copy and delete are the mean of the runs' phase walls; flush counts and
# FUA writes the runs' min and max.
# shellcheck disable=SC2016 # the $ are jq's variables, not the shell's
jq_rows='
def mean(f): (map(f) | add) / length;
def phase(n): [.phases[] | select(.name == n) | .wall_s][0];
def dmean(f): map([.phases[] | select(.name == "delete")][0] | f) | if any(. == null) then "-" else add / length end;
. as $r
| $r.groups[]
| . as $g
| [$r.captures[] | select(.group == $g.group)] as $c
| [ $c[0].fs, (if $c[0].write_cache then "on" else "off" end),
    (if $c[0].barrier then "on" else "off" end),
    $g.runs, ($g.captures | join(" ")),
    $g.figures_s.wall.mean, ($g.figures_s.wall.sd // "-"),
    ($c | map(phase("copy")) | if any(. == null) then "-" else add / length end),
    ($c | map(phase("delete")) | if any(. == null) then "-" else add / length end),
    $g.difference.wall_s,
    $g.difference.parts_s.flush, $g.difference.parts_s.journal,
    $g.difference.parts_s.metadata,
    ($g.difference.parts_s.data_read + $g.difference.parts_s.data_write),
    ($g.difference.parts_s.discard + $g.difference.parts_s.other),
    $g.difference.parts_s.off_device,
    $g.verdict, ($g.tests.busy.welch_t // "-"),
    ($c | map(.requests.flush) | min), ($c | map(.requests.flush) | max),
    ($c | mean(.time_s.flush)),
    ($c | map(.flush_d2c_s.p50) | if any(. == null) then "-" else add / length end),
    ($c | map(.fua_writes) | min), ($c | map(.fua_writes) | max),
    ($c | map(.requests.journal) | min), ($c | map(.requests.journal) | max),
    ($c | mean(.requests.data_write)),
    ($c | map(.bytes.data_write) | add) / ([($c | map(.requests.data_write) | add), 1] | max),
    $g.wall_verdict, ($g.tests.wall.welch_t // "-"),
    ($g.tests.busy.difference_s // 0),
    ($c | dmean(.requests.journal)), ($c | dmean(.bytes.journal)),
    ($c | dmean(.requests.flush)), ($c | dmean(.time_s.flush)),
    ($c | dmean(.requests.metadata)), ($c | dmean(.time_s.idle)),
    ([$r.groups[] | select(.tests.busy.verdict == "baseline") | .figures_s.busy.mean][0] // "-"),
    ($g.tests.busy.interval_s[0] // "-"), ($g.tests.busy.interval_s[1] // "-"),
    ($g.bound_s // "-"), ($g.tests.busy.runs_to_decide // "-"),
    ($g.tests.wall.runs_to_decide // "-"),
    ($c | map(phase("copy")) | if length < 2 or any(. == null) then "-"
          else (add / length) as $m | (map((. - $m) * (. - $m)) | add / (length - 1)) | sqrt end),
    ($c | map(.durable.destaged_bytes) | if any(. == null) then "-" else add / length end),
    ($c | map(.durable | if . == null then null else .durable_s - .returned_s end)
        | if any(. == null) then "-" else add / length end),
    ($g.difference.parts_s.destage_no_request // 0)
  ]
| map(tostring) | join("\t")'

: >"$work/rows"
: >"$work/pairs"
for d in "${disks[@]}"; do
	for fs in xfs ext3 ext4; do
		awk -F'\t' -v d="$d" -v fs="$fs" '$1 == d && $2 == fs' "$work/index" >"$work/set"
		[[ -s $work/set ]] || continue
		base=$(awk -F'\t' '$3 == "on" && $4 == "on" { print $5; exit }' "$work/set")
		[[ -n $base ]] || {
			echo "write-cache-table: $d $fs: no capture with cache on and barriers on, the baseline" >&2
			exit 1
		}
		mapfile -t files < <(cut -f6 "$work/set")
		"$wcanalyze" --format json --baseline "$base" "${files[@]}" >"$work/json" ||
			{ echo "write-cache-table: wcanalyze failed on $d $fs" >&2; exit 1; }
		jq -r "$jq_rows" "$work/json" | sed "s/^/$d	$base	/" >>"$work/rows"

		# The report's three subtractions, and the cache off with barriers
		# on (Table 6), each its own comparison of two configurations, so
		# that the difference, its parts and the verdict are
		# wcanalyze's: A minus B, B the baseline.
		for pair in on,on:on,off off,off:on,off off,on:off,off off,on:on,on; do
			a=${pair%:*} b=${pair#*:}
			mapfile -t files < <(awk -F'\t' -v a="$a" -v b="$b" \
				'$3 "," $4 == a || $3 "," $4 == b { print $6 }' "$work/set")
			base=$(awk -F'\t' -v b="$b" '$3 "," $4 == b { print $5; exit }' "$work/set")
			[[ -n $base ]] || continue
			awk -F'\t' -v a="$a" '$3 "," $4 == a { found = 1 } END { exit !found }' "$work/set" || continue
			"$wcanalyze" --format json --baseline "$base" "${files[@]}" >"$work/json" ||
				{ echo "write-cache-table: wcanalyze failed on $d $fs $a against $b" >&2; exit 1; }
			jq -r "$jq_rows" "$work/json" |
				awk -F'\t' -v a="$a" '$2 "," $3 == a' | sed "s/^/$d	$a:$b	/" >>"$work/pairs"
		done
	done
done

# capture name -> its archive's file name, for the links
awk -F'\t' '{ n = split($6, p, "/"); print $5 "\t" p[n] }' "$work/index" >"$work/files"

# Markdown.  Seconds with three decimals as the text report prints them; a
# part that is exactly zero prints as 0, as there.
awk_format='
function s(x) { return x == "-" ? "-" : sprintf("%.3f", x) }
function d(x) { return x == 0 ? "0" : sprintf("%+.3f", x) }
function ms(x) { return x == "-" ? "-" : sprintf("%.2f", x * 1000) }
function range(a, b) { return a == b ? a : a "-" b }
function one(x) { return x == "-" ? "-" : sprintf("%.1f", x) }
function kib(x) { return x == "-" ? "-" : sprintf("%.0f", x / 1024) }
# A verdict with what it excludes (docs/methodology.md, "Verdicts"): t
# Welch'"'"'s t, x the bound X, n the runs a side that would decide it.
function verdict(v, t, x, n) {
	if (v == "baseline") return "baseline"
	if (v == "real") return t == "-" ? "real (runs never vary)" : sprintf("real (t = %.2f)", t)
	if (v == "no_larger_than") return sprintf("no larger than ±%.3f s", x)
	if (v == "not_decided") {
		if (t == "-") return "not decided (one run a side)"
		if (n == "-") return sprintf("not decided (t = %.2f)", t)
		return sprintf("not decided (t = %.2f; %s runs a side would decide)", t, n > 1000 ? "over 1000" : n)
	}
	return v
}
# The verdicts of a row: on the disk'"'"'s busy time, with its difference,
# then the wall'"'"'s.
function verdicts(f) {
	if (f[19] == "baseline") return "baseline"
	return "disk " d(f[33]) " s: " verdict(f[19], f[20], f[43], f[44]) "; wall: " verdict(f[31], f[32], f[43], f[45])
}'
awk -F'\t' -v report_on_on="${report[on,on]}" -v report_on_off="${report[on,off]}" \
	-v report_off_on="${report[off,on]}" -v report_off_off="${report[off,off]}" "$awk_format"'
function links(names,   n, i, out, part) {
	n = split(names, part, " ")
	out = ""
	for (i = 1; i <= n; i++) {
		out = out (i > 1 ? ", " : "") "[" (part[i] ~ /-run[0-9]+$/ ? substr(part[i], match(part[i], /run[0-9]+$/)) : part[i]) "](../samples/" file[part[i]] ")"
	}
	return out
}
FILENAME == ARGV[1] { file[$1] = $2; next }
{
	key = $1 SUBSEP $3 SUBSEP $4 SUBSEP $5
	row[key] = $0
	base[$1 SUBSEP $3] = $2
	if (!($1 in seen)) { seen[$1] = 1; disks[++ndisks] = $1 }
}
END {
	nconf = split("on,on on,off off,on off,off", conf, " ")
	rep["on,on"] = report_on_on; rep["on,off"] = report_on_off
	rep["off,on"] = report_off_on; rep["off,off"] = report_off_off
	nfs = split("xfs ext3 ext4", fss, " ")

	print "**Table 1.**  Time per configuration: the mean of the runs (wall: the whole"
	print "capture, ± the runs'"'"' standard deviation; copy and delete: the phases)."
	print "The report'"'"'s column is its XFS copy time on a 2008 kernel (2.6.23/24) and disk."
	for (key in row) { split(key, kk, SUBSEP); if (kk[2] == "xfs" && kk[4] == "off") xfs_off = 1 }
	if (xfs_off) {
		print "XFS without barriers ran as `nobarrier` did before Linux 4.19 removed it:"
		print "the kernel was told the disk writes through, so it sent no flush and no"
		print "FUA, while the model disk kept its cache (capture.conf"
		print "`barrier_method = kernel-write-through`; section 2)."
	}
	print ""
	print "| disk | fs | write cache | barriers | runs | wall s | copy s | delete s | the report, s | captures | figure (`make demo`) |"
	print "| --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | --- | --- |"
	for (i = 1; i <= ndisks; i++) for (j = 1; j <= nfs; j++) {
		if (!((disks[i] SUBSEP fss[j]) in base)) continue
		for (k = 1; k <= nconf; k++) {
			split(conf[k], cb, ",")
			key = disks[i] SUBSEP fss[j] SUBSEP cb[1] SUBSEP cb[2]
			r = fss[j] == "xfs" ? rep[conf[k]] : "-"
			if (!(key in row)) {
				why = fss[j] == "xfs" && cb[2] == "off" ? "not applicable: XFS has no `nobarrier` since Linux 4.19 (section 2)" : "not recorded"
				printf "| %s | %s | %s | %s | 0 | - | - | - | %s | %s | |\n", disks[i], fss[j], cb[1], cb[2], r, why
				continue
			}
			keys[++nkeys] = key
			split(row[key], f, "\t")
			wall = s(f[8]) (f[9] == "-" ? "" : " ± " s(f[9]))
			printf "| %s | %s | %s | %s | %d | %s | %s | %s | %s | %s | `demo-report/%s/phases.png` |\n",
				disks[i], fss[j], cb[1], cb[2], f[6], wall, s(f[10]), s(f[11]), r,
				links(f[7]), substr(f[7], 1, index(f[7] " ", " ") - 1)
		}
	}

	print ""
	print "**Table 2.**  Where the difference went: each configuration'"'"'s mean wall"
	print "time minus that of the same disk and filesystem with the cache and"
	print "barriers on (wcanalyze `--baseline`, its difference attribution: the"
	print "parts sum to the difference), and the verdicts (Welch'"'"'s t-test): real"
	print "when the 95 % interval excludes 0, no larger than ±X when the 90 %"
	print "interval lies inside it (X = 5 % of the baseline'"'"'s mean wall), else not"
	print "decided, with the runs a side that would decide it at the spread seen;"
	print "whether the disk caused it, decided on the disk'"'"'s busy time (its"
	print "difference first), then the wall'"'"'s.  Seconds; data = data read + data"
	print "write; other = discard + other requests; destage = the drive destaging"
	print "its cache with no request (from its ledger); off device = time the disk"
	print "was idle."
	print ""
	print "| disk | fs | write cache | barriers | difference | flush | journal | metadata | data | other | destage | off device | verdicts |"
	print "| --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"
	for (n = 1; n <= nkeys; n++) {
		split(row[keys[n]], f, "\t")
		printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
			f[1], f[3], f[4], f[5], d(f[12]), d(f[13]), d(f[14]), d(f[15]),
			d(f[16]), d(f[17]), d(f[49]), d(f[18]), verdicts(f)
	}

	print ""
	print "**Table 3.**  Flushes: cache-flush requests that reached the disk (blkparse"
	print "`FN`) and their time, the median of their D2C, FUA writes and journal"
	print "writes (counts: the runs'"'"' range; times: the runs'"'"' mean), and the data"
	print "writes: how many (the runs'"'"' mean) and their mean size."
	print ""
	print "| disk | fs | write cache | barriers | flushes | flush s | flush median ms | FUA writes | journal writes | data writes | KiB each |"
	print "| --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
	for (n = 1; n <= nkeys; n++) {
		split(row[keys[n]], f, "\t")
		printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %.0f | %.0f |\n",
			f[1], f[3], f[4], f[5], range(f[21], f[22]), s(f[23]), ms(f[24]),
			range(f[25], f[26]), range(f[27], f[28]), f[29], f[30] / 1024
	}

	print ""
	print "**Table 5.**  The delete phase (`rm -rf` of the copied tree, then `sync`):"
	print "its wall time and what reached the disk in it, the mean of the runs:"
	print "journal writes and their KiB, cache flushes and their time, metadata"
	print "writes, and the time the disk was idle in the phase."
	print ""
	print "| disk | fs | write cache | barriers | delete s | journal writes | journal KiB | flushes | flush s | metadata writes | idle s |"
	print "| --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
	for (n = 1; n <= nkeys; n++) {
		split(row[keys[n]], f, "\t")
		printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
			f[1], f[3], f[4], f[5], s(f[11]), one(f[34]), kib(f[35]), one(f[36]),
			s(f[37]), one(f[38]), s(f[39])
	}
}' "$work/files" "$work/rows" >"$work/table"

# What was measured: the workloads and kernels the captures' capture.conf
# name, so that a reader compares like with like (the report copied 800 MB
# in 4,000 files).
{
	echo ""
	echo "Captures per disk, with their workload (capture.conf \`lab_workload\`,"
	echo "\`source_files\`, \`source_bytes\`) and kernel:"
	echo ""
	sort "$work/workloads" | uniq -c | awk '{
		printf "- %s: %d captures, workload %s, %s files, %.1f MB, Linux %s\n",
			$2, $1, ($3 == "" ? "?" : $3), $4, ($5 == "?" ? 0 : $5 / 1e6), $6 }'
} >>"$work/table"

# Table 4: the report's subtractions beside the same comparisons measured.
awk -F'\t' -v report_on_on="${report[on,on]}" -v report_on_off="${report[on,off]}" \
	-v report_off_on="${report[off,on]}" -v report_off_off="${report[off,off]}" "$awk_format"'
{ row[$1 SUBSEP $3 SUBSEP $2] = $0; if (!($1 in seen)) { seen[$1] = 1; disks[++ndisks] = $1 } }
END {
	rep["on,on"] = report_on_on; rep["on,off"] = report_on_off
	rep["off,on"] = report_off_on; rep["off,off"] = report_off_off
	np = split("on,on:on,off off,off:on,off off,on:off,off", pairs, " ")
	what["on,on:on,off"] = "what the flushes cost (barriers on, cache on)"
	what["off,off:on,off"] = "what the cache saves when nothing flushes it"
	what["off,on:off,off"] = "what barriers cost with the cache off"
	nfs = split("xfs ext3 ext4", fss, " ")
	print ""
	print "**Table 4.**  The report'"'"'s three subtractions (section 1), each measured"
	print "as its own comparison: the first configuration'"'"'s mean wall time minus"
	print "the second'"'"'s (wcanalyze `--baseline` on the second), split as in"
	for (key in row) { split(key, kk, SUBSEP); if (kk[2] == "xfs") xfs_rows = 1 }
	if (xfs_rows) {
		print "Table 2.  The report'"'"'s column is its XFS copy times; the measured ones"
		print "are whole captures (copy and delete)."
	} else {
		print "Table 2.  XFS has no row: each subtraction needs `nobarrier`.  The"
		print "report'"'"'s column is its XFS copy times; the measured ones are whole"
		print "captures (copy and delete)."
	}
	print ""
	print "| disk | fs | subtraction | what it isolates | the report, s | measured, s | flush | journal | metadata | data | other | destage | off device | verdicts |"
	print "| --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"
	for (i = 1; i <= ndisks; i++) for (j = 1; j <= nfs; j++) for (k = 1; k <= np; k++) {
		key = disks[i] SUBSEP fss[j] SUBSEP pairs[k]
		if (!(key in row)) continue
		split(row[key], f, "\t")
		split(pairs[k], ab, ":")
		printf "| %s | %s | (cache %s, barriers %s) - (cache %s, barriers %s) | %s | %+d | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
			disks[i], fss[j], substr(ab[1], 1, index(ab[1], ",") - 1), substr(ab[1], index(ab[1], ",") + 1),
			substr(ab[2], 1, index(ab[2], ",") - 1), substr(ab[2], index(ab[2], ",") + 1),
			what[pairs[k]], rep[ab[1]] - rep[ab[2]], d(f[12]), d(f[13]), d(f[14]), d(f[15]),
			d(f[16]), d(f[17]), d(f[49]), d(f[18]), verdicts(f)
	}
}' "$work/pairs" >>"$work/table"

# Table 6: queue depth 1 against 32, from the same pairs, on each disk
# DISK-qd1 beside DISK.  A share is the difference over B's busy time, so
# that two scales of the workload compare.
awk -F'\t' "$awk_format"'
FILENAME == ARGV[1] { files[$1] = $3; mb[$1] = $4 / 1e6; next }
{ row[$1 SUBSEP $3 SUBSEP $2] = $0; seen[$1] = 1 }
function share(x, b) { return x == "-" || b == "-" || b == 0 ? "-" : sprintf("%+.1f %%", 100 * x / b) }
function cell(key,   f) {
	if (!(key in row)) return "| - | - | not recorded "
	split(row[key], f, "\t")
	return sprintf("| %s (%s to %s) | %s | %s ", d(f[33]), d(f[41]), d(f[42]), share(f[33], f[40]),
		verdict(f[19], f[20], f[43], f[44]))
}
END {
	np = split("on,on:on,off off,on:on,on off,off:on,off off,on:off,off", pairs, " ")
	what["on,on:on,off"] = "barriers, with the cache on"
	what["off,on:on,on"] = "the cache off, with barriers on"
	what["off,off:on,off"] = "the cache off, without barriers"
	what["off,on:off,off"] = "barriers, with the cache off"
	nfs = split("xfs ext3 ext4", fss, " ")
	for (q in seen) {
		if (q !~ /-qd1$/) continue
		base = substr(q, 1, length(q) - 4)
		if (!(base in seen)) continue
		printf "**Table 6.**  Queue depth 1 against 32: the same comparisons on `%s`\n", q
		printf "(one command at a time) and on `%s` (32 queued), each its own\n", base
		print "wcanalyze `--baseline` run (A minus B, B the baseline): the difference in"
		print "the disk'"'"'s busy time with its 95 % interval, its share of B'"'"'s busy time,"
		print "and the verdict (Welch'"'"'s t-test: real, no larger than ±X, or not decided)."
		if (files[q] == files[base] && mb[q] == mb[base])
			printf "Both were recorded with the same workload (%s files, %.1f MB).\n", files[q], mb[q]
		else {
			print "The two were recorded at different"
			printf "scales (`%s`: %s files, %.1f MB; `%s`: %s files, %.1f MB): compare the\n", q, files[q], mb[q], base, files[base], mb[base]
			print "shares and verdicts, not the seconds."
		}
		print ""
		printf "| fs | comparison | what it isolates | %s: disk s (95 %%) | share | verdict | %s: disk s (95 %%) | share | verdict |\n", q, base
		print "| --- | --- | --- | ---: | ---: | --- | ---: | ---: | --- |"
		for (j = 1; j <= nfs; j++) for (k = 1; k <= np; k++) {
			k1 = q SUBSEP fss[j] SUBSEP pairs[k]; k2 = base SUBSEP fss[j] SUBSEP pairs[k]
			if (!(k1 in row) && !(k2 in row)) continue
			split(pairs[k], ab, ":")
			printf "| %s | (cache %s, barriers %s) - (cache %s, barriers %s) | %s %s%s|\n", fss[j],
				substr(ab[1], 1, index(ab[1], ",") - 1), substr(ab[1], index(ab[1], ",") + 1),
				substr(ab[2], 1, index(ab[2], ",") - 1), substr(ab[2], index(ab[2], ",") + 1),
				what[pairs[k]], cell(k1), cell(k2)
		}
	}
}' <(sort -u "$work/workloads") "$work/pairs" >"$work/qd"

# The report's table: its four XFS copy times beside the four measured
# here on the first disk (the report's kind, hdd7200), for each
# filesystem, with what the drive's cache still held after the last sync and
# the verdicts against the default (cache and barriers on).
awk -F'\t' -v report_on_on="${report[on,on]}" -v report_on_off="${report[on,off]}" \
	-v report_off_on="${report[off,on]}" -v report_off_off="${report[off,off]}" \
	-v disk="${disks[0]}" "$awk_format"'
FILENAME == ARGV[1] { if ($1 == disk) { files = $3; mb = $4 / 1e6; kernel = $5 }; next }
$1 == disk { row[$3 SUBSEP $4 SUBSEP $5] = $0 }
function mmss(x) { return x >= 60 ? sprintf("%dm%02ds", int(x / 60), x % 60) : x " s" }
END {
	nconf = split("on,on on,off off,on off,off", conf, " ")
	rep["on,on"] = report_on_on; rep["on,off"] = report_on_off
	rep["off,on"] = report_off_on; rep["off,off"] = report_off_off
	name["on,on"] = "cache on, barriers (the default)"
	name["on,off"] = "cache on, `nobarrier`"
	name["off,on"] = "cache off, barriers"
	name["off,off"] = "cache off, `nobarrier`"
	nfs = split("xfs ext3 ext4", fss, " ")
	printf "The report (XFS, Fedora 8, 2.6.23/24, 2008) beside the same four\n"
	printf "configurations on `%s` (%s files, %.1f MB, Linux %s): the copy (`cp -a`\n", disk, files, mb, kernel
	print "then `sync`), mean ± standard deviation of the runs; what the drive still"
	print "held in its cache after the run'"'"'s last `sync` (destaged by the lab before the"
	print "capture ended, so counted); and the verdicts against the same filesystem'"'"'s"
	print "default, first on the disk'"'"'s busy time, then on the wall (real, no larger"
	print "than ±X, or not decided: docs/methodology.md)."
	print ""
	print "| configuration | the report | fs | runs | copy s | left in the cache, MB | against the default |"
	print "| --- | ---: | --- | ---: | ---: | ---: | --- |"
	for (k = 1; k <= nconf; k++) for (j = 1; j <= nfs; j++) {
		split(conf[k], cb, ",")
		key = fss[j] SUBSEP cb[1] SUBSEP cb[2]
		r = fss[j] == "xfs" ? mmss(rep[conf[k]]) : ""
		if (!(key in row)) {
			printf "| %s | %s | %s | 0 | not recorded | | |\n", name[conf[k]], r, fss[j]
			continue
		}
		split(row[key], f, "\t")
		printf "| %s | %s | %s | %d | %s%s | %s | %s |\n", name[conf[k]], r, fss[j], f[6],
			s(f[10]), f[46] == "-" ? "" : " ± " s(f[46]),
			f[47] == "-" ? "-" : sprintf("%.1f", f[47] / 1e6), verdicts(f)
	}
}' <(sort -u "$work/workloads") "$work/rows" >"$work/report"

if [[ $print == report-table ]]; then
	if [[ -z $update ]]; then
		cat "$work/report"
		exit 0
	fi
	rbegin='<!-- report-table: begin (scripts/write-cache-table.sh --report-table --update) -->'
	rend='<!-- report-table: end -->'
	has_markers write-cache-table "$update" "$rbegin" "$rend"
	cp "$update" "$work/page"
	put_between write-cache-table "$work/page" "$rbegin" "$rend" "$work/report"
	cat "$work/page" >"$update"
	exit 0
fi

if [[ -z $update ]]; then
	if [[ $print == queue-depth ]]; then
		cat "$work/qd"
	else
		cat "$work/table"
	fi
	exit 0
fi

begin='<!-- write-cache-table: begin (scripts/write-cache-table.sh --update) -->'
end='<!-- write-cache-table: end -->'
has_markers write-cache-table "$update" "$begin" "$end"
cp "$update" "$work/page"
put_between write-cache-table "$work/page" "$begin" "$end" "$work/table"
qbegin='<!-- write-cache-queue-depth: begin (scripts/write-cache-table.sh --update) -->'
qend='<!-- write-cache-queue-depth: end -->'
if [[ $(grep -cxF "$qbegin" "$update") -eq 1 && $(grep -cxF "$qend" "$update") -eq 1 ]]; then
	# Table 6's captures are a matrix of their own (one scale, both queue
	# depths) in DIR/queue-depth, where there is one.
	if [[ -d $samples/queue-depth ]]; then
		bash "$0" --samples "$samples/queue-depth" --queue-depth >"$work/qd"
	fi
	put_between write-cache-table "$work/page" "$qbegin" "$qend" "$work/qd"
fi
cat "$work/page" >"$update"
