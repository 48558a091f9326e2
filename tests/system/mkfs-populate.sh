#!/bin/bash
# xfsj-mkfs -p DIR: a new filesystem filled from a directory tree.
#   - a tree with every kind of entry (small and multi-extent files, a
#     sparse 1 GiB file, a 20,000-entry directory, long names, short and
#     300-byte symlinks, device nodes, a FIFO, a socket, hard links across
#     directories, setuid/setgid/sticky modes, owners 1000:1000, xattrs
#     user.* up to 64 KiB, trusted.*, security.*, an ACL);
#   - xfs_repair -n (6.13) and xfsj-repair -n are clean; the kernel mounts
#     it and the tree equals the source (names, types, modes, owners,
#     sizes, mtimes, link counts, md5s, xattrs, hard-link groups, holes:
#     the same blocks allocated); a workload runs on it and the checkers
#     stay clean;
#   - with SOURCE_DATE_EPOCH and -m uuid=, two copies of the tree give
#     byte-identical images;
#   - built by an ordinary user (nobody) on an image file;
#   - mkfs.xfs 6.13 -p with xfs_protofile's protofile of the tree gives
#     the same names, types, modes, sizes and contents as xfsj-mkfs -p DIR
#     and as xfsj-mkfs -p with the same protofile;
#   - a seeded 5000-file tree (bench/mktree.py) on a small image: clean,
#     the same names and sizes, inodes in every AG;
#   - a source that cannot be copied: a one-line error naming it, exit 1,
#     and the image is left with the needs-repair flag (not mountable) and
#     sb_inprogress; xfsj-repair -n names the unfinished mkfs -p, -p stops
#     (exit 32) without writing, a full repair clears both and says so.
source "$(dirname "$0")/lib/common.sh"
need_root
oracle_613
command -v setfacl > /dev/null || { echo "$T_NAME: setfacl missing (scripts/deps.sh installs acl)" >&2; exit 2; }

# The source lives on an XFS filesystem of its own: 64 KiB xattrs,
# trusted.* and holes behave there as on the image.
SRCMNT=$T_DIR/srcmnt
truncate -s 1g "$T_DIR/srcfs.img"
"$XFSPROGS613/mkfs.xfs" -q -f "$T_DIR/srcfs.img" || { echo "$T_NAME: mkfs.xfs of the source fs" >&2; exit 2; }
sdev=$(attach_loop "$T_DIR/srcfs.img")
t_mount "$sdev" "$SRCMNT" nouuid || { echo "$T_NAME: cannot mount the source fs" >&2; exit 2; }
SRC=$SRCMNT/src
MNT=$T_DIR/mnt
IMG=$T_DIR/pop.img

