#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run-tests.sh - runs Check test programs and shell tests, then prints one
# closing line "tests: N passed, N failed, N skipped".
#
# A Check program counts each of its checks (its per-test timeout raised
# from Check's 4 s to 120 s: a loaded machine is not a failing test).  A shell test counts once:
# exit 0 passes, 77 skips (its last output line says why), anything else
# fails.  With WCANALYZE_STRICT=1 a skip counts as a failure, so CI cannot
# pass by skipping the tests that need root, loop devices or tracefs;
# except that with WCANALYZE_SKIP_ROOT=1 (tests/lib/common.sh) a test
# that skips at need_root for that reason only counts as a skip.
set -euo pipefail

: "${BUILD:?BUILD must name the build directory}"
export BUILD
top=$(cd "$(dirname "$0")/.." && pwd)
export WC_TOP=$top
strict=${WCANALYZE_STRICT:-0}
skip_root=${WCANALYZE_SKIP_ROOT:-0}
# The line need_root prints when WCANALYZE_SKIP_ROOT=1 (tests/lib/common.sh).
skip_root_line="skip: root part not run (WCANALYZE_SKIP_ROOT=1)"

passed=0 failed=0 skipped=0
failures=()
log=$(mktemp)
trap 'rm -f "$log"' EXIT

for t in "$@"; do
	name=${t##*/}
	case $t in
	*.sh)
		rc=0
		(cd "$top" && bash "$t") >"$log" 2>&1 || rc=$?
		if [[ $rc -eq 0 ]]; then
			passed=$((passed + 1)); echo "PASS: $name"
		elif [[ $rc -eq 77 && ($strict != 1 || ($skip_root == 1 &&
			$(tail -n 1 "$log") == "$skip_root_line")) ]]; then
			skipped=$((skipped + 1))
			echo "SKIP: $name: $(tail -n 1 "$log")"
		else
			failed=$((failed + 1)); failures+=("$name")
			[[ $rc -eq 77 ]] && echo "FAIL: $name: skipped under WCANALYZE_STRICT=1"
			echo "FAIL: $name (exit $rc)"; sed 's/^/    /' "$log" | tail -n 40
		fi
		;;
	*)
		rc=0
		(cd "$top" && CK_VERBOSITY=${CK_VERBOSITY:-normal} CK_DEFAULT_TIMEOUT=${CK_DEFAULT_TIMEOUT:-120} "$t") >"$log" 2>&1 || rc=$?
		line=$(grep -Eo 'Checks: [0-9]+, Failures: [0-9]+, Errors: [0-9]+' "$log" | tail -n 1 || true)
		if [[ -z $line ]]; then
			failed=$((failed + 1)); failures+=("$name")
			echo "FAIL: $name (exit $rc, no Check summary)"; sed 's/^/    /' "$log" | tail -n 40
			continue
		fi
		[[ $line =~ Checks:\ ([0-9]+),\ Failures:\ ([0-9]+),\ Errors:\ ([0-9]+) ]]
		n=${BASH_REMATCH[1]} f=${BASH_REMATCH[2]} e=${BASH_REMATCH[3]}
		bad=$((f + e))
		passed=$((passed + n - bad)); failed=$((failed + bad))
		if [[ $bad -eq 0 && $rc -eq 0 ]]; then
			echo "PASS: $name ($n checks)"
		else
			[[ $bad -eq 0 ]] && failed=$((failed + 1))
			failures+=("$name"); echo "FAIL: $name"; sed 's/^/    /' "$log" | tail -n 40
		fi
		;;
	esac
done

[[ ${#failures[@]} -eq 0 ]] || echo "failed: ${failures[*]}"
echo "tests: $passed passed, $failed failed, $skipped skipped"
[[ $failed -eq 0 ]]
