#!/bin/bash
# xfsj-mkfs -N must print the same geometry as mkfs.xfs -N (xfsprogs 6.13)
# for the same options, over a grid of sizes, block sizes, stripes, AG
# counts, inode sizes and features.  Also checks the --small minimum log
# against mkfs.xfs's fstests mode, and that both refuse the same requests.
source "$(dirname "$0")/lib/common.sh"
need_root
oracle_613

# "section.key=value" for every numeric field of a report, sorted.
fields() {
	awk '
	/^[a-z-]+ *=/ { split($0, a, "="); sec = a[1]; gsub(/ /, "", sec) }
	{
		line = $0
		sub(/^[^=]*=/, "", line)	# drop the section label
		while (match(line, /[a-z0-9-]+=[0-9]+/)) {
			print sec "." substr(line, RSTART, RLENGTH)
			line = substr(line, RSTART + RLENGTH)
		}
	}' | sort
}


# compare NAME SIZE OPTIONS...
compare() {
	local name=$1 size=$2
	shift 2
	local img=$T_DIR/img ours theirs
	rm -f "$img"
	# ext4 cannot hold a sparse file over 16 TiB: ask for the size instead.
	if ! truncate -s "$size" "$img" 2>/dev/null; then
		: > "$img"
		set -- -d size="$size" "$@"
	fi
	ours=$("$MKFS" -N -f "$@" "$img" 2>&1)
	local ours_rc=$?
	theirs=$("$XFSPROGS613/mkfs.xfs" -N -f $(newfeat "$@") "$@" "$img" 2>&1)
	local theirs_rc=$?
	if [ $ours_rc -ne 0 ] || [ $theirs_rc -ne 0 ]; then
		if [ $ours_rc -ne 0 ] && [ $theirs_rc -ne 0 ]; then
			ok "$name: both refuse"
		else
			not_ok "$name: xfsj rc=$ours_rc mkfs.xfs rc=$theirs_rc"
			echo "$ours" | sed 's/^/#  xfsj: /'
			echo "$theirs" | sed 's/^/#  mkfs.xfs: /'
		fi
		return
	fi
	# Every number mkfs.xfs reports must be ours too.
	local missing
	missing=$(comm -13 <(echo "$ours" | fields) <(echo "$theirs" | fields))
	if [ -z "$missing" ]; then
		ok "$name"
	else
		not_ok "$name ($size $*): differs: $(echo $missing)"
		echo "#  ours: $(echo "$ours" | fields | comm -23 - <(echo "$theirs" | fields) | tr '\n' ' ')"
	fi
}

n=0
for size in 300m 301m 1g 2g 10g 17g 64g 100g 256g 513g 1t 4t 5t 16t 33t 64t; do
	compare "default $size" "$size"
	n=$((n + 1))
done
for size in 300m 2g 100g 4t; do
	for b in 1024 65536; do
		compare "bsize $b $size" "$size" -b size=$b
	done
done
for size in 2g 20g 300g 2t; do
	compare "stripe 64k*4 $size" "$size" -d su=64k,sw=4
	compare "stripe 256k*2 $size" "$size" -d su=256k,sw=2
	compare "sunit 96k*3 $size" "$size" -d sunit=192,swidth=576
	compare "stripe 1m*4 $size" "$size" -d su=1m,sw=4
done
for size in 1g 50g 1t; do
	compare "agcount 8 $size" "$size" -d agcount=8
	compare "agcount 32 $size" "$size" -d agcount=32
	compare "agsize 100m $size" "$size" -d agsize=100m
	compare "isize 1024 $size" "$size" -i size=1024
	compare "isize 2048 $size" "$size" -i size=2048
done
for size in 1g 200g; do
	compare "rmapbt=0 $size" "$size" -m rmapbt=0
	compare "reflink=0 $size" "$size" -m reflink=0
	compare "no finobt $size" "$size" -m finobt=0,inobtcount=0
	compare "nrext64=0 $size" "$size" -i nrext64=0
	compare "parent=0 $size" "$size" -n parent=0
	compare "exchange=0 $size" "$size" -i exchange=0
	compare "sparse=0 $size" "$size" -i sparse=0
	compare "6.1 feature set $size" "$size" -m rmapbt=0 -i nrext64=0,exchange=0 -n parent=0
	compare "sector 4096 $size" "$size" -s size=4096
	compare "dir 16k $size" "$size" -n size=16k
	compare "log 128m $size" "$size" -l size=128m
	compare "log su 64k $size" "$size" -l su=64k
	compare "log su 256k $size" "$size" -l su=256k
	compare "log agnum 0 $size" "$size" -l agnum=0
	compare "imaxpct 10 $size" "$size" -i maxpct=10
done
# 64 KiB blocks: the minimum log decides (parent pointers on and off).
for size in 2g 10g 1t; do
	compare "64k parent=0 $size" "$size" -b size=65536 -n parent=0
	compare "32k rmapbt=0 $size" "$size" -b size=32768 -m rmapbt=0
done
# Requests both must refuse.
compare "too small" 200m
compare "log too small" 1g -l size=2m
compare "log too big" 1g -l size=300m
compare "agsize too small" 1g -d agsize=8m
compare "bad su" 1g -d su=3k,sw=2
compare "log size not multiple of lsu" 2g -l size=65537b,su=256k

# Tiny filesystems: --small against mkfs.xfs's fstests mode, where the
# absolute minimum log is chosen.
for size in 16m 32m 64m 100m 200m 299m; do
	for opts in "" "-m rmapbt=0 -i nrext64=0,exchange=0 -n parent=0" "-b size=1024" "-n parent=0"; do
		img=$T_DIR/img
		rm -f "$img"
		truncate -s $size "$img"
		ours=$("$MKFS" -N -f --small $opts "$img" 2>&1 | fields)
		theirs=$(TEST_DIR=/nonexistent TEST_DEV=/nonexistent QA_CHECK_FS=1 \
			"$XFSPROGS613/mkfs.xfs" -N -f $(newfeat $opts) $opts "$img" 2>&1 | fields)
		missing=$(comm -13 <(echo "$ours") <(echo "$theirs"))
		if [ -z "$missing" ] && [ -n "$theirs" ]; then
			ok "--small $size $opts"
		else
			not_ok "--small $size $opts: differs: $(echo $missing)"
		fi
	done
done
t_done
