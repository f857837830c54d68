#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# regen-samples.sh - remake everything derived from the captures in
# samples/, after the samples or the analysis changed, so that no table
# or excerpt in the documents is typed by hand.
#
#   scripts/regen-samples.sh [--no-tests]
#   scripts/regen-samples.sh --print-readme   (3 only, to standard
#                                              output; t80 compares it)
#
# In order:
#   1. docs/write-cache.md's tables (scripts/write-cache-table.sh --update)
#   2. docs/what-if.md's tables (scripts/what-if-validate.sh --update,
#      scripts/report-2624.sh --update), and the report's four times
#      beside the samples' in README.md and samples/README.md
#      (scripts/write-cache-table.sh --report-table --update), and
#      docs/model-disk.md's artefacts (scripts/model-artefacts.sh --update)
#   3. README.md's report excerpt: the opening of
#      "wcanalyze samples/*.tar.xz" (its findings and its table of groups)
#      between the lines
#        <!-- samples-report: begin (scripts/regen-samples.sh) -->
#        <!-- samples-report: end -->
#   4. the tests that tie documents and expectations to the samples
#      (tests/t47-write-cache-guide.sh: every number docs/write-cache.md's
#      prose quotes is in a table; t54: a what-if prediction against the
#      lab), unless --no-tests.
# The prose around the tables is not generated: read "git diff" and fix
# what became false; t47 names the quoted numbers that no longer exist.
# samples/README.md says how the samples were recorded; its tables of
# wccapture's output do not depend on the analysis.
#
#   BUILD=DIR   where wcanalyze was built (default: build/)
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$top/build}
export BUILD=$build
tests=1 print_readme=0

case ${1-} in
'') ;;
--no-tests) tests=0 ;;
--print-readme) print_readme=1 ;;
*) echo "usage: regen-samples.sh [--no-tests | --print-readme]" >&2; exit 2 ;;
esac
[[ -x $build/wcanalyze ]] || { echo "regen-samples: $build/wcanalyze not built: run make" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/wcregen.XXXXXX")
trap 'rm -rf "$work"' EXIT

if [[ $print_readme -eq 0 ]]; then
	echo "regen-samples: docs/write-cache.md" >&2
	bash "$top/scripts/write-cache-table.sh" --update "$top/docs/write-cache.md"
	echo "regen-samples: docs/what-if.md" >&2
	bash "$top/scripts/what-if-validate.sh" --update "$top/docs/what-if.md"
	bash "$top/scripts/report-2624.sh" --update "$top/docs/what-if.md"
	echo "regen-samples: docs/model-disk.md" >&2
	bash "$top/scripts/model-artefacts.sh" --update "$top/docs/model-disk.md"
	echo "regen-samples: the report's table in README.md, samples/README.md" >&2
	bash "$top/scripts/write-cache-table.sh" --report-table --update "$top/README.md"
	bash "$top/scripts/write-cache-table.sh" --report-table --update "$top/samples/README.md"
	echo "regen-samples: README.md" >&2
fi

# The report's opening: everything before the first table of differences.
# shellcheck source=scripts/lib/samples.sh
source "$top/scripts/lib/samples.sh"
sample_archives regen-samples "$top/samples"
(cd "$top" && "$build/wcanalyze" "${archives[@]#"$top"/}") >"$work/report"
{
	echo '```'
	awk '/^difference to / { exit } { print }' "$work/report" | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}'
	echo '```'
} >"$work/excerpt"
[[ $(wc -l <"$work/excerpt") -gt 10 ]] || { echo "regen-samples: the report's opening is too short" >&2; exit 1; }
if [[ $print_readme -eq 1 ]]; then
	cat "$work/excerpt"
	exit 0
fi
begin='<!-- samples-report: begin (scripts/regen-samples.sh) -->'
end='<!-- samples-report: end -->'
put_between regen-samples "$top/README.md" "$begin" "$end" "$work/excerpt"

[[ $tests -eq 1 ]] || exit 0
echo "regen-samples: the tests tied to samples/" >&2
"$top/scripts/run-tests.sh" "$top/tests/t47-write-cache-guide.sh" "$top/tests/t54-what-if.sh"
