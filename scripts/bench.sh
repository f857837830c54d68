#!/usr/bin/env bash
# bench.sh - speed and memory benchmarks ("make bench").  Never part of
# "make check": numbers depend on the machine.  Each section prints its
# own lines; other benchmarks append sections below.
set -euo pipefail

: "${BUILD:?BUILD must name the build directory}"
top=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/wcbench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cd "$top"

# Wall time and peak memory of a command, its output thrown away.
measure() {
	local label=$1 start end
	shift
	if [[ -x /usr/bin/time ]]; then
		/usr/bin/time -f "bench: $label: %e s, peak RSS %M KiB" "$@" >/dev/null
	else
		start=$(date +%s.%N)
		"$@" >/dev/null
		end=$(date +%s.%N)
		echo "bench: $label: $(echo "$end - $start" | bc) s"
	fi
}

# --- reader: decode + merge, and --dump, against blkparse ---------------
events=${READER_BENCH_EVENTS:-4000000}
"$BUILD/bench/reader_bench" -k -n "$events" "$tmp"
measure "blkparse -i ($events events)" blkparse -q -i "$tmp/bench" -o /dev/null
measure "wcanalyze --dump ($events events)" "$BUILD/wcanalyze" --dump "$tmp/bench"
rm -f "$tmp"/bench.blktrace.*
