#!/bin/bash
# Undo files: a replay undone with its undo file gives back the crash
# image byte for byte.  Crash images made the way the kernel makes them
# (lib/crashimg.sh: mount, workload, `shutdown -f` while it runs,
# unmount; the workload goes on until the live log holds records, so the
# log is dirty), for each case:
#   - `xfsj-repair -U UNDO IMG` replays (exit 0; or exit 1, nothing
#     left, where xfs_repair -n (6.13) finds problems in the kernel's own
#     replay of a copy: an xattr set the crash cut short leaves an
#     INCOMPLETE entry both replays keep), the log is then clean
#     (`xfsj-repair -n` exit 0, "log is clean") and the image changed;
#   - `xfsj-repair --undo-apply UNDO IMG` gives back the crash image (cmp),
#     and applying it again changes nothing;
#   - refused, the image untouched (md5): the undo file on another
#     filesystem, a truncated or damaged undo file, a mounted image, and
#     the image once the kernel has mounted and written it after the
#     replay (changed since).
# The same for a made case first: 1 KiB blocks, a file's xattr marked
# INCOMPLETE (xfs_db), then a dirty log that does not touch it: -U must
# replay, find and fix it (exit 1), and the undo file give back the
# image, repair writes included.
# Then runs killed (kill -9) at points spread over the whole commit,
# slowed by XFSJ_REPAIR_TEST_DELAY_US (undo file, redo file, copy), run
# again with the same -U: the log clean, and the undo file gives back the
# crash image byte for byte.  A run killed during the copy and run again
# with another undo file is refused without a write.
#
#   UNDO_SEED=s (default: the time)  UNDO_CASES=n (default 2: xfsj-mkfs
#   defaults, then -b size=1024)  UNDO_KILLS=n (default 4)
#   XFSJ_KEEP=1: a crash image whose -U run did not exit 0 is kept in the
#   test's directory (orig-CASE.img), the directory too
source "$(dirname "$0")/lib/common.sh"
source "$(dirname "$0")/lib/crashimg.sh"
need_root
oracle_613
REPAIR=${XFSJ_REPAIR:-$BUILD/xfsj-repair}
LP=${XFSJ_LOGPRINT:-$BUILD/xfsj-logprint}
UNDO_SEED=${UNDO_SEED:-$(( $(date +%s) % 100000 ))}
UNDO_CASES=${UNDO_CASES:-2}
UNDO_KILLS=${UNDO_KILLS:-4}
echo "# repair-undo: seed $UNDO_SEED, $UNDO_CASES cases, $UNDO_KILLS kills"

sum() { md5sum < "$1" | cut -d' ' -f1; }

# need_dirty RAW live|final: the crash image's CRASH_NEED: live records.
need_dirty() {
	local n
	n=$("$LP" -f --json --records --live "$1" 2>/dev/null | grep -c '"kind":"record"')
	[ "$n" -ge 8 ] || { echo "$n live records (8 wanted)"; return 1; }
}

# log_clean IMG: -n finds a clean log and no problem.
log_clean() {
	"$REPAIR" -n "$1" > "$T_DIR/n.out" 2>&1 && grep -q 'log is clean' "$T_DIR/n.out"
}

# refused WHAT IMG ARGS...: xfsj-repair ARGS exits 8 and IMG keeps its bytes.
refused() {
	local what=$1 img=$2 before rc
	shift 2
	before=$(sum "$img")
	"$REPAIR" "$@" > "$T_DIR/refused.out" 2>&1
	rc=$?
	check "$what: refused (exit $rc: $(tail -1 "$T_DIR/refused.out" | cut -c1-160))" test $rc -eq 8
	check "$what: nothing written" test "$before" = "$(sum "$img")"
}

opts_of() { [ $(($1 % 2)) = 0 ] && echo "" || echo "-b size=1024"; }

