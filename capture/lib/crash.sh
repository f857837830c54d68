# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
# crash.sh - "wccapture crash": power cuts on the model disk
# (docs/crash.md).  Sourced by capture/wccapture.

help_crash() {
	cat <<'EOF'

crash: power cuts on the model disk.  Per configuration, run the fsync
workload once on a wcdisk that logs its platter, then for each cut rebuild
the platter as the cut left it, mount it (journal replay), check that
every promise fsync and sync made before the cut holds, and run
xfs_repair -n or e2fsck -fn.  Outcomes: clean, repaired-by-replay,
corrupt, fsynced-data-lost.  DIR/crash.tsv sums them up; DIR/CONFIG/
holds cuts.tsv (one row per cut), promises.tsv and what the tools said.

  --fs LIST           xfs, ext3, ext4, comma-separated (default all three)
  --cache LIST        on (disk cache on, the kernel told so), off (write-
                      through), lie (disk cache on, the kernel told write-
                      through, so it sends no flush); default on,off,lie
  --barrier LIST      on and/or off (default on,off; XFS has only on)
  --cuts N            cuts per configuration (default 20): a quarter each
                      at random times, just after an fsync returned, just
                      before or after a flush was acknowledged, and in the
                      middle of a media write
  --seed N            the cuts' random choices (default 1)
  --tear KIND         sector (default: 512-byte sectors are atomic, a write
                      in flight leaves a prefix) or write (each media write
                      is atomic)
  --files N           files the workload writes and fsyncs (default 24)
  --disk NAME|FILE    the model disk (default hdd7200; not loop, not one
                      with power-loss protection)
  --disk-param KEY=VALUE
                      override one parameter of the model (repeatable)
  --image-size SIZE   the sparse image (default 320M, the least XFS takes)
  --keep-logs         keep each configuration's platter log (every byte
                      written to the platter: megabytes) and its records,
                      for wcdisk --replay
  -o, --output DIR    where the results go (default the current folder)
  -h, --help          show this help and exit
EOF
}

# Power cuts on the model disk (docs/crash.md).  Per configuration: one
# run of the fsync workload on a fresh wcdisk that logs every write
# reaching its platter (wcdisk --platter-log), then per cut the platter
# rebuilt as the cut left it (wcdisk --replay), mounted on a loop device
# (journal replay), its promises checked and fsck run on it.  Needs no
# tracer.

# Writes the workload's source files under $1: $2 files of sizes cycling
# through 4 KiB to 1 MiB, in four directories, contents from a seeded
# generator (each file differs, so a misplaced block shows).
crash_sources() {
	local dir=$1 n=$2
	mkdir -p "$dir"
	LC_ALL=C awk -v n="$n" -v top="$dir" 'BEGIN {
		split("4096 16384 65536 262144 1048576 8192", sz, " ");
		srand(4242);
		for (d = 0; d < 4; d++)
			system("mkdir -p \"" top "/d" d "\"");
		for (i = 0; i < n; i++) {
			f = sprintf("%s/d%d/f%03d", top, i % 4, i);
			size = sz[i % 6 + 1];
			line = sprintf("%s %d ", f, i);
			while (length(line) < 64)
				line = line sprintf("%c", 97 + int(rand() * 26));
			line = substr(line, 1, 63);
			for (k = 0; k < size; k += 64)
				printf "%s\n", line > f;
			close(f);
			# every fourth file also has a companion nobody fsyncs
			if (i % 4 == 3) {
				g = sprintf("%s/d%d/n%03d", top, i % 4, i);
				for (k = 0; k < 262144; k += 64)
					printf "%s\n", line > g;
				close(g);
			}
		}
	}'
}

