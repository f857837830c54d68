#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t13-bad-input.sh - every kind of bad input gets one diagnostic line that
# names the file (and archive member), the byte offset and the reason, and
# exit status 2; the events before a bad record are still dumped (the same
# lines blkparse prints for them).  The diagnostics are compared with
# tests/fixtures/reader/bad-input.expected.  The analysis of standard
# input that holds no record, or none good, says so and reports nothing,
# as of such a file; one that turns bad after good records reports them.
# shellcheck source=tests/lib/common.sh
source "$(dirname "$0")/lib/common.sh"

FIX=$TOP/tests/fixtures/reader
SRC=$FIX/ext4/loop1.blktrace.0   # its first 34 records carry no payload

cd "$TMP"
poke() {   # poke FILE OFFSET PRINTF-BYTES
	# shellcheck disable=SC2059 # the bytes are a printf format on purpose
	printf "$3" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}

head -c 1000 "$SRC" >trunc.blktrace.0           # 20 records and 40 bytes
head -c 528 "$SRC" >pdulen.blktrace.0           # 11 records ...
poke pdulen.blktrace.0 $((480 + 46)) '\xf4\x01'  # ... the last says 500 more
cp "$SRC" badmagic.blktrace.0
poke badmagic.blktrace.0 240 '\xde\xad\xbe\xef'
cp "$SRC" badver.blktrace.0
poke badver.blktrace.0 240 '\x09'
printf 'this is not a trace at all, but it is long enough\n' >garbage.blktrace.0
printf 'plain text\n' >notes.txt
# Lines like /etc/passwd's, which libarchive bids for as an mtree listing
printf 'root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n' >users.txt
: >emptyfile
tar cf empty.tar --files-from /dev/null
mkdir -p notrace/info && echo x >notrace/info/readme && tar czf notrace.tar.gz notrace
mkdir -p cap/trace && cp trunc.blktrace.0 cap/trace/loop1.blktrace.0 && tar czf cap.tar.gz cap

: >stderr.all
for c in trunc pdulen badmagic badver garbage notes.txt users.txt emptyfile empty.tar \
	notrace.tar.gz cap.tar.gz missing; do
	rc=0
	timeout 20 "$WCANALYZE" --dump "$c" >"$c.out" 2>"$c.err" || rc=$?
	[[ $rc -eq 2 ]] || fail "$c: exit $rc, expected 2: $(cat "$c.err")"
	[[ $(wc -l <"$c.err") -eq 1 ]] || fail "$c: expected one diagnostic line, got: $(cat "$c.err")"
	cat "$c.err" >>stderr.all
done
if ! diff -u "$FIX/bad-input.expected" stderr.all; then
	fail "diagnostics differ from bad-input.expected"
fi

# Events before the bad record are dumped, as blkparse prints them.
for c in trunc pdulen badmagic badver; do
	blkparse -q -i "$c" 2>/dev/null | grep -v '^Input file ' >"$c.bp" || true
	[[ -s $c.out ]] || fail "$c: the events before the bad record are missing"
	cmp -s "$c.bp" "$c.out" || { show_diff "$c.bp" "$c.out"; fail "$c: events before the bad record differ from blkparse"; }
done
[[ $(wc -l <trunc.out) -eq 20 ]] || fail "trunc: expected 20 events"
cmp -s trunc.out cap.tar.gz.out || fail "archive member: events before the bad record differ"

# One bad stream does not hide the others: a good CPU file beside a bad one.
mkdir two && cp trunc.blktrace.0 two/loop1.blktrace.0 && cp "$FIX/ext4/loop1.blktrace.1" two/
rc=0
"$WCANALYZE" --dump two >two.out 2>two.err || rc=$?
[[ $rc -eq 2 ]] || fail "two: exit $rc"
blkparse -q -D two -i loop1 2>/dev/null | grep -v '^Input file ' >two.bp
cmp -s two.bp two.out || fail "two: the good stream's events differ from blkparse"
# Standard input: nothing before the failure, no report of it.
for c in garbage.blktrace.0 emptyfile notrace.tar.gz; do
	rc=0
	"$WCANALYZE" - <"$c" >"$c.stdin.out" 2>"$c.stdin.err" || rc=$?
	[[ $rc -eq 2 ]] || fail "$c on stdin: exit $rc, expected 2"
	[[ $(wc -l <"$c.stdin.err") -eq 1 ]] || fail "$c on stdin: expected one diagnostic line, got: $(cat "$c.stdin.err")"
	[[ ! -s $c.stdin.out ]] || fail "$c on stdin: a report of nothing: $(head -3 "$c.stdin.out")"
done
rc=0
"$WCANALYZE" - <trunc.blktrace.0 >trunc.stdin.out 2>trunc.stdin.err || rc=$?
[[ $rc -eq 2 ]] || fail "trunc on stdin: exit $rc, expected 2"
grep -q 'input ended early: partial' trunc.stdin.out ||
	fail "trunc on stdin: the events before the bad record not reported"
echo "ok: 11 bad inputs diagnosed, 4 on standard input"
