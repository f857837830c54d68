#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t53-deb-package.sh - dpkg-buildpackage -us -uc -b builds the two Debian
# packages from a copy of the tree: wcanalyze (the analyzer, its manual,
# templates, docs and completion; Recommends gnuplot) and wccapture (the
# recorder, the model disk and its disks, the lab, their manuals in
# section 8; Depends fuse3, xfsprogs, e2fsprogs); lintian, when there,
# finds no error or warning.  Skipped without dpkg-dev and debhelper
# (scripts/deps.sh check installs them).
# shellcheck source=tests/lib/common.sh
source "$(dirname "$0")/lib/common.sh"

command -v dpkg-buildpackage >/dev/null 2>&1 || skip "needs dpkg-dev"
command -v dh >/dev/null 2>&1 || skip "needs debhelper"

# The tree as a fresh clone has it (the packages land in its parent).
mkdir "$TMP/src"
(cd "$TOP" && git ls-files -z | xargs -0 cp --parents -t "$TMP/src") ||
	fail "cannot copy the tree"
# The package builds in its own tree with its own flags: BUILD (exported
# by tests/lib/common.sh) and make's MAKEFLAGS (BUILD=build-san
# SANITIZE=1 under CI's second run) would send that build into the
# caller's build folder, and every test after this one would run the
# package's binaries (PREFIX=/usr, no sanitizer) instead.
before=$(cksum <"$WCANALYZE")
(cd "$TMP/src" && env -u BUILD -u SANITIZE -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
	DEB_BUILD_OPTIONS=parallel=2 dpkg-buildpackage -us -uc -b) \
	>"$TMP/build.log" 2>&1 || fail "dpkg-buildpackage: $(tail -n 15 "$TMP/build.log")"
[[ $(cksum <"$WCANALYZE") == "$before" ]] ||
	fail "the package build rewrote $WCANALYZE (the caller's build)"

deb() { compgen -G "$TMP/$1_*_*.deb" | sed -n 1p; }
a=$(deb wcanalyze)
c=$(deb wccapture)
[[ -n $a && -n $c ]] || fail "packages not built: $(ls "$TMP")"
dpkg-deb -c "$a" | awk '{ print $6 }' >"$TMP/a.list"
dpkg-deb -c "$c" | awk '{ print $6 }' >"$TMP/c.list"
for f in usr/bin/wcanalyze usr/share/man/man1/wcanalyze.1.gz \
	usr/share/wcanalyze/plots/common.gp usr/share/wcanalyze/plots/compare-time.gp \
	usr/share/doc/wcanalyze/README.md.gz usr/share/doc/wcanalyze/bundle.md.gz \
	usr/share/doc/wcanalyze/copyright usr/share/bash-completion/completions/wcanalyze; do
	grep -qx "./$f" "$TMP/a.list" || fail "wcanalyze lacks /$f"
done
for f in usr/sbin/wccapture usr/sbin/wcrecord usr/sbin/wcdisk \
	usr/share/man/man8/wccapture.8.gz usr/share/man/man8/wcrecord.8.gz \
	usr/share/man/man8/wcdisk.8.gz usr/share/wcanalyze/disks/hdd7200 \
	usr/share/wcanalyze/wccapture/common.sh usr/share/wcanalyze/wccapture/lab.sh \
	usr/share/bash-completion/completions/wccapture \
	usr/share/bash-completion/completions/wcrecord \
	usr/share/bash-completion/completions/wcdisk; do
	grep -qx "./$f" "$TMP/c.list" || fail "wccapture lacks /$f"
done
! grep -q 'sbin/\|man8' "$TMP/a.list" || fail "wcanalyze holds the recorder's files"
! grep -q 'bin/wcanalyze\|/plots/' "$TMP/c.list" || fail "wccapture holds the analyzer's files"
[[ $(dpkg-deb -f "$a" Depends) == *libarchive* ]] || fail "wcanalyze does not depend on libarchive"
[[ $(dpkg-deb -f "$a" Recommends) == *gnuplot* ]] || fail "wcanalyze does not recommend gnuplot"
for d in fuse3 xfsprogs e2fsprogs; do
	[[ " $(dpkg-deb -f "$c" Depends | tr -d ,) " == *" $d "* ]] || fail "wccapture does not depend on $d"
done

# The packaged analyzer, unpacked, runs.
dpkg-deb -x "$a" "$TMP/root"
[[ $("$TMP/root/usr/bin/wcanalyze" --version) == "wcanalyze "* ]] || fail "packaged wcanalyze does not run"

if command -v lintian >/dev/null 2>&1; then
	lintian --suppress-tags running-with-root-privileges "$TMP"/wcanalyze_*.changes \
		>"$TMP/lintian.log" 2>&1 || true
	! grep -E '^(E|W): ' "$TMP/lintian.log" || fail "lintian: $(grep -E -m 5 '^(E|W): ' "$TMP/lintian.log")"
	echo "ok: lintian clean"
fi
echo "ok: both packages built"
