#!/bin/bash
# xfsj-repair gives back the parent pointers of every child of a large
# directory (pptr.missing), reading the directory once for all of them.
#
# The image: mkfs.xfs 6.13 -n parent=1 (512 MiB); the kernel makes /d
# with NFILES files and NDIRS subdirectories, /e with 300 files, and a
# hard link /e/link of /d/f1 (two parent pointers).  With `xfs_db -x`
# (its commands on standard input), the short-form attribute fork of
# every child of /d is emptied (count 0, size 4): each loses its parent
# pointer (/d/f1, which is /e/link too, both of its).  Then:
#   - `$XFSPROGS613/xfs_repair -n` detects it;
#   - `xfsj-repair COPY` exits 1, one fix per pointer lost (NFILES +
#     NDIRS + 1), nothing left;
#   - `xfs_repair -n` and `xfsj-repair -n` are clean, a second
#     `xfsj-repair` exits 0 and changes no byte;
#   - the kernel mounts it: /d lists every name, and the parent pointers
#     `xfs_io -c parent` lists for /d/f1 name /d (f1) and /e (link), for
#     /d/f$NFILES and /d/s1 the entries naming them;
#   - `xfs_repair` on another copy: both tools' wall time printed (a
#     figure, not a check).  Before xfsj read each directory once, every
#     pointer given back read the whole directory again: this test's
#     4,021 took 2.57 s (0.07 s since, xfs_repair 0.30 s), and 23,000 of
#     one directory 142 s (0.5 s since, xfs_repair 1.2 s).
#
#   NFILES=n (default 4000), NDIRS=n (default 20)
export LC_ALL=C
source "$(dirname "$0")/lib/common.sh"
need_root
oracle_613
BASE=$T_DIR/base.img MNT=$T_DIR/mnt
DB=$XFSPROGS613/xfs_db REPAIR=${XFSJ_REPAIR:-$BUILD/xfsj-repair}
NFILES=${NFILES:-4000}
NDIRS=${NDIRS:-20}

make_base() {
	local dev rc=1
	truncate -s 512m "$BASE"
	"$XFSPROGS613/mkfs.xfs" -q -f -n parent=1 "$BASE" || return 1
	dev=$(attach_loop "$BASE") || return 1
	if t_mount "$dev" "$MNT"; then
		mkdir "$MNT/d" "$MNT/e" &&
			(cd "$MNT/d" && seq -f 'f%.0f' 1 "$NFILES" | xargs touch &&
			 seq -f 's%.0f' 1 "$NDIRS" | xargs mkdir) &&
			(cd "$MNT/e" && seq -f 'g%.0f' 1 300 | xargs touch) &&
			ln "$MNT/d/f1" "$MNT/e/link" && rc=0
		t_umount "$MNT"
	fi
	detach_loop "$dev"
	return $rc
}

# strip IMG: every child of /d loses its attribute fork's entries.
strip() {
	local i
	{
		for ((i = 1; i <= NFILES; i++)); do
			printf 'path /d/f%d\nwrite a.sfattr.hdr.count 0\nwrite a.sfattr.hdr.totsize 4\n' "$i"
		done
		for ((i = 1; i <= NDIRS; i++)); do
			printf 'path /d/s%d\nwrite a.sfattr.hdr.count 0\nwrite a.sfattr.hdr.totsize 4\n' "$i"
		done
	} | "$DB" -x "$1" > "$T_DIR/db.out" 2>&1
}

# parents IMG PATH: the "ino name" pairs of PATH's parent pointers, sorted.
parents() {
	"$XFSPROGS613/xfs_io" -r -c parent "$MNT$1" |
		awk '/^p_ino / { i = $3 } /^p_name / { print i, $3 }' | sort
}

ino_of() { stat -c %i "$MNT$1"; }

make_base || not_ok "the kernel makes /d ($NFILES files, $NDIRS directories)"
OURS=$T_DIR/ours.img THEIRS=$T_DIR/theirs.img
cp --sparse=always "$BASE" "$OURS"
strip "$OURS"
cp --sparse=always "$OURS" "$THEIRS"
want=$((NFILES + NDIRS + 1))

check "xfs_repair -n detects the lost parent pointers" \
	bash -c '! "$1" -n "$2" > /dev/null 2>&1' _ "$XFSPROGS613/xfs_repair" "$OURS"
t0=$(date +%s.%N)
"$REPAIR" "$OURS" > "$T_DIR/ours.out" 2>&1
rc=$?
t1=$(date +%s.%N)
check "xfsj-repair fixes it (exit $rc)" [ "$rc" = 1 ]
[ "$rc" = 1 ] || tail -5 "$T_DIR/ours.out" | sed 's/^/#   /'
n=$(grep -c '^fixed: pptr.missing: .* added$' "$T_DIR/ours.out")
check "one pointer given back per pointer lost ($n of $want)" [ "$n" = "$want" ]
check "nothing left" grep -q ', 0 left' "$T_DIR/ours.out"
check "xfs_repair -n clean after" \
	bash -c '"$1" -n "$2" > /dev/null 2>&1' _ "$XFSPROGS613/xfs_repair" "$OURS"
check "xfsj-repair -n clean after" \
	bash -c '"$1" -n "$2" > /dev/null 2>&1' _ "$REPAIR" "$OURS"
m1=$(md5sum < "$OURS")
"$REPAIR" "$OURS" > "$T_DIR/again.out" 2>&1
rc=$?
m2=$(md5sum < "$OURS")
check "a second xfsj-repair changes nothing (exit $rc)" [ "$rc.$m1" = "0.$m2" ]

dev=$(attach_loop "$OURS") || not_ok "attach the repaired image"
if [ -n "$dev" ] && t_mount "$dev" "$MNT" ro; then
	n=$(ls -A "$MNT/d" | wc -l)
	check "the kernel lists every name of /d ($n)" \
		[ "$n" = $((NFILES + NDIRS)) ]
	d=$(ino_of /d) e=$(ino_of /e)
	check "/d/f1's parent pointers name /d and /e" \
		[ "$(parents /d/f1 | tr '\n' ' ')" = \
		  "$(printf '%s\n' "$d \"f1\"" "$e \"link\"" | sort | tr '\n' ' ')" ]
	check "/d/f$NFILES's parent pointer names /d" \
		[ "$(parents "/d/f$NFILES")" = "$d \"f$NFILES\"" ]
	check "/d/s1's parent pointer names /d" \
		[ "$(parents /d/s1)" = "$d \"s1\"" ]
	t_umount "$MNT"
else
	not_ok "the kernel mounts the repaired image"
fi
[ -n "$dev" ] && detach_loop "$dev"

t2=$(date +%s.%N)
"$XFSPROGS613/xfs_repair" "$THEIRS" > /dev/null 2>&1
t3=$(date +%s.%N)
awk -v a="$t0" -v b="$t1" -v c="$t2" -v d="$t3" -v n="$want" 'BEGIN {
	printf "# %d parent pointers given back: xfsj-repair %.2f s, xfs_repair %.2f s\n",
		n, b - a, d - c }'
t_done
