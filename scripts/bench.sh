#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench.sh - speed and memory benchmarks ("make bench").  Never part of
# "make check": numbers depend on the machine.  Each step prints its own
# line; a summary table closes the run.  docs/performance.md has the
# numbers of one run and says what they mean.
#
# Every trace shape is BENCH_EVENTS long and read in every form a user
# may hand over: per-CPU files, one merged "blkparse -d" file, that file
# on standard input, and the per-CPU capture inside a tar.zst and a
# tar.gz.  btt and blkparse run on the same trace in the same run, so
# the ratios in the summary compare like with like.
#
# Scale with environment variables (defaults: about 10 minutes on a
# quiet 2-core machine, 3 GB in $TMPDIR):
#   BENCH_EVENTS=10000000   events of every shape
#   BENCH_SHAPES="capture_gen wcsynth fixture-xfs sample-hdd7200-xfs-cache-on-barrier-on-run1 merge-heavy"
#                       capture_gen: bench/capture_gen (ext4-like, load);
#                       wcsynth: tests/wcsynth's disk model;
#                       fixture-NAME: tests/fixtures/reader/NAME,
#                       sample-NAME: samples/NAME.tar.xz, and
#                       merge-heavy: bench/merge-heavy-xfs.tar.xz (many
#                       small files copied onto XFS, 8.6 bios merged to a
#                       request: bench/record-merge-heavy.sh), recorded
#                       captures repeated in time by bench/replicate
#   BENCH_MERGE_EVENTS=12000000  events of the merge-heavy shape
#   BENCH_BTT=1         0 skips blkparse and btt
#   BENCH_ARCHIVES=1    0 skips the tar.zst and tar.gz forms
#   BENCH_BIG_EVENTS=100000000  events of the longest trace, streamed on
#                       standard input (memory must not grow); 0 skips
#   BENCH_BUNDLE=1      0 skips the bundle of the first shape
#   BENCH_JOBS=2        -j of the many-inputs runs (against -j 1)
#   BENCH_OVERLOAD_EVENTS=1000000  a wcsynth capture whose disk is slower
#                       than its workload (queues reach the caps); 0 skips
#   BENCH_MEMBERS="1000 10000 100000"  one-record members of the
#                       many-member archives; "" skips
#   BENCH_LARGE_MEMBERS=200  members of 1.2 MB (25,000 records) each,
#                       interleaved in time, in one tar.zst: more than
#                       the open handles, so most are copied aside; 0 skips
#   BENCH_SUMMARIES="10 100 1000"  summaries compared at once (the
#                       reduce of a fleet, -j 1): copies of two
#                       samples' summaries under new names; "" skips
#   BENCH_REPLAY_REQUESTS=4000000  requests of the what-if replay's run
#   BENCH_COMPARE=PATH  another build's wcanalyze (say, of the commit
#                       before a change) run beside this one on the
#                       plain forms of every shape, rows "… (compare)",
#                       and its reports compared with this one's
#   BENCH_REPEAT=3      runs of each command, the least time counts
#   BENCH_REF_REPEAT=1  the same for blkparse and btt (ten times as slow)
#   BENCH_TARGET_RUNS=5 runs of each side of issue 45's targets, taken in
#                       turn (A B A B ...), medians of CPU time: the
#                       "targets" table at the end, load beside each row;
#                       0 skips (needs BENCH_BTT=1 for the btt rows)
#   BENCH_THREADS_EVENTS=10000000  shapes of at least this many events
#                       also get the target of two threads against one
#                       (--threads 2 against --threads 1, wall time, in
#                       turn, per-CPU files and the merged file)
#   BENCH_ONLY=dump     only the target of --dump against blkparse -i on
#                       every shape's per-CPU files, then the targets
#                       table (needs blkparse; BENCH_TARGET_RUNS applies)
#   BENCH_ONLY=threads  only the targets of two threads against one on
#                       every shape (needs blkparse for the merged file)
#   BENCH_ONLY=targets  only the two 10x targets on every shape: the
#                       merged file's json against btt, --dump against
#                       blkparse -i; with BENCH_COMPARE, the other
#                       build's json against btt too, in the same turns
set -euo pipefail

: "${BUILD:?BUILD must name the build directory}"
top=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/wcbench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cd "$top"