# kernel_leaves_problems IMG: xfs_repair -n (6.13) finds problems in
# the kernel's replay of a copy of IMG (says what, prefixed "#   ").
kernel_leaves_problems() {
	local krc
	cp --sparse=always "$1" "$T_DIR/kernel.img"
	if ! kernel_replay "$T_DIR/kernel.img"; then
		echo "#   the kernel cannot replay it"
		rm -f "$T_DIR/kernel.img"
		return 1
	fi
	"$XFSPROGS613/xfs_repair" -n "$T_DIR/kernel.img" > "$T_DIR/kernel.out" 2>&1
	krc=$?
	rm -f "$T_DIR/kernel.img"
	grep -i -e 'would' -e 'bad ' -e 'incomplete' "$T_DIR/kernel.out" | head -4 |
		cut -c1-160 | sed 's/^/#   xfs_repair -n on the kernel'"'"'s replay: /'
	[ $krc -eq 1 ]
}

# undo_case NAME WANT: xfsj-repair -U on $img (a dirty log), then
# --undo-apply gives back $orig.  WANT "replay": exit 0, or exit 1 with
# nothing left where the kernel's own replay leaves problems too (an
# xattr set or removal the crash cut short leaves an INCOMPLETE entry
# the kernel's recovery keeps: no intent was logged for it); a code
# (as attr.incomplete): exit 1, having found and fixed that problem.
undo_case() {
	local name=$1 want=$2 rc
	"$REPAIR" -n "$img" > "$T_DIR/n.out" 2>&1
	check "$name: the crash image's log is dirty" grep -q 'dirty log' "$T_DIR/n.out"
	cp --sparse=always "$img" "$orig"
	rm -f "$undo" "$redo"
	"$REPAIR" -r "$redo" -U "$undo" "$img" > "$T_DIR/run.out" 2>&1
	rc=$?
	if [ $rc -ne 0 ]; then
		# What the check found after the replay, and the crash image
		# (XFSJ_KEEP=1), for the next look.
		grep -E '^(found|fixed|left):' "$T_DIR/run.out" | head -8 | cut -c1-200 | sed 's/^/#   /'
		[ "${XFSJ_KEEP:-0}" = 1 ] && cp --sparse=always "$orig" "$T_DIR/orig-${name// /_}.img" &&
			echo "# kept the crash image as $T_DIR/orig-${name// /_}.img"
	fi
	if [ "$want" = replay ] && [ $rc -ne 1 ]; then
		check "$name: xfsj-repair -U replays (exit $rc)" test $rc -eq 0
	elif [ "$want" = replay ]; then
		check "$name: xfsj-repair -U replays and repairs (exit 1), nothing left" \
			test "$(grep -c '^left:' "$T_DIR/run.out")" = 0
		check "$name: ... where the kernel's replay leaves problems too" \
			kernel_leaves_problems "$orig"
	else
		check "$name: xfsj-repair -U replays and repairs (exit $rc)" test $rc -eq 1
		check "$name: ... having found $want" grep -q "^found: $want:" "$T_DIR/run.out"
		check "$name: ... and fixed it" grep -q "^fixed: $want:" "$T_DIR/run.out"
		check "$name: ... where the kernel's replay leaves it" \
			kernel_leaves_problems "$orig"
	fi
	grep 'replay done' "$T_DIR/run.out" | sed 's/^/#    /'
	check "$name: log clean after the replay" log_clean "$img"
	check "$name: the replay changed the image" test "$(sum "$img")" != "$(sum "$orig")"
	check "$name: the undo file is private" test "$(stat -c %a "$undo")" = 600
	"$REPAIR" --undo-apply "$undo" "$img" > "$T_DIR/apply.out" 2>&1
	rc=$?
	check "$name: --undo-apply (exit $rc)" test $rc -eq 0
	sed 's/^/#    /' "$T_DIR/apply.out"
	check "$name: undone: the crash image byte for byte" cmp -s "$img" "$orig"
	"$REPAIR" --undo-apply "$undo" "$img" > "$T_DIR/apply.out" 2>&1
	rc=$?
	check "$name: applied twice (exit $rc): harmless" test $rc -eq 0
	check "$name: applied twice: said so" grep -q 'old contents already' "$T_DIR/apply.out"
	check "$name: applied twice: the crash image byte for byte" cmp -s "$img" "$orig"
}

