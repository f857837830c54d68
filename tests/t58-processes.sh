#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t58-processes.sh - device time by process (issue 27) against --dump:
# each request is the process's that queued the bio it starts with (the
# D's sector; a split's rest, the split bio's), a flush the one whose empty Q it was or, for a flush a
# kworker dispatched ("D FN [kworker/0:2H]"), the one that queued the
# latest write asking for it ("Q FWFSM [jbd2/loop0-8]"); the requests
# and bytes of every process match that reading of the events, the
# times sum to the busy time, and the findings name the flush issuers.
# shellcheck source=tests/lib/common.sh
source "$(dirname "$0")/lib/common.sh"

SAMPLE=$TOP/samples/loop-ext4-cache-on-barrier-on-run1.tar.xz
cd "$TMP"
"$WCANALYZE" --dump "$SAMPLE" >dump.txt
"$WCANALYZE" --format json "$SAMPLE" >r.json

# From --dump, on the main device 7,0: "COMM REQUESTS BYTES" sorted.
awk '$1 == "7,0" {
	what = $6; rwbs = $7; comm = $NF; gsub(/^\[|\]$/, "", comm)
	if (what == "Q" && $9 == "+") {
		q[$8] = comm
		if (rwbs ~ /W/ && rwbs ~ /F/) asker = comm
	} else if (what == "Q") {
		eq[++nq] = comm           # an empty flush bio
	} else if (what == "X" && ($8 in q)) {
		q[$10] = q[$8]            # "X W 8 / 264": the rest is of that bio
	} else if (what == "D" && $9 == "+") {
		c = ($8 in q) ? q[$8] : comm
		n[c]++; b[c] += $10 * 512
	} else if (what == "D" && rwbs ~ /F/) {
		if (hq < nq) c = eq[++hq]; else c = asker
		n[c]++
	}
} END { for (c in n) print c, n[c], b[c] + 0 }' dump.txt | sort >want.txt
jq -r '.captures[0].processes[] | "\(.name) \(.requests) \(.bytes)"' r.json | sort >got.txt
[[ -s want.txt ]] || fail "nothing read from --dump"
diff want.txt got.txt >&2 || fail "processes differ from --dump's reading (left: --dump)"

# The slices of all processes are the busy time, to the nanosecond.
jq -e '.captures[0] | ([.processes[].time_s * 1e9 | round] | add) ==
	([.time_s | to_entries[] | select(.key != "idle") | .value * 1e9 | round] | add)' r.json >/dev/null ||
	fail "processes' time does not sum to the busy time"
# The text report has the table; the findings name who asked for flushes.
"$WCANALYZE" "$SAMPLE" >r.txt
grep -q '^device time by process' r.txt || fail "no table in the text report"
jq -e '[.findings[] | select(.kind == "flushes") | .issued_by] == ["jbd2/loop0-8 (8), sync (2)"]' r.json >/dev/null ||
	fail "the findings do not name the flush issuers: $(jq -c '.findings[] | select(.kind == "flushes")' r.json)"
# Filtered to a window: the table is of the window (sums to its busy time).
"$WCANALYZE" --format json --window 5,10.06 "$SAMPLE" >w.json
jq -e '.captures[0] | ([.processes[].time_s * 1e9 | round] | add) ==
	([.time_s | to_entries[] | select(.key != "idle") | .value * 1e9 | round] | add)' w.json >/dev/null ||
	fail "--window: processes' time does not sum to the window's busy time"
echo "t51: ok"
