#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# make-corpus.sh - rebuilds the seed corpora tests/fuzz/corpus-*/ from
# tests/fixtures/reader and samples/: small whole traces, the same turned
# into v8, the other byte order, notify/remap/split/cgroup records and
# sequence gaps (tests/wctrace_convert), the first KBs of a real capture
# as every archive format wcanalyze reads, framed capture folders for
# fuzz_bundle.c, and summaries for fuzz_summary.c.  Run from the top of
# the tree after "make"; the corpora stay far below 2 MB.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$top/build}
conv=$BUILD/tests/wctrace_convert
fz=$top/tests/fuzz
fix=$top/tests/fixtures/reader
sep=$'\nWCFUZZ\n'
tmp=$(mktemp -d "${TMPDIR:-/tmp}/wccorpus.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

[[ -x $conv ]] || { echo "make-corpus.sh: run make first ($conv)" >&2; exit 1; }
rm -rf "$fz"/corpus-trace "$fz"/corpus-archive "$fz"/corpus-bundle
mkdir -p "$fz"/corpus-trace "$fz"/corpus-archive "$fz"/corpus-bundle

# two_cpus OUT A B: A and B as the per-CPU files of fuzz_trace.c's framing.
two_cpus() {
	{ cat "$2"; printf '%s' "$sep"; cat "$3"; } >"$1"
}

# ---- corpus-trace ----
for fs in ext3 ext4 xfs; do
	two_cpus "$fz/corpus-trace/$fs" "$fix/$fs/loop1.blktrace.0" "$fix/$fs/loop1.blktrace.1"
done
variants=(v8:--v8 swap:--swap notify:--notify cgroup:"--cgroup 42"
	remap:"--remap 8:0:2048 --split" seq:"--seq 7" scramble:"--scramble 1"
	devices:"--scramble-devices 2" v8swap:"--v8 --swap")
for v in "${variants[@]}"; do
	name=${v%%:*}
	read -r -a opts <<<"${v#*:}"
	"$conv" "${opts[@]}" "$fix/xfs/loop1.blktrace.0" "$tmp/a"
	"$conv" "${opts[@]}" "$fix/xfs/loop1.blktrace.1" "$tmp/b"
	two_cpus "$fz/corpus-trace/xfs-$name" "$tmp/a" "$tmp/b"
done
for d in "$top"/tests/fixtures/attrib/btt/*/; do
	cp "$d/loop1.blktrace.0" "$fz/corpus-trace/btt-$(basename "$d")"
done

# ---- a small capture folder from a sample ----
sample=hdd7200-ext4-cache-on-barrier-on-run1
tar -C "$tmp" -xf "$top/samples/$sample.tar.xz"
cap=$tmp/$sample
for f in "$cap"/trace/*; do
	head -c 6144 "$f" >"$f.cut" && mv "$f.cut" "$f"
done
rm -rf "$cap/info"

# ---- corpus-archive ----
(
	cd "$tmp"
	tar -cf "$fz/corpus-archive/capture.tar" "$sample"
	tar -czf "$fz/corpus-archive/capture.tar.gz" "$sample"
	tar -cJf "$fz/corpus-archive/capture.tar.xz" "$sample"
	tar -cjf "$fz/corpus-archive/capture.tar.bz2" "$sample"
	tar --zstd -cf "$fz/corpus-archive/capture.tar.zst" "$sample"
	zip -qr "$fz/corpus-archive/capture.zip" "$sample"
	find "$sample" | cpio -o -H newc --quiet >"$fz/corpus-archive/capture.cpio"
	cd "$sample/trace"
	tar -czf "$fz/corpus-archive/trace-only.tar.gz" ./*
)

# ---- corpus-bundle ----
# Shorter traces here: the bundle costs per request (series binning), and
# a fuzzer that runs a few inputs a second finds little.
for f in "$cap"/trace/*; do
	head -c 1536 "$f" >"$f.cut" && mv "$f.cut" "$f"
done
# section KIND FILE: one section of fuzz_bundle.c's framing.
section() {
	printf '=== %s\n' "$1"
	cat "$2"
	printf '\n'
}
bundle_seed() {
	local out=$1 words=$2 f
	{
		printf '=== name\n%s\n' "$sample"
		printf "=== options\n%s\n" "$words"
		section capture.conf "$cap/capture.conf"
		section phases.tsv "$cap/phases.tsv"
		for f in "$cap"/trace/*; do
			section "trace/$(basename "$f")" "$f"
		done
	} >"$out"
}
bundle_seed "$fz/corpus-bundle/ext4" ""
bundle_seed "$fz/corpus-bundle/ext4-twice" "twice baseline rate journal"
printf '=== name\nx\n=== capture.conf\nname = y\n' >"$fz/corpus-bundle/no-trace"

# ---- corpus-summary ----
# Summaries as wcanalyze writes them: of one capture, and a comparison
# of two configurations with a baseline (findings, groups), fed back.
rm -rf "$fz"/corpus-summary
mkdir -p "$fz"/corpus-summary
s=$top/samples/ssd-ext4-cache
"$BUILD/wcanalyze" --format json "$s-on-barrier-on-run1.tar.xz" \
	>"$fz/corpus-summary/one.json"
"$BUILD/wcanalyze" --format json --baseline ssd-ext4-cache-on-barrier-on-run1 \
	"$s-on-barrier-on-run1.tar.xz" "$s-off-barrier-on-run1.tar.xz" \
	"$s-off-barrier-on-run2.tar.xz" >"$fz/corpus-summary/compared.json"
printf '{"format": "wcanalyze", "version": 1, "captures": []}\n' \
	>"$fz/corpus-summary/no-captures.json"

du -sh "$fz"/corpus-*
