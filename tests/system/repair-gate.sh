#!/bin/bash
# The never-worse gate: a repair whose final check weighs more than its
# first (corruptions and cross-check disagreements 16 each, warnings 1)
# writes nothing, exits 4 and says why in one line; --force writes it.
#
# The image: mkfs.xfs 6.13 (4 AGs, 512 MiB), a few files made by the
# kernel, then one AGF's free-block counter fuzzed with xfs_db.  Then:
#   - xfsj-repair on a copy with XFSJ_REPAIR_TEST_WORSEN=1 (the tool's
#     test hook: after each stage of fixes every AGI is zeroed, a fix that
#     damages) exits 4, prints the gate's line, and the copy's bytes are
#     unchanged (its checksum);
#   - the same with --force exits 4 and the copy's bytes change;
#   - without the hook the repair exits 1 and both checkers are clean,
#     after at most 2 whole checks (the repair's JSON summary:
#     full_checks);
#   - with the first data block of /d zeroed as well (its 200 entries
#     lost, the files moved to lost+found), the rounds after the first
#     check are local ones (local_checks >= 1), still at most 2 whole
#     checks, both checkers clean after;
#   - with the second data block of /t zeroed as well (/t, outside AG 1,
#     holds 300 subdirectories, which the kernel spreads over every AG,
#     of 3 files each: the subdirectories named in that block lost, their
#     files in every AG), at most 2 whole checks and 2 local ones: the
#     round that rebuilds /t also moves the lost subdirectories to
#     lost+found and sets the link counts they change (their own, /t's,
#     lost+found's), and the next check scans those inodes again alone,
#     not their AGs; then AG 1's rebuild (its AGF's freeblks is above
#     the AG's size here), its local check, and the verdict.
#     Both checkers clean after, every subdirectory kept.
export LC_ALL=C
source "$(dirname "$0")/lib/common.sh"
need_root
oracle_613
BASE=$T_DIR/base.img MNT=$T_DIR/mnt IMG=$T_DIR/img
DB=$XFSPROGS613/xfs_db REPAIR=${XFSJ_REPAIR:-$BUILD/xfsj-repair}

# make_tree DIR: 300 subdirectories of 3 files each
make_tree() {
	local i
	for i in $(seq 1 300); do
		mkdir "$1/subdirectory-$i" &&
			touch "$1/subdirectory-$i/"{a,b,c} || return 1
	done
}

make_base() {
	local dev rc=1
	truncate -s 512m "$BASE"
	"$XFSPROGS613/mkfs.xfs" -q -f -d agcount=4 "$BASE" || return 1
	dev=$(attach_loop "$BASE") || return 1
	if t_mount "$dev" "$MNT"; then
		mkdir "$MNT/d" && seq -f "$MNT/d/f%.0f" 1 200 | xargs touch &&
			echo data > "$MNT/d/f1" && mkdir "$MNT/s" "$MNT/t" &&
			make_tree "$MNT/t" && rc=0
		t_umount "$MNT"
	fi
	detach_loop "$dev"
	[ $rc = 0 ] && "$DB" -x -c 'agf 1' -c 'fuzz -d freeblks add' "$BASE" >/dev/null
}

sum() { md5sum < "$1" | cut -d' ' -f1; }

make_base || { not_ok "base image"; t_done; exit 1; }
"$XFSPROGS613/xfs_repair" -n "$BASE" >/dev/null 2>&1
check "xfs_repair -n finds the fuzzed counter" test $? = 1

cp --sparse=always "$BASE" "$IMG"
before=$(sum "$IMG")
out=$(XFSJ_REPAIR_TEST_WORSEN=1 "$REPAIR" "$IMG" 2>&1)
rc=$?
check "a repair that damages exits 4 (got $rc)" test $rc = 4
check "it says the repair would leave the filesystem worse" \
	grep -q 'would leave the filesystem worse than it found it.*nothing written' <<<"$out"
check "the gate wrote nothing: the image's bytes are unchanged" \
	test "$(sum "$IMG")" = "$before"
check "no redo file is left behind" \
	test -z "$(find "$XFSJ_REDO_DIR" -name '*.redo' 2>/dev/null)"

out=$(XFSJ_REPAIR_TEST_WORSEN=1 "$REPAIR" --force "$IMG" 2>&1)
rc=$?
check "--force commits it anyway (exit $rc)" test $rc = 4
check "--force changed the image's bytes" test "$(sum "$IMG")" != "$before"

# summary_field JSON NAME: the repair_summary's number NAME
summary_field() {
	grep '"kind":"repair_summary"' <<<"$1" | grep -o "\"$2\":[0-9]*" |
		head -1 | cut -d: -f2
}

cp --sparse=always "$BASE" "$IMG"
out=$("$REPAIR" --json "$IMG" 2>/dev/null)
rc=$?
check "without the hook the repair fixes the counter (exit $rc)" test $rc = 1
full=$(summary_field "$out" full_checks)
check "one fuzzed AGF counter costs at most 2 whole checks (ran ${full:-?})" \
	test "${full:-9}" -ge 1 -a "${full:-9}" -le 2
