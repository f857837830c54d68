#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t86-one-read.sh - wcanalyze opens each INPUT once to read it (issue
# 45), counted under strace: a trace file in an analysis, a comparison,
# JSON and --dump; a capture archive, read in one pass on that open
# (--dump, a timeline and a bundle too), and with the scan's shortcut; a summary handed back, alone and beside
# a capture (told apart by the input's own peek, read on its
# descriptor); a capture folder, its ledger's copy read by its feeds
# alone (the JSON's ledger totals with them); --baseline, whose name
# comes from that reading.  The sandbox's O_PATH handles read
# nothing and are not counted.  A summary behind white space is still a
# summary; one where a trace is needed is a usage error; a summary on
# standard input is no trace, as before.  (--what-if: t54, check_whatif.)
# shellcheck source=tests/lib/common.sh
source "$(dirname "$0")/lib/common.sh"

command -v strace >/dev/null || fail "strace is missing (make deps)"
command -v jq >/dev/null || fail "jq is missing (make deps)"
export WCANALYZE_PLOTS=$TOP/plots
SAMPLE=$TOP/samples/hdd7200-ext4-cache-on-barrier-on-run2.tar.xz
NAME=hdd7200-ext4-cache-on-barrier-on-run2
[[ -e $SAMPLE ]] || fail "no $SAMPLE"
cd "$TMP"
tar -xJf "$SAMPLE"
cp "$NAME/trace/loop2.blktrace.0" one.bin
"$WCANALYZE" --format json "$SAMPLE" >sum.json

# opens PATH ARGS...: how often wcanalyze ARGS opens PATH to read it.
# LeakSanitizer does not work under ptrace (SANITIZE=1 builds): off for
# these runs only.
opens() {
	local path=$1
	shift
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
		strace -f -e trace=open,openat -o opens.log "$WCANALYZE" "$@" \
		>/dev/null 2>strace.err ||
		fail "wcanalyze $* under strace: $(tail -n 3 strace.err)"
	grep -F "\"$path\"" opens.log | grep -vc O_PATH || true
}
# once N PATH ARGS...: wcanalyze ARGS opens PATH to read it N times.
once() {
	local want=$1 path=$2 n
	shift 2
	n=$(opens "$path" "$@")
	[[ $n -eq $want ]] ||
		fail "wcanalyze $* opened $path $n times to read it, not $want: $(grep -F "\"$path\"" opens.log)"
	echo "ok: $* opens $path $n time(s)"
}

once 1 one.bin one.bin
once 1 one.bin --format json one.bin
once 1 one.bin --dump one.bin
once 1 sum.json sum.json
once 1 sum.json sum.json one.bin
once 1 one.bin sum.json one.bin
once 1 sum.json -j 1 --format csv sum.json one.bin
# A capture archive: libarchive's one pass on the peek's descriptor
# (its capture.conf names a model disk, whose ledger after the trace
# files is copied aside on the way: analysis.c, lim.once_model), in a
# report and the interval table.
once 1 "$SAMPLE" "$SAMPLE"
once 1 "$SAMPLE" --interval=1 "$SAMPLE"
# A timeline, a bundle's too: one pass, its copies read in the blocks
# of the handles they replace (the same lines in the same order:
# check_input), on the descriptor of the peek for a summary before
# anything is written (wcanalyze.c, check_before_writing()).
once 1 "$SAMPLE" --export-trace=t.json "$SAMPLE"
rm -f t.json
once 1 "$SAMPLE" -o bundle "$SAMPLE"
rm -rf bundle
once 1 one.bin --format trace-event one.bin "$SAMPLE"
# --dump: the members held or copied aside by that one pass, blkparse's
# names scouted on the copies (blknames.h), not on handles of their own.
once 1 "$SAMPLE" --dump "$SAMPLE"
# Without a model disk (no ledger), the scan's shortcut: its last trace
# file's reader reads on with the scan's handle, on that descriptor.
mkdir nomodel
cp -r "$NAME" nomodel/c
sed -i '/^disk_model/d; /^disk_regions/d' nomodel/c/capture.conf
rm nomodel/c/ledger.tsv
grep -q '^trace_files = 4$' nomodel/c/capture.conf || fail "$NAME announces no 4 trace files"
(cd nomodel && tar -cJf ../nomodel.tar.xz c/capture.conf c/phases.tsv \
	c/counters.tsv c/trace/loop1.blktrace.0 c/trace/loop1.blktrace.1 \
	c/trace/loop2.blktrace.0 c/trace/loop2.blktrace.1 c/info)
once 1 nomodel.tar.xz nomodel.tar.xz
once 1 nomodel.tar.xz --dump nomodel.tar.xz
once 1 nomodel.tar.xz --format trace-event nomodel.tar.xz
"$WCANALYZE" nomodel/c >folder.txt
"$WCANALYZE" nomodel.tar.xz >archive.txt
cmp -s folder.txt archive.txt ||
	fail "the shortcut's archive and its folder differ: $(show_diff folder.txt archive.txt 5 2>&1)"
