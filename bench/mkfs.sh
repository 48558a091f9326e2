#!/bin/bash
# Benchmark: median wall time of xfsj-mkfs against mkfs.xfs (xfsprogs 6.13,
# same features) doing the same work in the same run, on sparse files of
# 2 GiB, 1 TiB and 64 TiB and on a loop device.  Prints one ratio per
# target (xfsj / mkfs.xfs; below 1.0 means xfsj is faster).
# The 64 TiB file lives on a scratch XFS (ext4 caps files at 16 TiB).
source "$(dirname "$0")/../tests/system/lib/common.sh"
need_root
oracle_613
REPS=${REPS:-7}

now_ns() { date +%s%N; }

# median of the arguments
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }

# time_one TARGET SIZE TOOL...: prints elapsed nanoseconds
time_one() {
	local target=$1 size=$2 t0 t1
	shift 2
	if [ ! -b "$target" ]; then
		rm -f "$target"
		truncate -s "$size" "$target"
	fi
	sync
	t0=$(now_ns)
	"$@" "$target" >/dev/null 2>&1 || { echo "FAILED: $* $target" >&2; exit 1; }
	t1=$(now_ns)
	echo $((t1 - t0))
}

bench() {
	local label=$1 target=$2 size=$3 i ours=() theirs=()
	for ((i = 0; i < REPS; i++)); do
		# Alternate the order so that neither tool always runs warm.
		if ((i % 2)); then
			theirs+=("$(time_one "$target" "$size" "$XFSPROGS613/mkfs.xfs" -q -f $(newfeat))")
			ours+=("$(time_one "$target" "$size" "$MKFS" -q -f)")
		else
			ours+=("$(time_one "$target" "$size" "$MKFS" -q -f)")
			theirs+=("$(time_one "$target" "$size" "$XFSPROGS613/mkfs.xfs" -q -f $(newfeat))")
		fi
	done
	local mo mt
	mo=$(median "${ours[@]}")
	mt=$(median "${theirs[@]}")
	awk -v l="$label" -v o="$mo" -v t="$mt" 'BEGIN {
		printf "%-22s xfsj %8.1f ms   mkfs.xfs %8.1f ms   ratio %.3f\n",
			l, o / 1e6, t / 1e6, (t > 0 ? o / t : 0) }'
}

scratch=$T_DIR/scratch.img
truncate -s 8g "$scratch"
mkfs.xfs -q -f "$scratch"
t_mount "$scratch" "$T_DIR/host" loop || { echo "cannot mount scratch XFS"; exit 1; }

echo "# mkfs benchmark, median of $REPS runs each (ratio = xfsj / mkfs.xfs)"
bench "sparse file 2 GiB" "$T_DIR/host/f2g" 2g
bench "sparse file 1 TiB" "$T_DIR/host/f1t" 1t
bench "sparse file 64 TiB" "$T_DIR/host/f64t" 64t
truncate -s 4g "$T_DIR/dev.img"
dev=$(attach_loop "$T_DIR/dev.img")
bench "loop device 4 GiB" "$dev" 4g
