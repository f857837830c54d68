# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
# capture.sh - one capture from its start to its archive: where the
# journal lies, what is kept about the devices and the host, the kernel's
# counters, the phases' times, and the archive (docs/capture-format.md).
# Sourced by capture/wccapture.

FORMAT_VERSION=1

# ---------------------------------------------------------------- journal
# journal_why FILE TOOL DEV: why TOOL could not read DEV's journal, one
# line for capture.conf's journal_guessed: TOOL's own first error line in
# FILE ("dumpe2fs: Permission denied while trying to open /dev/sda1"),
# printable ASCII only (wcanalyze refuses any other byte), at most 200
# bytes.
journal_why() {
	local l
	l=$(LC_ALL=C sed -n "/^$2: /{p;q}" "$1" 2>/dev/null | LC_ALL=C tr -c '[:print:]\n' '?' | cut -c1-200)
	[[ -n $l ]] || l="$2 could not read the file system on $3"
	printf '%s\n' "$l"
}

# Prints "START SECTORS" of the journal of the filesystem on /dev/$1, in
# 512-byte sectors from the start of that device; details go to $3.
# Where it cannot, prints why (journal_why) and fails: wcanalyze then
# guesses the journal from flags, and says so with that reason.
journal_locate() {
	local dev=/dev/$1 fs=$2 info=$3 err=$WORK/journal.err out bs agblocks agblklog logstart logblocks
	local agno agbno blocks lo hi r a b
	case $fs in
	xfs)
		out=$(LC_ALL=C xfs_db -r -c 'sb 0' -c 'p blocksize agblocks agblklog logstart logblocks' "$dev" 2>"$err") || true
		printf '%s\n' "$out" >>"$info"
		bs=$(sed -n 's/^blocksize = //p' <<<"$out")
		agblocks=$(sed -n 's/^agblocks = //p' <<<"$out")
		agblklog=$(sed -n 's/^agblklog = //p' <<<"$out")
		logstart=$(sed -n 's/^logstart = //p' <<<"$out")
		logblocks=$(sed -n 's/^logblocks = //p' <<<"$out")
		if [[ -z $bs || -z $logstart || -z $logblocks ]]; then
			journal_why "$err" xfs_db "$1"
			return 1
		fi
		# logstart 0: the log is on another device; nothing to say here.
		if [[ $logstart == 0 ]]; then
			echo "the XFS log of $1 is on another device (logstart 0)"
			return 1
		fi
		agno=$((logstart >> agblklog))
		agbno=$((logstart & ((1 << agblklog) - 1)))
		xfs_db -r -c "convert fsb $logstart daddr" "$dev" >>"$info" 2>&1 || true
		echo "$(((agno * agblocks + agbno) * bs / 512)) $((logblocks * bs / 512))"
		;;
	ext3 | ext4)
		bs=$(LC_ALL=C dumpe2fs -h "$dev" 2>"$err" | sed -n 's/^Block size: *//p') || true
		if [[ -z $bs ]]; then
			journal_why "$err" dumpe2fs "$1"
			return 1
		fi
		out=$(LC_ALL=C debugfs -R 'stat <8>' "$dev" 2>"$err") || true
		printf 'block size %s\n%s\n' "$bs" "$out" >>"$info"
		# EXTENTS (ext4) or BLOCKS with IND/DIND (ext3): the journal
		# spans the lowest to the highest physical block listed.
		blocks=$(sed -n '/^\(EXTENTS\|BLOCKS\):/,$p' <<<"$out" | tail -n +2 |
			grep -oE ':[0-9]+(-[0-9]+)?' | tr -d ':' || true)
		if [[ -z $blocks ]]; then
			if grep -q '^debugfs: ' "$err"; then
				journal_why "$err" debugfs "$1"
			else
				echo "debugfs lists no blocks of the journal (inode 8) of $1"
			fi
			return 1
		fi
		lo="" hi=""
		for r in $blocks; do
			a=${r%-*} b=${r#*-}
			[[ -z $lo || $a -lt $lo ]] && lo=$a
			[[ -z $hi || $b -gt $hi ]] && hi=$b
		done
		echo "$((lo * bs / 512)) $(((hi - lo + 1) * bs / 512))"
		;;
	*)
		echo "$fs on $1: not a file system whose journal this tool locates (xfs, ext3, ext4)"
		return 1
		;;
	esac
}

