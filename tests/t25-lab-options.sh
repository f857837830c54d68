#!/usr/bin/env bash
# t25-lab-options.sh - --source DIR is copied and never changed, --runs
# repeats a configuration, --first-run numbers its runs, --name prefixes
# the archives, and the counts in capture.conf are those of the source
# tree; without --disk the destination is the default model disk,
# hdd7200, with its ledger.
# shellcheck source=tests/lib/common.sh
source "$(dirname "$0")/lib/common.sh"
# shellcheck source=tests/fixtures/capture/archive.sh
source "$TOP/tests/fixtures/capture/archive.sh"
need_root
tracer_wait
need_wcdisk

src=$TMP/src
mkdir -p "$src/a/b"
cp -a "$TOP/docs" "$TOP/capture" "$src/a/b/"
head -c 300000 /dev/urandom >"$src/a/big"
: >"$src/empty"
snapshot() { (cd "$src" && find . -printf '%p %s %m %T@\n' | LC_ALL=C sort && find . -type f -exec md5sum {} + | LC_ALL=C sort); }
before=$(snapshot)
files=$(find "$src" -type f | wc -l)
bytes=$(find "$src" -type f -printf '%s\n' | awk '{ s += $1 } END { print s }')

rc=0
bash "$TOP/capture/wccapture" lab --fs ext4 --cache on --barrier on --runs 2 --first-run 3 \
	--source "$src" --name pre --recorder tracefs -o "$TMP/out" >"$TMP/table" 2>"$TMP/log" || rc=$?
[[ $rc -eq 0 ]] || fail "lab exited $rc: $(tail -n 3 "$TMP/log")"
[[ $(snapshot) == "$before" ]] || fail "the source tree changed"
for run in 3 4; do
	a=$TMP/out/pre-hdd7200-ext4-cache-on-barrier-on-run$run.tar.gz
	[[ -f $a ]] || fail "no $(basename "$a")"
	d=$(archive_open "$a")
	archive_check "$d" 1
	[[ $(conf_get "$d" source_files) == "$files" ]] || fail "run $run: source_files $(conf_get "$d" source_files), expected $files"
	[[ $(conf_get "$d" source_bytes) == "$bytes" ]] || fail "run $run: source_bytes $(conf_get "$d" source_bytes), expected $bytes"
	parse_dest "$d"
	[[ $(conf_get "$d" disk_model) == hdd7200 ]] || fail "run $run: disk_model '$(conf_get "$d" disk_model)', expected the default hdd7200"
	[[ $(conf_get "$d" write_cache_method) == model ]] || fail "run $run: write_cache_method is not model"
	[[ $(wc -l <"$d/ledger.tsv") -gt 1 ]] || fail "run $run: empty ledger"
done
[[ $(grep -cE '^ext4 +on +on +[34] ' "$TMP/table") -eq 2 ]] || { cat "$TMP/table"; fail "table lacks the two runs"; }
echo "ok: $files files, $bytes bytes, two runs"
