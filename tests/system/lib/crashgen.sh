# shellcheck shell=bash
# Seeded generator of crash images, made the way the kernel makes them:
# format, mount, run a random workload, `xfs_io -x -c 'shutdown -f'` while
# it runs, unmount.
#
#   crash_image IMG SEED PROFILE MODE
#
# PROFILE: defaults | bs1k | normap | noparent | smalllog | mkfsxfs |
#          noparent_normap | noparent_bs1k | isize1k | grown | mkfs61 |
#          logsu (a 64 KiB log stripe unit: records padded to it, and
#          the clean log's unmount record too) | sect4k (4 KiB sectors) |
#          logbsize (defaults, mounted with 256 KiB log buffers:
#          crash_mount_opts; scripts/crash-torture.sh only)
#          (grown: made at 1 GiB by xfsj-mkfs, grown to 3 GiB by
#          xfs_growfs once mounted, just before the workload, so that the
#          log holds the superblock change and work in the new AGs)
#          (mkfsxfs: formatted by mkfs.xfs 6.13 with its defaults, which
#          have rmapbt and reflink but no parent pointers; mkfs61: by
#          Debian 12's mkfs.xfs 6.1 with its defaults: reflink, no rmapbt,
#          no large extent counters, what most Debian 12 systems carry)
# MODE:    safe  - operations that leave no work behind in the log once
#                  replayed (creates, writes, appends, overwrites, mkdir,
#                  links, renames, symlinks, xattrs up to 64 KiB,
#                  fallocate, fsync): no deletes, no truncates or
#                  punches, no reflink
#          full  - everything, including deletes, rmdir, truncates,
#                  punched holes, reflink copies and open-but-unlinked
#                  files
#          free  - weighted to what leaves allocation-group work behind:
#                  files of many extents (some in btree format) and
#                  reflinked copies made, then deleted, truncated, punched
#                  or unlinked while open
#          fsr   - xfs_fsr defragmenting files of many extents while they
#                  are fragmented again (extent swaps; on filesystems
#                  without rmapbt their btree forks change owner: DOWNER)
#          inode - weighted to what leaves inode-level intents behind:
#                  creates, renames and hard links across directories and
#                  unlinks (parent pointer updates: ATTRI), xattrs of every
#                  size up to 64 KiB, reflink copies written to (CoW remaps:
#                  BUI) and exchangerange between files (XMI); and
#                  xchgloop.pl's tight loop of range exchanges, range
#                  clones and CoW overwrites
# Needs common.sh (attach_loop, t_mount...) and XFSPROGS613.

crash_mkfs_opts() {
	case $1 in
	defaults|mkfsxfs|mkfs61|grown) echo "" ;;
	bs1k) echo "-b size=1024" ;;
	normap) echo "-m rmapbt=0" ;;
	noparent) echo "-n parent=0" ;;
	smalllog) echo "--small -l size=8m" ;;
	noparent_normap) echo "-n parent=0 -m rmapbt=0" ;;
	noparent_bs1k) echo "-b size=1024 -n parent=0" ;;
	isize1k) echo "-i size=1024" ;;
	logsu) echo "-l su=64k" ;;
	sect4k) echo "-s size=4096" ;;
	logbsize) echo "" ;;	# mounted with logbsize=256k: crash_mount_opts
	*) return 1 ;;
	esac
}

# crash_mount_opts PROFILE: the mount options a profile asks for.
crash_mount_opts() {
	case $1 in
	logbsize) echo "logbsize=256k" ;;
	*) echo "" ;;
	esac
}

# One random operation in DIR; uses and updates the global RANDOM stream.
crash_op() {
	local dir=$1 mode=$2 n=$((RANDOM % 40)) a b ops
	a="$dir/d$((RANDOM % 6))/f$((RANDOM % 60))"
	b="$dir/d$((RANDOM % 6))/f$((RANDOM % 60))"
	if [ "$mode" = safe ]; then
		ops=11
	else
		ops=16
	fi
	case $((RANDOM % ops)) in
	0) mkdir -p "$dir/d$((RANDOM % 6))/s$((RANDOM % 4))" ;;
	1) printf 'data %d\n' "$n" > "$a" ;;
	2) printf 'more %d\n' "$n" >> "$a" ;;
	3) xfs_io -f -c "pwrite -q -S $((n % 250)) $((RANDOM % 64))k $((1 + RANDOM % 128))k" "$a" ;;
	4) [ -e "$a" ] && [ ! -e "$b" ] && ln "$a" "$b" ;;
	5) [ -e "$a" ] && [ ! -e "$b" ] && mv "$a" "$b" ;;
	6) ln -sf "../f$n" "$a.lnk" ;;
	7) touch "$a"; setfattr -n "user.x$((n % 5))" -v "$(head -c $((1 + (RANDOM * 7) % 3000)) /dev/zero | tr '\0' v)" "$a" ;;
	8) xfs_io -f -c "pwrite -q 0 4k" -c fsync "$a" ;;
	9) # large values: leaf and remote attribute blocks, up to 64 KiB
	   touch "$a"; setfattr -n "user.big$((n % 3))" -v "0s$(head -c $((4000 + (RANDOM * 3) % 61536)) /dev/zero | base64 -w0)" "$a" ;;
	10) xfs_io -f -c "falloc $((RANDOM % 64))k $((4 + RANDOM % 60))k" "$a" ;;
	11) rm -f "$a" ;;
	12) [ -e "$a" ] && xfs_io -c "truncate $((RANDOM % 32))k" "$a" ;;
	13) [ -e "$a" ] && xfs_io -c "fpunch $((RANDOM % 16))k 8k" "$a" ;;
	14) [ -e "$a" ] && cp --reflink=auto "$a" "$b.clone" ;;
	15) case $((RANDOM % 2)) in
	    0) # open, unlink, keep writing: an inode on the unlinked list
	       xfs_io -f -c "pwrite -q 0 16k" "$a.tmp" && { exec 9<>"$a.tmp"; rm -f "$a.tmp"; echo x >&9; } ;;
	    1) rmdir "$dir/d$((RANDOM % 6))/s$((RANDOM % 4))" ;;
	    esac ;;
	esac
	return 0
}

