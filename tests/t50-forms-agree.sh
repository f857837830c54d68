#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t50-forms-agree.sh - one trace, whatever form it comes in, gives one
# report.  Every recorded and generated input of the tree (the reader
# fixtures, traces derived from them, every sample capture, the
# merge-heavy capture of make bench, wcsynth's output) is read as
# per-CPU files (a directory, and a base name where there is one
# device), as one merged "blkparse -d" file, as that file on standard
# input, and packed as tar.gz, tar.zst and zip; each capture
# also as its .tar.xz, unpacked, packed as wccapture packs it
# (capture.conf announcing trace_files), with a capture.conf that
# announces too few trace files, and in reverse member order.  The JSON
# report and the --dump of each form must be those of the per-CPU
# directory, byte for byte; all inputs at once must give the same text
# and CSV reports under -j 1 and -j N in every form.  Every analysis
# runs both ways (--threads 1 and 2, wcanalyze.1): the reports above are
# of two threads (the default for one input), and each trace and
# capture, as a directory, a merged file and standard input, is read on
# one thread too; -j 1 is two threads an input, -j N one.  This is what lets
# a change to the reader, the decoder, the merge or the tracker be
# trusted: any second path that disagrees with the first shows here.
# shellcheck source=tests/lib/common.sh
source "$(dirname "$0")/lib/common.sh"

CONV=$BUILD/tests/wctrace_convert
FIX=$TOP/tests/fixtures/reader
command -v blkparse >/dev/null || fail "blkparse is missing (scripts/deps.sh installs it)"
command -v zstd >/dev/null || fail "zstd is missing (scripts/deps.sh installs it)"
command -v zip >/dev/null || fail "zip is missing (scripts/deps.sh installs it)"
cd "$TMP"
shopt -s nullglob

# Inputs: trace/LABEL/ holds one trace's per-CPU files (one device or
# more), cap/NAME/ one capture (capture.conf, phases.tsv, trace/).  A
# label is unique in every report, so a report of standard input ("-")
# can be compared with one of a file by renaming.
mkdir trace cap
declare -A what=()
n=0
add_trace() {   # add_trace WHAT FILE... : a new trace/LABEL of FILEs
	local label
	n=$((n + 1))
	label=$(printf 'wcq%02d' "$n")
	what[$label]=$1
	shift
	mkdir "trace/$label"
	cp "$@" "trace/$label/"
}

