#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t19-fuzz-replay.sh - every fuzz target (tests/fuzz/fuzz_*.c) on its seed
# corpus and on every input a fuzzer once failed on (tests/fuzz/crashers/
# TARGET/), through replay.c with this build's compiler: what libFuzzer
# found stays fixed without clang.  The checks are the targets' own
# (tests/fuzz/fuzz.h): valid JSON, plain text, safe gnuplot and HTML,
# nothing written outside the bundle, no sanitizer report under SANITIZE=1.
# shellcheck source=tests/lib/common.sh
source "$(dirname "$0")/lib/common.sh"

fz=$TOP/tests/fuzz
for t in trace archive bundle interval timeline whatif diskparams summary; do
	r=$BUILD/tests/fuzz/replay-$t
	[[ -x $r ]] || fail "$r not built"
	[[ -d $fz/corpus-$t ]] || fail "no seed corpus $fz/corpus-$t"
	dirs=("$fz/corpus-$t")
	[[ -d $fz/crashers/$t ]] && dirs+=("$fz/crashers/$t")
	rc=0
	TMPDIR=$TMP "$r" "${dirs[@]}" >"$TMP/out" 2>"$TMP/err" || rc=$?
	if [[ $rc -ne 0 ]]; then
		tail -n 20 "$TMP/err" >&2
		fail "replay-$t exited $rc"
	fi
	n=$(sed -n 's/^replay: \([0-9]*\) inputs$/\1/p' "$TMP/out")
	[[ ${n:-0} -gt 0 ]] || fail "replay-$t ran no input"
	echo "replay-$t: $n inputs"
done
# The scratch folders are the targets' own: none may be left behind.
left=$(find "$TMP" -mindepth 1 -maxdepth 1 -name 'wcfuzz.*' | wc -l)
[[ $left -eq 0 ]] || fail "$left scratch folders left in $TMP"
