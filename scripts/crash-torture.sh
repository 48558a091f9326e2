#!/bin/bash
# Crash at every flush point (issue 25).  For each profile: a small
# filesystem (xfsj-mkfs --small) is served by a FUSE write recorder
# (tests/torture/wrec.c) through a loop device, mounted and given the
# suite's workload (crashgen.sh's "full" operations) beside a writer of
# files that it fsyncs (file and directory) and notes in the log, and
# the crash suite's tight loops (renameloop.pl, xchgloop.pl); then
# every crash state is built from the write log, incrementally on one
# working copy (tests/torture/wstate.c):
#   state K     the base plus every write before flush mark K
#   torn K/S    state K plus a subset (seed S) of the writes up to mark K+1
# and checked:
#   1. xfsj-repair --replay-only -O COPY replays it;
#   2. xfsj-repair -n finds the state clean once replayed (exit 0 or 2);
#      on a seeded sample (--repair-sample R), xfs_repair -n (6.13) finds
#      nothing on the replay that it does not also find on the kernel's
#      replay of the same state;
#   3. every file fsynced before mark K is in COPY with its fsynced
#      contents (tests/torture/fsynced.pl);
#   and on a seeded sample (--kernel-sample K) the kernel mounts a copy:
#      its tree_dump (names, inode numbers, contents, FIEMAP extents,
#      xattrs, free counts) equals that of COPY.
#
# Usage: bash scripts/crash-torture.sh [--profile P[,P...]] [--workload W]
#        [--seed S] [--states N] [--torn T] [--kernel-sample K]
#        [--repair-sample R] [--seconds SECS] [--size SIZE] [--buffered]
#        [--keep DIR]
#   P: crashgen.sh's crash_mkfs_opts profiles (defaults, bs1k, normap,
#      noparent, smalllog, isize1k, logsu, sect4k, logbsize); default
#      "defaults"; the states are split between the profiles
#   W: suite (the only one: fstests' fsstress and fsx are no Debian
#      package here)
#   N: states per run (default 200: every distinct one, or a seeded
#      sample over the whole log when it has more; T of them torn,
#      default N/4)
#   K: states also mounted by the kernel (default 5); R: states also
#      given to xfs_repair -n (default K + N/20)
#   SECS: workload seconds per profile (default 4); SIZE: 256m
#   --buffered: the loop device without direct I/O (writes reach the
#      recorder merged by the page cache; the marks are kept)
# Ends with one line:
#   crash-torture: N states (T torn), C clean after replay, E/K equal to
#   the kernel, F failures
# Each failure keeps its state's image, the base and the write log under
# DIR (default /var/tmp/crash-torture.SEED.PID) and prints the command that
# rebuilds the state.  Exit 0 when F is 0.
set -u
cd "$(dirname "$0")/.." || exit 2

