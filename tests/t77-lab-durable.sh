#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t77-lab-durable.sh - a lab copy ends when its data is on the platter:
# after the workload's last sync, while the recorder runs, the lab has
# the model disk destage its whole cache (wcdisk's control file), so on
# a capture with barriers off (the one that ends with data in the
# drive's cache) the ledger ends with the destage rows after the
# workload and the cache empty (dirty_bytes 0), capture.conf says when
# the workload returned and when its data was durable (workload_end_ns,
# durable_ns), and the report gives both, with the durable end inside
# the window whose busy times it compares.  No timing bound: every check
# is an order of events or a count, which load does not change.
# shellcheck source=tests/lib/common.sh
source "$(dirname "$0")/lib/common.sh"
# shellcheck source=tests/fixtures/capture/archive.sh
source "$TOP/tests/fixtures/capture/archive.sh"

WCC=$TOP/capture/wccapture
need_root
tracer_wait
need_wcdisk

rc=0
bash "$WCC" lab --workload seed --scale 0.05 --fs ext4 --cache on --barrier off \
	--warmup 0 -o "$TMP/out" >"$TMP/table" 2>"$TMP/log" || rc=$?
[[ $rc -eq 0 ]] || fail "lab exited $rc: $(tail -n 3 "$TMP/log")"
a=$TMP/out/hdd7200-ext4-cache-on-barrier-off-run1.tar.gz
d=$(archive_open "$a")
# The ledger: after the last command, destage rows of no command
# (op S, cause_seq 0) take the cache to empty, all of them by durable_ns.
dur=$(conf_get "$d" durable_ns)
awk -F '\t' -v dur="$dur" '
	NR == 1 { next }
	$2 != "S" { cmd = NR; cmd_dirty = $18; after = 0 }
	$2 == "S" && $20 == 0 && NR > cmd { after++ }
	$2 == "S" && dur != "" && $9 + 0 > dur + 0 { late++ }
	{ last_dirty = $18 }
	END {
		printf "ledger: last command row %d leaves %d bytes dirty; %d destage rows after it; %d bytes dirty at the end\n",
			cmd, cmd_dirty, after, last_dirty
		if (late) { print "FAIL: " late " destage rows end after durable_ns"; exit 1 }
		if (last_dirty != 0) { print "FAIL: the ledger ends with " last_dirty " bytes in the cache"; exit 1 }
		if (cmd_dirty > 0 && after == 0) { print "FAIL: no destage rows after the last command"; exit 1 }
	}' "$d/ledger.tsv" || fail "the ledger does not end with the data on the platter"

grep -E '^(workload_end_ns|durable_ns|durable_destaged_bytes) ' "$d/capture.conf" || true
wend=$(conf_get "$d" workload_end_ns)
dur=$(conf_get "$d" durable_ns)
[[ $wend =~ ^[0-9]+$ && $dur =~ ^[0-9]+$ ]] ||
	fail "capture.conf: workload_end_ns '$wend', durable_ns '$dur'"
delete_end=$(awk -F '\t' '$1 == "delete" { print $3 }' "$d/phases.tsv")
[[ $wend == "$delete_end" ]] || fail "workload_end_ns $wend is not the delete's end $delete_end"
((dur >= wend)) || fail "durable_ns $dur before workload_end_ns $wend"

# The report: both times, the durable one inside the window.
"$WCANALYZE" "$a" >"$TMP/report.txt" || fail "wcanalyze failed"
grep -E 'returned|durable' "$TMP/report.txt"
grep -qE '^ *command returned +[0-9.]+ s' "$TMP/report.txt" ||
	fail "the text report does not say when the command returned"
grep -qE '^ *data durable +[0-9.]+ s' "$TMP/report.txt" ||
	fail "the text report does not say when the data was durable"
"$WCANALYZE" --format json "$a" >"$TMP/report.json" || fail "wcanalyze --format json failed"
python3 - "$TMP/report.json" "$wend" "$dur" <<'EOF' || fail "the JSON report's durable times"
import json, sys
r = json.load(open(sys.argv[1]))
c = r["captures"][0]
d = c.get("durable")
if not d:
    sys.exit("no durable object")
wend, dur = int(sys.argv[2]), int(sys.argv[3])
if abs((d["durable_s"] - d["returned_s"]) - (dur - wend) / 1e9) > 1e-6 or d["returned_s"] <= 0:
    sys.exit("returned_s %s, durable_s %s against %s, %s" % (d["returned_s"], d["durable_s"], wend, dur))
if not d["in_window"] or d["durable_s"] > c["window_s"] + 1e-9:
    sys.exit("durable_s %s outside the window of %s s" % (d["durable_s"], c["window_s"]))
print("json: returned %.3f s, durable %.3f s, window %.3f s" % (d["returned_s"], d["durable_s"], c["window_s"]))
EOF
echo "ok: workload returned at $wend, durable at $dur ($(((dur - wend) / 1000000)) ms later)"