# One operation of the "free" mode.
crash_free_op() {
	local dir=$1 a b i cmd
	a="$dir/d$((RANDOM % 6))/g$((RANDOM % 40))"
	b="$dir/d$((RANDOM % 6))/g$((RANDOM % 40))"
	case $((RANDOM % 12)) in
	0|1) # many small extents: every other block, up to ~300 extents
	   cmd=(); for ((i = 0; i < 20 + RANDOM % 280; i += 1)); do
		cmd+=(-c "pwrite -q $((i * 8))k 4k"); done
	   xfs_io -f "${cmd[@]}" "$a" ;;
	2) xfs_io -f -c "pwrite -q 0 $((64 + RANDOM % 960))k" "$a" ;;
	3) [ -e "$a" ] && cp --reflink=always "$a" "$b.c" ;;
	4|5) rm -f "$a" "$b.c" ;;
	6) [ -e "$a" ] && xfs_io -c "truncate $((RANDOM % 256))k" "$a" ;;
	7) [ -e "$a" ] && xfs_io -c "fpunch $((RANDOM % 512))k $((4 + RANDOM % 64))k" "$a" ;;
	8) # open, unlink, keep writing: an inode on the unlinked list
	   xfs_io -f -c "pwrite -q 0 $((4 + RANDOM % 200))k" "$a.tmp" &&
		{ exec 8<>"$a.tmp"; rm -f "$a.tmp"; echo x >&8; } ;;
	9) [ -e "$a" ] && xfs_io -c "pwrite -q $((RANDOM % 256))k 8k" "$a" ;;
	10) rm -f "$dir"/d$((RANDOM % 6))/g$((RANDOM % 4))* ;;
	11) [ -e "$a" ] && xfs_io -c "falloc $((RANDOM % 256))k 64k" "$a" ;;
	esac
	return 0
}

# The "fsr" mode: files of many extents (holes punched every few
# blocks, so their forks are bmap btrees), then a loop that defragments
# each with xfs_fsr (an extent swap: XFS_IOC_SWAPEXT; without rmapbt the
# btree forks change owner, logged as DOWNER) and fragments it again.
crash_fsr_setup() {
	local dir=$1 i o cmd
	for i in 0 1 2 3 4 5; do
		cmd=(-c "pwrite -q 0 2m")
		for ((o = 0; o < 512; o += 8)); do cmd+=(-c "fpunch $((o * 4))k 4k"); done
		xfs_io -f "${cmd[@]}" "$dir/z$i" || return 1
	done
	sync
	# Rewritten (the holes filled from elsewhere) and punched on another
	# step: now xfs_fsr has something to gain on each at once.
	for i in 0 1 2 3 4 5; do
		cmd=(-c "pwrite -q 0 2m")
		for ((o = 0; o < 512; o += 12)); do cmd+=(-c "fpunch $((o * 4))k 4k"); done
		xfs_io "${cmd[@]}" "$dir/z$i" || return 1
	done
	# A first round of swaps before the clock starts.
	for i in 0 1 2 3 4 5; do xfs_fsr "$dir/z$i" > /dev/null 2>&1; done
	return 0
}

crash_fsr_op() {
	local dir=$1 i=$((RANDOM % 6)) o step=$((8 + RANDOM % 8)) cmd
	xfs_fsr "$dir/z$i"
	cmd=(-c "pwrite -q 0 2m")
	for ((o = 0; o < 512; o += step)); do cmd+=(-c "fpunch $((o * 4))k 4k"); done
	xfs_io "${cmd[@]}" "$dir/z$i"
}

