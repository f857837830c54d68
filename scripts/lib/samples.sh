# SPDX-License-Identifier: GPL-2.0-or-later
# samples.sh - sourced by the scripts that make docs' tables from the
# captures in samples/ (write-cache-table.sh, what-if-validate.sh).
#
#   sample_archives PROG DIR   fills the array archives with DIR's
#                              capture archives, in name order whatever
#                              the compression; fails (as PROG) if none
#   conf_value PROG FILE KEY   prints capture.conf FILE's KEY; fails (as
#                              PROG) unless it is a plain word, because
#                              it reaches Markdown, specs and file names
#   has_markers PROG FILE BEGIN END
#                              fails (as PROG) unless FILE has one line
#                              BEGIN and one line END
#   put_between PROG FILE BEGIN END BLOCK
#                              replaces what lies between FILE's lines
#                              BEGIN and END with file BLOCK's lines;
#                              fails (as PROG) unless FILE has one of each
# shellcheck shell=bash

sample_archives() {
	local found=()
	shopt -s nullglob
	found=("$2"/*.tar "$2"/*.tar.{xz,gz,zst,bz2})
	shopt -u nullglob
	archives=()
	[[ ${#found[@]} -eq 0 ]] || mapfile -d '' -t archives < <(printf '%s\0' "${found[@]}" | LC_ALL=C sort -z)
	[[ ${#archives[@]} -gt 0 ]] || { echo "$1: no captures in $2" >&2; exit 1; }
}

conf_value() {
	local v
	v=$(sed -n "s/^$3 = //p; T; q" "$2")
	[[ -z $v || $v =~ ^[A-Za-z0-9._-]+$ ]] || {
		echo "$1: $2: $3 = '$v' is not a plain word" >&2
		exit 1
	}
	printf '%s' "$v"
}

has_markers() {
	[[ $(grep -cxF "$3" "$2") -eq 1 && $(grep -cxF "$4" "$2") -eq 1 ]] || {
		echo "$1: $2: needs one line '$3' and one '$4'" >&2
		exit 1
	}
}

put_between() {
	local new
	has_markers "$@"
	new=$(mktemp "${TMPDIR:-/tmp}/wcblock.XXXXXX")
	awk -v begin="$3" -v end="$4" -v block="$5" '
$0 == begin { print; while ((getline l < block) > 0) print l; skip = 1; next }
$0 == end { skip = 0 }
!skip' "$2" >"$new"
	cat "$new" >"$2"
	rm -f "$new"
}
