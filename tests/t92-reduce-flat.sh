#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t92-reduce-flat.sh - comparing many summaries holds memory independent
# of their number (issue 45, docs/performance.md): the peak RSS of a
# reduce of 500 summaries (spilled past the first 64, compare/keep.h) is
# that of 50 (held), within the recordings' map (compare/summary.h: at
# most 192 bytes a capture) and the allocator's slack; holding each
# capture took 22 KB more a summary (9.7 MB for the 450).  So is that
# of 500 captures in one summary against 50 in one, read a capture at
# a time, and a hostile summary holds at most one value's bound; the
# summaries read by -j 8 keep within a short open-file limit.  A TMPDIR
# that cannot hold the spill, or none at all, fails the reduce with
# err(3)'s message naming what failed, never a report of part of it;
# a few inputs need no TMPDIR, their messages held in memory; the
# messages of many are each said once, in order, whatever TMPDIR.
# shellcheck source=tests/lib/common.sh
source "$(dirname "$0")/lib/common.sh"

[[ -x /usr/bin/time ]] || fail "/usr/bin/time (GNU time) is missing (make deps)"

for c in on off; do
	f=$TOP/samples/ssd-ext4-cache-$c-barrier-on-run1.tar.xz
	[[ -e $f ]] || fail "samples/ has no $f"
	"$WCANALYZE" --format json "$f" >"$TMP/$c.json" ||
		fail "the summary of $f"
done
# Two configurations, each summary a run of a name of its own (one name
# and run twice would be one recording given twice, counted once).
mkdir "$TMP/sums"
for ((k = 0; k < 500; k++)); do
	c=on
	((k % 2 == 0)) || c=off
	sed "s/\"name\": \"ssd-ext4-cache-$c-barrier-on-run1\"/\"name\": \"s$k-run$((k / 2 + 1))\"/" \
		"$TMP/$c.json" >"$TMP/sums/$k.json"
done
few=() many=()
for ((k = 0; k < 500; k++)); do
	((k < 50)) && few+=("$TMP/sums/$k.json")
	many+=("$TMP/sums/$k.json")
done

# peak ARGS...: the peak RSS in KiB of wcanalyze -j 1 ARGS, its report
# in $TMP/report, its messages in $TMP/err, its exit status in
# $TMP/rc; the sanitizers' quarantine would hold what is freed, so it
# holds nothing here.
peak() {
	local rc=0
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=0 \
		/usr/bin/time -f %M -o "$TMP/rss" "$WCANALYZE" -j 1 "$@" \
		>"$TMP/report" 2>"$TMP/err" || rc=$?
	echo "$rc" >"$TMP/rc"
	tail -n 1 "$TMP/rss"
}
# Peak RSS in KiB of a reduce.
rss() {
	local kb
	kb=$(peak "$@")
	[[ $(cat "$TMP/rc") -eq 0 ]] ||
		fail "the reduce of $# summaries: $(head -n 2 "$TMP/err")"
	echo "$kb"
}
# flat WHAT KB50 KB500: the reduce of 500 WHAT held what that of 50
# held, within 2 MiB.
flat() {
	(($3 - $2 < 2048)) ||
		fail "the reduce held $2 KiB for 50 $1, $3 KiB for 500"
	echo "ok: $2 KiB for 50 $1, $3 KiB for 500"
}
r50=$(rss "${few[@]}")
r500=$(rss "${many[@]}")
grep -q "runs of one configuration" "$TMP/report" ||
	fail "500 summaries of two configurations did not make groups of runs"
flat summaries "$r50" "$r500"
cp "$TMP/report" "$TMP/report500"

# The same captures inside one summary (a comparison's JSON fed back:
# the reduce of a reduce, as scripts/fleet/ does hierarchically), read
# a capture at a time (analysis/capsule.h): the peak RSS of 500 in one
# file is that of 50 in one, within the same 2 MiB (read whole, 74,612
# KiB against 12,196), and the report is the separate summaries'.
"$WCANALYZE" -j 1 --format json "${few[@]}" >"$TMP/one50.json" ||
	fail "the summary of 50 summaries"
"$WCANALYZE" -j 1 --format json "${many[@]}" >"$TMP/one500.json" ||
	fail "the summary of 500 summaries"
o50=$(rss "$TMP/one50.json")
o500=$(rss "$TMP/one500.json")
cmp -s "$TMP/report" "$TMP/report500" ||
	fail "500 captures in one summary: a report unlike the 500 summaries'"
flat "captures in one summary" "$o50" "$o500"

