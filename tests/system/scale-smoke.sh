#!/bin/bash
# The check's work grows linearly with the filesystem (issue 22), and its
# memory stays inside the -m bound, the tables spilling to a scratch file.
# Two filesystems of one shape, N and 2N inodes (directories of 1,000
# files, every tenth file 4 KiB of data), made by `xfsj-mkfs -p` from a
# generated mkfs.xfs protofile on sparse files (no kernel); xfs_repair -n
# (6.13) calls the smaller one clean, once.  Then
# `xfsj-repair -n --json -m SPILL_MIB` on both:
#   - both clean (exit 0, no problem);
#   - every work counter of the JSON summary ("work") that follows the
#     contents (AG btree records, inodes, fork mappings, directory
#     entries, attributes (parent pointers), mapping lookups, space
#     records, names) grows by a factor
#     within [1.7, 2.3] from N to 2N; those of the geometry (superblocks,
#     AG headers, counters: the same AG count) stay equal;
#   - the tables ("state_bytes") are more than the RAM half of the bound
#     at 2N (so they spilled), and the peak RSS (/usr/bin/time -f %M) of
#     each run stays under SPILL_MIB + RSS_OVERHEAD_MIB (the program, its
#     libraries, the replay's structures and the watch's reaction time);
#   - the output at 2N is the same, byte for byte, as the unbounded run's,
#     and as that of a run whose read-ahead goes O_DIRECT into our own
#     pool (XFSJ_DIRECT=1; -v says so).
# Then a repair (no -n) of the 2N image with --tmpdir on a 256 KiB tmpfs
# it mounts: exit 8, one line on stderr naming the scratch file and what
# did not fit, the image's checksum unchanged, no redo file, nothing left
# in the tmpfs.  It asserts no timings.
#
#   SCALE_N=n (default 50000): the smaller filesystem's files
#   SPILL_MIB=n (default 16): the -m bound of the bounded runs
#   RSS_OVERHEAD_MIB=n (default 12)
source "$(dirname "$0")/lib/common.sh"
need_root
oracle_613
REPAIR=$BUILD/xfsj-repair
N=${SCALE_N:-50000}
SPILL_MIB=${SPILL_MIB:-16}
RSS_OVERHEAD_MIB=${RSS_OVERHEAD_MIB:-12}
RSS_BOUND_MIB=$((SPILL_MIB + RSS_OVERHEAD_MIB))
if [ ! -x /usr/bin/time ]; then
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q time > /dev/null 2>&1 ||
		{ echo "scale-smoke: cannot install 'time'"; exit 2; }
fi

: > "$T_DIR/empty"
head -c 4096 /dev/zero | tr '\0' 'x' > "$T_DIR/four"

# proto FILE N: a protofile of N files in directories of 1,000
proto() {
	awk -v n="$2" -v e="$T_DIR/empty" -v f="$T_DIR/four" 'BEGIN {
		print "/dev/null"; print "0 0"; print "d--755 0 0"
		for (i = 0; i < n; i++) {
			if (i % 1000 == 0) {
				if (i) print "$"
				printf "d%d d--755 0 0\n", i / 1000
			}
			printf "f%d ---644 0 0 %s\n", i, i % 10 == 1 ? f : e
		}
		print "$"; print "$" }' > "$1"
}

# work JSON NAME: a counter of the "work" object of the summary line
work() { tail -1 "$1" | sed -n "s/.*\"work\":{[^}]*\"$2\":\([0-9]*\).*/\1/p"; }
# same X Y: X is a positive count and Y is X
same() { [ -n "$1" ] && [ "$1" -gt 0 ] && [ "$1" = "$2" ]; }

for n in "$N" $((2 * N)); do
	img=$T_DIR/fs-$n.img
	proto "$T_DIR/proto-$n" "$n"
	truncate -s 4g "$img"
	check "xfsj-mkfs -p: $n files" \
		"$MKFS" -q -p "$T_DIR/proto-$n" "$img"
	/usr/bin/time -f %M -o "$T_DIR/rss-$n" \
		"$REPAIR" -n --json -m "$SPILL_MIB" --tmpdir "$T_DIR" "$img" \
		> "$T_DIR/out-$n.json" 2> "$T_DIR/err-$n"
	check "xfsj-repair -n: $n files clean (exit 0)" [ $? = 0 ]
	check "xfsj-repair -n: $n files, no problem" \
		grep -q '"kind":"check_summary","checked":true,"problems":0,' "$T_DIR/out-$n.json"
	rss=$(tail -1 "$T_DIR/rss-$n")
	check "peak RSS of $n files, -m $SPILL_MIB: ${rss} KiB under $RSS_BOUND_MIB MiB" \
		[ "$rss" -lt $((RSS_BOUND_MIB * 1024)) ]
	[ "$T_VERBOSE" = 1 ] && { tail -1 "$T_DIR/out-$n.json"; echo "rss $rss KiB"; }
