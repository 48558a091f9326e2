#!/bin/bash
# A repair killed anywhere, then run again, gives the same bytes as a
# repair that was not interrupted; and preen (-p) fixes only what is safe.
#
# The image: the kernel's crash image (a dirty log: the replay is part of
# the commit, so the commit is long), then damage the replay does not
# undo: the superblocks of AGs 2 and 3 (rewritten from the primary) and
# an AGF counter of the last AG.  A reference copy is repaired in one
# run; other copies are killed (kill -9) at seeded random points of the
# run while every page it writes is slowed down, then run again; each
# must end byte-identical to the reference, with no redo file left.  A
# redo file is refused by another copy of the filesystem.
#
#   KILLS=n    interruptions (default 6)
#   SEED=s     the kill points' seed (default 1; printed)
source "$(dirname "$0")/lib/common.sh"
source "$(dirname "$0")/lib/crashimg.sh"
need_root
# Two runs are compared byte for byte: the time a replay stamps where the
# kernel stamps its clock (an xattr finished in short form) is fixed.
export SOURCE_DATE_EPOCH=1800000000
oracle_613
REPAIR=${XFSJ_REPAIR:-$BUILD/xfsj-repair}
DB=$XFSPROGS613/xfs_db
ORACLE=$XFSPROGS613/xfs_repair
oracle_clean() { "$ORACLE" -n "$1" > /dev/null 2>&1; }
KILLS=${KILLS:-6}
SEED=${SEED:-1}
RANDOM=$SEED
echo "# repair-interrupt: $KILLS kills, seed $SEED"

# The log must be dirty: the workload is made to be cut by the shutdown.
if ! make_crash_image "$T_DIR/crash.img" 1g "" "" 3 2> "$T_DIR/crash.err"; then
	not_ok "crash image: $(head -c 300 "$T_DIR/crash.err")"
	t_done
	exit
fi
out=$("$REPAIR" -n "$T_DIR/crash.img" 2>&1)
check "the crash image's log is dirty" grep -q "would write" <<< "$out"
agc=$("$DB" -r -c 'sb 0' -c 'print agcount' "$T_DIR/crash.img" | sed 's/.* = //')
last=$((agc - 1))
"$DB" -x -c 'sb 2' -c 'fuzz -d dblocks ones' -c 'sb 3' -c 'fuzz -d uuid zeroes' \
	-c "agf $last" -c 'fuzz -d freeblks add' "$T_DIR/crash.img" > /dev/null 2>&1

cp --sparse=always "$T_DIR/crash.img" "$T_DIR/ref.img"
"$REPAIR" -r "$T_DIR/ref.redo" "$T_DIR/ref.img" > "$T_DIR/ref.out" 2>&1
rc=$?
check "the reference repair fixes it (exit $rc: $(tail -1 "$T_DIR/ref.out" | cut -c1-160))" test $rc -eq 1
check "the reference repair's result is clean for xfs_repair -n" oracle_clean "$T_DIR/ref.img"
"$REPAIR" -n "$T_DIR/ref.img" > /dev/null 2>&1
check "the reference repair's result is clean for xfsj-repair -n" test $? -eq 0
dev=$(attach_loop "$T_DIR/ref.img") && t_mount "$dev" "$T_DIR/mnt" &&
	echo data > "$T_DIR/mnt/after-repair" && t_umount "$T_DIR/mnt" && detach_loop "$dev"
check "the kernel mounts the repaired filesystem and writes to it" test $? -eq 0
cp --sparse=always "$T_DIR/crash.img" "$T_DIR/ref.img"
"$REPAIR" -r "$T_DIR/ref.redo" "$T_DIR/ref.img" > /dev/null 2>&1
refsum=$(md5sum < "$T_DIR/ref.img")
pages=$(sed -n 's/.*(\([0-9]*\) blocks of 4 KiB to write).*/\1/p' "$T_DIR/ref.out")
echo "# the commit writes the replay's ${pages:-?} pages and the repair's"

k=0
for ((i = 0; i < KILLS; i++)); do
	# Killed at a random point of the run; when the run ended before
	# the kill, again with slower writing (up to 3 times).
	for delay in 3000 12000 48000; do
		cp --sparse=always "$T_DIR/crash.img" "$T_DIR/int.img"
		rm -f "$T_DIR/int.redo"
		XFSJ_REPAIR_TEST_DELAY_US=$delay "$REPAIR" -r "$T_DIR/int.redo" "$T_DIR/int.img" > /dev/null 2>&1 &
		pid=$!
		sleep "$(awk -v r="$RANDOM" 'BEGIN { printf "%.3f", (50 + r % 900) / 1000 }')"
		kill -9 "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
		krc=$?
		[ $krc -eq 137 ] && break
	done
	check "repair $i killed before it ended (exit $krc)" test $krc -eq 137
	"$REPAIR" -r "$T_DIR/int.redo" "$T_DIR/int.img" > "$T_DIR/int.out" 2>&1
	rc=$?
	check "interrupted repair $i, run again (exit $rc), gives the same bytes" \
		test "$(md5sum < "$T_DIR/int.img")" = "$refsum"
	check "interrupted repair $i leaves no redo file" test ! -e "$T_DIR/int.redo"
	k=$((k + 1))
done
check "at least $KILLS interruptions ($k)" test $k -ge "$KILLS"

