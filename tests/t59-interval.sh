#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t59-interval.sh - --interval (issue 27): the iostat-style table against
# the same intervals computed here, in awk, from --dump's events: per
# device and interval the reads, writes, flushes and discards that
# completed in it and their bytes, r_await, w_await, f_await and d_await
# (from each request's first Q, else its D, to its C), aqu-sz (those
# times summed over the interval) and %util (the completion-driven
# service slices cut at the edges); on a recorded sample, with --window
# and --device, and on a merged "blkparse -d" file.  The rows' busy
# times add up to the report's busy time; a request of 2^58 ns makes at
# most three rows (issue 39); bad values are usage errors.
# shellcheck source=tests/lib/common.sh
source "$(dirname "$0")/lib/common.sh"

SAMPLE=$TOP/samples/loop-ext4-cache-on-barrier-on-run1.tar.xz
cd "$TMP"

# from_dump LEN [FROM [TO]] <DUMP: the rows of intervals of LEN seconds
# from FROM (0) to TO (the last event), one a line: device, start (s),
# the four counts and bytes, the four awaits (ms), aqu-sz, %util, busy
# (ns).  Times are whole nanoseconds, as --dump prints them.
from_dump() {
	awk -v len_s="$1" -v from_s="${2:-0}" -v to_s="${3:--1}" '
	function ns(t,    p) {
		p = index(t, ".")
		return substr(t, 1, p - 1) * 1e9 + substr(t, p + 1) * 1
	}
	function secs_ns(s) { return int(s * 1e9 + 0.5) }
	function kind(rwbs, bytes) {
		if (bytes == 0) return rwbs ~ /F/ ? 2 : -1
		if (rwbs ~ /D/) return 3
		return rwbs ~ /W/ ? 1 : 0
	}
	function row(t,    k) {
		k = int((t - org) / len)
		if (fixed && k > lastk) k = lastk
		return k
	}
	function busy(dev, lo, hi,    k, k0, k1, s, e) {
		k0 = row(lo); k1 = row(hi - 1)
		for (k = k0; k <= k1; k++) {
			if (k == k0 + 1 && k1 > k0 + 1) {
				# the rows kept busy throughout: one row
				bz[dev, k] += (k1 - k0 - 1) * len
				span[dev, k] = k1 - k0 - 1
				rows[dev, k] = 1
				k = k1 - 1
				continue
			}
			s = org + k * len; e = s + len
			if (s < lo) s = lo
			if (e > hi) e = hi
			bz[dev, k] += e - s
			rows[dev, k] = 1
		}
	}
	function complete(dev, c, d, q, kd, bytes,    a, lo, hi, k, st) {
		a = d
		if ((dev in prevc) && prevc[dev] > a) a = prevc[dev]
		if (a > c) a = c
		if (!(dev in prevc) || c > prevc[dev]) prevc[dev] = c
		lo = a > org ? a : org
		hi = c < fin ? c : fin
		if (hi > lo) busy(dev, lo, hi)
		if (c < org || c > fin) return
		k = c > org ? row(c - 1) : 0     # closed on the right
		rows[dev, k] = 1
		if (kd < 0) return
		st = (q >= 0 && q <= c) ? q : d
		n[dev, k, kd]++
		by[dev, k, kd] += bytes
		aw[dev, k, kd] += c - st
	}
	BEGIN {
		len = secs_ns(len_s); org = secs_ns(from_s)
		fixed = to_s >= 0
		fin = fixed ? secs_ns(to_s) : 2^62
		if (fixed) lastk = int((fin - org - 1) / len)
		SUBSEP = " "
	}
	$4 ~ /^[0-9]+\.[0-9]+$/ {
		t = ns($4)
		if (t > last) last = t
	}
	$6 == "Q" && $9 == "+" {
		if (!(($1, $8) in qt)) { qt[$1, $8] = t; ql[$1, $8] = $10 }
		next
	}
	$6 == "Q" { eq[$1, eqn[$1]++] = t; next }
	$6 == "D" && $9 == "+" {
		if (($1, $8) in dd) { dd[$1, $8] = t; next }   # requeued
		s = $8; e = s + $10; p = s; q = -1
		while (p < e && (($1, p) in qt)) {
			if (q < 0 || qt[$1, p] < q) q = qt[$1, p]
			l = ql[$1, p]
			if (p + l > e) { qt[$1, e] = qt[$1, p]; ql[$1, e] = p + l - e }
			delete qt[$1, p]; delete ql[$1, p]
			p += l
		}
		dd[$1, s] = t; dq[$1, s] = q; dn[$1, s] = $10 * 512
		dk[$1, s] = kind($7, $10)
		next
	}
	$6 == "D" {
		q = -1
		if (eqh[$1] < eqn[$1]) q = eq[$1, eqh[$1]++]
		i = fdn[$1]++
		fd[$1, i] = t; fq[$1, i] = q; fk[$1, i] = kind($7, 0)
		next
	}
	$6 == "C" && $9 == "+" {
		if (!(($1, $8) in dd)) next
		complete($1, t, dd[$1, $8], dq[$1, $8], dk[$1, $8], dn[$1, $8])
		delete dd[$1, $8]
		next
	}
	$6 == "C" {
		if (fdh[$1] >= fdn[$1]) next     # the end of a flush sequence
		i = fdh[$1]++
		complete($1, t, fd[$1, i], fq[$1, i], fk[$1, i], 0)
	}
	END {
		end = fixed && fin < last ? fin : last
		for (r in rows) {
			split(r, x, " "); dev = x[1]; k = x[2]
			s = org + k * len
			l = end - s < len ? end - s : len
			if (l < 0) l = 0
			if ((dev, k) in span) l = span[dev, k] * len
			line = sprintf("%s %.9f", dev, s / 1e9)
			q = 0
			for (j = 0; j < 4; j++) {
				line = line sprintf(" %d %d", n[dev, k, j], by[dev, k, j])
				q += aw[dev, k, j]
			}
			for (j = 0; j < 4; j++)
				line = line sprintf(" %.6f", n[dev, k, j] ? aw[dev, k, j] / n[dev, k, j] / 1e6 : 0)
			busy_ns = bz[dev, k] + 0
			idle = busy_ns == 0
			for (j = 0; j < 4; j++) if (n[dev, k, j]) idle = 0
			if (idle) continue
			printf "%s %.6f %.6f %d\n", line, l ? q / l : 0, l ? busy_ns * 100 / l : 0, busy_ns
		}
	}' | sort -k1,1 -k2,2n
}