events=${BENCH_EVENTS:-10000000}
shapes=${BENCH_SHAPES:-capture_gen wcsynth fixture-xfs sample-hdd7200-xfs-cache-on-barrier-on-run1 merge-heavy}
merge_events=${BENCH_MERGE_EVENTS:-12000000}
with_btt=${BENCH_BTT:-1}
with_archives=${BENCH_ARCHIVES:-1}
big=${BENCH_BIG_EVENTS:-100000000}
with_bundle=${BENCH_BUNDLE:-1}
jobs=${BENCH_JOBS:-2}
overload=${BENCH_OVERLOAD_EVENTS:-1000000}
repeat=${BENCH_REPEAT:-3}
ref_repeat=${BENCH_REF_REPEAT:-1}
wc=$BUILD/wcanalyze
compare=${BENCH_COMPARE:-}
summary=$tmp/summary
target_runs=${BENCH_TARGET_RUNS:-5}
targets=$tmp/targets
: >"$targets"
threads_events=${BENCH_THREADS_EVENTS:-10000000}
only=${BENCH_ONLY:-}
[[ -z $only || $only == dump || $only == threads || $only == targets ]] || {
	echo "bench: BENCH_ONLY=$only: only 'dump', 'threads' and 'targets' are known" >&2
	exit 2
}

[[ -x /usr/bin/time ]] || {
	echo "bench: /usr/bin/time missing (Debian package time): make deps" >&2
	exit 1
}

# measure SHAPE LABEL EVENTS CMD...: wall and CPU time and peak RSS of
# CMD (its output thrown away), one line now and one row of the summary.
# Peak RSS is the largest of CMD and the children it waited for.  CMD
# runs $repeat times and the least wall and CPU time count: on a shared
# machine the other loads only ever add time.
measure() {
	local shape=$1 label=$2 n=$3 wall user sys rss cpu k
	local bwall="" bcpu="" brss=0
	shift 3
	for ((k = 0; k < repeat; k++)); do
		/usr/bin/time -o "$tmp/time" -f '%e %U %S %M' "$@" >/dev/null
		read -r wall user sys rss <"$tmp/time"
		cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
		[[ -z $bwall ]] || awk -v a="$wall" -v b="$bwall" 'BEGIN { exit !(a < b) }' && bwall=$wall
		[[ -z $bcpu ]] || awk -v a="$cpu" -v b="$bcpu" 'BEGIN { exit !(a < b) }' && bcpu=$cpu
		((rss > brss)) && brss=$rss
	done
	printf 'bench: %s: %s: %s s (cpu %s s), peak RSS %s KiB\n' \
		"$shape" "$label" "$bwall" "$bcpu" "$brss"
	printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$shape" "$label" "$n" "$bwall" \
		"$bcpu" "$brss" >>"$summary"
}

# reference SHAPE LABEL EVENTS CMD...: measure for the slow tools compared
# with (blkparse, btt), $ref_repeat times.
reference() {
	local repeat=$ref_repeat
	measure "$@"
}

# events_of INPUT: events the analysis read (and the page cache warmed).
events_of() {
	"$wc" --format json "$1" | sed -n 's/^ *"events": \([0-9]*\),$/\1/p' | sed -n 1p
}

# replicate_capture ARCHIVE EVENTS DIR: the recorded capture ARCHIVE
# (NAME.tar.xz holding NAME/) repeated in time to EVENTS events in DIR.
replicate_capture() {
	local archive=$1 n=$2 dir=$3 name src
	name=${archive##*/}
	name=${name%.tar.xz}
	mkdir -p "$tmp/unpack"
	tar -xf "$archive" -C "$tmp/unpack"
	src=$tmp/unpack/$name
	# capture.conf names the destination and the journal; the phases'
	# times hold only for the first copy; pack() says trace_files.
	grep -v '^trace_files' "$src/capture.conf" >"$dir/capture.conf"
	"$BUILD/bench/replicate" -n "$n" -o "$dir/trace" "$src"/trace/*.blktrace.*
	rm -rf "$tmp/unpack"
}

# make_shape SHAPE DIR: a per-CPU capture of about $events events in DIR.
make_shape() {
	local shape=$1 dir=$2 name src
	mkdir -p "$dir/trace"
	case $shape in
	capture_gen)
		"$BUILD/bench/capture_gen" -n "$events" "$dir" ;;
	wcsynth)
		# Its model writes 16.3 events per file on average.
		"$BUILD/tests/wcsynth" --capture --files $((events * 10 / 163)) "$dir" ;;
	fixture-*)
		name=${shape#fixture-}
		"$BUILD/bench/replicate" -n "$events" -o "$dir/trace" \
			"tests/fixtures/reader/$name"/*.blktrace.* ;;
	sample-*)
		replicate_capture "samples/${shape#sample-}.tar.xz" "$events" "$dir" ;;
	merge-heavy)
		replicate_capture bench/merge-heavy-xfs.tar.xz "$merge_events" "$dir" ;;
	*)
		echo "bench: unknown shape '$shape'" >&2
		exit 2 ;;
	esac
}

# pack wccapture|tar DIR: DIR as a tar stream on standard output.
# "wccapture" packs as capture/lib/capture.sh's capture_archive() does:
# capture.conf with "trace_files = N" first, phases.tsv, the trace
# files smallest first, the rest; a shape without capture.conf gets one that holds only
# the key, for this archive only.  "tar" is the folder as tar finds it.
pack() {
	local how=$1 dir=$2 base=${2##*/} n conf had=1
	local -a names
	if [[ $how == tar ]]; then
		tar -C "${dir%/*}" -cf - "$base"
		return
	fi
	conf=$dir/capture.conf
	n=$(find "$dir/trace" -name '*.blktrace.[0-9]*' | wc -l)
	if [[ -f $conf ]]; then
		cp "$conf" "$tmp/conf.orig"
	else
		had=0
	fi
	echo "trace_files = $n" >>"$conf"
	names=("$base/capture.conf")
	[[ ! -f $dir/phases.tsv ]] || names+=("$base/phases.tsv")
	# The trace files smallest first, as wccapture packs them (a
	# shape's trace folder holds nothing else).
	while IFS= read -r -d '' f; do
		names+=("$base/trace/${f#*/}")
	done < <(find "$dir/trace" -mindepth 1 -maxdepth 1 -printf '%020s/%f\0' | LC_ALL=C sort -z)
	while IFS= read -r -d '' f; do
		names+=("$base/${f##*/}")
	done < <(find "$dir" -mindepth 1 -maxdepth 1 ! -name capture.conf \
		! -name phases.tsv ! -name trace -print0)
	tar -C "${dir%/*}" -cf - "${names[@]}"
	if ((had)); then
		mv "$tmp/conf.orig" "$conf"
	else
		rm -f "$conf"
	fi
}

