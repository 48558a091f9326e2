#!/bin/bash
# Filesystems with an external log device: crash images made by the kernel
# (mkfs.xfs 6.13 -l logdev=, mounted with -o logdev=, a seeded workload,
# `shutdown -f` while it runs, unmount), then replayed twice, copy A
# (data and log images) by `xfsj-repair -l`, copy B by the kernel.  For
# each case:
#   - xfsj-logprint -l finds the head, tail and state xfs_logprint -l does;
#   - xfsj-repair -n -l writes neither device;
#   - the replay gives the kernel's tree, inode cores and counters, and
#     xfs_repair -n -l reports nothing on it that it does not on B;
#   - a second run and xfs_logprint see a clean log on A's log device;
#   - one replay killed in the middle of writing and run again gives the
#     same bytes on both devices as an uninterrupted one (one redo file
#     covers both); the case is one whose replay writes enough blocks
#     (more cases are made until one does), and the kill is repeated,
#     with slower writing, until it lands before the replay ends.
# And the refusals: without -l (the log is external), with -l on a
# filesystem whose log is internal, with the log device of another
# filesystem, and with the log device in use by a mounted filesystem.
#
#   CASES=n (default 4)  SEED=s
source "$(dirname "$0")/lib/common.sh"
source "$TOP/tests/system/lib/crashgen.sh"
source "$TOP/tests/system/lib/treedump.sh"
source "$TOP/tests/system/lib/extlog.sh"
need_root
oracle_613
REPAIR=${XFSJ_REPAIR:-$BUILD/xfsj-repair}
LP=${XFSJ_LOGPRINT:-$BUILD/xfsj-logprint}
CASES=${CASES:-4}
SEED=${SEED:-$(( $(date +%s) % 100000 ))}
echo "# replay-extlog: seed $SEED, $CASES cases"

sum() { md5sum < "$1" | cut -d' ' -f1; }

# mount_pair DATA LOG MNT [opts]: attach both, mount with logdev=
mount_pair() {
	local d l
	d=$(attach_loop "$1") || return 1
	l=$(attach_loop "$2") || { detach_loop "$d"; return 1; }
	if ! t_mount "$d" "$3" "logdev=$l${4:+,$4}"; then
		detach_loop "$l"
		detach_loop "$d"
		return 1
	fi
	PAIR_D=$d PAIR_L=$l
}
umount_pair() {
	t_umount "$1" || return 1
	detach_loop "$PAIR_L"
	detach_loop "$PAIR_D"
}

# make_case DATA LOG SEED MODE: format, mount, workload, shutdown -f, umount
make_case() { extlog_crash_image "$@"; }

# dump_pair DATA LOG OUT: mount read-only (norecovery is not needed: the
# log is clean), describe, unmount
dump_pair() {
	mount_pair "$1" "$2" "$T_DIR/dmnt" ro || return 1
	tree_dump "$T_DIR/dmnt" > "$3"
	umount_pair "$T_DIR/dmnt"
}

findings() {
	"$XFSPROGS613/xfs_repair" -n -l "$2" "$1" 2>&1 |
		grep -v -e '^Phase' -e '^        - ' -e '^No modify flag' \
			-e 'host filesystem geometry' -e 'sector size mismatch' \
			-e 'the image and the host filesystem' |
		sed 's/[0-9]\{6,\}/N/g' | sort -u
}

# counters DATA LOG: superblock and AG counters as xfs_db prints them
counters() {
	local agc a args=(-c "sb 0" -c "print icount ifree fdblocks agcount")
	agc=$("$XFSPROGS613/xfs_db" -r -l "$2" -c "sb 0" -c "print agcount" "$1" | awk '{ print $3 }')
	for ((a = 0; a < ${agc:-0}; a++)); do
		args+=(-c "agf $a" -c "print freeblks longest flcount btreeblks"
		       -c "agi $a" -c "print count freecount")
	done
	"$XFSPROGS613/xfs_db" -r -l "$2" "${args[@]}" "$1" 2>&1
}

# head, tail and state as xfs_logprint prints them
lp_summary() {
	"$@" 2>/dev/null | sed -n 's/.*log tail: \([0-9]*\) head: \([0-9]*\) state: \(<[A-Z]*>\).*/\1 \2 \3/p' | head -1
}

