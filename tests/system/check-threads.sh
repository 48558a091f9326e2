#!/bin/bash
# The check's threads (issue 22): `xfsj-repair -n --threads N` gives the
# same output for every N.  A filesystem of 8 AGs, 16,000 files in 16
# directories that `xfsj-mkfs -p` spreads over the AGs (no kernel), is
# checked clean, then damaged with xfs_db 6.13 in seven AGs (a directory
# block of /d12 made unreadable: its children's problems name it as cause,
# numbered the same whatever the thread count; AGF and AGI counters of
# AGs 1, 3 and 6 for the space phase): inode cores
# (link count, extent size hint, fork offset, a free mode), directory
# entries (file type, tag, a name length that runs over its neighbours:
# problems that carry names, leaf entries left dangling, unreachable
# files, parent pointers).  For --threads 1, 2, 3 and 8 (and 2 with a
# 1 MiB buffer cache):
#   - the same exit code, 0 clean and 1 damaged;
#   - the problem lines byte for byte, in the same order, and the
#     summary but for "state_bytes" (the peak of the tables' bytes,
#     the one figure that depends on the threads), with --json;
#   - the text output byte for byte without it;
# and the damaged image's problems name inodes of at least five AGs.
# The repair's whole checks run on the same threads: copies of the damaged
# image repaired with --threads 1, 2 and 8 give the same exit code, the
# same --json lines (problems found, fixes, problems left, summary) and
# the same bytes on the device.
# Runtime: a few seconds (2 s; 6 s with the repairs, under load).
source "$(dirname "$0")/lib/common.sh"
need_root
oracle_613
REPAIR=$BUILD/xfsj-repair
DB=$XFSPROGS613/xfs_db
img=$T_DIR/fs.img

: > "$T_DIR/empty"
awk -v e="$T_DIR/empty" 'BEGIN {
	print "/dev/null"; print "0 0"; print "d--755 0 0"
	for (i = 0; i < 16000; i++) {
		if (i % 1000 == 0) {
			if (i) print "$"
			printf "d%d d--755 0 0\n", i / 1000
		}
		printf "f%d ---644 0 0 %s\n", i, e
	}
	print "$"; print "$" }' > "$T_DIR/proto"
truncate -s 2g "$img"
check "xfsj-mkfs -p: 16,000 files over 8 AGs" \
	"$MKFS" -q -d agcount=8 -p "$T_DIR/proto" "$img"

# strip JSON: the lines without the summary's peak of the tables' bytes
strip() { sed 's/"state_bytes":[0-9]*,//' "$1"; }

# same_runs WHAT RC: every thread count gives run 1's output and exit RC
same_runs() {
	local what=$1 rc=$2 n args
	for n in 1 2 3 8 2m; do
		args="--threads ${n%m}"
		[ "$n" = 2m ] && args="$args -m 1"
		# shellcheck disable=SC2086
		"$REPAIR" -n --json $args "$img" > "$T_DIR/$what-$n.json" \
			2> /dev/null
		check "$what: --threads $args: exit $rc" [ $? = "$rc" ]
		# shellcheck disable=SC2086
		"$REPAIR" -n $args "$img" > "$T_DIR/$what-$n.txt" 2> /dev/null
		[ "$n" = 1 ] && continue
		check "$what: --json output of $args is that of --threads 1" \
			cmp -s <(strip "$T_DIR/$what-1.json") \
			<(strip "$T_DIR/$what-$n.json")
		check "$what: text output of $args is that of --threads 1" \
			cmp -s "$T_DIR/$what-1.txt" "$T_DIR/$what-$n.txt"
	done
}

same_runs clean 0
check "clean: no problem" \
	grep -q '"kind":"check_summary","checked":true,"problems":0,' \
	"$T_DIR/clean-1.json"

