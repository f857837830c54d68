#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t10-dump-fixtures.sh - "wcanalyze --dump" prints the same event lines as
# "blkparse -i" for the recorded fixtures and for traces derived from them:
# the other byte order, remap, split and notify records (process names,
# messages, timestamp), sequence numbers, several devices in a directory.
# v8 records (blkparse 1.2 cannot read them) and cgroup-flagged events
# (blkparse 1.2 rejects them as "Bad fs action") must dump exactly as the
# v7 trace they were made from.
# shellcheck source=tests/lib/common.sh
source "$(dirname "$0")/lib/common.sh"

CONV=$BUILD/tests/wctrace_convert
FIX=$TOP/tests/fixtures/reader
command -v blkparse >/dev/null || fail "blkparse is missing (scripts/deps.sh installs it)"

# blkparse's event lines: -q drops the closing summary; the "Input file"
# lines are about files, not events.
bp() { blkparse -q "$@" | grep -v '^Input file '; }

same() {   # same NAME EXPECTED ACTUAL
	cmp -s "$2" "$3" || { show_diff "$2" "$3"; fail "$1: dump differs"; }
	[[ -s $3 ]] || fail "$1: empty dump"
}

# derive OUTBASE OPTIONS... : converts every CPU file of the ext4 fixture
derive() {
	local out=$1 f cpu
	shift
	for f in "$FIX"/ext4/loop1.blktrace.*; do
		cpu=${f##*.}
		"$CONV" "$@" "$f" "$out.blktrace.$cpu"
	done
}

cd "$TMP"
for fs in ext4 xfs ext3; do
	bp -D "$FIX/$fs" -i loop1 >"bp-$fs"
	"$WCANALYZE" --dump "$FIX/$fs/loop1" >"wc-$fs"
	same "$fs base name" "bp-$fs" "wc-$fs"
	"$WCANALYZE" --dump "$FIX/$fs" >"wc-$fs-dir"
	same "$fs directory" "bp-$fs" "wc-$fs-dir"
	"$WCANALYZE" --dump "$FIX/$fs/loop1.blktrace.0" >"wc-$fs-file"
	same "$fs per-CPU file name" "bp-$fs" "wc-$fs-file"
done
# tracefs records: sequence 0, no process notify records, names "(null)"
grep -q '        0 .*\[(null)\]$' wc-ext4 || fail "tracefs records should show sequence 0 and (null)"

# Each derived trace against blkparse on the same files.
i=0
for opts in "--swap" "--notify" "--notify --swap" "--remap 8:0:2048" \
	"--remap 259:3:100 --swap" "--split" "--seq 0" "--seq 5" \
	"--notify --remap 8:16:63 --split --seq 0 --swap"; do
	i=$((i + 1))
	# shellcheck disable=SC2086 # options are words on purpose
	derive "d$i" $opts
	bp -i "d$i" >"bp-d$i"
	"$WCANALYZE" --dump "d$i" >"wc-d$i" 2>"err-d$i"
	same "derived ($opts)" "bp-d$i" "wc-d$i"
done
grep -q ' A ' wc-d4 || fail "no remap lines in the remap trace"
grep -q ' <- (8,0) ' wc-d4 || fail "remap origin not shown"
grep -q ' X ' wc-d6 || fail "no split lines"
grep -q '\[proc-' wc-d2 || fail "process names from notify records not used"
grep -q ' m   N wctrace_convert was here$' wc-d2 || fail "message notify not shown"
grep -q 'events missing (sequence gaps)' err-d8 || fail "sequence gaps not reported"
[[ ! -s err-d7 ]] || fail "gaps reported where there are none: $(cat err-d7)"
# Gaps and a bad record together: the line that says why the dump stopped
# comes last, where a user (and t17) looks for it.
cp d8.blktrace.0 cut.blktrace.0
truncate -s -20 cut.blktrace.0
rc=0
"$WCANALYZE" --dump cut >/dev/null 2>err-cut || rc=$?
[[ $rc -eq 2 ]] || fail "gaps plus a truncated record: exit $rc"
grep -q 'events missing (sequence gaps)' err-cut || fail "gaps not reported with the truncation: $(cat err-cut)"
tail -n 1 err-cut | grep '^wcanalyze: cut\.blktrace\.0: offset [0-9]*: truncated record' ||
	fail "the truncation is not the last line: $(cat err-cut)"

# v8 and cgroup: same lines as the v7 original.
derive v8 --v8
derive v8s --v8 --swap
derive cg --cgroup 0x1234
derive cgs --cgroup 77 --swap --v8
for t in v8 v8s cg cgs; do
	"$WCANALYZE" --dump "$t" >"wc-$t"
	same "$t" bp-ext4 "wc-$t"
done

# Several devices in one directory: blkparse -D DIR -i each device, in
# name order.
mkdir md
cp "$FIX"/ext4/* md/
for f in "$FIX"/xfs/loop1.blktrace.*; do
	"$CONV" --device 7:2 "$f" "md/loop2.blktrace.${f##*.}"
done
for f in "$FIX"/ext3/loop1.blktrace.*; do
	"$CONV" --device 8:16 --seq 0 "$f" "md/sdb.blktrace.${f##*.}"
done
bp -D md -i loop1 -i loop2 -i sdb >bp-md
"$WCANALYZE" --dump md >wc-md
same "three devices" bp-md wc-md

# Ties everywhere: the same trace as three devices, every time thrice.
# (One byte order for all: blkparse decides it once, from the first file.)
mkdir ties
cp "$FIX"/ext4/* ties/
for f in "$FIX"/ext4/loop1.blktrace.*; do
	"$CONV" --device 7:2 --notify "$f" "ties/loop2.blktrace.${f##*.}"
	"$CONV" --device 7:0 --seq 0 "$f" "ties/loop0.blktrace.${f##*.}"
done
bp -D ties -i loop0 -i loop1 -i loop2 >bp-ties
"$WCANALYZE" --dump ties >wc-ties
same "equal times across devices" bp-ties wc-ties

# One merged file as "blkparse -d" writes it, by name and on stdin.
blkparse -q -D md -i loop1 -i loop2 -i sdb -d merged.bin -O >/dev/null
"$WCANALYZE" --dump merged.bin >wc-merged
same "merged file" bp-md wc-merged
"$WCANALYZE" --dump - <merged.bin >wc-stdin
same "standard input" bp-md wc-stdin

# One pid, several names: each CPU file names its pids itself ("a-PID",
# "b-PID"), and not from its start, so that the name blkparse prints
# depends on which of its 512-record batches it read first (issue 8).
for fs in ext3 ext4 xfs; do
	mkdir "names-$fs"
	"$CONV" --names a --names-after 60 "$FIX/$fs/loop1.blktrace.0" "names-$fs/loop1.blktrace.0"
	"$CONV" --names b --names-after 30 "$FIX/$fs/loop1.blktrace.1" "names-$fs/loop1.blktrace.1"
	bp -D "names-$fs" -i loop1 >"bp-names-$fs"
	grep -q '\[b-' "bp-names-$fs" || fail "$fs: no event named from CPU 1"
	"$WCANALYZE" --dump "names-$fs" >"wc-names-$fs"
	same "$fs, several names a pid" "bp-names-$fs" "wc-names-$fs"
	tar czf "names-$fs.tar.gz" "names-$fs"
	"$WCANALYZE" --dump "names-$fs.tar.gz" >"wc-names-$fs-tgz"
	same "$fs, several names a pid, tar.gz" "bp-names-$fs" "wc-names-$fs-tgz"
	blkparse -q -D "names-$fs" -i loop1 -d "names-$fs.bin" -O >/dev/null
	"$WCANALYZE" --dump "names-$fs.bin" >"wc-names-$fs-bin"
	same "$fs, several names a pid, merged file" "bp-names-$fs" "wc-names-$fs-bin"
done
# Batches after the first: a synthetic trace of about 2,400 records per
# CPU, named from the middle on.
"$WCSYNTH" -n 300 syn >/dev/null
mkdir names-syn
"$CONV" --names a --names-after 1500 syn.blktrace.0 names-syn/s.blktrace.0
"$CONV" --names b --names-after 900 syn.blktrace.1 names-syn/s.blktrace.1
bp -D names-syn -i s >bp-names-syn
grep -q '\[b-' bp-names-syn || fail "synthetic: no event named from CPU 1"
grep -q '\[(null)\]' bp-names-syn || fail "synthetic: no event before its name"
"$WCANALYZE" --dump names-syn >wc-names-syn
same "synthetic, several names a pid" bp-names-syn wc-names-syn
tar czf names-syn.tar.gz names-syn
"$WCANALYZE" --dump names-syn.tar.gz >wc-names-syn-tgz
same "synthetic, several names a pid, tar.gz" bp-names-syn wc-names-syn-tgz

# A single stream as "blkparse -i -" prints it (reorder.h): 512 events at a
# time, sorted by (time, device, sequence), events equal in all three last
# read first, and once a (device, CPU) sequence number does not follow
# (gaps; the 0 of tracefs records) everything to the end held and sorted.
# blkparse takes a file's first time 0 (every "blkparse -d" file) for no
# genesis yet and shifts the times of later batches: the merged files are
# moved one second on (--shift) to compare their lines whole.  CPU 1 is
# a copy of CPU 0 (--cpu), so every event of CPU 0 has a twin equal in
# time, device and sequence; CPU 2 ties with CPU 0 across batch ends.
stream_vs_blkparse() {   # stream_vs_blkparse NAME DIR BASE
	blkparse -q -D "$2" -i "$3" -d "$1.bin0" -O >/dev/null 2>&1
	"$CONV" --shift 1000000000 "$1.bin0" "$1.bin"
	blkparse -q -i - <"$1.bin" 2>/dev/null | grep -v '^Input file ' >"bp-$1" || true
	[[ $(wc -l <"bp-$1") -gt 2000 ]] || fail "$1: blkparse printed too little"
	"$WCANALYZE" --dump "$1.bin" >"wc-$1" 2>/dev/null
	same "$1, merged file against blkparse -i -" "bp-$1" "wc-$1"
	"$WCANALYZE" --dump - <"$1.bin" >"wc-$1-stdin" 2>/dev/null
	same "$1, standard input against blkparse -i -" "bp-$1" "wc-$1-stdin"
}
stream_vs_blkparse names-stream names-syn s
for seq in keep 0 50; do
	opts=()
	[[ $seq == keep ]] || opts=(--seq "$seq")
	mkdir "twins-$seq"
	"$CONV" "${opts[@]}" syn.blktrace.0 "twins-$seq/t.blktrace.0"
	"$CONV" "${opts[@]}" --cpu 1 syn.blktrace.0 "twins-$seq/t.blktrace.1"
	"$CONV" "${opts[@]}" --cpu 2 syn.blktrace.1 "twins-$seq/t.blktrace.2"
	stream_vs_blkparse "twins-$seq" "twins-$seq" t
done
echo "ok: $(wc -l <bp-md) lines across 3 devices, $i derived traces, several names a pid, single streams as blkparse -i - prints them"
