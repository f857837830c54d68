#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t94-few-descriptors.sh - one capture spread over 48 per-CPU files is
# analysed under an open-file limit of fewer descriptors than files
# (`ulimit -n 32`, and WC_INPUT_FD_MIN, inputdefs.h) as without one: the
# text and JSON reports, the what-if and --dump, and what they say on
# standard error, of the folder and of its plain tar (members over
# 1 MiB, read through handles), byte for byte.
# The pool of handles shrinks to the limit (input.h), its streams closed
# and taken up again, each keeping a share of the records read ahead
# (streams.h): a file is reopened at most once per WC_INPUT_KEEP_MIN
# bytes of it, not per event, and the payload of a message waiting in
# the merge is set aside as its stream is closed (WC_INPUT_STASH_BIG).
# Two inputs read at once (-j 2) share the limit.  A merged "blkparse
# -d" file, and standard input, are one stream: read the same under the
# limit.  (One open per file where the limit has room: t86; --dump's
# names under a limit: t93.)  Before, the analysis stopped at the limit
# ("Too many open files").
# shellcheck source=tests/lib/common.sh
source "$(dirname "$0")/lib/common.sh"

CONV=$BUILD/tests/wctrace_convert
DEFS=$TOP/analyze/lib/input/inputdefs.h
export WCANALYZE_DISKS=$TOP/capture/disks
command -v strace >/dev/null || fail "strace is missing (make deps)"
command -v blkparse >/dev/null || fail "blkparse is missing (scripts/deps.sh installs it)"
define() { sed -n "s/^#define $1 *(\{0,1\}\([0-9]*\)u.*/\1/p" "$DEFS"; }
spare=$(define WC_INPUT_FD_SPARE)
keep_min=$(define WC_INPUT_KEEP_MIN)
[[ -n $spare && -n $keep_min ]] || fail "no WC_INPUT_FD_SPARE or WC_INPUT_KEEP_MIN in $DEFS"
keep_min=$((keep_min << 10))   # (64u << 10)
fd_min=$(sed -n 's/^#define WC_INPUT_FD_MIN *(WC_INPUT_FD_SPARE + \([0-9]*\)u)$/\1/p' "$DEFS")
[[ -n $fd_min ]] || fail "no WC_INPUT_FD_MIN in $DEFS"
fd_min=$((spare + fd_min))

cd "$TMP"
# 2 CPU files of about 25 MB, each spread over 24 CPUs: 48 files of
# over 1 MiB, more in all than the records closed streams may keep
# (WC_INPUT_KEEP_ALL), so that a stream with nothing kept would be
# reopened at each of its events; a message of 100 bytes after every
# third event, as a scheduler writes them, longer than the stash of a
# closed stream's waiting event (WC_INPUT_STASH): such a stream could
# not be closed, and a pool of a few handles failed as soon as each
# of its streams waited on one.
"$WCSYNTH" -c -n 70000 cap >/dev/null
parts=24
mkdir -p split/trace
cp cap/capture.conf cap/phases.tsv split/
for f in cap/trace/loop9.blktrace.*; do
	cpu=${f##*.}
	for ((k = 0; k < parts; k++)); do
		c=$((cpu * parts + k))
		"$CONV" --part "$k/$parts" --cpu "$c" --seq 0 --messages 3 \
			"$f" "split/trace/loop9.blktrace.$c"
	done
done
nfiles=$(find split/trace -name 'loop9.blktrace.*' | wc -l)
small=$(find split/trace -name 'loop9.blktrace.*' -size -1025k | wc -l)
[[ $nfiles -eq $((2 * parts)) && $small -eq 0 ]] ||
	fail "$nfiles files, $small of them under 1 MiB: not what the test needs"
tar -cf split.tar split
mkdir bp
cp split/trace/* bp/
blkparse -q -D bp -i loop9 -d merged -O >/dev/null
rm -r bp
[[ -s merged ]] || fail "blkparse -d wrote nothing"

# runs NAME: every reading of the capture, its outputs in NAME.*, what
# they say on standard error in NAME.err.
runs() {
	local n=$1
	{
		# (chained: errexit is off in a function called before ||)
		"$WCANALYZE" split >"$n.text" &&
			"$WCANALYZE" --format json split >"$n.json" &&
			"$WCANALYZE" --what-if disk=ssd split >"$n.whatif" &&
			"$WCANALYZE" --dump split | cksum >"$n.dump" &&
			"$WCANALYZE" split.tar >"$n.tar" &&
			"$WCANALYZE" --dump split.tar | cksum >"$n.tardump" &&
			"$WCANALYZE" merged >"$n.merged" &&
			"$WCANALYZE" - <merged >"$n.stdin" &&
			"$WCANALYZE" -j 2 split split.tar split >"$n.jobs"
	} 2>"$n.err"
}
runs free || fail "no limit: exit $?: $(head -3 free.err)"
for limit in 32 "$fd_min"; do
	[[ $limit -lt $nfiles ]] || fail "ulimit -n $limit holds the $nfiles files"
	rc=0
	(ulimit -n "$limit" && runs "l$limit") || rc=$?
	[[ $rc -eq 0 ]] || fail "ulimit -n $limit: exit $rc: $(head -3 "l$limit.err")"
	for out in err text json whatif dump tar tardump merged stdin jobs; do
		cmp -s "free.$out" "l$limit.$out" ||
			{ show_diff "free.$out" "l$limit.$out"; fail "ulimit -n $limit: $out differs"; }
	done
	echo "ok: $nfiles files under ulimit -n $limit: the same reports, dumps, what-if, -j 2"
done

# Opens of the trace files under the limit: one a file and one per share
# of its records kept, never less than WC_INPUT_KEEP_MIN bytes.
bytes=$(du -cb split/trace/* | tail -n 1 | cut -f 1)
most=$((nfiles + bytes / keep_min))
(ulimit -n 32 && ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
	strace -f -e trace=open,openat -o opens.log "$WCANALYZE" split >/dev/null 2>strace.err) ||
	fail "under strace: $(tail -n 3 strace.err)"
n=$(grep -c '"split/trace/loop9\.blktrace\.' opens.log || true)
[[ $n -ge $nfiles && $n -le $most ]] ||
	fail "ulimit -n 32: the $nfiles trace files opened $n times, not $nfiles to $most"
echo "ok: under ulimit -n 32, $n opens of $nfiles files ($((bytes >> 20)) MiB; at most $most)"