# wall_cpu_of CMD...: CMD's wall and CPU time ("WALL CPU"), its output
# thrown away.
wall_cpu_of() {
	local wall user sys rss
	/usr/bin/time -o "$tmp/time" -f '%e %U %S %M' "$@" >/dev/null
	read -r wall user sys rss <"$tmp/time"
	awk -v w="$wall" -v u="$user" -v s="$sys" 'BEGIN { printf "%.3f %.3f\n", w, u + s }'
}

# median X...: the median of the numbers X.
median() {
	printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 }
		END { printf "%.3f", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# warm ARG...: the files among ARG, and those in the folders among them,
# read once into the page cache.  Before every turn of a target: on a
# shared machine the page cache is dropped now and then (lab.sh's
# cold-cache copies write drop_caches; /proc/vmstat's drop_pagecache
# counted one every 15 s on 7 December), and the turn after a drop is
# charged the read from the disk: up to five times wcanalyze's own CPU
# time on a 10 M-event trace.
warm() {
	local arg
	for arg in "$@"; do
		if [[ -f $arg ]]; then
			cat -- "$arg" >/dev/null
		elif [[ -d $arg ]]; then
			find "$arg" -type f -exec cat -- {} + >/dev/null
		fi
	done
}

# target SHAPE WHAT GOAL -- A... -- B...: runs command A and command B in
# turn, $target_runs times each (A B A B ...), and adds a row to the
# targets table: the medians of their CPU times, B's over A's against
# GOAL (at least), "met" or "not met" as computed, and the load when it
# ended.  With target_on=wall: the medians of their wall times, B's over
# A's at most GOAL (two threads against one; the CPU times go to the
# bench line).  The files each command names are read (warm()) before
# its turn.
target() {
	local shape=$1 what=$2 goal=$3 on=${target_on:-cpu} k ma mb ca cb ratio verdict w c
	local -a a=() b=() ta=() tb=() sa=() sb=()
	shift 3
	[[ $1 == -- ]] && shift
	while [[ $1 != -- ]]; do a+=("$1"); shift; done
	shift
	b=("$@")
	for ((k = 0; k < target_runs; k++)); do
		warm "${a[@]}"
		read -r w c < <(wall_cpu_of "${a[@]}")
		ta+=("$w") sa+=("$c")
		warm "${b[@]}"
		read -r w c < <(wall_cpu_of "${b[@]}")
		tb+=("$w") sb+=("$c")
	done
	ca=$(median "${sa[@]}")
	cb=$(median "${sb[@]}")
	if [[ $on == wall ]]; then
		ma=$(median "${ta[@]}")
		mb=$(median "${tb[@]}")
		ratio=$(awk -v a="$ma" -v b="$mb" 'BEGIN { if (a > 0) printf "%.2f", b / a; else print "inf" }')
		verdict=$(awk -v r="$ratio" -v g="$goal" 'BEGIN { print (r != "inf" && r + 0 <= g + 0) ? "met" : "not met" }')
		printf 'bench: target: %s: %s: wall %s s against %s s: %sx (target <= %sx) %s; cpu %s s against %s s\n' \
			"$shape" "$what" "$mb" "$ma" "$ratio" "$goal" "$verdict" "$cb" "$ca"
		# The row: B (two threads) first, as "wc".
		printf '%s\t%s\t%s\t%s\t%sx\t<= %sx\t%s\t%s\n' "$shape" "$what" "$mb" "$ma" \
			"$ratio" "$goal" "$verdict" "$(cut -d ' ' -f 1 /proc/loadavg)" >>"$targets"
		return 0
	fi
	ratio=$(awk -v a="$ca" -v b="$cb" 'BEGIN { if (a > 0) printf "%.1f", b / a; else print "inf" }')
	verdict=$(awk -v r="$ratio" -v g="$goal" 'BEGIN { print (r == "inf" || r + 0 >= g + 0) ? "met" : "not met" }')
	printf 'bench: target: %s: %s: %s s against %s s: %sx (target >= %sx) %s\n' \
		"$shape" "$what" "$ca" "$cb" "$ratio" "$goal" "$verdict"
	printf '%s\t%s\t%s\t%s\t%sx\t>= %sx\t%s\t%s\n' "$shape" "$what" "$ca" "$cb" \
		"$ratio" "$goal" "$verdict" "$(cut -d ' ' -f 1 /proc/loadavg)" >>"$targets"
}

# targets_table: the targets rows of this run, with the load.
targets_table() {
	echo
	echo "targets (issue 45; CPU time, medians of $target_runs runs each side taken in turn A B A B;"
	echo "ratio = the other command's CPU time / wcanalyze's; load = 1-minute load average after the row;"
	echo "rows '2 threads vs 1': WALL time, wc = --threads 2, ref = --threads 1, ratio = 2's / 1's)"
	echo "load at the end: $(cut -d ' ' -f 1-3 /proc/loadavg)"
	printf '%-20s %-32s %8s %8s %7s %8s %-8s %5s\n' shape what "wc s" "ref s" ratio target verdict load
	awk -F '\t' '{ printf "%-20s %-32s %8s %8s %7s %8s %-8s %5s\n", substr($1, 1, 20), $2, $3, $4, $5, $6, $7, $8 }' "$targets"
}

# bases DIR: blkparse's -i arguments for a capture's trace folder.
bases() {
	find "$1/trace" -name '*.blktrace.[0-9]*' -printf '%f\n' |
		sed 's/\.blktrace\.[0-9]*$//' | LC_ALL=C sort -u |
		while read -r b; do printf -- '-i\n%s/trace/%s\n' "$1" "$b"; done
}

# threads_targets SHAPE DIR EVENTS: issue 45's two threads against one
# (wall time, in turn), on the per-CPU files and on one merged file, when
# the trace has at least $threads_events events; the reports must agree.
threads_targets() {
	local shape=$1 cap=$2 n=$3 f
	local -a in
	((n >= threads_events)) || return 0
	mapfile -t in < <(bases "$cap")
	blkparse -q "${in[@]}" -d "$tmp/merged2" -o /dev/null >/dev/null
	for f in "$cap" "$tmp/merged2"; do
		cmp -s <("$wc" --threads 1 --format json "$f") <("$wc" --threads 2 --format json "$f") ||
			echo "bench: WARNING: $shape: --threads 2 wrote another report than --threads 1" >&2
	done
	target_on=wall target "$shape" "per-CPU json, 2 threads vs 1" 0.6 \
		-- "$wc" --threads 1 --format json "$cap" -- "$wc" --threads 2 --format json "$cap"
	target_on=wall target "$shape" "merged json, 2 threads vs 1" 0.6 \
		-- "$wc" --threads 1 --format json "$tmp/merged2" -- "$wc" --threads 2 --format json "$tmp/merged2"
	rm -f "$tmp/merged2"
}

echo "bench: $(nproc) CPUs, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo)," \
	"$(sed -n 's/^model name[[:space:]]*: //p; T; q' /proc/cpuinfo), Linux $(uname -r)," \
	"load $(cut -d ' ' -f 1-3 /proc/loadavg)"
echo "bench: commit $(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo unknown)," \
	"$events events a shape"

caps=()
for shape in $shapes; do
	cap=$tmp/shape-$shape
	make_shape "$shape" "$cap" | sed 's/^/bench: /'
	n=$(events_of "$cap")
	echo "bench: $shape: $n events, $(du -sm "$cap" | cut -f1) MB"
	caps+=("$cap")
	if [[ $only == dump ]]; then
		mapfile -t in < <(bases "$cap")
		target "$shape" "per-CPU --dump vs blkparse -i" 10 \
			-- "$wc" --dump "$cap" -- blkparse -q "${in[@]}" -o /dev/null
		rm -rf "$cap"
		continue
	fi
	if [[ $only == threads ]]; then
		threads_targets "$shape" "$cap" "$n"
		rm -rf "$cap"
		continue
	fi
	if [[ $only == targets ]]; then
		mapfile -t in < <(bases "$cap")
		blkparse -q "${in[@]}" -d "$tmp/merged" -o /dev/null >/dev/null
		(cd "$tmp" && target "$shape" "merged json vs btt" 10 \
			-- "$wc" --threads 1 --format json "$tmp/merged" -- btt -i "$tmp/merged")
		[[ -z $compare ]] ||
			(cd "$tmp" && target "$shape" "merged json vs btt (compare)" 10 \
				-- "$compare" --threads 1 --format json "$tmp/merged" -- btt -i "$tmp/merged")
		rm -f "$tmp"/*.dat "$tmp/merged"
		target "$shape" "per-CPU --dump vs blkparse -i" 10 \
			-- "$wc" --dump "$cap" -- blkparse -q "${in[@]}" -o /dev/null
		rm -rf "$cap"
		continue
	fi
	measure "$shape" "per-CPU text" "$n" "$wc" "$cap"
	measure "$shape" "per-CPU json" "$n" "$wc" --format json "$cap"
	if [[ -n $compare ]]; then
		measure "$shape" "per-CPU json (compare)" "$n" "$compare" --format json "$cap"
		cmp -s <("$wc" --format json "$cap") <("$compare" --format json "$cap") ||
			echo "bench: WARNING: $shape: BENCH_COMPARE wrote another report" >&2
	fi
	measure "$shape" "per-CPU --dump" "$n" "$wc" --dump "$cap"
	[[ $target_runs == 0 ]] || threads_targets "$shape" "$cap" "$n"
	mapfile -t in < <(bases "$cap")
	[[ $with_btt == 1 ]] ||
		blkparse -q "${in[@]}" -d "$tmp/merged" -o /dev/null >/dev/null
	if [[ $with_btt == 1 ]]; then
		reference "$shape" "blkparse -i" "$n" blkparse -q "${in[@]}" -o /dev/null
		# This one also writes the merged file the next forms read.
		reference "$shape" "blkparse -d" "$n" blkparse -q "${in[@]}" -d "$tmp/merged" -o /dev/null
		# btt writes its .dat files into the current directory.
		(cd "$tmp" && reference "$shape" "btt" "$n" btt -i "$tmp/merged")
		rm -f "$tmp"/*.dat
	fi
	measure "$shape" "merged json" "$n" "$wc" --format json "$tmp/merged"
	if [[ $with_btt == 1 && $target_runs != 0 ]]; then
		# Issue 45: the whole analysis against btt on the one merged
		# file btt reads, and --dump against blkparse -i on the
		# per-CPU files, CPU time, A B A B.  The analysis on one
		# thread: the work itself, as btt does it (two threads cost
		# CPU time for wall time: their own rows).
		(cd "$tmp" && target "$shape" "merged json vs btt" 10 \
			-- "$wc" --threads 1 --format json "$tmp/merged" -- btt -i "$tmp/merged")
		rm -f "$tmp"/*.dat
		target "$shape" "per-CPU --dump vs blkparse -i" 10 \
			-- "$wc" --dump "$cap" -- blkparse -q "${in[@]}" -o /dev/null
	fi
	[[ -z $compare ]] ||
		measure "$shape" "merged json (compare)" "$n" "$compare" --format json "$tmp/merged"
	measure "$shape" "merged --dump" "$n" "$wc" --dump "$tmp/merged"
	# sh opens the file as standard input anew for every run.
	# shellcheck disable=SC2016
	measure "$shape" "stdin json" "$n" sh -c 'exec "$0" --format json - <"$1"' "$wc" "$tmp/merged"
	# shellcheck disable=SC2016
	[[ -z $compare ]] ||
		measure "$shape" "stdin json (compare)" "$n" sh -c 'exec "$0" --format json - <"$1"' "$compare" "$tmp/merged"
	rm -f "$tmp/merged"
	if [[ $with_archives == 1 ]]; then
		# As wccapture packs a capture (capture.conf announcing its
		# trace files, and phases.tsv, before the traces), then the
		# folder as plain tar packs it (no announcement, the order the
		# directory gives): an archive of the second kind is scanned to
		# its end before the analysis starts (docs/performance.md).
		for packing in wccapture tar; do
			pack "$packing" "$cap" | zstd -q -1 -T0 -o "$tmp/c.tar.zst"
			pack "$packing" "$cap" | gzip -1 >"$tmp/c.tar.gz"
			suffix=""
			[[ $packing == wccapture ]] || suffix=", tar order"
			if [[ $packing == wccapture ]]; then
				measure "$shape" "zstd -d alone" "$n" zstd -q -dc "$tmp/c.tar.zst"
			fi
			measure "$shape" "tar.zst json$suffix" "$n" "$wc" --format json "$tmp/c.tar.zst"
			if [[ $packing == wccapture ]]; then
				measure "$shape" "gzip -d alone" "$n" gzip -dc "$tmp/c.tar.gz"
			fi
			measure "$shape" "tar.gz json$suffix" "$n" "$wc" --format json "$tmp/c.tar.gz"
			rm -f "$tmp/c.tar.zst" "$tmp/c.tar.gz"
		done
	fi
done

if [[ -n $only ]]; then
	targets_table
	exit 0
fi

# --- the bundle of a long capture, gnuplot included ----------------------
if [[ $with_bundle == 1 && ${#caps[@]} -gt 0 ]]; then
	cap=${caps[0]}
	WCANALYZE_PLOTS=$top/plots reference "${cap##*/shape-}" "-o bundle" \
		"$(events_of "$cap")" "$wc" -o "$tmp/bundle" "$cap"
	echo "bench: bundle: $(find "$tmp/bundle" -name '*.png' | wc -l) PNG," \
		"$(find "$tmp/bundle" -name '*.svg' | wc -l) SVG, whole bundle" \
		"$(du -sk "$tmp/bundle" | cut -f1) KiB"
	rm -rf "$tmp/bundle"
