#!/bin/bash
# The main job, end to end, on a loop-device image: install what is needed,
# build, format with xfsj-mkfs, mount, run a workload, crash the filesystem
# with a forced shutdown while the workload runs, decode the dirty log with
# xfsj-logprint, replay it, and verify the result.
set -u
cd "$(dirname "$0")/.."
bash scripts/deps.sh >/dev/null || exit 1
bash scripts/build.sh >/dev/null || exit 1
source tests/system/lib/common.sh
source tests/system/lib/workload.sh
need_root
oracle_613

img=$T_DIR/main.img
truncate -s 4g "$img"
dev=$(attach_loop "$img")
echo "== format $dev with xfsj-mkfs (the upstream defaults)"
# Parent pointers, reflink, rmapbt and exchange-range are on: xfsj-repair
# finishes whatever the crash leaves pending (EFI, RUI, CUI, BUI, ATTRI and
# XMI intents, unlinked inodes, CoW staging extents) as the kernel does at
# mount.
"$MKFS" -f "$dev" || exit 1
echo "== mount and run a workload"
t_mount "$dev" "$T_DIR/mnt" || exit 1
run_workload "$T_DIR/mnt" 1 || exit 1
( run_workload "$T_DIR/mnt/second" 2 >/dev/null 2>&1 ) &
wl=$!
# The crash lands in the second pass once it has made a few hundred files
# (at most 60 s), not after a guessed time.
for ((i = 0; i < 600; i++)); do
	[ -e "$T_DIR/mnt/second/tree/d3" ] && break
	sleep 0.1
done
check "the second pass is under way when the crash comes" test -e "$T_DIR/mnt/second/tree/d3"
echo "== crash: forced shutdown while the workload runs"
xfs_io -x -c "shutdown -f" "$T_DIR/mnt"
wait "$wl"
t_umount "$T_DIR/mnt"
detach_loop "$dev"

echo "== the dirty log (xfsj-logprint)"
./xfsj-logprint --summary "$img"
./xfsj-logprint --checkpoints "$img" | tail -4
./xfsj-logprint --intents "$img" | tail -3
check "the log is dirty" grep -q '"state":"DIRTY"' <(./xfsj-logprint --json --summary "$img")

cp --sparse=always "$img" "$T_DIR/kernel.img"
echo "== replay with xfsj-repair"
./xfsj-repair -v -r "$T_DIR/main.redo" "$img"
rc=$?
check "xfsj-repair replayed the log" test $rc -eq 0
out=$(./xfsj-repair "$img")
check "a second run finds a clean log" grep -q "log is clean" <<<"$out"
dev=$(attach_loop "$T_DIR/kernel.img")
t_mount "$dev" "$T_DIR/mnt" && t_umount "$T_DIR/mnt"
detach_loop "$dev"
source tests/system/lib/treedump.sh
for x in "$img" "$T_DIR/kernel.img"; do
	dev=$(attach_loop "$x")
	t_mount "$dev" "$T_DIR/mnt" ro && tree_dump "$T_DIR/mnt" > "$x.dump"
	t_umount "$T_DIR/mnt"
	detach_loop "$dev"
done
check "same tree as the kernel's own replay of a copy" cmp -s "$img.dump" "$T_DIR/kernel.img.dump"
echo "== verify with xfs_repair -n"
"$XFSPROGS613/xfs_repair" -n "$img" >/dev/null 2>&1
rc=$?
check "xfs_repair -n finds nothing" test $rc -eq 0
dev=$(attach_loop "$img")
check "the replayed filesystem mounts" t_mount "$dev" "$T_DIR/mnt" ro
check "the workload's first pass is intact" test -s "$T_DIR/mnt/large"
t_done
