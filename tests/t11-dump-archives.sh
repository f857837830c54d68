#!/usr/bin/env bash
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
	cmp -s wc-dir "wc-$a" || { diff wc-dir "wc-$a" | head; fail "$a: dump differs from the directory"; }
done
# Nothing may have been unpacked next to the archives.
[[ ! -e trace && ! -e loop1.blktrace.0 ]] || fail "files were extracted to disk"
echo "ok: $(wc -l <bp) lines, 8 archives"
