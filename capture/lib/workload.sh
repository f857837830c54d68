# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
# workload.sh - the lab's workload: the source tree, its copy and its
# delete, and the model disk's destage after them.  Sourced by
# capture/wccapture.

# Writes a deterministic tree of N files totalling BYTES under DIR: sizes
# spread log-normally (most files a few KB, a few of several MB), about a
# dozen files per directory, directories nested four or five deep.  One
# awk writes every file (a fork per file is slow); the contents are
# arbitrary, the filesystems under test neither compress nor deduplicate.
tree_generate() {
	local dir=$1 files=$2 bytes=$3
	mkdir -p "$dir"
	LC_ALL=C awk -v n="$files" -v total="$bytes" -v top="$dir" 'BEGIN {
		srand(20081);
		for (i = 0; i < n; i++) {
			u1 = rand(); u2 = rand(); if (u1 < 1e-9) u1 = 1e-9;
			z = sqrt(-2 * log(u1)) * cos(6.283185307 * u2);
			w[i] = exp(log(8192) + 1.6 * z); sum += w[i];
		}
		chunk = "";
		for (i = 0; i < 4096; i++)
			chunk = chunk sprintf("%c", 33 + int(rand() * 94));
		while (length(chunk) < 65536)
			chunk = chunk chunk;
		last = "";
		for (i = 0; i < n; i++) {
			d = int(i / 12); p = "";
			while (d > 0) { p = sprintf("/d%02d", d % 6) p; d = int((d - 1) / 6); }
			if (p != last) {
				if (system("mkdir -p \"" top p "\"") != 0)
					exit 1;
				last = p;
			}
			f = sprintf("%s%s/f%05d", top, p, i);
			size = int(w[i] * total / sum);
			if (i == n - 1)	# the rounding left over: exact total
				size = total - given;
			given += size;
			for (; size >= 65536; size -= 65536)
				printf "%s", chunk > f;
			printf "%s", substr(chunk, 1, size) > f;
			close(f);
		}
	}'
}

copy_tree() { cp -a "$1" "$2" && sync; }

# Copies tree $1 to $2 one file at a time, each fsynced before the next,
# as package managers and mail servers write (dd conv=fsync: the data and
# the file's metadata reach the disk).
copy_tree_fsync() {
	local src=$1 dst=$2 f
	(cd "$src" && find . -type d -print0) | (cd "${dst%/*}" && mkdir -p "${dst##*/}" &&
		cd "$dst" && xargs -0 mkdir -p) || return 1
	while IFS= read -r -d '' f; do
		dd if="$src/$f" of="$dst/$f" bs=1M conv=fsync status=none || return 1
	done < <(cd "$src" && find . -type f -print0)
	sync
}
delete_tree() { rm -rf "$1" && sync; }

# A copy ends when its data is on the platter: the workload's last sync
# has returned, but a drive with its cache on (barriers off, or what it
# took since the last flush) still holds data the kernel believes
# written.  While the recorder runs, the model disk destages it all
# through its control file (no request of the kernel: wcdisk.8), so the
# destage is in the ledger, and capture.conf says when the workload
# returned (workload_end_ns, the end of its last phase) and when its data
# was durable (durable_ns, the model's "durable at").
durable() {
	local name=$1 end out
	end=$(awk -F '\t' 'NR > 1 { e = $3 } END { print e }' "$STAGE/phases.tsv")
	out=$(cat "$DISK_MNT/destage") ||
		die "$name: $DISK_MNT/destage: the model disk did not destage its cache"
	[[ $out =~ ^destaged\ ([0-9]+)\ bytes\ in\ ([0-9]+)\ ranges,\ durable\ at\ ([0-9]+)$ ]] ||
		die "$name: $DISK_MNT/destage said '$out'"
	conf workload_end_ns "$end"
	conf durable_ns "${BASH_REMATCH[3]}"
	conf durable_destaged_bytes "${BASH_REMATCH[1]}"
}
