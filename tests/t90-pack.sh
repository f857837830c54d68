#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t90-pack.sh - wcrecord --pack, the capture archive's writer
# (analyze/lib/input/pack.h).  A round trip: a capture of samples/
# unpacked and packed again holds the same members in the same order and
# bytes (capture.conf's trace_files written anew) and gives the same
# analysis.  And it refuses, before writing anything, what the reader
# (members.h) would refuse and what it must not follow: a trace file's
# name with a bad CPU, a trace file outside the capture folder, a
# symbolic link, a folder without capture.conf.
# shellcheck source=tests/lib/common.sh
source "$(dirname "$0")/lib/common.sh"

mapfile -t picked < <(samples_pick "$TOP"/samples/*.tar.xz)
[[ ${#picked[@]} -gt 0 ]] || skip "no samples"
for s in "${picked[@]}"; do
	name=$(basename "$s" .tar.xz)
	rm -rf "$TMP/u"
	mkdir "$TMP/u"
	tar -C "$TMP/u" -xJf "$s"
	"$WCRECORD" --pack "$TMP/u/$name" >"$TMP/$name.tar.gz" 2>"$TMP/err" ||
		fail "$name: --pack failed: $(cat "$TMP/err")"
	tar -tJf "$s" >"$TMP/old.list"
	tar -tzf "$TMP/$name.tar.gz" >"$TMP/new.list"
	cmp -s "$TMP/old.list" "$TMP/new.list" ||
		{ diff "$TMP/old.list" "$TMP/new.list"; fail "$name: not the sample's members in its order"; }
	rm -rf "$TMP/p"
	mkdir "$TMP/p"
	tar -C "$TMP/p" -xzf "$TMP/$name.tar.gz"
	n=$(grep -c '\.blktrace\.[0-9]*$' "$TMP/new.list")
	[[ $(grep -c "^trace_files = " "$TMP/p/$name/capture.conf") == 1 ]] || fail "$name: not one trace_files line"
	grep -qx "trace_files = $n" "$TMP/p/$name/capture.conf" ||
		fail "$name: capture.conf does not announce its $n trace files"
	for d in u p; do
		grep -v '^trace_files = ' "$TMP/$d/$name/capture.conf" >"$TMP/$d.conf"
		mv "$TMP/$d.conf" "$TMP/$d/$name/capture.conf"
	done
	diff -r "$TMP/u/$name" "$TMP/p/$name" || fail "$name: not the sample's bytes"
	"$WCANALYZE" --format json "$s" >"$TMP/old.json" || fail "$name: the sample's analysis failed"
	"$WCANALYZE" --format json "$TMP/$name.tar.gz" >"$TMP/new.json" ||
		fail "$name: the packed archive's analysis failed"
	# the raw record names the file read (docs/json-format.md, "RAW"):
	# the only field that may differ between the two archives
	for j in old new; do
		jq -S 'del(.captures[].raw.capture.meta.input)' "$TMP/$j.json" >"$TMP/$j.cmp" ||
			fail "$name: $j.json is not JSON"
	done
	cmp -s "$TMP/old.cmp" "$TMP/new.cmp" ||
		{ diff "$TMP/old.cmp" "$TMP/new.cmp" | sed -n 1,20p; fail "$name: another analysis"; }
done
echo "ok: ${#picked[@]} samples packed again, same members, bytes and analysis"

# refused DIR PATTERN: --pack DIR fails with status 2 and a message
# matching PATTERN, writing nothing; plain tar of DIR, read by wcanalyze,
# is refused too where READER says so.
refused() {
	local dir=$1 pattern=$2 rc=0
	"$WCRECORD" --pack "$dir" >"$TMP/out.tar.gz" 2>"$TMP/err" || rc=$?
	[[ $rc -eq 2 ]] || fail "$dir: --pack exited $rc, expected 2: $(cat "$TMP/err")"
	[[ ! -s $TMP/out.tar.gz ]] || fail "$dir: --pack wrote something before refusing"
	grep -qE "^wcrecord: $pattern" "$TMP/err" || fail "$dir: unexpected message: $(cat "$TMP/err")"
}
# stage NAME: a capture folder the packer takes.
stage() {
	rm -rf "$TMP/s"
	mkdir -p "$TMP/s/$1/trace" "$TMP/s/$1/info"
	printf 'name = %s\n' "$1" >"$TMP/s/$1/capture.conf"
	cp "$TOP/tests/fixtures/reader/xfs/loop1.blktrace.0" "$TMP/s/$1/trace/"
}
stage good
"$WCRECORD" --pack "$TMP/s/good" >"$TMP/good.tar.gz" || fail "a good stage was refused"
"$WCANALYZE" "$TMP/good.tar.gz" >/dev/null || fail "wcanalyze refuses the good stage's archive"

for bad in trace/loop1.blktrace.1a trace/loop1.blktrace.70000 info/loop1.blktrace.1 info/phases.tsv; do
	stage bad
	cp "$TOP/tests/fixtures/reader/xfs/loop1.blktrace.1" "$TMP/s/bad/$bad"
	case $bad in
	*.1a | *.70000) why="$TMP/s/bad: bad/$bad: not a trace file's name: its CPU part is no number from 0 to 65535" ;;
	*) why="$TMP/s/bad: bad/$bad: the archive holds two captures, in bad/ and bad/info/: refused" ;;
	esac
	refused "$TMP/s/bad" "$why"
	# What the reader says of the same folder packed by plain tar.
	tar -C "$TMP/s" -czf "$TMP/plain.tar.gz" bad
	"$WCANALYZE" "$TMP/plain.tar.gz" >/dev/null 2>"$TMP/rerr" && fail "$bad: wcanalyze reads it: the test is wrong"
	grep -qF "${why#"$TMP/s/bad: "}" "$TMP/rerr" || fail "$bad: the reader refuses it otherwise: $(cat "$TMP/rerr")"
done

stage link
ln -s /etc/passwd "$TMP/s/link/info/passwd.txt"
refused "$TMP/s/link" ".*link/info/passwd.txt: a symbolic link: refused"
stage link
ln -s "$TOP/tests/fixtures/reader/xfs" "$TMP/s/link/trace/more"
refused "$TMP/s/link" ".*link/trace/more: a symbolic link: refused"
stage noconf
rm "$TMP/s/noconf/capture.conf"
refused "$TMP/s/noconf" ".*capture.conf: missing"
stage good
ln -s "$TMP/s/good" "$TMP/s/alias"
refused "$TMP/s/alias" ".*alias: a symbolic link: not followed"
echo "ok: bad CPU parts, files outside the capture folder, links and a missing capture.conf refused"
