#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t93-dump-few-descriptors.sh - `--dump` of 48 per-CPU files, each naming
# the same pids itself from a different record on, under an open-file
# limit that holds a handle a file and a few more but not two: the
# scouts of blkparse's names (blknames.h) then open a file at each batch
# instead of keeping a second handle, and the dump stays blkparse's.
# With a second handle kept a file, the reader's or a scout's open failed
# here.
# shellcheck source=tests/lib/common.sh
source "$(dirname "$0")/lib/common.sh"

CONV=$BUILD/tests/wctrace_convert
command -v blkparse >/dev/null || fail "blkparse is missing (scripts/deps.sh installs it)"

cd "$TMP"
"$WCSYNTH" -n 300 syn >/dev/null
mkdir many
nfiles=48
for ((c = 0; c < nfiles; c++)); do
	"$CONV" --cpu "$c" --names "c$c" --names-after $(((c * 397) % 2300)) \
		"syn.blktrace.$((c % 2))" "many/s.blktrace.$c"
done
blkparse -q -D many -i s | grep -v '^Input file ' >bp
[[ $(grep -o '\[c[0-9]*-' bp | sort -u | wc -l) -gt 1 ]] ||
	fail "blkparse names the pids from one file only: the test shows nothing"
"$WCANALYZE" --dump many >free 2>free.err || fail "no limit: $(head -3 free.err)"
cmp -s bp free || { show_diff bp free; fail "no limit: dump differs from blkparse"; }

# A handle a file, one for a scout's batch, standard streams, and spare.
limit=$((nfiles + 12))
rc=0
(ulimit -n "$limit" && "$WCANALYZE" --dump many >tight 2>tight.err) || rc=$?
[[ $rc -eq 0 ]] || fail "ulimit -n $limit: exit $rc: $(head -3 tight.err)"
[[ ! -s tight.err ]] || fail "ulimit -n $limit: diagnostics: $(head -3 tight.err)"
cmp -s free tight || { show_diff free tight; fail "ulimit -n $limit: dump differs"; }
echo "ok: $nfiles files, several names a pid, as blkparse under ulimit -n $limit"
