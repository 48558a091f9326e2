#!/bin/bash
# xfsj-repair (without -n) fixes what the checker finds in inode cores: a
# fixed list of fuzz cases on the inodes of a populated image
# (lib/populate.sh, profile 4k): a regular file, a btree file, block and
# short-form directories, a symlink, each damaged the way fstests' fuzz
# tests do (`xfs_db -x -c "path P" -c "fuzz -d FIELD VERB"`), and on the
# AGI unlinked buckets (a bad head, an inode with links on a list).
# For each case, on a copy of the image:
#   - `$XFSPROGS613/xfs_repair -n` must detect the damage (exit 1), or
#     the case is skipped (said so; the list is made of detected ones);
#   - `xfsj-repair COPY` runs, then
#   - `$XFSPROGS613/xfs_repair -n COPY` exits 0 and `xfsj-repair -n COPY`
#     exits 0 (nothing left),
#   - a second `xfsj-repair COPY` exits 0 and changes nothing (the
#     image's data, holes skipped, hashes the same),
#   - the kernel mounts it and takes a short workload (write a file,
#     remove one, unmount).
# Every listed case either passes or fails (there is no pending list), on
# every profile; a summary line counts the cases and those fixed clean,
# and a run that judged fewer than REPAIR_INODE_JUDGED cases (detected by
# xfs_repair -n; default 45 of the 49 listed) fails.
#
#   REPAIR_INODE_PROFILE=p  the populated profile (default 4k)
#   REPAIR_INODE_JUDGED=n   the fewest judged cases (default 45)
#   XFSJ_VERBOSE=1   print every passing check too
source "$(dirname "$0")/lib/common.sh"
source "$(dirname "$0")/lib/populate.sh"
need_root
oracle_613
REPAIR=${XFSJ_REPAIR:-$BUILD/xfsj-repair}
DB=$XFSPROGS613/xfs_db
BASE=$T_DIR/base.img
CASE=$T_DIR/case.img
MNT=$T_DIR/mnt
# Our own redo file: the default one is named by the filesystem's uuid,
# which every populated image shares.
REDO=$T_DIR/redo

# "WHERE FIELD VERB [keep]" lines: the fixes of the inode stage handle
# these.  WHERE: a path (the inode), a path and a block of it
# ("PATH;dblock=N"), or "agi:AGNO"; VERB: a fuzz verb, or
# "=VALUE" to write that value; keep: the repair must clear no inode and
# move nothing to lost+found (the damage hides what the inode holds).
CASES="
/files/extents core.nlinkv2 add
/files/extents core.nlinkv2 sub
/dirs/block core.nlinkv2 add
/dirs/sf core.nlinkv2 zeroes
/links/short core.nlinkv2 zeroes
/files/extents core.nblocks add
/dirs/block core.nblocks firstbit
/files/sparse core.nblocks sub
/dirs/block core.size zeroes
/dirs/sf core.size add
/dirs/sf core.size zeroes
/links/short core.size zeroes
/links/long core.size zeroes
/files/extents core.flags ones
/dirs/sf core.flags ones
/links/short core.flags ones
/files/extents core.extsize ones
/dirs/block core.extsize add
/files/extents core.nextents add
/files/extents core.nextents ones
/files/sparse core.nextents add
/files/extents next_unlinked zeroes
/dirs/block next_unlinked add
/files/extents v3.uuid firstbit
/dirs/sf v3.uuid lastbit
/files/extents v3.inumber add
/dirs/block v3.inumber ones
/links/short v3.inumber sub
/files/extents v3.flags2 ones
/files/extents v3.flags2 zeroes
/files/extents v3.nrext64 zeroes
/dirs/node v3.nrext64 zeroes keep
/dirs/node v3.inumber ones keep
/dirs/node v3.uuid firstbit keep
/files/extents core.onlink add
/files/extents v3.cowextsize add
agi:0 unlinked[3] add
agi:0 unlinked[3] zeroes
agi:1 unlinked[10] firstbit
agi:0 unlinked[0] =128
/links/short core.mode firstbit
/dirs/sf/f0 core.mode firstbit
/dirs/block/entry_0003 core.mode firstbit
/dirs/leaf/entry_0003 core.mode firstbit
/links/long;dblock=0 crc ones keep
/dirs/block core.size add
/files/extents core.mode firstbit
/dirs/block core.mode firstbit
/dirs/block core.format ones
"

