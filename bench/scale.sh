#!/bin/bash
# Benchmark: how the offline check scales with the filesystem's shape and
# size.  For each shape and size, `xfsj-repair -n` and `xfs_repair -n`
# (xfsprogs 6.13) on the same image in the same run, each once with a
# cold page cache (sync; drop_caches before every run): wall time, CPU
# time (user + system), peak RSS (/usr/bin/time), bytes of RSS per inode,
# microseconds per inode, and the ratio ours / theirs.  The lines "scale"
# give, per tool and shape, the time per inode of the largest size over
# that of the smallest (1.0: linear).
#
# The images: 64 GiB sparse, made by mkfs.xfs 6.13 with its defaults,
# filled through the kernel by bench/mkshape.c (its header describes the
# shapes: fileserver, frag, bigdirs) and cached as
#   ${BENCH_CACHE:-/var/cache/xfsj/bench}/shape-<version>-<shape>-<n>.img
# (<version>: a hash of mkshape.c).  The fourth shape, mixed, is the image
# of bench/check.sh (bench/mkinodes.c: every inode, directory and
# attribute fork format, through lib.sh's cache, 16 GiB, 64 GiB past 4M
# inodes, mkfs.xfs 6.13 with xfsj-mkfs's features).  CLEAN_CACHE=1
# removes this run's images at the end.
#
#   SHAPES="fileserver frag bigdirs mixed"   the shapes (default all four)
#   SIZES="100000 1000000"   inodes of each image; BIG=1 adds 10000000
#   THREADS=n (the workload's threads, default 2)
#   MAKE_ONLY=1: make (or find) the images, print their paths, stop
#   REPAIR_BENCH=0: the check only (default 1: the repair too, below)
#   CHECK_BENCH=0: the repair only (default 1: the check too)
#   REPS=n: each timed run n times from a cold cache, the median wall
#     time shown with its CPU time (peak RSS: the largest); default 1.
#     The VM's disk varies by 10-20% between single cold runs.
#   WARMUP=0: no untimed run of each tool before the timed check runs
#     (default 1).  The first read of an image after a while costs this
#     VM 8-66 s more, whichever tool makes it (the host's own cache, which
#     drop_caches does not reach): without the warm-up the tool that runs
#     first pays for both.  The timed runs still start from a cold page
#     cache.  The repair needs none: its copies are read from the damaged
#     image both tools' copies are made from.
#
# The repair (on by default, REPAIR_BENCH=0 leaves it out): for each shape
# and size, one damaged copy of the image (in this run's temp dir, removed
# after): AG 1's AGF freeblks fuzzed (xfs_db 6.13 "fuzz -d freeblks add")
# and the second data block of a directory zeroed (the first directory
# found, two levels from the root, with one: lost entries, files moved to
# lost+found).  Two copies of it, `xfsj-repair` on one and `xfs_repair`
# (6.13, -f) on the other, each from a cold page cache; then both are
# checked by `xfs_repair -n` (not timed): a line "FAILED ..." and exit 1
# when one is not clean.  The lines "repair" give wall and CPU time, peak
# RSS, the ratios ours / theirs (wall, memory, CPU) and the whole and
# local checks our repair ran (its JSON summary).
# Output: stdout only.
source "$(dirname "$0")/../tests/system/lib/common.sh"
need_root
oracle_613
REPAIR=${XFSJ_REPAIR:-$BUILD/xfsj-repair}
[ -x "$REPAIR" ] || { echo "bench/scale: no $REPAIR (run make)"; exit 2; }
cp "$REPAIR" "$T_DIR/xfsj-repair" && REPAIR=$T_DIR/xfsj-repair
SHAPES=${SHAPES:-fileserver frag bigdirs mixed}
SIZES=${SIZES:-100000 1000000}
[ "${BIG:-0}" = 1 ] && SIZES="$SIZES 10000000"
THREADS=${THREADS:-2}
REPS=${REPS:-1}
CACHE=${BENCH_CACHE:-/var/cache/xfsj/bench}
# lib.sh: run_one, cold, /usr/bin/time, and image (the mixed shape)
source "$TOP/bench/lib.sh"
cc -O2 -Wall -pthread -o "$T_DIR/mkshape" "$TOP/bench/mkshape.c" ||
	{ echo "bench/scale: cannot build mkshape"; exit 2; }
