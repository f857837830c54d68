#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t64-whole-trace.sh - whole-trace checks (issue 42): three broken
# captures rebuilt from wcsynth's per-CPU trace each get a "whole_trace"
# finding naming what is missing, in the text's opening findings, in JSON
# and in the bundle's page, never an error; and no latency longer than
# the pairing bound (30 s, no capture.conf):
#  - a per-CPU capture missing one CPU's file;
#  - a merged file in which every record appears four times;
#  - a capture in which nothing completes.
# shellcheck source=tests/lib/common.sh
source "$(dirname "$0")/lib/common.sh"

command -v python3 >/dev/null || fail "python3 is needed (scripts/deps.sh installs it)"
cd "$TMP"

"$BUILD/tests/wcsynth" -n 40 s >/dev/null || fail "wcsynth"

# rewrite OUT COPIES DROP_C FILE...: the records of FILE... (48-byte
# blktrace headers and their payloads, little-endian, as wcsynth writes)
# merged by time as "blkparse -d" does, each written COPIES times in a
# row, completions left out when DROP_C is 1.
rewrite() {
	python3 - "$@" <<'PY'
import struct, sys
out, copies, drop_c, files = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "1", sys.argv[4:]
recs = []
for n, name in enumerate(files):
    data = open(name, "rb").read()
    off = 0
    while off + 48 <= len(data):
        time, = struct.unpack_from("<Q", data, off + 8)
        action, = struct.unpack_from("<I", data, off + 28)
        plen, = struct.unpack_from("<H", data, off + 46)
        rec = data[off:off + 48 + plen]
        off += 48 + plen
        if drop_c and (action & 0xffff) == 8:
            continue
        recs.append((time, n, len(recs), rec))
recs.sort()
with open(out, "wb") as f:
    for r in recs:
        f.write(r[3] * copies)
PY
}

# check NAME INPUT WORDS: the analysis succeeds, its first finding is
# whole_trace and says WORDS, in text, JSON and the bundle's page; no
# D2C is longer than the bound.
check() {
	local name=$1 in=$2 words=$3
	"$BUILD/wcanalyze" "$in" >"$name.txt" 2>"$name.err" ||
		fail "$name: the analysis failed: $(cat "$name.err")"
	awk '/^findings/ { getline; print; exit }' "$name.txt" |
		grep -q "is not whole" ||
		fail "$name: the first finding is not the whole-trace one: $(head -5 "$name.txt")"
	tr -s ' \n' ' ' <"$name.txt" | grep -q "$words" ||
		fail "$name: the text does not say '$words'"
	"$BUILD/wcanalyze" --format json "$in" >"$name.json" 2>/dev/null ||
		fail "$name: JSON"
	python3 - "$name.json" "$words" <<'PY' || fail "$name: JSON finding or D2C"
import json, sys
d = json.load(open(sys.argv[1]))
f = d["findings"][0]
assert f["kind"] == "whole_trace", f
assert sys.argv[2] in f["sentence"], f["sentence"]
for c in d["captures"]:
    for k in ("d2c_s", "flush_d2c_s"):
        if c[k] and c[k]["max"] is not None:
            assert c[k]["max"] <= 30.0, (k, c[k])
PY
	"$BUILD/wcanalyze" -o "$name.bundle" "$in" >/dev/null 2>&1 ||
		fail "$name: bundle"
	grep -rlq "is not whole" "$name.bundle" ||
		fail "$name: the bundle does not say the trace is not whole"
}

# A per-CPU capture missing CPU 0's file.
mkdir cpu && cp s.blktrace.1 cpu/
check missing-cpu cpu/s.blktrace.1 "1 CPU file is missing (CPU 0"

# Every record four times in one merged file.
rewrite four.blktrace 4 0 s.blktrace.0 s.blktrace.1
check four four.blktrace "the same records more than once"
grep -q "records repeat" four.txt || fail "four: no count of repeats"

# Nothing completes.
rewrite noc.blktrace 1 1 s.blktrace.0 s.blktrace.1
check noc noc.blktrace "dispatched and never completed"

# A whole capture has no such finding.
check_whole_ok() {
	"$BUILD/wcanalyze" s.blktrace.0 >whole.txt 2>&1 ||
		fail "whole: the analysis failed"
	! grep -q "not whole" whole.txt || fail "whole: called not whole"
}
check_whole_ok
echo "ok"
