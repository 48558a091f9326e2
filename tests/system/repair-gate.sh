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
#     checks, both checkers clean after.
export LC_ALL=C
source "$(dirname "$0")/lib/common.sh"
need_root
oracle_613
BASE=$T_DIR/base.img MNT=$T_DIR/mnt IMG=$T_DIR/img
DB=$XFSPROGS613/xfs_db REPAIR=${XFSJ_REPAIR:-$BUILD/xfsj-repair}

make_base() {
	local dev rc=1
	truncate -s 512m "$BASE"
	"$XFSPROGS613/mkfs.xfs" -q -f -d agcount=4 "$BASE" || return 1
	dev=$(attach_loop "$BASE") || return 1
	if t_mount "$dev" "$MNT"; then
		mkdir "$MNT/d" && seq -f "$MNT/d/f%.0f" 1 200 | xargs touch &&
			echo data > "$MNT/d/f1" && rc=0
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
	"$REPAIR" -n "$IMG" >/dev/null 2>&1
	check "xfsj-repair -n is clean after it" test $? = 0
	"$XFSPROGS613/xfs_repair" -n "$IMG" >/dev/null 2>&1
	check "xfs_repair -n is clean after it" test $? = 0
fi
t_done || exit 1
