#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t04-build.sh - the build's promises (GNUmakefile): CPPFLAGS and CFLAGS
# reach the compiler, -Werror only with DEVELOPER=1, a second make does
# nothing, a header touched rebuilds what includes it and nothing else
# (-MMD -MP), a changed flag rebuilds (BUILD/build-flags), a changed
# PREFIX one object, buildinfo.o, and the links (BUILD/build-paths), a
# library source added or removed the archive (BUILD/build-objs).
# Works on a copy of the sources, so the tree's own mtimes stay as they are.
# shellcheck source=tests/lib/common.sh
source "$(dirname "$0")/lib/common.sh"

# The test sets every build variable itself: a DEVELOPER=1 from .ci/run or
# a SANITIZE=1 passed down by an outer make through MAKEFLAGS would change
# what it checks.
unset DEVELOPER SANITIZE MAKEFLAGS MFLAGS MAKELEVEL

src=$TMP/src
mkdir "$src"
cp -a "$TOP/GNUmakefile" "$TOP/scripts" "$TOP/analyze" "$TOP/capture" "$src/"
prog=$TMP/b/wcanalyze
# -O0 and LTO=0: the test is about what gets rebuilt, not about the code;
# link-time optimisation changes how each object is compiled and linked,
# not which are, and doubled the test's time.
mk() { make -C "$src" --no-print-directory -j2 BUILD="$TMP/b" LTO=0 CFLAGS=-O0 CPPFLAGS=-DWC_T04 "$@" "$prog"; }
compiled() { sed -n 's/^  CC *//p' "$1" | LC_ALL=C sort | tr '\n' ' '; }

mk V=1 >"$TMP/1" 2>&1 || fail "first build: $(tail -n 5 "$TMP/1")"
grep -q -- '-DWC_T04' "$TMP/1" || fail "CPPFLAGS did not reach the compiler"
grep -q -- ' -O0' "$TMP/1" || fail "CFLAGS did not reach the compiler"
grep -q -- '-MMD -MP' "$TMP/1" || fail "no -MMD -MP"
! grep -q -- '-Werror' "$TMP/1" || fail "-Werror without DEVELOPER=1"
[[ -s $TMP/b/analyze/lib/input/decode.d ]] || fail "no dependency file for decode.o"

mk >"$TMP/2" 2>&1 || fail "second build: $(tail -n 5 "$TMP/2")"
[[ -z $(compiled "$TMP/2") ]] || fail "nothing changed, yet compiled: $(compiled "$TMP/2")"

touch "$src/analyze/lib/input/decode.h"
mk >"$TMP/3" 2>&1 || fail "build after touching decode.h: $(tail -n 5 "$TMP/3")"
c=$(compiled "$TMP/3")
[[ " $c" == *" analyze/lib/input/decode.c "* ]] || fail "decode.h touched, decode.c not compiled (compiled: $c)"
[[ " $c" != *" analyze/lib/base/wcerr.c "* ]] || fail "decode.h touched, wcerr.c compiled, which does not include it"

# A source added to the library is compiled into the archive; one removed
# leaves it, else an incremental build links what a clean one no longer
# has (BUILD/build-objs).
members() { ar t "$TMP/b/libwcanalyze.a" | LC_ALL=C sort | tr '\n' ' '; }
printf '%s\n' '/* SPDX-License-Identifier: GPL-2.0-or-later */' \
	'int wc_t04_added(void);' 'int wc_t04_added(void) { return 4; }' \
	>"$src/analyze/lib/base/t04added.c"
mk >"$TMP/3a" 2>&1 || fail "build after adding a source: $(tail -n 5 "$TMP/3a")"
[[ $(compiled "$TMP/3a") == "analyze/lib/base/t04added.c " ]] ||
	fail "a source added, compiled: $(compiled "$TMP/3a")"
[[ " $(members)" == *" t04added.o "* ]] || fail "a source added, not in the archive: $(members)"
rm "$src/analyze/lib/base/t04added.c"
mk >"$TMP/3b" 2>&1 || fail "build after removing a source: $(tail -n 5 "$TMP/3b")"
[[ " $(members)" != *" t04added.o "* ]] || fail "a source removed, still in the archive: $(members)"
grep -q 'LD.*wcanalyze' "$TMP/3b" || fail "a source removed, wcanalyze not linked again"

mk PREFIX=/opt/t04 >"$TMP/4" 2>&1 || fail "build with another PREFIX: $(tail -n 5 "$TMP/4")"
grep -q 'PREFIX changed' "$TMP/4" || fail "a new PREFIX not noticed"
[[ $(compiled "$TMP/4") == "analyze/lib/base/buildinfo.c " ]] ||
	fail "a new PREFIX compiled more or less than buildinfo.c: $(compiled "$TMP/4")"
grep -q /opt/t04/share/wcanalyze "$prog" || fail "wcanalyze does not look for its templates under the new PREFIX"

mk PREFIX=/opt/t04 DEVELOPER=1 V=1 >"$TMP/5" 2>&1 || fail "DEVELOPER=1 build: $(tail -n 5 "$TMP/5")"
grep -q -- '-Werror' "$TMP/5" || fail "DEVELOPER=1 without -Werror"
grep -q -- '-Werror.*analyze/lib/base/wcerr.c' "$TMP/5" || fail "DEVELOPER=1 did not rebuild everything"
echo "ok"