"$DB" -x -c "path /d1/f1005" -c "write core.nlinkv2 5" \
	-c "path /d2/f2005" -c "write core.extsize 7" \
	-c "path /d3/f3007" -c "write core.forkoff 200" \
	-c "path /d6/f6005" -c "write core.mode 0" \
	-c "path /d5" -c "dblock 0" -c "write -d du[3].filetype 7" \
	-c "write -d du[4].namelen 200" \
	-c "path /d4" -c "dblock 0" -c "write -d du[6].tag 8" \
	-c "path /d12" -c "dblock 0" -c "write -d dhdr.hdr.magic 0" \
	-c "agi 1" -c "write count 128" -c "agf 3" -c "write longest 9" \
	-c "agi 6" -c "write freecount 33" \
	"$img" > "$T_DIR/db.out" 2>&1
check "xfs_db 6.13 damaged the image" [ $? = 0 ]
same_runs damaged 1
n=$(grep -c '"kind":"problem"' "$T_DIR/damaged-1.json")
check "damaged: $n problems (at least 30)" [ "$n" -ge 30 ]
check "damaged: consequences name their cause (ids renumbered in AG order)" \
	grep -q '"kind":"problem".*"cause":[1-9]' "$T_DIR/damaged-1.json"
check "damaged: problems with names among them" \
	grep -q '"kind":"problem".*"name":' "$T_DIR/damaged-1.json"
# agno of an inode: its number past the AG's inode bits (agblklog + inopblog)
bits=$("$DB" -r -c "sb 0" -c "print agblklog inopblog" "$img" |
	awk '{ s += $3 } END { print s }')
ags=$(sed -n 's/.*"kind":"problem".*"ino":\([0-9]*\).*/\1/p' \
	"$T_DIR/damaged-1.json" | awk -v b="$bits" '{
		print int($1 / 2 ^ b) }' | sort -u | wc -l)
check "damaged: the problems name inodes of $ags AGs (at least 5)" \
	[ "$ags" -ge 5 ]
# The space phase runs on threads too: its AG counter problems of three AGs
spc=$(grep -E '"kind":"problem".*"code":"ag[fi].counter"' \
	"$T_DIR/damaged-1.json" | sed -n 's/.*"ag":\([0-9]*\).*/\1/p' |
	sort -u | tr '\n' ' ')
check "damaged: the space phase's AG counter problems in AGs $spc(1 3 6)" \
	[ "$spc" = "1 3 6 " ]

# The repair: the same fixes and bytes for any thread count
for n in 1 2 8; do
	cp --sparse=always "$img" "$T_DIR/rep-$n.img"
	"$REPAIR" --json --threads "$n" -r "$T_DIR/rep.redo" \
		"$T_DIR/rep-$n.img" > "$T_DIR/rep-$n.json" 2> /dev/null
	echo $? > "$T_DIR/rep-$n.rc"
done
check "repair --threads 1: exit 1 (fixed)" [ "$(cat "$T_DIR/rep-1.rc")" = 1 ]
nfix=$(grep -c '"kind":"fix"' "$T_DIR/rep-1.json")
check "repair --threads 1: $nfix fixes (at least 10)" [ "$nfix" -ge 10 ]
nblk=$(sparse_sum "$T_DIR/rep-1.img" blocks | wc -l)
check "repair --threads 1: $nblk blocks not zero listed (at least 1000)" \
	[ "$nblk" -ge 1000 ]
for n in 2 8; do
	check "repair --threads $n: the exit code of --threads 1" \
		[ "$(cat "$T_DIR/rep-$n.rc")" = "$(cat "$T_DIR/rep-1.rc")" ]
	check "repair --threads $n: the --json lines of --threads 1" \
		cmp -s <(strip "$T_DIR/rep-1.json") <(strip "$T_DIR/rep-$n.json")
	check "repair --threads $n: the bytes of --threads 1" \
		cmp -s <(sparse_sum "$T_DIR/rep-1.img" blocks) \
			<(sparse_sum "$T_DIR/rep-$n.img" blocks)
done
echo "$T_PASS passed, $T_FAIL failed"
[ "$T_FAIL" = 0 ]