profiles=defaults workload=suite seed=$(( $(date +%s) % 100000 ))
nstates=200 ntorn="" ksample=5 rsample="" secs=4 size=256m direct=1 keep=""
while [ $# -gt 0 ]; do
	case $1 in
	--profile) profiles=$2; shift ;;
	--workload) workload=$2; shift ;;
	--seed) seed=$2; shift ;;
	--states) nstates=$2; shift ;;
	--torn) ntorn=$2; shift ;;
	--kernel-sample) ksample=$2; shift ;;
	--repair-sample) rsample=$2; shift ;;
	--seconds) secs=$2; shift ;;
	--size) size=$2; shift ;;
	--buffered) direct=0 ;;
	--keep) keep=$2; shift ;;
	*) echo "crash-torture: unknown option $1" >&2; exit 2 ;;
	esac
	[ $# -gt 0 ] && shift
done
[ -n "$ntorn" ] || ntorn=$((nstates / 4))
[ -n "$rsample" ] || rsample=$((ksample + nstates / 20))
if [ "$workload" != suite ]; then
	echo "crash-torture: workload $workload: not available here (fstests' fsstress and fsx are in no Debian package); use suite" >&2
	exit 2
fi
if [ "$(id -u)" != 0 ]; then
	echo "crash-torture: must run as root (FUSE, loop devices, mounts)" >&2
	exit 2
fi

# What a fresh clone lacks: the build (the FUSE packages: torture_tools).
if [ ! -x ./xfsj-repair ] || [ ! -x ./xfsj-mkfs ]; then
	bash scripts/deps.sh > /dev/null && bash scripts/build.sh > /dev/null ||
		{ echo "crash-torture: the build failed" >&2; exit 2; }
fi

source tests/system/lib/common.sh
source tests/system/lib/crashgen.sh
source tests/system/lib/treedump.sh
source tests/system/lib/checker.sh
source tests/system/lib/torture.sh
oracle_613
REPAIR=${XFSJ_REPAIR:-$BUILD/xfsj-repair}
torture_tools "$T_DIR" || { echo "crash-torture: cannot build the recorder" >&2; exit 2; }
SHM=""
if [ -d /dev/shm ] && [ "$(df -k --output=avail /dev/shm | tail -1)" -gt 2000000 ]; then
	SHM=$(mktemp -d /dev/shm/xfsj-torture.XXXXXX)
fi
# The workload's processes of a recording cut short, stopped before the
# mounts are undone; the tmpfs directory removed.
WORKLOAD_PIDS=""
torture_cleanup() {
	if [ -n "$WORKLOAD_PIDS" ]; then
		# shellcheck disable=SC2086
		kill -- $WORKLOAD_PIDS 2> /dev/null
		sleep 0.5
	fi
	[ -n "$SHM" ] && rm -rf "$SHM"
	t_cleanup
}
trap torture_cleanup EXIT
[ -n "$keep" ] || keep=/var/tmp/crash-torture.$seed.$$

tot_states=0 tot_torn=0 tot_clean=0 tot_eq=0 tot_k=0 tot_fail=0 tot_r=0 tot_excused=0 kernel_twice=0
check_secs=0	# the replay and checks 1-3 alone, in ms
ms_replay=0	# of which xfsj-repair
check_cpu=0	# their CPU time (user + system), ms

# torture_syncer MNT CTL STOP SEED: files written, fsynced (file and
# directory) and noted, until STOP exists.
torture_syncer() {
	local mnt=$1 ctl=$2 stop=$3 i=0 n sum tmp=$T_DIR/sentinel
	RANDOM=$4
	while [ ! -e "$stop" ]; do
		i=$((i + 1))
		n=$((1 + (RANDOM * 7) % 200000))
		{ printf 'sentinel %d\n' "$i"; head -c "$n" /dev/urandom; } > "$tmp"
		n=$(stat -c %s "$tmp")
		sum=$(md5sum < "$tmp" | cut -d' ' -f1)
		cp "$tmp" "$mnt/sync/s$i" 2> /dev/null || break
		xfs_io -c fsync "$mnt/sync/s$i" && xfs_io -c fsync "$mnt/sync" &&
			echo "fsync /sync/s$i $n $sum" > "$ctl"
		sleep 0.05
	done
}

# record P DIR WANT: base image DIR/base, write log DIR/log of the workload
# on profile P, run SECS and then until the log holds WANT distinct
# states; DIR/index (wstate index), DIR/notes (the fsync notes)
record() {
	local p=$1 d=$2 want=$3 t opts mopts dev fm=$2/fuse mnt=$2/mnt wl sy loops stop=$2/stop
	opts=$(crash_mkfs_opts "$p") || { echo "crash-torture: no profile $p" >&2; return 1; }
	case $p in smalllog) ;; *) opts="--small $opts" ;; esac
	mopts=$(crash_mount_opts "$p")
	truncate -s "$size" "$d/base"
	# shellcheck disable=SC2086
	"$MKFS" -q -f $opts "$d/base" > "$d/mkfs.out" 2>&1 || {
		echo "crash-torture: xfsj-mkfs $opts failed: $(head -c 300 "$d/mkfs.out")" >&2
		return 1
	}
	cp --sparse=always "$d/base" "$d/work"
	mkdir -p "$mnt"
	local dflag=()
	[ "$direct" = 1 ] && dflag=(--direct)
	wrec_start "$d/work" "$d/log" "$fm" "${dflag[@]}" || return 1
	if [ "$direct" = 1 ]; then
		dev=$(losetup -f --show --direct-io=on "$fm/img") || return 1
		echo "$dev" >> "$T_LOOPFILE"
	else
		dev=$(attach_loop "$fm/img") || return 1
	fi
	t_mount "$dev" "$mnt" "$mopts" || { echo "crash-torture: mount -o '$mopts' failed" >&2; return 1; }
	mkdir -p "$mnt/w" "$mnt/sync"
	xfs_io -c fsync "$mnt/sync" && xfs_io -c fsync "$mnt"
	set -m
	( crash_workload "$mnt/w" "$seed" full ) > /dev/null 2>&1 &
	wl=$!
	set +m
	# tight loops of renames (parent pointer chains) and of range
	# exchanges, clones and CoW: the log fills and wraps
	mkdir -p "$mnt/rn" "$mnt/xr"
	perl tests/system/lib/renameloop.pl "$mnt/rn" "$seed" > /dev/null 2>&1 &
	loops=$!
	perl tests/system/lib/xchgloop.pl "$mnt/xr" "$seed" > /dev/null 2>&1 &
	loops="$loops $!"
	torture_syncer "$mnt" "$fm/ctl" "$stop" "$seed" &
	sy=$!
	# log forces between the fsyncs: more, smaller flush intervals
	( while [ ! -e "$stop" ]; do sync -f "$mnt"; sleep 0.02; done ) &
	sy="$sy $!"
	WORKLOAD_PIDS="-$wl $loops $sy"
	# at least SECS, then until the log holds the states wanted (at most
	# 4 x SECS + 30 s in all)
	sleep "$secs"
	t=$SECONDS
	while [ "$("$WSTATE" live "$d/log")" -lt "$want" ] &&
	      [ $((SECONDS - t)) -lt $((3 * secs + 30)) ]; do
		sleep 1
	done
	touch "$stop"
	kill -- -"$wl" 2> /dev/null
	# shellcheck disable=SC2086
	kill $loops 2> /dev/null
	# shellcheck disable=SC2086
	wait $loops 2> /dev/null
	# shellcheck disable=SC2086
	wait "$wl" $sy 2> /dev/null
	WORKLOAD_PIDS=""
	t_umount "$mnt" || return 1
	detach_loop "$dev" || return 1
	wrec_stop "$fm" || return 1
	"$WSTATE" index "$d/log" > "$d/index" || return 1
	grep '^note' "$d/index" | awk '$3 == "fsync" { print $2, $4, $5, $6 }' > "$d/notes"
}

