#!/bin/bash
# xfsj-repair keeps both files of a cross-link on a filesystem without
# rmapbt or reflink (nothing says whose the blocks are): one file keeps
# the blocks, the other gets fresh blocks holding a copy of them, as
# e2fsck's pass 1B clones multiply-claimed blocks; xfs_repair 6.13 clears
# an inode instead.
#
# The image: mkfs.xfs 6.13 -m rmapbt=0,reflink=0 (320 MiB), the kernel
# writes /a (10 blocks), /b (6 blocks) and /c (120 one-block extents, one
# block apart: a bmbt), each block of a pattern of its own.  Cases, each
# on a copy, made with `xfs_db -x`:
#   extents  /b's extent pointed at /a's first block (b is an extents
#            fork);
#   bmbt     the second record (recs[2]: xfs_db counts from 1) of /c's
#            first bmbt leaf (file offset 2 blocks) pointed at /a's
#            fourth block (c is a bmbt fork).
# For each case:
#   - `$XFSPROGS613/xfs_repair -n` detects it (exit 1);
#   - `xfsj-repair COPY` exits 1, says it gave the other file a copy
#     ("got a copy of") and counts the blocks cloned in its summary;
#     with -v the evidence model's reason ("why: clone", scores 0 over 0:
#     no evidence either way), and with --json (into another copy, -O)
#     the fix object's decision, why and scores, fitting the schema;
#   - `xfs_repair -n` and `xfsj-repair -n` are clean, a second
#     `xfsj-repair` exits 0 and changes no byte;
#   - the kernel mounts it: /a (the keeper: the lower inode, neither has
#     another problem) holds its original bytes; the cross-linked file
#     holds what its blocks held after the damage (the blocks of /a it
#     was pointed at, its other blocks its own), its size kept;
#   - `xfs_repair` on another copy: the files it keeps whole, printed
#     beside ours; ours keeps more.
# One more case, attr: /d holds 30 small xattrs and one ("user.big") of
# 8 KiB, a leaf and a remote value of 3 blocks; the attribute fork's
# mapping of the value (a.bmx[1]) pointed at /a's first blocks (the fuzz
# corpus's bmbt.attr recs[].startblock, seed 112).  The value's blocks
# fail their check, so the attribute fork is written again without it;
# its old blocks must not go back to the free space, which /a also
# claims: /a, /b and /c keep every byte, /d keeps the 30 small xattrs
# (xfs_repair 6.13 clears the whole fork), both checkers are clean after
# it and a second run changes nothing.
export LC_ALL=C
source "$(dirname "$0")/lib/common.sh"
need_root
oracle_613
# (the images, the mount point and the redo file: this test's own)
BASE=$T_DIR/base.img MNT=$T_DIR/mnt REDO=$T_DIR/redo
DB=$XFSPROGS613/xfs_db REPAIR=${XFSJ_REPAIR:-$BUILD/xfsj-repair}

# pattern SEED N: N 4 KiB blocks, each of bytes of its own (block i of
# seed s is block 0 of seed s + i).
PATTERN='
def pattern(seed, n):
    return b"".join(bytes((s * 31 + i) % 251 for i in range(4096))
                    for s in range(seed, seed + n))
'

make_base() {
	local dev
	truncate -s 320m "$BASE"
	"$XFSPROGS613/mkfs.xfs" -q -f -m rmapbt=0,reflink=0 "$BASE" || return 1
	dev=$(attach_loop "$BASE") || return 1
	t_mount "$dev" "$MNT" || { detach_loop "$dev"; return 1; }
	# a, b; c: a block every other block (holes between), written one
	# at a time: one extent each, a bmbt.
	python3 -c "$PATTERN"'
import os, sys
d = sys.argv[1]
open(d + "/a", "wb").write(pattern(1, 10))
open(d + "/b", "wb").write(pattern(20, 6))
fd = os.open(d + "/c", os.O_WRONLY | os.O_CREAT, 0o644)
for i in range(120):
    os.pwrite(fd, pattern(100 + i, 1), 2 * i * 4096)
    os.fsync(fd)
os.close(fd)
open(d + "/d", "wb").write(b"d" * 100)
for i in range(30):
    os.setxattr(d + "/d", "user.small%02d" % i, b"v" * 40)
os.setxattr(d + "/d", "user.big", pattern(50, 2))
' "$MNT" || return 1
	t_umount "$MNT"
	detach_loop "$dev"
}

# value IMG NAV... FIELD: one field xfs_db prints.
value() {
	local img=$1 field=${*: -1} args=() c
	for c in "${@:2:$#-2}"; do args+=(-c "$c"); done
	"$DB" -r "${args[@]}" -c "print $field" "$img" 2>/dev/null |
		awk -v f="$field" 'index($0, f " = ") == 1 { print substr($0, length(f) + 4) }'
}

