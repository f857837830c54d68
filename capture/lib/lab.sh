# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
# lab.sh - "wccapture lab": the write cache x barrier matrix, one capture
# per file system, configuration and run.  Sourced by capture/wccapture.

SEED_MEMORY=1G          # lab --workload seed: --memory by default

help_lab() {
	cat <<'EOF'

lab: copy and delete a tree for every file system x write cache x
barrier setting, each on a fresh file system, and record it; one
archive each, [PREFIX-]DISK-FS-cache-on|off-barrier-on|off-runN.tar.gz.
Run k of every configuration is recorded before run k+1, the
configurations of each round in a shuffled order that capture.conf
records, after a warm-up capture kept out of the comparison (in
DIR/warmup/).

  --fs LIST           xfs, ext3, ext4, comma-separated (default all three)
  --cache LIST        write cache settings: on and/or off (default on,off)
  --barrier LIST      barrier settings: on and/or off (default on,off)
  --files N           files in the generated tree (default 2000)
  --size SIZE         their total size, bytes or with K, M, G (default 80M)
  --source DIR        copy this tree instead (it is only read)
  --device DEV        a real disk or partition as the destination,
                      formatted for every configuration: EVERYTHING ON IT
                      IS DESTROYED
  --destroy-data      confirms --device
  --image-size SIZE   each sparse loop image (default twice the tree plus
                      512M; XFS needs 300M at least)
  --runs N            repeat each configuration N times (default 1)
  --first-run N       number the runs from N (default 1), to add runs later
  --warmup N          warm-up captures before the first round, saved in
                      DIR/warmup/ (default 1; 0 for none)
  --order-seed N      the seed of the rounds' shuffled order (default: a
                      random one, printed and recorded)
  --recorder KIND     auto (default: blktrace where it works, else wcrecord
                      through tracefs), blktrace or tracefs
  --disk NAME|FILE    the destination's model disk: hdd7200 (default), ssd,
                      ssd-plp, loop (a plain loop image, no model), or a
                      parameter file; not with --device
  --disk-param KEY=VALUE
                      override one parameter of the model (repeatable; the
                      keys: wcdisk --print-params)
  --workload KIND     tree (default: the generated tree, cp -a then sync,
                      rm -rf then sync), seed (the classic report's tree,
                      800 MB in 4,000 files) or fsync (each file fsynced)
  --scale F           with --workload seed: a fraction in (0, 1] of it
  --one-disk on|off   on: the source and the destination are two partitions
                      of one model disk (one head, queue and cache); off:
                      the source is a loop image on a host file (default
                      on for --workload seed on a model disk, else off)
  --placement KIND    partitions: the model disk's images are partitions
                      of its own capacity (capacity_gb), each at the start
                      of an equal share, as the report's two partitions
                      (default with --one-disk on); platter: the images
                      are the whole platter (default otherwise)
  --source-fs FS      the filesystem of the source, made once and read by
                      every configuration: xfs, ext3, ext4 (default) or
                      each (every file system reads a source of its own)
  --memory SIZE|off   run the copy in a memory cgroup of SIZE (16M at
                      least; default 1G with --workload seed, else off)
                      at the report's kernels' dirty limits, 10 % and
                      5 % of SIZE (host-wide settings, put back after)
  --name PREFIX       PREFIX- in front of every archive's name
  -o, --output DIR    where the archives go (default the current folder);
                      an archive of the same name there is an error, never
                      overwritten
  -h, --help          show this help and exit
EOF
}

# barrier_opts for the lab: XFS without barriers, which no mount option
# gives since 4.19, is the report's fourth row, so on a model disk the lab
# mounts XFS with its defaults and tells the kernel the disk writes
# through (lab_capture): the block layer then strips every flush and FUA
# before they are queued, while the model still caches, which is what
# nobarrier did to a drive with its cache on.  On any other disk the
# kernel's view is the disk's own cache setting, and it stays not
# applicable.
lab_barrier_opts() {
	local why
	if [[ $1:$2 == xfs:off ]]; then
		if [[ -n $DISK_FILE ]]; then
			echo "defaults"
			return 0
		fi
		why=$(barrier_opts "$1" "$2") || true
		echo "$why; emulated only on a model disk (--disk), whose cache the kernel cannot see"
		return 1
	fi
	barrier_opts "$1" "$2"
}

