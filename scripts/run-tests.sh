#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run-tests.sh [-j N] TEST... - runs Check test programs and shell tests,
# N at once (default: $WCANALYZE_JOBS, else the number of CPUs), then
# prints one closing line "tests: N passed, N failed, N skipped".  Each
# test's result line gives its wall-clock seconds, to find the slow.  Each
# test's lines are printed when it ends, whole, never interleaved.  Tests
# may run side by side because each works in its own mktemp folder and
# those that need root take turns on /run/lock/wcanalyze-root.lock
# (need_root, tests/lib/common.sh); a test that builds does so in its
# own folder.
#
# Tests start in the order given (the GNUmakefile gives the longest
# first, so that the job slots end together), except that a test that
# needs root (a line "need_root") starts only when no other is running:
# they would only wait for the lock, holding slots the others could use.
# When root tests can run at all, the next of them starts first whenever
# none runs, as their time on the lock adds up to a critical path of its
# own.  A root test's line says how long it waited for the lock (another
# run's root test holding it).
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

jobs=${WCANALYZE_JOBS:-$(nproc 2>/dev/null || echo 1)}
if [[ ${1:-} == -j ]]; then
	jobs=$2
	shift 2
elif [[ ${1:-} == -j* ]]; then
	jobs=${1#-j}
	shift
fi
[[ $jobs =~ ^[1-9][0-9]*$ ]] || { echo "run-tests.sh: -j wants a count, not '$jobs'" >&2; exit 2; }

passed=0 failed=0 skipped=0
failures=()
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT

# run I TEST: runs TEST into $logs/I.log, its exit status into $logs/I.rc.
# A shell test starts with SIGINT and SIGQUIT at their defaults: a job run
# in the background of a shell without job control (as run() is here, or
# this script itself under nohup or "cmd &") inherits them ignored, and a
# signal ignored when bash starts can never be trapped, so the tests that
# interrupt wccapture (t22, t26, t29) would see it exit 0.
run() {
	local rc=0 start=$SECONDS
	case $2 in
	*.sh) (cd "$top" && env --default-signal=INT,QUIT bash "$2") >"$logs/$1.log" 2>&1 || rc=$? ;;
	*) (cd "$top" && CK_VERBOSITY=${CK_VERBOSITY:-normal} CK_DEFAULT_TIMEOUT=${CK_DEFAULT_TIMEOUT:-120} "$2") >"$logs/$1.log" 2>&1 || rc=$? ;;
	esac
	echo "$((SECONDS - start))" >"$logs/$1.secs"
	echo "$rc" >"$logs/$1.rc.tmp"
	mv "$logs/$1.rc.tmp" "$logs/$1.rc"
}

# report I TEST: counts and prints the result of a test that has ended.
report() {
	local t=$2 log=$logs/$1.log rc name line n f e bad secs waited
	rc=$(cat "$logs/$1.rc")
	secs=$(cat "$logs/$1.secs")
	name=${t##*/}
	case $t in
	*.sh)
		waited=$(sed -n 's/^root lock: waited \([0-9]*\) s$/; \1 s of them waiting for the root lock/p' "$log")
		if [[ $rc -eq 0 ]]; then
			passed=$((passed + 1)); echo "PASS: $name ($secs s$waited)"
		elif [[ $rc -eq 77 && ($strict != 1 || ($skip_root == 1 &&
			$(tail -n 1 "$log") == "$skip_root_line")) ]]; then
			skipped=$((skipped + 1))
			echo "SKIP: $name: $(tail -n 1 "$log")"
		else
			failed=$((failed + 1)); failures+=("$name")
			[[ $rc -eq 77 ]] && echo "FAIL: $name: skipped under WCANALYZE_STRICT=1"
			echo "FAIL: $name (exit $rc, $secs s$waited)"; sed 's/^/    /' "$log" | tail -n 40
		fi
		;;
	*)
		line=$(grep -Eo 'Checks: [0-9]+, Failures: [0-9]+, Errors: [0-9]+' "$log" | tail -n 1 || true)
		if [[ -z $line ]]; then
			failed=$((failed + 1)); failures+=("$name")
			echo "FAIL: $name (exit $rc, no Check summary)"; sed 's/^/    /' "$log" | tail -n 40
			return 0
		fi
		[[ $line =~ Checks:\ ([0-9]+),\ Failures:\ ([0-9]+),\ Errors:\ ([0-9]+) ]]
		n=${BASH_REMATCH[1]} f=${BASH_REMATCH[2]} e=${BASH_REMATCH[3]}
		bad=$((f + e))
		passed=$((passed + n - bad)); failed=$((failed + bad))
		if [[ $bad -eq 0 && $rc -eq 0 ]]; then
			echo "PASS: $name ($n checks, $secs s)"
		else
			[[ $bad -eq 0 ]] && failed=$((failed + 1))
			failures+=("$name"); echo "FAIL: $name"; sed 's/^/    /' "$log" | tail -n 40
		fi
		;;
	esac
}

# Root tests take turns only where need_root would not skip at once.
takes_turns=0
[[ $skip_root == 1 || $(id -u) -ne 0 ]] || takes_turns=1
is_root_test() {
	[[ $takes_turns == 1 && $1 == *.sh ]] && grep -Eq '^[[:space:]]*need_root([[:space:]]|$)' "$1"
}

# Two queues of indexes into tests, each in the order given.
tests=("$@")
roots=() others=()
for i in "${!tests[@]}"; do
	if is_root_test "${tests[$i]}"; then roots+=("$i"); else others+=("$i"); fi
done

# Start up to $jobs tests; report each as it ends, in the order they end.
declare -A running=()
root_running=""
while [[ ${#roots[@]} -gt 0 || ${#others[@]} -gt 0 || ${#running[@]} -gt 0 ]]; do
	while [[ ${#running[@]} -lt $jobs ]]; do
		if [[ -z $root_running && ${#roots[@]} -gt 0 ]]; then
			i=${roots[0]}; roots=("${roots[@]:1}"); root_running=$i
		elif [[ ${#others[@]} -gt 0 ]]; then
			i=${others[0]}; others=("${others[@]:1}")
		else
			break
		fi
		run "$i" "${tests[$i]}" &
		running[$i]=$!
	done
	wait -n || true
	for i in "${!running[@]}"; do
		[[ -e $logs/$i.rc ]] || continue
		wait "${running[$i]}" || true
		unset "running[$i]"
		[[ $i != "$root_running" ]] || root_running=""
		report "$i" "${tests[$i]}"
	done
done

[[ ${#failures[@]} -eq 0 ]] || echo "failed: ${failures[*]}"
echo "tests: $passed passed, $failed failed, $skipped skipped"
[[ $failed -eq 0 ]]
