#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t72-guesses.sh - every guess says it is a guess, with its reason (issue
# 43): a capture whose journal range is unknown gets a "journal_guessed"
# finding that says "guessed: REASON", REASON being capture.conf's
# journal_guessed (what wccapture saw fail) or, without it, what is
# missing; a journal range, from capture.conf or --journal, gives none;
# capture.conf's journal_guessed is hostile input: a value holding a
# control byte is refused with a note naming the line, never printed.
# As root: "wccapture record" on a mounted ext4 whose dumpe2fs cannot
# open the device (as under lockdown) records that line as
# journal_guessed, and the report says it.
# shellcheck source=tests/lib/common.sh
source "$(dirname "$0")/lib/common.sh"

[[ -x $WCSYNTH ]] || fail "$WCSYNTH not built"
"$WCSYNTH" --capture "$TMP/x" >/dev/null
C=$TMP/x
why='dumpe2fs: Operation not permitted while trying to open /dev/vda'

# guessed JSON: the journal_guessed findings' sentences, one a line.
guessed() {
	jq -r '.findings[] | select(.kind == "journal_guessed") | .sentence' "$1"
}
# jline TEXT: the journal line of a text report, its wrapped lines
# joined by a space.
jline() {
	awk '/^  journal:/ { j = $0; on = 1; next }
		on && /^    / { sub(/^ +/, ""); j = j " " $0; next } { on = 0 }
		END { print j }' "$1"
}
# says JSON TEXT: a journal_guessed finding's sentence holds TEXT.
says() {
	jq -e --arg t "$2" '[.findings[] | select(.kind == "journal_guessed") |
		.sentence | contains($t)] | any' "$1" >/dev/null
}

# A journal range: no guess said, even with a reason beside it.
echo "journal_guessed = $why" >>"$C/capture.conf"
"$WCANALYZE" --format json "$C" >"$TMP/range.json"
[[ -z $(guessed "$TMP/range.json") ]] || fail "a range, yet: $(guessed "$TMP/range.json")"
echo "ok: a journal range is no guess"

# The range unknown, the reason recorded: the finding says so, in JSON
# (with the reason as a key), in text, and as a caveat.
sed -i '/^journal_/d' "$C/capture.conf"
echo "journal_guessed = $why" >>"$C/capture.conf"
"$WCANALYZE" --format json "$C" >"$TMP/why.json"
says "$TMP/why.json" "guessed: $why" ||
	fail "no 'guessed: REASON': $(jq -c '[.findings[] | .kind]' "$TMP/why.json")"
jq -e --arg w "$why" '[.findings[] | select(.kind == "journal_guessed")][0] |
	.reason == $w and .caveat == true and .capture == "x"' "$TMP/why.json" >/dev/null ||
	fail "JSON: $(jq -c '[.findings[] | select(.kind == "journal_guessed")]' "$TMP/why.json")"
"$WCANALYZE" "$C" >"$TMP/why.txt"
sed -n '/^findings$/,/^$/p' "$TMP/why.txt" | tr -s ' \n' ' ' >"$TMP/why.line"
grep -qF "guessed: $why" "$TMP/why.line" ||
	fail "text: $(sed -n '/^findings$/,/^$/p' "$TMP/why.txt")"
# The capture's own lines say it too: the journal line of the text
# report, the journal object of the JSON.
[[ $(jline "$TMP/why.txt") == "  journal: guessed from flags (FUA, preflush, or sync+meta writes): $why" ]] ||
	fail "text journal line: $(jline "$TMP/why.txt")"
jq -e --arg w "$why" '.captures[0].journal | .method == "heuristic" and .reason == $w' \
	"$TMP/why.json" >/dev/null || fail "JSON journal: $(jq -c '.captures[0].journal' "$TMP/why.json")"
jq -e '.captures[0].journal | has("reason") | not' "$TMP/range.json" >/dev/null ||
	fail "JSON journal: a reason beside a range: $(jq -c '.captures[0].journal' "$TMP/range.json")"
echo "ok: the recorded reason is said"

# A what-if's replays carry the recording's guess: one capture named.
WCANALYZE_DISKS=$TOP/capture/disks "$WCANALYZE" --format json --what-if barrier=off "$C" \
	>"$TMP/whatif.json" 2>/dev/null
jq -e '[.findings[] | select(.kind == "journal_guessed")] |
	length == 1 and .[0].captures == 1 and (.[0] | has("others") | not)' \
	"$TMP/whatif.json" >/dev/null ||
	fail "what-if: $(jq -c '[.findings[] | select(.kind == "journal_guessed")]' "$TMP/whatif.json")"
echo "ok: a what-if names the recording only"