# A redo file belongs to the device it was made for.  Two copies of one
# filesystem (same uuid, same size) with different damage: a run on the
# first is killed once its second commit's redo file is complete; a run
# on the second given that redo file refuses it (exit 8) and writes
# nothing; the first, run again, finishes with the bytes of a run that
# was not interrupted.
cp --sparse=always "$T_DIR/ref.img" "$T_DIR/sa.img"
cp --sparse=always "$T_DIR/ref.img" "$T_DIR/sb.img"
"$DB" -x -c 'sb 2' -c 'fuzz -d dblocks ones' -c "agf $last" -c 'fuzz -d freeblks add' "$T_DIR/sa.img" > /dev/null 2>&1
"$DB" -x -c 'sb 2' -c 'fuzz -d dblocks ones' -c "agf $last" -c 'fuzz -d freeblks sub' "$T_DIR/sb.img" > /dev/null 2>&1
cp --sparse=always "$T_DIR/sa.img" "$T_DIR/sa-ref.img"
"$REPAIR" -r "$T_DIR/sa-ref.redo" "$T_DIR/sa-ref.img" > /dev/null 2>&1
sarefsum=$(md5sum < "$T_DIR/sa-ref.img")
# complete_redo FILE: a finished redo file of more than one page (the
# second commit: the first writes the primary superblock alone).
complete_redo() {
	local n
	[ -s "$1" ] || return 1
	[ "$(tail -c 12 "$1" 2>/dev/null | head -c 8)" = XFSJDONE ] || return 1
	# (the file may be gone or cut short by the run in between)
	n=$(od -An -tu4 -j16 -N4 "$1" 2>/dev/null | tr -d ' ')
	[ -n "$n" ] && [ "$n" -gt 1 ]
}
caught=0
for delay in 100000 300000 900000; do
	cp --sparse=always "$T_DIR/sa.img" "$T_DIR/sa-int.img"
	rm -f "$T_DIR/s.redo"
	XFSJ_REPAIR_TEST_DELAY_US=$delay "$REPAIR" -r "$T_DIR/s.redo" "$T_DIR/sa-int.img" > /dev/null 2>&1 &
	pid=$!
	while kill -0 "$pid" 2>/dev/null && ! complete_redo "$T_DIR/s.redo"; do
		sleep 0.01
	done
	kill -9 "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	[ $? -eq 137 ] && complete_redo "$T_DIR/s.redo" && { caught=1; break; }
done
check "a run killed with its second commit's redo file complete" test $caught -eq 1
sbsum=$(md5sum < "$T_DIR/sb.img")
"$REPAIR" -r "$T_DIR/s.redo" "$T_DIR/sb.img" > "$T_DIR/sb.out" 2>&1
rc=$?
check "another copy refuses the redo file (exit $rc: $(tail -1 "$T_DIR/sb.out" | cut -c1-160))" test $rc -eq 8
check "the refusal says the redo file was made for another device" grep -q "was made for another device" "$T_DIR/sb.out"
check "the other copy is not written" test "$(md5sum < "$T_DIR/sb.img")" = "$sbsum"
check "the redo file is kept for its own device" test -e "$T_DIR/s.redo"
"$REPAIR" -r "$T_DIR/s.redo" "$T_DIR/sa-int.img" > "$T_DIR/sa.out" 2>&1
rc=$?
check "its own copy, run again (exit $rc), gives the bytes of an uninterrupted run" \
	test "$(md5sum < "$T_DIR/sa-int.img")" = "$sarefsum"
check "and leaves no redo file" test ! -e "$T_DIR/s.redo"

# Preen: counters alone are fixed; a damaged secondary superblock stops
# it (exit 32) with the device untouched.
cp --sparse=always "$T_DIR/ref.img" "$T_DIR/p1.img"
"$DB" -x -c 'sb 0' -c 'fuzz -d icount add' -c "agf $last" -c 'fuzz -d freeblks sub' "$T_DIR/p1.img" > /dev/null 2>&1
"$REPAIR" -p "$T_DIR/p1.img" > "$T_DIR/p1.out" 2>&1
rc=$?
check "preen fixes counters (exit $rc: $(tail -1 "$T_DIR/p1.out" | cut -c1-160))" test $rc -eq 1
check "preen's result is clean for xfs_repair -n" oracle_clean "$T_DIR/p1.img"
cp --sparse=always "$T_DIR/ref.img" "$T_DIR/p2.img"
"$DB" -x -c 'sb 1' -c 'fuzz -d agblocks add' "$T_DIR/p2.img" > /dev/null 2>&1
sum=$(md5sum < "$T_DIR/p2.img")
"$REPAIR" -p "$T_DIR/p2.img" > "$T_DIR/p2.out" 2>&1
rc=$?
check "preen stops on a damaged secondary superblock (exit $rc)" test $rc -eq 32
check "preen says why in one line" grep -q "preen stops: sb.secondary" "$T_DIR/p2.out"
check "preen that stops writes nothing" test "$(md5sum < "$T_DIR/p2.img")" = "$sum"

# Undo: a repair (replay included) undone with its undo file gives back
# the damaged image byte for byte.
cp --sparse=always "$T_DIR/crash.img" "$T_DIR/u.img"
"$REPAIR" -U "$T_DIR/u.undo" -r "$T_DIR/u.redo" "$T_DIR/u.img" > "$T_DIR/u.out" 2>&1
rc=$?
check "repair with -U fixes it (exit $rc)" test $rc -eq 1
check "repair with -U changed the image" test "$(md5sum < "$T_DIR/u.img")" != "$(md5sum < "$T_DIR/crash.img")"
"$REPAIR" --undo-apply "$T_DIR/u.undo" "$T_DIR/u.img" > "$T_DIR/ua.out" 2>&1
rc=$?
check "--undo-apply (exit $rc) gives back the damaged image byte for byte" \
	cmp -s "$T_DIR/u.img" "$T_DIR/crash.img"
t_done
