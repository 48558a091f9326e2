# shellcheck shell=bash
# Images whose log was written by the kernel, for the log reader's tests
# and benchmark.  Needs common.sh (T_DIR, attach_loop, t_mount...).
#
#   make_crash_image IMG SIZE MKFS_OPTS MOUNT_OPTS WORKLOAD_SECONDS
#       format, mount, run a metadata-heavy workload in the background,
#       `xfs_io -x -c 'shutdown -f'` while it runs, wait for it (its
#       operations fail with EIO from then on), unmount, detach: the log
#       is dirty and ends mid-workload.
#   make_clean_image IMG SIZE MKFS_OPTS MOUNT_OPTS WORKLOAD_SECONDS
#       the same workload, then a normal unmount: a clean log with an
#       unmount record.
#   make_fresh_image IMG SIZE MKFS_OPTS
#       just formatted: the log as mkfs left it.
#
# Knobs (environment):
#   CRASH_MKFS     xfsj (default: $MKFS), mkfs.xfs (the 6.13 oracle when
#                  XFSPROGS613 is set, else the system's), or a path;
#   CRASH_SEED     seed of the workload's operation stream (default 1);
#   CRASH_WORKERS  parallel workers (default 4), each seeded SEED + n;
#   CRASH_SCALE    files per directory grow with it (default 1);
#   CRASH_SYNCER   1 (default): one more process forces the log (syncfs)
#                  back to back, so checkpoints are small and many and
#                  intents land in other checkpoints than their done
#                  items; 0: checkpoints as large as the kernel makes them.
#   CRASH_CHAINS   1: two more processes, tight loops of what the workers
#                  make only now and then: xchgloop.pl's range clones, CoW
#                  overwrites and range exchanges (CUI, BUI and XMI
#                  chains) and renameloop.pl's renames (parent pointer
#                  updates: ATTRI chains); default 0.
#   CRASH_HOLD     n: one more process makes n files of 64 KiB, opens
#                  them, unlinks them and holds them open until the
#                  workload stops (after the shutdown): their inodes are
#                  on the AGI unlinked lists the crash leaves; default 0.
#   CRASH_FREEZE   make_crash_image only: 1: the filesystem is frozen and
#                  thawed once WORKLOAD_SECONDS into the workload (its
#                  metadata written in place, the log covered), which then
#                  runs WORKLOAD_SECONDS more (and as CRASH_NEED says):
#                  the live log holds only what came after the thaw.
#   CRASH_NEED     make_crash_image only: the name of a function that says
#                  whether a log holds what the test needs, called as
#                  `FN RAWLOG live|final` (RAWLOG: a copy of the log, as
#                  xfsj-logprint -C writes it; live: a copy taken while
#                  the workload runs; final: the image's log after the
#                  shutdown).  It returns 0 when the log will do, else
#                  prints what the log lacks.  The workload then runs at
#                  least WORKLOAD_SECONDS and goes on, the live log copied
#                  and asked every second, until it holds (at most
#                  CRASH_MAX_SECONDS, default 4 x WORKLOAD_SECONDS + 10);
#                  a final log that lacks it is made again (new seeds),
#                  up to CRASH_ATTEMPTS times (default 4), after which
#                  make_crash_image fails, saying what the log lacked.
# Empty MKFS_OPTS / MOUNT_OPTS mean the tool's / the kernel's defaults.
# The same seed gives the same sequence of operations; where the
# shutdown lands depends on timing: a test that needs something of the
# log says so with CRASH_NEED instead of hoping the workload wrote it.

CRASHIMG_LOOPS=()

# crashimg_mkfs DEV MKFS_OPTS
crashimg_mkfs() {
	local dev=$1 opts=$2 tool
	case ${CRASH_MKFS:-xfsj} in
	xfsj) tool=$MKFS ;;
	mkfs.xfs)
		if [ -n "${XFSPROGS613:-}" ] && [ -x "$XFSPROGS613/mkfs.xfs" ]; then
			tool=$XFSPROGS613/mkfs.xfs
		else
			tool=mkfs.xfs
		fi ;;
	*) tool=$CRASH_MKFS ;;
	esac
	# shellcheck disable=SC2086
	"$tool" -q -f $opts "$dev" >"$T_DIR/crashimg.mkfs.out" 2>&1 || {
		echo "crashimg: $tool $opts $dev failed:" >&2
		sed 's/^/#  /' "$T_DIR/crashimg.mkfs.out" >&2
		return 1
	}
}

