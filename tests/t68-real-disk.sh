#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t68-real-disk.sh - the machine's own disk, the one holding TMPDIR,
# recorded with "wccapture record" while a small tree is copied there,
# synced and deleted: the analysis holds the writes the kernel completed
# (/sys/block/DEV/stat before and after, counters.tsv, compared by
# kcounters.c) within 2 %, other activity on the disk being in both.
# Nothing of the disk's settings is changed; where it cannot be traced
# (no block device under TMPDIR, no tracefs) the test skips and says why.
# shellcheck source=tests/lib/common.sh
source "$(dirname "$0")/lib/common.sh"
need_root

src=$(df --output=source "$TMP" 2>/dev/null | tail -n 1)
[[ $src == /dev/* && -b $src ]] || skip "TMPDIR ($TMP) is not on a block device ($src)"
part=$(basename "$(readlink -f "$src")")
disk=$part
if [[ -e /sys/class/block/$part/partition ]]; then
	disk=$(basename "$(readlink -f "/sys/class/block/$part/..")")
fi
[[ -r /sys/block/$disk/stat ]] || skip "no /sys/block/$disk/stat for $src"
wc_before=$(cat "/sys/block/$disk/queue/write_cache" 2>/dev/null || echo none)

rc=0
bash "$TOP/capture/wccapture" record --device "$disk" --name real --recorder tracefs \
	-o "$TMP/out" -- sh -c "cp -a '$TOP/capture' '$TMP/tree' && sync && rm -r '$TMP/tree' && sync" \
	2>"$TMP/log" || rc=$?
[[ $(cat "$TRACEFS/current_tracer") == nop ]] || fail "tracer left on"
[[ $(cat "/sys/block/$disk/queue/write_cache" 2>/dev/null || echo none) == "$wc_before" ]] ||
	fail "the disk's write cache setting changed"
[[ $rc -eq 0 ]] || fail "record on $disk exited $rc: $(tail -n 3 "$TMP/log")"
"$WCANALYZE" --format json "$TMP/out/real.tar.gz" >"$TMP/r.json" || fail "the analysis failed"
tree_kb=$(du -sk "$TOP/capture" | cut -f1)

# agree JSON: the trace's counts of DISK against the kernel's, each
# within 2 % (at least 2 requests or 16 sectors: a request may complete
# between a counter's reading and the trace's edge), its busy time within
# 25 % + 20 ms of io_ticks (jiffies; queue time before the driver), and
# the tree's bytes among the writes.
agree() {
	python3 - "$1" "$disk" "$tree_kb" <<'PY'
import json, sys
k = json.load(open(sys.argv[1]))["captures"][0]["kernel_counters"]
assert k["state"] == "compared", k["state"]
d = [x for x in k["devices"] if x["name"] == sys.argv[2]]
assert d, "no counters of " + sys.argv[2]
d = d[0]
for f, floor in (("reads", 2), ("writes", 2), ("flushes", 2),
                 ("read_sectors", 16), ("write_sectors", 16)):
    kern, trace = d[f]["kernel"], d[f]["trace"]
    assert abs(kern - trace) <= max(0.02 * kern, floor), (f, kern, trace)
assert d["writes"]["kernel"] > 0, "the kernel completed no write"
assert d["write_sectors"]["trace"] * 512 >= int(sys.argv[3]) * 1024, \
    ("fewer bytes written than the tree holds", d["write_sectors"])
busy, ticks = d["busy_s"], d["io_ticks_s"]
assert abs(busy - ticks) <= 0.25 * ticks + 0.02, (busy, ticks)
print("%s: reads %d/%d, writes %d/%d, flushes %d/%d, busy %.3f s, "
      "io_ticks %.3f s" % (sys.argv[2], d["reads"]["trace"],
      d["reads"]["kernel"], d["writes"]["trace"], d["writes"]["kernel"],
      d["flushes"]["trace"], d["flushes"]["kernel"], busy, ticks))
PY
}
agree "$TMP/r.json" || fail "the trace of $disk and the kernel's counters disagree"
# The check can fail: the same report with 3 % of the writes taken out
# of the trace's count does not agree.
jq '.captures[0].kernel_counters.devices[0].writes.trace |=
	(. - ([(. * 0.03 | ceil), 3] | max))' "$TMP/r.json" >"$TMP/lost.json"
if agree "$TMP/lost.json" 2>/dev/null; then
	fail "3 % of the writes lost still agrees: the check tests nothing"
fi
echo "t68: ok"
