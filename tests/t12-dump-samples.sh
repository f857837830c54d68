#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t12-dump-samples.sh - for every capture archive in samples/, the event
# lines of "wcanalyze --dump ARCHIVE" are those of blkparse on the
# extracted trace files (all devices, in name order).  Run 1 of each
# configuration only: runs 2 and 3 are the same recorder on the same
# kind of traffic, and blkparse on all three would triple the test's time.
# shellcheck source=tests/lib/common.sh
source "$(dirname "$0")/lib/common.sh"

shopt -s nullglob
samples=("$TOP"/samples/*-run1.tar.*)
[[ ${#samples[@]} -gt 0 ]] || skip "no samples/*-run1.tar.* yet"

n=0
for s in "${samples[@]}"; do
	name=$(basename "$s")
	name=${name%.tar.*}
	x=$TMP/$name
	mkdir -p "$x"
	tar xf "$s" -C "$x"
	dirs=()
	while IFS= read -r d; do dirs+=("$d"); done < <(
		find "$x" -name '*.blktrace.[0-9]*' -printf '%h\n' | sort -u)
	[[ ${#dirs[@]} -eq 1 ]] || fail "$name: trace files in ${#dirs[@]} directories"
	tdir=${dirs[0]}
	devs=()
	while IFS= read -r d; do devs+=("$d"); done < <(
		find "$tdir" -name '*.blktrace.[0-9]*' -printf '%f\n' |
			sed 's/\.blktrace\.[0-9]*$//' | LC_ALL=C sort -u)
	args=()
	for d in "${devs[@]}"; do
		# blkparse stops at the first missing CPU number; empty files
		# fill the holes (it skips empty files) so it reads them all.
		max=$(find "$tdir" -name "$d.blktrace.[0-9]*" -printf '%f\n' |
			sed 's/.*\.//' | sort -n | tail -n 1)
		for ((c = 0; c < max; c++)); do
			[[ -e $tdir/$d.blktrace.$c ]] || : >"$tdir/$d.blktrace.$c"
		done
		args+=(-i "$d")
	done
	blkparse -q -D "$tdir" "${args[@]}" | grep -v '^Input file ' >"$TMP/$name.bp"
	rc=0
	"$WCANALYZE" --dump "$s" >"$TMP/$name.wc" 2>"$TMP/$name.err" || rc=$?
	[[ $rc -eq 0 ]] || fail "$name: exit $rc: $(cat "$TMP/$name.err")"
	[[ -s $TMP/$name.wc ]] || fail "$name: no events"
	if ! cmp -s "$TMP/$name.bp" "$TMP/$name.wc"; then
		show_diff "$TMP/$name.bp" "$TMP/$name.wc"
		fail "$name: dump differs from blkparse"
	fi
	n=$((n + 1))
done
echo "ok: $n samples agree with blkparse"
