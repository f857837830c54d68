# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
# record.sh - "wccapture record": the disk holding a device traced while
# a command runs.  Sourced by capture/wccapture.

help_record() {
	cat <<'EOF'

record: trace the disk holding DEV while COMMAND runs; nothing is
formatted and no setting is changed.  One archive, NAME.tar.gz.

  --device DEV        the disk or partition to trace (required); repeat
                      it to trace several disks (the source of a copy):
                      the first is the main one
  --name NAME         the archive's name (default record-DISK-DATE)
  --recorder KIND     auto (default), blktrace or tracefs
  -o, --output DIR    where the archive goes (default the current folder);
                      an archive of the same name there is an error, never
                      overwritten
  -h, --help          show this help and exit
EOF
}

record_main() {
	local name="" recorder=auto args part disk fs mopts j js jn status=0 d
	local -a devices=() disks=()
	HELP_HINT="wccapture record --help"
	args=$(getopt -n "$PROG" -o o:h -l device:,name:,recorder:,output:,help -- "$@") ||
		{ say "try '$HELP_HINT'"; exit 2; }
	eval set -- "$args"
	while true; do
		case $1 in
		--device) devices+=("$2"); shift 2 ;;
		--name) name=$2; shift 2 ;;
		--recorder) recorder=$2; shift 2 ;;
		-o | --output) OUTDIR=$2; shift 2 ;;
		-h | --help) usage; help_record; exit 0 ;;
		--) shift; break ;;
		esac
	done
	[[ ${#devices[@]} -gt 0 ]] || usage_error "record: --device is required"
	[[ $# -gt 0 ]] || usage_error "record: no command given (wccapture record --device DEV -- COMMAND)"
	case $recorder in auto | blktrace | tracefs) ;; *) usage_error "--recorder: '$recorder' is not auto, blktrace or tracefs" ;; esac
	[[ $name != */* ]] || usage_error "--name: '$name' must not contain '/'"
	# The first device is the main one (its file system, the journal);
	# the others are traced beside it, each disk once.
	for d in "${devices[@]}"; do
		block_device "$d"
		[[ -n ${part:-} ]] || part=$BLOCK_DEV
		d=$(disk_of "$BLOCK_DEV")
		[[ " ${disks[*]} " == *" $d "* ]] || disks+=("$d")
	done
	disk=${disks[0]}
	[[ -n $name ]] || name="record-$disk-$(date +%Y%m%d-%H%M%S)"
	[[ ! -e $OUTDIR/$name.tar.gz ]] ||
		die "$OUTDIR/$name.tar.gz exists; not overwriting it (--name or -o give a new name)"
	[[ $(id -u) -eq 0 ]] || die "record needs root (it traces a device)"
	WCRECORD=$(find_wcrecord) || die "wcrecord not found next to wccapture, in \$BUILD or in PATH"
	OUTDIR=$(mkdir -p "$OUTDIR" && cd "$OUTDIR" && pwd)

	WORK=$(mktemp -d "${TMPDIR:-/var/tmp}/wccapture.XXXXXX")
	mkdir -p "$WORK/out"

	recorder_choose "$recorder" "$disk"
	say "recorder: $REC_KIND ($REC_REASON)"
	capture_begin "$name"
	conf devices "${disks[*]}"
	conf destination "$disk"
	conf_device "$disk" disk
	for d in "${disks[@]:1}"; do
		conf_device "$d" other
	done
	fs=$(findmnt -n -o FSTYPE --source "/dev/$part" 2>/dev/null | sed -n 1p || true)
	mopts=$(findmnt -n -o OPTIONS --source "/dev/$part" 2>/dev/null | sed -n 1p || true)
	case $fs in xfs | ext3 | ext4) ;; *) fs=unknown ;; esac
	conf fs "$fs"
	conf mount_options "$mopts"
	conf write_cache "$(cache_state "$disk")"
	conf write_cache_method none
	case $fs:,$mopts, in
	unknown:*) conf barrier unknown ;;
	*,nobarrier,* | *,barrier=0,*) conf barrier off ;;
	*) conf barrier on ;;
	esac
	if [[ $fs == unknown ]]; then
		conf journal_guessed "no xfs, ext3 or ext4 file system is mounted from $part"
	elif j=$(journal_locate "$part" "$fs" "$STAGE/info/journal.txt" 2>/dev/null); then
		read -r js jn <<<"$j"
		conf journal_start_sector "$((js + $(part_start "$part")))"
		conf journal_sectors "$jn"
	else
		conf journal_guessed "$j"
	fi
	conf workload command
	conf command "$*"
	info_collect "${disks[@]}"
	case $fs in
	xfs) xfs_info "/dev/$part" >"$STAGE/info/xfs_info.txt" 2>&1 || true ;;
	ext3 | ext4) dumpe2fs -h "/dev/$part" >"$STAGE/info/dumpe2fs.txt" 2>&1 || true ;;
	esac
	recorder_start "$STAGE/trace" "$STAGE/info/recorder.log" "${disks[@]}"
	COUNTED=("${disks[@]}")
	[[ " ${disks[*]} " == *" $part "* ]] || COUNTED+=("$part")
	counters_take before "${COUNTED[@]}"
	say "$name: running $* (tracing ${disks[*]})"
	PHASE_TIMES=""
	exec 3>&2
	phase command "$@" || status=$?
	conf command_status "$status"
	capture_end
	[[ $status -eq 0 ]] || die "command exited with status $status"
}
