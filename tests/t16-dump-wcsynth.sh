#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t16-dump-wcsynth.sh - traces from the synthetic generator carry what the
# tracefs fixtures lack: sequence numbers from 1, process notify records,
# big-endian records, two devices in a capture directory.  Their dumps
# must be blkparse's event lines too.
# shellcheck source=tests/lib/common.sh
source "$(dirname "$0")/lib/common.sh"

cd "$TMP"
"$WCSYNTH" -n 150 plain
"$WCSYNTH" -n 80 -b -o -S 7 -c cap

blkparse -q -i plain | grep -v '^Input file ' >plain.bp
"$WCANALYZE" --dump plain >plain.wc 2>plain.err
cmp -s plain.bp plain.wc || { show_diff plain.bp plain.wc; fail "plain: dump differs"; }
grep -q '^ *[0-9]*,[0-9]* *[0-9]* *1 ' plain.wc || fail "plain: no sequence numbers"
grep -qv '(null)' plain.wc || fail "plain: no process names"
[[ ! -s plain.err ]] || fail "plain: unexpected diagnostics: $(cat plain.err)"

devs=()
while IFS= read -r d; do devs+=(-i "$d"); done < <(
	find cap/trace -name '*.blktrace.[0-9]*' -printf '%f\n' |
		sed 's/\.blktrace\.[0-9]*$//' | LC_ALL=C sort -u)
[[ ${#devs[@]} -eq 4 ]] || fail "expected two devices, got: ${devs[*]}"
blkparse -q -D cap/trace "${devs[@]}" | grep -v '^Input file ' >cap.bp
"$WCANALYZE" --dump cap >cap.wc
cmp -s cap.bp cap.wc || { show_diff cap.bp cap.wc; fail "capture: dump differs"; }
echo "ok: $(wc -l <plain.wc) + $(wc -l <cap.wc) events"