# keep_failure P D ID K [S] WHY: the state's image, base and log to $keep
keep_failure() {
	local p=$1 d=$2 id=$3 k=$4 s=$5 why=$6
	mkdir -p "$keep"
	if [ ! -e "$keep/$p.log" ]; then
		cp --sparse=always "$d/base" "$keep/$p.base"
		cp "$d/log" "$keep/$p.log"
		cp "$WSTATE" "$keep/wstate"
	fi
	cp --sparse=always "$d/m/st" "$keep/$p-$id.img"
	printf '%s\n' "$why" > "$keep/$p-$id.why"
	echo "#  kept $keep/$p-$id.img; rebuild: cp --sparse=always $keep/$p.base X && $keep/wstate build $keep/$p.log X $k${s:+ $s}"
}

# kernel_copy D OUT: the kernel's replay of the state D/st in OUT
kernel_copy() {
	cp --sparse=always "$1/m/st" "$2"
	kernel_replay "$2" 2> /dev/null
}

# kernel_again D: the kernel's replay of D/st made once more equals ours
# (D/o.dump).  The oracle is not always the same twice: a state with an
# unlinked inode and CoW staging extents to finish (seed 5203, defaults
# k1316) gave statfs 59778 free blocks after one kernel replay and 59777,
# as ours, after another, with the same AGF and superblock counters.  A
# difference both kernel replays show stays a failure.
kernel_again() {
	kernel_copy "$1" "$1/k2.img"
	dump_image "$1/k2.img" "$1/k2.dump" ro,nouuid &&
		cmp -s "$1/k2.dump" "$1/o.dump"
	local rc=$?
	rm -f "$1/k2.img"
	[ $rc = 0 ] && kernel_twice=$((kernel_twice + 1))
	return $rc
}