# table FILE: the rows of --interval --format json in from_dump's form.
table() {
	jq -r '.captures[0].rows[] | [.device, (.start_s | tostring),
		.reads, .read_bytes, .writes, .write_bytes, .flushes, .flush_bytes,
		.discards, .discard_bytes, .r_await_ms, .w_await_ms, .f_await_ms,
		.d_await_ms, .aqu_sz, .util_pct, (.busy_s * 1e9 | round)] |
		map(tostring) | join(" ")' "$1" |
		awk '{ $2 = sprintf("%.9f", $2); print }' | sort -k1,1 -k2,2n
}

# same WANT GOT WHAT: fails unless the rows match: devices, starts and
# counts exactly, awaits, aqu-sz and %util within 1e-6 (relative), busy
# within 2 ns (the JSON's seconds carry 9 decimals).
same() {
	[[ $(wc -l <"$1") -eq $(wc -l <"$2") ]] ||
		fail "$3: $(wc -l <"$2") rows, --dump gives $(wc -l <"$1")"
	[[ -s $1 ]] || fail "$3: no rows at all"
	paste -d '|' "$1" "$2" | awk -F '|' -v what="$3" '{
		na = split($1, a, " "); nb = split($2, b, " ")
		if (na != nb) { print what ": fields differ: " $0; bad = 1; exit }
		for (i = 1; i <= na; i++) {
			if (i <= 10) { ok = a[i] == b[i] }
			else if (i == na) { d = a[i] - b[i]; ok = d <= 2 && d >= -2 }
			else {
				d = a[i] - b[i]; if (d < 0) d = -d
				m = a[i] < 0 ? -a[i] : a[i]; if (m < 1) m = 1
				ok = d <= 1e-6 * m
			}
			if (!ok) { print what ": field " i " differs: --dump " $1 " / table " $2; bad = 1; exit }
		}
	} END { exit bad }' >&2 || fail "$3: the table is not what --dump gives"
}

