#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t69-heatmaps.sh - the heat maps of a bundle (issue 27): both drawn, with
# cells in their plot area (pixels of the heat palette, not only axes),
# shown by index.html beside the timeline's link; and the latency band's
# numbers against --dump: for every column of flushes in
# heatmap-band.dat, the flushes whose C falls in it (each D FN paired
# with the next C FN of the main device) are as many, and their p50, p90
# and p99 (the ceil(p * n / 100)-th fastest) lie in the bin whose top the
# band gives.  The sample has flush stalls: a column holds flushes of a
# few ms and one of hundreds.  A synthetic capture has a category whose
# only cell lies in a column that begins before the capture's first
# event (columns are aligned on the trace clock's 0), its middle before
# 0: its panel must draw (gnuplot failed "all points y value undefined").
# A read of 1000 s makes bounds gnuplot must read as numbers.
# shellcheck source=tests/lib/common.sh
source "$(dirname "$0")/lib/common.sh"

command -v gnuplot >/dev/null || fail "gnuplot is needed (scripts/deps.sh installs it)"
SAMPLE=$TOP/samples/loop-ext4-cache-on-barrier-on-run1.tar.xz
CAP=loop-ext4-cache-on-barrier-on-run1
export WCANALYZE_PLOTS=$TOP/plots
cd "$TMP"
# early: 10 s of writes after one read 100 ms into a column of 2^17 us
# (the width 128 columns over 10 s take): the read's cell is centred
# 34.5 ms before the first event.
# slow: a read whose D2C is 1000 s beside fast ones (issue 39): the
# latency panel's bound was written "1e+06" (ms), which gnuplot 5.4
# cannot read as a number from a string ("trailing characters"), and -o
# failed.
mkdir -p early/trace slow/trace
python3 - <<'PY'
import struct
def act(what, *cats):
    return what | sum(1 << (16 + c) for c in cats)
def capture(name, reqs, conf=''):
    recs, seq = [], 0
    for t, lat, rw, sector in reqs:
        for what, cat, dt in ((1, 4, 0), (7, 6, 1000), (8, 7, 1000 + lat)):
            seq += 1
            recs.append((seq, t + dt, sector, act(what, rw, cat)))
    with open(name + '/trace/loop1.blktrace.0', 'wb') as f:
        for seq, t, sector, a in sorted(recs, key=lambda r: r[1]):
            f.write(struct.pack('<IIQQIIIIIHH', 0x65617407, seq, t, sector,
                                4096, a, 100, (7 << 20) | 1, 0, 0, 0))
    with open(name + '/capture.conf', 'w') as f:
        f.write('format_version = 1\nname = %s\n%s' % (name, conf))
w = 131072000
t0 = 10 * w + 100000000
capture('early', [(t0, 5000000, 0, 8)] +
        [(t0 + 10000000 + i * 50000000, 2000000, 1, 4096 + 8 * i)
         for i in range(200)])
t0 = 1000000000
# The read's device may take a day: no bound stops its 1000 s D2C
# (docs/methodology.md, "No invented pairing").
capture('slow', [(t0, 1000 * 1000000000, 0, 8)] +
        [(t0 + i * 1000000, 1000000, 0, 4096 + 8 * i) for i in range(20)],
        'devices = loop1\ndevice.loop1.dev = 7:1\n'
        'device.loop1.timeout_ms = 86400000\n')
PY
"$WCANALYZE" -o slow-out slow >/dev/null 2>err.txt || fail "bundle of slow: $(cat err.txt)"
[[ ! -e slow-out/gnuplot.log ]] || fail "slow: gnuplot complained: $(head -5 slow-out/gnuplot.log)"
[[ -s slow-out/slow/heatmap-latency.png ]] || fail "slow: no heatmap-latency.png"
"$WCANALYZE" -o out "$SAMPLE" >/dev/null 2>err.txt || fail "bundle: $(cat err.txt)"
[[ ! -e out/gnuplot.log ]] || fail "gnuplot complained: $(head -5 out/gnuplot.log)"
"$WCANALYZE" -o early-out early >/dev/null 2>err.txt || fail "bundle of early: $(cat err.txt)"
[[ -s early-out/early/heatmap-latency.png ]] || fail "early: no heatmap-latency.png"
awk '/^# data_read$/ { on = 1; next } on && NF == 5 { print; exit }' early-out/early/heatmap-latency.dat >cell.txt
awk '{ exit !(($1 + $2) / 2 < 0 && $2 > 0) }' cell.txt ||
	fail "the synthetic read's cell is not centred before 0: $(cat cell.txt)"

