#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t61-what-if-hostile.sh - what a stranger's capture can make --what-if
# do, and what a user's own disk file can: a capture's disk_model is a
# name looked up among the installed disks, never a path opened (not
# /etc/passwd, /dev/zero or a FIFO); a user's disk=PATH or wcdisk --disk
# PATH is read only when it is a regular file, and fails at once when not.
# Each case runs under a timeout: before the fix the FIFO and /dev/zero
# never ended.
# shellcheck source=tests/lib/common.sh
source "$(dirname "$0")/lib/common.sh"

export WCANALYZE_DISKS=$TOP/capture/disks
cd "$TMP"
mkfifo fifo

# Runs CMD with its output in out.txt and err.txt; fails unless it exits N.
exits() {
	local want=$1 rc=0
	shift
	"$@" >out.txt 2>err.txt || rc=$?
	[[ $rc -eq $want ]] || fail "'$*' exited $rc, expected $want: $(cat err.txt)"
}

# A capture folder: the reader's ext4 fixture with a capture.conf.
capture() {
	rm -rf cap
	mkdir cap
	cp "$TOP"/tests/fixtures/reader/ext4/loop1.blktrace.* cap/
	printf 'format_version = 1\nname = hostile\n%s\n' "$1" >cap/capture.conf
}

# A capture's disk_model: refused with a note, replayed on hdd7200.
for model in "$TMP/fifo" /dev/zero /etc/passwd ../capture/disks/ssd \
	.hidden -ssd "$(printf 'a\033[2Jb')"; do
	capture "disk_model = $model"
	rc=0
	timeout 60 "$WCANALYZE" --what-if cache=off cap >out.txt 2>err.txt || rc=$?
	[[ $rc -eq 0 ]] || fail "disk_model '$model': exit $rc: $(cat err.txt)"
	grep -q "never opened as a path.*replayed as recorded on hdd7200" err.txt ||
		fail "disk_model '$model': no word of the refusal: $(cat err.txt)"
	LC_ALL=C grep -q $'\033' err.txt && fail "disk_model '$model': an escape reached the terminal"
	grep -q 'hostile replayed as recorded' out.txt || fail "disk_model '$model': no replay"
done
# With the parameters it was served with (info/disk.conf), a capture's
# disk_model is only a label: one that names no installed disk is said
# to be so, never shown as a model disk of ours.
for model in /etc/passwd "$(printf 'a\033[2Jb')"; do
	capture "disk_model = $model"
	mkdir cap/info
	cp "$TOP/capture/disks/ssd" cap/info/disk.conf
	rc=0
	timeout 60 "$WCANALYZE" --what-if cache=off cap >out.txt 2>err.txt || rc=$?
	[[ $rc -eq 0 ]] || fail "disk_model '$model' with info/disk.conf: exit $rc: $(cat err.txt)"
	grep -q "is no installed model disk.*with the parameters of its info/disk.conf" err.txt ||
		fail "disk_model '$model' with info/disk.conf: no word that it names no installed disk: $(cat err.txt)"
	LC_ALL=C grep -q $'\033' err.txt out.txt && fail "disk_model '$model': an escape reached the terminal"
	grep -q 'hostile replayed as recorded' out.txt || fail "disk_model '$model' with info/disk.conf: no replay"
done
capture "disk_model = ssd"
mkdir cap/info
cp "$TOP/capture/disks/ssd" cap/info/disk.conf
"$WCANALYZE" --what-if cache=off cap >out.txt 2>err.txt || fail "disk_model ssd with info/disk.conf: $(cat err.txt)"
grep -q "no installed model disk" err.txt && fail "disk_model ssd with info/disk.conf: called not installed: $(cat err.txt)"

# A name is still looked up.
capture "disk_model = ssd"
"$WCANALYZE" --what-if cache=off cap >out.txt 2>err.txt || fail "disk_model ssd: $(cat err.txt)"
grep -q "no model disk" err.txt && fail "disk_model ssd was not found: $(cat err.txt)"

