# common.sh - sourced by the shell tests (tests/t*.sh).
#
# Gives: $TOP, $BUILD, $WCANALYZE, $WCRECORD, $WCSYNTH, a scratch $TMP
# removed at exit, and:
#   skip MSG      exit 77 (a failure under WCANALYZE_STRICT=1)
#   fail MSG      print and exit 1
#   need_root     skip unless root with tracefs and loop devices; then
#                 wait for any other root test on this machine to end.
#                 WCANALYZE_SKIP_ROOT=1 makes it skip in any case, with a
#                 line run-tests.sh counts as a skip even under
#                 WCANALYZE_STRICT=1 (CI's sanitizer run: the part of each
#                 test before need_root still runs)
#   expect_exit N CMD...   run CMD, fail unless it exits N
# shellcheck shell=bash
set -euo pipefail

TOP=${WC_TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
BUILD=${BUILD:-$TOP/build}
WCANALYZE=$BUILD/wcanalyze
WCRECORD=$BUILD/wcrecord
WCSYNTH=$BUILD/tests/wcsynth
export TOP BUILD WCANALYZE WCRECORD WCSYNTH

TMP=$(mktemp -d "${TMPDIR:-/tmp}/wctest.XXXXXX")
cleanup_common() { rm -rf "$TMP"; }
trap cleanup_common EXIT

skip() { echo "skip: $*"; exit 77; }
SKIP_ROOT_MSG="root part not run (WCANALYZE_SKIP_ROOT=1)"
fail() { echo "FAIL: $*" >&2; exit 1; }

need_root() {
	[[ ${WCANALYZE_SKIP_ROOT:-0} != 1 ]] || skip "$SKIP_ROOT_MSG"
	[[ $(id -u) -eq 0 ]] || skip "needs root"
	[[ -e /dev/loop-control ]] || skip "needs loop devices"
	[[ -d /sys/kernel/tracing ]] || skip "needs tracefs"
	# tracefs, loop devices and mounts are one per machine: two test runs
	# (two work trees, or make check beside a lab) must take turns.
	exec 9>/run/lock/wcanalyze-root.lock
	flock 9
}

expect_exit() {
	local want=$1 rc=0
	shift
	"$@" || rc=$?
	[[ $rc -eq $want ]] || fail "'$*' exited $rc, expected $want"
}