# Runs the fsync workload: copies the files of $1 into $2 one at a time,
# each fsynced (dd conv=fsync) and its directory fsynced (sync DIR), and
# notes each promise in $3 when the call returned: "fsync TIME PATH"
# (PATH has its whole content from TIME on) and "sync TIME PATH" (a
# completed sync made PATH and its content durable).  The companions are
# written without fsync; a sync halfway and one at the end cover all.
crash_workload() {
	local src=$1 dst=$2 promises=$3 f rel t i=0 n written=()
	n=$(find "$src" -name 'f*' -type f | wc -l)
	mkdir -p "$dst"
	(cd "$src" && find . -mindepth 1 -type d -print0) | (cd "$dst" && xargs -0 mkdir -p)
	sync "$dst"
	while IFS= read -r rel <&5; do
		dd if="$src/$rel" of="$dst/$rel" bs=1M conv=fsync status=none
		sync "$(dirname "$dst/$rel")"
		t=$(now_ns)
		printf 'fsync\t%s\t%s\n' "$t" "$rel" >>"$promises"
		written+=("$rel")
		f=${rel/\/f/\/n}
		if [[ -f $src/$f ]]; then
			cp "$src/$f" "$dst/$f"
			written+=("$f")
		fi
		i=$((i + 1))
		if ((i == n / 2 || i == n)); then
			sync
			t=$(now_ns)
			for f in "${written[@]}"; do
				printf 'sync\t%s\t%s\n' "$t" "$f" >>"$promises"
			done
		fi
	done 5< <(cd "$src" && find . -name 'f*' -type f | sed 's|^\./||' | LC_ALL=C sort -t/ -k2)
}

# Chooses $1 cuts with seed $2 in [$3, $4] from the platter log's records
# ($5, wcdisk --list) and the promises ($6); prints "KIND TIME" lines.
# A quarter each: at a random time; just after an fsync returned; just
# before or after a flush was acknowledged (alternately); in the middle
# of a media write (a destage leaves a prefix in destage order).  A kind
# with no candidate in the window falls back to a random time.
crash_cuts() {
	local n=$1 seed=$2 w0=$3 w1=$4 records=$5 promises=$6
	LC_ALL=C awk -v n="$n" -v seed="$seed" -v w0="$w0" -v w1="$w1" -F '\t' '
		FILENAME == ARGV[1] && FNR > 1 {
			if ($2 == "flush" && $6 >= w0 && $6 <= w1)
				fl[nf++] = $6;
			else if (($2 == "destage" || $2 == "write") && $4 >= 2 &&
				 $5 >= w0 && $6 <= w1 && $6 > $5 + 1)
				md[nm++] = ($5 + $6) / 2;
			next;
		}
		# times in ns exceed 2^31: printed with %.0f (the %d of mawk is
		# 32-bit); doubles hold them to the nanosecond below 2^53
		FILENAME == ARGV[2] && $1 == "fsync" && $2 <= w1 { fs[nfs++] = $2 }
		END {
			srand(seed);
			for (k = 0; k < n; k++) {
				kind = k % 4;
				r = rand();
				if (kind == 1 && nfs > 0)
					printf "after-fsync %.0f\n", fs[int(r * nfs)] + 1;
				else if (kind == 2 && nf > 0)
					if (int(k / 4) % 2 == 0)
						printf "before-flush-ack %.0f\n", fl[int(r * nf)] - 1;
					else
						printf "after-flush-ack %.0f\n", fl[int(r * nf)] + 1;
				else if (kind == 3 && nm > 0)
					printf "mid-destage %.0f\n", md[int(r * nm)];
				else
					printf "random %.0f\n", w0 + int(r * (w1 - w0));
			}
		}' "$records" "$promises"
}

