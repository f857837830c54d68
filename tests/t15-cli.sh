#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t15-cli.sh - the command line: --help, --version, usage errors (exit 2
# with a hint), several inputs, output write errors.
# shellcheck source=tests/lib/common.sh
source "$(dirname "$0")/lib/common.sh"

FIX=$TOP/tests/fixtures/reader
cd "$TMP"

"$WCANALYZE" --help >help.out
grep -q '^usage: wcanalyze ' help.out || fail "--help has no usage line"
grep -q -- '--dump' help.out || fail "--help does not mention --dump"
# The man page's SYNOPSIS names the same options as usage().
while IFS= read -r opt; do
	grep -qF -- "${opt//-/\\-}" "$TOP/docs/wcanalyze.1" ||
		fail "docs/wcanalyze.1 does not document $opt"
done < <(grep -o -- '--[a-z-]*' help.out | sort -u)

"$WCANALYZE" --version >version.out
grep -Eq '^wcanalyze [0-9]+\.[0-9]+\.[0-9]+$' version.out || fail "--version: $(cat version.out)"

for args in "--no-such-option x" "-Z x" "" "--what-if kernel=2.6.25 x" \
	"--equivalence 0 x" "--equivalence 101% x" "--threads 3 x" \
	"--threads 0 x"; do
	rc=0
	# shellcheck disable=SC2086 # split on purpose
	"$WCANALYZE" $args >out 2>err || rc=$?
	[[ $rc -eq 2 ]] || fail "'$args': exit $rc, expected 2"
	[[ ! -s out ]] || fail "'$args': printed to stdout"
	grep -q "^wcanalyze: try 'wcanalyze --help'$" err || fail "'$args': no hint: $(cat err)"
done

# Several inputs dump one after the other.
"$WCANALYZE" --dump "$FIX/ext4" >a
"$WCANALYZE" --dump "$FIX/xfs" >b
"$WCANALYZE" --dump "$FIX/ext4" "$FIX/xfs" >ab
cat a b | cmp -s - ab || fail "two inputs do not dump one after the other"

# A bad input among good ones: the good ones are dumped, the status is 2.
rc=0
"$WCANALYZE" --dump "$FIX/ext4" nonexistent "$FIX/xfs" >abn 2>err || rc=$?
[[ $rc -eq 2 ]] || fail "bad input among good: exit $rc"
cmp -s ab abn || fail "bad input among good: good inputs not all dumped"

# A full disk is a failure (1), not bad input.
if [[ -w /dev/full ]]; then
	rc=0
	"$WCANALYZE" --dump "$FIX/ext4" >/dev/full 2>err || rc=$?
	[[ $rc -eq 1 ]] || fail "write error: exit $rc, expected 1"
	grep -q '^wcanalyze: standard output: ' err || fail "write error not reported: $(cat err)"
fi
echo ok
