#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t23-wccapture-cli.sh - wccapture's help (every option, as in the
# manual), its usage errors (exit 2, saved messages pointing at --help),
# its refusals of devices that are not there or attached to nothing, of
# archives that would be overwritten, and to format what it must not: a
# device without --destroy-data, a mounted device, the disk the running
# system is on.
# shellcheck source=tests/lib/common.sh
source "$(dirname "$0")/lib/common.sh"

W=$TOP/capture/wccapture
fix=$TOP/tests/fixtures/capture

shellcheck -x "$W" || fail "wccapture is not shellcheck-clean"

bash "$W" --help >"$TMP/help.out"
cmp -s "$TMP/help.out" "$fix/wccapture-help.txt" || { diff "$fix/wccapture-help.txt" "$TMP/help.out"; fail "--help differs"; }

# Every option wccapture takes is explained in --help, in its
# subcommand's --help, and in the manual's OPTIONS.
man_opts=$(sed -n '/^\.SH OPTIONS/,/^\.SH EXIT/p' "$TOP/docs/wccapture.8" |
	awk 'tp { print; tp = 0 } /^\.TP/ { tp = 1 }' | grep -oE '\\-\\-[a-z\\-]+' | sed 's/\\//g' | sort -u)
for sub in lab record crash; do
	bash "$W" "$sub" --help >"$TMP/$sub-help.out"
	opts=$(sed -n "/^${sub}_main()/,/^}/p" "$TOP/capture/lib/$sub.sh" | grep -oE -- '-l [a-z,:-]+' | sed -n 1p |
		sed 's/^-l //; s/:/,/g' | tr ',' '\n' | grep -v '^$' | grep -v '^help$')
	[[ -n $opts ]] || fail "no long options found in ${sub}_main"
	for o in $opts; do
		grep -qE -- "^  (-[a-z], )?--$o( |\$)" "$TMP/$sub-help.out" ||
			fail "wccapture $sub --help does not explain --$o"
		grep -qE -- "^  (-[a-z], )?--$o( |\$)" "$TMP/help.out" ||
			fail "wccapture --help does not explain --$o"
		grep -qx -- "--$o" <<<"$man_opts" || fail "docs/wccapture.8 has no --$o in OPTIONS"
	done
done

# Each line of usage-errors.args is one command line; its whole stderr
# (the mistake, then where the help is: never the whole usage) is
# compared with usage-errors.txt and the exit must be 2.
: >"$TMP/errors.out"
while IFS= read -r line; do
	read -r -a args <<<"$line"
	rc=0
	bash "$W" "${args[@]}" >/dev/null 2>"$TMP/err" || rc=$?
	[[ $rc -eq 2 ]] || fail "wccapture $line: exit $rc, expected 2: $(cat "$TMP/err")"
	cat "$TMP/err" >>"$TMP/errors.out"
done <"$fix/usage-errors.args"
cmp -s "$TMP/errors.out" "$fix/usage-errors.txt" || { diff "$fix/usage-errors.txt" "$TMP/errors.out"; fail "usage errors differ"; }

# A device that does not exist names the ones that do; a loop device
# attached to nothing is refused (both before anything is done, root or
# not).
rc=0
bash "$W" record --device /dev/wc-no-such-disk -- true >/dev/null 2>"$TMP/err" || rc=$?
[[ $rc -eq 1 ]] || fail "a missing device: exit $rc, expected 1"
grep -qE '^wccapture: /dev/wc-no-such-disk: no such block device; block devices here: (/dev/[^ ]+( |$))+' "$TMP/err" ||
	fail "a missing device: $(cat "$TMP/err")"
free_loop=""
for d in /sys/class/block/loop*; do
	[[ -e $d/loop/backing_file ]] || { free_loop=/dev/${d##*/}; break; }
done
if [[ -n $free_loop && -b $free_loop ]]; then
	rc=0
	bash "$W" lab --device "$free_loop" --destroy-data >/dev/null 2>"$TMP/err" || rc=$?
	[[ $rc -eq 1 ]] || fail "an unattached loop device: exit $rc, expected 1"
	grep -qx "wccapture: $free_loop: a loop device attached to no file (losetup -f --show IMAGE attaches one)" "$TMP/err" ||
		fail "an unattached loop device: $(cat "$TMP/err")"
else
	echo "ok: no unattached loop device here: that refusal not tested"
fi

need_root
truncate -s 64M "$TMP/img"
LOOP=$(losetup -f --show "$TMP/img")
mkfs.ext4 -q -F "$LOOP"
mkdir "$TMP/mnt"
mount "$LOOP" "$TMP/mnt"
echo keep >"$TMP/mnt/precious"
rc=0
bash "$W" lab --device "$LOOP" --destroy-data --fs ext4 --cache on --barrier on \
	--recorder tracefs -o "$TMP/out" >/dev/null 2>"$TMP/err" || rc=$?
[[ $rc -eq 1 ]] || fail "a mounted --device: exit $rc, expected 1"
grep -q "^wccapture: $LOOP: mounted on $TMP/mnt; refusing to format it$" "$TMP/err" ||
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

# Nothing in -o is overwritten: the lab refuses before doing anything
# when one of its archives (named with the disk) is there, and record
# when its NAME.tar.gz is.
mkdir -p "$TMP/keep"
echo precious >"$TMP/keep/hdd7200-ext4-cache-on-barrier-on-run2.tar.gz"
rc=0
bash "$W" lab --fs ext4 --cache on --barrier on --runs 2 -o "$TMP/keep" >/dev/null 2>"$TMP/err" || rc=$?
[[ $rc -eq 1 ]] || fail "a lab over an existing archive: exit $rc, expected 1"
grep -qx "wccapture: $TMP/keep/hdd7200-ext4-cache-on-barrier-on-run2.tar.gz exists; not overwriting it (--first-run, --name or -o give new names)" "$TMP/err" ||
	fail "a lab over an existing archive: $(cat "$TMP/err")"
echo precious >"$TMP/keep/mine.tar.gz"
rc=0
bash "$W" record --device "$LOOP" --name mine -o "$TMP/keep" -- true >/dev/null 2>"$TMP/err" || rc=$?
[[ $rc -eq 1 ]] || fail "a record over an existing archive: exit $rc, expected 1"
grep -qx "wccapture: $TMP/keep/mine.tar.gz exists; not overwriting it (--name or -o give a new name)" "$TMP/err" ||
	fail "a record over an existing archive: $(cat "$TMP/err")"
[[ $(cat "$TMP/keep/hdd7200-ext4-cache-on-barrier-on-run2.tar.gz" "$TMP/keep/mine.tar.gz") == $'precious\nprecious' ]] ||
	fail "an existing archive was touched"
[[ $(find "$TMP/keep" -type f | wc -l) == 2 ]] || fail "files written after a refusal: $(ls "$TMP/keep")"
echo "ok: existing archives refused"
