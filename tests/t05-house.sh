#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t05-house.sh - the house drawn from the library's folders and includes.
# Each folder of analyze/lib is a stage of the pipeline, and a module's
# stage is its folder: a module may include the headers of its own stage
# and of the stages before it, never one after (an arrow back up), and
# no include may close a cycle.  Modules behind a facade (the input's
# parts) are included only by the facade and its other parts.  Every
# include of a library header names its folder ("input/decode.h"), so
# that where a module lives shows in every file that uses it.  The check
# is run on copies with an arrow up, a cycle, a part included from
# outside its facade, a module outside any stage and an include without
# its folder planted, each of which must fail.
# shellcheck source=tests/lib/common.sh
source "$(dirname "$0")/lib/common.sh"

# The stages, lowest first (HACKING.md says what each holds).  A new
# folder is a new stage, placed here on purpose.
stages=(base format compat input model analysis disk compare out record)
declare -A rank=()
for i in "${!stages[@]}"; do
	rank[${stages[$i]}]=$i
done

# Modules behind a facade: only the facade and its other parts include
# them (the archive shortcut, the archive's writer beside its reader
# (pack, for wcrecord --pack) and blkparse's names stay behind input.h;
# the summary's statistics and findings behind summary.h; btt's tree and
# list behind btt.h; a module's doors for its tests only, its *_test.h,
# behind its header).  A part and its facade are one module to the cycle
# check: the facade calls its parts, which use its types.
declare -A behind=([streams]=input [streams_test]=input [input_test]=input [decode_test]=decode [members]=input [pack]=input [blknames]=input
	[stats]=summary [findings]=summary [btt_tree]=btt [btt_list]=btt
	[merge_test]=merge [reorder_test]=reorder [btt_test]=btt [summary_test]=summary
	[map_test]=map [tracker_test]=tracker)