make_tree() {
	local s=$1 i
	mkdir -p "$s"/many "$s"/long "$s"/a/b/c "$s"/links1 "$s"/links2
	echo hello > "$s"/small
	head -c 3000 /dev/urandom > "$s"/a/b/c/deep
	head -c $((8 << 20)) /dev/urandom > "$s"/big
	# Data runs with holes between them: one extent each (the size set
	# first, so that no write past the end fills the gap before it).
	truncate -s $((98 * 4096)) "$s"/multi
	for i in 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24; do
		head -c 8192 /dev/urandom | dd of="$s"/multi bs=4096 seek=$((i * 4)) conv=notrunc status=none
	done
	truncate -s 1G "$s"/sparse
	for i in 0 1000 9999 16383 131072 262143; do
		head -c 4096 /dev/urandom | dd of="$s"/sparse bs=4096 seek=$i conv=notrunc status=none
	done
	python3 -c 'import sys
for i in range(20000):
	open("%s/entry-%05d" % (sys.argv[1], i), "w").close()' "$s"/many
	for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
		: > "$s/long/$(printf "%0${i}d" 0)$(head -c $((250 - i)) /dev/zero | tr '\0' x)"
	done
	ln -s small "$s"/sl-short
	ln -s "$(head -c 300 /dev/zero | tr '\0' t)" "$s"/sl-long
	mknod "$s"/chr c 1 3
	mknod "$s"/blk b 7 200
	mkfifo "$s"/fifo
	python3 -c 'import socket,sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$s"/sock
	echo linked > "$s"/links1/one
	ln "$s"/links1/one "$s"/links2/two
	ln "$s"/links1/one "$s"/a/three
	chmod 4755 "$s"/small
	chmod 2750 "$s"/big
	mkdir "$s"/tmp && chmod 1777 "$s"/tmp
	chown 1000:1000 "$s"/small "$s"/a "$s"/sl-short
	chown -h 1000:1000 "$s"/sl-short
	setfattr -n user.small -v value "$s"/small
	python3 -c 'import os,sys; os.setxattr(sys.argv[1], "user.big", os.urandom(65536))' "$s"/big
	python3 -c 'import os,sys; os.setxattr(sys.argv[1], "user.mid", os.urandom(3000))' "$s"/a
	setfattr -n trusted.t -v tvalue "$s"/links1/one
	setfattr -n security.s -v svalue "$s"/multi
	setfattr -n user.dir -v d "$s"/many
	setfacl -m u:1000:rwx,g:1000:r "$s"/a/b/c/deep
	setfacl -d -m u:1000:rx "$s"/a/b
	touch -d '2020-01-02 03:04:05.123456789' "$s"/small "$s"/a/b
}

# manifest DIR: one line per entry (no directory sizes, which differ by
# filesystem; no atimes, which reading changes).
manifest() {
	(cd "$1" && find . -printf '%P|%y|%m|%U|%G|%n|%T@|%l|' -a \( -type d -printf '-\n' -o -printf '%s\n' \) | LC_ALL=C sort)
}
sums() { (cd "$1" && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 md5sum); }
xattrs() { (cd "$1" && find . -print0 | LC_ALL=C sort -z | xargs -0 getfattr -h -d -m - -e hex 2>/dev/null); }
links() {
	(cd "$1" && find . ! -type d -links +1 -printf '%i %P\n' | LC_ALL=C sort -k2 |
	 awk '{g[$1] = g[$1] " " $2} END {for (i in g) print g[i]}' | LC_ALL=C sort)
}
# The data runs (SEEK_DATA / SEEK_HOLE) of the files with holes.
runs() {
	python3 - "$1" <<'PY'
import os, sys
for name in ("sparse", "multi", "big"):
    fd = os.open(os.path.join(sys.argv[1], name), os.O_RDONLY)
    size, off, out = os.fstat(fd).st_size, 0, []
    while off < size:
        try:
            d = os.lseek(fd, off, os.SEEK_DATA)
        except OSError:
            break
        h = os.lseek(fd, d, os.SEEK_HOLE)
        out.append("%d-%d" % (d, h))
        off = h
    print(name, " ".join(out))
    os.close(fd)
PY
}

# compare WHAT A B: the two outputs are equal (a diff excerpt otherwise).
compare() {
	if cmp -s "$2" "$3"; then ok "$1"; else
		not_ok "$1"; diff "$2" "$3" | head -10 | sed 's/^/#   /'
	fi
}

# checkers IMG NAME: xfs_repair -n (6.13) and xfsj-repair -n are clean
# (their first findings shown otherwise).
checkers() {
	if "$XFSPROGS613/xfs_repair" -n "$1" > "$T_DIR/orc.out" 2>&1; then
		ok "$2: xfs_repair -n (6.13) is clean"
	else
		not_ok "$2: xfs_repair -n (6.13) is clean"
		grep -v '^        - \|^Phase' "$T_DIR/orc.out" | head -10 | sed 's/^/#   /'
	fi
	if "$BUILD/xfsj-repair" -n "$1" > "$T_DIR/ours.out" 2>&1; then
		ok "$2: xfsj-repair -n is clean"
	else
		not_ok "$2: xfsj-repair -n is clean"
		head -10 "$T_DIR/ours.out" | sed 's/^/#   /'
	fi
}