# The user's own path: only a regular file, at once.
for f in /dev/zero "$TMP/fifo"; do
	rc=0
	timeout 60 "$WCANALYZE" --what-if "disk=$f" cap >out.txt 2>err.txt || rc=$?
	[[ $rc -eq 2 ]] || fail "disk=$f: exit $rc, expected 2: $(cat err.txt)"
	grep -q 'not a regular file' err.txt || fail "disk=$f: $(cat err.txt)"
done
printf 'model = ssd\nrpm = 5400\0 x\n' >nul
expect_exit 2 timeout 60 "$WCANALYZE" --what-if disk="$TMP/nul" cap
if [[ -x $BUILD/wcdisk ]]; then
	for f in /dev/zero "$TMP/fifo" "$TMP/nul"; do
		rc=0
		timeout 60 "$BUILD/wcdisk" --disk "$f" --print-params >out.txt 2>err.txt || rc=$?
		[[ $rc -ne 0 && $rc -ne 124 ]] || fail "wcdisk --disk $f --print-params: exit $rc"
	done
fi
# info/disk.conf is read as capture.conf is: no FIFO waited on, no link
# followed (neither the file nor its folder), in a folder or an archive.
capture "disk_model = hdd7200"
mkdir cap/info
mkfifo cap/info/disk.conf
rc=0
timeout 60 "$WCANALYZE" --what-if cache=off cap >out.txt 2>err.txt || rc=$?
[[ $rc -eq 2 ]] || fail "info/disk.conf a FIFO: exit $rc, expected 2: $(cat err.txt)"
grep -q 'info/disk.conf: not a regular file' err.txt || fail "FIFO: $(cat err.txt)"
rm cap/info/disk.conf
ln -s "$TOP/capture/disks/ssd" cap/info/disk.conf
exits 2 "$WCANALYZE" --what-if cache=off cap
grep -q 'disk.conf: a symbolic link: not followed' err.txt ||
	fail "info/disk.conf a link was followed: $(cat err.txt)"
tar cf linked.tar cap
exits 2 "$WCANALYZE" --what-if cache=off linked.tar
grep -q 'cap/info/disk.conf: not a regular file' err.txt ||
	fail "info/disk.conf a link in an archive was taken: $(cat err.txt)"
rm -r cap/info
mkdir elsewhere
cp "$TOP/capture/disks/ssd" elsewhere/disk.conf
ln -s "$TMP/elsewhere" cap/info
exits 2 "$WCANALYZE" --what-if cache=off cap
grep -q 'cap/info: a symbolic link: not followed' err.txt || fail "info/ a link: $(cat err.txt)"
# A regular info/disk.conf is still read, in a folder and an archive.
rm cap/info
mkdir cap/info
cp "$TOP/capture/disks/ssd" cap/info/disk.conf
"$WCANALYZE" --what-if cache=off cap >out.txt 2>err.txt || fail "info/disk.conf: $(cat err.txt)"
grep -q "no model disk\|not a disk" err.txt && fail "info/disk.conf not read: $(cat err.txt)"
tar czf good.tar.gz cap
"$WCANALYZE" --what-if cache=off good.tar.gz >out2.txt 2>err.txt || fail "archive: $(cat err.txt)"
# An input that fails midway: an input error, and (under the sanitizer
# build) no leak of the part analysed.
rm -rf cut
mkdir cut
cp "$TOP"/tests/fixtures/reader/ext4/loop1.blktrace.* cut/
truncate -s 6000 cut/loop1.blktrace.0
exits 2 "$WCANALYZE" --what-if cache=off cut
grep -q 'truncated record' err.txt || fail "cut: $(cat err.txt)"
# The baseline is the replay as recorded by its position, not by a name
# cut to fit: a capture named 150 x "A" + " replayed as recorded" is
# named as its replay is, and was its own baseline.
capture "name = $(printf 'A%.0s' {1..150}) replayed as recorded"
exits 0 "$WCANALYZE" --what-if cache=off --format json cap
python3 - out.txt <<'PY' || fail "the baseline is not the replay as recorded"
import json, sys
g = json.load(open(sys.argv[1]))["groups"]
sys.exit(not (g[0]["verdict"] != "baseline" and g[1]["verdict"] == "baseline"))
PY