# Checks the platter at cut $2 (ns) of filesystem $1 against the
# promises $3; sets CHECK to "OUTCOME DUE LOST RECOVERY FSCK" (not
# printed: in a subshell the loop device and the mount would escape
# cleanup) and writes what the tools said to $4.
crash_check() {
	local fs=$1 cut=$2 promises=$3 log=$4 dev recovery=no due=0 lost=0 fsck=0
	local kind t rel mounted=1 outcome
	"$WCDISK" --replay "$WORK/platter.log" --at "$cut" --tear "$TEAR" "$WORK/cut.img" 2>>"$log" ||
		die "wcdisk --replay failed: $(tail -n 1 "$log")"
	loop_attach "$WORK/cut.img"
	dev=$LOOP_DEV
	case $fs in
	xfs)
		# a log that needs replay: xfs_logprint -t says "state:
		# <DIRTY>" (<CLEAN> after an unmount).  grep reads to the end
		# (no -q): a reader that stops early would cut tee, and the
		# pipeline's status, by SIGPIPE.
		if xfs_logprint -t "$dev" 2>&1 | tee -a "$log" | grep 'state: *<DIRTY>' >/dev/null; then
			recovery=yes
		fi
		;;
	*)
		dumpe2fs -h "$dev" 2>>"$log" | grep '^Filesystem features:.*needs_recovery' >/dev/null && recovery=yes
		;;
	esac
	mkdir -p "$WORK/cut"
	if ! mount_fs "$dev" "$WORK/cut" -t "$fs" >>"$log" 2>&1; then
		mounted=0
		umount_fs "$WORK/cut"
	fi
	if [[ $mounted == 1 ]]; then
		while IFS=$'\t' read -r kind t rel; do
			((t < cut)) || continue
			due=$((due + 1))
			if ! cmp -s "$WORK/src/$rel" "$WORK/cut/$rel" 2>/dev/null; then
				lost=$((lost + 1))
				echo "promise broken: $kind at $t: $rel" >>"$log"
			fi
		done <"$promises"
		umount_fs "$WORK/cut"
	fi
	case $fs in
	xfs) xfs_repair -n "$dev" >>"$log" 2>&1 || fsck=$? ;;
	*) e2fsck -fn "$dev" >>"$log" 2>&1 || fsck=$? ;;
	esac
	loop_detach "$dev"
	rm -f "$WORK/cut.img"
	if [[ $mounted == 0 || $fsck != 0 ]]; then
		outcome=corrupt
	elif ((lost > 0)); then
		outcome=fsynced-data-lost
	elif [[ $recovery == yes ]]; then
		outcome=repaired-by-replay
	else
		outcome=clean
	fi
	[[ $mounted == 1 ]] || fsck="$fsck,mount-failed"
	CHECK="$outcome $due $lost $recovery $fsck"
}

# One configuration: the workload once, then every cut.
crash_config() {
	local fs=$1 cache=$2 barrier=$3 opts=$4 name dir model told dev w0 w1 k
	local kind cut outcome due lost recovery fsck repro
	name="$fs-cache-$cache-barrier-$barrier"
	dir=$OUTDIR/$name
	rm -rf "$dir"
	mkdir -p "$dir"
	# "lie": the disk caches, the kernel is told it writes through (and
	# so drops every flush), as nobarrier did and as a drive that lies
	model=on told=on
	case $cache in off) model=off told=off ;; lie) told=off ;; esac
	say "$name: the workload on $DISK_NAME (disk cache $model, kernel told $told)"
	rm -f "$WORK/dst.img" "$WORK/platter.log"
	truncate -s "$IMG_BYTES" "$WORK/dst.img"
	DISK_EXTRA=(--platter-log "$WORK/platter.log")
	disk_start "$WORK/dst.img" "$model"
	loop_attach "$DISK_MNT/disk" --direct-io=on
	dev=$(kname "$LOOP_DEV")
	# mkfs's own flushes must reach the disk whatever the last user of
	# this loop device told the kernel (the setting outlives detaching)
	cache_set "$dev" on || die "$dev: cannot tell the kernel the cache is on"
	fs_mkfs "$fs" "/dev/$dev" >"$dir/mkfs.txt" 2>&1
	cache_set "$dev" "$told" || die "$dev: cannot tell the kernel the cache is $told"
	mount_fs "/dev/$dev" "$WORK/dst" -t "$fs" -o "$opts"
	: >"$dir/promises.tsv"
	w0=$(now_ns)
	crash_workload "$WORK/src" "$WORK/dst" "$dir/promises.tsv" 2>>"$dir/workload.log" ||
		die "$name: the workload failed: $(tail -n 1 "$dir/workload.log")"
	w1=$(now_ns)
	umount_fs "$WORK/dst"
	cache_restore_all
	loop_detach "/dev/$dev"
	disk_stop || die "$name: wcdisk failed: $(tail -n 1 "$WORK/wcdisk.log")"
	DISK_EXTRA=()
	"$WCDISK" --list "$WORK/platter.log" >"$WORK/records.tsv"
	awk -F '\t' -v a="$w0" -v b="$w1" 'NR > 1 && $6 >= a && $5 <= b { n[$2]++; s[$2] += $4 }
		END { for (k in n) printf "%s %d records, %d sectors\n", k, n[k], s[k] }' \
		"$WORK/records.tsv" | LC_ALL=C sort >"$dir/platter-writes.txt"
	printf 'cut\tkind\tcut_ns\tcut_ms\toutcome\tpromises_due\tpromises_broken\tjournal_replayed\tfsck_status\n' >"$dir/cuts.tsv"
	k=0
	# fd 5: the checks' tools must not read the cuts
	while read -r kind cut <&5; do
		k=$((k + 1))
		crash_check "$fs" "$cut" "$dir/promises.tsv" "$dir/cut-$k.log"
		read -r outcome due lost recovery fsck <<<"$CHECK"
		printf '%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$k" "$kind" "$cut" \
			"$(awk -v c="$cut" -v a="$w0" 'BEGIN { printf "%.3f", (c - a) / 1e6 }')" \
			"$outcome" "$due" "$lost" "$recovery" "$fsck" >>"$dir/cuts.tsv"
		say "$name: cut $k ($kind at $(((cut - w0) / 1000000)) ms): $outcome ($lost of $due promises broken)"
	done 5< <(crash_cuts "$CUTS" "$SEED" "$w0" "$w1" "$WORK/records.tsv" "$dir/promises.tsv")
	if [[ $KEEP_LOGS == 1 ]]; then
		mv "$WORK/platter.log" "$dir/platter.log"
		cp "$WORK/records.tsv" "$dir/records.tsv"
	fi
	rm -f "$WORK/platter.log" "$WORK/dst.img"
	repro="wccapture crash --fs $fs --cache $cache --barrier $barrier --cuts $CUTS --seed $SEED --tear $TEAR --files $FILES --disk $DISK_NAME${DISK_PARAMS_TEXT:+ $DISK_PARAMS_TEXT}"
	awk -F '\t' -v cfg="$fs	$cache	$barrier" -v seed="$SEED" -v tear="$TEAR" -v r="$repro" \
		'NR > 1 { n++; c[$5]++ }
		END { printf "%s\t%s\t%s\t%d\t%d\t%d\t%d\t%d\t%s\n", cfg, seed, tear, n,
			c["clean"], c["repaired-by-replay"], c["corrupt"], c["fsynced-data-lost"], r }' \
		"$dir/cuts.tsv" >>"$OUTDIR/crash.tsv"
}

