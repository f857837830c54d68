# SPDX-License-Identifier: GPL-2.0-or-later
# samples.sh - sourced by the scripts that make docs' tables from the
# captures in samples/ (write-cache-table.sh, what-if-validate.sh,
# model-artefacts.sh).
#
#   sample_archives PROG DIR   fills the array archives with DIR's
#                              capture archives, in name order whatever
#                              the compression; fails (as PROG) if none
#   capture_keys PROG WCANALYZE ARCHIVE
#                              fills the array cap with what ARCHIVE's
#                              capture.conf and ledger mean, as
#                              `WCANALYZE --format json` gives them (their
#                              one reader; docs/json-format.md): name, fs,
#                              cache and barrier (on, off), disk,
#                              lab_workload, source_files, source_bytes,
#                              kernel, and with a ledger ledger_busy and
#                              ledger_commands (seconds); "" where unknown;
#                              fails (as PROG) when wcanalyze does, or
#                              unless each is a plain word, because they
#                              reach Markdown, specs and file names
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

# The CAPTURE keys capture_keys gives, in its order.
capture_key_names=(name fs cache barrier disk lab_workload source_files
	source_bytes kernel ledger_busy ledger_commands)

capture_keys() {
	local k i json vals=()
	json=$("$2" --format json "$3") ||
		{ echo "$1: $3: wcanalyze --format json failed" >&2; exit 1; }
	mapfile -t vals < <(jq -r '
		def onoff: if . == null then "" elif . then "on" else "off" end;
		.captures[0] | [.name, .fs, (.write_cache | onoff), (.barrier | onoff), .disk,
		 .lab_workload, .source_files, .source_bytes, .kernel,
		 .ledger.busy_s, .ledger.commands_s]
		| map(if . == null then "" else tostring end) | .[]' <<<"$json")
	[[ ${#vals[@]} -eq ${#capture_key_names[@]} ]] ||
		{ echo "$1: $3: not one capture, or a value across lines" >&2; exit 1; }
	declare -gA cap=()
	for i in "${!capture_key_names[@]}"; do
		k=${capture_key_names[$i]}
		[[ ${vals[$i]} =~ ^[A-Za-z0-9._-]*$ ]] || {
			echo "$1: $3: $k = '${vals[$i]}' is not a plain word" >&2
			exit 1
		}
		# shellcheck disable=SC2034 # cap is the caller's
		cap[$k]=${vals[$i]}
	done
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