# --journal gives the range: no guess.
"$WCANALYZE" --format json --journal 2000000+65536 "$C" >"$TMP/given.json"
[[ -z $(guessed "$TMP/given.json") ]] || fail "--journal, yet: $(guessed "$TMP/given.json")"
echo "ok: --journal is no guess"

# No reason recorded: what is missing is the reason.
sed -i '/^journal_guessed/d' "$C/capture.conf"
"$WCANALYZE" --format json "$C" >"$TMP/none.json"
says "$TMP/none.json" "guessed: capture.conf gives neither the journal's sectors nor why" ||
	fail "no reason: $(guessed "$TMP/none.json")"
mv "$C/capture.conf" "$TMP/conf"
"$WCANALYZE" --format json "$C" >"$TMP/noconf.json"
says "$TMP/noconf.json" "guessed: no capture.conf gives the journal's sectors" ||
	fail "no capture.conf: $(guessed "$TMP/noconf.json")"
mv "$TMP/conf" "$C/capture.conf"
echo "ok: without a reason, what is missing is said"

# Hostile: an escape sequence in the reason is refused, with a note.
printf 'journal_guessed = dumpe2fs: \033]0;owned\007 denied\n' >>"$C/capture.conf"
"$WCANALYZE" --format json "$C" >"$TMP/esc.json" 2>"$TMP/esc.err"
grep -q "capture.conf: line [0-9]*: journal_guessed: .*ignored" "$TMP/esc.err" ||
	fail "no note: $(cat "$TMP/esc.err")"
says "$TMP/esc.json" "guessed: capture.conf gives neither" ||
	fail "refused reason used: $(guessed "$TMP/esc.json")"
if LC_ALL=C grep -q $'\033\\|owned' "$TMP/esc.json"; then
	fail "the refused reason reached the report"
fi
# Printable but hostile to the writers: quotes, a backslash and a
# brace are the reason's own, escaped by each writer as its format needs.
sed -i '/^journal_guessed/d' "$C/capture.conf"
hostile='dumpe2fs: "x\y" }, {"a": 1'
printf 'journal_guessed = %s\n' "$hostile" >>"$C/capture.conf"
"$WCANALYZE" --format json "$C" >"$TMP/q.json" || fail "quoted reason: exit $?"
jq -e --arg w "$hostile" '.captures[0].journal.reason == $w and
	([.findings[] | select(.kind == "journal_guessed")][0].reason == $w)' \
	"$TMP/q.json" >/dev/null || fail "quoted reason: $(jq -c '.captures[0].journal' "$TMP/q.json")"
"$WCANALYZE" "$C" >"$TMP/q.txt"
[[ $(jline "$TMP/q.txt") == "  journal: guessed from flags (FUA, preflush, or sync+meta writes): dumpe2fs: \"x\\\\y\" }, {\"a\": 1" ]] ||
	fail "quoted reason, text: $(jline "$TMP/q.txt")"
echo "ok: a reason's quotes and backslash are escaped"
echo "ok: a reason with control bytes is refused"

need_root
truncate -s 64M "$TMP/img"
LOOP=$(losetup -f --show "$TMP/img")
dev=${LOOP#/dev/}
mkfs.ext4 -q -F "$LOOP"
mkdir "$TMP/mnt"
mount "$LOOP" "$TMP/mnt"
mkdir "$TMP/bin"
cat >"$TMP/bin/dumpe2fs" <<'EOS'
#!/bin/sh
echo "dumpe2fs 1.47.0 (5-Feb-2023)" >&2
echo "dumpe2fs: Operation not permitted while trying to open $2" >&2
echo "Couldn't find valid filesystem superblock." >&2
exit 1
EOS
chmod +x "$TMP/bin/dumpe2fs"
rc=0
PATH=$TMP/bin:$PATH bash "$TOP/capture/wccapture" record --device "$dev" --name denied \
	--recorder tracefs -o "$TMP/out" -- sync 2>"$TMP/rec.log" || rc=$?
umount "$TMP/mnt"
[[ $rc -eq 0 ]] || fail "record exited $rc: $(tail -n 3 "$TMP/rec.log")"
[[ $(cat /sys/kernel/tracing/current_tracer) == nop ]] || fail "tracer left on"
want="dumpe2fs: Operation not permitted while trying to open /dev/$dev"
tar -xzOf "$TMP/out/denied.tar.gz" denied/capture.conf >"$TMP/denied.conf"
grep -qxF "journal_guessed = $want" "$TMP/denied.conf" ||
	fail "capture.conf: $(grep journal "$TMP/denied.conf" || echo no journal key)"
"$WCANALYZE" --format json "$TMP/out/denied.tar.gz" >"$TMP/denied.json"
says "$TMP/denied.json" "guessed: $want" ||
	fail "recorded, not said: $(jq -c '[.findings[] | .kind]' "$TMP/denied.json")"
echo "ok: wccapture records why the journal is guessed"