"$WCANALYZE" --dump "$SAMPLE" >dump.txt

# ---- the whole sample, at 1 s and at 0.25 s -------------------------------
for len in 1 0.25; do
	"$WCANALYZE" --interval "$len" --format json "$SAMPLE" >t.json ||
		fail "--interval $len: exit $?"
	from_dump "$len" <dump.txt >want.txt
	table t.json >got.txt
	same want.txt got.txt "--interval $len"
done
# Some rows hold flushes, and flushes with an await, or f_await is not
# tested at all.
awk '$7 > 0 && $13 > 0 { n++ } END { exit !n }' want.txt || fail "the sample has no flush rows"

# The rows' busy time adds up to the report's, device by device.
"$WCANALYZE" --format json "$SAMPLE" >report.json
for dev in loop0 loop2; do
	want=$("$WCANALYZE" --format json --device "$dev" "$SAMPLE" |
		jq '.captures[0] | ((.window_s - .time_s.idle) * 1e9 | round)')
	got=$(jq --arg d "$dev" '[.captures[0].rows[] | select(.device_name == $d) | .busy_s * 1e9] | add | round' t.json)
	((got - want <= 1000 && want - got <= 1000)) ||
		fail "$dev: rows busy for $got ns, the report $want ns"
done

# ---- with filters: a window, and a window on one device ------------------
"$WCANALYZE" --interval 0.5 --window 2,6 --format json "$SAMPLE" >w.json ||
	fail "--window: exit $?"
from_dump 0.5 2 6 <dump.txt >want.txt
table w.json >got.txt
same want.txt got.txt "--interval 0.5 --window 2,6"
jq -e '[.captures[0].rows[].start_s] | min >= 2 and max < 6' w.json >/dev/null ||
	fail "--window: rows outside the window"

"$WCANALYZE" --interval 1 --window 10, --device loop0 --format json "$SAMPLE" >d.json
from_dump 1 10 <dump.txt | awk '$1 == "7,0"' >want.txt
table d.json >got.txt
same want.txt got.txt "--interval 1 --window 10, --device loop0"

# ---- text and CSV hold the JSON's rows -----------------------------------
"$WCANALYZE" --interval 1 --format json "$SAMPLE" >t.json
"$WCANALYZE" --interval 1 "$SAMPLE" >t.txt
grep -q 'not saturation' t.txt || fail "text: no word on %util"
[[ $(grep -c '^ *[0-9][0-9.]* [a-z0-9,]' t.txt) -eq $(jq '.captures[0].rows | length' t.json) ]] ||
	fail "text: not a line a row"
"$WCANALYZE" --interval 1 --format csv "$SAMPLE" >t.csv
[[ $(($(wc -l <t.csv) - 1)) -eq $(jq '.captures[0].rows | length' t.json) ]] ||
	fail "csv: not a line a row"
sed -n 1p t.csv | grep '^capture,start_s,length_s,device,' >/dev/null || fail "csv: header"

# ---- a merged blkparse -d file -------------------------------------------
mkdir trace
tar -xJf "$SAMPLE" -C trace --strip-components=2 --wildcards '*/trace/*'
blkparse -q -D trace -i loop0 -i loop2 -d merged.bin -O >/dev/null
"$WCANALYZE" --dump merged.bin >mdump.txt
"$WCANALYZE" --interval 1 --format json merged.bin >m.json ||
	fail "merged: exit $?"