SVER=$(sha1sum "$TOP/bench/mkshape.c" | cut -c1-8)

# shape_image SHAPE N: the path of the cached image, made when missing
shape_image() {
	local img="$CACHE/shape-$SVER-$1-$2.img" dev made t0
	if [ "$1" = mixed ]; then
		image "$2"
		return
	fi
	if [ -f "$img" ]; then
		echo "$img"
		return 0
	fi
	rm -f "$img.new"
	truncate -s 64g "$img.new"
	"$XFSPROGS613/mkfs.xfs" -q -f "$img.new" >&2 || return 1
	dev=$(attach_loop "$img.new") || return 1
	t_mount "$dev" "$T_DIR/mnt" || return 1
	t0=$(date +%s%N)
	made=$("$T_DIR/mkshape" "$T_DIR/mnt" "$1" "$2" "$THREADS") || return 1
	t_umount "$T_DIR/mnt"
	detach_loop "$dev"
	mv "$img.new" "$img"
	awk -v s="$1" -v n="$made" -v t="$(( $(date +%s%N) - t0 ))" 'BEGIN {
		printf "# %s: made %d inodes in %.1f s through the kernel\n",
			s, n, t / 1e9 }' >&2
	echo "$img"
}

DB=$XFSPROGS613/xfs_db
FAILED=0

# dir_victim IMG: "PATH FSBLOCK" of the second data block of a directory,
# the first with one among the root's first subdirectories and theirs
dir_victim() {
	local img=$1 d sub blk
	# shellcheck disable=SC2016
	local list='$3 == "directory" && $6 != "." && $6 != ".." { print $6 }'
	for d in $("$DB" -r -c "ls /" "$img" | awk "$list" | head -6); do
		for sub in "/$d" $("$DB" -r -c "ls /$d" "$img" | awk "$list" |
				    head -12 | sed "s|^|/$d/|"); do
			blk=$("$DB" -r -c "path $sub" -c bmap "$img" | awk '
				/^data offset [1-9][0-9]* startblock/ { print $5; exit }')
			[ -n "$blk" ] && { echo "$sub $blk"; return 0; }
		done
	done
	return 1
}

# repair_bench SHAPE N IMG: the repair of the same damage by both tools
repair_bench() {
	local shape=$1 n=$2 img=$3 base=$T_DIR/damaged.img v bs
	local xns xkib xrc xcpu tns tkib trc tcpu full local_n
	cp --sparse=always "$img" "$base" || return 1
	"$DB" -x -c 'agf 1' -c 'fuzz -d freeblks add' "$base" > /dev/null
	v=$(dir_victim "$base") || { echo "FAILED $shape $n: no directory to damage"; return 1; }
	bs=$("$DB" -r -c 'sb 0' -c 'p blocksize' "$base" | awk '{ print $3 }')
	dd if=/dev/zero of="$base" bs="$bs" seek="${v#* }" count=1 conv=notrunc \
		status=none
	echo "# repair $shape $n: AGF 1 freeblks fuzzed, ${v% *} block ${v#* } zeroed"
	read -r xns xkib xrc xcpu < <(run_median "$REPS" \
		'cp --sparse=always "$base" "$T_DIR/ours.img"' \
		"$T_DIR/ours.json" "$REPAIR" --json "$T_DIR/ours.img")
	read -r tns tkib trc tcpu < <(run_median "$REPS" \
		'cp --sparse=always "$base" "$T_DIR/theirs.img"' \
		"$T_DIR/theirs.out" "$XFSPROGS613/xfs_repair" -f \
		"$T_DIR/theirs.img")
	rm -f "$base"
	full=$(grep -o '"full_checks":[0-9]*' "$T_DIR/ours.json" | head -1 | cut -d: -f2)
	local_n=$(grep -o '"local_checks":[0-9]*' "$T_DIR/ours.json" | head -1 | cut -d: -f2)
	[ "$xrc" = 1 ] || echo "# repair $shape $n: xfsj-repair exit $xrc"
	[ "$trc" = 0 ] || echo "# repair $shape $n: xfs_repair exit $trc"
	for side in ours theirs; do
		if ! "$XFSPROGS613/xfs_repair" -n -f "$T_DIR/$side.img" \
			> /dev/null 2>&1; then
			echo "FAILED repair $shape $n: $side not clean for xfs_repair -n"
			FAILED=1
		fi
	done
	rm -f "$T_DIR/ours.img" "$T_DIR/theirs.img"
	awk -v s="$shape" -v n="$n" -v xns="$xns" -v tns="$tns" -v xk="$xkib" \
	    -v tk="$tkib" -v xc="$xcpu" -v tc="$tcpu" -v f="${full:-?}" \
	    -v l="${local_n:-?}" 'BEGIN {
		printf "repair %-10s %9d xfsj %7.2f %6.2f %7.1f   xfs %7.2f %6.2f %7.1f   %5.2f %5.2f %5.2f  %s+%s\n",
			s, n, xns / 1e9, xc / 1e3, xk / 1024, tns / 1e9,
			tc / 1e3, tk / 1024, xns / tns, xk / tk,
			tc ? xc / tc : 0, f, l }'
}

