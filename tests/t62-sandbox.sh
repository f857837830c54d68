#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t62-sandbox.sh - least privilege (issue 39, sandbox.h): once its
# options are read, wcanalyze may read only its inputs, the installed
# data, /usr and TMPDIR, and write only its output and TMPDIR.  A
# planted capture that reads outside by routes none of our checks
# guards (its disk_model opened as a path, a link in its info/ followed)
# is refused by the kernel under wcanalyze's own rules
# (wc_sandbox_apply(), applied by tests/sandbox_escape.c to the same
# inputs) with EACCES, and read without them; and the paths that run
# under the rules work: a report, --dump, standard input, --interval,
# --export-trace, a bundle drawn by gnuplot (which inherits the rules),
# --what-if.
# shellcheck source=tests/lib/common.sh
source "$(dirname "$0")/lib/common.sh"

command -v gnuplot >/dev/null || fail "gnuplot is needed (scripts/deps.sh installs it)"
SAMPLE=$TOP/samples/loop-ext4-cache-on-barrier-on-run1.tar.xz
CAP=loop-ext4-cache-on-barrier-on-run1
export WCANALYZE_PLOTS=$TOP/plots
cd "$TMP"
mkdir tmp outside
export TMPDIR=$TMP/tmp
echo "not for a stranger's capture" >outside/secret
chmod 600 outside/secret

"$WCANALYZE" -v "$SAMPLE" >report.txt 2>err.txt || fail "report: $(cat err.txt)"
if grep -q 'no Landlock' err.txt; then
	skip "this kernel has no Landlock"
fi
grep -q '^wcanalyze: sandbox on (Landlock ABI [0-9]*)$' err.txt ||
	fail "-v does not say the sandbox is on: $(cat err.txt)"
grep -q '^findings' report.txt || fail "no report under the sandbox"

# A planted capture reaching for a file outside, which root may read by
# its rights: refused by the kernel under the rules, read without.
ESCAPE=$BUILD/tests/sandbox_escape
[[ -x $ESCAPE ]] || fail "no $ESCAPE"
mkdir -p planted/info escout
printf 'format_version = 1\nname = planted\ndisk_model = %s\n' "$TMP/outside/secret" >planted/capture.conf
ln -s "$TMP/outside/secret" planted/info/disk.conf
"$ESCAPE" --output escout planted >esc.txt 2>err.txt || fail "sandbox_escape: $(cat err.txt)"
cat >want.txt <<EOF
planted/capture.conf: opened
disk_model $TMP/outside/secret: Permission denied
planted/info/disk.conf: Permission denied
escout/written: opened
EOF
diff -u want.txt esc.txt >&2 || fail "the planted capture read outside under the rules"
"$ESCAPE" --no-sandbox planted >esc.txt 2>err.txt || fail "sandbox_escape --no-sandbox: $(cat err.txt)"
cat >want.txt <<EOF
planted/capture.conf: opened
disk_model $TMP/outside/secret: opened
planted/info/disk.conf: opened
EOF
diff -u want.txt esc.txt >&2 || fail "without the rules the same opens fail: the kernel was not what refused them"
# A file beside the secret is readable when named as an input.
"$ESCAPE" planted outside/secret >esc.txt 2>err.txt || fail "sandbox_escape: $(cat err.txt)"
grep -qx 'outside/secret: opened' esc.txt || fail "an input named on the command line is not readable: $(cat esc.txt)"
"$WCANALYZE" --no-sandbox -v "$SAMPLE" >/dev/null 2>err.txt || fail "--no-sandbox: $(cat err.txt)"
grep -q '^wcanalyze: sandbox off (--no-sandbox)$' err.txt || fail "--no-sandbox -v: $(cat err.txt)"

# --dump, standard input, --interval, --export-trace.
"$WCANALYZE" --dump "$SAMPLE" >dump.txt 2>err.txt || fail "--dump: $(cat err.txt)"
"$WCANALYZE" --no-sandbox --dump "$SAMPLE" | cmp -s - dump.txt || fail "--dump differs under the sandbox"
mkdir trace
tar -xJf "$SAMPLE" -C trace --strip-components=2 --wildcards '*/trace/*'
blkparse -q -D trace -i loop0 -i loop2 -d merged.bin -O >/dev/null
"$WCANALYZE" --format json - <merged.bin >stdin.json 2>err.txt || fail "stdin: $(cat err.txt)"
jq -e '.captures | length == 1' stdin.json >/dev/null || fail "stdin: no capture"
"$WCANALYZE" --interval 1 --format csv "$SAMPLE" >iv.csv 2>err.txt || fail "--interval: $(cat err.txt)"
[[ $(wc -l <iv.csv) -gt 5 ]] || fail "--interval: $(wc -l <iv.csv) lines"
"$WCANALYZE" --export-trace tl.json "$SAMPLE" >/dev/null 2>err.txt || fail "--export-trace: $(cat err.txt)"
jq -e '.traceEvents | length > 1000' tl.json >/dev/null || fail "--export-trace: no timeline"

# A bundle: gnuplot runs under the same rules and draws every figure.
"$WCANALYZE" -o out "$SAMPLE" >/dev/null 2>err.txt || fail "bundle: $(cat err.txt)"
[[ ! -e out/gnuplot.log ]] || fail "gnuplot failed under the sandbox: $(head -5 out/gnuplot.log)"
for f in throughput.png heatmap-latency.png scatter.svg; do
	[[ -s out/$CAP/$f ]] || fail "bundle: $f not drawn under the sandbox"
done

# --what-if, with the disks where it looks for them (the source tree's).
(cd "$TOP" && "$WCANALYZE" --what-if cache=off --format json "$SAMPLE") >wi.json 2>err.txt ||
	fail "--what-if: $(cat err.txt)"
jq -e '.captures | length == 3' wi.json >/dev/null || fail "--what-if: not three analyses"
[[ -z $(ls -A tmp) ]] || fail "files left in TMPDIR: $(ls -A tmp)"
echo "t62: ok"
