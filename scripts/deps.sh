#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# deps.sh - make sure what a target needs is installed.
#
#   scripts/deps.sh [--no-install] TARGET
#
#   scripts/deps.sh build   what building the programs needs: compiler,
#                           pkg-config, libarchive, zlib (the bundle's
#                           timelines), libfuse3 (wcdisk)
#   scripts/deps.sh demo    that, and gnuplot ("make demo")
#   scripts/deps.sh check   everything: Check, the tools the tests compare
#                           against or drive, the browser, capture's tools,
#                           clang with libFuzzer (t49 fuzzes briefly),
#                           dpkg-dev and debhelper (t53 builds the packages)
#   scripts/deps.sh fuzz    that of build, and clang with libFuzzer
#                           ("make fuzz", tests/fuzz/)
#   scripts/deps.sh fio     that of build, and fio (bench/wcdisk_fio.sh: the
#                           model disk against published figures)
#   scripts/deps.sh package that of build, dpkg-dev and debhelper
#                           (dpkg-buildpackage -us -uc -b), and lintian
#
# As root on a Debian-like system it runs apt-get for what is missing and
# says so; otherwise, or with --no-install (plain "make": packagers and CI
# build with it, and a build must not install anything), it stops with the
# exact command to run.
set -euo pipefail

install=1
if [[ ${1:-} == --no-install ]]; then
	install=0
	shift
fi
what=${1:-build}

# command-or-pkg-config-name:debian-package (a path where the name alone
# would find a shell keyword: "time" is one, /usr/bin/time is the program
# make bench needs; file:GLOB for a library that has no command)
build_needs=(
	cc:gcc
	make:make
	pkg-config:pkg-config
	pc:libarchive:libarchive-dev
	pc:zlib:zlib1g-dev
	pc:fuse3:libfuse3-dev
)
check_needs=(
	pc:check:check
	jq:jq
	blkparse:blktrace
	btt:blktrace
	mkfs.xfs:xfsprogs
	xfs_db:xfsprogs
	mkfs.ext4:e2fsprogs
	debugfs:e2fsprogs
	hdparm:hdparm
	gnuplot:gnuplot-nox
	zstd:zstd
	xz:xz-utils
	bzip2:bzip2
	cpio:cpio
	zip:zip
	losetup:mount
	fusermount3:fuse3
	shellcheck:shellcheck
	chromium:chromium
	jq:jq
	/usr/bin/time:time
	strace:strace
	python3:python3
	file:/usr/lib/python3/dist-packages/distributed/__init__.py:python3-distributed
)
demo_needs=(
	gnuplot:gnuplot-nox
)
fio_needs=(
	fio:fio
)
deb_needs=(
	dpkg-buildpackage:dpkg-dev
	dh:debhelper
)
lint_needs=(
	lintian:lintian
)
fuzz_needs=(
	clang-14:clang-14
	file:/usr/lib/llvm-14/lib/clang/*/lib/linux/libclang_rt.fuzzer-*.a:libclang-rt-14-dev
)

case $what in
build) needs=("${build_needs[@]}") ;;
demo) needs=("${build_needs[@]}" "${demo_needs[@]}") ;;
check) needs=("${build_needs[@]}" "${check_needs[@]}" "${fuzz_needs[@]}" "${deb_needs[@]}") ;;
package) needs=("${build_needs[@]}" "${deb_needs[@]}" "${lint_needs[@]}") ;;
fuzz) needs=("${build_needs[@]}" "${fuzz_needs[@]}") ;;
fio) needs=("${build_needs[@]}" "${fio_needs[@]}") ;;
*) echo "deps.sh: unknown target '$what'" >&2; exit 2 ;;
esac

missing=()
for n in "${needs[@]}"; do
	pkg=${n##*:}
	if [[ $n == pc:* ]]; then
		mod=${n#pc:}; mod=${mod%%:*}
		command -v pkg-config >/dev/null 2>&1 &&
			pkg-config --exists "$mod" && continue
	elif [[ $n == file:* ]]; then
		glob=${n#file:}; glob=${glob%:*}
		compgen -G "$glob" >/dev/null && continue
	else
		cmd=${n%%:*}
		command -v "$cmd" >/dev/null 2>&1 && continue
		[[ -x /usr/sbin/$cmd || -x /sbin/$cmd ]] && continue
	fi
	[[ " ${missing[*]-} " == *" $pkg "* ]] || missing+=("$pkg")
done

[[ ${#missing[@]} -eq 0 ]] && exit 0

if [[ $install == 1 && $(id -u) -eq 0 ]] && command -v apt-get >/dev/null 2>&1; then
	echo "deps: installing ${missing[*]} with apt-get" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get -o DPkg::Lock::Timeout=300 update -qq >&2
	apt-get -o DPkg::Lock::Timeout=300 install -y -qq --no-install-recommends "${missing[@]}" >&2
	exit 0
fi

echo "deps: missing packages: ${missing[*]}" >&2
echo "deps: run: sudo apt-get install ${missing[*]}" >&2
[[ $install == 1 ]] || echo "deps: (or make deps, which installs what make check needs)" >&2
exit 1
