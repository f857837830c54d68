#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t89-fleet.sh - scripts/fleet/wcfleet runs the map (wcanalyze --format
# json on each capture) on a Dask LocalCluster and the reduce on the
# summaries; its report equals wcanalyze's on the captures themselves,
# in text and in JSON, and a failed map is said and counted.
# shellcheck source=tests/lib/common.sh
source "$(dirname "$0")/lib/common.sh"

# Debian's python3-distributed is for Debian's python3 (scripts/deps.sh).
PY=/usr/bin/python3
"$PY" -c 'import distributed' 2>/dev/null ||
	skip "python3-distributed is not installed (make deps)"
FLEET=$TOP/scripts/fleet/wcfleet

caps=()
for f in "$TOP"/samples/ssd-ext4-cache-o*-barrier-on-run[123].tar.xz; do
	[[ -e $f ]] && caps+=("$f")
done
[[ ${#caps[@]} -eq 6 ]] || fail "samples/ lacks the ssd ext4 runs: ${#caps[@]}"

"$WCANALYZE" "${caps[@]}" >"$TMP/one.txt"
"$PY" "$FLEET" --out "$TMP/s" --workers 2 --wcanalyze "$WCANALYZE" \
	"${caps[@]}" >"$TMP/fleet.txt" 2>"$TMP/fleet.err" ||
	fail "wcfleet: exit $?: $(tail -n 5 "$TMP/fleet.err")"
cmp -s "$TMP/one.txt" "$TMP/fleet.txt" || fail "text: differs from one machine's"
[[ $(find "$TMP/s" -name '*.json' | wc -l) -eq 6 ]] || fail "not six summaries"
echo "ok: text"

"$WCANALYZE" --format json --baseline ssd-ext4-cache-on-barrier-on-run2 \
	"${caps[@]}" >"$TMP/one.json"
"$PY" "$FLEET" --out "$TMP/s2" --workers 2 --wcanalyze "$WCANALYZE" \
	--reduce-arg=--format=json \
	--reduce-arg=--baseline=ssd-ext4-cache-on-barrier-on-run2 \
	"${caps[@]}" >"$TMP/fleet.json" 2>"$TMP/fleet.err" ||
	fail "wcfleet json: exit $?: $(tail -n 5 "$TMP/fleet.err")"
cmp -s "$TMP/one.json" "$TMP/fleet.json" || fail "JSON: differs from one machine's"
echo "ok: JSON with a baseline"

# A capture that is not one: its map fails, the rest is compared.
: >"$TMP/empty.tar"
"$PY" "$FLEET" --out "$TMP/s3" --workers 1 --wcanalyze "$WCANALYZE" \
	"${caps[@]:0:2}" "$TMP/empty.tar" >"$TMP/part.txt" 2>"$TMP/part.err" &&
	fail "a failed map: exit 0"
grep -q "the map of '$TMP/empty.tar' exited" "$TMP/part.err" ||
	fail "the failed map is not said: $(tail -n 3 "$TMP/part.err")"
grep -q '^group' "$TMP/part.txt" || fail "the rest was not compared"
echo "ok: a failed map"