# damage IMG CASE: the cross-link.
damage() {
	local img=$1 a0
	a0=$(value "$img" "path /a" "u3.bmx[0].startblock")
	case $2 in
	extents)
		"$DB" -x -c "path /b" -c "write -d u3.bmx[0].startblock $a0" \
			"$img" > /dev/null 2>&1 ;;
	bmbt)
		"$DB" -x -c "path /c" -c "addr u3.bmbt.ptrs[1]" \
			-c "write -d recs[2].startblock $((a0 + 3))" \
			"$img" > /dev/null 2>&1 ;;
	attr)
		"$DB" -x -c "path /d" -c "write -d a.bmx[1].startblock $a0" \
			"$img" > /dev/null 2>&1 ;;
	esac
}

# What the files should hold after the repair, into DIR/want.{a,b,c}:
# the base image's files, with the cross-linked one's damaged range
# holding /a's blocks.
expected() {
	local dir=$1 case=$2 dev
	dev=$(attach_loop "$BASE") || return 1
	t_mount "$dev" "$MNT" ro,nouuid || { detach_loop "$dev"; return 1; }
	cp "$MNT/a" "$MNT/b" "$MNT/c" "$dir/" &&
	t_umount "$MNT" && detach_loop "$dev" || return 1
	case $case in
	extents)
		head -c 24576 "$dir/a" > "$dir/b" ;;
	bmbt)	# c's second block (file offset 2 blocks): /a's fourth block
		dd if="$dir/a" of="$dir/c" bs=4096 skip=3 seek=2 count=1 \
			conv=notrunc status=none ;;
	esac
	return 0
}

# kept IMG WANTDIR: "N" files of a, b, c whose bytes are what WANTDIR
# holds (the original for a file the damage did not touch); -1 when the
# kernel refuses IMG.
kept() {
	local img=$1 want=$2 dev n=0 f
	dev=$(attach_loop "$img") || { echo -1; return; }
	if ! t_mount "$dev" "$MNT" ro,nouuid; then
		detach_loop "$dev"
		echo -1
		return
	fi
	for f in a b c; do
		[ -f "$MNT/$f" ] && cmp -s "$MNT/$f" "$want/$f" && n=$((n + 1))
	done
	t_umount "$MNT"
	detach_loop "$dev"
	echo $n
}

# repaired_clean: after the repair of $OURS, both checkers find it clean
# and a second xfsj-repair changes no byte (what is not, into fails).
repaired_clean() {
	local sum
	"$XFSPROGS613/xfs_repair" -n "$OURS" > /dev/null 2>&1 ||
		fails+=("xfs_repair -n after exit $?")
	timeout 60 "$REPAIR" -n "$OURS" > "$T_DIR/check.out" 2>&1 ||
		fails+=("xfsj-repair -n after exit $?")
	sum=$(md5sum < "$OURS")
	timeout 60 "$REPAIR" -r "$REDO" "$OURS" > /dev/null 2>&1 ||
		fails+=("second xfsj-repair exit $?")
	[ "$(md5sum < "$OURS")" = "$sum" ] || fails+=("second xfsj-repair changed it")
}

make_base || { not_ok "the base image"; t_done; }
# The conditions the cases need: b an extents fork, c a bmbt.
fmt_b=$(value "$BASE" "path /b" core.format)
fmt_c=$(value "$BASE" "path /c" core.format)
if [ "$fmt_b" = "2 (extents)" ] && [ "$fmt_c" = "3 (btree)" ]; then
	ok "the base image"
else
	not_ok "the base image: /b is '$fmt_b', /c is '$fmt_c'"
