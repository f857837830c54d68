#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t33-real-captures.sh - the attribution on recorded traces: every CSV row
# (capture and phase) partitions its window to the nanosecond, every
# request is completed (no lost events on these recordings; a completion
# of a request in flight when the recorder started has no dispatch in
# the trace, and is checked to precede its device's first), and on the
# capture archives in samples/ flush requests show up exactly when both
# the write cache and barriers are on.
# shellcheck source=tests/lib/common.sh
source "$(dirname "$0")/lib/common.sh"

inputs=()
for f in "$TOP"/tests/fixtures/reader/*/*.blktrace.0; do
	[[ -e $f ]] && inputs+=("${f%.blktrace.0}")
done
for s in "$TOP"/samples/*.tar.*; do
	[[ -e $s ]] && inputs+=("$s")
done
[[ ${#inputs[@]} -gt 0 ]] || fail "no recorded traces found"

flush_checked=0
for in in "${inputs[@]}"; do
	name=${in#"$TOP"/}
	csv=$("$WCANALYZE" --format csv "$in")
	echo "$csv" | awk -F, 'NR == 1 {
		if ($NF != "outstanding_s") { print "outstanding_s not last"; exit 1 }
		# the drive destaging with no request (a capture with a
		# ledger): a part of the window of its own
		for (i = 1; i <= NF; i++) if ($i == "destage_no_request_s") dcol = i
		next
	} {
		w = $6; gsub(/\./, "", w); s = $NF; gsub(/\./, "", s); s += 0
		if (dcol) { v = $dcol; gsub(/\./, "", v); s += v }
		for (i = 7; i <= 14; i++) { v = $i; gsub(/\./, "", v); s += v }
		if (s != w + 0) { print $2 ": parts " s " ns, window " w " ns"; bad = 1 }
	} END { exit bad }' || fail "$name: time partition does not add up"
	json=$("$WCANALYZE" --format json "$in")
	echo "$json" | jq -e 'all(.captures[].tracking; .unfinished == 0)' >/dev/null ||
		fail "$name: requests lost: $(echo "$json" | jq -c '[.captures[].tracking]')"
	# A completion without its dispatch is lost only if the recorder saw
	# its device dispatch before: one that precedes every dispatch of its
	# device was in flight when the recorder started (a lab's mount
	# reading its journal), so nothing of it was in the trace to lose.
	orphans=$(echo "$json" | jq '[.captures[].tracking.orphan_completions] | add')
	[[ $orphans -eq 0 ]] || fail "$name: $orphans completions without a dispatch after their device dispatched"
	orphans=$(echo "$json" | jq '[.captures[].tracking.began_in_flight] | add')
	if [[ $orphans -gt 0 ]]; then
		early=$("$WCANALYZE" --dump "$in" | awk '
			$6 == "D" { seen[$1] = 1; open[$1 " " $8] = 1 }
			$6 == "C" && $8 ~ /^[0-9]+$/ {
				k = $1 " " $8
				if (k in open) delete open[k]
				else if (!($1 in seen)) n++
				else { print "late " $0; exit 1 }
			}
			END { print n + 0 }') || fail "$name: a completion without its dispatch after its device dispatched: $early"
		[[ $early -eq $orphans ]] ||
			fail "$name: $orphans completions without a dispatch, $early of them before their device's first"
	fi
	read -r wc bar nflush < <(echo "$csv" | awk -F, '$2 == "all" { print $4, $5, $16 }')
	if [[ $in == *.tar.* && -n $wc && -n $bar ]]; then
		if [[ $wc == on && $bar == on ]]; then
			[[ $nflush -gt 0 ]] ||
				fail "$name: cache and barriers on, but no flush request"
		else
			[[ $nflush -eq 0 ]] ||
				fail "$name: cache $wc, barriers $bar, yet $nflush flushes"
		fi
		flush_checked=$((flush_checked + 1))
	fi
	echo "ok: $name"
done
echo "${#inputs[@]} traces checked, $flush_checked for flushes"
