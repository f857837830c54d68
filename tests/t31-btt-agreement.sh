#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t31-btt-agreement.sh - the "btt" figures of --btt --format json equal btt's
# "All Devices" Q2C and D2C rows (N exactly, MIN/AVG/MAX within 0.1 %)
# on the reader's recorded traces, every archive in samples/ and a
# synthetic capture with merges and two devices, and one whose disk
# completes out of issue order.  btt reads the single merged file that
# "blkparse -d" writes, as its manual says.
# shellcheck source=tests/lib/common.sh
source "$(dirname "$0")/lib/common.sh"

for tool in btt blkparse; do
	command -v $tool >/dev/null ||
		fail "$tool is needed (scripts/deps.sh installs blktrace)"
done

within() {
	awk -v g="$1" -v w="$2" 'BEGIN {
		d = g - w; if (d < 0) d = -d
		exit !(d <= w * 0.001 + 1e-9)
	}'
}

# compare NAME INPUT DIR: INPUT for wcanalyze; DIR holds the per-CPU files.
compare() {
	local name=$1 input=$2 dir=$3 args=() base row json stat n got want i
	local field
	while read -r base; do
		args+=(-i "$base")
	done < <(find "$dir" -name '*.blktrace.[0-9]*' | sed 's/\.blktrace\.[0-9]*$//' | sort -u)
	[[ ${#args[@]} -gt 0 ]] || fail "$name: no trace files in $dir"
	blkparse -q "${args[@]}" -d "$TMP/merged.bin" -O >/dev/null
	# btt drops per-device .dat files in the current folder.
	(cd "$TMP" && btt -i merged.bin -o btt >/dev/null 2>&1)
	json=$("$WCANALYZE" --btt --format json "$input")
	for stat in Q2C D2C; do
		row=$(sed -n '/==== All Devices ====/,/^====/p' "$TMP/btt.avg" |
			awk -v s=$stat '$1 == s { print $2, $3, $4, $5 }')
		[[ -n $row ]] || row="0 0 0 0"
		read -r -a want <<<"$row"
		got=$(echo "$json" | jq -c ".captures[0].btt.${stat,,}")
		n=$(echo "$got" | jq '.n')
		[[ $n == "${want[3]}" ]] ||
			fail "$name: $stat n $n, btt says ${want[3]}"
		[[ $n == 0 ]] && continue
		i=0
		for field in min mean max; do
			g=$(echo "$got" | jq ".$field")
			within "$g" "${want[$i]}" ||
				fail "$name: $stat $field $g, btt says ${want[$i]}"
			i=$((i + 1))
		done
	done
	echo "ok: $name (Q2C/D2C agree with btt)"
}

ran=0
for d in "$TOP"/tests/fixtures/reader/*/; do
	[[ -d $d ]] || continue
	for f in "$d"*.blktrace.0; do
		[[ -e $f ]] || continue
		compare "reader fixture ${d#"$TOP"/}" "${f%.blktrace.0}" "$d"
		ran=$((ran + 1))
	done
done

mapfile -t picked < <(samples_pick "$TOP"/samples/*.tar.* "$TOP"/samples/*.tgz)
for s in "${picked[@]}"; do
	rm -rf "$TMP/x" && mkdir "$TMP/x"
	tar -C "$TMP/x" -xf "$s"
	compare "sample ${s##*/}" "$s" "$TMP/x"
	ran=$((ran + 1))
done

# Hand-made corner cases: several Qs at one start sector.
for d in "$TOP"/tests/fixtures/attrib/btt/*/; do
	[[ -d $d ]] || continue
	compare "corner case ${d#"$TOP"/}" "${d}loop1" "$d"
	ran=$((ran + 1))
done

"$WCSYNTH" --capture --other-device --seed 5 "$TMP/synth"
compare "wcsynth capture" "$TMP/synth" "$TMP/synth/trace"
ran=$((ran + 1))
# Completions out of issue order: a disk that reorders its queue.
"$WCSYNTH" --capture --ncq --depth 16 --seed 5 "$TMP/ncq"
compare "wcsynth NCQ capture" "$TMP/ncq" "$TMP/ncq/trace"
ran=$((ran + 1))
echo "$ran inputs compared"