"$REPAIR" -n "$IMG" >/dev/null 2>&1
check "xfsj-repair -n is clean after it" test $? = 0
"$XFSPROGS613/xfs_repair" -n "$IMG" >/dev/null 2>&1
check "xfs_repair -n is clean after it" test $? = 0

cp --sparse=always "$BASE" "$IMG"
dblk=$("$DB" -r -c 'path /d' -c 'bmap' "$IMG" | awk -F'[ ,]+' '/^data offset 0 startblock/ { print $5; exit }')
bsize=$("$DB" -r -c 'sb 0' -c 'p blocksize' "$IMG" | awk '{ print $3 }')
check "found /d's first data block (block ${dblk:-?})" test -n "$dblk"
if [ -n "$dblk" ]; then
	dd if=/dev/zero of="$IMG" bs="$bsize" seek="$dblk" count=1 \
		conv=notrunc status=none
	out=$("$REPAIR" --json "$IMG" 2>/dev/null)
	rc=$?
	full=$(summary_field "$out" full_checks)
	local_n=$(summary_field "$out" local_checks)
	check "a zeroed directory block and the counter repaired (exit $rc)" \
		test $rc = 1
	check "its later rounds are local checks (${local_n:-?} local, ${full:-?} whole)" \
		test "${local_n:-0}" -ge 1 -a "${full:-9}" -le 2
	# The inodes the repair's checks scanned, less two whole checks'
	# (the -n check after it): the local checks'.  They scan the inodes
	# the round wrote, not AG 1's (only its AGF changed) nor those of
	# /d's AG (its free space changed).
	scanned=$(grep '"kind":"repair_summary"' <<<"$out" |
		grep -o '"work":{[^}]*' | grep -o '"inodes":[0-9]*' | cut -d: -f2)
	nout=$("$REPAIR" -n --json "$IMG" 2>/dev/null)
	check "xfsj-repair -n is clean after it" test $? = 0
	whole=$(grep '"kind":"check_summary"' <<<"$nout" |
		grep -o '"work":{[^}]*' | grep -o '"inodes":[0-9]*' | cut -d: -f2)
	localscan=$(( ${scanned:-0} - 2 * ${whole:-0} ))
	check "the local checks scanned ${localscan} inodes, under a quarter of a whole check's ${whole:-?}" \
		test -n "$scanned" -a -n "$whole" -a "$localscan" -ge 0 -a \
		$((4 * localscan)) -lt "${whole:-0}"
	"$XFSPROGS613/xfs_repair" -n "$IMG" >/dev/null 2>&1
	check "xfs_repair -n is clean after it" test $? = 0
fi

# inode_agnos IMG DIR: the AGs of DIR's subdirectories, one line each
inode_agnos() {
	local agbits
	agbits=$("$DB" -r -c 'sb 0' -c 'p agblklog inopblog' "$1" |
		awk '{ s += $3 } END { print s }')
	"$DB" -r -c "ls $2" "$1" | awk -v b="$agbits" '
		$3 == "directory" && $6 != "." && $6 != ".." {
			print int($2 / 2 ^ b) }' | sort -u
}

cp --sparse=always "$BASE" "$IMG"
check "/t's subdirectories are in every AG" \
	test "$(inode_agnos "$IMG" /t | wc -l)" = 4
# (/s moves /t off AG 1, whose AGF is fuzzed, as the benchmark's /t0 is)
check "/t is not in AG 1" test "$(inode_agnos "$IMG" / | grep -c '^1$')" = 1
tblk=$("$DB" -r -c 'path /t' -c 'bmap' "$IMG" | awk -F'[ ,]+' '/^data offset [1-9][0-9]* startblock/ { print $5; exit }')
check "found /t's second data block (block ${tblk:-?})" test -n "$tblk"
if [ -n "$tblk" ]; then
	dd if=/dev/zero of="$IMG" bs="$bsize" seek="$tblk" count=1 \
		conv=notrunc status=none
	out=$("$REPAIR" --json "$IMG" 2>/dev/null)
	rc=$?
	full=$(summary_field "$out" full_checks)
	local_n=$(summary_field "$out" local_checks)
	moved=$(summary_field "$out" entries_moved)
	check "a zeroed block of /t and the counter repaired (exit $rc)" \
		test $rc = 1
	check "subdirectories moved to lost+found (${moved:-?})" \
		test "${moved:-0}" -ge 50
	check "at most 2 whole checks and 2 local (${full:-?} whole, ${local_n:-?} local)" \
		test "${full:-9}" -le 2 -a "${local_n:-9}" -le 2
	"$REPAIR" -n "$IMG" >/dev/null 2>&1
	check "xfsj-repair -n is clean after it" test $? = 0
	"$XFSPROGS613/xfs_repair" -n "$IMG" >/dev/null 2>&1
	check "xfs_repair -n is clean after it" test $? = 0
	kept=$("$DB" -r -c 'ls /t' -c 'ls /lost+found' "$IMG" |
		awk '$3 == "directory" && $6 ~ /^(subdirectory-)?[0-9]+$/' |
		wc -l)
	check "every subdirectory kept, in /t or lost+found ($kept of 300)" \
		test "$kept" = 300
fi
t_done || exit 1
