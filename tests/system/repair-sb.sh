#!/bin/bash
# xfsj-repair restores a damaged primary superblock from the secondaries,
# before anything else is read with its geometry: a fixed list of fields
# of the primary of a populated image (lib/populate.sh, profile 4k),
# each damaged as fstests' fuzz tests do (`xfs_db -x -c "sb 0" -c "fuzz
# -d FIELD VERB"`).  The list holds the three ways such damage shows:
#   - the log cannot be opened (uuid: the log records name another;
#     logstart, logblocks, agblklog, inopblog: the log is not where or
#     what the primary says): the superblocks are repaired first, on
#     their own, then the log is read;
#   - the primary places the secondaries where none is (agblocks): they
#     are found by a search of the device, and none is written where the
#     wrong AG size puts it;
#   - the geometry is wrong but the log opens (sectsize, inodesize,
#     blocklog, dirblklog, rootino, agcount): the rest of the repair goes
#     on with the restored geometry, and nothing is cleared for it;
#   - a counter out of range (frextents without a realtime device): the
#     restored primary takes 0, not the damaged value;
#   - an inode pointer (rbmino): the inodes are judged by the restored
#     one (the realtime bitmap inode is not an orphan for lost+found).
# For each case, on a copy of the image:
#   - `$XFSPROGS613/xfs_repair -n` and `xfsj-repair -n` detect it (exit 1);
#   - `xfsj-repair COPY` exits 1 (fixed) and clears no inode and moves
#     no entry (the damage was the primary's alone);
#   - then `xfs_repair -n` and `xfsj-repair -n` exit 0, a second
#     `xfsj-repair` exits 0 without changing a byte, and the primary's
#     sector equals the undamaged image's but for the counters' CRC
#     (compared as `xfs_db sb 0 print` of both, counters and CRC aside);
#   - the kernel mounts it (nouuid: populated images share a uuid);
#   - whether xfs_repair, on another copy, ends clean is printed.
#
#   XFSJ_VERBOSE=1   print every passing check too
export LC_ALL=C
source "$(dirname "$0")/lib/common.sh"
source "$(dirname "$0")/lib/populate.sh"
need_root
oracle_613
DB=$XFSPROGS613/xfs_db
REPAIR=${XFSJ_REPAIR:-$BUILD/xfsj-repair}
BASE=$T_DIR/base.img
OURS=$T_DIR/ours.img
THEIRS=$T_DIR/theirs.img
MNT=$T_DIR/mnt

CASES="
uuid lastbit
uuid zeroes
logstart zeroes
logblocks lastbit
agblklog lastbit
inopblog firstbit
agblocks lastbit
agblocks firstbit
sectsize ones
inodesize zeroes
blocklog add
dirblklog lastbit
rootino firstbit
agcount add
frextents firstbit
rbmino sub
"

# The primary as xfs_db prints it, without what a repair recounts.
primary() {
	"$DB" -r -c "sb 0" -c print "$1" 2>/dev/null |
		grep -v -e '^icount' -e '^ifree' -e '^fdblocks' -e '^frextents' \
			-e '^crc' -e '^lsn'
}

populate_image "$BASE" 4k || { not_ok "the populated image"; t_done; }
primary "$BASE" > "$T_DIR/base.sb"

while read -r field verb; do
	[ -n "$field" ] || continue
	name="sb0 $field $verb"
	cp --sparse=always "$BASE" "$OURS"
	"$DB" -x -c "sb 0" -c "fuzz -d $field $verb" "$OURS" > /dev/null 2>&1
	cp --sparse=always "$OURS" "$THEIRS"
	"$XFSPROGS613/xfs_repair" -n "$OURS" > /dev/null 2>&1
	check "$name: xfs_repair -n detects it" test $? -eq 1
	# (logstart zeroes: the primary names an external log the
	# secondaries do not; reported, not refused asking for -l)
	"$REPAIR" -n "$OURS" > "$T_DIR/n1.out" 2>&1
	rc=$?
	check "$name: xfsj-repair -n detects it (exit $rc)" test $rc -eq 1

	"$REPAIR" "$OURS" > "$T_DIR/r1.out" 2>&1
	rc=$?
	check "$name: xfsj-repair fixes it (exit $rc)" test $rc -eq 1
	if [ $rc -ne 1 ]; then
		grep -v '^found' "$T_DIR/r1.out" | tail -3 | cut -c1-200 | sed 's/^/#   /'
		continue
	fi
	# (the summary names only the kinds of fix that were applied)
	check "$name: no inode cleared, no entry moved" \
		bash -c "! grep -v '^found\|^fixed' '$T_DIR/r1.out' | grep -q 'inodes cleared\|entries reconnected'"
	"$XFSPROGS613/xfs_repair" -n "$OURS" > "$T_DIR/o2.out" 2>&1
	check "$name: xfs_repair -n clean after" test $? -eq 0
	"$REPAIR" -n "$OURS" > "$T_DIR/n2.out" 2>&1
	check "$name: xfsj-repair -n clean after" test $? -eq 0
	sum=$(md5sum < "$OURS")
	"$REPAIR" "$OURS" > "$T_DIR/r2.out" 2>&1
	rc2=$?
	check "$name: a second xfsj-repair changes nothing (exit $rc2)" \
		test $rc2 -eq 0 -a "$sum" = "$(md5sum < "$OURS")"
	primary "$OURS" > "$T_DIR/ours.sb"
	check "$name: the primary is the undamaged one's" \
		cmp -s "$T_DIR/base.sb" "$T_DIR/ours.sb"
	dev=$(attach_loop "$OURS")
	if t_mount "$dev" "$MNT" ro,nouuid; then
		ok "$name: the kernel mounts it"
		t_umount "$MNT"
	else
		not_ok "$name: the kernel mounts it"
	fi
	detach_loop "$dev"

	timeout 300 "$XFSPROGS613/xfs_repair" "$THEIRS" > /dev/null 2>&1
	"$XFSPROGS613/xfs_repair" -n "$THEIRS" > /dev/null 2>&1 &&
		theirs=clean || theirs="not clean"
	echo "# $name: xfsj-repair: fixed and clean; xfs_repair: $theirs after its repair"
done <<< "$CASES"

t_done
