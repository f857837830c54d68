#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t11-dump-archives.sh - a capture packed as tar, tar.gz, tar.xz, tar.zst,
# tar.bz2, zip and cpio dumps exactly as the unpacked directory does, and
# as blkparse prints the trace files; nothing is extracted to disk.
# shellcheck source=tests/lib/common.sh
source "$(dirname "$0")/lib/common.sh"

CONV=$BUILD/tests/wctrace_convert
FIX=$TOP/tests/fixtures/reader

cd "$TMP"
# The capture layout of docs/capture-format.md, two devices.
mkdir -p run1/trace run1/info
cp "$FIX"/ext4/* run1/trace/
for f in "$FIX"/xfs/loop1.blktrace.*; do
	"$CONV" --device 7:2 "$f" "run1/trace/loop2.blktrace.${f##*.}"
done
printf 'format_version = 1\nname = run1\ndevices = loop1 loop2\n' >run1/capture.conf
printf 'phase\tstart_ns\tend_ns\treal_s\tuser_s\tsys_s\ncopy\t1\t2\t0.5\t0.1\t0.2\n' >run1/phases.tsv
echo "for people" >run1/info/uname.txt

blkparse -q -D run1/trace -i loop1 -i loop2 | grep -v '^Input file ' >bp
"$WCANALYZE" --dump run1 >wc-dir
cmp -s bp wc-dir || fail "capture directory dump differs from blkparse"

tar cf run1.tar run1
tar czf run1.tar.gz run1
tar cJf run1.tar.xz run1
tar --zstd -cf run1.tar.zst run1
tar cjf run1.tar.bz2 run1
zip -qr run1.zip run1
find run1 | cpio -o -H newc --quiet >run1.cpio
# Members in another order than the directory listing: streams are sorted.
(cd run1 && tar cf ../rev.tar info trace/loop2.blktrace.1 trace/loop2.blktrace.0 \
	trace/loop1.blktrace.1 phases.tsv trace/loop1.blktrace.0 capture.conf)

for a in run1.tar run1.tar.gz run1.tar.xz run1.tar.zst run1.tar.bz2 run1.zip run1.cpio rev.tar; do
	"$WCANALYZE" --dump "$a" >"wc-$a" || fail "$a: exit $?"
	cmp -s wc-dir "wc-$a" || { show_diff wc-dir "wc-$a"; fail "$a: dump differs from the directory"; }
done
# Nothing may have been unpacked next to the archives.
[[ ! -e trace && ! -e loop1.blktrace.0 ]] || fail "files were extracted to disk"

# An archive whose members need more handles than may be open (65 CPU
# files over 1 MiB each: none read whole, WC_INPUT_MAX_OPEN 64), each
# CPU naming the pids itself ("cN-PID") from a different point on, so
# that the name blkparse prints depends on the batches it read of every
# file (issue 8: such members had no name scout).
"$WCSYNTH" -n 2800 big >/dev/null
mkdir -p many/trace
for c in $(seq 0 64); do
	"$CONV" --cpu "$c" --names "c$c" --names-after $((100 + c * 37)) \
		"big.blktrace.$((c % 2))" "many/trace/s.blktrace.$c"
done
[[ $(find many/trace -size +1024k | wc -l) -eq 65 ]] || fail "many: members should be over 1 MiB each"
blkparse -q -D many/trace -i s 2>/dev/null | grep -v '^Input file ' >bp-many || true
[[ $(grep -o '\[c[0-9]*-' bp-many | sort -u | wc -l) -gt 1 ]] ||
	fail "many: blkparse should print names from several CPUs' files"
tar cf many.tar many
"$WCANALYZE" --dump many.tar >wc-many
cmp -s bp-many wc-many || { show_diff bp-many wc-many; fail "many members: names differ from blkparse"; }
echo "ok: $(wc -l <bp) lines, 8 archives; $(wc -l <bp-many) lines of 65 members over 1 MiB named as blkparse names them"
