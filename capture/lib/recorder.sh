# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
# recorder.sh - choosing, starting and stopping the trace recorder
# (blktrace, or wcrecord on tracefs).  Sourced by capture/wccapture.

TRACEFS=/sys/kernel/tracing
TRACEFS_MOUNTED=0

# Mounts tracefs where it is missing, as wcrecord, trace-cmd and
# libtracefs do: this script waits on the tracer and may have to reset
# it.  Noted first, as mount_fs does; cleanup unmounts only this mount.
tracefs_mount() {
	[[ -e $TRACEFS/current_tracer ]] && return 0
	TRACEFS_MOUNTED=1
	mount -t tracefs nodev "$TRACEFS" ||
		die "$TRACEFS: tracefs is not mounted and mounting it failed"
}

# Why kernel lockdown refuses blktrace here, or fails when it does not
# say so.  Integrity and confidentiality both restrict debugfs, where
# blktrace's relay files are (docs/wccapture.8, "The recorder"); without
# securityfs mounted, the boot command line says the mode.
# $WCCAPTURE_LOCKDOWN: another file to read instead (for the tests).
lockdown_refuses() {
	local f=${WCCAPTURE_LOCKDOWN:-/sys/kernel/security/lockdown} mode=""
	if [[ -r $f ]]; then
		[[ $(cat "$f") =~ \[([a-z]+)\] ]] && mode=${BASH_REMATCH[1]}
	elif [[ -z ${WCCAPTURE_LOCKDOWN:-} ]]; then
		[[ $(cat /proc/cmdline 2>/dev/null) =~ (^|[[:space:]])lockdown=([a-z]+) ]] &&
			mode=${BASH_REMATCH[2]}
	fi
	case $mode in
	integrity | confidentiality)
		echo "kernel lockdown ($mode) refuses blktrace's debugfs relay files"
		;;
	*) return 1 ;;
	esac
}

# Chooses the recorder for the devices in $@; sets REC_KIND, REC_REASON.
recorder_choose() {
	local want=$1 dev=$2 out rc why
	REC_KIND="" REC_REASON=""
	if [[ $want == tracefs ]]; then
		REC_KIND=tracefs REC_REASON="requested with --recorder tracefs"
		return 0
	fi
	# No 2-second probe where the kernel says it would fail.
	if why=$(lockdown_refuses); then
		[[ $want == blktrace ]] && die "blktrace: cannot record: $why (--recorder tracefs records through the blk tracer)"
		REC_KIND=tracefs REC_REASON="$why; blktrace not tried"
		return 0
	fi
	if ! command -v blktrace >/dev/null 2>&1; then
		[[ $want == blktrace ]] && die "blktrace: not installed"
		REC_KIND=tracefs REC_REASON="blktrace is not installed"
		return 0
	fi
	if ! mountpoint -q /sys/kernel/debug; then
		mount -t debugfs debugfs /sys/kernel/debug && DEBUGFS_MOUNTED=1
	fi
	# blktrace hangs when its relay threads fail (timeout's 124 then), so
	# give it a deadline; -w 1 ends a working one with status 0.
	rc=0
	out=$(timeout -s INT 2 blktrace -d "/dev/$dev" -w 1 -o - 2>&1 >/dev/null) || rc=$?
	if [[ $rc -eq 0 ]]; then
		REC_KIND=blktrace
		REC_REASON="blktrace works here"
		[[ $want == blktrace ]] && REC_REASON="requested with --recorder blktrace"
		return 0
	fi
	out="blktrace exited with status $rc${out:+: ${out%%$'\n'*}}"
	[[ $want == blktrace ]] && die "blktrace: cannot record: $out"
	REC_KIND=tracefs
	REC_REASON="blktrace failed (kernel lockdown refuses its debugfs relay files): $out"
}

# Starts recording devices $2.. into directory $1 (trace files).
recorder_start() {
	local dir=$1 log=$2 d i args=()
	shift 2
	for d in "$@"; do
		TRACED+=("$d")
		args+=(-d "/dev/$d")
	done
	mkdir -p "$dir"
	rm -f "$WORK/ready" "$WORK/recstats"
	case $REC_KIND in
	tracefs)
		tracefs_mount
		# The blk tracer has one user at a time; another may be
		# finishing (a test, a previous run): give it a minute.
		for ((i = 0; i < 600; i++)); do
			[[ $(cat "$TRACEFS/current_tracer" 2>/dev/null) != blk ]] && break
			((i == 0)) && say "tracefs: the blk tracer is in use; waiting up to a minute"
			sleep 0.1
		done
		"$WCRECORD" "${args[@]}" -o "$dir" --ready "$WORK/ready" \
			--stats "$WORK/recstats" --undo "$WORK/undo" 2>>"$log" &
		REC_PID=$!
		for ((i = 0; i < 200; i++)); do
			[[ -e $WORK/ready ]] && return 0
			kill -0 "$REC_PID" 2>/dev/null || break
			sleep 0.05
		done
		;;
	blktrace)
		blktrace "${args[@]}" -D "$dir" >>"$log" 2>&1 &
		REC_PID=$!
		for ((i = 0; i < 200; i++)); do
			[[ -e $dir/$1.blktrace.0 ]] && { sleep 0.2; return 0; }
			kill -0 "$REC_PID" 2>/dev/null || break
			sleep 0.05
		done
		;;
	esac
	wait "$REC_PID" 2>/dev/null || true
	REC_PID=""
	die "recorder failed to start: $(tail -n 1 "$log" 2>/dev/null)"
}

# Stops the recorder; sets REC_DROPPED.  Safe to call when none runs.
recorder_stop() {
	local rc=0 log=${1:-}
	REC_DROPPED=unknown
	[[ -n $REC_PID ]] || return 0
	kill -TERM "$REC_PID" 2>/dev/null
	wait "$REC_PID" || rc=$?
	REC_PID=""
	if [[ $REC_KIND == tracefs && -e $WORK/recstats ]]; then
		REC_DROPPED=$(sed -n 's/^events_dropped = //p' "$WORK/recstats")
	elif [[ $REC_KIND == blktrace && -n $log ]]; then
		REC_DROPPED=$(sed -n 's/.*You have \([0-9]*\).*dropped events.*/\1/p; T; q' "$log")
		[[ -n $REC_DROPPED ]] || REC_DROPPED=0
	fi
	return "$rc"
}
