#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t14-dump-live.sh - records a fresh trace on this machine through tracefs
# (tests/fixtures/reader/record.sh: ext4 and xfs on a loop device, a small
# copy, sync and delete) and checks that "wcanalyze --dump" prints the
# same event lines as blkparse for it.
# shellcheck source=tests/lib/common.sh
source "$(dirname "$0")/lib/common.sh"
need_root

for fs in ext4 xfs; do
	out=$TMP/$fs
	# tracefs is one per machine: wait (up to a minute) for another
	# recorder to finish rather than fail.
	for try in $(seq 1 30); do
		rc=0
		rm -rf "$out"
		"$TOP/tests/fixtures/reader/record.sh" "$out" "$fs" >"$TMP/record-$fs.log" 2>&1 || rc=$?
		[[ $rc -eq 75 ]] || break
		sleep 2
	done
	[[ $rc -eq 0 ]] || fail "record.sh $fs failed (try $try): $(tail -n 5 "$TMP/record-$fs.log")"
	devs=()
	while IFS= read -r d; do devs+=(-i "$d"); done < <(
		find "$out" -name '*.blktrace.[0-9]*' -printf '%f\n' |
			sed 's/\.blktrace\.[0-9]*$//' | LC_ALL=C sort -u)
	[[ ${#devs[@]} -gt 0 ]] || fail "$fs: nothing recorded"
	blkparse -q -D "$out" "${devs[@]}" | grep -v '^Input file ' >"$TMP/$fs.bp"
	[[ -s $TMP/$fs.bp ]] || fail "$fs: blkparse printed no events"
	"$WCANALYZE" --dump "$out" >"$TMP/$fs.wc"
	cmp -s "$TMP/$fs.bp" "$TMP/$fs.wc" || { show_diff "$TMP/$fs.bp" "$TMP/$fs.wc"; fail "$fs: dump differs"; }
	echo "$fs: $(wc -l <"$TMP/$fs.wc") events agree"
done