make_tree "$SRC"
for f in manifest sums xattrs links runs; do $f "$SRC" > "$T_DIR/src.$f"; done

truncate -s 512m "$IMG"
t0=$(date +%s.%N)
check "xfsj-mkfs -p DIR" "$MKFS" -q -f -p "$SRC" "$IMG"
awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "# populated in %.2f s\n", b - a }'
checkers "$IMG" "the populated image"

dev=$(attach_loop "$IMG")
if t_mount "$dev" "$MNT"; then
	ok "the kernel mounts it"
	for f in manifest sums xattrs links runs; do $f "$MNT" > "$T_DIR/img.$f"; done
	compare "names, types, modes, owners, link counts, mtimes, sizes" "$T_DIR/src.manifest" "$T_DIR/img.manifest"
	compare "contents (md5)" "$T_DIR/src.sums" "$T_DIR/img.sums"
	compare "xattrs and ACLs" "$T_DIR/src.xattrs" "$T_DIR/img.xattrs"
	compare "hard-link groups" "$T_DIR/src.links" "$T_DIR/img.links"
	compare "holes (data runs of sparse, multi, big)" "$T_DIR/src.runs" "$T_DIR/img.runs"
	check "the sparse 1 GiB file has 24 KiB allocated (stat %b)" test "$(stat -c %b "$MNT/sparse")" = 48
	check "/many has 20000 entries" test "$(ls "$MNT/many" | wc -l)" = 20000
	# A short workload on the result.
	(set -e
	 cp "$MNT/big" "$MNT/a/big2"
	 for i in $(seq 200); do echo "$i" > "$MNT/many/new-$i"; done
	 rm -f "$MNT"/many/entry-00*
	 mv "$MNT/links2/two" "$MNT/a/b/moved"
	 setfattr -n user.after -v 1 "$MNT/multi"
	 setfacl -m u:1000:r "$MNT/small"
	 mkdir -p "$MNT/w/x/y" && dd if=/dev/zero of="$MNT/w/x/y/z" bs=1M count=4 status=none
	 rm -rf "$MNT/long")
	check "a workload runs on the mounted result" test $? = 0
	t_umount "$MNT"
	detach_loop "$dev"
	checkers "$IMG" "after the workload"
else
	not_ok "the kernel mounts it"
	detach_loop "$dev"
fi

# Reproducible: two copies of the tree, the same bytes.
cp -a "$SRC" "$SRCMNT/copy"
for n in 1 2; do
	s=$SRC; [ $n = 2 ] && s=$SRCMNT/copy
	truncate -s 512m "$T_DIR/r$n.img"
	SOURCE_DATE_EPOCH=1700000000 "$MKFS" -q -f -m uuid=01234567-89ab-cdef-0123-456789abcdef \
		-p "file=$s" "$T_DIR/r$n.img" || not_ok "reproducible build $n"
done
check "SOURCE_DATE_EPOCH and -m uuid=: two copies of the tree give identical images" \
	cmp -s "$T_DIR/r1.img" "$T_DIR/r2.img"
dev=$(attach_loop "$T_DIR/r1.img")
if t_mount "$dev" "$MNT" ro,nouuid; then
	check "SOURCE_DATE_EPOCH clamps the times" test \
		"$(find "$MNT" -newermt @1700000000 | wc -l)" = 0
	check "times before SOURCE_DATE_EPOCH are kept" test \
		"$(stat -c %Y "$MNT/small")" = "$(stat -c %Y "$SRC/small")"
	t_umount "$MNT"
else
	not_ok "the reproducible image mounts"
fi
detach_loop "$dev"

