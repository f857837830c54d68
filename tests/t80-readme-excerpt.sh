#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t80-readme-excerpt.sh - README.md's excerpt of the samples' report (the
# opening of "wcanalyze samples/*.tar.xz", between its samples-report
# markers) is what wcanalyze prints now: scripts/regen-samples.sh
# --print-readme makes it, as the full run puts it in README.md.  A
# change of the report's words fails here until the excerpt is
# regenerated (issue 43: it kept "the page cache, throttling, sleeping"
# after the report said "off the device: not seen by the block layer").
# Deterministic: no timing; every sample is read (about 5 s).
# shellcheck source=tests/lib/common.sh
source "$(dirname "$0")/lib/common.sh"

readme=$TOP/README.md
begin='<!-- samples-report: begin (scripts/regen-samples.sh) -->'
end='<!-- samples-report: end -->'
[[ $(grep -cxF "$begin" "$readme") -eq 1 && $(grep -cxF "$end" "$readme") -eq 1 ]] ||
	fail "README.md needs one '$begin' line and one '$end' line"
awk -v begin="$begin" -v end="$end" '$0 == end { inside = 0 } inside; $0 == begin { inside = 1 }' \
	"$readme" >"$TMP/readme"
BUILD=$BUILD bash "$TOP/scripts/regen-samples.sh" --print-readme >"$TMP/now" 2>"$TMP/err" ||
	fail "regen-samples.sh --print-readme failed: $(cat "$TMP/err")"
[[ $(wc -l <"$TMP/now") -gt 10 ]] || fail "the generated excerpt is too short"
if ! diff -u "$TMP/readme" "$TMP/now" >"$TMP/diff"; then
	sed -n 1,30p "$TMP/diff" >&2
	fail "README.md's excerpt is not the report's opening: run scripts/regen-samples.sh"
fi
echo "ok: README.md's excerpt is the report's opening"
