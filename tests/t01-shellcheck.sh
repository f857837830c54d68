#!/usr/bin/env bash
# t01-shellcheck.sh - every bash script of the project is shellcheck-clean.
# shellcheck source=tests/lib/common.sh
source "$(dirname "$0")/lib/common.sh"

command -v shellcheck >/dev/null 2>&1 || skip "shellcheck is not installed"
cd "$TOP"
mapfile -t scripts < <(ls capture/wccapture scripts/*.sh tests/*.sh tests/lib/*.sh \
	tests/fixtures/*/*.sh tests/fuzz/*.sh .ci/run 2>/dev/null)
[[ ${#scripts[@]} -gt 10 ]] || fail "found only ${#scripts[@]} scripts"
shellcheck -x "${scripts[@]}" >"$TMP/sc.out" 2>&1 || fail "$(head -n 30 "$TMP/sc.out")"
echo "ok: ${#scripts[@]} scripts clean"
