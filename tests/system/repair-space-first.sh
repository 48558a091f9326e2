#!/bin/bash
# A damaged directory in an AG whose space metadata is damaged too: the
# directory is written after the AG's headers and trees are mended, not
# through them (the pipeline's order: inode decisions, AG space, then
# the writes that need new blocks).
#
# The base image (for each of two profiles: mkfs.xfs 6.13 defaults, with
# the rmapbt, and -m rmapbt=0), made through the kernel: /d holds 100
# files of 64 KiB of random data, every other one removed (so the AG's
# bnobt holds a 16-block hole before each file left), and 300 empty files
# of long names (several directory blocks).  Each case is a copy with
# /d's second directory data block zeroed and one piece of damage to the
# space metadata of /d's AG, of a kind an allocation reads:
#   recmove    the bnobt record of the hole before /d/f01 moved onto
#              f01's own blocks (CRC kept good): a file's data called free
#   bnomagic   the bnobt root's magic zeroed (xfs_db fuzz)
#   rmapmagic  the rmapbt root's magic zeroed (rmapbt profile only)
#   cntroot    the AGF's cntroot decremented: a root outside the AG
#   bnolevel   the AGF's bnolevel incremented past the maximum
#   flcount    the AGF's flcount incremented past the AGFL's slots
#   agfmagic   the AGF's magic zeroed
# The test first proves that both checkers see the damage (xfsj-repair
# -n: the case's problem and dir.magic; xfs_repair -n exits 1).  Then
# xfsj-repair on one copy, xfs_repair on another:
#   - ours exits 1 and both checkers call it clean afterwards;
#   - the AG's headers or trees are rebuilt before the directory is;
#   - every file left in /d has its bytes (md5sum of the 50 files), and
#     the kernel mounts it;
#   - /d keeps at least as many names as xfs_repair's result keeps (the
#     names in the zeroed block go to lost+found in both).
# Before 901c526 the recmove case (with the rmapbt) rewrote /d while the
# bnobt still called f01's blocks free: the write failed after the old
# blocks had left the fork, and /d came out empty (0 names kept, 278 for
# xfs_repair).  Before the names waited for every AG fix an allocation
# reads, the other cases rewrote /d through the damaged tree or header:
# rmapmagic lost every name of /d (350 inodes in lost+found by number),
# the others ran out of rounds (exit 4, 92 names against 278).
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

# locate IMG: AG and AGB, the start of /d/f01's first extent (AG, AGBNO) and
# F01, its inode; 1 when the layout is not the one the test needs
locate() {
	local line
	line=$("$DB" -r -c 'path /d/f01' -c bmap "$1" | head -1)
	# "data offset 0 startblock N (AG/AGBNO) count 16 flag 0"
	AG=$(sed -n 's/.*(\([0-9]*\)\/\([0-9]*\)).*/\1/p' <<<"$line")
	AGB=$(sed -n 's/.*(\([0-9]*\)\/\([0-9]*\)).*/\2/p' <<<"$line")
	F01=$("$DB" -r -c 'path /d/f01' -c 'p v3.inumber' "$1" |
		awk '$1 == "v3.inumber" { print $3 }')
	[ -n "$AG" ] && [ -n "$AGB" ] && [ -n "$F01" ]
}

# damage IMG KIND: /d's second data block zeroed and KIND's damage in
# AG $AG (above); 1 when it could not be placed
damage() {
	local img=$1 kind=$2 rec blk bs
	case $kind in
	recmove)
		# the bnobt record ending where f01 starts: the hole f00 left
		rec=$("$DB" -r -c "agf $AG" -c 'addr bnoroot' -c 'p recs' \
			"$img" | tr ' ' '\n' | grep '^[0-9]*:\[' |
			tr ':[],' '    ' |
			awk -v b="$AGB" '$2 + $3 == b { print $1; exit }')
		[ -n "$rec" ] || return 1
		"$DB" -x -c "agf $AG" -c 'addr bnoroot' \
			-c "write recs[$rec].startblock $AGB" "$img" ;;
	bnomagic|rmapmagic)
		"$DB" -x -c "agf $AG" -c "addr ${kind%magic}root" \
			-c 'fuzz -d magic zeroes' "$img" ;;
	cntroot) "$DB" -x -c "agf $AG" -c 'fuzz -d cntroot sub' "$img" ;;
	bnolevel) "$DB" -x -c "agf $AG" -c 'fuzz -d bnolevel add' "$img" ;;
	flcount) "$DB" -x -c "agf $AG" -c 'fuzz -d flcount add' "$img" ;;
	agfmagic) "$DB" -x -c "agf $AG" -c 'fuzz -d magicnum zeroes' "$img" ;;
	*) return 1 ;;
	esac > /dev/null 2>&1 || return 1
	blk=$("$DB" -r -c 'path /d' -c bmap "$img" 2>/dev/null |
		awk '/^data offset 1 startblock/ { print $5; exit }')
	bs=$("$DB" -r -c 'sb 0' -c 'p blocksize' "$img" 2>/dev/null |
		awk '{ print $3 }')
	[ -n "$blk" ] && [ -n "$bs" ] || return 1
	dd if=/dev/zero of="$img" bs="$bs" seek="$blk" count=1 conv=notrunc \
		status=none
}

