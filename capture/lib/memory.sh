# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
# memory.sh - the lab's copy under a memory limit: its memory cgroup and
# the write-back limits set for it.  Sourced by capture/wccapture.

# --memory SIZE: the copy runs in a memory cgroup of that size, so its
# page cache is short and writeback happens during the copy, as on the
# reporter's machine.  The group exists only around the copy.
memcg_create() {
	local bytes=$1 root
	root=$(memcg_root)
	[[ -n $root ]] || die "--memory: no memory cgroup controller here"
	if [[ $root == /sys/fs/cgroup ]] &&
		! grep -qw memory /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null; then
		die "--memory: the memory controller is not enabled for child groups of /sys/fs/cgroup"
	fi
	MEMCG=$root/wccapture.$$
	mkdir "$MEMCG" || { MEMCG=""; die "--memory: cannot create a memory cgroup under $root"; }
	if [[ -f $MEMCG/memory.max ]]; then
		echo "$bytes" >"$MEMCG/memory.max"
		[[ -f $MEMCG/memory.swap.max ]] && echo 0 >"$MEMCG/memory.swap.max"
	else
		echo "$bytes" >"$MEMCG/memory.limit_in_bytes"
	fi
}

memcg_remove() {
	local p n
	[[ -n $MEMCG && -d $MEMCG ]] || { MEMCG=""; return 0; }
	# anything still in it (an interrupted copy) goes back to the parent
	for n in 1 2 3 4 5; do
		while read -r p; do
			echo "$p" >"${MEMCG%/*}/cgroup.procs" 2>/dev/null
		done <"$MEMCG/cgroup.procs"
		rmdir "$MEMCG" 2>/dev/null && break
		sleep "0.$n"
	done
	[[ -d $MEMCG ]] && say "$MEMCG: cannot remove it"
	MEMCG=""
}

# The report's machine (2.6.23/24) wrote back at dirty_ratio 10 and
# dirty_background_ratio 5 of its memory: commit 07db59bd6b0f (Linus
# Torvalds, April 2007, as Jan Kara dates it on linux-mm in January 2009:
# by its date in 2.6.22) lowered them from 40 and 10; later kernels
# raised them to 20 and 10.  With --memory they apply to the copy's
# memory: with the memory controller on cgroup v2, writeback gives each
# memory cgroup a dirty domain of its own, its limits the global ratios
# of the memory the group may use (mm/page-writeback.c,
# domain_dirty_limits(), mdtc_calc_avail(), as read in a 6.x source, not
# 6.18's own), so the ratios are set; on cgroup v1 (a hybrid host mounts
# the memory controller there) no group has dirty limits of its own, so
# the host-wide dirty_bytes and dirty_background_bytes are set to those
# shares of SIZE.  The settings are global: the host's are put back after each
# capture and on every exit (cleanup), and capture.conf says what was
# set (lab_vm_dirty) and what the host had (lab_vm_dirty_host).  Only a
# SIGKILL leaves them set: lab_vm_dirty_host says what to put back.
VM_DIRTY_KEYS="dirty_ratio dirty_bytes dirty_background_ratio dirty_background_bytes"
vm_dirty_set() {
	local bytes=$1 k
	if ((${#VM_FOUND[@]} == 0)); then
		for k in $VM_DIRTY_KEYS; do
			VM_FOUND+=("$k $(cat "/proc/sys/vm/$k")")
		done
	fi
	if memcg_v2; then
		echo 10 >/proc/sys/vm/dirty_ratio
		echo 5 >/proc/sys/vm/dirty_background_ratio
		VM_SET="dirty_ratio=10 dirty_background_ratio=5"
	else
		echo $((bytes / 10)) >/proc/sys/vm/dirty_bytes
		echo $((bytes / 20)) >/proc/sys/vm/dirty_background_bytes
		VM_SET="dirty_bytes=$((bytes / 10)) dirty_background_bytes=$((bytes / 20))"
	fi
}

# Puts back the host's write-back settings.  Of each pair (ratio, bytes)
# one is 0, and writing either zeroes the other: the one in use is
# written back.  Safe to call when nothing was changed.
vm_dirty_restore() {
	local e k v ratios=() sizes=()
	((${#VM_FOUND[@]})) || return 0
	for e in "${VM_FOUND[@]}"; do
		read -r k v <<<"$e"
		case $k in
		*_ratio) ratios+=("$k $v") ;;
		*_bytes) sizes+=("$k $v") ;;
		esac
	done
	for e in "${ratios[@]}" "${sizes[@]}"; do
		read -r k v <<<"$e"
		if [[ $k == *_bytes && $v == 0 ]]; then
			continue
		elif [[ $k == *_ratio ]]; then
			# a ratio of 0 with bytes in use: the bytes, below
			[[ $v == 0 ]] && continue
		fi
		echo "$v" >"/proc/sys/vm/$k" 2>/dev/null ||
			say "/proc/sys/vm/$k: cannot put back $v"
	done
	VM_FOUND=()
}

# The host's settings as found, "KEY=VALUE ...".
vm_dirty_found() {
	local e k v out=""
	for e in "${VM_FOUND[@]}"; do
		read -r k v <<<"$e"
		out+="${out:+ }$k=$v"
	done
	echo "$out"
}

# Whether the memory controller is on cgroup v2 here (writeback's
# per-group dirty limits need it; memcg_root() picks v2 then).
memcg_v2() {
	[[ $(memcg_root) == /sys/fs/cgroup ]] &&
		grep -qw memory /sys/fs/cgroup/cgroup.controllers 2>/dev/null
}

# Kills whatever still runs in the memory cgroup (an interrupted copy)
# and waits until it is gone, so that the destination can be unmounted.
memcg_kill() {
	local p n
	[[ -n $MEMCG && -d $MEMCG ]] || return 0
	for ((n = 0; n < 100; n++)); do
		# read, not tested with -s: cgroup files have size 0
		[[ -n $(cat "$MEMCG/cgroup.procs" 2>/dev/null) ]] || break
		if [[ -f $MEMCG/cgroup.kill ]]; then
			echo 1 >"$MEMCG/cgroup.kill" 2>/dev/null
		else
			while read -r p; do
				kill -KILL "$p" 2>/dev/null
			done <"$MEMCG/cgroup.procs"
		fi
		sleep 0.05
	done
	[[ -z $COPY_PID ]] || wait "$COPY_PID" 2>/dev/null
	COPY_PID=""
}

# Runs "$@" (a command or a function) inside the memory cgroup.  In the
# background, waited for: bash runs a trap only when the foreground
# child it waits on ends, and takes a child that ends normally after a
# SIGINT for one that handled it, so the signal was lost with the copy
# in a subshell; wait returns at once on a trapped signal.  The copy
# itself then ignores SIGINT (an asynchronous command does): cleanup
# kills it through the group.
in_memcg() {
	local rc=0
	(echo "$BASHPID" >"$MEMCG/cgroup.procs" && "$@") &
	COPY_PID=$!
	wait "$COPY_PID" || rc=$?
	COPY_PID=""
	return "$rc"
}