fi
for case in extents bmbt; do
	OURS=$T_DIR/ours.$case.img
	THEIRS=$T_DIR/theirs.$case.img
	WANT=$T_DIR/want.$case
	mkdir -p "$WANT"
	cp --sparse=always "$BASE" "$OURS"
	damage "$OURS" "$case"
	cp --sparse=always "$OURS" "$THEIRS"
	fails=()
	expected "$WANT" "$case" || fails+=("the kernel refuses the base image")
	"$XFSPROGS613/xfs_repair" -n "$OURS" > /dev/null 2>&1
	[ $? -eq 1 ] || fails+=("xfs_repair -n does not detect it")
	timeout 60 "$REPAIR" -v -r "$REDO" "$OURS" > "$T_DIR/repair.out" 2>&1
	rc=$?
	[ $rc -eq 1 ] || fails+=("xfsj-repair exit $rc")
	grep -q "space.multiply_claimed: inode [0-9]* got a copy of" "$T_DIR/repair.out" ||
		fails+=("no clone said")
	# the evidence model's reason: a tie (nothing says whose), cloned
	grep -q "^  why: clone (scores 0 over 0)" "$T_DIR/repair.out" ||
		fails+=("-v says no 'why: clone'")
	timeout 60 "$REPAIR" --json -O "$T_DIR/json.img" "$THEIRS" \
		> "$T_DIR/repair.json" 2>/dev/null
	rm -f "$T_DIR/json.img"
	python3 "$TOP/tests/system/lib/jsonschema.py" "$TOP/doc/json-schema.json" \
		xfsj-repair stdout "$T_DIR/repair.json" --need fix > /dev/null ||
		fails+=("--json does not fit the schema")
	grep -q '"code":"space.multiply_claimed".*"decision":"clone","why":\[\],"scores":{"kept":0,"gave_way":0}' \
		"$T_DIR/repair.json" || fails+=("--json: no clone decision with its why")
	cloned=$(sed -n 's/.*blocks cloned \([0-9]*\).*/\1/p' "$T_DIR/repair.out")
	want_cloned=6
	[ "$case" = bmbt ] && want_cloned=1
	[ "${cloned:-0}" = "$want_cloned" ] ||
		fails+=("summary says ${cloned:-no} blocks cloned, not $want_cloned")
	repaired_clean
	ours=$(kept "$OURS" "$WANT")
	[ "$ours" = 3 ] || fails+=("$ours of 3 files hold what they should")
	"$XFSPROGS613/xfs_repair" "$THEIRS" > /dev/null 2>&1
	theirs=$(kept "$THEIRS" "$WANT")
	echo "# $case: files kept whole: xfsj-repair $ours, xfs_repair $theirs (of 3); blocks cloned ${cloned:-0}"
	[ "$ours" -gt "$theirs" ] ||
		fails+=("keeps $ours files, xfs_repair $theirs: not more")
	[ ${#fails[@]} -eq 0 ] && { ok "$case"; continue; }
	not_ok "$case: $(IFS=';'; echo "${fails[*]}")"
	# What the repair said, then what the check after it found.
	{
		grep -v "^found: space.leaked\|log is clean" "$T_DIR/repair.out" | head -8
		grep -v "log is clean" "$T_DIR/check.out" | head -4
	} | sed 's/^/#   /'
done

# xattrs IMG: how many xattrs the kernel lists on /d (-1: refused).
xattrs() {
	local dev n
	dev=$(attach_loop "$1") || { echo -1; return; }
	if ! t_mount "$dev" "$MNT" ro,nouuid; then
		detach_loop "$dev"
		echo -1
		return
	fi
	n=$(python3 -c 'import os, sys; print(len(os.listxattr(sys.argv[1])))' \
		"$MNT/d" 2>/dev/null || echo -1)
	t_umount "$MNT"
	detach_loop "$dev"
	echo "$n"
}

OURS=$T_DIR/ours.attr.img THEIRS=$T_DIR/theirs.attr.img WANT=$T_DIR/want.attr
mkdir -p "$WANT"
cp --sparse=always "$BASE" "$OURS"
fails=()
[ "$(value "$OURS" "path /d" core.aformat)" = "2 (extents)" ] &&
	[ "$(value "$OURS" "path /d" "a.bmx[1].blockcount")" = 3 ] ||
	fails+=("/d's attribute fork is not a leaf and a 3-block value")
damage "$OURS" attr
cp --sparse=always "$OURS" "$THEIRS"
expected "$WANT" attr || fails+=("the kernel refuses the base image")
"$XFSPROGS613/xfs_repair" -n "$OURS" > /dev/null 2>&1
[ $? -eq 1 ] || fails+=("xfs_repair -n does not detect it")
timeout 60 "$REPAIR" -r "$REDO" "$OURS" > "$T_DIR/repair.out" 2>&1
rc=$?
[ $rc -eq 1 ] || fails+=("xfsj-repair exit $rc")
grep -q "found: space.multiply_claimed: .* by inode [0-9]* attr and by inode [0-9]* data" \
	"$T_DIR/repair.out" || fails+=("no cross-link of an attr fork and data found")
grep -q "rebuilt attribute fork: 30 kept, 1 dropped" "$T_DIR/repair.out" ||
	fails+=("the attribute fork was not rewritten with the 30 small xattrs")
repaired_clean
ours=$(kept "$OURS" "$WANT") ox=$(xattrs "$OURS")
[ "$ours" = 3 ] || fails+=("$ours of 3 files hold their bytes")
[ "$ox" = 30 ] || fails+=("/d has $ox xattrs, not 30")
"$XFSPROGS613/xfs_repair" "$THEIRS" > /dev/null 2>&1
theirs=$(kept "$THEIRS" "$WANT") tx=$(xattrs "$THEIRS")
echo "# attr: files kept whole: xfsj-repair $ours, xfs_repair $theirs (of 3); xattrs of /d: $ox and $tx (of 31)"
[ "$ours" -ge "$theirs" ] && [ "$ox" -gt "$tx" ] ||
	fails+=("keeps $ours files and $ox xattrs, xfs_repair $theirs and $tx: not more")
if [ ${#fails[@]} -eq 0 ]; then
	ok "attr"
else
	not_ok "attr: $(IFS=';'; echo "${fails[*]}")"
	grep -v "log is clean" "$T_DIR/repair.out" "$T_DIR/check.out" | head -12 |
		sed 's/^/#   /'
fi
t_done
