#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t56-hostile-archives.sh - archives and folders made to mislead the
# reader (issue 22), each refused with its reason instead of analysed:
# two captures in one tar (once read as one trace spliced from two
# clocks), a member name that comes twice, small and large (the report
# depended on the member's size), a zip member whose CRC is wrong, a zip
# cut short and a corrupt deflate member (the scan stopped reading at the
# size it expected, so libarchive's checks never ran; --dump printed a
# large member's lines up to the damage first), trace files whose
# CPU part is out of range (dropped without a word), traces with no
# record and a second "-" (0-second captures), and symbolic links in a
# capture folder (followed: a linked capture.conf named the capture, a
# linked trace's error showed its first bytes).  All made here, small.
# shellcheck source=tests/lib/common.sh
source "$(dirname "$0")/lib/common.sh"

cd "$TMP"
"$WCSYNTH" -c -n 40 capA >/dev/null
"$WCSYNTH" -c -n 60 -S 2 capB >/dev/null
# About 240 KB a CPU file (the case reported), and over 1 MiB.
"$WCSYNTH" -c -n 600 mid >/dev/null
"$WCSYNTH" -c -n 2800 big >/dev/null
[[ $(stat -c %s big/trace/loop9.blktrace.0) -gt 1048576 ]] || fail "big: CPU file not over 1 MiB"
sz=$(stat -c %s mid/trace/loop9.blktrace.0)
[[ $sz -gt 200000 && $sz -lt 1048576 ]] || fail "mid: CPU file of $sz bytes"

python3 - <<'PY'
import io, tarfile, zipfile

def data(p):
    return open(p, 'rb').read()

def tar(out, members):
    with tarfile.open(out, 'w') as t:
        for name, b in members:
            ti = tarfile.TarInfo(name)
            ti.size = len(b)
            t.addfile(ti, io.BytesIO(b))

def cap(d):
    return [(d + '/capture.conf', data(d + '/capture.conf')),
            (d + '/trace/loop9.blktrace.0', data(d + '/trace/loop9.blktrace.0')),
            (d + '/trace/loop9.blktrace.1', data(d + '/trace/loop9.blktrace.1'))]

tar('two.tar', cap('capA') + cap('capB'))
# Two folders, trace files only.
tar('two-traces.tar', cap('capA')[1:] + cap('capB')[1:])
for d in ('capA', 'big'):
    c = cap(d)
    other = data(('capB' if d == 'capA' else 'mid') + '/trace/loop9.blktrace.0')
    tar('dup-%s.tar' % d, c + [(c[1][0], other)])
tar('dup-conf.tar', cap('capA') + [('capA/capture.conf', b'name = other\n')])
tar('cpu-dot01.tar', cap('capA') + [('capA/trace/loop9.blktrace.01', data('capB/trace/loop9.blktrace.1'))])
for i, sfx in enumerate(('65536', '99999999999', '0x1')):
    tar('cpu-%d.tar' % i, cap('capA') + [('capA/trace/loop9.blktrace.' + sfx, data('capB/trace/loop9.blktrace.1'))])
tar('empty.tar', [('e/trace/loop9.blktrace.0', b''), ('e/trace/loop9.blktrace.1', b'')])

m = cap('mid')
with zipfile.ZipFile('mid.zip', 'w', zipfile.ZIP_STORED) as z:
    for name, b in m:
        z.writestr(name, b)
