#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t48-capture-packing.sh - wccapture packs a capture in the order a reader
# wants it: capture.conf, phases.tsv, counters.tsv, then every trace file (announced in
# capture.conf's trace_files), then everything else, so wcanalyze's scan
# can stop at the last trace file (docs/capture-format.md, "Order").  The
# packing alone, as a capture's end runs it: its functions are taken from
# the script (main would start a capture, which needs root and a disk).
# shellcheck source=tests/lib/common.sh
source "$(dirname "$0")/lib/common.sh"

L=$TOP/capture/lib
fns=$(sed -n '/^conf() {$/,/^}$/p' "$L/common.sh"; sed -n '/^capture_archive() {$/,/^}$/p' "$L/capture.sh")
[[ $fns == *"conf() {"*"capture_archive() {"* ]] || fail "conf() or capture_archive() not found in capture/lib"
eval "$fns"
test_stop() { :; }
declare -A CONF=()
CONF_KEYS=()

# The globals below are wccapture's, read by its functions eval'd above.
# shellcheck disable=SC2034
# pack NAME [PHASES]: a stage with traces of two devices, a trace file's
# look-alikes, a side file's namesake in a subfolder, and the lab's
# other files; archived into $TMP/out/NAME.tar.gz.
pack() {
	local name=$1 phases=${2:-yes} c
	CONF=()
	CONF_KEYS=()
	conf format_version 1
	conf name "$name"
	STAGE=$TMP/stage/$name
	OUTDIR=$TMP/out
	mkdir -p "$STAGE/trace" "$STAGE/info/sub"
	[[ $phases == no ]] || printf 'phase\tstart_ns\tend_ns\treal_s\tuser_s\tsys_s\n' >"$STAGE/phases.tsv"
	printf 'when\tdevice\tdisk\tstart_ns\tend_ns\tstat\n' >"$STAGE/counters.tsv"
	for c in 0 1 10 2; do
		printf 't' >"$STAGE/trace/sda.blktrace.$c"
	done
	printf 't' >"$STAGE/trace/loop0.blktrace.0"
	printf 't' >"$STAGE/info/sub/zz.blktrace.3"
	printf 'x' >"$STAGE/trace/sda.blktrace.1.txt"
	printf 'x' >"$STAGE/trace/sda.blktrace.65536"
	printf 'x' >"$STAGE/info/sub/phases.tsv"
	printf 'x' >"$STAGE/ledger.tsv"
	printf 'x' >"$STAGE/info/uname.txt"
	capture_archive || fail "$name: capture_archive failed"
	[[ -z $STAGE && ! -e $TMP/stage/$name ]] || fail "$name: the stage is left"
}

pack cap1
tar -tzf "$TMP/out/cap1.tar.gz" >"$TMP/list1"
cat >"$TMP/want1" <<'LIST'
cap1/
cap1/capture.conf
cap1/phases.tsv
cap1/counters.tsv
cap1/info/sub/phases.tsv
cap1/info/sub/zz.blktrace.3
cap1/trace/loop0.blktrace.0
cap1/trace/sda.blktrace.0
cap1/trace/sda.blktrace.1
cap1/trace/sda.blktrace.10
cap1/trace/sda.blktrace.2
cap1/info/
cap1/info/sub/
cap1/info/uname.txt
cap1/ledger.tsv
cap1/trace/
cap1/trace/sda.blktrace.1.txt
cap1/trace/sda.blktrace.65536
LIST
cmp -s "$TMP/want1" "$TMP/list1" || { diff "$TMP/want1" "$TMP/list1"; fail "cap1: members not in the reader's order"; }
tar -xzOf "$TMP/out/cap1.tar.gz" cap1/capture.conf >"$TMP/conf1"
grep -qx 'trace_files = 6' "$TMP/conf1" || fail "cap1: no 'trace_files = 6' in capture.conf: $(cat "$TMP/conf1")"
grep -qx 'name = cap1' "$TMP/conf1" || fail "cap1: the other keys are lost"

pack cap2 no
tar -tzf "$TMP/out/cap2.tar.gz" | sed -n 1,3p >"$TMP/list2"
printf 'cap2/\ncap2/capture.conf\ncap2/counters.tsv\n' >"$TMP/want2"
cmp -s "$TMP/want2" "$TMP/list2" || { diff "$TMP/want2" "$TMP/list2"; fail "cap2: without phases.tsv, capture.conf is not first"; }
# Trace files of different sizes: the smallest first, the largest last
# (names in order between files of one size).
# shellcheck disable=SC2034
CONF=()
# shellcheck disable=SC2034
CONF_KEYS=()
conf name cap3
STAGE=$TMP/stage/cap3
mkdir -p "$STAGE/trace"
printf 'ttt' >"$STAGE/trace/sda.blktrace.0"
printf 't' >"$STAGE/trace/sda.blktrace.1"
printf 'tt' >"$STAGE/trace/loop0.blktrace.0"
printf 't' >"$STAGE/trace/loop0.blktrace.1"
printf 'tttttttttt' >"$STAGE/trace/loop0.blktrace.2"
capture_archive || fail "cap3: capture_archive failed"
tar -tzf "$TMP/out/cap3.tar.gz" | grep blktrace >"$TMP/list3"
printf 'cap3/trace/%s\n' loop0.blktrace.1 sda.blktrace.1 loop0.blktrace.0 \
	sda.blktrace.0 loop0.blktrace.2 >"$TMP/want3"
cmp -s "$TMP/want3" "$TMP/list3" || { diff "$TMP/want3" "$TMP/list3"; fail "cap3: trace files not smallest first"; }
echo "ok: capture.conf, phases.tsv, counters.tsv, the 6 trace files announced, then the rest; traces smallest first"
