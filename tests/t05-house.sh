#!/usr/bin/env bash
# t05-house.sh - the house drawn from the library's includes: no cycle,
# and no arrow back up (a module including the header of a later stage of
# the pipeline: source -> decoder -> merge -> tracker -> classifier ->
# accountant -> analysis -> summary -> writers), and no module including
# one that is behind another's facade (the input's parts).  Every module of
# analyze/lib must have a stage here, so that a new one is placed on
# purpose.  The check is run on copies with an arrow up, a cycle and a
# part included from outside its facade planted, which must fail.
# shellcheck source=tests/lib/common.sh
source "$(dirname "$0")/lib/common.sh"

# Stages, lowest first; a module may include its own stage's headers and
# those of lower stages.
declare -A stage=(
	# the shared layer: errors, limits, the format, small structures
	[wcerr]=0 [wclimits]=0 [blktrace_format]=0 [event]=0 [list]=0
	[map]=0 [prioq]=0 [escape]=0 [diskmodel]=0 [devtab]=0 [hot]=0
	# a FILE that writes gzip (the bundle's timelines)
	[gzfile]=0
	# the model disk's pure parts beside its model: the volatile cache's
	# data and the platter log that power cuts replay (wcdisk does the I/O)
	[datacache]=0 [platterlog]=0
	[source]=1
	[decode]=2 [encode]=2
	# side files and the recorder's parts read or write raw records
	[capture]=3 [recorder]=3 [merge]=3
	# what the input makes of records: the record filter (notify, sequence)
	[recfilter]=3
	# the input (input.h) and the parts behind it: its bounds, the stream
	# table and its handles, an archive's members, blkparse's names
	[inputdefs]=0 [input]=4 [streams]=4 [members]=4 [blknames]=4
	[tracker]=5 [btt]=5 [filter]=5
	[classify]=6
	# the replay: requests from the tracker again, in virtual time
	[replay]=6
	[account]=7 [series]=7 [traceevent]=7
	# the interval table beside the accountant: requests as they complete
	[interval]=7
	[analysis]=8 [whatif]=8
	[summary]=9 [jobs]=9
	# the figures' numbers, from the series and beside the summary
	[figdata]=9
	# writers: they format, the summary or the events
	[report]=10 [dump]=10 [outdir]=10 [plot]=10 [chart]=10 [html]=10
	[bundle]=10 [intervaltab]=10
)

# Modules behind a facade: only the facade and its other parts include
# them (the archive shortcut and blkparse's names stay behind input.h).
declare -A behind=([streams]=input [members]=input [blknames]=input)

# "module included" pairs of the library in $1, one a line.
edges() {
	local f m
	for f in "$1"/*.[ch]; do
		m=$(basename "$f")
		m=${m%.*}
		sed -n 's/^#include "\([a-z_0-9]*\)\.h".*/\1/p' "$f" |
			while read -r d; do
				[[ $d == "$m" ]] || echo "$m $d"
			done
	done | LC_ALL=C sort -u
}

# Says what is wrong with the house in $1 on stdout; fails if anything.
check_house() {
	local a b bad=0 loop
	while read -r a b; do
		for m in "$a" "$b"; do
			if [[ -z ${stage[$m]+x} ]]; then
				echo "$m has no stage in t05-house.sh"
				bad=1
			fi
		done
		[[ -n ${stage[$a]+x} && -n ${stage[$b]+x} ]] || continue
		if [[ -n ${behind[$b]+x} && $a != "${behind[$b]}" &&
			${behind[$a]:-} != "${behind[$b]}" ]]; then
			echo "behind ${behind[$b]}.h: $a includes $b.h"
			bad=1
		fi
		if ((stage[$b] > stage[$a])); then
			echo "arrow back up: $a (stage ${stage[$a]}) includes $b.h (stage ${stage[$b]})"
			bad=1
		fi
	done < <(edges "$1")
	# tsort names the modules of a cycle on standard error.
	if ! loop=$(edges "$1" | tsort 2>&1 >/dev/null) || [[ -n $loop ]]; then
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
sed -i '0,/^#include "wcerr.h"/s//#include "wcerr.h"\n#include "summary.h"/' "$TMP/up/source.h"
out=$(check_house "$TMP/up") && fail "an arrow up from source to summary was not seen"
[[ $out == *"arrow back up: source"*"summary.h"* ]] || fail "arrow up: $out"

cp -a "$TOP/analyze/lib" "$TMP/loop"
sed -i '0,/^#include "wcerr.h"/s//#include "wcerr.h"\n#include "chart.h"/' "$TMP/loop/outdir.h"
out=$(check_house "$TMP/loop") && fail "a cycle outdir -> chart -> outdir was not seen"
[[ $out == *cycle* ]] || fail "cycle: $out"

cp -a "$TOP/analyze/lib" "$TMP/behind"
sed -i '0,/^#include "input.h"/s//#include "input.h"\n#include "blknames.h"/' "$TMP/behind/analysis.c"
out=$(check_house "$TMP/behind") && fail "analysis including blknames.h was not seen"
[[ $out == *"behind input.h: analysis includes blknames.h"* ]] || fail "behind: $out"

printf '#include "wcerr.h"\n' >"$TMP/loop/new.c"
out=$(check_house "$TMP/loop") && fail "a module without a stage was not seen"
[[ $out == *"new has no stage"* ]] || fail "no stage: $out"
exit 0