# make_incomplete_image IMG: 1 KiB blocks, a file whose xattr "big" (a
# remote value) is marked INCOMPLETE in its leaf, as a set the crash cut
# short leaves it, then a dirty log (creates, forced shutdown) that does
# not touch that file: the kernel's replay leaves the entry as it is.
make_incomplete_image() {
	local dev mnt=$T_DIR/imnt f ino idx i
	make_fresh_image "$1" 1g "-b size=1024" || return 1
	dev=$(attach_loop "$1") || return 1
	t_mount "$dev" "$mnt" || { detach_loop "$dev"; return 1; }
	f=$mnt/inc
	echo data > "$f"
	setfattr -n user.small -v s "$f"
	setfattr -n user.big -v "$(head -c 3000 /dev/zero | tr '\0' v)" "$f"
	ino=$(stat -c %i "$f")
	t_umount "$mnt"
	idx=$("$XFSPROGS613/xfs_db" -r -c "inode $ino" -c "ablock 0" -c "print nvlist" "$dev" |
		sed -n 's/^nvlist\[\([0-9]*\)\]\.name = "big"$/\1/p')
	[ -n "$idx" ] || { echo "no entry big in inode $ino's leaf" >&2; detach_loop "$dev"; return 1; }
	"$XFSPROGS613/xfs_db" -x -c "inode $ino" -c "ablock 0" \
		-c "fuzz -d entries[$idx].incomplete ones" "$dev" > /dev/null 2>&1
	t_mount "$dev" "$mnt" || { detach_loop "$dev"; return 1; }
	mkdir "$mnt/d"
	for ((i = 0; i < 200; i++)); do
		echo "$i" > "$mnt/d/f$i"
		[ $((i % 50)) = 49 ] && sync -f "$mnt"
	done
	xfs_io -x -c "shutdown -f" "$mnt"
	t_umount "$mnt"
	detach_loop "$dev"
}

img=$T_DIR/img orig=$T_DIR/orig.img undo=$T_DIR/undo redo=$T_DIR/redo
# First the made condition: a problem the kernel's replay leaves.
if make_incomplete_image "$img" 2> "$T_DIR/inc.err"; then
	undo_case "incomplete xattr" attr.incomplete
else
	not_ok "incomplete xattr: could not make the image: $(head -c 300 "$T_DIR/inc.err")"
fi
for ((c = 0; c < UNDO_CASES; c++)); do
	seed=$((UNDO_SEED + c))
	opts=$(opts_of $c)
	name="seed $seed${opts:+ $opts}"
	if ! CRASH_SEED=$seed CRASH_NEED=need_dirty make_crash_image "$img" 1g "$opts" "" 3 2> "$T_DIR/crash.err"; then
		not_ok "$name: could not make the crash image: $(head -c 300 "$T_DIR/crash.err")"
		continue
	fi
	undo_case "$name" replay

	# Refusals, nothing written.
	if [ $c = 0 ]; then
		make_fresh_image "$T_DIR/other.img" 1g "" || not_ok "mkfs of another image"
		refused "$name: another filesystem's undo file" "$T_DIR/other.img" \
			--undo-apply "$undo" "$T_DIR/other.img"
		rm -f "$T_DIR/other.img"
		head -c $(($(stat -c %s "$undo") - 100)) "$undo" > "$T_DIR/cut.undo"
		refused "$name: a truncated undo file" "$img" --undo-apply "$T_DIR/cut.undo" "$img"
		cp "$undo" "$T_DIR/bad.undo"
		printf '\x55' | dd of="$T_DIR/bad.undo" bs=1 seek=100000 conv=notrunc status=none
		refused "$name: a damaged undo file" "$img" --undo-apply "$T_DIR/bad.undo" "$img"
		rm -f "$T_DIR/cut.undo" "$T_DIR/bad.undo"
		refused "$name: --undo-apply with -n" "$img" -n --undo-apply "$undo" "$img"
		# Replayed again, then mounted and written by the kernel.
		"$REPAIR" -r "$redo" -U "$undo" "$img" > /dev/null 2>&1
		dev=$(attach_loop "$img")
		if t_mount "$dev" "$T_DIR/mnt"; then
			refused "$name: a mounted image" "$img" --undo-apply "$undo" "$img"
			echo data > "$T_DIR/mnt/undo-test-file"
			t_umount "$T_DIR/mnt"
		else
			not_ok "$name: the kernel mounts the replayed image"
		fi
		detach_loop "$dev"
		refused "$name: an image changed since the replay" "$img" --undo-apply "$undo" "$img"
		check "$name: ... and said why" grep -q 'changed since' "$T_DIR/refused.out"
	fi
