#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t17-corrupt-input.sh - a few hundred corrupted copies of a fixture
# (bytes overwritten at random places, cut at random lengths, both byte
# orders): wcanalyze --dump must never crash or hang; it exits 0 or 2, and
# with 2 its last line is a diagnostic naming the file and offset.  Under
# "make SANITIZE=1 check" this also catches memory errors.
# shellcheck source=tests/lib/common.sh
source "$(dirname "$0")/lib/common.sh"

FIX=$TOP/tests/fixtures/reader
CONV=$BUILD/tests/wctrace_convert
cd "$TMP"
cp "$FIX/ext3/loop1.blktrace.0" le.blktrace.0
"$CONV" --swap --notify --remap 8:0:63 --split "$FIX/ext3/loop1.blktrace.0" be.blktrace.0
"$CONV" --v8 --cgroup 5 "$FIX/ext3/loop1.blktrace.1" v8.blktrace.0

RANDOM=4242   # the same corruptions on every run
n=0
for src in le be v8; do
	size=$(stat -c %s "$src.blktrace.0")
	for i in $(seq 1 80); do
		f=c$n.blktrace.0
		cp "$src.blktrace.0" "$f"
		case $((i % 4)) in
		0) truncate -s $(((RANDOM * 32768 + RANDOM) % size)) "$f" ;;
		*)
			# RANDOM is read in this shell only, never inside $(...) or
			# a pipeline, whose subshells bash reseeds: the same
			# corruptions on every run.
			k=$((1 + RANDOM % 4))
			for ((j = 0; j < k; j++)); do
				b1=$((RANDOM % 256)) b2=$((RANDOM % 256))
				at=$(((RANDOM * 32768 + RANDOM) % size))
				bytes=$(printf '\\x%02x\\x%02x' "$b1" "$b2")
				# shellcheck disable=SC2059 # the escapes are the bytes
				printf "$bytes" |
					dd of="$f" bs=1 seek="$at" conv=notrunc status=none
			done
			;;
		esac
		rc=0
		timeout 10 "$WCANALYZE" --dump "c$n" >out 2>err || rc=$?
		case $rc in
		0) ;;
		2) tail -n 1 err | grep -E "^wcanalyze: c$n\\.blktrace\\.0: offset [0-9]+: " >/dev/null ||
			fail "c$n (from $src): bad diagnostic: $(tail -n 1 err)" ;;
		*) fail "c$n (from $src): exit $rc: $(tail -n 3 err)" ;;
		esac
		rm -f "$f"
		n=$((n + 1))
	done
done
echo "ok: $n corrupted traces handled"
