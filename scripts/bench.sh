#!/usr/bin/env bash
# bench.sh - speed and memory benchmarks ("make bench").  Never part of
# "make check": numbers depend on the machine.  Each section prints its
# own lines; a summary table closes the run.  docs/performance.md has
# the numbers of one run and says what they mean.
#
# Scale with environment variables (defaults finish in a few minutes on
# a 2-core machine):
#   BENCH_SIZES="1000000 4000000 10000000"  events of the synthetic
#                       captures analysed (sections a and b)
#   BENCH_BUNDLE_EVENTS=10000000  events of the capture bundled (c);
#                       0 skips the bundle
#   BENCH_BTT=1         0 skips blkparse -d + btt (b)
#   READER_BENCH_EVENTS=4000000   events of the reader section (d)
#   BENCH_SYNTH_SIZES="1000000 4000000 10000000"  events of the
#                       tests/wcsynth captures (e)
#   BENCH_SYNTH_BUNDLE=1  0 skips the bundle of the largest of those (e)
#   BENCH_OVERLOAD_SIZES="1000000 4000000"  events of the wcsynth
#                       captures whose disk is slower than the workload (e)
set -euo pipefail

: "${BUILD:?BUILD must name the build directory}"
top=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/wcbench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cd "$top"

sizes=${BENCH_SIZES:-1000000 4000000 10000000}
bundle_events=${BENCH_BUNDLE_EVENTS:-10000000}
with_btt=${BENCH_BTT:-1}
reader_events=${READER_BENCH_EVENTS:-4000000}
synth_sizes=${BENCH_SYNTH_SIZES:-1000000 4000000 10000000}
overload_sizes=${BENCH_OVERLOAD_SIZES:-1000000 4000000}
synth_bundle=${BENCH_SYNTH_BUNDLE:-1}
synth=$BUILD/tests/wcsynth
gen=$BUILD/bench/capture_gen
summary=$tmp/summary

[[ -x /usr/bin/time ]] || {
	echo "bench: /usr/bin/time missing (Debian package time): make deps" >&2
	exit 1
}

# measure LABEL EVENTS CMD...: wall time and peak RSS of CMD (its output
# thrown away), one line now and one row of the closing summary.  Peak
# RSS is the largest of CMD and the children it waited for (gnuplot).
measure() {
	local label=$1 events=$2 wall user sys rss rate cpu
	shift 2
	/usr/bin/time -o "$tmp/time" -f '%e %U %S %M' "$@" >/dev/null
	read -r wall user sys rss <"$tmp/time"
	cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
	rate=$(awk -v e="$events" -v w="$wall" \
		'BEGIN { if (e > 0 && w > 0) printf "%.2f", e / w / 1e6; else print "-" }')
	printf 'bench: %s: %s s (cpu %s s), %s M events/s, peak RSS %s KiB\n' \
		"$label" "$wall" "$cpu" "$rate" "$rss"
	printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$label" "$events" "$wall" "$cpu" \
		"$rate" "$rss" >>"$summary"
}

# events DIR: records in a capture's trace files (capture_gen says it).
events_of() {
	sed -n 's/^capture_gen: .*: \([0-9]*\) events,.*/\1/p' "$1/gen.out"
}

# events_json DIR: events the analyser read (wcsynth does not say).
events_json() {
	"$BUILD/wcanalyze" --format json "$1" |
		sed -n 's/^ *"events": \([0-9]*\),$/\1/p' | head -n 1
}

# synth DIR EVENTS [wcsynth options]: a wcsynth capture of about EVENTS
# events; its model writes 16.3 events per file on average.
synth_capture() {
	local dir=$1 n=$2
	shift 2
	"$synth" --capture --files $((n * 10 / 163)) "$@" "$dir"
}

echo "bench: $(nproc) CPUs, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo)," \
	"$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1), Linux $(uname -r)"

