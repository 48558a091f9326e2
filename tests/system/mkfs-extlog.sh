#!/bin/bash
# xfsj-mkfs -l logdev=: filesystems with an external log device.
#   - geometry: `xfsj-mkfs -N` prints what `mkfs.xfs -N` (6.13, same
#     features) does for the same options, over a set of log devices and
#     options (whole device, size=, su=/sunit=, odd device sizes, block
#     and sector sizes, a data stripe); both refuse the same bad ones
#     (too small, too large, with internal= or agnum=);
#   - the superblock of a made filesystem equals mkfs.xfs's (xfs_db print,
#     but for the UUID and CRC);
#   - the kernel mounts it with -o logdev=, takes a workload and unmounts;
#     xfs_repair -n -l and xfsj-repair -n -l find it clean;
#   - a crash (`shutdown -f` while a seeded workload runs) is replayed by
#     xfsj-repair -l, after which xfs_repair -n -l is clean and the kernel
#     mounts it.
#
#   SEED=s
source "$(dirname "$0")/lib/common.sh"
source "$TOP/tests/system/lib/crashgen.sh"
source "$TOP/tests/system/lib/extlog.sh"
source "$TOP/tests/system/lib/workload.sh"
need_root
SEED=${SEED:-$(( $(date +%s) % 100000 ))}
echo "# mkfs-extlog: seed $SEED"
oracle_613
REPAIR=${XFSJ_REPAIR:-$BUILD/xfsj-repair}

# The log devices of the geometry cases: sizes in bytes.
truncate -s 1g "$T_DIR/d.img"
truncate -s 96m "$T_DIR/l.img"
truncate -s 3g "$T_DIR/big.img"
truncate -s $((70 * 1048576 + 4096)) "$T_DIR/odd.img"
truncate -s 12m "$T_DIR/tiny.img"
D=$(attach_loop "$T_DIR/d.img")
L=$(attach_loop "$T_DIR/l.img")
BIG=$(attach_loop "$T_DIR/big.img")
ODD=$(attach_loop "$T_DIR/odd.img")
TINY=$(attach_loop "$T_DIR/tiny.img")
FEAT="-i exchange=1 -n parent=1"

# geometry OPTIONS...: both tools' -N, the same lines (or both refuse).
geometry() {
	local ours theirs ro rt
	ours=$("$MKFS" -N -f "$@" "$D" 2>&1)
	ro=$?
	# shellcheck disable=SC2086
	theirs=$("$XFSPROGS613/mkfs.xfs" -N -f $FEAT "$@" "$D" 2>&1)
	rt=$?
	if [ $ro != 0 ] || [ $rt != 0 ]; then
		check "-N $*: both refuse ($ro, $rt): $(head -1 <<< "$ours")" \
			test $ro != 0 -a $rt != 0
		return
	fi
	if [ "$ours" = "$theirs" ]; then
		ok "-N $*: same geometry as mkfs.xfs ($(grep -o 'blocks=[0-9]*, version' <<< "$ours"))"
	else
		not_ok "-N $*: geometry differs from mkfs.xfs"
		diff <(echo "$ours") <(echo "$theirs") | head -6 | sed 's/^/#  /'
	fi
}
geometry -l logdev="$L"
geometry -l logdev="$L",size=80m
geometry -l logdev="$ODD"
geometry -l logdev="$ODD",su=32k
geometry -l logdev="$L",sunit=16
geometry -l logdev="$BIG",size=1g
geometry -b size=1024 -l logdev="$L"
geometry -s size=4096 -l logdev="$L"
geometry -d su=64k,sw=4 -l logdev="$L"
geometry -l logdev="$BIG"
geometry -l logdev="$TINY"
geometry -l logdev="$L",size=200m
geometry -l logdev="$L",size=32m
geometry -l logdev="$L",internal=0
geometry -l logdev="$L",agnum=1

# The superblock of a made filesystem, against mkfs.xfs's.
sbprint() {
	"$XFSPROGS613/xfs_db" -r -l "$L" -c "sb 0" -c print "$D" |
		grep -v -e '^uuid = ' -e '^crc = '
}
"$XFSPROGS613/mkfs.xfs" -q -f $FEAT -l logdev="$L" "$D"
sbprint > "$T_DIR/sb.ref"
"$MKFS" -q -f -l logdev="$L" "$D"
rc=$?
check "xfsj-mkfs -l logdev= (exit $rc)" test $rc = 0
check "superblock as mkfs.xfs's ($(grep -E '^(logstart|logblocks) ' <(sbprint) | tr '\n' ' '))" \
	cmp -s <(sbprint) "$T_DIR/sb.ref"
"$XFSPROGS613/xfs_repair" -n -l "$L" "$D" > "$T_DIR/x.out" 2>&1
rc=$?
check "xfs_repair -n -l: clean after mkfs (exit $rc)" test $rc = 0
MNT=$T_DIR/mnt
if t_mount "$D" "$MNT" "logdev=$L"; then
	run_workload "$MNT" 1 > /dev/null 2>&1
	wrc=$?
	files=$(find "$MNT" | wc -l)
	t_umount "$MNT"
	check "mounted with -o logdev=, workload run (exit $wrc, $files entries)" test $wrc = 0
else
	not_ok "the kernel does not mount it with -o logdev="
fi
"$XFSPROGS613/xfs_repair" -n -l "$L" "$D" > "$T_DIR/x.out" 2>&1
rc=$?
check "xfs_repair -n -l: clean after the workload (exit $rc)" test $rc = 0
"$REPAIR" -n -l "$L" "$D" > "$T_DIR/j.out" 2>&1
rc=$?
check "xfsj-repair -n -l: clean after the workload (exit $rc)" test $rc = 0
detach_loop "$TINY"
detach_loop "$ODD"
detach_loop "$BIG"
detach_loop "$L"
detach_loop "$D"
rm -f "$T_DIR/big.img"

# A crash, replayed by xfsj-repair -l (more seeds while the log is clean).
CD=$T_DIR/c.img CL=$T_DIR/c.log
dirty=0
for ((t = 0; t < 3 && dirty == 0; t++)); do
	seed=$((SEED + t))
	if ! extlog_crash_image "$CD" "$CL" "$seed" safe 64m "$MKFS" 2> "$T_DIR/gen.err"; then
		not_ok "seed $seed: could not make the crash image ($(head -c 200 "$T_DIR/gen.err"))"
		continue
	fi
	"$REPAIR" -n -l "$CL" "$CD" > /dev/null 2>&1
	[ $? = 2 ] && dirty=1
done
check "a crash with a dirty external log (seed $seed)" test $dirty = 1
out=$("$REPAIR" -l "$CL" "$CD" 2>&1)
rc=$?
check "xfsj-repair -l replays it (exit $rc): $(grep -m1 'replay' <<< "$out")" test $rc = 0
"$XFSPROGS613/xfs_repair" -n -l "$CL" "$CD" > "$T_DIR/x.out" 2>&1
rc=$?
check "xfs_repair -n -l: clean after the replay (exit $rc)" test $rc = 0
dd=$(attach_loop "$CD") dl=$(attach_loop "$CL")
if t_mount "$dd" "$MNT" "logdev=$dl"; then
	t_umount "$MNT"
	ok "the kernel mounts the replayed filesystem"
else
	not_ok "the kernel does not mount the replayed filesystem"
fi
detach_loop "$dl"
detach_loop "$dd"
t_done