declare -A PER_INODE
[ "${REPAIR_BENCH:-1}" = 1 ] &&
	echo "# repair: shape inodes, xfsj wall_s cpu_s rss_mib, xfs the same, ratios wall mem cpu, whole+local checks"
[ "${CHECK_BENCH:-1}" = 1 ] &&
printf '%-10s %9s %-6s %8s %8s %8s %7s %7s %6s %6s\n' shape inodes tool \
	wall_s cpu_s rss_mib B/inode us/inode t_ratio m_ratio
for shape in $SHAPES; do
	for n in $SIZES; do
		img=$(shape_image "$shape" "$n") || { echo "bench/scale: no image"; exit 1; }
		[ "${MAKE_ONLY:-0}" = 1 ] && { echo "$img"; continue; }
		if [ "${REPAIR_BENCH:-1}" = 1 ]; then
			repair_bench "$shape" "$n" "$img" || FAILED=1
		fi
		[ "${CHECK_BENCH:-1}" = 1 ] || continue
		if [ "${WARMUP:-1}" = 1 ]; then
			cold; "$XFSPROGS613/xfs_repair" -n -f "$img" > /dev/null 2>&1
			cold; "$REPAIR" -n "$img" > /dev/null 2>&1
		fi
		read -r xns xkib xrc xcpu < <(run_median "$REPS" : \
			"$T_DIR/ours" "$REPAIR" -n "$img")
		read -r tns tkib trc tcpu < <(run_median "$REPS" : \
			"$T_DIR/theirs" "$XFSPROGS613/xfs_repair" -n -f "$img")
		[ "$xrc" = 0 ] || echo "# $shape $n: xfsj-repair -n exit $xrc"
		[ "$trc" = 0 ] || echo "# $shape $n: xfs_repair -n exit $trc"
		for tool in xfsj xfs; do
			if [ $tool = xfsj ]; then
				ns=$xns kib=$xkib cpu=$xcpu
			else
				ns=$tns kib=$tkib cpu=$tcpu
			fi
			awk -v s="$shape" -v n="$n" -v t=$tool -v ns="$ns" \
			    -v kib="$kib" -v cpu="$cpu" -v xns="$xns" \
			    -v tns="$tns" -v xk="$xkib" -v tk="$tkib" 'BEGIN {
				r = t == "xfsj" ? sprintf("%7.2f %6.2f", xns / tns, xk / tk) : ""
				printf "%-10s %9d %-6s %8.2f %8.2f %8.1f %7.0f %7.2f %s\n",
					s, n, t, ns / 1e9, cpu / 1e3, kib / 1024,
					kib * 1024 / n, ns / 1e3 / n, r }'
			[ -n "${PER_INODE[$shape-$tool-first]:-}" ] ||
				PER_INODE[$shape-$tool-first]=$((ns / n))
			PER_INODE[$shape-$tool-last]=$((ns / n))
		done
		[ "${CLEAN_CACHE:-0}" = 1 ] && rm -f "$img"
	done
	[ "${MAKE_ONLY:-0}" = 1 ] && continue
	[ "${CHECK_BENCH:-1}" = 1 ] || continue
	for tool in xfsj xfs; do
		awk -v s="$shape" -v t=$tool -v a="${PER_INODE[$shape-$tool-first]}" \
		    -v b="${PER_INODE[$shape-$tool-last]}" 'BEGIN {
			printf "scale %-10s %-6s time per inode, largest / smallest: %.2f\n",
				s, t, a ? b / a : 0 }'
	done
done
cat "$T_DIR/notes" 2>/dev/null >&2
exit $FAILED
