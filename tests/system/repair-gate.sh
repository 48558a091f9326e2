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
#   - without the hook the repair exits 1 and both checkers are clean.
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

cp --sparse=always "$BASE" "$IMG"
"$REPAIR" "$IMG" >/dev/null 2>&1
rc=$?
check "without the hook the repair fixes the counter (exit $rc)" test $rc = 1
"$REPAIR" -n "$IMG" >/dev/null 2>&1
check "xfsj-repair -n is clean after it" test $? = 0
"$XFSPROGS613/xfs_repair" -n "$IMG" >/dev/null 2>&1
check "xfs_repair -n is clean after it" test $? = 0
t_done || exit 1
