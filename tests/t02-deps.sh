#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t02-deps.sh - scripts/deps.sh, which "make demo" and "make check" run
# first: with everything present it says nothing; a user who is not root
# and lacks a package gets the exact apt-get command and exit 1, and
# nothing is installed; plain "make" never installs, even as root: it
# stops and says what is missing.  (The root path runs apt-get for real:
# CI on a fresh machine exercises it.)
# shellcheck source=tests/lib/common.sh
source "$(dirname "$0")/lib/common.sh"

DEPS=$TOP/scripts/deps.sh
out=$(bash "$DEPS" check 2>&1) || fail "deps.sh check failed here: $out"
[[ -z $out ]] || fail "deps.sh check printed with nothing missing: $out"
expect_exit 2 bash "$DEPS" nonsense 2>/dev/null

# Plain make, pkg-config missing: an apt-get on the PATH that notes being
# called must not be called, whoever runs make.
mkdir "$TMP/nopc"
for c in bash env id cc make mkdir cat rm printf; do
	ln -s "$(command -v "$c")" "$TMP/nopc/$c"
done
# shellcheck disable=SC2016 # expanded when apt-get runs
printf '#!/bin/sh\ntouch "$APT_MARK"\nexit 1\n' >"$TMP/nopc/apt-get"
chmod 755 "$TMP/nopc/apt-get"
rc=0
(cd "$TOP" && env -i PATH="$TMP/nopc" HOME=/ APT_MARK="$TMP/apt-called" \
	make --no-print-directory BUILD="$TMP/b" >"$TMP/make.out" 2>&1) || rc=$?
[[ $rc -ne 0 ]] || fail "make without pkg-config succeeded: $(cat "$TMP/make.out")"
[[ ! -e $TMP/apt-called ]] || fail "plain make ran apt-get"
grep -q '^deps: missing packages: pkg-config ' "$TMP/make.out" ||
	fail "plain make did not say what is missing: $(cat "$TMP/make.out")"
[[ ! -e $TMP/b/analyze ]] || fail "plain make compiled although pkg-config is missing"

if [[ $(id -u) -ne 0 ]] || ! command -v setpriv >/dev/null 2>&1; then
	skip "needs root and setpriv to run deps.sh as another user"
fi
# A PATH with the compiler and pkg-config but without blktrace's tools
# (they live in /usr/bin, where deps.sh's /usr/sbin fallback does not look).
chmod 755 "$TMP"
mkdir "$TMP/bin"
for c in bash id pkg-config cc make; do
	ln -s "$(command -v "$c")" "$TMP/bin/$c"
done
rc=0
setpriv --reuid=65534 --regid=65534 --clear-groups \
	env -i PATH="$TMP/bin" HOME=/ bash "$DEPS" check >"$TMP/out" 2>&1 || rc=$?
[[ $rc -eq 1 ]] || fail "not root, blktrace missing: exit $rc: $(cat "$TMP/out")"
grep -q '^deps: missing packages: .*\bblktrace\b' "$TMP/out" || fail "no list of what is missing: $(cat "$TMP/out")"
grep -Eq '^deps: run: sudo apt-get install( [a-z0-9.+-]+)+$' "$TMP/out" ||
	fail "no exact command to run: $(cat "$TMP/out")"
grep -q 'libarchive-dev' "$TMP/out" && fail "libarchive-dev reported missing although pkg-config finds it"
# The same user building only: the compiler and libarchive are there.
rc=0
setpriv --reuid=65534 --regid=65534 --clear-groups \
	env -i PATH="$TMP/bin" HOME=/ bash "$DEPS" build >"$TMP/out" 2>&1 || rc=$?
[[ $rc -eq 0 ]] || fail "deps.sh build as another user: exit $rc: $(cat "$TMP/out")"
echo "ok"