# An ordinary user on an image file.
U=$T_DIR/user
mkdir -p "$U/src/d"
echo user > "$U/src/d/f"
ln -s d/f "$U/src/l"
chown -R nobody "$U"
# nobody runs a copy: the tree may be a clone under a 0700 directory.
UMKFS=$(t_private_copy "$MKFS") || { echo "$T_NAME: cannot copy $MKFS for nobody" >&2; exit 2; }
check "nobody builds an image file" runuser -u nobody -- "$UMKFS" -q -d file,size=300m -p "$U/src" "$U/img"
checkers "$U/img" "nobody's image"
dev=$(attach_loop "$U/img")
if t_mount "$dev" "$MNT" ro,nouuid; then
	check "nobody's image holds the tree" test "$(cat "$MNT/l")" = user
	t_umount "$MNT"
else
	not_ok "nobody's image mounts"
fi
detach_loop "$dev"

# mkfs.xfs 6.13 from xfs_protofile's protofile: the same tree.
# Sockets left out (protofiles have none); the modes of setgid and sticky
# entries too: 6.13's protofile path loses the sticky bit and garbles a
# setgid mode (2750 becomes 2275); and a sticky 1777 becomes 0177.
protoman() {
	(cd "$1" && find . ! -type s \( \( -path ./big -o -path ./tmp \) -printf '%P|%y|-|' -o -printf '%P|%y|%m|' \) \
		-a \( -type d -printf '-\n' -o -printf '%s\n' \) | LC_ALL=C sort)
}
if "$XFSPROGS613/xfs_protofile" "$SRC" > "$T_DIR/proto" 2> "$T_DIR/proto.err"; then
	truncate -s 512m "$T_DIR/m.img"
	"$XFSPROGS613/mkfs.xfs" -q -f -p "$T_DIR/proto" "$T_DIR/m.img" > "$T_DIR/m.out" 2>&1 ||
		sed -n '1,5s/^/#   /p' "$T_DIR/m.out"
	truncate -s 512m "$T_DIR/x.img" "$T_DIR/xp.img"
	"$MKFS" -q -f -p "$SRC" "$T_DIR/x.img"
	check "xfsj-mkfs -p PROTOFILE" "$MKFS" -q -f -p "$T_DIR/proto" "$T_DIR/xp.img"
	checkers "$T_DIR/xp.img" "xfsj-mkfs -p PROTOFILE"
	for k in m x xp; do
		dev=$(attach_loop "$T_DIR/$k.img")
		if t_mount "$dev" "$MNT" ro,nouuid; then
			protoman "$MNT" > "$T_DIR/$k.manifest"
			(cd "$MNT" && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 md5sum) > "$T_DIR/$k.sums"
			t_umount "$MNT"
		fi
		detach_loop "$dev"
	done
	compare "mkfs.xfs -p protofile and xfsj-mkfs -p DIR: names, types, modes, sizes" "$T_DIR/m.manifest" "$T_DIR/x.manifest"
	compare "mkfs.xfs -p protofile and xfsj-mkfs -p DIR: contents" "$T_DIR/m.sums" "$T_DIR/x.sums"
	compare "mkfs.xfs and xfsj-mkfs, the same protofile: names, types, modes, sizes" "$T_DIR/m.manifest" "$T_DIR/xp.manifest"
	compare "mkfs.xfs and xfsj-mkfs, the same protofile: contents" "$T_DIR/m.sums" "$T_DIR/xp.sums"
else
	not_ok "xfs_protofile of the tree"
	sed -n '1,3s/^/#   /p' "$T_DIR/proto.err"
fi