# A summary a job finds keeps its descriptor until read, in input
# order (analysis/jobs.h): never more inputs open than -j's, so 40
# summaries by -j 8 under ulimit -n 20 give the report of no limit
# (the batch of 32 held them all: "Too many open files").
"$WCANALYZE" -j 8 "${many[@]:0:40}" >"$TMP/j8" || fail "-j 8 of 40 summaries"
rc=0
(ulimit -n 20 && "$WCANALYZE" -j 8 "${many[@]:0:40}" >"$TMP/j8lim" 2>"$TMP/err") || rc=$?
[[ $rc -eq 0 ]] || fail "-j 8 of 40 summaries under ulimit -n 20: exit $rc: $(head -n 2 "$TMP/err")"
cmp -s "$TMP/j8" "$TMP/j8lim" ||
	fail "-j 8 of 40 summaries under ulimit -n 20: another report"
echo "ok: -j 8 of 40 summaries under ulimit -n 20"

# Hostile summaries hold one value's bound (WC_CAPSULE_MAX_TEXT, 1 MiB)
# at most: a capture that never ends, and a string of 8 MiB in a member
# gone through, refused at their start, within 2 MiB of the 50.
# hostile NAME OFFSET: refused at OFFSET, the RSS bounded.
hostile() {
	local name=$1 at=$2 rc kb
	kb=$(peak "$TMP/$name.json")
	rc=$(cat "$TMP/rc")
	[[ $rc -eq 2 ]] || fail "$name: exit $rc, not 2: $(head -n 2 "$TMP/err")"
	grep -qF "wcanalyze: $TMP/$name.json: offset $at: a value longer than a summary's capture" \
		"$TMP/err" || fail "$name: $(head -n 2 "$TMP/err")"
	((kb - o50 < 2048)) || fail "$name: $kb KiB, against $o50 KiB"
	echo "ok: $name refused at offset $at in $kb KiB"
}
head="{\"format\": \"wcanalyze\", \"version\": 1, "
{ printf '%s"captures": [{"name": "' "$head"
  head -c $((8 << 20)) /dev/zero | tr '\0' a; } >"$TMP/endless.json"