# Options the what-if would ignore are refused: exit 2, nothing on
# standard output, the hint to --help.
for args in "--export-trace t.json" "--format trace-event" "--baseline cap"; do
	rc=0
	# shellcheck disable=SC2086 # split on purpose
	"$WCANALYZE" --what-if cache=off $args cap >out.txt 2>err.txt || rc=$?
	[[ $rc -eq 2 ]] || fail "--what-if $args: exit $rc, expected 2"
	[[ ! -s out.txt ]] || fail "--what-if $args: printed to stdout"
	grep -q "not with --baseline, --export-trace or --format trace-event" err.txt ||
		fail "--what-if $args: $(cat err.txt)"
done
[[ ! -e t.json ]] || fail "--what-if --export-trace wrote t.json"

# The what-if's output bound (whatif.h): at most 16 what-ifs, so at most
# 18 analyses; a 17th is refused before any input is read.
capture ""
many=()
for i in $(seq 17); do many+=(--what-if "cache=off,queue_depth=$i"); done
exits 2 "$WCANALYZE" "${many[@]}" cap
grep -q "more than 16 --what-if" err.txt || fail "17 what-ifs: $(cat err.txt)"
[[ ! -s out.txt ]] || fail "17 what-ifs: printed to stdout"
exits 0 "$WCANALYZE" --format json "${many[@]:2}" cap
jq -e '.captures | length == 18' out.txt >/dev/null || fail "16 what-ifs: not 18 analyses"

# Times at the replay's bound: a hand-made trace of N writes, each
# queued, dispatched and completed (blktrace version 7, little-endian,
# device 7,1), from BASE ns on, 1 ms apart.
mktrace() {
	python3 - "$1" "$2" "$3" "$4" <<'PY'
import struct, sys
out, base, n, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
W = 1 << (16 + 1)
acts = ((1, W | 1 << (16 + 4)), (7, W | 1 << (16 + 6)), (8, W | 1 << (16 + 7)))
seq = 0
with open(out, "wb") as f:
    for i in range(n):
        for k, (what, cat) in enumerate(acts):
            seq += 1
            t = base + i * 1000000 + k * 1000
            f.write(struct.pack("<IIQQIIIIIHH", 0x65617407, seq, t,
                                8 * i * (size // 4096 + 1), size, what | cat,
                                100 + i, (7 << 20) | 1, 0, 0, 0))
PY
}
for base in 4611686018427387904 9223372036854775000 18446744073700000000; do
	rm -rf big
	mkdir big
	mktrace big/loop1.blktrace.0 "$base" 3 4096
	exits 2 timeout 60 "$WCANALYZE" --what-if cache=off big
	grep -q '2^62' err.txt || fail "times from $base: $(cat err.txt)"
done
rm -rf big
mkdir big
mktrace big/loop1.blktrace.0 4611685918427387904 3 4096
exits 0 timeout 60 "$WCANALYZE" --what-if cache=off big
# A disk at 0.001 MB/s given 5,000 writes of 4 GiB: 2.1e19 ns, past 2^64.
printf 'model = ssd\nmedia_outer_mbs = 0.001\nmedia_inner_mbs = 0.001\ninterface_mbs = 0.001\n' >slow
rm -rf big
mkdir big
mktrace big/loop1.blktrace.0 0 5000 4294966784
exits 2 timeout 120 "$WCANALYZE" --what-if disk="$TMP/slow" big
grep -q 'virtual time reached 2^62 ns' err.txt || fail "slow disk: $(cat err.txt)"
exit 0