# "WIDTH HEIGHT WARM": WARM counts pixels of the heat palette (red well
# above blue: yellow to dark red) left of x = 1000, where the colour box
# is not, from the top down, up to 500.
warm_pixels() {
	python3 - "$1" <<'PY'
import struct, sys, zlib
data = open(sys.argv[1], 'rb').read()
assert data[:8] == b'\x89PNG\r\n\x1a\n', 'not a PNG'
pos, idat = 8, b''
while pos < len(data):
    n, kind = struct.unpack('>I4s', data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b'IHDR':
        w, h, depth, ctype = struct.unpack('>IIBB', body[:10])
    elif kind == b'IDAT':
        idat += body
    pos += 12 + n
assert depth == 8 and ctype in (2, 6), 'not 8-bit RGB(A)'
bpp = 3 if ctype == 2 else 4
raw, stride, prev, warm, i = zlib.decompress(idat), w * bpp, bytearray(w * bpp), 0, 0
for y in range(h):
    f, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
    i += 1 + stride
    for x in range(stride):
        a = line[x - bpp] if x >= bpp else 0
        b = prev[x]
        c = prev[x - bpp] if x >= bpp else 0
        if f == 1: line[x] = (line[x] + a) & 255
        elif f == 2: line[x] = (line[x] + b) & 255
        elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    for x in range(min(w, 1000)):
        r, g, bl = line[x * bpp], line[x * bpp + 1], line[x * bpp + 2]
        if r - bl > 80 and not (r > 245 and g > 245):
            warm += 1
    prev = line
    if warm >= 500:
        break
print(w, h, warm)
PY
}

for fig in heatmap-latency heatmap-sector; do
	png=out/$CAP/$fig.png
	[[ -s $png ]] || fail "$png not drawn"
	read -r w h warm < <(warm_pixels "$png") || fail "$png: not a PNG"
	[[ $w == 1200 ]] || fail "$png is $w pixels wide, not 1200"
	((warm >= 500)) || fail "$png: $warm pixels of heat cells: an empty map"
	grep -q "<img src=\"$CAP/$fig.png\" width=\"1200\" height=\"$h\"" out/index.html ||
		fail "index.html does not show $fig.png at its size (${w}x$h)"
done
grep -q "<a href=\"$CAP/timeline.json.gz\">" out/index.html || fail "index.html does not link the timeline"
# The heat maps are drawn as PNG only: bundle-files.txt names no SVG of
# them, and a file of that name a user keeps there outlives a re-run.
! grep -q 'heatmap-.*\.svg' out/bundle-files.txt ||
	fail "bundle-files.txt lists heat map SVGs it never writes: $(grep 'heatmap-.*svg' out/bundle-files.txt)"
echo mine >"out/$CAP/heatmap-latency.svg"
"$WCANALYZE" -o out "$SAMPLE" >/dev/null 2>err.txt || fail "bundle again: $(cat err.txt)"
[[ $(cat "out/$CAP/heatmap-latency.svg" 2>/dev/null) == mine ]] ||
	fail "a re-run with -o removed the user's heatmap-latency.svg"

# The flushes' D2C latencies from --dump: "C_TIME LATENCY_S", one a line.
"$WCANALYZE" --dump "$SAMPLE" | awk '$1 == "7,0" && $7 ~ /F/ && $9 != "+" {
	if ($6 == "D") d[++nd] = $4
	else if ($6 == "C" && nc < nd) { nc++; printf "%s %.9f\n", $4, $4 - d[nc] }
}' >flushes.txt
[[ $(wc -l <flushes.txt) -ge 8 ]] || fail "too few flushes read from --dump: $(wc -l <flushes.txt)"

# The flush block of heatmap-band.dat: "T0 T1 N P50 P90 P99".
awk '/^# flush$/ { on = 1; next } on && /^$/ { exit } on { print $1, $2, $4, $5, $6, $7 }' \
	"out/$CAP/heatmap-band.dat" >band.txt
[[ $(wc -l <band.txt) -ge 2 ]] || fail "no flush columns in heatmap-band.dat"
total=0
while read -r t0 t1 n p50 p90 p99; do
	# The capture's first event is --dump's time 0 and the figures'.
	sort -g -k2 flushes.txt | awk -v t0="$t0" -v t1="$t1" '$1 >= t0 && $1 < t1 { print $2 }' >col.txt
	got=$(wc -l <col.txt)
	[[ $got == "$n" ]] || fail "column [$t0, $t1): $n flushes in the band, $got in --dump"
	total=$((total + n))
	for pct in 50:"$p50" 90:"$p90" 99:"$p99"; do
		p=${pct%%:*} top=${pct#*:}
		awk -v p="$p" -v n="$n" -v top="$top" '
		{ v[NR] = $1 * 1000 }
		END {
			r = int((p * n + 99) / 100); if (r < 1) r = 1
			# The bin below top: 20 a decade, printed to 6 digits.
			lo = top / 10 ^ (1 / 20)
			if (!(v[r] >= lo * 0.99999 && v[r] < top * 1.00001)) {
				printf "p%s of %d flushes is %.6f ms, not in [%g, %g)\n", p, n, v[r], lo, top
				exit 1
			}
		}' col.txt >msg.txt || fail "column [$t0, $t1): $(cat msg.txt)"
	done
done <band.txt
[[ $total == $(wc -l <flushes.txt) ]] ||
	fail "the band holds $total flushes, --dump $(wc -l <flushes.txt)"
# A stall and a fast flush in one column: its p50 and p99 a decade apart.
awk '$6 > 10 * $4 { found = 1 } END { exit !found }' band.txt ||
	fail "no column with flushes a decade apart: $(cat band.txt)"
echo "t59: ok"
