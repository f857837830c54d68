#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t92-reduce-flat.sh - comparing many summaries holds memory independent
# of their number (issue 45, docs/performance.md): the peak RSS of a
# reduce of 500 summaries (spilled past the first 64, compare/keep.h) is
# that of 50 (held), within the recordings' map (compare/summary.h: at
# most 192 bytes a capture) and the allocator's slack; holding each
# capture took 22 KB more a summary (9.7 MB for the 450).  A TMPDIR
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

# Peak RSS in KiB of a reduce; the sanitizers' quarantine would hold
# what is freed, so it holds nothing here.
rss() {
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=0 \
		/usr/bin/time -f %M -o "$TMP/rss" "$WCANALYZE" -j 1 "$@" \
		>"$TMP/report" || fail "the reduce of $# summaries"
	tail -n 1 "$TMP/rss"
}
r50=$(rss "${few[@]}")
r500=$(rss "${many[@]}")
grep -q "runs of one configuration" "$TMP/report" ||
	fail "500 summaries of two configurations did not make groups of runs"
((r500 - r50 < 2048)) ||
	fail "the reduce held $r50 KiB for 50 summaries, $r500 KiB for 500"
echo "ok: $r50 KiB for 50 summaries, $r500 KiB for 500"

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
