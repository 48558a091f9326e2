#!/bin/bash
# fsck.xfsj as fsck.xfs under util-linux fsck(8): `fsck -t xfs` with a
# directory holding the fsck.xfs link first on PATH (util-linux looks in
# PATH before /sbin, where xfsprogs' own fsck.xfs is), on loop devices:
#   - fsck -N shows ours is the one it runs;
#   - clean: -a and -n exit 0, nothing written;
#   - dirty log (made by `shutdown -f`; xfsj-repair -n says dirty first):
#     -n exits 0 and writes nothing, -a replays it (exit 1), the kernel
#     mounts it and sees the files, and it is clean after (exit 0);
#   - damaged, preen-safe (AGF freeblks): -n exits 4, -a fixes it (1),
#     then clean (0), xfs_repair -n 6.13 clean;
#   - damaged, beyond a preen (an inode's link count): -a exits 4 and
#     writes nothing, bare `fsck -t xfs` (preen by default) too, -y fixes
#     it (1), then clean, xfs_repair -n clean;
#   - an unfinished mkfs -p (needs-repair flag and sb_inprogress): -a
#     exits 4 and writes nothing, naming it; -y clears it and says so;
#   - a mounted device: exit 8, refused; -n -y together: exit 16;
#   - SIGTERM in the middle of a slowed preen: exit 32; the next run
#     finishes it from its redo file;
#   - -C FD: e2fsck's completion lines on FD;
#   - messages under fsck.xfsj's name, also run as fsck.xfs (not XFS, an
#     unknown -o); preen's reason for stopping on stdout;
#   - an external log: `fsck -t xfs DEV -- -l LOGDEV` checks and preens
#     it, `fsck.xfsj -o logdev=LOGDEV` checks it; without, exit 8 asking
#     for -l.
source "$(dirname "$0")/lib/common.sh"
need_root
oracle_613
command -v fsck > /dev/null || { echo "$T_NAME: fsck (util-linux) missing: scripts/deps.sh installs it" >&2; exit 2; }
FSCKJ=$BUILD/fsck.xfsj
[ -x "$FSCKJ" ] || { echo "$T_NAME: build first: no $FSCKJ" >&2; exit 2; }

# fsck.xfs first on PATH: a link to ours, as `make install-fsck` makes.
FBIN=$T_DIR/fsckbin
mkdir -p "$FBIN"
ln -s "$FSCKJ" "$FBIN/fsck.xfs"
export PATH=$FBIN:$PATH
MNT=$T_DIR/mnt

# fsck_rc EXPECTED NAME FSCK-ARGS... : util-linux fsck -t xfs exits EXPECTED.
fsck_rc() {
	local want=$1 what=$2 rc
	shift 2
	fsck -t xfs "$@" > "$T_DIR/out" 2>&1
	rc=$?
	if [ "$rc" = "$want" ]; then
		ok "$what: exit $want"
	else
		not_ok "$what: exit $rc, expected $want"
		sed -n '1,8s/^/#   /p' "$T_DIR/out"
	fi
}

# A small filesystem with a directory of 50 files, cleanly unmounted.
make_fs() {
	local dev i
	rm -f "$1"
	truncate -s 300m "$1"
	"$MKFS" -q "$1" || return 1
	dev=$(attach_loop "$1") || return 1
	t_mount "$dev" "$MNT" || { detach_loop "$dev"; return 1; }
	mkdir "$MNT/d"
	for i in $(seq 50); do echo "$i" > "$MNT/d/f$i"; done
	stat -c %i "$MNT/d/f7" > "$1.ino"
	t_umount "$MNT"
	detach_loop "$dev"
}

make_fs "$T_DIR/base.img" || { echo "$T_NAME: cannot make the base image" >&2; exit 2; }
IMG=$T_DIR/img
cp "$T_DIR/base.img" "$IMG"
dev=$(attach_loop "$IMG")
fsck -N -t xfs "$dev" > "$T_DIR/dry" 2>&1
check "fsck -t xfs runs ours (fsck -N)" grep -qF "[$FBIN/fsck.xfs " "$T_DIR/dry"

# Clean.
fsck_rc 0 "clean, -a" -a "$dev"
fsck_rc 0 "clean, -n" -n "$dev"
fsck_rc 0 "clean, bare fsck" "$dev"
detach_loop "$dev"
check "clean: nothing written" cmp -s "$T_DIR/base.img" "$IMG"

# A dirty log: files created, the log forced, a forced shutdown.
cp "$T_DIR/base.img" "$IMG"
dev=$(attach_loop "$IMG")
if t_mount "$dev" "$MNT"; then
	mkdir "$MNT/new"
	for i in $(seq 100); do echo "$i" > "$MNT/new/g$i"; done
	xfs_io -x -c "shutdown -f" "$MNT"
	t_umount "$MNT"