# One operation of worker W in DIR, chosen from the global RANDOM
# stream.  Metadata-heavy: creates, mkdir, small writes and appends,
# truncates and punched holes, xattrs of several sizes, reflink copies and
# their copy-on-write, renames, hard links, unlinks, fsync.
crashimg_op() {
	local dir=$1 nf=$2 n=$((RANDOM % 1000)) a b k cmds=()
	a="$dir/d$((RANDOM % 8))/f$((RANDOM % nf))"
	b="$dir/d$((RANDOM % 8))/f$((RANDOM % nf))"
	case $((RANDOM % 24)) in
	0) mkdir -p "$dir/d$((RANDOM % 8))/s$((RANDOM % 16))" ;;
	1|2) printf 'data %d\n' "$n" > "$a" ;;
	3) printf 'more %d\n' "$n" >> "$a" ;;
	4) xfs_io -f -c "pwrite -q -S $((n % 250)) $((RANDOM % 256))k $((4 + RANDOM % 60))k" "$a" ;;
	5) [ -e "$a" ] && [ ! -e "$b" ] && ln "$a" "$b" ;;
	6) [ -e "$a" ] && mv -f "$a" "$b" ;;
	7) ln -sf "../f$n/some/longer/target/name/$n" "$a.lnk" ;;
	8) [ -e "$a" ] && setfattr -n "user.x$((n % 7))" -v "v$n" "$a" ;;
	9) [ -e "$a" ] && setfattr -n "user.big$((n % 3))" \
		-v "$(head -c $((100 + (RANDOM * 7) % 3000)) /dev/zero | tr '\0' v)" "$a" ;;
	10) [ -e "$a" ] && setfattr -x "user.x$((n % 7))" "$a" ;;
	11) xfs_io -f -c "pwrite -q 0 8k" -c fsync "$a" ;;
	12|13) rm -f "$a" ;;
	14) [ -e "$a" ] && xfs_io -c "truncate $((RANDOM % 32))k" "$a" ;;
	15) [ -e "$a" ] && xfs_io -c "fpunch $((RANDOM % 64))k 16k" "$a" ;;
	16) [ -e "$a" ] && cp --reflink=auto "$a" "$b.clone" ;;
	17) [ -e "$b.clone" ] && xfs_io -c "pwrite -q -S 0x5a 0 4k" -c fsync "$b.clone" ;;
	18) for ((k = 0; k < 48; k++)); do printf '%d\n' "$k" > "$a.m$k"; done ;;
	19) rm -f "$a".m* ;;
	20) # a file of many extents: long chains of deferred work later
	    for ((k = 0; k < 128; k += 8)); do cmds+=(-c "pwrite -q -S 0x77 ${k}k 4k"); done
	    xfs_io -f "${cmds[@]}" -c fsync "$a.frag" ;;
	21) [ -e "$a.frag" ] && cp --reflink=auto "$a.frag" "$b.fclone" && sync -f "$b.fclone" ;;
	22) [ -e "$b.fclone" ] && xfs_io -c "pwrite -q -S 0x11 0 128k" -c fsync "$b.fclone" ;;
	23) rm -f "$a.frag" "$b.fclone" ;;
	esac
	return 0
}

# crashimg_worker DIR SEED STOPFILE: operations until STOPFILE exists
crashimg_worker() {
	local dir=$1 seed=$2 stop=$3 scale=${CRASH_SCALE:-1} i
	local nf=$((64 * scale))
	RANDOM=$seed
	for ((i = 0; i < 8; i++)); do mkdir -p "$dir/d$i"; done
	while [ ! -e "$stop" ]; do
		crashimg_op "$dir" "$nf" 2>/dev/null
	done
}

# crashimg_syncer MNT STOPFILE: syncfs back to back
crashimg_syncer() {
	while [ ! -e "$2" ]; do
		sync -f "$1" 2>/dev/null
	done
}

# crashimg_holder DIR N STOPFILE: N files made in DIR, opened, unlinked
# and held open until STOPFILE exists.
crashimg_holder() {
	local dir=$1 k fd
	mkdir -p "$dir"
	for ((k = 0; k < $2; k++)); do
		xfs_io -f -c "pwrite -q -S 0x6c 0 64k" "$dir/h$k" || return 1
		exec {fd}< "$dir/h$k"
		rm -f "$dir/h$k"
	done
	while [ ! -e "$3" ]; do
		sleep 0.2
	done
}

