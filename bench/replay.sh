#!/bin/bash
# Benchmark: replay of a big dirty log by xfsj-repair against the kernel's
# mount-time recovery of a copy of the same image, in the same run.
# Prints the wall times and their ratio (xfsj / kernel; below 1.0 means
# xfsj is faster).
#
# The image: 64 GiB sparse, a 2038 MiB log (the largest), mounted with
# logbsize=256k; a metadata-heavy workload (creates, mkdirs, xattrs,
# and chmod passes that relog every inode) from four processes for
# BENCH_SECONDS (default 30);
# when it is done, `shutdown -f` flushes the log and stops the filesystem
# before the metadata is written back, so the log is full of committed
# work and no operation is half done.
#
# Second image (the work left for after the replay): a reflink and rmapbt
# filesystem where UNLINKED (default 4000) files of 1 to 12 extents, a
# quarter of them reflinked copies, are held open, deleted and the log
# forced, then `shutdown -f` while they are still open: every one of them
# is left on an AGI unlinked list, and recovery must truncate and free
# them all (thousands of extents freed, rmap and refcount updates, inode
# chunks freed).  BENCH=replay or BENCH=finish runs only one of the two.
source "$(dirname "$0")/../tests/system/lib/common.sh"
need_root
REPAIR=${XFSJ_REPAIR:-$BUILD/xfsj-repair}
LOGPRINT=${XFSJ_LOGPRINT:-$BUILD/xfsj-logprint}
SECS=${BENCH_SECONDS:-30}
REPS=${REPS:-3}
UNLINKED=${UNLINKED:-4000}
BENCH=${BENCH:-all}

# One worker: 20,000 files with an xattr each, then passes of chmod over
# them, each ended by a log force so that it is logged again, until the
# time is up.  Batched
# through xargs so that the kernel, not process creation, sets the pace.
worker() {
	local dir=$1 end=$2 d pass=0
	mkdir -p "$dir"
	for d in $(seq 1 40); do
		mkdir "$dir/d$d"
		seq -f "$dir/d$d/f%g" 1 500 | xargs touch
		seq -f "$dir/d$d/f%g" 1 500 | xargs setfattr -n user.k -v value
	done
	while [ "$(date +%s)" -lt "$end" ]; do
		pass=$((pass + 1))
		for d in $(seq 1 40); do
			seq -f "$dir/d$d/f%g" 1 500 | xargs chmod $((600 + pass % 2 * 44))
		done
		# A log force ends the checkpoint: the next pass logs every
		# inode again instead of folding into the same one.
		sync -f "$dir"
	done
}

make_big() {
	local img=$1
	truncate -s 64g "$img"
	dev=$(attach_loop "$img")
	"$MKFS" -q -f -l size=2038m -m rmapbt=0,reflink=0 -n parent=0 "$dev" || exit 1
	t_mount "$dev" "$T_DIR/mnt" logbsize=256k || exit 1
	end=$(( $(date +%s) + SECS ))
	pids=()
	for w in 1 2 3 4; do
		worker "$T_DIR/mnt/w$w" "$end" &
		pids+=($!)
	done
	wait "${pids[@]}"
	xfs_io -x -c "shutdown -f" "$T_DIR/mnt"
	t_umount "$T_DIR/mnt"
	detach_loop "$dev"

}

# Open, delete and keep open; then crash.  A reflink copy shares its
# extents, so its deletion is a refcount decrease, not a free.
make_unlinked() {
	local img=$1 mnt=$T_DIR/mnt n=$UNLINKED i d
	truncate -s 16g "$img"
	dev=$(attach_loop "$img")
	"$MKFS" -q -f -n parent=0 "$dev" || exit 1
	t_mount "$dev" "$mnt" || exit 1
	for d in $(seq 0 9); do mkdir "$mnt/d$d"; done
	for ((i = 0; i < n; i++)); do
		d=$mnt/d$((i % 10))/f$i
		if [ $((i % 4)) -eq 3 ]; then
			cp --reflink=always "$mnt/d$(((i - 1) % 10))/f$((i - 1))" "$d"
		else
			args=()
			for ((e = 0; e < 1 + i % 12; e++)); do
				args+=(-c "pwrite -q $((e * 64))k 16k")
			done
			xfs_io -f "${args[@]}" "$d"
		fi
	done
	sync -f "$mnt"
	(
		ulimit -n $((n + 64))
		for ((i = 0; i < n; i++)); do
			exec {fd}<"$mnt/d$((i % 10))/f$i"
		done
		rm -rf "$mnt"/d*
		# Commit the deletions, then crash with the files still open.
		sync -f "$mnt"
		xfs_io -x -c "shutdown -f" "$mnt"
	)
	t_umount "$mnt"
	detach_loop "$dev"
}

time_replay() {
	"$LOGPRINT" --summary "$1" 2>/dev/null | grep -E "tail|head" | sed 's/^/# /'

	now_ns() { date +%s%N; }
	median() { printf '%s\n' "$@" | sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }

	ours=() theirs=()
	for ((r = 0; r < REPS; r++)); do
		cp --sparse=always "$1" "$T_DIR/a.img"
		cp --sparse=always "$1" "$T_DIR/b.img"
		sync
		echo 3 > /proc/sys/vm/drop_caches
		t0=$(now_ns)
		"$REPAIR" --replay-only -r "$T_DIR/a.redo" "$T_DIR/a.img" > "$T_DIR/a.out" 2>&1
		rc=$?
		t1=$(now_ns)
		[ $rc -eq 0 ] || { echo "xfsj-repair failed ($rc):"; cat "$T_DIR/a.out"; exit 1; }
		ours+=($((t1 - t0)))

		dev=$(attach_loop "$T_DIR/b.img")
		sync
		echo 3 > /proc/sys/vm/drop_caches
		t0=$(now_ns)
		t_mount "$dev" "$T_DIR/mnt" || exit 1
		t1=$(now_ns)
		theirs+=($((t1 - t0)))
		t_umount "$T_DIR/mnt"
		detach_loop "$dev"
		rm -f "$T_DIR/a.img" "$T_DIR/b.img"
	done
	grep -E "^replayed|^finished|replay done" "$T_DIR/a.out" | sed 's/^/# /'
	awk -v o="$(median "${ours[@]}")" -v t="$(median "${theirs[@]}")" -v n="$REPS" -v what="$2" 'BEGIN {
		printf "%s: xfsj-repair %.3f s, kernel mount-time recovery %.3f s, ratio %.3f (median of %d)\n", what,
			o / 1e9, t / 1e9, (t > 0 ? o / t : 0), n }'
}

if [ "$BENCH" = all ] || [ "$BENCH" = replay ]; then
	make_big "$T_DIR/big.img"
	time_replay "$T_DIR/big.img" "replay of a full log"
	rm -f "$T_DIR/big.img"
fi
if [ "$BENCH" = all ] || [ "$BENCH" = finish ]; then
	make_unlinked "$T_DIR/unl.img"
	time_replay "$T_DIR/unl.img" "$UNLINKED open-unlinked inodes to finish"
fi
