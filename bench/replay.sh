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
source "$(dirname "$0")/../tests/system/lib/common.sh"
need_root
REPAIR=${XFSJ_REPAIR:-$BUILD/xfsj-repair}
LOGPRINT=${XFSJ_LOGPRINT:-$BUILD/xfsj-logprint}
SECS=${BENCH_SECONDS:-30}
REPS=${REPS:-3}

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

img=$T_DIR/big.img
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

"$LOGPRINT" --summary "$img" 2>/dev/null | grep -E "tail|head" | sed 's/^/# /'

now_ns() { date +%s%N; }
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }

ours=() theirs=()
for ((r = 0; r < REPS; r++)); do
	cp --sparse=always "$img" "$T_DIR/a.img"
	cp --sparse=always "$img" "$T_DIR/b.img"
	sync
	echo 3 > /proc/sys/vm/drop_caches
	t0=$(now_ns)
	"$REPAIR" -r "$T_DIR/a.redo" "$T_DIR/a.img" > "$T_DIR/a.out" 2>&1
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
grep -E "^replayed|replay done" "$T_DIR/a.out" | sed 's/^/# /'
awk -v o="$(median "${ours[@]}")" -v t="$(median "${theirs[@]}")" -v n="$REPS" 'BEGIN {
	printf "replay of the log: xfsj-repair %.3f s, kernel mount-time recovery %.3f s, ratio %.3f (median of %d)\n",
		o / 1e9, t / 1e9, (t > 0 ? o / t : 0), n }'