# crashimg_run DEV MNT MOUNT_OPTS SECONDS: starts the workers, lets them
# run SECONDS, then returns with the workers still running; their pids
# are in CRASHIMG_PIDS, the stop file in CRASHIMG_STOP.
crashimg_run() {
	local dev=$1 mnt=$2 mopts=$3 secs=$4 w
	local seed=${CRASH_SEED:-1} workers=${CRASH_WORKERS:-4}
	t_mount "$dev" "$mnt" "$mopts" || { echo "crashimg: mount $mopts failed" >&2; return 1; }
	CRASHIMG_STOP=$(mktemp -u "$T_DIR/crashimg.stop.XXXXXX")
	CRASHIMG_PIDS=()
	for ((w = 0; w < workers; w++)); do
		mkdir -p "$mnt/w$w"
		crashimg_worker "$mnt/w$w" $((seed * 100 + w)) "$CRASHIMG_STOP" &
		CRASHIMG_PIDS+=($!)
	done
	# Frequent log forces: checkpoints end in the middle of chains of
	# deferred work, so intents and their done items land in different
	# checkpoints (a kernel with intent whiteouts writes no others).
	if [ "${CRASH_SYNCER:-1}" = 1 ]; then
		crashimg_syncer "$mnt" "$CRASHIMG_STOP" &
		CRASHIMG_PIDS+=($!)
	fi
	if [ "${CRASH_HOLD:-0}" -gt 0 ]; then
		crashimg_holder "$mnt/held" "$CRASH_HOLD" "$CRASHIMG_STOP" &
		CRASHIMG_PIDS+=($!)
	fi
	CRASHIMG_LOOPS=()
	if [ "${CRASH_CHAINS:-0}" = 1 ]; then
		mkdir -p "$mnt/xr" "$mnt/rn"
		perl "$(dirname "${BASH_SOURCE[0]}")/xchgloop.pl" "$mnt/xr" "$seed" 2>/dev/null &
		CRASHIMG_LOOPS+=($!)
		perl "$(dirname "${BASH_SOURCE[0]}")/renameloop.pl" "$mnt/rn" "$seed" 2>/dev/null &
		CRASHIMG_LOOPS+=($!)
	fi
	sleep "$secs"
}