# What xfsj-repair -n may find on a replayed state when xfs_repair -n (6.13)
# finds it too on the kernel's replay of the same state: "CODE PATTERN"
# (PATTERN: a basic regular expression on xfs_repair's lines).
EXCUSED=(
	"attr.incomplete INCOMPLETE"	# a set or removal of an xattr cut short
)

# excused D: the problems xfsj-repair -n finds on D/st are all in
# EXCUSED, each also found by xfs_repair -n on the kernel's replay
excused() {
	local d=$1 code e pat theirs
	"$REPAIR" -n --json "$d/m/st" 2> /dev/null |
		sed -n '/^{"kind":"problem","state":"found",/s/.*"code":"\([^"]*\)".*/\1/p' | sort -u > "$d/codes"
	[ -s "$d/codes" ] || return 1
	kernel_copy "$d" "$d/k.img"
	theirs=$(repair_findings "$d/k.img")
	while read -r code; do
		pat=""
		for e in "${EXCUSED[@]}"; do
			[ "${e%% *}" = "$code" ] && pat=${e#* }
		done
		[ -n "$pat" ] && grep -q -- "$pat" <<< "$theirs" || return 1
	done < "$d/codes"
	tot_excused=$((tot_excused + 1))
	# the copy to check further is the replay alone, not the repair
	"$REPAIR" --replay-only -f -O "$d/m/cp" "$d/m/st" > /dev/null 2>&1
}

# cpu_now: CPU_MS, the CPU time (user + system, ms) of this shell's
# children so far: `times` in this shell (a subshell has its own), no
# process started
cpu_now() {
	local u s t sum=0
	times > "$T_DIR/times"
	{ read -r _; read -r u s; } < "$T_DIR/times"
	for t in "$u" "$s"; do
		[[ $t =~ ^([0-9]+)m([0-9]+)\.([0-9]{3})s$ ]] || continue
		sum=$((sum + BASH_REMATCH[1] * 60000 + 10#${BASH_REMATCH[2]} * 1000 + 10#${BASH_REMATCH[3]}))
	done
	CPU_MS=$sum
}

# check_state P D ID K S KSAMPLE RSAMPLE: checks of the state in D/st;
# 0 when it passes
check_state() {
	local p=$1 d=$2 id=$3 k=$4 s=$5 kern=$6 rep=$7 rc t0 t1 c0 c1 why="" ours theirs
	cpu_now
	c0=$CPU_MS
	t0=${EPOCHREALTIME/./}
	# 1 and 2: replayed into D/cp, checked, nothing to repair (exit 0)
	"$REPAIR" -f -O "$d/m/cp" "$d/m/st" > "$d/r1.out" 2>&1
	rc=$?
	t1=${EPOCHREALTIME/./}
	ms_replay=$((ms_replay + (t1 - t0) / 1000))
	cpu_now
	c1=$CPU_MS
	# (the kernel's replay for an excused problem is not timed)
	if [ $rc -ne 0 ] && ! { [ $rc -eq 1 ] && excused "$d"; }; then
		why="xfsj-repair exit $rc: $(grep -e '^found' -e 'rror' -e 'cannot' "$d/r1.out" | head -3 | tr '\n' ' ')"
	fi
	t0=$((t0 + ${EPOCHREALTIME/./} - t1))
	cpu_now
	c0=$((c0 + CPU_MS - c1))
	# 3: the fsynced files
	if [ -z "$why" ]; then
		awk -v k="$k" '$1 <= k { print $2, $3, $4 }' "$d/notes" > "$d/want"
		perl tests/torture/fsynced.pl "$XFSPROGS613/xfs_db" "$d/m/cp" < "$d/want" > "$d/f3.out" 2>&1 ||
			why="fsynced files: $(head -3 "$d/f3.out" | tr '\n' ' ')"
	fi
	check_secs=$((check_secs + (${EPOCHREALTIME/./} - t0) / 1000))
	cpu_now
	check_cpu=$((check_cpu + CPU_MS - c0))
	if [ -z "$why" ] && [ "$rep" = 1 ]; then
		tot_r=$((tot_r + 1))
		ours=$(repair_findings "$d/m/cp")
		if [ -n "$ours" ]; then
			kernel_copy "$d" "$d/k.img"
			theirs=$(repair_findings "$d/k.img")
			ours=$(comm -23 <(echo "$ours") <(echo "$theirs"))
			[ -z "$ours" ] || why="xfs_repair -n on our replay, not on the kernel's: $(head -3 <<< "$ours" | tr '\n' ' ')"
		fi
	fi
	if [ "$kern" = 1 ]; then
		tot_k=$((tot_k + 1))
		kernel_copy "$d" "$d/k.img"
		if dump_image "$d/k.img" "$d/k.dump" ro,nouuid && dump_image "$d/m/cp" "$d/o.dump" ro,nouuid &&
		   { cmp -s "$d/k.dump" "$d/o.dump" || kernel_again "$d"; }; then
			tot_eq=$((tot_eq + 1))
		else
			why="${why:+$why; }the kernel's replay differs: $(diff "$d/k.dump" "$d/o.dump" 2>&1 | head -4 | tr '\n' ' ' | cut -c1-400)"
		fi
	fi
	if [ -n "$why" ]; then
		echo "crash-torture: $p state $id: $why"
		keep_failure "$p" "$d" "$id" "$k" "$s" "$why"
		return 1
	fi
	return 0
}

# pick_sample TOTAL COUNT SALT: COUNT distinct numbers in 1..TOTAL, seeded
pick_sample() {
	awk -v n="$1" -v c="$2" -v s="$seed" -v t="$3" 'BEGIN {
		srand(s * 7919 + t); if (c > n) c = n
		while (k < c) { i = 1 + int(rand() * n); if (!(i in got)) { got[i] = 1; k++; print i } }
	}'
}

# run_profile P N T: record, then build and check N states (T torn)
run_profile() {
	local p=$1 want=$2 wantt=$3 d=$T_DIR/$1 marks nst=0 ntorn_done=0 pos=0
	local i k off nw next_off idx states=() torns=() t0
	mkdir -p "$d"
	echo "# crash-torture: profile $p: recording at least $secs s of the workload, until $want distinct states"
	record "$p" "$d" "$want" || { tot_fail=$((tot_fail + 1)); echo "crash-torture: $p: could not record"; return; }
	marks=$(awk '$1 == "end" { print $3 }' "$d/index")
	echo "# crash-torture: profile $p: $(awk '$1 == "end" { print $2 " writes, " $3 " marks" }' "$d/index") ($(awk '$1 == "mark" && $4 > 0' "$d/index" | wc -l) distinct states), $(wc -l < "$d/notes") fsynced files, write log $(($(stat -c %s "$d/log") >> 20)) MiB, XFS log cycle $("${XFSJ_LOGPRINT:-$BUILD/xfsj-logprint}" --json --summary "$d/work" 2> /dev/null | grep -o '"cycle":[0-9]*' | cut -d: -f2) at the end"
	# The distinct states: marks with writes since the one before.
	awk '$1 == "mark" && $4 > 0 { print $2, $3 }' "$d/index" > "$d/states"
	# offsets of every mark, and the writes between it and the next
	awk '$1 == "mark" { print $2, $3, $4 }' "$d/index" > "$d/marks"
	# all of them, or a seeded sample spread over the whole log
	mapfile -t states < <(pick_sample "$(wc -l < "$d/states")" "$want" 0 |
		awk 'NR == FNR { want[$1] = 1; next } FNR in want { print $1 }' - "$d/states")
	# torn candidates: a mark whose next interval has two writes or more
	mapfile -t torns < <(awk 'NR > 1 && $3 >= 2 { print prev } { prev = $1 }' "$d/marks")
	local -A is_torn=() kpick=() rpick=()
	for i in $(pick_sample "${#torns[@]}" "$wantt" 1); do is_torn[${torns[i - 1]}]=1; done
	local total=$(( ${#states[@]} + ${#is_torn[@]} ))
	for i in $(pick_sample "$total" "$kpick_n" 2); do kpick[$i]=1; done
	for i in $(pick_sample "$total" "$rpick_n" 3); do rpick[$i]=1; done
	# The state and its replayed copy in memory where there is a tmpfs:
	# the replay's syncs cost nothing there.
	if [ -d "$SHM" ]; then
		ln -sfn "$SHM" "$d/m"
	else
		mkdir -p "$d/m"
	fi
	cp --sparse=always "$d/base" "$d/m/st"
	t0=$SECONDS
	idx=0
	local -A mark_off=() is_reg=()
	while read -r k off nw; do mark_off[$k]=$off; done < "$d/marks"
	for k in "${states[@]}"; do is_reg[$k]=1; done
	# walk the marks in order: regular states, and torn ones after them
	local all
	all=$(printf '%s\n' "${states[@]}" "${!is_torn[@]}" | sort -n -u)
	for k in $all; do
		"$WSTATE" apply "$d/log" "$d/m/st" "$pos" "${mark_off[$k]}" || { echo "crash-torture: wstate apply failed"; tot_fail=$((tot_fail + 1)); return; }
		pos=${mark_off[$k]}
		if [ -n "${is_reg[$k]:-}" ]; then
			idx=$((idx + 1)); nst=$((nst + 1))
			if check_state "$p" "$d" "k$k" "$k" "" "${kpick[$idx]:-0}" "${rpick[$idx]:-0}"; then
				tot_clean=$((tot_clean + 1))
			else
				tot_fail=$((tot_fail + 1))
			fi
		fi
		if [ -n "${is_torn[$k]:-}" ]; then
			idx=$((idx + 1)); nst=$((nst + 1)); ntorn_done=$((ntorn_done + 1))
			next_off=${mark_off[$((k + 1))]}
			"$WSTATE" torn "$d/log" "$d/m/st" "$pos" "$next_off" "$((seed + k))" "$d/undo" > /dev/null || { tot_fail=$((tot_fail + 1)); return; }
			if check_state "$p" "$d" "k$k-t$((seed + k))" "$k" "$((seed + k))" "${kpick[$idx]:-0}" "${rpick[$idx]:-0}"; then
				tot_clean=$((tot_clean + 1))
			else
				tot_fail=$((tot_fail + 1))
			fi
			"$WSTATE" undo "$d/undo" "$d/m/st" || { tot_fail=$((tot_fail + 1)); return; }
		fi
	done
	tot_states=$((tot_states + nst))
	tot_torn=$((tot_torn + ntorn_done))
	echo "# crash-torture: profile $p: $nst states ($ntorn_done torn) of $marks marks checked in $((SECONDS - t0)) s"
	rm -f "$d/work" "$d/m/st" "$d/m/cp" "$d/k.img"
}

read -r -a plist <<< "${profiles//,/ }"
np=${#plist[@]}
t_all=$SECONDS
for ((pi = 0; pi < np; pi++)); do
	per=$(( (nstates - tot_states) / (np - pi) ))
	pert=$(( (ntorn - tot_torn) / (np - pi) ))
	kpick_n=$(( (ksample - tot_k) / (np - pi) ))
	rpick_n=$(( rsample / np ))
	run_profile "${plist[pi]}" "$((per - pert))" "$pert"
done
rate=$(awk -v n="$tot_states" -v ms="$check_secs" 'BEGIN { printf "%.1f", ms ? n * 1000 / ms : 0 }')
echo "# crash-torture: seed $seed, profiles $profiles, $((SECONDS - t_all)) s in all; replay and checks 1-3 alone: $rate states/s ($ms_replay of $check_secs ms in xfsj-repair; CPU $((tot_states ? check_cpu / tot_states : 0)) ms a state, load average $(cut -d' ' -f1 /proc/loadavg)); $tot_r states also checked by xfs_repair -n; $tot_excused with problems xfs_repair -n also finds on the kernel's replay (${EXCUSED[*]%% *}); $kernel_twice equal to a second kernel replay only"
[ "$tot_fail" -gt 0 ] && echo "# crash-torture: failures kept under $keep"
echo "crash-torture: $tot_states states ($tot_torn torn), $tot_clean clean after replay, $tot_eq/$tot_k equal to the kernel, $tot_fail failures"
[ "$tot_fail" -eq 0 ]