PROFILE=${REPAIR_INODE_PROFILE:-4k}
populate_image "$BASE" "$PROFILE" || exit 1

# The kernel mounts the image and takes a write, a remove, an unmount.
kernel_takes() {
	local dev ok=0
	dev=$(attach_loop "$1") || return 1
	# nouuid: every populated image (other tests' too) has one uuid.
	if t_mount "$dev" "$MNT" nouuid; then
		dd if=/dev/zero of="$MNT/repair-inode.new" bs=64k count=4 \
			status=none && rm -f "$MNT/repair-inode.new" "$MNT/files/small" ||
			ok=1
		t_umount "$MNT" || ok=1
	else
		ok=1
	fi
	detach_loop "$dev"
	return $ok
}

JUDGED=${REPAIR_INODE_JUDGED:-45}
NCASES=0 NCLEAN=0 NSKIP=0
# run_case WHERE FIELD VERB [keep]
run_case() {
	local where=$1 field=$2 verb=$3 keep=${4:-} what fails=() rc sum nav cmd blk=()
	what="$where $field $verb"
	case $where in
	/*\;*) nav="path ${where%%;*}" blk=(-c "${where#*;}") blk[1]=${blk[1]/=/ } ;;
	/*) nav="path $where" ;;
	*) nav=${where/:/ } ;;
	esac
	case $verb:$field in
	=*) cmd="write -d $field ${verb#=}" ;;
	*:*crc) cmd="fuzz -c $field $verb" ;;
	*) cmd="fuzz -d $field $verb" ;;
	esac
	cp --sparse=always "$BASE" "$CASE"
	"$DB" -x -c "$nav" "${blk[@]}" -c "$cmd" "$CASE" > /dev/null 2>&1
	"$XFSPROGS613/xfs_repair" -n "$CASE" > /dev/null 2>&1
	if [ $? -ne 1 ]; then
		echo "# skip: $what: xfs_repair -n does not detect it"
		NSKIP=$((NSKIP + 1))
		return
	fi
	NCASES=$((NCASES + 1))
	timeout 120 "$REPAIR" -r "$REDO" "$CASE" > "$T_DIR/repair.out" 2>&1
	rc=$?
	[ $rc -le 1 ] || fails+=("xfsj-repair exit $rc")
	# (the summary line names only the kinds of fix that were applied)
	[ "$keep" != keep ] ||
		! grep -E ' problems? found, [0-9]+ fix' "$T_DIR/repair.out" |
		grep -q 'inodes cleared\|entries reconnected' ||
		fails+=("xfsj-repair cleared an inode or reconnected entries")
	"$XFSPROGS613/xfs_repair" -n "$CASE" > "$T_DIR/oracle.out" 2>&1 ||
		fails+=("xfs_repair -n after exit $?")
	timeout 120 "$REPAIR" -n "$CASE" > "$T_DIR/check.out" 2>&1 ||
		fails+=("xfsj-repair -n after exit $?")
	sum=$(sparse_sum "$CASE")
	timeout 120 "$REPAIR" -r "$REDO" "$CASE" > "$T_DIR/again.out" 2>&1 ||
		fails+=("second xfsj-repair exit $?")
	[ "$sum" = "$(sparse_sum "$CASE")" ] ||
		fails+=("second xfsj-repair changed the image")
	kernel_takes "$CASE" || fails+=("the kernel refused it")
	if [ ${#fails[@]} -eq 0 ]; then
		NCLEAN=$((NCLEAN + 1))
		ok "$what"
		return
	fi
	not_ok "$what: $(IFS=';'; echo "${fails[*]}")"
	grep -v "log is clean" "$T_DIR/repair.out" | head -8 | sed 's/^/#   /'
	grep -v "log is clean" "$T_DIR/check.out" | head -4 | sed 's/^/#   /'
}

while read -r p f v k; do
	[ -n "$p" ] && run_case "$p" "$f" "$v" "$k"
done <<< "$CASES"
echo "# repair-inode ($PROFILE): $NCASES cases, $NCLEAN fixed clean, $NSKIP skipped (not detected)"
check "at least $JUDGED cases judged ($NCASES)" [ "$NCASES" -ge "$JUDGED" ]
t_done
