#!/bin/bash
# Benchmark: filling a new filesystem from a tree.  In the same run, on
# the same tree and the same image size, with the same features:
#   mkfs.xfs (xfsprogs 6.13) -p PROTOFILE     (the protofile written by
#   xfsj-mkfs -p PROTOFILE                     6.13's xfs_protofile)
#   xfsj-mkfs -p DIR
# wall time, CPU time (user + system) and peak RSS (/usr/bin/time),
# median of REPS (peak RSS: the largest), the order of the tools rotating
# each rep, the source tree in the page cache (read once before), each
# run ending with the image on disk (both tools sync).  Prints the ratios
# xfsj / mkfs.xfs; below 1.0 means xfsj is faster or smaller.
#
# The tree (bench/mktree.py, seeded: FILES files, MIB MiB of data, ~FILES
# / 33 directories, symlinks, hard links, a few xattrs) and its protofile
# are made once and kept in BENCH_TREE for the next runs.  After each
# tool's first run (not timed) its image must mount and hold the same
# names as the source (count of each type, total file size), and the
# checkers (xfs_repair -n 6.13, xfsj-repair -n) must pass on it: the
# line says FAILED otherwise and the exit status is 1.
#
#   FILES=n (100000)  MIB=n (1024)  REPS=n (3)  SEED=n (1)
#   SIZE=image size (4*MIB+1024 MiB)  BENCH_TREE=dir (/var/tmp/xfsj-bench-tree)
# Output: stdout only.
source "$(dirname "$0")/../tests/system/lib/common.sh"
need_root
oracle_613
FILES=${FILES:-100000}
MIB=${MIB:-1024}
REPS=${REPS:-3}
SEED=${SEED:-1}
SIZE=${SIZE:-$((MIB * 4 + 1024))m}
CACHE=$T_DIR/cache
THREADS=1
source "$TOP/bench/lib.sh"
[ -x "$MKFS" ] || { echo "bench/populate: no $MKFS (run make)"; exit 2; }
cp "$MKFS" "$T_DIR/xfsj-mkfs" && MKFS=$T_DIR/xfsj-mkfs

TREE=${BENCH_TREE:-/var/tmp/xfsj-bench-tree}/$FILES-$MIB-$SEED-$(sha1sum "$TOP/bench/mktree.py" | cut -c1-8)
if [ ! -f "$TREE/done" ]; then
	rm -rf "$TREE"
	mkdir -p "$TREE"
	t0=$(date +%s%N)
	python3 "$TOP/bench/mktree.py" "$TREE/src" "$FILES" "$MIB" "$SEED" ||
		{ echo "bench/populate: cannot make the tree"; exit 2; }
	"$XFSPROGS613/xfs_protofile" "$TREE/src" > "$TREE/proto" ||
		{ echo "bench/populate: xfs_protofile failed"; exit 2; }
	echo "# made the tree in $(( ($(date +%s%N) - t0) / 1000000000 )) s"
	touch "$TREE/done"
fi
SRC=$TREE/src

# census DIR: the number of names of each type and the total file size.
census() {
	(cd "$1" && find . -mindepth 1 -printf '%y %s\n' |
	 awk '{ n[$1]++; if ($1 == "f") s += $2 }
	      END { for (t in n) printf "%s=%d ", t, n[t]; printf "bytes=%d\n", s }' |
	 tr ' ' '\n' | LC_ALL=C sort | tr '\n' ' ')
}
want=$(census "$SRC")
echo "# populate benchmark: $FILES files, $MIB MiB, seed $SEED; image $SIZE; median of $REPS"
echo "# tree $SRC: $want"
# Into the page cache.
tar -C "$SRC" -cf - . | cat > /dev/null

TOOLS=(mkfsxfs xfsjproto xfsjdir)
cmd() {
	case $1 in
	mkfsxfs) echo "$XFSPROGS613/mkfs.xfs -q -f $(newfeat) -p $TREE/proto" ;;
	xfsjproto) echo "$MKFS -q -f -p $TREE/proto" ;;
	xfsjdir) echo "$MKFS -q -f -p $SRC" ;;
	esac
}
label() {
	case $1 in
	mkfsxfs) echo "mkfs.xfs -p PROTOFILE" ;;
	xfsjproto) echo "xfsj-mkfs -p PROTOFILE" ;;
	xfsjdir) echo "xfsj-mkfs -p DIR" ;;
	esac
}

# verify TOOL IMG: mounts, the same census, both checkers clean.
FAILED=0
verify() {
	local got dev why=""
	"$XFSPROGS613/xfs_repair" -n "$2" > "$T_DIR/vr.out" 2>&1 || why="xfs_repair -n: $(grep -v '^Phase\|^        -' "$T_DIR/vr.out" | head -1)"
	"$BUILD/xfsj-repair" -n "$2" > "$T_DIR/vj.out" 2>&1 || why="$why xfsj-repair -n: $(head -1 "$T_DIR/vj.out")"
	dev=$(attach_loop "$2")
	if t_mount "$dev" "$T_DIR/mnt" ro,nouuid; then
		got=$(census "$T_DIR/mnt")
		t_umount "$T_DIR/mnt"
		[ "$got" = "$want" ] || why="$why census: $got"
	else
		why="$why does not mount"
	fi
	detach_loop "$dev"
	if [ -n "$why" ]; then
		echo "# $(label "$1"): FAILED:$why"
		FAILED=1
	else
		echo "# $(label "$1"): mounts, same names and bytes, both checkers clean"
	fi
}

declare -A ns kib cpu
time_tools
# shellcheck disable=SC2086
for t in xfsjproto xfsjdir; do
	awk -v l="$(label "$t")" -v o="$(median ${ns[$t]})" -v m="$(median ${ns[mkfsxfs]})" \
	    -v co="$(median ${cpu[$t]})" -v cm="$(median ${cpu[mkfsxfs]})" \
	    -v ro="$(maxof ${kib[$t]})" -v rm="$(maxof ${kib[mkfsxfs]})" 'BEGIN {
		printf "ratio %-24s / mkfs.xfs: wall %.3f  cpu %.3f  peak RSS %.3f\n",
			l, o / m, (cm > 0 ? co / cm : 0), ro / rm }'
done
exit "$FAILED"