# --- (a) full analysis, text and JSON, and (b) blkparse -d + btt --------
# Memory must stay flat as the trace grows: the analyser keeps only the
# requests in flight and fixed histograms.
for n in $sizes; do
	cap=$tmp/c$n
	mkdir -p "$cap"
	"$gen" -n "$n" "$cap" >"$cap/gen.out"
	cat "$cap/gen.out"
	ev=$(events_of "$cap")
	measure "wcanalyze text ($n)" "$ev" "$BUILD/wcanalyze" "$cap"
	measure "wcanalyze json ($n)" "$ev" "$BUILD/wcanalyze" --format json "$cap"
	if [[ $with_btt == 1 ]]; then
		measure "blkparse -d ($n)" "$ev" blkparse -q -i "$cap/trace/loop9" \
			-d "$tmp/merged" -o /dev/null
		# btt writes its .dat files into the current directory.
		(cd "$tmp" && measure "btt ($n)" "$ev" btt -i "$tmp/merged")
		rm -f "$tmp/merged" "$tmp"/*.dat
	fi
	# Keep the capture the bundle section wants; drop the others now.
	[[ $n == "$bundle_events" ]] || rm -rf "$cap"
done

# --- (c) the bug-report bundle of a large capture, gnuplot included -----
if [[ $bundle_events != 0 ]]; then
	cap=$tmp/c$bundle_events
	if [[ ! -d $cap ]]; then
		mkdir -p "$cap"
		"$gen" -n "$bundle_events" "$cap" >"$cap/gen.out"
		cat "$cap/gen.out"
	fi
	ev=$(events_of "$cap")
	WCANALYZE_PLOTS=$top/plots measure "wcanalyze -o bundle ($bundle_events)" \
		"$ev" "$BUILD/wcanalyze" -o "$tmp/bundle" "$cap"
	dat=$(find "$tmp/bundle" -name '*.dat' -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }')
	echo "bench: bundle: $(find "$tmp/bundle" -name '*.dat' | wc -l) .dat files, $dat bytes;" \
		"$(find "$tmp/bundle" -name '*.png' | wc -l) PNG, $(find "$tmp/bundle" -name '*.svg' | wc -l) SVG;" \
		"whole bundle $(du -sk "$tmp/bundle" | cut -f1) KiB"
	find "$tmp/bundle" -name '*.dat' -printf 'bench:   %s bytes %P\n' | sort -k2 -n -r | head -n 5
	# Where the bundle's time goes: each figure rendered again alone.
	for gp in "$tmp"/bundle/*/*.gp; do
		fig=${gp%.gp}
		(cd "${gp%/*}" && /usr/bin/time -o "$tmp/time" -f '%e %M' gnuplot "${gp##*/}")
		read -r wall rss <"$tmp/time"
		# A scatter of many points is drawn as PNG only (docs/bundle.md).
		svg="no SVG"
		[[ -f $fig.svg ]] && svg="$(stat -c %s "$fig.svg") bytes SVG"
		echo "bench:   gnuplot ${gp##*/}: $wall s, peak RSS $rss KiB;" \
			"$(stat -c %s "$fig.png") bytes PNG, $svg"
	done
	rm -rf "$cap" "$tmp/bundle"
fi

# --- (d) reader: decode + merge, and --dump, against blkparse ------------
"$BUILD/bench/reader_bench" -k -n "$reader_events" "$tmp"
measure "blkparse -i ($reader_events)" "$reader_events" blkparse -q -i "$tmp/bench" -o /dev/null
measure "wcanalyze --dump ($reader_events)" "$reader_events" "$BUILD/wcanalyze" --dump "$tmp/bench"
rm -f "$tmp"/bench.blktrace.*

# --- (e) tests/wcsynth captures: the model t30 checks, at scale ---------
# Its requests overlap, merge, split nothing, and every few files a
# flush and journal commit go out; time per event must not grow with the
# trace.  Then the same model with a 2 MB/s disk, which the workload
# outruns: bios queue up without end, so the tracker's and btt's caps
# (65,536 per device) are reached and must keep memory and time per
# event flat from there on.
largest=0
for n in $synth_sizes; do
	((n > largest)) && largest=$n
done
for n in $synth_sizes; do
	cap=$tmp/s$n
	synth_capture "$cap" "$n"
	ev=$(events_json "$cap")
	measure "wcsynth csv ($n)" "$ev" "$BUILD/wcanalyze" --format csv "$cap"
	measure "wcsynth text ($n)" "$ev" "$BUILD/wcanalyze" "$cap"
	if [[ $n == "$largest" && $synth_bundle == 1 ]]; then
		WCANALYZE_PLOTS=$top/plots measure "wcsynth -o bundle ($n)" \
			"$ev" "$BUILD/wcanalyze" -o "$tmp/sbundle" "$cap"
		echo "bench: wcsynth bundle: $(find "$tmp/sbundle" -name '*.png' | wc -l) PNG," \
			"$(find "$tmp/sbundle" -name '*.svg' | wc -l) SVG, whole bundle" \
			"$(du -sk "$tmp/sbundle" | cut -f1) KiB"
		rm -rf "$tmp/sbundle"
	fi
	rm -rf "$cap"
done
for n in $overload_sizes; do
	cap=$tmp/o$n
	synth_capture "$cap" "$n" --rate 2
	ev=$(events_json "$cap")
	measure "wcsynth 2 MB/s csv ($n)" "$ev" "$BUILD/wcanalyze" --format csv "$cap"
	rm -rf "$cap"
done

# The memory claim in one line: the analyser's peak over every size.
awk -F '\t' '$1 ~ /^wcanalyze (text|json) / {
	if (lo == "" || $6 < lo) { lo = $6; lon = $2 }
	if ($6 > hi) { hi = $6; hin = $2 }
} END {
	if (lo != "")
		printf "bench: wcanalyze peak RSS over all sizes: %d to %d KiB" \
			" (smallest at %s events, largest at %s)\n", lo, hi, lon, hin
}' "$summary"
awk -F '\t' '$1 ~ /^wcsynth (csv|text) / {
	if (lo == "" || $6 < lo) lo = $6
	if ($6 > hi) hi = $6
	if (rlo == "" || $5 < rlo) rlo = $5
	if ($5 > rhi) rhi = $5
} END {
	if (lo != "")
		printf "bench: wcsynth captures: peak RSS %d to %d KiB," \
			" %s to %s M events/s over all sizes\n", lo, hi, rlo, rhi
}' "$summary"

echo
echo "summary"
awk -F '\t' 'BEGIN {
	printf "%-32s %9s %7s %7s %7s %8s\n", "what (events asked)", "events",
		"wall s", "cpu s", "M ev/s", "RSS MiB"
} {
	printf "%-32s %9s %7s %7s %7s %8.1f\n", $1, $2, $3, $4, $5, $6 / 1024
}' "$summary"