hostile endless $((${#head} + 13))
{ printf '%s"findings": [1, "' "$head"
  head -c $((8 << 20)) /dev/zero | tr '\0' a
  printf '"], "captures": []}'; } >"$TMP/string.json"
hostile string $((${#head} + 16))

# 80 summaries spill (past 64) into a TMPDIR that cannot hold them
# (a tmpfs in a private mount namespace, filled at several steps), or
# that is not there: exit 1 and a message, or the report the roomy
# TMPDIR gave, never silence nor a report of part of them.
"$WCANALYZE" -j 1 "${many[@]:0:80}" >"$TMP/report80" ||
	fail "the reduce of 80 summaries"
check_failed() {
	local what=$1 rc=$2
	[[ ! -s $TMP/out ]] || fail "$what: exit $rc, and a report on standard output"
	grep -E '^wcanalyze: .*(temporary file.*: No space left on device|cannot make a temporary file.*)$' \
		"$TMP/err" >/dev/null ||
		fail "$what: exit $rc without the reason: '$(cat "$TMP/err")'"
	echo "ok: $what: exit $rc: $(head -n 1 "$TMP/err")"
}
# Runs a command with TMPDIR a tmpfs of $1 KB at $TMP/full, in a mount
# namespace of its own, the tmpfs first filled when $2 is "filled"; exit
# 99 when it cannot be mounted (root only).
in_tmpfs() {
	local kb=$1 fill=$2
	shift 2
	# shellcheck disable=SC2016 # expanded by the inner bash
	unshare -m --propagation private bash -c '
		mount -t tmpfs -o size="$1k" none "$2" || exit 99
		[[ $3 != filled ]] || dd if=/dev/zero of="$2/fill" bs=1k count="$1" 2>/dev/null
		TMPDIR=$2
		shift 3
		TMPDIR=$TMPDIR exec "$@"' t92 "$kb" "$TMP/full" "$fill" "$@"
}
rc=0
TMPDIR=$TMP/none "$WCANALYZE" -j 1 "${many[@]:0:80}" >"$TMP/out" 2>"$TMP/err" || rc=$?
[[ $rc -eq 1 ]] || fail "no TMPDIR: exit $rc, not 1"
check_failed "no TMPDIR" "$rc"
if [[ $(id -u) -eq 0 ]]; then
	mkdir "$TMP/full"
	for kb in 4 16 64 256 1024 4096; do
		rc=0
		in_tmpfs "$kb" - "$WCANALYZE" -j 1 "${many[@]:0:80}" \
			>"$TMP/out" 2>"$TMP/err" || rc=$?
		[[ $rc -ne 99 ]] || fail "cannot mount a tmpfs"
		if [[ $rc -eq 0 ]]; then
			cmp -s "$TMP/out" "$TMP/report80" ||
				fail "TMPDIR of $kb KB: a report unlike the one with room"
			echo "ok: TMPDIR of $kb KB: the spill fits"
		else
			[[ $rc -eq 1 ]] || fail "TMPDIR of $kb KB: exit $rc, not 1"
			check_failed "TMPDIR of $kb KB" "$rc"
		fi
	done
	# The spill failed: the inputs after it are not read (the last,
	# missing, is not said), nor analysed for nothing.
	rc=0
	in_tmpfs 16 - "$WCANALYZE" -j 1 "${many[@]:0:80}" "$TMP/none.json" \
		>"$TMP/out" 2>"$TMP/err" || rc=$?
	[[ $rc -ne 99 ]] || fail "cannot mount a tmpfs"
	[[ $rc -eq 1 ]] || fail "TMPDIR of 16 KB, a missing input last: exit $rc"
	check_failed "TMPDIR of 16 KB, a missing input last" "$rc"
	if grep -F "$TMP/none.json" "$TMP/err" >/dev/null; then
		fail "the inputs after a failed spill were read: $(cat "$TMP/err")"
	fi
	# A few inputs, one of them failing, need no TMPDIR: on a full
	# one, the report of the others and the failure, exit 2 (input).
	rc=0
	in_tmpfs 4 filled "$WCANALYZE" -j 1 "${many[@]:0:3}" "$TMP/none.json" \
		>"$TMP/out" 2>"$TMP/err" || rc=$?
	[[ $rc -ne 99 ]] || fail "cannot mount a tmpfs"
	"$WCANALYZE" -j 1 "${many[@]:0:3}" "$TMP/none.json" >"$TMP/report3" 2>/dev/null || true
	if [[ $rc -ne 2 ]] || ! cmp -s "$TMP/out" "$TMP/report3" ||
		! grep -F "$TMP/none.json" "$TMP/err" >/dev/null; then
		fail "3 summaries and a missing one, TMPDIR full: exit $rc, $(wc -c <"$TMP/out") bytes of report, '$(cat "$TMP/err")'"
	fi
	echo "ok: 3 summaries and a missing one, TMPDIR full: the report and $(cat "$TMP/err")"
else
	echo "ok: the full TMPDIR not tried (a tmpfs needs root)"
fi

# The messages of 1,000 missing inputs, 120 KB (past the 64 KiB held in
# memory, base/spool.h), each said once and in input order once every
# input is read: from TMPDIR's file, or, with no TMPDIR or one of 16 KB
# (root), as they come once none can hold them; none lost, exit 2 (a
# failed input).
gone=()
for ((k = 0; k < 1000; k++)); do
	gone+=("$TMP/a-name-long-enough-that-a-thousand-pass-64-KiB-$k.json")
done
mkdir "$TMP/roomy"
said_in_order() {
	local what=$1 rc=$2
	[[ $rc -eq 2 ]] || fail "$what: exit $rc, not 2: $(tail -n 1 "$TMP/err")"
	cmp -s "$TMP/out" "$TMP/report3" || fail "$what: not the report of the 3"
	sed -n 's/^wcanalyze: [^:]*pass-64-KiB-\([0-9]*\)\.json: .*/\1/p' \
		"$TMP/err" >"$TMP/said"
	seq 0 999 | cmp -s - "$TMP/said" ||
		fail "$what: the missing inputs said $(wc -l <"$TMP/said") times, not once each in order"
	echo "ok: $what: 1,000 messages, $(wc -c <"$TMP/err") bytes, in order"
}
"$WCANALYZE" -j 1 "${many[@]:0:3}" >"$TMP/report3" || fail "the report of 3"
for where in roomy none; do
	rc=0
	TMPDIR=$TMP/$where "$WCANALYZE" -j 2 "${many[@]:0:3}" "${gone[@]}" \
		>"$TMP/out" 2>"$TMP/err" || rc=$?
	said_in_order "TMPDIR $where" "$rc"
done
if [[ $(id -u) -eq 0 ]]; then
	rc=0
	in_tmpfs 16 - "$WCANALYZE" -j 2 "${many[@]:0:3}" "${gone[@]}" \
		>"$TMP/out" 2>"$TMP/err" || rc=$?
	[[ $rc -ne 99 ]] || fail "cannot mount a tmpfs"
	said_in_order "TMPDIR of 16 KB" "$rc"
fi
