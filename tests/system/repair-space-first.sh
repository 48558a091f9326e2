#!/bin/bash
# A damaged directory in an AG whose free space is in doubt: the directory
# is written after the AG's free space trees are rebuilt, not through
# them (the pipeline's order: inode decisions, AG space, then the writes
# that need new blocks).
#
# The image (for each of two profiles: mkfs.xfs 6.13 defaults, with the
# rmapbt, and -m rmapbt=0), made through the kernel: /d holds 100 files
# of 64 KiB of random data, every other one removed (so AG 0's bnobt holds
# a 16-block hole before each file left), and 300 empty files of long
# names (several directory blocks).  Then two pieces of damage:
#   - the bnobt record of the hole before /d/f01 is moved onto f01's own
#     blocks (its CRC kept good): the bnobt calls a file's data free;
#   - /d's second directory data block is zeroed.
# The test first proves that both checkers see both (xfsj-repair -n:
# space.free_and_used naming f01's inode and dir.magic; xfs_repair -n
# exits 1).  Then xfsj-repair on one copy, xfs_repair on another:
#   - both checkers call ours clean afterwards and the kernel mounts it;
#   - every file left in /d has its bytes (md5sum of the 50 files);
#   - /d keeps at least as many names as xfs_repair's result keeps (the
#     names in the zeroed block go to lost+found in both).
# Before the fix, with the rmapbt, /d was rewritten while the bnobt still
# called f01's blocks free: the new block collided with f01's reverse
# mapping, the write failed after the old blocks had left the fork, and
# /d came out empty (0 names kept, 278 for xfs_repair).
export LC_ALL=C
source "$(dirname "$0")/lib/common.sh"
need_root
oracle_613
DB=$XFSPROGS613/xfs_db REPAIR=${XFSJ_REPAIR:-$BUILD/xfsj-repair}
MNT=$T_DIR/mnt

# make_base IMG [mkfs options...]
make_base() {
	local img=$1 dev rc=1 i
	shift
	truncate -s 512m "$img"
	"$XFSPROGS613/mkfs.xfs" -q -f -d agcount=4 "$@" "$img" || return 1
	dev=$(attach_loop "$img") || return 1
	if t_mount "$dev" "$MNT"; then
		rc=0
		mkdir "$MNT/d" || rc=1
		for i in $(seq -w 0 99); do
			head -c 65536 /dev/urandom > "$MNT/d/f$i" || rc=1
		done
		sync
		for i in $(seq -w 0 2 99); do
			rm "$MNT/d/f$i" || rc=1
		done
		for i in $(seq -w 0 299); do
			touch "$MNT/d/entry-with-a-rather-long-name-number-$i" ||
				rc=1
		done
		(cd "$MNT/d" && md5sum f*) > "$T_DIR/md5" || rc=1
		t_umount "$MNT" || rc=1
	fi
	detach_loop "$dev"
	return $rc
}

# names_in IMG DIR: how many entries DIR holds (xfs_db's lines
# "offset ino type hash namelen name (good)", less . and ..)
names_in() {
	"$DB" -r -c "ls $2" "$1" 2>/dev/null |
		awk 'NF >= 6 && $(NF - 1) != "." && $(NF - 1) != ".."' | wc -l
}

# files_ok IMG: how many of /d's files still have their bytes
files_ok() {
	local dev n=0
	dev=$(attach_loop "$1") || { echo 0; return; }
	if t_mount "$dev" "$MNT" ro; then
		n=$(cd "$MNT/d" && md5sum -c "$T_DIR/md5" 2>/dev/null |
			grep -c ': OK$')
		t_umount "$MNT"
	fi
	detach_loop "$dev"
	echo "$n"
}