# ---------------------------------------------------------------- archive
# The device's command timeout in ms, or nothing when it has none: the
# queue's io_timeout (ms), else the SCSI device's timeout (s); a
# partition's are its disk's.  wcanalyze pairs no completion with a
# dispatch older than that (docs/methodology.md, "No invented pairing").
dev_timeout_ms() {
	local q=/sys/class/block/$1 v
	[[ -e $q/partition ]] && q=$q/..
	if v=$(cat "$q/queue/io_timeout" 2>/dev/null) && [[ $v =~ ^[0-9]+$ ]]; then
		echo "$v"
	elif v=$(cat "$q/device/timeout" 2>/dev/null) && [[ $v =~ ^[0-9]+$ ]]; then
		echo "$((v * 1000))"
	fi
}

# The device's blk-mq hardware queues (/sys/block/DEV/mq/N, one folder
# each), or nothing when it has none (bio-based, or a kernel before
# blk-mq); a partition's are its disk's.  With one, a flush completion
# is the newest flush dispatch's (docs/methodology.md).
dev_hw_queues() {
	local q=/sys/class/block/$1 n=0 e
	[[ -e $q/partition ]] && q=$q/..
	for e in "$q"/mq/*; do
		[[ -d $e ]] && n=$((n + 1))
	done
	[[ $n == 0 ]] || echo "$n"
}

conf_device() {
	local d=$1 role=$2 t
	conf "device.$d.dev" "$(cat "/sys/class/block/$d/dev")"
	conf "device.$d.role" "$role"
	conf "device.$d.rotational" "$(cat "/sys/block/$d/queue/rotational" 2>/dev/null || echo 0)"
	t=$(dev_timeout_ms "$d")
	[[ -z $t || $t == 0 ]] || conf "device.$d.timeout_ms" "$t"
	t=$(dev_hw_queues "$d")
	[[ -z $t ]] || conf "device.$d.hw_queues" "$t"
}

# Writes raw facts for people into $STAGE/info.
info_collect() {
	local i=$STAGE/info d
	uname -a >"$i/uname.txt"
	cat /proc/self/mounts >"$i/mounts.txt"
	for d in "$@"; do
		grep -H . "/sys/block/$d/queue/"* >"$i/queue-$d.txt" 2>/dev/null || true
		# hdparm succeeds with only a header on devices that do not
		# answer ATA IDENTIFY (loop, virtio): keep real answers only.
		if ! hdparm -I "/dev/$d" >"$i/hdparm-$d.txt" 2>&1 ||
			[[ $(grep -c . "$i/hdparm-$d.txt") -le 2 ]]; then
			rm -f "$i/hdparm-$d.txt"
		fi
		[[ -e /sys/block/$d/loop/backing_file ]] &&
			losetup -l "/dev/$d" >"$i/losetup-$d.txt" 2>&1
	done
	cat /sys/kernel/security/lockdown >"$i/lockdown.txt" 2>/dev/null ||
		grep -o 'lockdown=[a-z]*' /proc/cmdline >"$i/lockdown.txt" 2>/dev/null || true
	return 0
}

# The commit of the tools' source tree, when they run from a git checkout
# (a build from it), else "unknown": two captures that differ here ran
# different code even with one tool_version.
tool_commit() {
	local here
	here=$HERE
	git -C "$here" rev-parse --short=12 HEAD 2>/dev/null || echo unknown
}

# A value of /proc/meminfo in kB, or "unknown".
meminfo_kb() {
	awk -v k="$1:" '$1 == k { print $2; found = 1 } END { if (!found) print "unknown" }' /proc/meminfo 2>/dev/null ||
		echo unknown
}

# The host's state when a capture begins (docs/capture-format.md, "Host
# state"): what makes two runs of one configuration unlike, so that the
# report can say when compared captures differ in it.
host_state_before() {
	local k
	conf tool_commit "$(tool_commit)"
	conf host_cpus "$(nproc 2>/dev/null || echo unknown)"
	conf host_mem_total_kb "$(meminfo_kb MemTotal)"
	for k in dirty_ratio dirty_background_ratio dirty_bytes dirty_background_bytes \
		dirty_expire_centisecs dirty_writeback_centisecs; do
		conf "vm_$k" "$(cat "/proc/sys/vm/$k" 2>/dev/null || echo unknown)"
	done
	conf host_loadavg_before "$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)"
}

# ... and when its workload has ended: the load, and the dirty page cache
# the workload left (data not yet written when the trace stops).
host_state_after() {
	conf host_loadavg_after "$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)"
	conf host_dirty_kb_end "$(meminfo_kb Dirty)"
}

# The kernel's own I/O counters of the traced devices $2.. (and of a
# partition among them), read as counters.tsv rows $1 (before, after):
# the analysis checks the trace against them (docs/capture-format.md,
# "counters.tsv").  Read while the recorder runs, each between two
# readings of the trace clock.  A device without counters is left out.
counters_take() {
	local when=$1 d
	shift
	[[ -f $STAGE/counters.tsv ]] ||
		printf 'when\tdevice\tdisk\tstart_ns\tend_ns\tstat\n' >"$STAGE/counters.tsv"
	for d in "$@"; do
		"$WCRECORD" --counters "$when" "$d" >>"$STAGE/counters.tsv" 2>/dev/null || true
	done
}

capture_begin() {
	local name=$1
	STAGE=$WORK/out/$name
	rm -rf "$STAGE"
	mkdir -p "$STAGE/trace" "$STAGE/info"
	printf 'phase\tstart_ns\tend_ns\treal_s\tuser_s\tsys_s\n' >"$STAGE/phases.tsv"
	printf 'wccapture %s\n' "$INVOCATION" >"$STAGE/info/command.txt"
	conf_reset
	conf format_version "$FORMAT_VERSION"
	conf name "$name"
	conf tool_version "wccapture $VERSION"
	conf kernel "$(uname -r)"
	conf recorder "$REC_KIND"
	conf recorder_reason "$REC_REASON"
	conf trace_clock mono
	conf complete 0
	host_state_before
}

capture_archive() {
	local name=${STAGE##*/} k rc=0
	test_stop archive
	{
		echo "# wcanalyze capture, see docs/capture-format.md"
		for k in "${CONF_KEYS[@]}"; do
			echo "$k = ${CONF[$k]}"
		done
	} >"$STAGE/capture.conf"
	# The archive's one writer (analyze/lib/input/pack.h): the members
	# in the order a reader wants them, capture.conf announcing the
	# trace files (docs/capture-format.md, "Order"), and no name the
	# reader would refuse.
	mkdir -p "$OUTDIR"
	"$WCRECORD" --pack "$STAGE" >"$OUTDIR/$name.tar.gz.part" 2>&4 || rc=$?
	# mv -n never replaces an archive that appeared in the meantime (the
	# names were checked at the start); the .part is then left.
	[[ $rc != 0 ]] || mv -n "$OUTDIR/$name.tar.gz.part" "$OUTDIR/$name.tar.gz" || rc=$?
	if [[ $rc == 0 && -e $OUTDIR/$name.tar.gz.part ]]; then
		say "$OUTDIR/$name.tar.gz exists; this capture is kept as $name.tar.gz.part"
		rc=1
	fi
	rm -rf "$STAGE"
	STAGE=""
	return $rc
}