fi
"$BUILD/xfsj-repair" -n "$dev" > /dev/null 2>&1
check "dirty log made (xfsj-repair -n: exit 2)" test $? = 2
detach_loop "$dev"
cp "$IMG" "$T_DIR/dirty.orig"
dev=$(attach_loop "$IMG")
fsck_rc 0 "dirty log, -n" -n "$dev"
detach_loop "$dev"
check "dirty log, -n: nothing written" cmp -s "$T_DIR/dirty.orig" "$IMG"
dev=$(attach_loop "$IMG")
fsck_rc 1 "dirty log, -a: replayed" -a "$dev"
fsck_rc 0 "dirty log replayed, then -n" -n "$dev"
if t_mount "$dev" "$MNT" ro; then
	# (names only: the data was never written back before the shutdown)
	check "the replayed files are there" test "$(ls "$MNT/new" | wc -l)" = 100
	t_umount "$MNT"
else
	not_ok "the replayed filesystem mounts"
fi
detach_loop "$dev"

# Damaged, preen-safe: the AGF's free block count.
cp "$T_DIR/base.img" "$IMG"
"$XFSPROGS613/xfs_db" -x -c 'agf 0' -c 'write -d freeblks 100' "$IMG" > /dev/null 2>&1
dev=$(attach_loop "$IMG")
fsck_rc 4 "bad AGF counter, -n" -n "$dev"
fsck_rc 1 "bad AGF counter, -a: fixed" -a "$dev"
fsck_rc 0 "bad AGF counter fixed, then -n" -n "$dev"
detach_loop "$dev"
check "bad AGF counter fixed: xfs_repair -n clean" "$XFSPROGS613/xfs_repair" -n "$IMG" > /dev/null 2>&1

# Damaged beyond a preen: a link count.
cp "$T_DIR/base.img" "$IMG"
"$XFSPROGS613/xfs_db" -x -c "inode $(cat "$T_DIR/base.img.ino")" -c 'write -d core.nlinkv2 7' "$IMG" > /dev/null 2>&1
cp "$IMG" "$T_DIR/nlink.orig"
dev=$(attach_loop "$IMG")
fsck_rc 4 "bad link count, -a: left" -a "$dev"
check "bad link count, -a: says to run -y" grep -q 'fsck.xfsj -y' "$T_DIR/out"
fsck -t xfs -a "$dev" > "$T_DIR/pout" 2> "$T_DIR/perr"
check "bad link count, -a: the reason on stdout, not stderr" \
	bash -c "grep -q 'preen stops: inode.nlink .*run fsck.xfsj -y' '$T_DIR/pout' && ! grep -q 'preen stops' '$T_DIR/perr'"
fsck_rc 4 "bad link count, bare fsck (preen): left" "$dev"
detach_loop "$dev"
check "bad link count, preen: nothing written" cmp -s "$T_DIR/nlink.orig" "$IMG"
dev=$(attach_loop "$IMG")
fsck_rc 1 "bad link count, -y: fixed" -y "$dev"
fsck_rc 0 "bad link count fixed, then -n" -n "$dev"
detach_loop "$dev"
check "bad link count fixed: xfs_repair -n clean" "$XFSPROGS613/xfs_repair" -n "$IMG" > /dev/null 2>&1

# An unfinished mkfs -p: the source cannot be read whole.
mkdir -p "$T_DIR/src/d"
echo secret > "$T_DIR/src/d/unreadable"
chmod 000 "$T_DIR/src/d/unreadable"
chown -R nobody "$T_DIR/src"
rm -f "$IMG"
truncate -s 300m "$IMG"
chown nobody "$IMG"
UMKFS=$(t_private_copy "$MKFS") || { echo "$T_NAME: cannot copy $MKFS for nobody" >&2; exit 2; }
runuser -u nobody -- "$UMKFS" -q -f -p "$T_DIR/src" "$IMG" > /dev/null 2>&1
check "unfinished mkfs -p: xfsj-mkfs exit 1" test $? = 1
cp "$IMG" "$T_DIR/mkfs.orig"
dev=$(attach_loop "$IMG")
fsck_rc 4 "unfinished mkfs -p, -a: left" -a "$dev"
check "unfinished mkfs -p, -a: names it" grep -q 'sb.primary.mkfs_unfinished' "$T_DIR/out"
detach_loop "$dev"
check "unfinished mkfs -p, -a: nothing written" cmp -s "$T_DIR/mkfs.orig" "$IMG"
dev=$(attach_loop "$IMG")
fsck_rc 1 "unfinished mkfs -p, -y: repaired" -y "$dev"
check "unfinished mkfs -p, -y: says where the flag came from" grep -q 'needs-repair flag an unfinished mkfs -p left' "$T_DIR/out"
fsck_rc 0 "unfinished mkfs -p repaired, then -n" -n "$dev"
detach_loop "$dev"