# "module folder included-module included-folder" of the library in $1,
# one a line; an include without a folder has folder "-" (one awk over
# every file: the check runs seven times, and a fork per include made
# it the slowest lint of make check).
edges() {
	# shellcheck disable=SC2016 # an awk program
	LC_ALL=C awk '
		BEGIN {
			for (i = 1; i < ARGC; i++) {
				h = ARGV[i]
				if (h ~ /\.h$/) {
					sub(/^.*\//, "", h)
					header[substr(h, 1, length(h) - 2)] = 1
				}
			}
		}
		FNR == 1 {
			n = split(FILENAME, part, "/")
			m = part[n]
			sub(/\.[ch]$/, "", m)
			dir = part[n - 1]
		}
		match($0, /^#include "[a-z_0-9\/]*\.h"/) {
			inc = substr($0, 11, RLENGTH - 13)
			if (index(inc, "/")) {
				name = substr(inc, index(inc, "/") + 1)
				if (name != m)
					print m, dir, name, substr(inc, 1, index(inc, "/") - 1)
			} else if (inc in header) {
				print m, dir, inc, "-"
			}
		}' "$1"/*/*.[ch] | LC_ALL=C sort -u
}

# The edges on stdin as "module included", a part named as its facade.
facades() {
	local a ad b bd
	while read -r a ad b bd; do
		a=${behind[$a]:-$a}
		b=${behind[$b]:-$b}
		[[ $a == "$b" ]] || echo "$a $b"
	done
}

# Says what is wrong with the house in $1 on stdout; fails if anything.
check_house() {
	local a ad b bd f bad=0 loop
	for f in "$1"/*; do
		if [[ -f $f ]]; then
			echo "${f##*/} is in no stage folder"
			bad=1
		elif [[ -z ${rank[${f##*/}]+x} ]]; then
			echo "${f##*/} is no stage of t05-house.sh"
			bad=1
		fi
	done
	while read -r a ad b bd; do
		if [[ $bd == - ]]; then
			echo "$ad/$a includes $b.h without its folder"
			bad=1
			continue
		fi
		[[ -n ${rank[$ad]+x} && -n ${rank[$bd]+x} ]] || continue
		if [[ -n ${behind[$b]+x} && $a != "${behind[$b]}" &&
			${behind[$a]:-} != "${behind[$b]}" ]]; then
			echo "behind ${behind[$b]}.h: $a includes $b.h"
			bad=1
		fi
		if ((rank[$bd] > rank[$ad])); then
			echo "arrow back up: $ad/$a includes $bd/$b.h"
			bad=1
		fi
	done < <(edges "$1")
	# tsort names the modules of a cycle on standard error.
	if ! loop=$(edges "$1" | facades | tsort 2>&1 >/dev/null) ||
		[[ -n $loop ]]; then
		echo "cycle: $loop"
		bad=1
	fi
	return "$bad"
}

out=$(check_house "$TOP/analyze/lib") || fail "the house: $out"
[[ $(edges "$TOP/analyze/lib" | wc -l) -gt 40 ]] ||
	fail "too few includes found: the parser is wrong"

# The check must see what it is there to see.
cp -a "$TOP/analyze/lib" "$TMP/up"
sed -i '0,/^#include "base\/wcerr.h"/s//#include "base\/wcerr.h"\n#include "compare\/summary.h"/' "$TMP/up/input/source.h"
out=$(check_house "$TMP/up") && fail "an arrow up from source to summary was not seen"
[[ $out == *"arrow back up: input/source includes compare/summary.h"* ]] || fail "arrow up: $out"

cp -a "$TOP/analyze/lib" "$TMP/loop"
sed -i '0,/^#include "base\/wcerr.h"/s//#include "base\/wcerr.h"\n#include "out\/chart.h"/' "$TMP/loop/out/outdir.h"
out=$(check_house "$TMP/loop") && fail "a cycle outdir -> chart -> outdir was not seen"
[[ $out == *cycle* ]] || fail "cycle: $out"

cp -a "$TOP/analyze/lib" "$TMP/behind"
sed -i '0,/^#include "input\/input.h"/s//#include "input\/input.h"\n#include "input\/blknames.h"/' "$TMP/behind/analysis/analysis.c"
out=$(check_house "$TMP/behind") && fail "analysis including blknames.h was not seen"
[[ $out == *"behind input.h: analysis includes blknames.h"* ]] || fail "behind: $out"

cp -a "$TOP/analyze/lib" "$TMP/bare"
sed -i '0,/^#include "base\/hot.h"/s//#include "hot.h"/' "$TMP/bare/input/decode.c"
out=$(check_house "$TMP/bare") && fail "an include without its folder was not seen"
[[ $out == *"input/decode includes hot.h without its folder"* ]] || fail "bare: $out"

cp -a "$TOP/analyze/lib" "$TMP/new"
printf '#include "base/wcerr.h"\n' >"$TMP/new/new.c"
mkdir "$TMP/new/misc"
printf '#include "base/wcerr.h"\n' >"$TMP/new/misc/new2.c"
out=$(check_house "$TMP/new") && fail "a module without a stage was not seen"
[[ $out == *"new.c is in no stage folder"* ]] || fail "no stage: $out"
[[ $out == *"misc is no stage"* ]] || fail "no stage folder: $out"
# The licence: COPYING holds it, and every source file names it in its
# first two lines (after a #! line): C, shell, gnuplot, make, python,
# and any script whatever its name (a first line "#!").  Samples, test
# fixtures and fuzz corpora are data, not source.
spdx='SPDX-License-Identifier: GPL-2.0-or-later'
# no_spdx DIR: the source files of the git tree DIR without the line,
# one a line.
no_spdx() {
	# shellcheck disable=SC2016 # an awk program
	(cd "$1" && git ls-files -co --exclude-standard -z |
		grep -zv -E '^(samples/|tests/fixtures/|docs/)|/corpus-[^/]*/|/crashers/' |
		xargs -0 -r awk -v spdx="$spdx" '
			# pending: a source file whose first line lacks the line.
			FNR == 1 {
				if (pending != "")
					print pending
				pending = ""
				src = FILENAME ~ /\.(c|h|sh|gp|py|mk)$/ ||
					FILENAME ~ /^(GNUmakefile|\.ci\/run|completion\/.*|debian\/rules)$/ ||
					$0 ~ /^#!/
				if (src && index($0, spdx) == 0)
					pending = FILENAME
				else
					nextfile
				next
			}
			FNR == 2 {
				if (index($0, spdx) != 0)
					pending = ""
				nextfile
			}
			END {
				if (pending != "")
					print pending
			}')
}
grep -F 'GNU GENERAL PUBLIC LICENSE' "$TOP/COPYING" >/dev/null || fail "no COPYING"
grep -F 'License: GPL-2+' "$TOP/debian/copyright" >/dev/null ||
	fail "debian/copyright does not say GPL-2+"
out=$(no_spdx "$TOP")
[[ -z $out ]] || fail "no $spdx line atop: $out"
# Planted in a scratch tree: a C file and a script without a suffix,
# each without the line, and one of each with it.
mkdir -p "$TMP/lic/analyze/lib/base" "$TMP/lic/scripts"
git -C "$TMP/lic" init -q
printf 'int x;\n' >"$TMP/lic/analyze/lib/base/planted.c"
printf '#!/bin/sh\necho hi\n' >"$TMP/lic/scripts/planted"
printf '/* %s */\nint y;\n' "$spdx" >"$TMP/lic/analyze/lib/base/licensed.c"
printf '#!/bin/sh\n# %s\n' "$spdx" >"$TMP/lic/scripts/licensed"
printf 'no licence needed\n' >"$TMP/lic/scripts/data"
out=$(no_spdx "$TMP/lic")
[[ $out == *planted.c* ]] || fail "a C file without its licence line was not seen: $out"
[[ $out == *scripts/planted* ]] || fail "a script without its licence line was not seen: $out"
[[ $out != *licensed* && $out != *data* ]] || fail "licensed or data files named: $out"

# HACKING.md is the newcomer's map: every module of the library (its
# header) has its line "- `stage/module.h` what it is", and no line names
# a module that is gone.  A module's *_test.h, its doors for its tests
# only, is the module's, named on its line.
# hacking_gaps ROOT: what ROOT's map leaves out or names in vain.
hacking_gaps() {
	local listed have m
	# shellcheck disable=SC2016 # Markdown's backquotes, not a shell's
	listed=$(sed -n 's/^- `\([a-z]*\/[A-Za-z0-9_]*\.h\)` .*/\1/p' "$1/HACKING.md" | sort)
	have=$(cd "$1/analyze/lib" && printf '%s\n' */*.h | grep -v '_test\.h$' | sort)
	for m in $(comm -13 <(echo "$listed") <(echo "$have")); do
		echo "HACKING.md does not list $m"
	done
	for m in $(comm -23 <(echo "$listed") <(echo "$have")); do
		echo "HACKING.md lists $m, which is no module"
	done
}
[[ -f $TOP/HACKING.md ]] || fail "no HACKING.md"
out=$(hacking_gaps "$TOP")
[[ -z $out ]] || fail "$out"
[[ $(wc -l <"$TOP/HACKING.md") -lt 200 ]] || fail "HACKING.md is 200 lines or more"
mkdir -p "$TMP/map/analyze/lib/base"
cp "$TOP/HACKING.md" "$TMP/map/"
cp -a "$TOP/analyze/lib/." "$TMP/map/analyze/lib/"
printf '/* x */\n' >"$TMP/map/analyze/lib/base/unlisted.h"
# shellcheck disable=SC2016 # Markdown's backquotes, not a shell's
sed -i '/^- `base\/map.h`/d' "$TMP/map/HACKING.md"
mv "$TMP/map/analyze/lib/base/prioq.h" "$TMP/map/analyze/lib/base/heap.h"
out=$(hacking_gaps "$TMP/map")
[[ $out == *"does not list base/unlisted.h"* && $out == *"does not list base/map.h"* &&
	$out == *"lists base/prioq.h, which is no module"* ]] ||
	fail "a module missing from HACKING.md or a stale line was not seen: $out"

# Tests run by name: no two share a number.
dups=$(cd "$TOP/tests" && printf '%s\n' t[0-9]*.sh | sed 's/-.*//' | sort | uniq -d)
[[ -z $dups ]] || fail "tests sharing a number: $dups"
exit 0