fi

# --- many inputs at once: -j 1 against -j N -------------------------------
nsamples=$(find samples -maxdepth 1 -name '*.tar.xz' | wc -l)
measure samples "$nsamples samples -j 1" 0 "$wc" -j 1 --format json samples/*.tar.xz
measure samples "$nsamples samples -j $jobs" 0 "$wc" -j "$jobs" --format json samples/*.tar.xz
if [[ ${#caps[@]} -gt 1 ]]; then
	total=0
	for cap in "${caps[@]}"; do
		total=$((total + $(events_of "$cap")))
	done
	measure all-shapes "${#caps[@]} captures -j 1" "$total" "$wc" -j 1 --format json "${caps[@]}"
	measure all-shapes "${#caps[@]} captures -j $jobs" "$total" "$wc" -j "$jobs" --format json "${caps[@]}"
	cmp -s <("$wc" -j 1 --format json "${caps[@]}") <("$wc" -j "$jobs" --format json "${caps[@]}") ||
		echo "bench: WARNING: -j $jobs wrote another report than -j 1" >&2
fi
rm -rf "${caps[@]}"

# --- memory at any length: a long trace streamed on standard input -------
# The recorded sample, merged once, repeated to BENCH_BIG_EVENTS and fed
# through a FIFO, so neither the disk nor the generator's memory counts.
if [[ $big != 0 ]]; then
	name=hdd7200-xfs-cache-on-barrier-on-run1
	mkdir -p "$tmp/unpack"
	tar -xf "samples/$name.tar.xz" -C "$tmp/unpack"
	mapfile -t in < <(bases "$tmp/unpack/$name")
	blkparse -q "${in[@]}" -d "$tmp/one" -o /dev/null >/dev/null
	for n in $events $big; do
		mkfifo "$tmp/fifo"
		"$BUILD/bench/replicate" -n "$n" -o - "$tmp/one" >"$tmp/fifo" 2>"$tmp/rep.out" &
		repeat=1 measure "sample-$name" "stdin, streamed" "$n" "$wc" --format json - <"$tmp/fifo"
		wait $!
		sed 's/^/bench: /' "$tmp/rep.out"
		rm -f "$tmp/fifo"
	done
	rm -rf "$tmp/unpack" "$tmp/one"
fi

# --- queues that grow without end: the caps hold memory and time ---------
if [[ $overload != 0 ]]; then
	cap=$tmp/overload
	"$BUILD/tests/wcsynth" --capture --files $((overload * 10 / 163)) --rate 2 "$cap"
	measure "wcsynth 2 MB/s" "per-CPU json" "$(events_of "$cap")" "$wc" --format json "$cap"
	rm -rf "$cap"
fi

# --- archives of many one-record members ---------------------------------
# Each member once kept a libarchive handle (~230 KB) for the whole merge:
# 100,000 members needed gigabytes.  Now small members are read whole at
# the scan (inputdefs.h): peak RSS grows by bytes per member, not a handle.
for n in ${BENCH_MEMBERS-1000 10000 100000}; do
	python3 - "$tmp/m$n.tar.gz" "$n" <<'PY'
import io, struct, sys, tarfile

Q = 1 | (1 << 17) | (1 << 20)       # queue, category write and queue
with tarfile.open(sys.argv[1], 'w:gz') as tar:
    for cpu in range(int(sys.argv[2])):
        data = struct.pack('<IIQQIIIIIHH', 0x65617407, 1, 1000 + cpu,
                           8 * cpu, 4096, Q, 100, (7 << 20) | 1, cpu, 0, 0)
        # CPU numbers stop at 65535: two devices past that.
        ti = tarfile.TarInfo('m/trace/loop%d.blktrace.%d' %
                             (1 + cpu // 50000, cpu % 50000))
        ti.size = len(data)
        tar.addfile(ti, io.BytesIO(data))
PY
	echo "bench: $n-member archive: $(du -k "$tmp/m$n.tar.gz" | cut -f1) KiB"
	measure "members-$n" "--dump" "$n" "$wc" --dump "$tmp/m$n.tar.gz"
	measure "members-$n" "json" "$n" "$wc" --format json "$tmp/m$n.tar.gz"
	rm -f "$tmp/m$n.tar.gz"
done

# --- archives of many large members --------------------------------------
# More members than handles (inputdefs.h): those past WC_INPUT_HANDLES are
# copied to a temporary file at the scan and read from there, all open
# at once; they were closed and reopened at every event (1,000 members
# took 648 s).
large=${BENCH_LARGE_MEMBERS:-200}
if [[ $large != 0 ]]; then
	python3 - "$tmp/large.tar" "$large" <<'PY'
import io, struct, sys, tarfile

Q = 1 | (1 << 17) | (1 << 20)       # queue, category write and queue
n, recs = int(sys.argv[2]), 25000
with tarfile.open(sys.argv[1], 'w') as tar:
    for cpu in range(n):
        data = b''.join(struct.pack('<IIQQIIIIIHH', 0x65617407, r + 1,
                                    1000 + r * 1000 + cpu, 8 * (r * n + cpu),
                                    4096, Q, 100 + cpu % 7, (7 << 20) | 1,
                                    cpu, 0, 0) for r in range(recs))
        ti = tarfile.TarInfo('l/trace/loop1.blktrace.%d' % cpu)
        ti.size = len(data)
        tar.addfile(ti, io.BytesIO(data))
PY
	zstd -q -1 -T0 --rm "$tmp/large.tar" -o "$tmp/large.tar.zst"
	echo "bench: $large large members: $(du -m "$tmp/large.tar.zst" | cut -f1) MB"
	measure "large-$large" "tar.zst json" $((large * 25000)) "$wc" --format json "$tmp/large.tar.zst"
	rm -f "$tmp/large.tar.zst"
fi

# --- the reduce of many summaries (a fleet, docs/performance.md) ---------
# Copies of two configurations' summaries, each under a name of its own
# (the same name and requests would count once): peak RSS against their
# number, and what each summary more costs.
if [[ -n ${BENCH_SUMMARIES-10 100 1000} ]]; then
	mkdir "$tmp/sums"
	for c in on off; do
		"$wc" --format json "samples/ssd-ext4-cache-$c-barrier-on-run1.tar.xz" \
			>"$tmp/sums/$c.json"
	done
	for n in ${BENCH_SUMMARIES-10 100 1000}; do
		rm -rf "$tmp/sums/n"
		mkdir "$tmp/sums/n"
		for ((k = 0; k < n; k++)); do
			c=on
			((k % 2 == 0)) || c=off
			sed "s/\"name\": \"ssd-ext4-cache-$c-barrier-on-run1\"/\"name\": \"s$k-run$((k / 2 + 1))\"/" \
				"$tmp/sums/$c.json" >"$tmp/sums/n/$k.json"
		done
		measure "summaries-$n" "reduce, text, -j 1" 0 "$wc" -j 1 "$tmp/sums/n/"*.json
	done
	awk -F '\t' '$1 ~ /^summaries-/ { n = substr($1, 11) + 0
		if (!lo || n < lo) { lo = n; rlo = $6 }
		if (n > hi) { hi = n; rhi = $6 } }
	END { if (hi > lo) printf "bench: the reduce holds %.1f KiB a summary more (%d to %d summaries)\n", (rhi - rlo) / (hi - lo), lo, hi }' "$summary"
	rm -rf "$tmp/sums"
fi

# --- the reader alone: decode and merge, no analysis ---------------------
# With the bare loop beside it, in turn (issue 45: at least 50 %).
"$BUILD/bench/reader_bench" -n 4000000 -r "$((target_runs > 0 ? target_runs : 1))" "$tmp" |
	tee "$tmp/reader.out" | sed 's/^/bench: /'

# --- the what-if replay alone: a sample's requests through the model -----
# (target: 1 M requests a second; docs/what-if.md)
"$BUILD/bench/replay_bench" -n "${BENCH_REPLAY_REQUESTS:-4000000}" -r "$repeat" \
	samples/hdd7200-ext4-cache-on-barrier-on-run2.tar.xz | tee "$tmp/replay.out" |
	sed 's/^/bench: /'

echo
echo "summary (M ev/s and the ratios from CPU time: the machine may be shared;"
echo "x btt = btt's CPU time / this one's, x blkparse = blkparse -i's / this one's;"
echo "d+a = an archive's wall time / (its decompression alone + the per-CPU json), wall;"
echo "x tools = what a btt user runs on that form / this one, CPU: btt on a merged file or"
echo "standard input; blkparse -d + btt on per-CPU files; the decompression alone too for an archive)"
awk -F '\t' '
{
	row[NR] = $0
	if ($2 == "btt") btt[$1] = $5
	if ($2 == "blkparse -i") bp[$1] = $5
	if ($2 == "blkparse -d") bpd[$1] = $5
	if ($2 == "per-CPU json") ana[$1] = $4
	if ($2 == "zstd -d alone") { dz[$1] = $4; dzc[$1] = $5 }
	if ($2 == "gzip -d alone") { dg[$1] = $4; dgc[$1] = $5 }
}
END {
	printf "%-20s %-28s %10s %7s %7s %7s %7s %6s %6s %5s %7s\n", "shape", "what", "events",
		"wall s", "cpu s", "M ev/s", "RSS MiB", "x btt", "x blkp", "d+a", "x tools"
	for (i = 1; i <= NR; i++) {
		split(row[i], f, "\t")
		rate = (f[3] > 0 && f[5] > 0) ? sprintf("%.1f", f[3] / f[5] / 1e6) : "-"
		xb = (f[1] in btt && f[5] > 0 && f[2] != "btt") ? sprintf("%.1f", btt[f[1]] / f[5]) : "-"
		xp = (f[1] in bp && f[5] > 0 && f[2] ~ /dump/) ? sprintf("%.1f", bp[f[1]] / f[5]) : "-"
		d = f[2] ~ /^tar\.zst json/ ? dz[f[1]] : f[2] ~ /^tar\.gz json/ ? dg[f[1]] : ""
		da = "-"
		if (d != "" && f[1] in ana && d + ana[f[1]] > 0)
			da = sprintf("%.2f", f[4] / (d + ana[f[1]]))
		# What the same answer costs with the blktrace tools: btt reads
		# only a merged file, so per-CPU files go through blkparse -d
		# first, and an archive through its decompression before that.
		tools = ""
		if (f[1] in btt && f[2] ~ /^(merged|stdin) json$/)
			tools = btt[f[1]]
		else if (f[1] in btt && f[1] in bpd && f[2] ~ /^per-CPU (text|json)$/)
			tools = btt[f[1]] + bpd[f[1]]
		else if (f[1] in btt && f[1] in bpd && f[2] ~ /^tar\.zst json/ && f[1] in dzc)
			tools = btt[f[1]] + bpd[f[1]] + dzc[f[1]]
		else if (f[1] in btt && f[1] in bpd && f[2] ~ /^tar\.gz json/ && f[1] in dgc)
			tools = btt[f[1]] + bpd[f[1]] + dgc[f[1]]
		xt = (tools != "" && f[5] > 0) ? sprintf("%.1f", tools / f[5]) : "-"
		printf "%-20s %-28s %10s %7s %7s %7s %7.1f %6s %6s %5s %7s\n", substr(f[1], 1, 20),
			f[2], f[3], f[4], f[5], rate, f[6] / 1024, xb, xp, da, xt
	}
}' "$summary"

# --- issue 45's targets, as computed in this run --------------------------
targets_table
# The reader against the bare loop (reader_bench -r, medians in turn).
sed -n 's/^reader_bench: target \(.*\)$/reader: \1/p' "$tmp/reader.out"
# The what-if replay: requests per CPU second (least of -r runs) of each
# shipped disk, cache on and off, against 1 M/s.
awk -v load="$(cut -d ' ' -f 1 /proc/loadavg)" '
/^replay: .* cache (on|off):/ {
	for (i = 1; i <= NF; i++)
		if ($i == "CPU" && $(i + 1) == "second,") r = $(i - 3)
	c = $4
	sub(/:$/, "", c)
	printf "what-if: %s cache %s: %.2f M requests a CPU second (target >= 1 M/s) %s, load %s\n",
		$2, c, r, (r + 0 >= 1) ? "met" : "not met", load
}' "$tmp/replay.out"
