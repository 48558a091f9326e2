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
# attribute fork format, through lib.sh's cache, 16 GiB, mkfs.xfs 6.13
# with xfsj-mkfs's features).  CLEAN_CACHE=1 removes this run's images at
# the end.
#
#   SHAPES="fileserver frag bigdirs mixed"   the shapes (default all four)
#   SIZES="100000 1000000"   inodes of each image; BIG=1 adds 10000000
#   THREADS=n (the workload's threads, default 2)
#   MAKE_ONLY=1: make (or find) the images, print their paths, stop
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

declare -A PER_INODE
printf '%-10s %9s %-6s %8s %8s %8s %7s %7s %6s %6s\n' shape inodes tool \
	wall_s cpu_s rss_mib B/inode us/inode t_ratio m_ratio
for shape in $SHAPES; do
	for n in $SIZES; do
		img=$(shape_image "$shape" "$n") || { echo "bench/scale: no image"; exit 1; }
		[ "${MAKE_ONLY:-0}" = 1 ] && { echo "$img"; continue; }
		cold
		read -r xns xkib xrc xcpu < <(run_one "$T_DIR/ours" "$REPAIR" -n "$img")
		cold
		read -r tns tkib trc tcpu < <(run_one "$T_DIR/theirs" \
			"$XFSPROGS613/xfs_repair" -n -f "$img")
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
	for tool in xfsj xfs; do
		awk -v s="$shape" -v t=$tool -v a="${PER_INODE[$shape-$tool-first]}" \
		    -v b="${PER_INODE[$shape-$tool-last]}" 'BEGIN {
			printf "scale %-10s %-6s time per inode, largest / smallest: %.2f\n",
				s, t, a ? b / a : 0 }'
	done
done
cat "$T_DIR/notes" 2>/dev/null >&2
