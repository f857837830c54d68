#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t28-wcrecord-many-procs.sh - wcrecord names processes however many
# there are: a command that runs more short-lived processes than any
# fixed table of pids holds (5000 dd, each one direct write) gets its
# writes queued under [dd] in blkparse, with no complaint from blkparse
# and no event lost.
# shellcheck source=tests/lib/common.sh
source "$(dirname "$0")/lib/common.sh"
# shellcheck source=tests/fixtures/capture/archive.sh
source "$TOP/tests/fixtures/capture/archive.sh"

# More than the 4096 pids the recorder once kept, which named only the
# first ~4090 processes and left the other ~910 as (null).
nproc=5000
# The kernel saves process names with a trylock and now and then skips
# one; a dd is gone before /proc can be asked, so it stays unnamed
# (0 to 3 of 5000 seen here, with the old recorder too).
unnamed_max=$((nproc / 200))

need_root
tracer_wait

truncate -s 32M "$TMP/img"
LOOP=$(losetup -f --show "$TMP/img")
dev=${LOOP#/dev/}

# One process per write: each dd is a new pid the recorder must name.
cat >"$TMP/work.sh" <<EOF
for ((i = 0; i < $nproc; i++)); do
	dd if=/dev/zero of=$LOOP bs=4k count=1 seek=\$i oflag=direct status=none
done
EOF
"$WCRECORD" -d "$LOOP" -o "$TMP/r" --stats "$TMP/r.stats" -- bash "$TMP/work.sh" \
	2>"$TMP/r.err" || fail "wcrecord failed: $(cat "$TMP/r.err")"
grep -qx 'events_dropped = 0' "$TMP/r.stats" || fail "events dropped: $(cat "$TMP/r.stats")"
grep -qx 'invalid_bytes = 0' "$TMP/r.stats" || fail "invalid bytes: $(cat "$TMP/r.stats")"
blkparse -D "$TMP/r" -i "$dev" >"$TMP/r.txt" 2>"$TMP/r.bperr" ||
	fail "blkparse failed: $(cat "$TMP/r.bperr")"
[[ ! -s $TMP/r.bperr ]] || fail "blkparse complained: $(head -n 3 "$TMP/r.bperr")"

# Each dd queues exactly one 8-sector write at its own offset.
queued=$(grep -cE ' Q +WS? [0-9]+ \+ 8 \[' "$TMP/r.txt" || true)
named=$(grep -cE ' Q +WS? [0-9]+ \+ 8 \[dd\]$' "$TMP/r.txt" || true)
[[ $queued -eq $nproc ]] || fail "$queued writes queued, expected $nproc"
if ((nproc - named > unnamed_max)); then
	grep -E ' Q +WS? ' "$TMP/r.txt" | sed -n 's/.*\(\[[^]]*\]\)$/\1/p' |
		sort | uniq -c >&2
	fail "$named of $nproc writes queued under [dd] (at most $unnamed_max unnamed)"
fi
echo "ok: $nproc processes, $named writes named [dd]"