# Ends the capture in progress, for lab and record alike: stops the
# recorder, marks the capture complete and archives it.
capture_end() {
	local name=${STAGE##*/} rs=0
	host_state_after
	counters_take after "${COUNTED[@]}"
	recorder_stop "$STAGE/info/recorder.log" || rs=$?
	[[ $rs -eq 0 ]] ||
		die "$name: the recorder failed (exit status $rs): $(tail -n 1 "$STAGE/info/recorder.log")"
	conf events_dropped "$REC_DROPPED"
	[[ $REC_DROPPED == 0 ]] || say "$name: $REC_DROPPED events dropped"
	conf complete 1
	capture_archive
	say "$name: saved $OUTDIR/$name.tar.gz"
}

# Runs "$@" as phase $1 of the capture, timed and marked in the trace
# clock.  The command's stderr goes to fd 3 (the user, or a log), so that
# the group's stderr carries only what "time" reports.
PHASE_TIMES=""
phase() {
	local name=$1 start end t r u s rc=0
	shift
	test_stop "$name"
	t=$WORK/time.$name
	start=$(now_ns)
	TIMEFORMAT='%3R %3U %3S'
	{ time "$@" 2>&3; } 2>"$t" || rc=$?
	end=$(now_ns)
	read -r r u s <"$t"
	printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$start" "$end" "$r" "$u" "$s" >>"$STAGE/phases.tsv"
	PHASE_TIMES+=" $r $u $s"
	return "$rc"
}