# A seeded 5,000-file tree (bench/mktree.py: xattrs, symlinks, hard
# links) on a 400 MiB image: it once failed with "no space left" (the
# AGFL refill inside an inode chunk's allocation took the spot chosen
# for the chunk).  Directories take the AGs in turn: every AG has inodes.
python3 "$TOP/bench/mktree.py" "$T_DIR/gen" 5000 25 1
truncate -s 400m "$T_DIR/gen.img"
check "a 5000-file tree on a 400 MiB image" "$MKFS" -q -f -p "$T_DIR/gen" "$T_DIR/gen.img"
checkers "$T_DIR/gen.img" "the 5000-file image"
agc=$("$XFSPROGS613/xfs_db" -r -c 'sb 0' -c 'print agcount' "$T_DIR/gen.img" | sed 's/.* = //')
used=0
for ((a = 0; a < agc; a++)); do
	c=$("$XFSPROGS613/xfs_db" -r -c "agi $a" -c 'print count' "$T_DIR/gen.img" | sed 's/.* = //')
	[ "${c:-0}" -gt 0 ] && used=$((used + 1))
done
check "inodes in every one of the $agc AGs" test "$used" = "$agc"
dev=$(attach_loop "$T_DIR/gen.img")
if t_mount "$dev" "$MNT" ro,nouuid; then
	check "the 5000-file image holds the tree's names and bytes" test \
		"$(cd "$T_DIR/gen" && find . -printf '%y %s %P\n' | grep -v '^d' | LC_ALL=C sort | md5sum)" = \
		"$(cd "$MNT" && find . -printf '%y %s %P\n' | grep -v '^d' | LC_ALL=C sort | md5sum)"
	t_umount "$MNT"
else
	not_ok "the 5000-file image mounts"
fi
detach_loop "$dev"

# A source that cannot be copied.
mkdir -p "$T_DIR/bad/d"
echo secret > "$T_DIR/bad/d/unreadable"
chmod 000 "$T_DIR/bad/d/unreadable"
chown -R nobody "$T_DIR/bad"
truncate -s 300m "$T_DIR/bad.img"
chown nobody "$T_DIR/bad.img"
runuser -u nobody -- "$UMKFS" -q -f -p "$T_DIR/bad" "$T_DIR/bad.img" > "$T_DIR/bad.out" 2>&1
check "an unreadable file: exit 1" test $? = 1
check "the error names the path" grep -q "cannot copy $T_DIR/bad/d/unreadable" "$T_DIR/bad.out"
check "the image is left needing repair" sh -c "'$XFSPROGS613/xfs_db' -r -c version '$T_DIR/bad.img' | grep -qi needsrepair"
# The flag says where it came from (sb_inprogress, as mkfs.xfs while it
# formats), and preen leaves it to a person: exit 32, nothing written.
check "an unfinished mkfs -p leaves sb_inprogress set" sh -c "'$XFSPROGS613/xfs_db' -r -c 'sb 0' -c 'print inprogress' '$T_DIR/bad.img' | grep -qx 'inprogress = 1'"
cp "$T_DIR/bad.img" "$T_DIR/bad.orig"
"$BUILD/xfsj-repair" -n "$T_DIR/bad.img" > "$T_DIR/bad.n" 2>&1
check "xfsj-repair -n names the unfinished mkfs -p" grep -q '^sb.primary.mkfs_unfinished: .*a mkfs -p did not finish' "$T_DIR/bad.n"
"$BUILD/xfsj-repair" -p "$T_DIR/bad.img" > "$T_DIR/bad.p" 2>&1
check "preen stops at the unfinished mkfs -p: exit 32" test $? = 32
check "preen names it" grep -q 'preen stops: sb.primary.mkfs_unfinished' "$T_DIR/bad.p"
check "preen writes nothing" cmp -s "$T_DIR/bad.orig" "$T_DIR/bad.img"
"$BUILD/xfsj-repair" "$T_DIR/bad.img" > "$T_DIR/bad.r" 2>&1
check "a full repair clears it and says where it came from" grep -q 'cleared the needs-repair flag an unfinished mkfs -p left' "$T_DIR/bad.r"
check "after it, xfs_repair -n is clean" sh -c "'$XFSPROGS613/xfs_repair' -n '$T_DIR/bad.img' > /dev/null 2>&1"

t_done
