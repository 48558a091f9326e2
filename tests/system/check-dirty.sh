#!/bin/bash
# `xfsj-repair -n` on a dirty log: it replays the log in memory and checks
# what the kernel's mount would leave.  On crash images (lib/crashimg.sh:
# a workload shut down mid-flight, the log dirty), for each case:
#   - the kernel replays a copy (mount, unmount) and `xfs_repair -n`
#     (6.13) checks it: problems (1) or none (0);
#   - `xfsj-repair -n` of the dirty image must exit 1 exactly when
#     xfs_repair -n found problems on the kernel's replay, and 2 (dirty
#     log, the replay checks clean) exactly when it found none; 4 (work
#     left that this version cannot finish) is counted apart;
#   - it never writes the image: size and modification time to the
#     nanosecond unchanged, and for the first case the md5 of the whole
#     image too.
# Prints a line per case.
#
#   DIRTY_SEED=s (default: the time)  DIRTY_CASES=n per option set
#   (default 3; option sets: xfsj-mkfs defaults, -m rmapbt=0,
#   -b size=1024)  DIRTY_JUDGED=n: the fewest cases judged (both checkers
#   compared; a case with work left that this version cannot finish is
#   not judged), default DIRTY_CASES: a run that judged fewer fails
source "$(dirname "$0")/lib/common.sh"
source "$(dirname "$0")/lib/crashimg.sh"
source "$(dirname "$0")/lib/checker.sh"
need_root
oracle_613
DIRTY_SEED=${DIRTY_SEED:-$(( $(date +%s) % 100000 ))}
DIRTY_CASES=${DIRTY_CASES:-3}
DIRTY_JUDGED=${DIRTY_JUDGED:-$DIRTY_CASES}
echo "# check-dirty: seed $DIRTY_SEED, $DIRTY_CASES cases per option set"
printf '# %-36s %22s %16s %9s\n' case "xfs_repair (replayed)" "xfsj (dirty)" problems

stamp() { stat -c '%s %y' "$1"; }

judged=0 leftover=0 md5done=0
for opts in "" "-m rmapbt=0" "-b size=1024"; do
	for ((k = 0; k < DIRTY_CASES; k++)); do
		seed=$((DIRTY_SEED + k))
		name="seed $seed${opts:+ $opts}"
		img=$T_DIR/dirty.img
		crash_case "$name" "$img" "$seed" "$opts" || continue
		cp --sparse=always "$img" "$T_DIR/kernel.img"
		if ! kernel_replay "$T_DIR/kernel.img"; then
			not_ok "$name: the kernel cannot replay it"
			continue
		fi
		oracle_check "$T_DIR/kernel.img"
		before=$(stamp "$img")
		[ $md5done = 0 ] && sum=$(md5sum < "$img")
		xfsj_check "$img"
		printf '# %-36s %22s %16s %9s\n' "$name" "$ORC" "$RC" "${NPROB:--}"
		check "$name: -n leaves the image as it was (size, mtime)" test "$before" = "$(stamp "$img")"
		if [ $md5done = 0 ]; then
			check "$name: -n leaves the image's bytes as they were (md5)" test "$sum" = "$(md5sum < "$img")"
			md5done=1
		fi
		case "$ORC:$RC" in
		*:4)
			leftover=$((leftover + 1))
			echo "#    leftover work this version cannot finish: $(grep -m1 'cannot finish' "$T_DIR/ours.err" | cut -c1-200)" ;;
		0:2)
			judged=$((judged + 1))
			ok "$name: clean after the kernel's replay; xfsj-repair -n: dirty, replay checks clean" ;;
		1:1)
			judged=$((judged + 1))
			ok "$name: both find problems" ;;
		0:*)
			judged=$((judged + 1))
			not_ok "$name: xfs_repair -n is clean on the kernel's replay; xfsj-repair -n exit $RC (${NPROB:-no} problems)"
			show_xfsj 10 ;;
		1:*)
			judged=$((judged + 1))
			not_ok "$name: xfs_repair -n finds problems on the kernel's replay; xfsj-repair -n exit $RC"
			show_oracle 5 ;;
		*)
			not_ok "$name: xfs_repair -n exit $ORC on the kernel's replay"
			show_oracle 3 ;;
		esac
		rm -f "$img" "$T_DIR/kernel.img"
	done
done
echo "# $judged cases judged, $leftover with leftover work this version cannot finish"
check "at least $DIRTY_JUDGED cases judged ($judged)" test "$judged" -ge "$DIRTY_JUDGED"
t_done
