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
echo "== format $dev with xfsj-mkfs"
# parent=0: with parent pointers nearly every crash leaves pending ATTRI
# intents, which xfsj-repair does not finish yet (it refuses them, exit 4).
# Reflink and rmapbt stay on: pending EFI/RUI/CUI intents, unlinked inodes
# and CoW staging extents are finished.
"$MKFS" -f -n parent=0 "$dev" || exit 1
echo "== mount and run a workload"
t_mount "$dev" "$T_DIR/mnt" || exit 1
run_workload "$T_DIR/mnt" 1 || exit 1
( run_workload "$T_DIR/mnt/second" 2 >/dev/null 2>&1 ) &
wl=$!
sleep 1
echo "== crash: forced shutdown while the workload runs"
xfs_io -x -c "shutdown -f" "$T_DIR/mnt"
wait "$wl"
t_umount "$T_DIR/mnt"
detach_loop "$dev"

echo "== the dirty log (xfsj-logprint)"
./xfsj-logprint --summary "$img"
./xfsj-logprint --checkpoints "$img" | tail -4
./xfsj-logprint --intents "$img" | tail -3

cp --sparse=always "$img" "$T_DIR/kernel.img"
echo "== replay with xfsj-repair"
./xfsj-repair -v -r "$T_DIR/main.redo" "$img"
rc=$?
if [ $rc -eq 4 ]; then
	# Inode-level intents (BUI from a reflink remap or CoW completion)
	# are not finished yet; then the kernel finishes this image.
	echo "== the log leaves inode-level intents xfsj-repair does not finish yet: replaying with the kernel"
	dev=$(attach_loop "$img")
	t_mount "$dev" "$T_DIR/mnt" && t_umount "$T_DIR/mnt"
	detach_loop "$dev"
else
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
fi
echo "== verify with xfs_repair -n"
"$XFSPROGS613/xfs_repair" -n "$img" >/dev/null 2>&1
rc=$?
check "xfs_repair -n finds nothing" test $rc -eq 0
dev=$(attach_loop "$img")
check "the replayed filesystem mounts" t_mount "$dev" "$T_DIR/mnt" ro
check "the workload's first pass is intact" test -s "$T_DIR/mnt/large"
t_done