# seen KIND: the problem xfsj-repair -n names for KIND's damage (a regex)
seen() {
	case $1 in
	recmove) echo "space.free_and_used: .* used by inode $F01 data" ;;
	bnomagic) echo "btree.magic: bnobt block" ;;
	rmapmagic) echo "btree.magic: rmapbt block" ;;
	cntroot) echo "agf.root: AGF of AG $AG: cnt_root" ;;
	bnolevel) echo "agf.level: AGF of AG $AG: bno_level" ;;
	flcount) echo "agf.flist: AGF of AG $AG: flcount" ;;
	agfmagic) echo "agf.magic: AGF of AG $AG" ;;
	esac
}

for prof in rmap normap; do
	base=$T_DIR/$prof.img
	opts=()
	kinds="recmove bnomagic rmapmagic cntroot bnolevel flcount agfmagic"
	if [ $prof = normap ]; then
		opts=(-m rmapbt=0)
		kinds=${kinds/rmapmagic /}
	fi
	make_base "$base" "${opts[@]}" ||
		{ not_ok "$prof: base image made through the kernel"; continue; }
	AG= AGB= F01=
	locate "$base" ||
		{ not_ok "$prof: /d/f01 located in the base image"; continue; }
	for kind in $kinds; do
		c="$prof $kind"
		img=$T_DIR/damaged.img
		cp --sparse=always "$base" "$img"
		damage "$img" $kind ||
			{ not_ok "$c: damage placed"; continue; }
		out=$("$REPAIR" -n "$img" 2>&1)
		check "$c: xfsj-repair -n sees the AG damage" \
			grep -q "$(seen $kind)" <<<"$out"
		check "$c: xfsj-repair -n sees the zeroed directory block" \
			grep -q "dir.magic: directory inode" <<<"$out"
		"$XFSPROGS613/xfs_repair" -n "$img" > /dev/null 2>&1
		check "$c: xfs_repair -n finds the damage" test $? = 1

		cp --sparse=always "$img" "$T_DIR/ours.img"
		mv "$img" "$T_DIR/theirs.img"
		out=$("$REPAIR" -v "$T_DIR/ours.img" 2>&1)
		rc=$?
		check "$c: xfsj-repair fixes it (exit $rc)" test $rc = 1
		check "$c: the AG's headers or trees are rebuilt before the directory is" \
			awk '/fixed: rebuilt the / && !b { b = NR }
			     /fixed: rebuilt directory/ && !d { d = NR }
			     END { exit !(b && d && b < d) }' <<<"$out"
		"$XFSPROGS613/xfs_repair" "$T_DIR/theirs.img" > /dev/null 2>&1
		"$REPAIR" -n "$T_DIR/ours.img" > /dev/null 2>&1
		check "$c: xfsj-repair -n is clean after it" test $? = 0
		"$XFSPROGS613/xfs_repair" -n "$T_DIR/ours.img" > /dev/null 2>&1
		check "$c: xfs_repair -n is clean after it" test $? = 0
		n=$(files_ok "$T_DIR/ours.img")
		check "$c: every file's bytes kept, the kernel mounts it ($n of 50)" \
			test "$n" = 50
		ours=$(names_in "$T_DIR/ours.img" /d)
		theirs=$(names_in "$T_DIR/theirs.img" /d)
		check "$c: /d keeps as many names as xfs_repair's ($ours, xfs_repair $theirs)" \
			test "$ours" -ge "$theirs" -a "$theirs" -gt 0
		rm -f "$T_DIR/ours.img" "$T_DIR/theirs.img"
	done
	rm -f "$base"
done
t_done || exit 1
