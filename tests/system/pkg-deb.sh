#!/bin/bash
# The Debian package, as CI builds it:
#   - the tree's files (git ls-files, as they are in the work tree) copied
#     into this test's temporary directory; `dpkg-buildpackage -us -uc`
#     there (DEB_BUILD_OPTIONS="nocheck parallel=2": the unit tests run
#     elsewhere), nothing written into the checkout;
#   - lintian on the .changes: no E: line;
#   - the .deb unpacked into a scratch root (dpkg -x): every tool there
#     answers -V and --help, exit 0, and its man page is there and
#     renders without a warning;
#   - `make install DESTDIR=` of the same build tree (configured by the
#     package's build: prefix /usr) installs the same tools and man pages;
#     `make install-fsck` adds fsck.xfs (a link to fsck.xfsj) and
#     fsck.xfs.8.
#   - with PKG_DISTCHECK=1 (by hand: the unit tests, plain and under the
#     sanitizers, are built and run again), `make distcheck` there too.
# About 2 minutes on 2 cores.
source "$(dirname "$0")/lib/common.sh"
need_root

# What the build needs (scripts/deps.sh installs it; so does this test).
need=""
for c in dpkg-buildpackage:dpkg-dev dh:debhelper lintian:lintian fakeroot:fakeroot git:git man:man-db; do
	command -v "${c%%:*}" > /dev/null || need="$need ${c#*:}"
done
if [ -n "$need" ]; then
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $need > "$T_DIR/apt.log" 2>&1 ||
		{ echo "$T_NAME: cannot install$need" >&2; exit 2; }
fi
git -C "$TOP" rev-parse --git-dir > /dev/null 2>&1 ||
	{ echo "$T_NAME: $TOP is not a git checkout (the package is built from its tracked files)" >&2; exit 2; }

SRC=$T_DIR/build/xfsj
mkdir -p "$SRC"
(cd "$TOP" && git ls-files -z | xargs -0 cp --parents -t "$SRC") ||
	{ echo "$T_NAME: cannot copy the tree" >&2; exit 2; }
before=$(cd "$TOP" && git status --porcelain --ignored | md5sum)

t0=$(date +%s)
(cd "$SRC" && DEB_BUILD_OPTIONS="nocheck parallel=2" dpkg-buildpackage -us -uc) > "$T_DIR/build.log" 2>&1
rc=$?
check "dpkg-buildpackage -us -uc: exit 0 ($(($(date +%s) - t0)) s)" test $rc = 0
[ $rc = 0 ] || tail -n 20 "$T_DIR/build.log" | sed 's/^/#   /'
after=$(cd "$TOP" && git status --porcelain --ignored | md5sum)
check "the checkout is left as it was" test "$before" = "$after"

deb=$(ls "$T_DIR"/build/xfsj_*.deb 2>/dev/null | head -n 1)
changes=$(ls "$T_DIR"/build/xfsj_*.changes 2>/dev/null | head -n 1)
check "a .deb and a .changes" test -n "$deb" -a -n "$changes"

lintian "$changes" > "$T_DIR/lintian.out" 2>&1
check "lintian: no errors" test -z "$(grep '^E:' "$T_DIR/lintian.out")"
grep '^E:' "$T_DIR/lintian.out" | head -n 10 | sed 's/^/#   /'

ROOT=$T_DIR/root
mkdir -p "$ROOT"
check "dpkg -x into a scratch root" dpkg -x "$deb" "$ROOT"
for t in usr/bin/xfsj-mkfs usr/bin/xfsj-logprint usr/bin/xfsj-repair usr/sbin/fsck.xfsj; do
	name=$(basename "$t")
	check "$name -V" sh -c "'$ROOT/$t' -V | grep -q 'version'"
	check "$name --help" sh -c "'$ROOT/$t' --help > /dev/null"
	page=$ROOT/usr/share/man/man8/$name.8.gz
	check "$name.8 is there" test -s "$page"
	check "$name.8 renders without a warning" test -z "$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$page" 2>&1 > /dev/null)"
done
check "the package does not take xfsprogs' fsck.xfs" test ! -e "$ROOT/usr/sbin/fsck.xfs"

# make install DESTDIR= and make install-fsck, from the package's build tree.
DEST=$T_DIR/dest
make -C "$SRC" install DESTDIR="$DEST" > "$T_DIR/install.log" 2>&1
check "make install DESTDIR=: exit 0" test $? = 0
(cd "$ROOT" && find usr/bin usr/sbin usr/share/man -type f | sed 's/\.gz$//' | sort) > "$T_DIR/pkg.list"
(cd "$DEST" && find usr/bin usr/sbin usr/share/man -type f | sort) > "$T_DIR/inst.list"
check "make install: the package's tools and man pages" cmp -s "$T_DIR/pkg.list" "$T_DIR/inst.list"
make -C "$SRC" install-fsck DESTDIR="$DEST" > "$T_DIR/install-fsck.log" 2>&1
check "make install-fsck: exit 0" test $? = 0
check "make install-fsck: fsck.xfs links to fsck.xfsj" test "$(readlink "$DEST/usr/sbin/fsck.xfs")" = fsck.xfsj
check "make install-fsck: fsck.xfs -V runs ours" sh -c "'$DEST/usr/sbin/fsck.xfs' -V | grep -q fsck.xfsj"
check "make install-fsck: fsck.xfs.8" grep -q 'fsck.xfsj.8' "$DEST/usr/share/man/man8/fsck.xfs.8"

if [ "${PKG_DISTCHECK:-0}" = 1 ]; then
	make -C "$SRC" distcheck > "$T_DIR/distcheck.log" 2>&1
	check "make distcheck" test $? = 0
	tail -n 5 "$T_DIR/distcheck.log" | sed 's/^/#   /'
fi

t_done