# One operation of the "inode" mode.
crash_inode_op() {
	local dir=$1 a b n=$((RANDOM % 50))
	a="$dir/d$((RANDOM % 6))/h$((RANDOM % 50))"
	b="$dir/d$((RANDOM % 6))/h$((RANDOM % 50))"
	case $((RANDOM % 14)) in
	0|1) printf 'x%d\n' "$n" > "$a" ;;
	2) [ -e "$a" ] && [ ! -e "$b" ] && mv "$a" "$b" ;;
	3) [ -e "$a" ] && [ ! -e "$b" ] && ln "$a" "$b" ;;
	4) rm -f "$a" ;;
	5) mkdir -p "$dir/d$((RANDOM % 6))/s$((RANDOM % 4))/t$((RANDOM % 3))" ;;
	6) touch "$a"; setfattr -n "user.i$((n % 7))" -v "$(head -c $((1 + (RANDOM * 13) % 5000)) /dev/zero | tr '\0' i)" "$a" ;;
	7) touch "$a"; setfattr -n "user.big$((n % 2))" -v "0s$(head -c $((4000 + (RANDOM * 3) % 61536)) /dev/zero | base64 -w0)" "$a" ;;
	8) [ -e "$a" ] && setfattr -x "user.i$((n % 7))" "$a" ;;
	9) xfs_io -f -c "pwrite -q 0 $((16 + RANDOM % 240))k" "$a" &&
	   cp --reflink=always "$a" "$b.r" && xfs_io -c "pwrite -q $((RANDOM % 64))k 8k" "$b.r" ;;
	10) [ -e "$a" ] && [ -e "$b" ] && [ "$a" != "$b" ] &&
	    "$XFSPROGS613/xfs_io" -c "exchangerange $b" "$a" ;;
	11) [ -e "$a" ] && [ ! -e "$b" ] && mv "$a" "$b" && ln "$b" "$a" ;;
	12) rmdir "$dir/d$((RANDOM % 6))/s$((RANDOM % 4))/t$((RANDOM % 3))" ;;
	13) xfs_io -f -c "pwrite -q $((RANDOM % 128))k 4k" -c fsync "$a" ;;
	esac
	return 0
}

crash_workload() {
	local dir=$1 seed=$2 mode=$3 i
	RANDOM=$seed
	for i in $(seq 0 5); do mkdir -p "$dir/d$i"; done
	# Checkpoints pushed while chains run (inode mode).
	# and a tight loop of directory operations (each one a parent
	# pointer chain) that a shell cannot drive fast enough.
	if [ "$mode" = inode ]; then
		( while :; do sync -f "$dir"; sleep 0.01; done ) &
		perl "$(dirname "${BASH_SOURCE[0]}")/renameloop.pl" "$dir" "$seed" &
		perl "$(dirname "${BASH_SOURCE[0]}")/xchgloop.pl" "$dir" "$seed" &
	fi
	while :; do
		if [ "$mode" = free ]; then
			crash_free_op "$dir" 2>/dev/null || true
		elif [ "$mode" = fsr ]; then
			crash_fsr_op "$dir" > /dev/null 2>&1 || true
		elif [ "$mode" = inode ]; then
			crash_inode_op "$dir" 2>/dev/null || true
		else
			crash_op "$dir" "$mode" 2>/dev/null || true
		fi
	done
}

# crash_image IMG SEED PROFILE MODE
crash_image() {
	local img=$1 seed=$2 profile=$3 mode=$4 dev opts mnt=$T_DIR/crashmnt wl
	local size=1g
	rm -f "$img"
	[ "$profile" = smalllog ] && size=256m
	truncate -s $size "$img"
	dev=$(attach_loop "$img") || return 1
	if [ "$profile" = mkfsxfs ]; then
		"$XFSPROGS613/mkfs.xfs" -q -f "$dev" || return 1
	elif [ "$profile" = mkfs61 ]; then
		/usr/sbin/mkfs.xfs -q -f "$dev" || return 1
	else
		opts=$(crash_mkfs_opts "$profile") || return 1
		# shellcheck disable=SC2086
		"$MKFS" -q -f $opts "$dev" || return 1
	fi
	t_mount "$dev" "$mnt" || return 1
	if [ "$profile" = grown ]; then
		truncate -s 3g "$img"
		losetup -c "$dev" || return 1
		xfs_growfs "$mnt" > /dev/null || return 1
	fi
	if [ "$mode" = fsr ]; then
		crash_fsr_setup "$mnt" || return 1
	fi
	# Its own process group, so that the whole workload (the subshell and
	# whatever it is running) can be stopped after the crash.
	set -m
	( crash_workload "$mnt" "$seed" "$mode" ) &
	wl=$!
	set +m
	# Seeded run time, 0.5 to 2.5 s: the crash lands mid-operation.
	# (fsr: 1.5 to 3.5 s, time for a few swaps.)
	sleep "$(awk -v s="$seed" -v m="$mode" 'BEGIN { srand(s); printf "%.2f", (m == "fsr") + 0.5 + 2 * rand() }')"
	# The inode workload also crashes without flushing the log first (a
	# log that stops at the last checkpoint written, as after a power
	# cut): with the flush, intent whiteouts leave almost no pending
	# BUI, ATTRI or XMI; without it, the in-flight chains leave them.
	if [ "$mode" = inode ]; then
		xfs_io -x -c "shutdown" "$mnt"
	else
		xfs_io -x -c "shutdown -f" "$mnt"
	fi
	kill -- -"$wl" 2>/dev/null
	wait "$wl" 2>/dev/null
	t_umount "$mnt" || return 1
	detach_loop "$dev"
}
