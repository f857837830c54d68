#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t33-real-captures.sh - the attribution on recorded traces: every CSV row
# (capture and phase) partitions its window to the nanosecond, every
# request is completed (no lost events on these recordings), and on the
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
		next
	} {
		w = $6; gsub(/\./, "", w); s = $NF; gsub(/\./, "", s); s += 0
		for (i = 7; i <= 14; i++) { v = $i; gsub(/\./, "", v); s += v }
		if (s != w + 0) { print $2 ": parts " s " ns, window " w " ns"; bad = 1 }
	} END { exit bad }' || fail "$name: time partition does not add up"
	json=$("$WCANALYZE" --format json "$in")
	echo "$json" | jq -e 'all(.captures[].tracking; .orphan_completions == 0 and .unfinished == 0)' >/dev/null ||
		fail "$name: requests lost: $(echo "$json" | jq -c '[.captures[].tracking]')"
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
