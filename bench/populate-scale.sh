#!/bin/bash
# Benchmark: filling a new filesystem with many entries.  In the same
# run, from the same protofile (mkfs.xfs's format: ENTRIES empty files in
# DIRS directories, one of them holding BIG of them), the same image
# size and the same features:
#   mkfs.xfs (xfsprogs 6.13) -p PROTOFILE
#   xfsj-mkfs -p PROTOFILE
# wall time, CPU time (user + system) and peak RSS (/usr/bin/time),
# median of REPS (peak RSS: the largest), the order of the tools rotating
# each rep.  Prints the ratios mkfs.xfs / xfsj (above 1.0: xfsj faster;
# issue 22 asks 2 or more at 1M entries).  Before the timed runs each
# tool's image is checked once: xfs_repair -n 6.13 clean, mounted by the
# kernel, the entry count of the large directory and of the tree right;
# the line says FAILED otherwise and the exit status is 1.
#
#   ENTRIES=n (1000000)  DIRS=n (1000)  BIG=n (ENTRIES / 2)  REPS=n (1)
#   SIZE=image size (16g)
# Output: stdout only.  (bench/populate.sh times a real tree with data.)
source "$(dirname "$0")/../tests/system/lib/common.sh"
need_root
oracle_613
ENTRIES=${ENTRIES:-1000000}
DIRS=${DIRS:-1000}
BIG=${BIG:-$((ENTRIES / 2))}
REPS=${REPS:-1}
SIZE=${SIZE:-16g}
CACHE=$T_DIR/cache
THREADS=1
source "$TOP/bench/lib.sh"
[ -x "$MKFS" ] || { echo "bench/populate-scale: no $MKFS (run make)"; exit 2; }
# A copy: a rebuild during the run does not change the binary timed.
cp "$MKFS" "$T_DIR/xfsj-mkfs" && MKFS=$T_DIR/xfsj-mkfs

: > "$T_DIR/empty"
python3 - "$T_DIR/empty" "$ENTRIES" "$DIRS" "$BIG" > "$T_DIR/proto" <<'EOF'
import sys
src, n, dirs, big = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
w = sys.stdout.write
w("/dev/null\n0 0\nd--755 0 0\nbig d--755 0 0\n")
for i in range(big):
    w("e%07d ---644 0 0 %s\n" % (i, src))
w("$\n")
rest, per = n - big - dirs, max(1, (n - big - dirs) // dirs)
for d in range(dirs):
    w("d%05d d--755 0 0\n" % d)
    for i in range(per if d < dirs - 1 else rest - per * (dirs - 1)):
        w("f%07d ---644 0 0 %s\n" % (i, src))
    w("$\n")
w("$\n")
EOF
echo "# populate-scale benchmark: $ENTRIES entries ($BIG in one directory, the rest in $DIRS), image $SIZE, median of $REPS"

TOOLS=(mkfsxfs xfsj)
cmd() {
	case $1 in
	mkfsxfs) echo "$XFSPROGS613/mkfs.xfs -q -f $(newfeat) -p $T_DIR/proto" ;;
	xfsj) echo "$MKFS -q -f -p $T_DIR/proto" ;;
	esac
}
label() {
	case $1 in
	mkfsxfs) echo "mkfs.xfs -p PROTOFILE" ;;
	xfsj) echo "xfsj-mkfs -p PROTOFILE" ;;
	esac
}

FAILED=0
verify() {
	local dev got why=""
	"$XFSPROGS613/xfs_repair" -n "$2" > "$T_DIR/vr.out" 2>&1 || why="xfs_repair -n: $(grep -v '^Phase\|^        -' "$T_DIR/vr.out" | head -1)"
	dev=$(attach_loop "$2")
	if t_mount "$dev" "$T_DIR/mnt" ro,nouuid; then
		got=$(python3 -c 'import os, sys
m = sys.argv[1]
n = 0
for top, ds, fs in os.walk(m):
    n += len(ds) + len(fs)
print(sum(1 for _ in os.scandir(m + "/big")), n)' "$T_DIR/mnt")
		t_umount "$T_DIR/mnt"
		[ "$got" = "$BIG $((ENTRIES + 1))" ] || why="$why counts: $got"
	else
		why="$why does not mount"
	fi
	detach_loop "$dev"
	if [ -n "$why" ]; then
		echo "# $(label "$1"): FAILED:$why"
		FAILED=1
	else
		echo "# $(label "$1"): xfs_repair -n clean, mounts, $BIG + $ENTRIES entries"
	fi
}

declare -A ns kib cpu
time_tools
# shellcheck disable=SC2086
awk -v o="$(median ${ns[xfsj]})" -v m="$(median ${ns[mkfsxfs]})" \
    -v co="$(median ${cpu[xfsj]})" -v cm="$(median ${cpu[mkfsxfs]})" \
    -v ro="$(maxof ${kib[xfsj]})" -v rm="$(maxof ${kib[mkfsxfs]})" 'BEGIN {
	printf "speed-up mkfs.xfs / xfsj-mkfs: wall %.2f  cpu %.2f  (peak RSS xfsj / mkfs.xfs %.2f)\n",
		m / o, (co > 0 ? cm / co : 0), ro / rm }'
exit "$FAILED"