# --baseline takes the name from the one reading: no open of its own.
once 1 one.bin --baseline "$NAME" one.bin "$SAMPLE"
n=$(opens "$SAMPLE" "$SAMPLE" one.bin)
once "$n" "$SAMPLE" --baseline "$NAME" "$SAMPLE" one.bin
# A capture folder: its trace/ folder is listed once, each file read once.
once 1 "$NAME/trace" "$NAME"
once 1 "$NAME/trace/loop2.blktrace.1" "$NAME"
once 1 "$NAME/ledger.tsv" "$NAME"

# The ledger is copied aside once, and the copy read by its feeds alone
# (one a region, and one for the disk of the regions: analysis.c), each
# from its start: the first feed reads on to the end for the JSON's
# ledger totals, no reading of its own.  A reading from the start is a
# pread at offset 0 (only copies aside are read by pread).
regions=$(sed -n 's/^disk_regions = //p' "$NAME/capture.conf" | wc -w)
[[ $regions -ge 2 ]] || fail "$NAME names fewer than two disk regions"
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
	strace -f -e trace=pread64 -o preads.log "$WCANALYZE" --format json "$NAME" \
	>ledger.json 2>strace.err || fail "the folder under strace: $(tail -n 3 strace.err)"
n=$(grep -c ', 0) = [1-9]' preads.log || true)
[[ $n -eq $((regions + 1)) ]] ||
	fail "the ledger's copy was read $n times from its start, not $((regions + 1)) (its feeds)"
jq -e '.captures[0].ledger.rows > 0' ledger.json >/dev/null ||
	fail "no ledger totals in the JSON"
echo "ok: the ledger read by its $n feeds, the totals with them"

# The summary behind white space is the summary: the same report.
"$WCANALYZE" sum.json >a.txt
{ printf ' \n\t\r%.0s' $(seq 200); cat sum.json; } >spaced.json
"$WCANALYZE" spaced.json >b.txt || fail "a summary behind white space: exit $?"
cmp -s a.txt b.txt || fail "a summary behind white space: $(show_diff a.txt b.txt 5)"
echo "ok: a summary behind white space"

# Where a trace is needed, a summary is a usage error, found where it
# is read.
for opt in --dump --btt --interval=1 --export-trace=t.json; do
	rc=0
	"$WCANALYZE" "$opt" one.bin sum.json >/dev/null 2>err.txt || rc=$?
	if [[ $rc -ne 2 ]] || ! grep -q "a summary (an INPUT beginning with '{') holds no trace" err.txt; then
		fail "$opt with a summary: exit $rc, $(cat err.txt)"
	fi
done
# A bundle or a timeline is written as the inputs are read: a summary
# among them is found first, by a peek, and nothing is written.
for args in "-o bundle" "--export-trace=t.json"; do
	rc=0
	# shellcheck disable=SC2086 # the option and its argument, split
	"$WCANALYZE" $args one.bin sum.json >out.txt 2>err.txt || rc=$?
	[[ $rc -eq 2 ]] || fail "$args with a summary: exit $rc, $(cat err.txt)"
	[[ ! -e bundle && ! -e t.json && ! -s out.txt ]] ||
		fail "$args with a summary: wrote $(ls -d bundle t.json 2>/dev/null) $(head -c 80 out.txt)"
done
echo "ok: a summary where a trace is needed"

# Standard input is a trace, never peeked at for a summary; white space
# alone is no summary.
rc=0
"$WCANALYZE" - <sum.json >/dev/null 2>err.txt || rc=$?
if [[ $rc -ne 2 ]] || ! grep -q "^wcanalyze: -: offset 0: not a blktrace trace" err.txt; then
	fail "a summary on standard input: exit $rc, $(cat err.txt)"
fi
printf '   \n\n' >white.txt
rc=0
"$WCANALYZE" white.txt >/dev/null 2>err.txt || rc=$?
if [[ $rc -ne 2 ]] || ! grep -q "^wcanalyze: white.txt: offset 0: not a trace or archive" err.txt; then
	fail "white space alone: exit $rc, $(cat err.txt)"
fi
# The peek reads white space up to a summary's bound (64 MiB), no more:
# past it, no summary.
{ head -c $((64 << 20)) /dev/zero | tr '\0' ' '; printf ' {}'; } >wide.json
rc=0
"$WCANALYZE" wide.json >/dev/null 2>err.txt || rc=$?
if [[ $rc -ne 2 ]] || ! grep -q "^wcanalyze: wide.json: offset 0: not a trace or archive" err.txt; then
	fail "64 MiB of white space before '{': exit $rc, $(cat err.txt)"
fi
rm wide.json
echo "ok: standard input and white space"