from_dump 1 <mdump.txt >want.txt
table m.json >got.txt
same want.txt got.txt "merged blkparse -d file"

# ---- a hostile capture name: escaped in text, JSON and CSV ----------------
evil=$(printf 'ev\033[2Jil,"x')
mkdir hostile
tar -xJf "$SAMPLE" -C hostile
conf=$(echo hostile/*/capture.conf)
sed -i "s/^name = .*/name = $evil/" "$conf"
tar -cJf hostile.tar.xz -C hostile .
"$WCANALYZE" --interval 5 hostile.tar.xz >h.txt 2>/dev/null
"$WCANALYZE" --interval 5 --format json hostile.tar.xz >h.json 2>/dev/null
"$WCANALYZE" --interval 5 --format csv hostile.tar.xz >h.csv 2>/dev/null
for f in h.txt h.csv; do
	! LC_ALL=C grep -q "$(printf '\033')" "$f" || fail "$f: a raw ESC from the capture's name"
done
grep -q '^interval table of ev\\033\[2Jil,"x, 5 s intervals$' h.txt || fail "text: the name not escaped: $(head -1 h.txt)"
jq -e --arg e "$evil" '.captures[0].name == $e' h.json >/dev/null || fail "json: the name is not the capture's"
sed -n 2p h.csv | grep '^"ev\\033\[2Jil,""x",' >/dev/null || fail "csv: the name not quoted: $(sed -n 2p h.csv)"

# ---- rows bounded by the requests (issue 39) -------------------------------
# One write whose completion is 86,000 s after its dispatch, at 1 ms
# intervals: 86,000,000 rows before; at most three rows a request now
# (interval.h), the busy time all there.  The device's command timeout is
# set to its largest, a day, or the tracker would not pair so late a
# completion (tracker.h).
mkdir -p far/trace
python3 - <<'PY'
import struct
def act(what, *cats):
    return what | sum(1 << (16 + c) for c in cats)
t0 = 1000000000
recs = [(1, t0, act(1, 1, 4)), (2, t0 + 1000, act(7, 1, 6)),
        (3, t0 + 1000 + 86000 * 10**9, act(8, 1, 7))]
with open('far/trace/loop1.blktrace.0', 'wb') as f:
    for seq, t, a in recs:
        f.write(struct.pack('<IIQQIIIIIHH', 0x65617407, seq, t, 8, 4096,
                            a, 100, (7 << 20) | 1, 0, 0, 0))
with open('far/capture.conf', 'w') as f:
    f.write('format_version = 1\nname = far\n'
            'devices = loop1\ndevice.loop1.dev = 7:1\n'
            'device.loop1.timeout_ms = 86400000\n')
PY
timeout 60 "$WCANALYZE" --interval 0.001 --format json far >far.json ||
	fail "far: exit $?"
rows=$(jq '.captures[0].rows | length' far.json)
((rows >= 1 && rows <= 3)) || fail "far: $rows rows for one request (at most 3)"
jq -e '[.captures[0].rows[].busy_s] | add | . > 85999 and . < 86001' far.json >/dev/null ||
	fail "far: the rows do not hold the request's 86,000 s of busy time"
timeout 60 "$WCANALYZE" --interval 0.001 far >far.txt || fail "far: text: exit $?"
[[ $(wc -l <far.txt) -lt 10 ]] || fail "far: text: $(wc -l <far.txt) lines"
grep -q ' to 86000' far.txt || fail "far: text: the busy run's end not said: $(cat far.txt)"

# ---- usage errors ----------------------------------------------------------
for bad in 0 -1 x 1e9 ''; do
	expect_exit 2 "$WCANALYZE" --interval "$bad" "$SAMPLE" 2>/dev/null
done
expect_exit 2 "$WCANALYZE" --interval 1 --dump "$SAMPLE" 2>/dev/null
expect_exit 2 "$WCANALYZE" --interval 1 -o out "$SAMPLE" 2>/dev/null
[[ ! -e out ]] || fail "--interval -o: a bundle folder was made"
echo "ok"