done
"$XFSPROGS613/xfs_repair" -n -f "$T_DIR/fs-$N.img" > "$T_DIR/oracle" 2>&1
check "xfs_repair -n 6.13: the $N-file image is clean" [ $? = 0 ]

a=$T_DIR/out-$N.json b=$T_DIR/out-$((2 * N)).json
for name in ag_btree_records inodes fork_mappings dir_entries attributes \
	mapping_lookups space_records names; do
	x=$(work "$a" $name) y=$(work "$b" $name)
	check "work $name: $x at $N files, $y at $((2 * N)): x2 within [1.7, 2.3]" \
		awk -v x="${x:-0}" -v y="${y:-0}" 'BEGIN {
			exit !(x > 0 && y >= 1.7 * x && y <= 2.3 * x) }'
done
for name in superblocks ag_headers counters; do
	x=$(work "$a" $name) y=$(work "$b" $name)
	check "work $name (geometry): $x at $N files, $y at $((2 * N)): equal" \
		same "$x" "$y"
done

# The bound held because the tables spilled, and spilling changed nothing.
b=$T_DIR/out-$((2 * N)).json
tb=$(tail -1 "$b" | sed -n 's/.*"state_bytes":\([0-9]*\).*/\1/p')
check "tables of $((2 * N)) files: ${tb:-?} bytes, more than the RAM half of -m $SPILL_MIB" \
	[ "${tb:-0}" -gt $((SPILL_MIB * 1048576 / 2)) ]
"$REPAIR" -n --json "$T_DIR/fs-$((2 * N)).img" > "$T_DIR/unbounded.json" \
	2> "$T_DIR/unbounded.err"
check "unbounded run of $((2 * N)) files: exit 0" [ $? = 0 ]
check "$((2 * N)) files: the output of -m $SPILL_MIB is the unbounded run's" \
	cmp -s "$b" "$T_DIR/unbounded.json"
# The same check with its read-ahead O_DIRECT into our own pool (the
# default past 2 GiB of inodes): the same output, work counters and all.
XFSJ_DIRECT=1 "$REPAIR" -n -v --json "$T_DIR/fs-$((2 * N)).img" \
	> "$T_DIR/direct.json" 2> "$T_DIR/direct.err"
check "O_DIRECT read-ahead run of $((2 * N)) files: exit 0" [ $? = 0 ]
check "O_DIRECT read-ahead run: -v says the reads went O_DIRECT" \
	grep -q "read-ahead into our own buffers, O_DIRECT" "$T_DIR/direct.err"
check "$((2 * N)) files: the O_DIRECT run's output is the page cache run's" \
	cmp -s "$T_DIR/direct.json" "$T_DIR/unbounded.json"

# A scratch directory that cannot hold the tables: exit 8, one line.
small=$T_DIR/small-tmp
mkdir "$small"
if mount -t tmpfs -o size=256k,mode=0700 tmpfs "$small"; then
	echo "$small" >> "$T_MOUNTFILE"
	img=$T_DIR/fs-$((2 * N)).img
	sum=$(sparse_sum "$img")
	"$REPAIR" -m "$SPILL_MIB" --tmpdir "$small" -r "$T_DIR/full.redo" \
		"$img" > "$T_DIR/full.out" 2> "$T_DIR/full.err"
	rc=$?
	check "repair with a full --tmpdir: exit 8 (got $rc)" [ "$rc" = 8 ]
	check "repair with a full --tmpdir: one line on stderr" \
		[ "$(wc -l < "$T_DIR/full.err")" = 1 ]
	check "the line names the scratch file and what did not fit" \
		grep -Eq "scratch file $small/xfsj-scratch\.[A-Za-z0-9]{6} cannot hold [0-9]+ more bytes.*No space left on device; nothing was written" "$T_DIR/full.err"
	check "the image is untouched (sha256 before and after)" \
		[ -n "$sum" ] && [ "$(sparse_sum "$img")" = "$sum" ]
	check "no redo file was written" [ ! -e "$T_DIR/full.redo" ]
	check "nothing is left in the scratch directory" \
		[ -z "$(ls -A "$small")" ]
	t_umount "$small"
else
	not_ok "mount a 256 KiB tmpfs on $small"
fi
echo "$T_PASS passed, $T_FAIL failed"
[ "$T_FAIL" = 0 ]
