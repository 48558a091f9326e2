#!/bin/bash
# Filesystems made by xfsj-mkfs, checked by the kernel and by xfsprogs 6.13:
# for each format profile, format a loop device, mount, run a real
# workload, unmount, remount and compare contents, then xfs_repair -n must
# be clean.  For the same options and uuid, the superblocks and AG headers
# of every AG must equal mkfs.xfs's, field by field (xfs_db print).
source "$(dirname "$0")/lib/common.sh"
source "$(dirname "$0")/lib/workload.sh"
source "$(dirname "$0")/lib/profiles.sh"
need_root
oracle_613
UUID=$PROFILE_UUID

# headers IMG: every AG's sb, agf, agi and agfl as xfs_db prints them.
headers() {
	local img=$1 agc a cmds=()
	agc=$("$XFSPROGS613/xfs_db" -r -c "sb 0" -c "p agcount" "$img" | awk '{print $3}')
	for ((a = 0; a < agc; a++)); do
		for s in sb agf agi agfl; do
			cmds+=(-c "$s $a" -c print)
		done
	done
	"$XFSPROGS613/xfs_db" -r "${cmds[@]}" "$img"
}

profile() {
	local name=$1 size=$2
	shift 2
	local img=$T_DIR/$name.img ref=$T_DIR/$name.ref dev mnt=$T_DIR/mnt
	local before after out

	kernel_profile_image "$name" "$img" "$size" "$@" || return
	before=$PROFILE_DIGEST
	dev=$(attach_loop "$img") || { not_ok "$name: losetup"; return; }
	check "$name: remount" t_mount "$dev" "$mnt"
	after=$(workload_digest "$mnt")
	check "$name: contents survive a remount" test "$before" = "$after"
	t_umount "$mnt"
	detach_loop "$dev"
	out=$("$XFSPROGS613/xfs_repair" -n "$img" 2>&1)
	if [ $? -eq 0 ]; then
		ok "$name: xfs_repair -n clean after workload"
	else
		not_ok "$name: xfs_repair -n after workload"
		echo "$out" | grep -v '^ *-\|^Phase' | head -20 | sed 's/^/#  /'
	fi

	# Same options through mkfs.xfs: headers must be identical.
	rm -f "$img"
	truncate -s "$size" "$img" "$ref"
	"$MKFS" -q -f -K -m uuid=$UUID "$@" "$img" >/dev/null 2>&1
	"$XFSPROGS613/mkfs.xfs" -q -f -K -m uuid=$UUID $(newfeat "$@") "$@" "$ref" >/dev/null 2>&1
	if diff <(headers "$img") <(headers "$ref") > "$T_DIR/diff" 2>&1; then
		ok "$name: superblocks and AG headers equal mkfs.xfs's"
	else
		not_ok "$name: headers differ from mkfs.xfs"
		head -20 "$T_DIR/diff" | sed 's/^/#  /'
	fi
	out=$("$XFSPROGS613/xfs_repair" -n "$img" 2>&1)
	check "$name: xfs_repair -n clean on a fresh image" test $? -eq 0
	rm -f "$img" "$ref"
}

for p in "${KERNEL_PROFILES[@]}"; do
	# shellcheck disable=SC2086
	profile $p
done
t_done
