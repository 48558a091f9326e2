#!/bin/bash
# By hand: the check of a very large filesystem (issue 22's 100M-inode
# run).  Made without the kernel: a protofile of N empty files in
# directories of 1,000 (tests/system/scale-smoke.sh's shape without the
# data), written by `xfsj-mkfs -p` onto a sparse image file; then, from a
# cold page cache, `xfsj-repair -n --json` (its scratch file beside the
# image), and with XFS=1 `xfs_repair -n` 6.13 under a time limit.  Prints
# wall time, CPU time and peak RSS of each step, bytes of peak RSS per
# inode and microseconds per inode; exit 1 when xfsj-repair -n does not
# call the image clean.
#
#   N=n (100000000)  SIZE=sparse image size (256g: 25% of it may hold
#     inodes, mkfs's default imaxpct)
#   XFS=1: also xfs_repair -n, stopped after XFS_TIMEOUT seconds (1800)
#   XFS_MEM=MiB: its -m (16000)
# The image takes about 512 bytes an inode (51 GiB at 100M) in this run's
# temp dir under /tmp, removed at the end; the protofile about 18 bytes an
# inode, removed once written.
# Output: stdout only.
source "$(dirname "$0")/../tests/system/lib/common.sh"
need_root
N=${N:-100000000}
SIZE=${SIZE:-256g}
REPAIR=${XFSJ_REPAIR:-$BUILD/xfsj-repair}
[ -x "$MKFS" ] && [ -x "$REPAIR" ] ||
	{ echo "bench/check-huge: no $MKFS or $REPAIR (run make)"; exit 2; }
cp "$MKFS" "$REPAIR" "$T_DIR/" || exit 2
MKFS=$T_DIR/xfsj-mkfs REPAIR=$T_DIR/xfsj-repair
IMG=$T_DIR/fs.img

cold() { sync; echo 3 > /proc/sys/vm/drop_caches; }
# timed LABEL OUT ERR CMD...: run CMD (its stdout to OUT, stderr to ERR),
# print "LABEL wall_s cpu_s peak_MiB B/inode us/inode"
timed() {
	local label=$1 out=$2 err=$3 rc
	shift 3
	/usr/bin/time -f '%e %U %S %M' -o "$T_DIR/time" "$@" > "$out" 2> "$err"
	rc=$?
	awk -v l="$label" -v n="$N" '{ printf "%-18s %9.1f %9.1f %9.0f %7.0f %7.2f\n",
		l, $1, $2 + $3, $4 / 1024, $4 * 1024 / n, $1 * 1e6 / n }' \
		"$T_DIR/time"
	return $rc
}

cd "$T_DIR" || exit 2
: > e
awk -v n="$N" 'BEGIN { print "/dev/null"; print "0 0"; print "d--755 0 0"
	for (i = 0; i < n; i++) {
		if (i % 1000 == 0) {
			if (i) print "$"
			printf "d%d d--755 0 0\n", i / 1000
		}
		printf "f%d ---644 0 0 e\n", i % 1000
	}
	print "$"; print "$" }' > proto || exit 2
truncate -s "$SIZE" "$IMG"
printf '%-18s %9s %9s %9s %7s %7s\n' step wall_s cpu_s rss_mib B/inode us/inode
timed "xfsj-mkfs -p" mkfs.out mkfs.err "$MKFS" -q -p proto "$IMG" ||
	{ echo "bench/check-huge: xfsj-mkfs -p failed: $(tail -1 mkfs.err)"; exit 1; }
rm -f proto
echo "# image: $(du -h "$IMG" | cut -f1) written, $N files"
cold
timed "xfsj-repair -n" check.json check.err \
	"$REPAIR" -n --json --tmpdir "$T_DIR" "$IMG"
rc=$?
tail -1 check.json | grep -o '"problems":[0-9]*,\|"inodes":[0-9]*,\|"state_bytes":[0-9]*' |
	head -3 | tr -d ',' | tr '\n' ' ' | sed 's/^/# xfsj-repair -n: /'
echo
[ $rc = 0 ] || { echo "FAILED: xfsj-repair -n exit $rc"; cat check.err; exit 1; }
if [ "${XFS:-0}" = 1 ]; then
	oracle_613
	cold
	timed "xfs_repair -n" xfs.out xfs.out timeout "${XFS_TIMEOUT:-1800}" \
		"$XFSPROGS613/xfs_repair" -n -m "${XFS_MEM:-16000}" "$IMG"
	echo "# xfs_repair -n: exit $? (124: stopped by the time limit), last words: $(tail -1 xfs.out)"
fi
exit 0
