#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run.sh - runs libFuzzer targets built by "make fuzz" (FUZZ_BUILD), each
# for FUZZ_SECONDS, one after the other, and prints per target one line:
#
#   fuzz-TARGET: N runs in S s (R/s), cov C, ft F, corpus K, rss M MB, findings X
#
# The working corpus is OUT/corpus-TARGET (grown from the seeds in
# tests/fuzz/corpus-TARGET, which are only read); an input that fails
# is saved under OUT/findings/TARGET/ and the log is kept in
# OUT/TARGET.log, where OUT is FUZZ_OUT, or FUZZ_BUILD when unset (a
# scratch folder gives a run from the seeds alone, as t49 runs it).  A
# finding becomes a regression test by copying it into
# tests/fuzz/crashers/TARGET/ once fixed (t19-fuzz-replay.sh).
# Exit 1 when any target found something or exited with a failure,
# as when it aborts on a seed.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
: "${FUZZ_BUILD:?FUZZ_BUILD must name the fuzz build directory}"
out=${FUZZ_OUT:-$FUZZ_BUILD}
seconds=${FUZZ_SECONDS:-60}
# libFuzzer takes 0 as "for ever".
[[ $seconds =~ ^[0-9]+$ && $seconds -gt 0 ]] || { echo "run.sh: FUZZ_SECONDS must be a positive number" >&2; exit 2; }
# Scratch files of the targets: memory is faster than disk when there is.
if [[ -z ${TMPDIR:-} && -d /dev/shm && -w /dev/shm ]]; then
	export TMPDIR=/dev/shm
fi

status=0
for t in "$@"; do
	bin=$FUZZ_BUILD/tests/fuzz/fuzz-$t
	work=$out/corpus-$t
	found=$out/findings/$t
	log=$out/$t.log
	[[ -x $bin ]] || { echo "run.sh: $bin not built (make fuzz)" >&2; exit 1; }
	mkdir -p "$work" "$found"
	before=$(find "$found" -type f | wc -l)
	dict=()
	[[ -f $top/tests/fuzz/$t.dict ]] && dict=(-dict="$top/tests/fuzz/$t.dict")
	rc=0
	t0=$SECONDS
	# -timeout: an input that takes this long is a hang (the -o loop of
	# issue 8 was one); -rss_limit_mb: memory must stay bounded.
	(cd "$top" && "$bin" -max_total_time="$seconds" -timeout=20 \
		-rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$found/" \
		"${dict[@]}" "$work" "$top/tests/fuzz/corpus-$t") >"$log" 2>&1 || rc=$?
	took=$((SECONDS - t0))
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	rss=$(sed -n 's/^stat::peak_rss_mb: *//p' "$log")
	last=$(grep -E '^#[0-9]+' "$log" | tail -n 1 || true)
	# After a finding there is no final statistics line.
	[[ -n $runs ]] || runs=$(sed -n 's/^#\([0-9]*\).*/\1/p' <<<"$last")
	cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
	ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
	corp=$(sed -n 's/.* corp: \([0-9]*\).*/\1/p' <<<"$last")
	after=$(find "$found" -type f | wc -l)
	new=$((after - before))
	echo "fuzz-$t: ${runs:-?} runs in $took s ($(( ${runs:-0} / (took > 0 ? took : 1) ))/s)," \
		"cov ${cov:-?}, ft ${ft:-?}, corpus ${corp:-?}, rss ${rss:-?} MB, findings $new"
	if [[ $new -gt 0 || $rc -ne 0 ]]; then
		status=1
		grep -E -m 5 '^(fuzz:|==[0-9]+==ERROR|SUMMARY|.*runtime error)' "$log" | sed 's/^/    /'
		echo "    log: $log; inputs: $found"
	fi
done
exit "$status"