# crashimg_stop: tells the workers to stop and waits for them.
crashimg_stop() {
	touch "$CRASHIMG_STOP"
	# The perl loops know no stop file: they are stopped by their pids.
	if [ ${#CRASHIMG_LOOPS[@]} -gt 0 ]; then
		kill "${CRASHIMG_LOOPS[@]}" 2>/dev/null
		CRASHIMG_PIDS+=("${CRASHIMG_LOOPS[@]}")
	fi
	CRASHIMG_LOOPS=()
	wait "${CRASHIMG_PIDS[@]}" 2>/dev/null
	rm -f "$CRASHIMG_STOP"
	CRASHIMG_PIDS=()
}

# crashimg_copy_log IMG RAW: the log of the filesystem in IMG (also while
# it is mounted through a loop device: the loop device writes through
# the file's page cache) to RAW; CRASHIMG_LOG ("byte-offset length")
# says where it is.
crashimg_copy_log() {
	dd if="$1" of="$2" bs=1M iflag=skip_bytes,count_bytes \
		skip="${CRASHIMG_LOG% *}" count="${CRASHIMG_LOG#* }" status=none
}

# crashimg_locate_log IMG: sets CRASHIMG_LOG from a just formatted IMG.
crashimg_locate_log() {
	local s
	s=$("${XFSJ_LOGPRINT:-$BUILD/xfsj-logprint}" --json --summary "$1" 2>/dev/null) || return 1
	CRASHIMG_LOG="$(($(grep -o '"log_daddr":[0-9]*' <<< "$s" | cut -d: -f2) * 512)) $(($(grep -o '"log_length":[0-9]*' <<< "$s" | cut -d: -f2) * 512))"
	[ "${CRASHIMG_LOG#* }" -gt 0 ]
}

# crashimg_wait IMG SECONDS: lets the workload run SECONDS, then, with
# CRASH_NEED, until the live log holds what the test needs (or
# CRASH_MAX_SECONDS have passed).
crashimg_wait() {
	local img=$1 secs=$2 max t0=$SECONDS raw=$T_DIR/crashimg.live.raw
	sleep "$secs"
	[ -n "${CRASH_NEED:-}" ] || return 0
	max=${CRASH_MAX_SECONDS:-$(awk -v s="$secs" 'BEGIN { printf "%d", 4 * s + 10 }')}
	while :; do
		crashimg_copy_log "$img" "$raw"
		"$CRASH_NEED" "$raw" live > "$T_DIR/crashimg.need" 2>&1 && break
		[ $((SECONDS - t0)) -ge "$max" ] && break
		sleep 1
	done
	rm -f "$raw"
}

# make_crash_image IMG SIZE MKFS_OPTS MOUNT_OPTS WORKLOAD_SECONDS
make_crash_image() {
	local img=$1 size=$2 mkopts=$3 mopts=$4 secs=$5 dev mnt attempt
	local seed=${CRASH_SEED:-1} tries=${CRASH_ATTEMPTS:-4}
	[ -n "${CRASH_NEED:-}" ] || tries=1
	for ((attempt = 1; attempt <= tries; attempt++)); do
		mnt=$(mktemp -d "$T_DIR/crashmnt.XXXXXX")
		rm -f "$img"
		truncate -s "$size" "$img" || return 1
		dev=$(attach_loop "$img") || return 1
		crashimg_mkfs "$dev" "$mkopts" || { detach_loop "$dev"; return 1; }
		if [ -n "${CRASH_NEED:-}" ] && ! crashimg_locate_log "$img"; then
			echo "crashimg: cannot find the log of $img" >&2
			detach_loop "$dev"
			return 1
		fi
		CRASH_SEED=$((seed + (attempt - 1) * 1000)) \
			crashimg_run "$dev" "$mnt" "$mopts" 0 || { detach_loop "$dev"; return 1; }
		# CRASH_FREEZE=1: after WORKLOAD_SECONDS, a freeze and thaw.
		if [ "${CRASH_FREEZE:-0}" = 1 ]; then
			sleep "$secs"
			xfs_io -x -c freeze -c thaw "$mnt" 2>/dev/null
		fi
		crashimg_wait "$img" "$secs"
		xfs_io -x -c "shutdown -f" "$mnt"
		crashimg_stop
		t_umount "$mnt" || return 1
		detach_loop "$dev"
		rmdir "$mnt"
		[ -n "${CRASH_NEED:-}" ] || return 0
		crashimg_copy_log "$img" "$T_DIR/crashimg.final.raw"
		if "$CRASH_NEED" "$T_DIR/crashimg.final.raw" final > "$T_DIR/crashimg.need" 2>&1; then
			rm -f "$T_DIR/crashimg.final.raw"
			[ "$attempt" -gt 1 ] && echo "# crashimg: $(basename "$img"): attempt $attempt made the log the test needs"
			return 0
		fi
		echo "# crashimg: $(basename "$img"): attempt $attempt: the log lacks what the test needs: $(head -c 300 "$T_DIR/crashimg.need" | tr '\n' ' ')"
	done
	rm -f "$T_DIR/crashimg.final.raw"
	echo "crashimg: $(basename "$img"): after $tries attempts the log still lacks what the test needs: $(head -c 300 "$T_DIR/crashimg.need" | tr '\n' ' ')" >&2
	return 1
}

# make_clean_image IMG SIZE MKFS_OPTS MOUNT_OPTS WORKLOAD_SECONDS
make_clean_image() {
	local img=$1 size=$2 mkopts=$3 mopts=$4 secs=$5 dev mnt
	mnt=$(mktemp -d "$T_DIR/crashmnt.XXXXXX")
	rm -f "$img"
	truncate -s "$size" "$img" || return 1
	dev=$(attach_loop "$img") || return 1
	crashimg_mkfs "$dev" "$mkopts" || { detach_loop "$dev"; return 1; }
	crashimg_run "$dev" "$mnt" "$mopts" "$secs" || { detach_loop "$dev"; return 1; }
	crashimg_stop
	t_umount "$mnt" || return 1
	detach_loop "$dev"
	rmdir "$mnt"
}

# make_fresh_image IMG SIZE MKFS_OPTS
make_fresh_image() {
	local img=$1 size=$2 mkopts=$3 dev
	rm -f "$img"
	truncate -s "$size" "$img" || return 1
	dev=$(attach_loop "$img") || return 1
	crashimg_mkfs "$dev" "$mkopts" || { detach_loop "$dev"; return 1; }
	detach_loop "$dev"
}