ok = data('mid.zip')
b = bytearray(ok)
i = b.find(m[1][0].encode()) + len(m[1][0]) + 5000
b[i] ^= 0xff
open('badcrc.zip', 'wb').write(b)
open('cut.zip', 'wb').write(ok[:len(ok) // 2])
with zipfile.ZipFile('defl.zip', 'w', zipfile.ZIP_DEFLATED) as z:
    for name, b in m:
        z.writestr(name, b)
b = bytearray(data('defl.zip'))
i = b.find(m[1][0].encode()) + len(m[1][0]) + 3000
for k in range(40):
    b[i + k] ^= 0x5a
open('baddefl.zip', 'wb').write(b)
# The same damage near the end of a member over 1 MiB, which is copied
# aside, not read whole.
with zipfile.ZipFile('bigdefl.zip', 'w', zipfile.ZIP_DEFLATED) as z:
    for name, b in cap('big'):
        z.writestr(name, b)
z = zipfile.ZipFile('bigdefl.zip')
info = z.getinfo('big/trace/loop9.blktrace.0')
b = bytearray(data('bigdefl.zip'))
i = info.header_offset + 30 + len(info.filename) + len(info.extra) + info.compress_size - 100
for k in range(40):
    b[i + k] ^= 0x5a
open('bigbad.zip', 'wb').write(b)
PY

# refused WHAT INPUT PATTERN: exit 2 and an error line matching PATTERN.
refused() {
	local what=$1 input=$2 pat=$3 rc=0
	timeout 60 "$WCANALYZE" "$input" >out 2>err || rc=$?
	[[ $rc -eq 2 ]] || fail "$what: exit $rc, expected 2: $(head -c 300 err)"
	grep -Eq "$pat" err || fail "$what: said: $(head -c 300 err)"
	echo "ok: $what: $(head -n 1 err)"
}

refused "two captures" two.tar \
	'^wcanalyze: two.tar: capB/.*: the archive holds two captures, in capA/ and capB/: refused'
refused "two folders of traces" two-traces.tar 'holds two captures, in capA/ and capB/'
refused "a small member twice" dup-capA.tar \
	'^wcanalyze: dup-capA.tar: capA/trace/loop9.blktrace.0: twice in the archive: refused'
refused "a member over 1 MiB twice" dup-big.tar \
	'^wcanalyze: dup-big.tar: big/trace/loop9.blktrace.0: twice in the archive: refused'
refused "capture.conf twice" dup-conf.tar 'capA/capture.conf: twice in the archive: refused'
refused "CPU 1 as .1 and .01" cpu-dot01.tar 'two trace files for CPU 1 of capA/trace/loop9'
for i in 0 1 2; do
	refused "CPU part out of range ($i)" "cpu-$i.tar" \
		"cpu-$i.tar: capA/trace/loop9.blktrace.[0-9x]+: not a trace file's name: its CPU part is no number from 0 to 65535"
done
mkdir -p cpudir/trace
cp capA/trace/* cpudir/trace/
cp capB/trace/loop9.blktrace.1 cpudir/trace/loop9.blktrace.0x1
refused "CPU part out of range in a folder" cpudir \
	"cpudir/trace/loop9.blktrace.0x1: not a trace file's name"
# Integrity: a wrong CRC in a member read whole at the scan, a zip cut
# short, a corrupt deflate stream: libarchive's own words, never
# events taken from the damaged bytes.
timeout 60 "$WCANALYZE" mid.zip >/dev/null || fail "mid.zip: the intact zip fails"
refused "stored zip member with a wrong CRC" badcrc.zip \
	'^wcanalyze: badcrc.zip: mid/trace/loop9.blktrace.0: offset [0-9]+: ZIP bad CRC'
refused "zip cut short" cut.zip '^wcanalyze: cut.zip: .*: [Tt]runcated'
refused "corrupt deflate member" baddefl.zip \
	'^wcanalyze: baddefl.zip: mid/trace/loop9.blktrace.0: offset [0-9]+: ZIP (decompression failed|uncompressed data is wrong size|bad CRC)'
grep -q pdu_len err && fail "corrupt deflate: events decoded from the damaged bytes: $(cat err)"
# Whatever the member's size, and in --dump and a timeline too, which
# print as they read: the archive is read in one pass, so a member that
# fails libarchive's checks is refused before the first event (a member
# over 1 MiB, read on a handle of its own, once had its lines printed
# up to the damage first).
for mode in --format=text --dump --format=trace-event; do
	rc=0
	timeout 60 "$WCANALYZE" "$mode" bigbad.zip >out 2>err || rc=$?
	# Events: a report's, a dump line, a timeline's (its head and tail
	# are written all the same).
	n=$(grep -c -e '"ph"' -e '^[0-9 ]*,[0-9 ]* ' out || true)
	[[ $rc -eq 2 && $n -eq 0 ]] ||
		fail "$mode, damage late in a member over 1 MiB: exit $rc, $n events printed first: $(head -c 300 err)"
	grep -Eq '^wcanalyze: bigbad.zip: big/trace/loop9.blktrace.0: offset [0-9]+: ZIP (decompression failed|uncompressed data is wrong size|bad CRC)' err ||
		fail "$mode, damage late in a member over 1 MiB: said: $(head -c 300 err)"
done
echo "ok: a damaged member over 1 MiB refused before the first event"
# No record at all.
refused "trace files all empty" empty.tar '^wcanalyze: empty.tar: no trace record: every trace file is empty'
rc=0
"$WCANALYZE" - </dev/null >out 2>err || rc=$?
if [[ $rc -ne 2 ]] || ! grep -q '^wcanalyze: -: no trace record: the trace is empty' err; then
	fail "empty standard input: exit $rc: $(cat err)"
fi
rc=0
"$WCANALYZE" - capA - <capA/trace/loop9.blktrace.0 >out 2>err || rc=$?
if [[ $rc -ne 2 ]] || ! grep -q "standard input ('-') named more than once" err; then
	fail "a second '-': exit $rc: $(cat err)"
fi
# Links in a capture folder are not followed.
printf '[user]\n\tname = Alice Example\n' >gitconfig
echo 'root:x9T.secret:19000:0:99999:7:::' >shadow
mkdir -p lconf lconf/trace ltrace ltrace/trace ldir
cp capA/trace/* lconf/trace/
ln -s "$TMP/gitconfig" lconf/capture.conf
cp capA/capture.conf capA/trace/* ltrace/trace/
ln -s "$TMP/shadow" ltrace/trace/loop9.blktrace.2
cp capA/capture.conf ldir/
ln -s "$TMP/capA/trace" ldir/trace
for d in lconf ltrace ldir; do
	for mode in --format=text --dump; do
		rc=0
		"$WCANALYZE" "$mode" "$d" >out 2>err || rc=$?
		[[ $rc -eq 2 ]] || fail "$d $mode: exit $rc, expected 2: $(cat err)"
		grep -Eq "^wcanalyze: $d/(capture.conf|trace/loop9.blktrace.2|trace): a symbolic link: not followed$" err ||
			fail "$d $mode: said: $(cat err)"
		! grep -Eq 'Alice|0x746f6f72|root' out err || fail "$d $mode: bytes of the linked file shown"
	done
	echo "ok: $d: $(cat err)"
done
