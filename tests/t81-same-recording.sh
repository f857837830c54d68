#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t81-same-recording.sh - the same capture twice (issue 42): two hundred
# copies of one archive under different names were one configuration of
# n = 201 beside the capture's second run, every copy named alike and
# "run 1".  A comparison counts a recording once (the same capture.conf
# name and run, the same requests) and names the copies it left out;
# two recordings that only share a name and run stay two.
# shellcheck source=tests/lib/common.sh
source "$(dirname "$0")/lib/common.sh"

command -v python3 >/dev/null || fail "python3 is needed (scripts/deps.sh installs it)"
cd "$TMP"

"$WCSYNTH" -c -n 40 -C run=1 ext4-run1 >/dev/null || fail "wcsynth run 1"
"$WCSYNTH" -c -n 40 -S 2 -C run=2 ext4-run2 >/dev/null || fail "wcsynth run 2"
tar -cJf one.tar.xz ext4-run1
mkdir copies
for i in $(seq -w 1 200); do
	ln one.tar.xz "copies/copy-$i.tar.xz"
done

# runs_of JSON: the runs of each group, and how many captures were left
# out, on one line.
runs_of() {
	python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
left = [f for f in d["findings"] if f["kind"] == "left_out"]
print(" ".join(str(g["runs"]) for g in d["groups"]),
      int(left[0]["count"]) if left else 0)
PY
}

"$WCANALYZE" --format json copies/copy-*.tar.xz ext4-run2 >copies.json 2>copies.err ||
	fail "copies: the analysis failed: $(head -3 copies.err)"
[[ $(runs_of copies.json) == "2 199" ]] ||
	fail "200 copies and run 2: runs and left out are '$(runs_of copies.json)', not '2 199'"
"$WCANALYZE" copies/copy-*.tar.xz ext4-run2 >copies.txt 2>/dev/null || fail "copies: text"
tr -s ' \n' ' ' <copies.txt >copies.flat
grep -q "copies/copy-002.tar.xz: the same recording as copies/copy-001.tar.xz" copies.flat ||
	fail "copies: the text does not name the copy and its first: $(grep -A3 'Left out' copies.txt)"

# One input given twice is one recording too.
"$WCANALYZE" --format json ext4-run2 ext4-run2 ext4-run1 >twice.json 2>/dev/null ||
	fail "twice: the analysis failed"
[[ $(runs_of twice.json) == "2 1" ]] ||
	fail "one input twice: '$(runs_of twice.json)', not '2 1'"

# Another recording with the same name and run (another seed): its
# requests differ, so it is a run of its own, not a copy.
mkdir other
"$WCSYNTH" -c -n 40 -S 3 -C run=1 other/ext4-run1 >/dev/null || fail "wcsynth other"
"$WCANALYZE" --format json ext4-run1 other/ext4-run1 >other.json 2>/dev/null ||
	fail "other: the analysis failed"
[[ $(runs_of other.json) == "2 0" ]] ||
	fail "two recordings alike in name and run: '$(runs_of other.json)', not '2 0'"
echo "ok"
