#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# demo.sh - what "make demo" runs: the bug-report bundle of every capture
# in samples/ (wcanalyze -o), written to ./demo-report; prints the path of
# its index.html.
#
#   BUILD=DIR        where wcanalyze was built (make passes it)
#   DEMO_OUT=DIR     another folder for the bundle
#   DEMO_SAMPLES=DIR other captures (DIR/*.tar.xz, *.tar.gz, *.tar.zst,
#                    *.tar.bz2, *.tar) instead of samples/
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$top/build}
out=${DEMO_OUT:-$top/demo-report}
from=${DEMO_SAMPLES:-$top/samples}

shopt -s nullglob
# in name order whatever the compression: the comparison numbers them so
found=("$from"/*.tar "$from"/*.tar.{xz,gz,zst,bz2})
samples=()
[[ ${#found[@]} -eq 0 ]] || mapfile -d '' -t samples < <(printf '%s\0' "${found[@]}" | LC_ALL=C sort -z)
if [[ ${#samples[@]} -eq 0 ]]; then
	echo "demo: no captures in $from (*.tar.xz, *.tar.gz, *.tar.zst, *.tar.bz2, *.tar)" >&2
	exit 1
fi
if [[ ! -x $build/wcanalyze ]]; then
	echo "demo: $build/wcanalyze not built: run make demo" >&2
	exit 1
fi

# A previous demo is replaced whole, so that no figure of a capture that
# is gone survives; anything else in the way is left alone.
if [[ -e $out && ! -e $out/index.html && -n $(ls -A "$out") ]]; then
	echo "demo: $out exists and is not a bundle; not touching it" >&2
	exit 1
fi
rm -rf "$out"

echo "demo: analysing ${#samples[@]} captures from $from into $out" >&2
WCANALYZE_PLOTS=$top/plots "$build/wcanalyze" -o "$out" "${samples[@]}"