D=$T_DIR/d.img L=$T_DIR/l.img
modes=(safe full inode free)
replayed=0 kept=0
# CASES cases, and more (up to 4) while none was replayed or none wrote
# enough blocks for the interruption test below (KEEP_BLOCKS).
KEEP_BLOCKS=64
for ((c = 0; c < CASES || ((replayed == 0 || kept == 0) && c < CASES + 4); c++)); do
	seed=$((SEED + c))
	mode=${modes[c % ${#modes[@]}]}
	name="case seed=$seed $mode"
	if ! make_case "$D" "$L" "$seed" "$mode" 2> "$T_DIR/gen.err"; then
		not_ok "$name: could not make the crash image ($(head -c 200 "$T_DIR/gen.err"))"
		continue
	fi
	for x in A B; do
		cp --sparse=always "$D" "$T_DIR/$x.img"
		cp --sparse=always "$L" "$T_DIR/$x.log"
	done
	ours=$(lp_summary "$LP" --summary -l "$T_DIR/A.log" "$T_DIR/A.img")
	theirs=$(lp_summary "$XFSPROGS613/xfs_logprint" -t -l "$T_DIR/A.log" "$T_DIR/A.img")
	check "$name: xfsj-logprint -l: tail, head, state as xfs_logprint -l ($ours / $theirs)" \
		test -n "$ours" -a "$ours" = "$theirs"

	bd=$(sum "$T_DIR/A.img") bl=$(sum "$T_DIR/A.log")
	"$REPAIR" -n -l "$T_DIR/A.log" "$T_DIR/A.img" > "$T_DIR/n.out" 2>&1
	nrc=$?
	check "$name: -n writes neither device (exit $nrc)" \
		test "$bd $bl" = "$(sum "$T_DIR/A.img") $(sum "$T_DIR/A.log")"
	out=$("$REPAIR" --replay-only -l "$T_DIR/A.log" "$T_DIR/A.img" 2>&1)
	rc=$?
	if [ $rc -eq 4 ]; then
		check "$name: leftover work refused without a byte written" \
			test "$bd $bl" = "$(sum "$T_DIR/A.img") $(sum "$T_DIR/A.log")"
		continue
	fi
	if [ $rc -ne 0 ]; then
		not_ok "$name: xfsj-repair -l exit $rc: $(echo "$out" | tail -2)"
		continue
	fi
	check "$name: replayed ($(grep -c . <<< "$out") lines of report)" grep -q "replay done\|log is clean" <<< "$out"
	check "$name: second run finds a clean log" \
		grep -q "log is clean" <("$REPAIR" --replay-only -l "$T_DIR/A.log" "$T_DIR/A.img" 2>&1)
	check "$name: xfs_logprint -l sees a clean log" \
		grep -q "<CLEAN>" <("$XFSPROGS613/xfs_logprint" -t -l "$T_DIR/A.log" "$T_DIR/A.img" 2>/dev/null | head -8)
	if ! mount_pair "$T_DIR/B.img" "$T_DIR/B.log" "$T_DIR/kmnt"; then
		not_ok "$name: the kernel's recovery of copy B failed"
		continue
	fi
	umount_pair "$T_DIR/kmnt"
	if ! dump_pair "$T_DIR/A.img" "$T_DIR/A.log" "$T_DIR/A.dump"; then
		not_ok "$name: copy A does not mount after xfsj-repair"
		continue
	fi
	dump_pair "$T_DIR/B.img" "$T_DIR/B.log" "$T_DIR/B.dump"
	if diff -q "$T_DIR/A.dump" "$T_DIR/B.dump" > /dev/null; then
		ok "$name: same tree as the kernel's replay ($(wc -l < "$T_DIR/A.dump") entries)"
	else
		not_ok "$name: trees differ"
		diff "$T_DIR/A.dump" "$T_DIR/B.dump" | head -6 | cut -c1-200 | sed 's/^/#  /'
	fi
	check "$name: same counters as the kernel's replay" \
		cmp -s <(counters "$T_DIR/A.img" "$T_DIR/A.log") <(counters "$T_DIR/B.img" "$T_DIR/B.log")
	extra=$(comm -23 <(findings "$T_DIR/A.img" "$T_DIR/A.log") <(findings "$T_DIR/B.img" "$T_DIR/B.log"))
	check "$name: xfs_repair -n -l finds nothing more than on the kernel's replay${extra:+: $(echo "$extra" | head -3 | tr '\n' ' ')}" \
		test -z "$extra"
	replayed=$((replayed + 1))
	# For the interruption test: a replay long enough to be killed in
	# the middle of writing.
	blocks=$(sed -n 's/.*replay done: \([0-9]*\) blocks.*/\1/p' <<< "$out")
	if [ $kept = 0 ] && [ "${blocks:-0}" -ge "$KEEP_BLOCKS" ]; then
		cp --sparse=always "$D" "$T_DIR/keep.img"
		cp --sparse=always "$L" "$T_DIR/keep.log"
		kept=1
	fi
done
check "at least one case replayed and compared ($replayed of $c)" test $replayed -ge 1
check "a replayed case wrote $KEEP_BLOCKS blocks or more, for the interruption test" test $kept = 1

# A replay killed while writing, run again: the same bytes on both devices.
if [ $kept = 1 ]; then
	cp --sparse=always "$T_DIR/keep.img" "$T_DIR/ref.img"
	cp --sparse=always "$T_DIR/keep.log" "$T_DIR/ref.log"
	"$REPAIR" --replay-only -r "$T_DIR/ref.redo" -l "$T_DIR/ref.log" "$T_DIR/ref.img" > /dev/null 2>&1
	# Killed once the redo file is complete and being copied; when the
	# run ended before the kill landed, again with slower copying (up to
	# 3 times).
	for delay in 5000 20000 80000; do
		cp --sparse=always "$T_DIR/keep.img" "$T_DIR/int.img"
		cp --sparse=always "$T_DIR/keep.log" "$T_DIR/int.log"
		rm -f "$T_DIR/int.redo"
		XFSJ_REPAIR_TEST_DELAY_US=$delay "$REPAIR" --replay-only -r "$T_DIR/int.redo" -l "$T_DIR/int.log" "$T_DIR/int.img" > /dev/null 2>&1 &
		pid=$!
		for ((i = 0; i < 1200; i++)); do
			grep -q XFSJDONE "$T_DIR/int.redo" 2> /dev/null && break
			kill -0 "$pid" 2> /dev/null || break
			sleep 0.05
		done
		sleep 0.02
		kill -9 "$pid" 2> /dev/null
		wait "$pid" 2> /dev/null
		rc=$?
		landed=0
		[ $rc -eq 137 ] && grep -q XFSJDONE "$T_DIR/int.redo" 2> /dev/null && landed=1
		[ $landed = 1 ] && break
		echo "# the kill did not land while the redo file was copied (exit $rc, delay $delay us a block); again, slower"
	done
	check "a replay killed while copying its redo file (exit $rc)" test $landed = 1
	out=$("$REPAIR" --replay-only -r "$T_DIR/int.redo" -l "$T_DIR/int.log" "$T_DIR/int.img" 2>&1)
	check "interrupted while copying: the next run finishes from the redo file" \
		grep -q "finished an interrupted replay" <<< "$out"
	check "interrupted replay, run again: same data device bytes" \
		test "$(sum "$T_DIR/int.img")" = "$(sum "$T_DIR/ref.img")"
	check "interrupted replay, run again: same log device bytes" \
		test "$(sum "$T_DIR/int.log")" = "$(sum "$T_DIR/ref.log")"
	check "interrupted replay leaves no redo file" test ! -e "$T_DIR/int.redo"
fi

# Refusals.
make_case "$D" "$L" "$SEED" safe 2> /dev/null
bd=$(sum "$D") bl=$(sum "$L")
out=$("$REPAIR" --replay-only "$D" 2>&1)
rc=$?
check "without -l: exit 8 ($rc), names -l" test $rc -eq 8 -a -n "$(grep -- '-l' <<< "$out")"
check "without -l: nothing written" test "$bd $bl" = "$(sum "$D") $(sum "$L")"
truncate -s 1g "$T_DIR/int2.img"
"$BUILD/xfsj-mkfs" -q -f "$T_DIR/int2.img" > /dev/null 2>&1
bi=$(sum "$T_DIR/int2.img")
out=$("$REPAIR" --replay-only -l "$L" "$T_DIR/int2.img" 2>&1)
rc=$?
check "-l on an internal-log filesystem: exit 8 ($rc): $out" test $rc -eq 8
check "-l on an internal-log filesystem: nothing written" \
	test "$bi $bl" = "$(sum "$T_DIR/int2.img") $(sum "$L")"
# The log of another filesystem: its records carry another UUID.
cp --sparse=always "$D" "$T_DIR/o.img"
cp --sparse=always "$L" "$T_DIR/o.log"
make_case "$D" "$L" "$((SEED + 7))" safe 2> /dev/null
bo=$(sum "$T_DIR/o.img") bl=$(sum "$L")
out=$("$REPAIR" --replay-only -l "$L" "$T_DIR/o.img" 2>&1)
rc=$?
check "another filesystem's log device: refused, exit 8 ($rc): $(head -1 <<< "$out")" \
	test $rc -eq 8
check "another filesystem's log device: nothing written" \
	test "$bo $bl" = "$(sum "$T_DIR/o.img") $(sum "$L")"
# A log device in use by a mounted filesystem.
if mount_pair "$T_DIR/o.img" "$T_DIR/o.log" "$T_DIR/mmnt" norecovery,ro; then
	out=$("$REPAIR" -n -l "$PAIR_L" "$D" 2>&1)
	rc=$?
	check "log device of a mounted filesystem: refused, exit 8 ($rc): $out" \
		test $rc -eq 8 -a -n "$(grep 'in use' <<< "$out")"
	out=$("$REPAIR" -n -l "$T_DIR/o.log" "$D" 2>&1)
	rc=$?
	check "file behind the log device of a mounted filesystem: refused, exit 8 ($rc)" \
		test $rc -eq 8 -a -n "$(grep 'in use' <<< "$out")"
	umount_pair "$T_DIR/mmnt"
else
	not_ok "could not mount a filesystem with its external log"
fi
t_done