for fs in ext3 ext4 xfs; do
	add_trace "fixture $fs" "$FIX/$fs"/*.blktrace.*
done
# The fixtures' blkparse-readable variants (t10-dump-fixtures.sh):
# the other byte order, remaps, split and notify records, sequence
# numbers, a second device.
i=0
for opts in "--swap" "--notify" "--remap 8:0:2048" "--split" "--seq 5" \
	"--notify --remap 8:16:63 --split --seq 0 --swap"; do
	i=$((i + 1))
	mkdir "d$i"
	for f in "$FIX"/ext4/loop1.blktrace.*; do
		# shellcheck disable=SC2086 # options are words on purpose
		"$CONV" $opts "$f" "d$i/loop1.blktrace.${f##*.}"
	done
	add_trace "fixture ext4 $opts" "d$i"/*
done
mkdir two
cp "$FIX"/ext4/* two/
for f in "$FIX"/xfs/loop1.blktrace.*; do
	"$CONV" --device 7:2 "$f" "two/loop2.blktrace.${f##*.}"
done
add_trace "fixtures ext4 and xfs as two devices" two/*

"$WCSYNTH" -n 150 plain >/dev/null
add_trace "wcsynth plain" plain.blktrace.*
"$WCSYNTH" -n 80 -b -o -S 7 -c cap/synth-two >/dev/null
"$WCSYNTH" -n 120 -N -F -S 3 -c cap/synth-ncq >/dev/null
mapfile -t picked < <(samples_pick "$TOP"/samples/*.tar.xz)
for s in "${picked[@]}" "$TOP"/bench/merge-heavy-xfs.tar.xz; do
	tar -xf "$s" -C cap
done
[[ -d cap/hdd7200-xfs-cache-on-barrier-on-run1 ]] || fail "samples/ is not unpacked as expected"
for c in cap/*; do
	# Run 1 of each sample configuration and wcsynth's as bare traces
	# too: runs 2 and 3 are the same kind of traffic.
	case $c in *-run[23]) continue ;; esac
	add_trace "${c#cap/}'s trace files" "$c"/trace/*
done

# The forms of trace/LABEL.  blkparse stops at the first missing CPU
# number and skips empty files, so empty files fill the holes of its
# copy.
mkdir dir base merged arc
for t in trace/*; do
	label=${t#trace/}
	cp -r "$t" "dir/$label"
	mapfile -t devs < <(find "$t" -name '*.blktrace.[0-9]*' -printf '%f\n' |
		sed 's/\.blktrace\.[0-9]*$//' | LC_ALL=C sort -u)
	if [[ ${#devs[@]} -eq 1 ]]; then
		for f in "$t"/*; do
			cp "$f" "base/$label.blktrace.${f##*.}"
		done
	fi
	mkdir bp
	cp "$t"/* bp/
	args=()
	for d in "${devs[@]}"; do
		max=$(find bp -name "$d.blktrace.[0-9]*" -printf '%f\n' | sed 's/.*\.//' | sort -n | tail -n 1)
		for ((c = 0; c < max; c++)); do
			[[ -e bp/$d.blktrace.$c ]] || : >"bp/$d.blktrace.$c"
		done
		args+=(-i "$d")
	done
	blkparse -q -D bp "${args[@]}" -d "merged/$label" -O >/dev/null
	[[ -s merged/$label ]] || fail "$label (${what[$label]}): blkparse -d wrote nothing"
	rm -r bp
	tar -C dir -czf "arc/$label.tar.gz" "$label"
	(cd dir && zip -qr "../arc/$label.zip" "$label")
	tar -C dir -cf - "$label" | zstd -q -o "arc/$label.tar.zst"
done

# same WHAT EXPECTED ACTUAL
# A JSON report's raw record (docs/json-format.md, "RAW") is the input's
# own: it names the file read, a digest of its bytes, its CPU files and
# its clock (a merged blkparse -d file starts at 0), which differ between
# the forms of one trace by design; it is left out here (t88 compares
# summaries with their captures), and every other byte must agree.
same() {
	[[ -s $3 ]] || fail "$1: empty output"
	if [[ $1 == *"JSON report"* ]]; then
		local f
		for f in "$2" "$3"; do
			jq -S 'del(.captures[]?.raw)' \
				"$f" >"$f.cmp" || fail "$1: $f is not JSON"
		done
		cmp -s "$2.cmp" "$3.cmp" || { show_diff "$2.cmp" "$3.cmp"; fail "$1: differs"; }
		return
	fi
	cmp -s "$2" "$3" || { show_diff "$2" "$3"; fail "$1: differs"; }
}
# run OUT ARGS...: wcanalyze ARGS into OUT; fail unless it exits 0.
# Its messages name the file read (sequence gaps of --seq 5), so only
# the reports are compared.
run() {
	local out=$1 rc=0
	shift
	"$WCANALYZE" "$@" >"$out" 2>"$out.err" || rc=$?
	[[ $rc -eq 0 ]] || fail "wcanalyze $*: exit $rc: $(head -n 3 "$out.err")"
}

mkdir out
checked=0
for t in trace/*; do
	label=${t#trace/}
	w=${what[$label]}
	run "out/$label.json" --format json "dir/$label"
	run "out/$label.dump" --dump "dir/$label"
	# A merged file holds the events in blkparse's order, which may
	# break a tie of time between CPUs otherwise than reading the CPUs'
	# files does: its dump has the same lines, with the same times in
	# the same order, and standard input's is the file's.
	LC_ALL=C sort "out/$label.dump" >out/sorted.ref
	awk '{ print $4 }' "out/$label.dump" >out/times.ref
	forms=("merged/$label" "arc/$label.tar.gz" "arc/$label.zip")
	[[ ! -e base/$label.blktrace.0 ]] || forms+=("base/$label")
	for f in "${forms[@]}"; do
		run out/f.json --format json "$f"
		same "$label ($w) as $f: JSON report" "out/$label.json" out/f.json
		run "out/f.dump" --dump "$f"
		if [[ $f == merged/* ]]; then
			mv out/f.dump out/merged.dump
			LC_ALL=C sort out/merged.dump >out/sorted
			same "$label ($w) as $f: dump's lines" out/sorted.ref out/sorted
			awk '{ print $4 }' out/merged.dump >out/times
			same "$label ($w) as $f: dump's times" out/times.ref out/times
		else
			same "$label ($w) as $f: dump" "out/$label.dump" out/f.dump
		fi
		checked=$((checked + 1))
	done
	run out/f.json --format json - <"merged/$label"
	sed "s/$label/-/g" "out/$label.json" >out/stdin.json
	same "$label ($w) on standard input: JSON report" out/stdin.json out/f.json
	run out/f.dump --dump - <"merged/$label"
	same "$label ($w) on standard input: dump" out/merged.dump out/f.dump
	run out/f.json --threads 1 --format json "dir/$label"
	same "$label ($w) on one thread: JSON report" "out/$label.json" out/f.json
	run out/f.json --threads 1 --format json "merged/$label"
	same "$label ($w) as merged/$label on one thread: JSON report" "out/$label.json" out/f.json
	run out/f.json --threads 1 --format json - <"merged/$label"
	same "$label ($w) on standard input on one thread: JSON report" out/stdin.json out/f.json
	checked=$((checked + 3))
done

# Every trace at once, in every form, -j 1 against -j N.
labels=()
for t in trace/*; do labels+=("${t#trace/}"); done
for fmt in text csv; do
	run "out/all.$fmt" -j 1 --format "$fmt" "${labels[@]/#/dir/}"
	for form in dir merged tar.gz tar.zst; do
		case $form in
		tar.*) inputs=("${labels[@]/#/arc/}") && inputs=("${inputs[@]/%/.$form}") ;;
		*) inputs=("${labels[@]/#/$form/}") ;;
		esac
		for jobs in 2 5; do
			run out/f -j "$jobs" --format "$fmt" "${inputs[@]}"
			same "all traces as $form, -j $jobs: $fmt report" "out/all.$fmt" out/f
		done
	done
done

# The captures: each as unpacked and as its sample archive, all at once
# under -j 1 and -j N; run 1 of each configuration also packed as
# wccapture packs it, with a capture.conf announcing too few trace
# files (the reader must notice and read the rest), and in reverse
# member order.
mkdir packed short rev
caps=() ones=()
for c in cap/*; do
	name=${c#cap/}
	caps+=("$name")
	case $name in *-run[23]) continue ;; esac
	ones+=("$name")
	mapfile -t traces < <(cd cap && find "$name/trace" -name '*.blktrace.[0-9]*' -printf '%s/%p\n' |
		sort -n | sed 's|^[0-9]*/||')
	mapfile -t rest < <(cd cap && find "$name" -mindepth 1 -maxdepth 1 ! -name capture.conf \
		! -name phases.tsv ! -name trace)
	first=("$name/capture.conf")
	[[ ! -f $c/phases.tsv ]] || first+=("$name/phases.tsv")
	cp "$c/capture.conf" conf.orig
	for how in packed short; do
		k=${#traces[@]}
		[[ $how == packed ]] || k=$((k - 1))
		grep -v '^trace_files' conf.orig >"$c/capture.conf" || true
		echo "trace_files = $k" >>"$c/capture.conf"
		tar -C cap -cf - "${first[@]}" "${traces[@]}" "${rest[@]}" | zstd -q -o "$how/$name.tar.zst"
	done
	mv conf.orig "$c/capture.conf"
	mapfile -t all < <(cd cap && find "$name" ! -type d | LC_ALL=C sort -r)
	tar -C cap -czf "rev/$name.tar.gz" "${all[@]}"
done
for name in "${ones[@]}"; do
	run "out/$name.c.json" --format json "cap/$name"
	run out/f --threads 1 --format json "cap/$name"
	same "capture $name on one thread: JSON report" "out/$name.c.json" out/f
	for f in "packed/$name.tar.zst" "short/$name.tar.zst" "rev/$name.tar.gz"; do
		run out/f --format json "$f"
		same "capture $name as $f: JSON report" "out/$name.c.json" out/f
		checked=$((checked + 1))
	done
done
run out/caps.text -j 1 "${caps[@]/#/cap/}"
inputs=()
for name in "${caps[@]}"; do
	if [[ -e $TOP/samples/$name.tar.xz ]]; then
		inputs+=("$TOP/samples/$name.tar.xz")
	elif [[ -e $TOP/bench/$name.tar.xz ]]; then
		inputs+=("$TOP/bench/$name.tar.xz")
	else
		inputs+=("packed/$name.tar.zst")
	fi
done
run out/f -j 3 "${inputs[@]}"
same "all captures as archives, -j 3: text report" out/caps.text out/f
inputs=("${ones[@]/#/rev/}")
run out/f -j 2 "${inputs[@]/%/.tar.gz}"
run out/ones.text -j 1 "${ones[@]/#/cap/}"
same "run 1 of each capture in reverse member order, -j 2: text report" out/ones.text out/f
checked=$((checked + ${#caps[@]}))
echo "ok: ${#labels[@]} traces and ${#caps[@]} captures, $checked forms agree"
