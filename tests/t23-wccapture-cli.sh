#!/usr/bin/env bash
# t23-wccapture-cli.sh - wccapture's usage errors (exit 2, saved messages)
# and its refusals to format what it must not: a device without
# --destroy-data, a mounted device, the disk the running system is on.
# shellcheck source=tests/lib/common.sh
source "$(dirname "$0")/lib/common.sh"

W=$TOP/capture/wccapture
fix=$TOP/tests/fixtures/capture

shellcheck -x "$W" || fail "wccapture is not shellcheck-clean"

bash "$W" --help >"$TMP/help.out"
cmp -s "$TMP/help.out" "$fix/wccapture-help.txt" || { diff "$fix/wccapture-help.txt" "$TMP/help.out"; fail "--help differs"; }

# Each line of usage-errors.args is one command line; its first stderr
# line is compared with usage-errors.txt and the exit must be 2.
: >"$TMP/errors.out"
while IFS= read -r line; do
	read -r -a args <<<"$line"
	rc=0
	bash "$W" "${args[@]}" >/dev/null 2>"$TMP/err" || rc=$?
	[[ $rc -eq 2 ]] || fail "wccapture $line: exit $rc, expected 2: $(cat "$TMP/err")"
	head -n 1 "$TMP/err" >>"$TMP/errors.out"
done <"$fix/usage-errors.args"
cmp -s "$TMP/errors.out" "$fix/usage-errors.txt" || { diff "$fix/usage-errors.txt" "$TMP/errors.out"; fail "usage errors differ"; }

need_root
loop=""
cleanup() {
	umount "$TMP/mnt" 2>/dev/null || true
	[[ -z $loop ]] || losetup -d "$loop" 2>/dev/null || true
	cleanup_common
}
trap cleanup EXIT
truncate -s 64M "$TMP/img"
loop=$(losetup -f --show "$TMP/img")
mkfs.ext4 -q -F "$loop"
mkdir "$TMP/mnt"
mount "$loop" "$TMP/mnt"
echo keep >"$TMP/mnt/precious"
rc=0
bash "$W" lab --device "$loop" --destroy-data --fs ext4 --cache on --barrier on \
	--recorder tracefs -o "$TMP/out" >/dev/null 2>"$TMP/err" || rc=$?
[[ $rc -eq 1 ]] || fail "a mounted --device: exit $rc, expected 1"
grep -q "^wccapture: $loop: mounted on $TMP/mnt; refusing to format it$" "$TMP/err" ||
	fail "unexpected message: $(cat "$TMP/err")"
[[ $(cat "$TMP/mnt/precious") == keep ]] || fail "the mounted device was touched"
[[ ! -e $TMP/out ]] || ! compgen -G "$TMP/out/*" >/dev/null || fail "archives written after a refusal"

root=$(findmnt -n -o SOURCE --target / || true)
if [[ $root == /dev/* && -b $root ]]; then
	rc=0
	bash "$W" lab --device "$root" --destroy-data -o "$TMP/out" >/dev/null 2>"$TMP/err" || rc=$?
	[[ $rc -eq 1 ]] || fail "the root device: exit $rc, expected 1"
	grep -qE 'refusing to format it$' "$TMP/err" || fail "unexpected message: $(cat "$TMP/err")"
	echo "ok: refused $root ($(cat "$TMP/err"))"
else
	echo "ok: root is on $root, not a block device: that refusal not tested here"
fi
