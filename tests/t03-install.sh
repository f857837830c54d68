#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t03-install.sh - make install honours DESTDIR and PREFIX (programs, man
# pages, gnuplot templates, docs, bash completion), the installed wcanalyze finds its templates
# without help, and make uninstall takes everything away again.  It
# installs from its own copy of the build, where a PREFIX other than the
# build's recompiles one object only (analyze/lib/base/buildinfo.o, as
# git's prefix), whatever else was built.
# shellcheck source=tests/lib/common.sh
source "$(dirname "$0")/lib/common.sh"

cd "$TOP"
dest=$TMP/dest b=$TMP/build
own_build "$b"
touch "$TMP/before"
make -s --no-print-directory BUILD="$b" DESTDIR="$dest" PREFIX=/opt/wc install >"$TMP/log" 2>&1 ||
	fail "make install: $(tail -n 5 "$TMP/log")"
# Unless the caller's flags differ from the build's (then all rebuilds),
# PREFIX reached one object.
if cmp -s "$BUILD/build-flags" "$b/build-flags"; then
	rebuilt=$(cd "$b" && find . -name '*.o' -newer "$TMP/before" | sort)
	[[ $rebuilt == ./analyze/lib/base/buildinfo.o ]] ||
		fail "PREFIX=/opt/wc rebuilt more than buildinfo.o: $(head -c 300 <<<"$rebuilt")"
fi
[[ $("$dest/opt/wc/bin/wcanalyze" --version) == "wcanalyze "* ]] || fail "installed --version"
for f in bin/wcanalyze sbin/wccapture sbin/wcrecord share/man/man1/wcanalyze.1 \
	share/man/man8/wccapture.8 share/man/man8/wcrecord.8 \
	share/wcanalyze/plots/common.gp share/wcanalyze/plots/scatter.gp \
	share/doc/wcanalyze/README.md share/doc/wcanalyze/bundle.md \
	share/bash-completion/completions/wcanalyze share/bash-completion/completions/wccapture \
	share/bash-completion/completions/wcrecord share/bash-completion/completions/wcdisk; do
	[[ -s $dest/opt/wc/$f ]] || fail "not installed: /opt/wc/$f"
done
[[ -x $dest/opt/wc/bin/wcanalyze && -x $dest/opt/wc/sbin/wccapture ]] || fail "programs not executable"

# The installed wccapture finds its parts (capture/lib) under its prefix,
# also when run through a link from elsewhere, and answers as the tree's
# does; the DATADIR it was installed for is written into it.
for f in common disk memory recorder capture workload lab record crash; do
	[[ -s $dest/opt/wc/share/wcanalyze/wccapture/$f.sh ]] || fail "not installed: wccapture's $f.sh"
done
grep -qx 'WCCAPTURE_LIBDIR=/opt/wc/share/wcanalyze/wccapture' "$dest/opt/wc/sbin/wccapture" ||
	fail "the installed wccapture does not name /opt/wc/share/wcanalyze/wccapture"
mkdir "$TMP/elsewhere"
ln -s "$dest/opt/wc/sbin/wccapture" "$TMP/elsewhere/wccapture"
for w in "$dest/opt/wc/sbin/wccapture" "$TMP/elsewhere/wccapture"; do
	(cd "$TMP" && "$w" --help) >"$TMP/help.out" 2>&1 || fail "$w --help: $(cat "$TMP/help.out")"
	bash capture/wccapture --help >"$TMP/help.want"
	cmp -s "$TMP/help.want" "$TMP/help.out" || fail "$w --help differs from the tree's"
	[[ $("$w" --version) == "wccapture "* ]] || fail "$w --version"
done
cp "$dest/opt/wc/sbin/wccapture" "$TMP/elsewhere/alone"
"$TMP/elsewhere/alone" --version >"$TMP/out" 2>&1 && fail "wccapture without its parts ran"
grep -q '^wccapture: its files (common.sh, ...) are in none of ' "$TMP/out" ||
	fail "wccapture without its parts: $(cat "$TMP/out")"

# The installed program, run from elsewhere, renders nothing here
# (WCANALYZE_GNUPLOT empty) but must find the templates next to itself.
(cd "$TMP" && env -u WCANALYZE_PLOTS WCANALYZE_GNUPLOT='' "$dest/opt/wc/bin/wcanalyze" \
	-o bundle "$TOP/tests/fixtures/reader/xfs" >out 2>err) ||
	fail "installed wcanalyze -o failed: $(cat "$TMP/err")"
[[ -s $TMP/bundle/xfs/scatter.gp ]] || fail "installed wcanalyze wrote no figure scripts"

# The completions load and complete.
for p in wcanalyze wccapture wcrecord wcdisk; do
	out=$(bash -c 'source "$1"; COMP_WORDS=("$2" --h); COMP_CWORD=1; _$2; printf "%s\n" "${COMPREPLY[@]}"' _ \
		"$dest/opt/wc/share/bash-completion/completions/$p" "$p") || fail "completion of $p fails"
	[[ $p == wcrecord || $out == *--help* ]] || fail "completion of $p: '$out'"
done
out=$(bash -c 'source "$1"; COMP_WORDS=(wccapture lab --rec); COMP_CWORD=2; _wccapture; echo "${COMPREPLY[*]}"' _ \
	"$dest/opt/wc/share/bash-completion/completions/wccapture")
[[ $out == --recorder ]] || fail "wccapture lab --rec completes to '$out'"

make -s --no-print-directory BUILD="$b" DESTDIR="$dest" PREFIX=/opt/wc uninstall >"$TMP/log" 2>&1 ||
	fail "make uninstall: $(tail -n 5 "$TMP/log")"
left=$(find "$dest" -type f | sed -n 1,5p)
[[ -z $left ]] || fail "left after uninstall: $left"
echo "ok"