done

# Kills: on the last crash image, at points spread over the commit.
[ -f "$orig" ] || { not_ok "no crash image for the kills"; t_done; exit; }
kimg=$T_DIR/k.img kundo=$T_DIR/k.undo kredo=$T_DIR/k.redo
delay=400
cp --sparse=always "$orig" "$kimg"
rm -f "$kundo" "$kredo"
t0=$(date +%s%N)
XFSJ_REPAIR_TEST_DELAY_US=$delay "$REPAIR" -r "$kredo" -U "$kundo" "$kimg" > /dev/null 2>&1
kexit=$?
span=$((($(date +%s%N) - t0) / 1000000))
echo "# an uninterrupted run slowed by $delay us a page: $span ms, exit $kexit"
partly=0 kills=0 mismatch=0
for ((k = 0; k < UNDO_KILLS; k++)); do
	at=$((span * (2 * k + 1) / (2 * UNDO_KILLS)))
	cp --sparse=always "$orig" "$kimg"
	rm -f "$kundo" "$kredo"
	XFSJ_REPAIR_TEST_DELAY_US=$delay "$REPAIR" -r "$kredo" -U "$kundo" "$kimg" > /dev/null 2>&1 &
	pid=$!
	sleep "$(awk -v ms="$at" 'BEGIN { printf "%.3f", ms / 1000 }')"
	kill -9 "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	krc=$?
	if [ $krc -ne 137 ]; then
		echo "# kill $k at $at ms: the run had ended (exit $krc)"
		continue
	fi
	kills=$((kills + 1))
	state="undo file $([ -s "$kundo" ] && echo yes || echo no), redo file $([ -s "$kredo" ] && echo yes || echo no)"
	if cmp -s "$kimg" "$orig"; then
		state="$state, image untouched"
	else
		state="$state, image partly written"
		partly=$((partly + 1))
		# (A run that repairs commits twice: the needs-repair flag,
		# then the rest; killed between the two, or while the second
		# saves its redo file, the device is whole, flagged, and a run
		# with another undo file may save it: only a replay's kills.)
		if [ $mismatch = 0 ] && [ -s "$kredo" ] && [ $kexit = 0 ]; then
			mismatch=1
			refused "kill $k: run again with another undo file" "$kimg" \
				-r "$kredo" -U "$T_DIR/other.undo" "$kimg"
			check "kill $k: ... and said why" grep -q 'not its complete undo file' "$T_DIR/refused.out"
			check "kill $k: ... no undo file made" test ! -e "$T_DIR/other.undo"
		fi
	fi
	echo "# kill $k at $at ms: $state"
	# Run again: one that finds a whole redo file finishes the killed
	# run's commit (exit 0); one that does not starts over, and ends as
	# the uninterrupted run did (exit 1 where it repaired; a redo file
	# the kill cut short is not applied).
	want=$kexit
	[ -s "$kredo" ] && want="0|$kexit"
	"$REPAIR" -r "$kredo" -U "$kundo" "$kimg" > "$T_DIR/rerun.out" 2>&1
	rc=$?
	check "kill $k: run again (exit $rc, $want wanted)" grep -qxE "$want" <<< "$rc"
	check "kill $k: log clean" log_clean "$kimg"
	check "kill $k: no redo file left" test ! -e "$kredo"
	"$REPAIR" --undo-apply "$kundo" "$kimg" > "$T_DIR/apply.out" 2>&1
	rc=$?
	check "kill $k: --undo-apply (exit $rc)" test $rc -eq 0
	check "kill $k: undone: the crash image byte for byte" cmp -s "$kimg" "$orig"
done
check "at least $((UNDO_KILLS / 2)) runs killed before they ended ($kills)" test $kills -ge $((UNDO_KILLS / 2))
check "at least one run killed with the image partly written ($partly)" test $partly -ge 1
t_done
