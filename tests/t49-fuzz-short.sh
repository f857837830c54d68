#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t49-fuzz-short.sh - each libFuzzer target (tests/fuzz/) built with
# clang, ASan and UBSan ("make fuzz-build", into $TOP/build-fuzz, shared
# with "make fuzz" and reused when up to date) runs for a short while
# from its seeds alone: a target that aborts on a seed, or finds anything
# in that time, fails here, so a defect that blinds the fuzzers (issue 22:
# all three stopped at their first seed on a null pointer plus 0) cannot
# land unseen.  WCFUZZ_SECONDS (15) per target; the long runs are
# "make fuzz" (docs/security.md, Fuzzing).
# shellcheck source=tests/lib/common.sh
source "$(dirname "$0")/lib/common.sh"

seconds=${WCFUZZ_SECONDS:-15}
fb=$TOP/build-fuzz
# Not the caller's make's settings (BUILD, SANITIZE of CI's second pass):
# the fuzz build has its own.
env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS make -C "$TOP" --no-print-directory \
	FUZZ_BUILD="$fb" fuzz-build >"$TMP/build.log" 2>&1 ||
	{ tail -n 20 "$TMP/build.log" >&2; fail "make fuzz-build failed"; }
rc=0
FUZZ_BUILD=$fb FUZZ_OUT=$TMP/out FUZZ_SECONDS=$seconds \
	"$TOP/tests/fuzz/run.sh" trace archive bundle interval timeline whatif diskparams summary >"$TMP/run.log" 2>&1 || rc=$?
cat "$TMP/run.log"
[[ $rc -eq 0 ]] || fail "a fuzz target failed (run.sh exited $rc)"
# Each target got past its seeds and ran inputs of its own.
for t in trace archive bundle interval timeline whatif diskparams summary; do
	runs=$(sed -n "s/^fuzz-$t: \([0-9]*\) runs.*/\1/p" "$TMP/run.log")
	seeds=$(find "$TOP/tests/fuzz/corpus-$t" -type f | wc -l)
	[[ ${runs:-0} -gt $seeds ]] || fail "fuzz-$t ran ${runs:-no} inputs, not past its $seeds seeds"
done