# damage IMG: the two pieces of damage above; 1 when the layout is not
# the one the test needs
damage() {
	local img=$1 line ag agb rec blk bs
	line=$("$DB" -r -c 'path /d/f01' -c bmap "$img" | head -1)
	# "data offset 0 startblock N (AG/AGBNO) count 16 flag 0"
	ag=$(sed -n 's/.*(\([0-9]*\)\/\([0-9]*\)).*/\1/p' <<<"$line")
	agb=$(sed -n 's/.*(\([0-9]*\)\/\([0-9]*\)).*/\2/p' <<<"$line")
	[ -n "$ag" ] && [ -n "$agb" ] || return 1
	# the bnobt record ending where f01 starts: the hole f00 left
	rec=$("$DB" -r -c "agf $ag" -c 'addr bnoroot' -c 'p recs' "$img" |
		tr ' ' '\n' | grep '^[0-9]*:\[' | tr ':[],' '    ' |
		awk -v b="$agb" '$2 + $3 == b { print $1; exit }')
	[ -n "$rec" ] || return 1
	"$DB" -x -c "agf $ag" -c 'addr bnoroot' \
		-c "write recs[$rec].startblock $agb" "$img" > /dev/null ||
		return 1
	blk=$("$DB" -r -c 'path /d' -c bmap "$img" |
		awk '/^data offset 1 startblock/ { print $5; exit }')
	bs=$("$DB" -r -c 'sb 0' -c 'p blocksize' "$img" | awk '{ print $3 }')
	[ -n "$blk" ] && [ -n "$bs" ] || return 1
	dd if=/dev/zero of="$img" bs="$bs" seek="$blk" count=1 conv=notrunc \
		status=none
	F01=$("$DB" -r -c 'path /d/f01' -c 'p v3.inumber' "$img" |
		awk '$1 == "v3.inumber" { print $3 }')
	[ -n "$F01" ]
}

for prof in rmap normap; do
	base=$T_DIR/$prof.img
	opts=()
	[ $prof = normap ] && opts=(-m rmapbt=0)
	make_base "$base" "${opts[@]}" ||
		{ not_ok "$prof: base image made through the kernel"; continue; }
	F01=
	damage "$base" ||
		{ not_ok "$prof: damage placed (bnobt hole before f01, /d block 1)"; continue; }
	out=$("$REPAIR" -n "$base" 2>&1)
	check "$prof: xfsj-repair -n sees f01's blocks free in the bnobt" \
		grep -q "space.free_and_used: .* used by inode $F01 data" <<<"$out"
	check "$prof: xfsj-repair -n sees the zeroed directory block" \
		grep -q "dir.magic: directory inode" <<<"$out"
	"$XFSPROGS613/xfs_repair" -n "$base" > /dev/null 2>&1
	check "$prof: xfs_repair -n finds the damage" test $? = 1

	cp --sparse=always "$base" "$T_DIR/ours.img"
	cp --sparse=always "$base" "$T_DIR/theirs.img"
	out=$("$REPAIR" -v "$T_DIR/ours.img" 2>&1)
	rc=$?
	check "$prof: xfsj-repair fixes it (exit $rc)" test $rc = 1
	check "$prof: the AG's trees are rebuilt before the directory is written" \
		awk '/rebuilt the bnobt of AG/ { b = NR }
		     /rebuilt directory/ { d = NR }
		     END { exit !(b && d && b < d) }' <<<"$out"
	"$XFSPROGS613/xfs_repair" "$T_DIR/theirs.img" > /dev/null 2>&1
	"$REPAIR" -n "$T_DIR/ours.img" > /dev/null 2>&1
	check "$prof: xfsj-repair -n is clean after it" test $? = 0
	"$XFSPROGS613/xfs_repair" -n "$T_DIR/ours.img" > /dev/null 2>&1
	check "$prof: xfs_repair -n is clean after it" test $? = 0
	n=$(files_ok "$T_DIR/ours.img")
	check "$prof: every file's bytes kept, the kernel mounts it ($n of 50)" \
		test "$n" = 50
	ours=$(names_in "$T_DIR/ours.img" /d)
	theirs=$(names_in "$T_DIR/theirs.img" /d)
	check "$prof: /d keeps as many names as xfs_repair's ($ours, xfs_repair $theirs)" \
		test "$ours" -ge "$theirs" -a "$theirs" -gt 0
	rm -f "$T_DIR/ours.img" "$T_DIR/theirs.img" "$base"
done
t_done || exit 1