# Mounted: refused.  Two modes: a usage error.
cp "$T_DIR/base.img" "$IMG"
dev=$(attach_loop "$IMG")
if t_mount "$dev" "$MNT"; then
	fsck_rc 8 "mounted, -a: refused" -a "$dev"
	check "mounted: says so" grep -q 'is mounted' "$T_DIR/out"
	t_umount "$MNT"
else
	not_ok "the base image mounts"
fi
fsck_rc 16 "-n and -y together" -n -y "$dev"

# -C FD: completion lines.
"$FSCKJ" -a -C 3 "$dev" 3> "$T_DIR/progress" > /dev/null 2>&1
check "-C 3: exit 0" test $? = 0
check "-C 3: start and end lines" test "$(cat "$T_DIR/progress")" = "1 0 100 $dev
1 100 100 $dev"
detach_loop "$dev"

# Canceled: SIGTERM while a slowed preen commits a replay; the redo file
# lets the next run finish it.
cp "$T_DIR/dirty.orig" "$IMG"
dev=$(attach_loop "$IMG")
# (0.2 s a page: the replay's commit takes several seconds.)
XFSJ_REPAIR_TEST_DELAY_US=200000 "$FSCKJ" -a "$dev" > "$T_DIR/cancel.out" 2>&1 &
pid=$!
sleep 1.5
check "SIGTERM: still running after 1.5 s" kill -0 "$pid"
kill -TERM "$pid"
wait "$pid"
check "SIGTERM: exit 32" test $? = 32
fsck_rc 1 "after the cancel, -a finishes the replay" -a "$dev"
fsck_rc 0 "then -n" -n "$dev"
detach_loop "$dev"

# Messages: fsck.xfsj's name, also as fsck.xfs.
truncate -s 64m "$T_DIR/zeros.img"
for prog in "$FSCKJ" "$FBIN/fsck.xfs"; do
	"$prog" -n "$T_DIR/zeros.img" > /dev/null 2> "$T_DIR/name.err"
	rc=$?
	check "$(basename "$prog") on zeros: exit 8" test $rc = 8
	check "$(basename "$prog") on zeros: 'fsck.xfsj: ... not an XFS filesystem'" \
		grep -q "^fsck.xfsj: $T_DIR/zeros.img: not an XFS filesystem" "$T_DIR/name.err"
	check "$(basename "$prog"): no 'xfsj-repair:'" bash -c "! grep -q xfsj-repair: '$T_DIR/name.err'"
done
"$FSCKJ" -n -o nosuch "$T_DIR/zeros.img" > /dev/null 2> "$T_DIR/name.err"
check "-o nosuch: usage error (16), named" \
	bash -c "[ $? = 16 ] && grep -q '^fsck.xfsj: -o nosuch' '$T_DIR/name.err'"

# An external log device.
truncate -s 300m "$T_DIR/ext.img"
truncate -s 64m "$T_DIR/extlog.img"
"$MKFS" -q -f -l logdev="$T_DIR/extlog.img" "$T_DIR/ext.img" > /dev/null 2>&1
check "external log: made" test $? = 0
"$XFSPROGS613/xfs_db" -x -l "$T_DIR/extlog.img" -c 'agf 0' -c 'write -d freeblks 100' "$T_DIR/ext.img" > /dev/null 2>&1
ddev=$(attach_loop "$T_DIR/ext.img")
ldev=$(attach_loop "$T_DIR/extlog.img")
fsck_rc 8 "external log, -n without -l" -n "$ddev"
check "... asks for -l" grep -q 'external log: give its device with -l' "$T_DIR/out"
fsck_rc 4 "external log, fsck -t xfs -n DEV -- -l LOGDEV: the damage found" -n "$ddev" -- -l "$ldev"
fsck_rc 1 "external log, -a DEV -- -l LOGDEV: fixed" -a "$ddev" -- -l "$ldev"
fsck_rc 0 "external log, then -n -- -l: clean" -n "$ddev" -- -l "$ldev"
detach_loop "$ddev"
detach_loop "$ldev"
# (fsck(8) takes a word without a dash after -- for another device: the
# -o spelling is for fsck.xfsj run by itself)
"$FSCKJ" -n -o logdev="$T_DIR/extlog.img" "$T_DIR/ext.img" > "$T_DIR/out" 2>&1
check "external log, fsck.xfsj -n -o logdev=LOGDEV: clean (exit 0)" test $? = 0
check "external log: xfs_repair -n clean" "$XFSPROGS613/xfs_repair" -n -l "$T_DIR/extlog.img" "$T_DIR/ext.img" > /dev/null 2>&1

t_done
