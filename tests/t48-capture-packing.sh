#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t48-capture-packing.sh - wccapture packs a capture in the order a reader
# wants it: capture.conf, phases.tsv, counters.tsv, then every trace file (announced in
# capture.conf's trace_files), then everything else, so wcanalyze's scan
# can stop at the last trace file (docs/capture-format.md, "Order").  The
# packing alone, as a capture's end runs it: its functions are taken from
# capture/lib (main would start a capture, which needs root and a disk).
# Its writer is wcrecord --pack; the archive must be what the bash packer
# before it made, member for member and byte for byte: that packer is
# kept below as the reference.
# shellcheck source=tests/lib/common.sh
source "$(dirname "$0")/lib/common.sh"

L=$TOP/capture/lib
fns=$(sed -n '/^conf() {$/,/^}$/p' "$L/common.sh"; sed -n '/^capture_archive() {$/,/^}$/p' "$L/capture.sh")
[[ $fns == *"conf() {"*"capture_archive() {"* ]] || fail "conf() or capture_archive() not found in capture/lib"
eval "$fns"
test_stop() { :; }
say() { printf 'wccapture: %s\n' "$*" >&4; }
exec 4>"$TMP/said"
declare -A CONF=()
CONF_KEYS=()

# old_archive: capture_archive() as it was in bash until wcrecord --pack
# took over (commit 1f78a0a), packing into $OUTDIR/old/; the stage is
# left in place.
old_archive() {
	local name=${STAGE##*/} top=${STAGE%/*} k f base cpu rc=0
	local -a first=() traces=() rest=()
	while IFS= read -r -d '' f; do
		base=${f##*/}
		if [[ $f == "$name" || $f == "$name/capture.conf" || $f == "$name/phases.tsv" ||
			$f == "$name/counters.tsv" ]]; then
			continue
		elif [[ -f $top/$f && ($base == capture.conf || $base == phases.tsv || $base == counters.tsv) ]]; then
			first+=("$f")
		elif [[ -f $top/$f && $f =~ \.blktrace\.([0-9]{1,5})$ ]] &&
			cpu=${BASH_REMATCH[1]} && ((10#$cpu <= 65535)); then
			traces+=("$f")
		else
			rest+=("$f")
		fi
	done < <(cd "$top" && find "$name" -print0 | LC_ALL=C sort -z)
	if ((${#traces[@]} > 1)); then
		mapfile -d '' traces < <(for f in "${traces[@]}"; do
			printf '%020d/%s\0' "$(stat -c %s -- "$top/$f")" "$f"
		done | LC_ALL=C sort -z | sed -z 's|^[0-9]*/||')
	fi
	conf trace_files "${#traces[@]}"
	{
		echo "# wcanalyze capture, see docs/capture-format.md"
		for k in "${CONF_KEYS[@]}"; do
			echo "$k = ${CONF[$k]}"
		done
	} >"$STAGE/capture.conf"
	[[ ! -f $STAGE/counters.tsv ]] || first=("$name/counters.tsv" "${first[@]}")
	[[ ! -f $STAGE/phases.tsv ]] || first=("$name/phases.tsv" "${first[@]}")
	first=("$name" "$name/capture.conf" "${first[@]}")
	mkdir -p "$OUTDIR/old"
	tar -C "$top" --no-recursion --null -T <(printf '%s\0' "${first[@]}" "${traces[@]}" "${rest[@]}") \
		-czf "$OUTDIR/old/$name.tar.gz" || rc=$?
	return $rc
}

# same NAME: the archive capture_archive made of NAME and the one the old
# packer made of a copy of its stage hold the same members in the same
# order, with the same bytes.
same() {
	local name=$1 d
	[[ -s $TMP/out/$name.tar.gz && -s $TMP/out/old/$name.tar.gz ]] || fail "$name: an archive is missing"
	tar -tzf "$TMP/out/$name.tar.gz" >"$TMP/$name.new.list"
	tar -tzf "$TMP/out/old/$name.tar.gz" >"$TMP/$name.old.list"
	cmp -s "$TMP/$name.old.list" "$TMP/$name.new.list" ||
		{ diff "$TMP/$name.old.list" "$TMP/$name.new.list"; fail "$name: not the members of the old packer, in its order"; }
	for d in new old; do
		mkdir -p "$TMP/x-$d"
		tar -C "$TMP/x-$d" -xzf "$TMP/out/${d/new/.}/$name.tar.gz"
	done
	diff -r "$TMP/x-old/$name" "$TMP/x-new/$name" || fail "$name: not the old packer's bytes"
}

# pack NAME [PHASES]: a stage with traces of two devices, of one size and
# of others, names like a trace file's that are none, and the lab's
# other files; archived into $TMP/out/NAME.tar.gz by capture_archive,
# and its copy into $TMP/out/old/NAME.tar.gz by the old packer.
pack() {
	local name=$1 phases=${2:-yes} c
	CONF=()
	CONF_KEYS=()
	conf format_version 1
	conf name "$name"
	STAGE=$TMP/stage/$name
	OUTDIR=$TMP/out
	mkdir -p "$STAGE/trace" "$STAGE/info/sub" "$STAGE/info/empty"
	[[ $phases == no ]] || printf 'phase\tstart_ns\tend_ns\treal_s\tuser_s\tsys_s\n' >"$STAGE/phases.tsv"
	printf 'when\tdevice\tdisk\tstart_ns\tend_ns\tstat\n' >"$STAGE/counters.tsv"
	for c in 0 1 10 2; do
		printf 't' >"$STAGE/trace/sda.blktrace.$c"
	done
	printf 'tttttttttt' >"$STAGE/trace/loop0.blktrace.0"
	printf 'tt' >"$STAGE/trace/loop0.blktrace.1"
	printf 'x' >"$STAGE/trace/sda.blktrace.1.txt"
	printf 'x' >"$STAGE/trace/sda.blktrace.x.bak"
	printf 'x' >"$STAGE/info/sub/notes.txt"
	printf 'x' >"$STAGE/ledger.tsv"
	printf 'x' >"$STAGE/info/uname.txt"
	rm -rf "$TMP/stage/old"
	mkdir -p "$TMP/stage/old"
	cp -a "$STAGE" "$TMP/stage/old/"
	capture_archive || fail "$name: capture_archive failed: $(cat "$TMP/said")"
	[[ -z $STAGE && ! -e $TMP/stage/$name ]] || fail "$name: the stage is left"
	STAGE=$TMP/stage/old/$name
	old_archive || fail "$name: the old packer failed"
	same "$name"
}

pack cap1
cat >"$TMP/want1" <<'LIST'
cap1/
cap1/capture.conf
cap1/phases.tsv
cap1/counters.tsv
cap1/trace/sda.blktrace.0
cap1/trace/sda.blktrace.1
cap1/trace/sda.blktrace.10
cap1/trace/sda.blktrace.2
cap1/trace/loop0.blktrace.1
cap1/trace/loop0.blktrace.0
cap1/info/
cap1/info/empty/
cap1/info/sub/
cap1/info/sub/notes.txt
cap1/info/uname.txt
cap1/ledger.tsv
cap1/trace/
cap1/trace/sda.blktrace.1.txt
cap1/trace/sda.blktrace.x.bak
LIST
cmp -s "$TMP/want1" "$TMP/cap1.new.list" || { diff "$TMP/want1" "$TMP/cap1.new.list"; fail "cap1: members not in the reader's order"; }
tar -xzOf "$TMP/out/cap1.tar.gz" cap1/capture.conf >"$TMP/conf1"
grep -qx 'trace_files = 6' "$TMP/conf1" || fail "cap1: no 'trace_files = 6' in capture.conf: $(cat "$TMP/conf1")"
grep -qx 'name = cap1' "$TMP/conf1" || fail "cap1: the other keys are lost"

pack cap2 no
sed -n 1,3p "$TMP/cap2.new.list" >"$TMP/list2"
printf 'cap2/\ncap2/capture.conf\ncap2/counters.tsv\n' >"$TMP/want2"
cmp -s "$TMP/want2" "$TMP/list2" || { diff "$TMP/want2" "$TMP/list2"; fail "cap2: without phases.tsv, capture.conf is not first"; }

# A name the reader would refuse is refused here too, before anything is
# written: no archive, the stage gone as after any capture.
CONF=()
CONF_KEYS=()
conf name cap4
STAGE=$TMP/stage/cap4
mkdir -p "$STAGE/trace"
printf 't' >"$STAGE/trace/sda.blktrace.0"
printf 't' >"$STAGE/trace/sda.blktrace.65536"
capture_archive && fail "cap4: a trace file's name with CPU 65536 was packed"
grep -q 'cap4/trace/sda.blktrace.65536: not a trace file.s name' "$TMP/said" ||
	fail "cap4: the refusal does not say why: $(cat "$TMP/said")"
[[ ! -e $TMP/out/cap4.tar.gz && ! -s $TMP/out/cap4.tar.gz.part ]] || fail "cap4: something was written"
[[ -z $STAGE && ! -e $TMP/stage/cap4 ]] || fail "cap4: the stage is left"
echo "ok: capture.conf, phases.tsv, counters.tsv, the 6 trace files announced, then the rest; traces smallest first; the old packer's archive; a bad name refused"
