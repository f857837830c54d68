#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t51-bundle-edges.sh - two edges of the bundle (issue 22): a capture
# shorter than about 1 us (its one time bin's point lay past the end of
# the axis: gnuplot failed on throughput.gp, "all points y value
# undefined", exit 1), and a full disk under -o (the error named no file;
# gnuplot, which exits 0 when its output cannot be written, left empty
# and cut PNG and SVG files that were renamed into the bundle).  The
# full disk is a small tmpfs in a mount namespace of the test's own, so
# nothing outside it sees the mount.
# shellcheck source=tests/lib/common.sh
source "$(dirname "$0")/lib/common.sh"

command -v gnuplot >/dev/null || skip "needs gnuplot"
cd "$TMP"
# One write request queued, issued and completed within D ns.
for d in 1 100 400 900; do
	mkdir -p "tiny$d/trace"
	python3 - "$d" <<'PY'
import struct, sys
d = int(sys.argv[1])
def act(what, *cats):
    return what | sum(1 << (16 + c) for c in cats)
recs = [(1, 1000, act(1, 1, 4)), (2, 1000 + d // 2, act(7, 1, 6)),
        (3, 1000 + d, act(8, 1, 7))]
with open('tiny%d/trace/loop1.blktrace.0' % d, 'wb') as f:
    for seq, t, a in recs:
        f.write(struct.pack('<IIQQIIIIIHH', 0x65617407, seq, t, 2048, 4096,
                            a, 100, (7 << 20) | 1, 0, 0, 0))
with open('tiny%d/capture.conf' % d, 'w') as f:
    f.write('format_version = 1\nname = tiny%d\n' % d)
PY
	rc=0
	"$WCANALYZE" -o "out$d" "tiny$d" >/dev/null 2>err || rc=$?
	[[ $rc -eq 0 ]] || fail "a capture of $d ns: exit $rc: $(cat err)"
	for f in throughput flushes queue; do
		[[ -s out$d/tiny$d/$f.png ]] || fail "a capture of $d ns: no $f.png"
	done
done
echo "ok: captures of 1, 100, 400 and 900 ns render"

[[ $(id -u) -eq 0 ]] || skip "the full disk needs root (a tmpfs in a private mount namespace)"
"$WCSYNTH" -c -n 40 cap >/dev/null
mkdir full
# Each size fills the disk at another step: the side files, the data,
# the scripts, gnuplot's figures, the reports.
for kb in 48 96 160 256 512 768 900 1000 1100 2048; do
	rc=0
	# shellcheck disable=SC2016 # expanded by the inner bash
	unshare -m --propagation private bash -c '
		mount -t tmpfs -o size="$1k" none full || exit 99
		"$2" -o full/b cap >/dev/null 2>err
		rc=$?
		python3 - full/b >figs <<"PY"
import glob, sys
for f in glob.glob(sys.argv[1] + "/*/*.png"):
    b = open(f, "rb").read()
    if not b.endswith(b"IEND\xaeB`\x82"):
        print("png", f, len(b))
for f in glob.glob(sys.argv[1] + "/*/*.svg"):
    b = open(f, "rb").read()
    if not b.rstrip().endswith(b"</svg>"):
        print("svg", f, len(b))
PY
		exit "$rc"' t51 "$kb" "$WCANALYZE" || rc=$?
	[[ $rc -ne 99 ]] || fail "cannot mount a tmpfs"
	[[ ! -s figs ]] || fail "disk of $kb KB: figures not whole in the bundle: $(cat figs)"
	if [[ $rc -ne 0 ]]; then
		# Every error line names a file of the bundle.
		if grep -v '^wcanalyze: full/b/[^:]*: ' err | grep . >/dev/null; then
			fail "disk of $kb KB: an error naming no file of the bundle: $(cat err)"
		fi
		echo "ok: disk of $kb KB: exit $rc: $(head -n 1 err)"
	else
		echo "ok: disk of $kb KB: the bundle fits"
	fi
done