crash_main() {
	local fs_list=xfs,ext3,ext4 cache_list=on,off,lie barrier_list=on,off
	local disk=hdd7200 image_size=320M args f fs cache barrier opts why params
	CUTS=20 SEED=1 TEAR=sector FILES=24 KEEP_LOGS=0
	HELP_HINT="wccapture crash --help"
	DISK_PARAMS=()
	DISK_PARAMS_TEXT=""
	args=$(getopt -n "$PROG" -o o:h -l fs:,cache:,barrier:,cuts:,seed:,tear:,files:,disk:,disk-param:,image-size:,keep-logs,output:,help -- "$@") ||
		{ usage >&2; exit 2; }
	eval set -- "$args"
	while true; do
		case $1 in
		--fs) fs_list=$2; shift 2 ;;
		--cache) cache_list=$2; shift 2 ;;
		--barrier) barrier_list=$2; shift 2 ;;
		--cuts) CUTS=$2; shift 2 ;;
		--seed) SEED=$2; shift 2 ;;
		--tear) TEAR=$2; shift 2 ;;
		--files) FILES=$2; shift 2 ;;
		--disk) disk=$2; shift 2 ;;
		--disk-param)
			DISK_PARAMS+=(-p "$2")
			DISK_PARAMS_TEXT+="${DISK_PARAMS_TEXT:+ }--disk-param $2"
			shift 2
			;;
		--image-size) image_size=$2; shift 2 ;;
		--keep-logs) KEEP_LOGS=1; shift ;;
		-o | --output) OUTDIR=$2; shift 2 ;;
		-h | --help) usage; help_crash; exit 0 ;;
		--) shift; break ;;
		esac
	done
	[[ $# -eq 0 ]] || usage_error "crash: unexpected argument '$1'"
	for f in ${fs_list//,/ }; do
		[[ $f == xfs || $f == ext3 || $f == ext4 ]] || usage_error "--fs: '$f' is not xfs, ext3 or ext4"
	done
	for f in ${cache_list//,/ }; do
		[[ $f == on || $f == off || $f == lie ]] || usage_error "--cache: '$f' is not on, off or lie"
	done
	for f in ${barrier_list//,/ }; do
		[[ $f == on || $f == off ]] || usage_error "--barrier: '$f' is not on or off"
	done
	[[ $CUTS =~ ^[1-9][0-9]{0,3}$ ]] || usage_error "--cuts: '$CUTS' is not a number from 1 to 9999"
	[[ $SEED =~ ^[0-9]{1,9}$ ]] || usage_error "--seed: '$SEED' is not a number"
	[[ $FILES =~ ^[1-9][0-9]{0,3}$ ]] || usage_error "--files: '$FILES' is not a number from 1 to 9999"
	[[ $TEAR == sector || $TEAR == write ]] || usage_error "--tear: '$TEAR' is not sector or write"
	IMG_BYTES=$(parse_size "$image_size") || usage_error "--image-size: '$image_size' is not a size"
	((IMG_BYTES % 1048576 == 0 && IMG_BYTES >= 320 * 1048576)) ||
		usage_error "--image-size: '$image_size' is not whole MiB of at least 320M (mkfs.xfs needs 300 MB)"
	DISK_FILE=$(find_disk_file "$disk") || usage_error "--disk: no disk model '$disk' (see capture/disks)"
	DISK_NAME=${disk##*/}
	grep -qE '^[[:space:]]*model[[:space:]]*=[[:space:]]*none' "$DISK_FILE" &&
		usage_error "--disk: '$disk' has no model: power cuts need the model disk"
	[[ $(id -u) -eq 0 ]] || die "crash needs root (it formats and mounts loop devices)"
	WCRECORD=$(find_wcrecord) || die "wcrecord not found next to wccapture, in \$BUILD or in PATH"
	if why=$(fuse_missing); then
		die "crash needs FUSE, which is not usable here: $why"
	fi
	WCDISK=$(find_wcdisk)
	# The parameters through a pipe, never a file: a name in /tmp that
	# root writes is a name anyone can plant a link at.
	params=$("$WCDISK" --disk "$DISK_FILE" "${DISK_PARAMS[@]}" --print-params 2>&1) ||
		{ why=${params##*$'\n'}; usage_error "--disk $disk: ${why#wcdisk: }"; }
	# with power-loss protection the cache survives a cut, which the
	# platter log does not model
	if [[ $'\n'$params$'\n' == *$'\n''plp = on'$'\n'* ]]; then
		usage_error "--disk $disk: power-loss protection (plp = on): its cache survives a cut, which crash does not model"
	fi
	OUTDIR=$(mkdir -p "$OUTDIR" && cd "$OUTDIR" && pwd)
	WORK=$(mktemp -d "${TMPDIR:-/var/tmp}/wccapture.XXXXXX")
	mkdir -p "$WORK/dst"
	crash_sources "$WORK/src" "$FILES"
	printf 'fs\tcache\tbarrier\tseed\ttear\tcuts\tclean\trepaired_by_replay\tcorrupt\tfsynced_data_lost\treproduce\n' >"$OUTDIR/crash.tsv"
	for fs in ${fs_list//,/ }; do
		for cache in ${cache_list//,/ }; do
			for barrier in ${barrier_list//,/ }; do
				if ! opts=$(barrier_opts "$fs" "$barrier"); then
					say "$fs cache $cache barrier $barrier: not applicable: $opts"
					continue
				fi
				# the kernel told write-through sends no flush
				# whatever the mount says: barriers off adds nothing
				if [[ $cache == lie && $barrier == off ]]; then
					say "$fs cache lie barrier off: not run: the same as cache on, barriers off"
					continue
				fi
				crash_config "$fs" "$cache" "$barrier" "$opts"
			done
		done
	done
	echo
	column -t -s $'\t' <(cut -f 1-10 "$OUTDIR/crash.tsv")
	say "per cut: $OUTDIR/CONFIGURATION/cuts.tsv; summary: $OUTDIR/crash.tsv"
}