# Refuses a destination the system needs or anything mounted or in use.
device_check() {
	local n=$1 disk root_src root_disk m p
	[[ -b /dev/$n ]] || die "/dev/$n: not a block device"
	disk=$(disk_of "$n")
	m=$(lsblk -nr -o MOUNTPOINT "/dev/$n" 2>/dev/null | grep -v '^$' || true)
	[[ -z $m ]] || die "/dev/$n: mounted on $m; refusing to format it"
	if grep -q "^/dev/${n}[0-9p ]" /proc/swaps 2>/dev/null; then
		die "/dev/$n: in use as swap; refusing to format it"
	fi
	for p in /sys/class/block/"$n"/holders/*; do
		[[ -e $p ]] && die "/dev/$n: held by ${p##*/}; refusing to format it"
	done
	for m in / /usr /var /boot /home; do
		root_src=$(findmnt -n -o SOURCE --target "$m" 2>/dev/null || true)
		[[ $root_src == /dev/* ]] || continue
		root_disk=$(kname "$root_src" 2>/dev/null) || continue
		root_disk=$(disk_of "$root_disk")
		[[ $root_disk == "$disk" ]] &&
			die "/dev/$n: on $disk, which holds $m of the running system; refusing to format it"
	done
	return 0
}

print_row() {
	printf '%-5s %-5s %-7s %3s' "$1" "$2" "$3" "$4"
	shift 4
	if [[ $# -eq 1 ]]; then
		printf '  %s\n' "$1"
	else
		printf ' %8s %7s %7s  %8s %7s %7s\n' "$@"
	fi
}

# The archive name of one lab capture: the disk first, so that labs on
# two disks can share a folder.
lab_name() {
	local name="$LAB_DISK-$1-cache-$2-barrier-$3-run$4"
	[[ -n $NAME_PREFIX ]] && name="$NAME_PREFIX-$name"
	echo "$name"
}

# Refuses to start when an archive the lab would write is in OUTDIR
# already: nothing there is overwritten, and finding out after an hour
# of recording would be too late.
lab_refuse_existing() {
	local fs cache barrier run a
	for fs in ${1//,/ }; do
		for cache in ${2//,/ }; do
			for barrier in ${3//,/ }; do
				lab_barrier_opts "$fs" "$barrier" >/dev/null || continue
				for ((run = $4; run < $4 + $5; run++)); do
					a=$OUTDIR/$(lab_name "$fs" "$cache" "$barrier" "$run").tar.gz
					[[ ! -e $a ]] ||
						die "$a exists; not overwriting it (--first-run, --name or -o give new names)"
				done
				a=$OUTDIR/warmup/$(lab_name "$fs" "$cache" "$barrier" "$4")-warmup.tar.gz
				[[ ! -e $a ]] ||
					die "$a exists; not overwriting it (--first-run, --name or -o give new names)"
			done
		done
	done
}

# The order of one round of the lab: the configurations' indexes 0..N-1
# shuffled (Fisher-Yates) from SEED, on one line.  awk's generator, so
# the order is recorded (capture.conf lab_round_order), not recomputed.
lab_order() {
	awk -v n="$1" -v seed="$2" 'BEGIN {
		srand(seed)
		for (i = 0; i < n; i++) p[i] = i
		for (i = n - 1; i > 0; i--) { j = int(rand() * (i + 1)); t = p[i]; p[i] = p[j]; p[j] = t }
		for (i = 0; i < n; i++) printf "%d%s", p[i], (i < n - 1 ? " " : "\n")
	}'
}

# Records configuration $1..$5 as run $4; $6 is measured or warmup (saved
# in OUTDIR/warmup/, named ...-runN-warmup, where a comparison of
# OUTDIR/*.tar.gz does not see it).  LAB_POS, ORDER_SEED and ROUND_ORDER
# say where it came in the invocation.
lab_capture() {
	local fs=$1 cache=$2 barrier=$3 run=$4 opts=$5 role=$6 name j method mopts
	local rec_start rec_end copy rot outdir=$OUTDIR
	name=$(lab_name "$fs" "$cache" "$barrier" "$run")
	if [[ $role == warmup ]]; then
		name+=-warmup
		OUTDIR=$OUTDIR/warmup
	fi
	say "$name: preparing"
	# before capture_begin: its vm_dirty_* say what the copy ran under
	[[ -z $MEMORY ]] || vm_dirty_set "$MEMORY_BYTES"
	capture_begin "$name"
	TRACE_DEVS=("$DST_DISK")
	[[ -z ${SRC_DEV[$fs]:-} ]] || TRACE_DEVS+=("${SRC_DEV[$fs]}")
	SRC_TREE=${SRC_TREE_OF[$fs]}
	if [[ -n $DISK_FILE ]]; then
		# a fresh model disk on a fresh image: every configuration
		# starts from the same state
		rm -f "$WORK/dst.img"
		truncate -s "$IMG_BYTES" "$WORK/dst.img"
		if [[ $ONE_DISK == 1 ]]; then
			# the destination first, the source after it: two
			# partitions of one disk (prepared in lab_main)
			disk_start "$WORK/dst.img" "$cache" "${SRC_IMG[$fs]}"
		else
			disk_start "$WORK/dst.img" "$cache"
		fi
		loop_attach "$DISK_MNT/disk" --direct-io=on
		DST_PART=$(kname "$LOOP_DEV")
		DST_DISK=$DST_PART
		TRACE_DEVS=("$DST_DISK" "${TRACE_DEVS[@]:1}")
		if [[ $ONE_DISK == 1 ]]; then
			loop_attach "$DISK_MNT/disk1" --direct-io=on --read-only
			ONE_SRC=$(kname "$LOOP_DEV")
			TRACE_DEVS=("$DST_DISK" "$ONE_SRC")
			mount_fs "/dev/$ONE_SRC" "${SRC_TREE%/tree}" -t "${SRC_FS_OF[$fs]}" -o ro
		fi
		# a loop device over FUSE says it does not rotate; the model
		# disk says what it is (put back before the device is detached:
		# the setting outlives the attachment)
		for d in "${TRACE_DEVS[@]}"; do
			[[ $d == "$DST_DISK" || $ONE_DISK == 1 ]] || continue
			rot=/sys/block/$d/queue/rotational
			[[ -w $rot ]] || continue
			CACHE_RESTORE+=("$d rotational $(cat "$rot")")
			if "$WCDISK" --disk "$DISK_FILE" "${DISK_PARAMS[@]}" --print-params |
				grep -x 'model = hdd' >/dev/null; then
				echo 1 >"$rot"
			else
				echo 0 >"$rot"
			fi
		done
	fi
	conf devices "${TRACE_DEVS[*]}"
	conf destination "$DST_DISK"
	for d in "${TRACE_DEVS[@]}"; do
		if [[ $d == "$DST_DISK" ]]; then
			conf_device "$d" destination
		else
			conf_device "$d" source
		fi
	done
	conf fs "$fs"
	conf run "$run"
	conf run_role "$role"
	conf lab_position "$LAB_POS"
	conf lab_order_seed "$ORDER_SEED"
	conf lab_round_order "$ROUND_ORDER"
	if [[ -n $DISK_FILE ]]; then
		conf disk_model "$DISK_NAME"
		# the ledger's region column, 0, 1, ...: these devices
		if [[ $ONE_DISK == 1 ]]; then
			conf disk_regions "$DST_DISK $ONE_SRC"
		else
			conf disk_regions "$DST_DISK"
		fi
		# where the regions lie on the platter (the what-if replays
		# them there): wcdisk's own placement, as it served them
		local place_imgs=("$WORK/dst.img") offs
		[[ $ONE_DISK == 1 ]] && place_imgs+=("${SRC_IMG[$fs]}")
		"$WCDISK" --disk "$DISK_FILE" "${DISK_PARAMS[@]}" "${PLACE_ARGS[@]}" \
			--print-placement "${place_imgs[@]}" >"$STAGE/info/placement.tsv" ||
			die "$name: wcdisk --print-placement failed"
		conf disk_placement "$PLACEMENT"
		conf disk_capacity_bytes "$(awk -F '\t' 'NR == 1 { print $2 }' "$STAGE/info/placement.tsv")"
		offs=$(awk -F '\t' 'NR > 2 { printf "%s%s", sep, $2; sep = " " }' "$STAGE/info/placement.tsv")
		conf disk_offsets "$offs"
		"$WCDISK" --disk "$DISK_FILE" "${DISK_PARAMS[@]}" -p "write_cache=$cache" \
			--print-params >"$STAGE/info/disk.conf"
	fi
	fs_mkfs "$fs" "/dev/$DST_PART" >"$STAGE/info/mkfs.txt" 2>&1 ||
		die "$name: mkfs.$fs /dev/$DST_PART failed: $(tail -n 2 "$STAGE/info/mkfs.txt" | tr '\n' ' ')"
	mount_fs "/dev/$DST_PART" "$WORK/dst" -t "$fs" -o "$opts"
	mopts=$(findmnt -n -o OPTIONS --mountpoint "$WORK/dst")
	conf mount_options "$mopts"
	cache_set "$DST_DISK" "$cache" ||
		die "$DST_DISK: cannot turn the write cache $cache"
	method=$CACHE_METHOD
	conf write_cache "$(cache_state "$DST_DISK")"
	[[ $method == hdparm ]] && conf write_cache "$cache"
	# The model itself is write-through or not (wcdisk's write_cache);
	# the kernel is told as a real disk would tell it.
	[[ -n $DISK_FILE ]] && method=model
	conf write_cache_method "$method"
	conf barrier "$barrier"
	if [[ $fs == xfs && $barrier == off ]]; then
		# lab_barrier_opts: the kernel is told the disk writes
		# through; the model caches as write_cache says
		cache_set "$DST_DISK" off ||
			die "$DST_DISK: cannot tell the kernel the disk writes through (XFS without barriers)"
		conf write_cache "$cache"
		conf barrier_method kernel-write-through
	else
		conf barrier_method mount
	fi
	if j=$(journal_locate "$DST_PART" "$fs" "$STAGE/info/journal.txt"); then
		read -r js jn <<<"$j"
		conf journal_start_sector "$((js + $(part_start "$DST_PART")))"
		conf journal_sectors "$jn"
	else
		conf journal_guessed "$j"
	fi
	conf workload "$WORKLOAD_KIND"
	conf lab_workload "$WORKLOAD"
	if [[ -n $MEMORY ]]; then
		conf copy_memory_limit "$MEMORY"
		conf lab_vm_dirty "$VM_SET"
		conf lab_vm_dirty_host "$(vm_dirty_found)"
		conf lab_memcg "$(memcg_v2 && echo v2 || echo v1)"
	fi
	conf source_files "$SRC_FILES"
	conf source_bytes "$SRC_BYTES"
	conf source_fs "${SRC_FS_OF[$fs]:-unknown}"
	conf source_where "$SRC_WHERE"
	conf source_one "$SRC_ONE"
	case $fs in
	xfs) xfs_info "$WORK/dst" >"$STAGE/info/xfs_info.txt" 2>&1 || true ;;
	*) dumpe2fs -h "/dev/$DST_PART" >"$STAGE/info/dumpe2fs.txt" 2>&1 || true ;;
	esac
	info_collect "${TRACE_DEVS[@]}"
	sync
	echo 3 >/proc/sys/vm/drop_caches
	test_stop prepare
	rec_start=$(now_ns)
	recorder_start "$STAGE/trace" "$STAGE/info/recorder.log" "${TRACE_DEVS[@]}"
	COUNTED=("${TRACE_DEVS[@]}")
	[[ " ${TRACE_DEVS[*]} " == *" $DST_PART "* ]] || COUNTED+=("$DST_PART")
	counters_take before "${COUNTED[@]}"
	say "$name: copy"
	PHASE_TIMES=""
	exec 3>>"$STAGE/info/workload.log"
	copy=copy_tree
	[[ $WORKLOAD == fsync ]] && copy=copy_tree_fsync
	if [[ -n $MEMORY ]]; then
		memcg_create "$MEMORY_BYTES"
		phase copy in_memcg "$copy" "$SRC_TREE" "$WORK/dst/tree" ||
			die "$name: copy failed: $(tail -n 1 "$STAGE/info/workload.log")"
		memcg_remove
	else
		phase copy "$copy" "$SRC_TREE" "$WORK/dst/tree" ||
			die "$name: copy failed: $(tail -n 1 "$STAGE/info/workload.log")"
	fi
	say "$name: delete"
	phase delete delete_tree "$WORK/dst/tree" ||
		die "$name: delete failed: $(tail -n 1 "$STAGE/info/workload.log")"
	exec 3>&-
	if [[ -n $DISK_FILE ]]; then
		durable "$name"
		# the rows of requests served before the recorder stops (a
		# journal commit after the workload, served as the recorder
		# stops, would be in the ledger and not in the trace);
		# wcdisk writes each row as it answers
		rec_end=$(now_ns)
		awk -F '\t' -v a="$rec_start" -v b="$rec_end" \
			'NR == 1 || ($7 >= a && $9 <= b)' "$WORK/disk-ledger.tsv" >"$STAGE/ledger.tsv"
	fi
	capture_end
	vm_dirty_restore
	umount_fs "$WORK/dst"
	cache_restore_all
	if [[ -n $DISK_FILE ]]; then
		if [[ $ONE_DISK == 1 ]]; then
			umount_fs "${SRC_TREE%/tree}"
			loop_detach "/dev/$ONE_SRC"
		fi
		loop_detach "/dev/$DST_DISK"
		disk_stop || die "$name: wcdisk failed: $(tail -n 1 "$WORK/wcdisk.log")"
	fi
	OUTDIR=$outdir
	[[ $role == warmup ]] && run=w
	# shellcheck disable=SC2086 # PHASE_TIMES is a list of numbers
	ROWS+=("$(print_row "$fs" "$cache" "$barrier" "$run" $PHASE_TIMES)")
}

lab_main() {
	local fs_list=xfs,ext3,ext4 cache_list=on,off barrier_list=on,off
	local files=2000 size=80M source="" device="" destroy=0 runs=1 first_run=1
	local image_size="" recorder=auto fs cache barrier run opts why img bytes
	local disk=hdd7200 disk_set=0 scale="" files_set=0 size_set=0 memory=""
	local warmup=1 seed="" one_disk="" placement="" source_fs=ext4
	NAME_PREFIX=""
	DISK_PARAMS=()
	WORKLOAD=tree
	local args
	HELP_HINT="wccapture lab --help"
	args=$(getopt -n "$PROG" -o o:h -l fs:,cache:,barrier:,files:,size:,source:,device:,destroy-data,image-size:,runs:,first-run:,warmup:,order-seed:,recorder:,name:,output:,disk:,disk-param:,workload:,scale:,memory:,one-disk:,placement:,source-fs:,help -- "$@") ||
		{ say "try '$HELP_HINT'"; exit 2; }
	eval set -- "$args"
	while true; do
		case $1 in
		--placement) placement=$2; shift 2 ;;
		--fs) fs_list=$2; shift 2 ;;
		--cache) cache_list=$2; shift 2 ;;
		--barrier) barrier_list=$2; shift 2 ;;
		--files) files=$2; files_set=1; shift 2 ;;
		--size) size=$2; size_set=1; shift 2 ;;
		--disk) disk=$2; disk_set=1; shift 2 ;;
		--disk-param) DISK_PARAMS+=(-p "$2"); shift 2 ;;
		--workload) WORKLOAD=$2; shift 2 ;;
		--scale) scale=$2; shift 2 ;;
		--memory) memory=$2; shift 2 ;;
		--source-fs) source_fs=$2; shift 2 ;;
		--one-disk) one_disk=$2; shift 2 ;;
		--source) source=$2; shift 2 ;;
		--device) device=$2; shift 2 ;;
		--destroy-data) destroy=1; shift ;;
		--image-size) image_size=$2; shift 2 ;;
		--runs) runs=$2; shift 2 ;;
		--first-run) first_run=$2; shift 2 ;;
		--warmup) warmup=$2; shift 2 ;;
		--order-seed) seed=$2; shift 2 ;;
		--recorder) recorder=$2; shift 2 ;;
		--name) NAME_PREFIX=$2; shift 2 ;;
		-o | --output) OUTDIR=$2; shift 2 ;;
		-h | --help) usage; help_lab; exit 0 ;;
		--) shift; break ;;
		esac
	done
	[[ $# -eq 0 ]] || usage_error "lab: unexpected argument '$1'"
	local f
	for f in ${fs_list//,/ }; do
		[[ $f == xfs || $f == ext3 || $f == ext4 ]] || usage_error "--fs: '$f' is not xfs, ext3 or ext4"
	done
	for f in ${cache_list//,/ }; do
		[[ $f == on || $f == off ]] || usage_error "--cache: '$f' is not on or off"
	done
	for f in ${barrier_list//,/ }; do
		[[ $f == on || $f == off ]] || usage_error "--barrier: '$f' is not on or off"
	done
	case $WORKLOAD in
	tree) WORKLOAD_KIND="copy-delete" ;;
	fsync) WORKLOAD_KIND="fsync-copy-delete" ;;
	seed)
		WORKLOAD_KIND="copy-delete"
		[[ $files_set == 0 && $size_set == 0 ]] ||
			usage_error "--workload seed has its own tree: use --scale, not --files or --size"
		# The report's tree: 800 MB in 4,000 files; --scale shrinks both.
		[[ -z $scale ]] && scale=1
		[[ $scale =~ ^(0?\.[0-9]*[1-9][0-9]*|1(\.0*)?)$ ]] ||
			usage_error "--scale: '$scale' is not a fraction in (0, 1]"
		files=$(awk -v s="$scale" 'BEGIN { n = int(4000 * s + 0.5); print (n < 1 ? 1 : n) }')
		size=$(awk -v s="$scale" 'BEGIN { printf "%d", 800 * 1024 * 1024 * s }')
		;;
	*) usage_error "--workload: '$WORKLOAD' is not tree, seed or fsync" ;;
	esac
	[[ -z $scale || $WORKLOAD == seed ]] || usage_error "--scale applies to --workload seed"
	[[ $files =~ ^[1-9][0-9]*$ ]] || usage_error "--files: '$files' is not a positive number"
	[[ $runs =~ ^[1-9][0-9]*$ ]] || usage_error "--runs: '$runs' is not a positive number"
	[[ $first_run =~ ^[1-9][0-9]{0,5}$ ]] || usage_error "--first-run: '$first_run' is not a positive number"
	[[ $warmup =~ ^[0-9]{1,3}$ ]] || usage_error "--warmup: '$warmup' is not a number of captures"
	[[ -z $seed || $seed =~ ^[0-9]{1,9}$ ]] || usage_error "--order-seed: '$seed' is not a number"
	[[ -n $seed ]] || seed=$(((RANDOM << 15 | RANDOM) % 1000000000))
	ORDER_SEED=$seed
	bytes=$(parse_size "$size") || usage_error "--size: '$size' is not a size (such as 80M)"
	case $recorder in auto | blktrace | tracefs) ;; *) usage_error "--recorder: '$recorder' is not auto, blktrace or tracefs" ;; esac
	[[ -z $source || -d $source ]] || usage_error "--source: '$source' is not a directory"
	case $source_fs in
	xfs | ext3 | ext4 | each) ;;
	*) usage_error "--source-fs: '$source_fs' is not xfs, ext3, ext4 or each" ;;
	esac
	MEMORY="" MEMORY_BYTES=""
	# The seed workload runs in the memory of the report's machine, a
	# desktop of 2008 (1 to 2 GB): the smaller, unless told otherwise.
	[[ -z $memory && $WORKLOAD == seed ]] && memory=$SEED_MEMORY
	[[ $memory == off ]] && memory=""
	if [[ -n $memory ]]; then
		MEMORY_BYTES=$(parse_size "$memory") || usage_error "--memory: '$memory' is not a size (such as 256M)"
		((MEMORY_BYTES >= 16 * 1024 * 1024)) || usage_error "--memory: '$memory' is below 16M"
		MEMORY=$memory
		[[ -n $(memcg_root) ]] ||
			die "--memory $memory: no memory cgroup controller here ('--memory off' runs the copy without)"
	fi
	DISK_NAME="" DISK_FILE=""
	if [[ -n $device ]]; then
		[[ $disk_set == 0 && ${#DISK_PARAMS[@]} -eq 0 ]] ||
			usage_error "--disk: --device is a real disk; a model disk replaces only the lab's loop image"
	else
		DISK_FILE=$(find_disk_file "$disk") || usage_error "--disk: no disk model '$disk' (see capture/disks)"
		DISK_NAME=${disk##*/}
		if grep -qE '^[[:space:]]*model[[:space:]]*=[[:space:]]*none' "$DISK_FILE"; then
			[[ ${#DISK_PARAMS[@]} -eq 0 ]] || usage_error "--disk-param: disk '$disk' has no model"
			DISK_FILE=""
		fi
	fi
	if [[ -n $device ]]; then
		[[ $destroy == 1 ]] || usage_error "--device $device erases it: add --destroy-data to confirm"
		block_device "$device"
		DST_PART=$BLOCK_DEV
	fi
	case $one_disk in
	on)
		[[ -n $DISK_FILE && -z $device ]] ||
			usage_error "--one-disk on: needs a model disk (--disk other than loop, no --device)"
		ONE_DISK=1
		;;
	off) ONE_DISK=0 ;;
	"")
		ONE_DISK=0
		[[ $WORKLOAD == seed && -n $DISK_FILE && -z $device ]] && ONE_DISK=1
		;;
	*) usage_error "--one-disk: '$one_disk' is not on or off" ;;
	esac
	case $placement in
	partitions | platter)
		[[ -n $DISK_FILE ]] || usage_error "--placement: needs a model disk (--disk other than loop, no --device)"
		PLACEMENT=$placement
		;;
	"")
		PLACEMENT=platter
		[[ $ONE_DISK == 1 ]] && PLACEMENT=partitions
		;;
	*) usage_error "--placement: '$placement' is not partitions or platter" ;;
	esac
	PLACE_ARGS=()
	[[ $PLACEMENT == partitions ]] && PLACE_ARGS=(--offset auto)
	# The model's parameters are checked as the other options are, before
	# anything is done; wcdisk's first line says what is wrong with them.
	if [[ -n $DISK_FILE ]] && WCDISK=$(find_wcdisk); then
		why=$("$WCDISK" --disk "$DISK_FILE" "${DISK_PARAMS[@]}" --print-params 2>&1 >/dev/null) || {
			why=${why%%$'\n'*}
			usage_error "--disk $disk: ${why#wcdisk: }"
		}
	fi
	if [[ -n $device ]]; then
		LAB_DISK=$(disk_of "$DST_PART")
	else
		LAB_DISK=${DISK_NAME//[^A-Za-z0-9._-]/_}
	fi
	lab_refuse_existing "$fs_list" "$cache_list" "$barrier_list" "$first_run" "$runs"
	[[ $(id -u) -eq 0 ]] || die "lab needs root (it formats, mounts and traces devices)"
	WCRECORD=$(find_wcrecord) || die "wcrecord not found next to wccapture, in \$BUILD or in PATH"
	if [[ -n $DISK_FILE ]]; then
		# No silent fallback to a plain loop image: the captures would
		# not be what was asked for.
		if why=$(fuse_missing); then
			die "--disk $disk needs FUSE, which is not usable here: $why; --disk loop records on a plain loop image instead"
		fi
		WCDISK=$(find_wcdisk)
	fi
	OUTDIR=$(mkdir -p "$OUTDIR" && cd "$OUTDIR" && pwd)

	WORK=$(mktemp -d "${TMPDIR:-/var/tmp}/wccapture.XXXXXX")
	mkdir -p "$WORK/out" "$WORK/src" "$WORK/dst"

	if [[ -n $source ]]; then
		SRC_FILES=$(find "$source" -type f | wc -l)
		SRC_BYTES=$(find "$source" -type f -printf '%s\n' | awk '{ s += $1 } END { printf "%d", s }')
	else
		SRC_FILES=$files
		SRC_BYTES=$bytes
	fi
	# Room for the tree plus metadata and the journal; sparse anyway.
	if [[ -n $image_size ]]; then
		img=$(parse_size "$image_size") || usage_error "--image-size: '$image_size' is not a size"
	else
		# whole MiB: wcdisk serves whole sectors only
		img=$(((SRC_BYTES * 2 + 512 * 1024 * 1024 + 1048575) / 1048576 * 1048576))
	fi

	local src_dev="" direct_source=0
	if [[ -n $device ]]; then
		device_check "$DST_PART"
		DST_DISK=$(disk_of "$DST_PART")
		[[ -n $source ]] && direct_source=1
	elif [[ -n $DISK_FILE ]]; then
		# attached per capture, on a fresh wcdisk (lab_capture)
		IMG_BYTES=$img
		DST_PART=none DST_DISK=none
	else
		truncate -s "$img" "$WORK/dst.img"
		loop_attach "$WORK/dst.img"
		DST_PART=$(kname "$LOOP_DEV")
		DST_DISK=$DST_PART
	fi
	TRACE_DEVS=("$DST_DISK")
	if [[ $direct_source == 0 ]]; then
		truncate -s "$img" "$WORK/src-0.img"
		loop_attach "$WORK/src-0.img"
		src_dev=$(kname "$LOOP_DEV")
	fi

	if [[ $DST_DISK == none ]]; then
		recorder_choose "$recorder" "$src_dev"
	else
		recorder_choose "$recorder" "$DST_DISK"
	fi
	say "recorder: $REC_KIND ($REC_REASON)"

	# Every file system's source is prepared first, each on its own
	# device of that file system, so that the rounds can interleave
	# configurations of every file system.
	# One source for every configuration (--source-fs FS, ext4 by
	# default): the tree is put once on FS, one image, and every
	# configuration reads that same filesystem, so that only the
	# destination's filesystem, cache and barriers differ; with "each"
	# every file system reads a source of its own kind.
	declare -gA SRC_DEV=() SRC_TREE_OF=() SRC_IMG=() SRC_FS_OF=()
	local nsrc=0 sfs fs0=${fs_list%%,*}
	for fs in ${fs_list//,/ }; do
		if [[ $direct_source == 1 ]]; then
			SRC_TREE_OF[$fs]=$source
			continue
		fi
		sfs=$fs
		[[ $source_fs == each ]] || sfs=$source_fs
		SRC_FS_OF[$fs]=$sfs
		if [[ $source_fs != each ]] && ((nsrc > 0)); then
			SRC_TREE_OF[$fs]=${SRC_TREE_OF[$fs0]}
			[[ -z ${SRC_IMG[$fs0]:-} ]] || SRC_IMG[$fs]=${SRC_IMG[$fs0]}
			[[ -z ${SRC_DEV[$fs0]:-} ]] || SRC_DEV[$fs]=${SRC_DEV[$fs0]}
			continue
		fi
		if ((nsrc > 0)); then
			truncate -s "$img" "$WORK/src-$nsrc.img"
			loop_attach "$WORK/src-$nsrc.img"
			src_dev=$(kname "$LOOP_DEV")
		fi
		nsrc=$((nsrc + 1))
		say "$sfs: preparing the source tree on $src_dev"
		fs_mkfs "$sfs" "/dev/$src_dev" >/dev/null 2>&1
		mount_fs "/dev/$src_dev" "$WORK/src-$sfs" -t "$sfs"
		if [[ -z $source ]]; then
			# Generated once (a fork per file is slow), then
			# copied onto each filesystem's source device.
			[[ -d $WORK/gen ]] ||
				tree_generate "$WORK/gen" "$files" "$bytes"
			source=$WORK/gen
		fi
		cp -a "$source" "$WORK/src-$sfs/tree"
		SRC_TREE_OF[$fs]=$WORK/src-$sfs/tree
		if [[ $ONE_DISK == 1 ]]; then
			# made here, read through the model disk in each
			# capture (lab_capture mounts it there again)
			umount_fs "$WORK/src-$sfs"
			blockdev --flushbufs "/dev/$src_dev"
			SRC_IMG[$fs]=$WORK/src-$((nsrc - 1)).img
			continue
		fi
		# The copy only reads: keep it that way.
		mount -o remount,ro "$WORK/src-$sfs"
		SRC_DEV[$fs]=$src_dev
	done
	# what capture.conf says the source was
	if [[ $direct_source == 1 ]]; then
		SRC_WHERE=directory SRC_ONE=1
	else
		SRC_WHERE=image
		[[ $ONE_DISK == 1 ]] && SRC_WHERE=partition
		SRC_ONE=1
		[[ $source_fs == each && $fs_list == *,* ]] && SRC_ONE=0
	fi

	ROWS=()
	local -a c_fs=() c_cache=() c_barrier=() c_opts=() order=()
	local n i k
	for fs in ${fs_list//,/ }; do
		for cache in ${cache_list//,/ }; do
			for barrier in ${barrier_list//,/ }; do
				if ! opts=$(lab_barrier_opts "$fs" "$barrier"); then
					why=$opts
					say "$fs cache $cache barrier $barrier: not applicable: $why"
					ROWS+=("$(print_row "$fs" "$cache" "$barrier" - "not applicable: $why")")
					continue
				fi
				c_fs+=("$fs") c_cache+=("$cache") c_barrier+=("$barrier") c_opts+=("$opts")
			done
		done
	done
	n=${#c_fs[@]}
	# Run k of every configuration before run k + 1, each round in its
	# own shuffled order: a drift of the host over the hours (load, a
	# warming cache, another build) then falls on every configuration
	# alike instead of on the ones recorded last.
	say "order: seed $ORDER_SEED"
	LAB_POS=0
	for ((run = first_run; run < first_run + runs; run++)); do
		read -r -a order <<<"$(lab_order "$n" "$((ORDER_SEED + run))")"
		ROUND_ORDER=""
		for i in "${order[@]}"; do
			ROUND_ORDER+="${ROUND_ORDER:+ }${c_fs[i]}/${c_cache[i]}/${c_barrier[i]}"
		done
		say "round $run: $ROUND_ORDER"
		if ((run == first_run)); then
			for ((k = 0; k < warmup; k++)); do
				i=${order[k % n]}
				lab_capture "${c_fs[i]}" "${c_cache[i]}" "${c_barrier[i]}" "$run" "${c_opts[i]}" warmup
			done
		fi
		for i in "${order[@]}"; do
			LAB_POS=$((LAB_POS + 1))
			lab_capture "${c_fs[i]}" "${c_cache[i]}" "${c_barrier[i]}" "$run" "${c_opts[i]}" measured
		done
	done
	for fs in ${fs_list//,/ }; do
		[[ $direct_source == 1 || $ONE_DISK == 1 ]] || umount_fs "$WORK/src-${SRC_FS_OF[$fs]}"
	done

	echo
	printf '%-5s %-5s %-7s %3s %26s  %26s\n' "" "" "" "" "------------ copy (s) ----" "---------- delete (s) ----"
	printf '%-5s %-5s %-7s %3s %8s %7s %7s  %8s %7s %7s\n' fs cache barrier run real user sys real user sys
	printf '%s\n' "${ROWS[@]}"
}
