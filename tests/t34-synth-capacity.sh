#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t34-synth-capacity.sh - wcsynth's disk model holds 8 GiB (16777216
# sectors); every request it writes, on both devices, must lie inside it.
# Enough files that the data area and the source device fill up and wrap:
# an older wcsynth wrote data far past the end, which made every seek
# longer than a full stroke and the workload outrun the model's disk.
# shellcheck source=tests/lib/common.sh
source "$(dirname "$0")/lib/common.sh"

capacity=16777216

[[ -x $WCSYNTH ]] || fail "$WCSYNTH not built"
cd "$TMP"
"$WCSYNTH" --capture --other-device --files 40000 cap
"$WCANALYZE" --dump cap >cap.dump

# blkparse event lines: DEV CPU SEQ TIME PID ACTION RWBS SECTOR + N [...]
awk -v cap="$capacity" '
	$9 == "+" {
		end = $8 + $10
		n++
		if (end > max[$1])
			max[$1] = end
		if (end > cap) {
			bad++
			if (bad <= 3)
				print "past the end: " $0
		}
	}
	END {
		for (d in max)
			printf "%s highest end %d\n", d, max[d]
		printf "requests with a sector %d, past the end %d\n", n, bad
		exit bad > 0 || n == 0
	}' cap.dump >ends.txt || { cat ends.txt; fail "requests beyond the disk's $capacity sectors"; }

# The run must have reached the end of the disk on both devices, or it
# did not test the wrap.
for dev in 7,8 7,9; do
	high=$(awk -v d="$dev" '$1 == d { print $4 }' ends.txt)
	[[ -n $high ]] || fail "$dev: no requests"
	((high > capacity - 1048576)) ||
		fail "$dev: highest end $high, never near the end of the disk"
done
