#!/bin/bash
# xfsj-repair on damaged attribute forks (FIX_SALVAGE_ATTR): a populated
# image (lib/populate.sh, profile 4k with parent pointers), each case one
# field of an attribute structure fuzzed with xfs_db as fstests does:
# short-form header and entries, leaf headers, entries and names, a leaf
# of a node fork, a remote value's entry and header, a user attribute of
# a short form made a parent pointer (a 5-byte value).  For each case, on
# two copies of the damaged image:
#   - xfs_repair -n (6.13) detects it;
#   - xfsj-repair fixes it (exit 1): then xfs_repair -n and xfsj-repair -n
#     are clean, a second xfsj-repair changes nothing (exit 0, same md5),
#     and the kernel mounts it;
#   - xfs_repair repairs the other copy (it clears the whole fork); the
#     extended attributes of the damaged file are counted in each (the
#     kernel lists them) and printed: ours must keep at least as many,
#     and some where xfs_repair kept none.
source "$(dirname "$0")/lib/common.sh"
source "$(dirname "$0")/lib/populate.sh"
source "$(dirname "$0")/lib/repaircase.sh"
need_root
oracle_613
REPAIR=${XFSJ_REPAIR:-$BUILD/xfsj-repair}
DB=$XFSPROGS613/xfs_db
ORACLE=$XFSPROGS613/xfs_repair
MNT=$T_DIR/mnt

# name  file  xfs_db commands (after `path FILE`), ';'-split
CASES="sf-count /attrs/sf fuzz -d a.sfattr.hdr.count ones
sf-totsize /attrs/sf fuzz -d a.sfattr.hdr.totsize ones
leaf-incomplete /attrs/leaf ablock 0;fuzz -d entries[3].incomplete ones
leaf-count /attrs/leaf ablock 0;fuzz -d hdr.count ones
leaf-namelen /attrs/leaf ablock 0;fuzz -d nvlist[5].namelen ones
node-leaf-count /attrs/node ablock 2;fuzz -d hdr.count zeroes
rmt-bytes /attrs/remote ablock 1;fuzz -d hdr.bytes ones
sf-pptr-value /attrs/sf fuzz -d a.sfattr.list[1].parent add"

# count IMG FILE: the extended attributes of FILE the kernel lists (the
# parent pointers are not listed); fails when it does not mount IMG.
count() {
	local dev n=0
	dev=$(attach_loop "$1") || return 1
	if ! t_mount "$dev" "$MNT" ro,nouuid; then
		detach_loop "$dev"
		return 1
	fi
	[ -e "$MNT$2" ] &&
		n=$(getfattr -d -m - --absolute-names "$MNT$2" 2>/dev/null |
			grep -c '^[^#].*=')
	t_umount "$MNT"
	detach_loop "$dev"
	echo "$n"
}

populate_image "$T_DIR/base.img" 4k || { not_ok "populate 4k"; t_done; }

printf '# %-22s %-8s %-6s %-6s %s\n' case ours kept "6.13" fixes
while read -r name file cmds; do
	c=$name
	# Names of their own: a loop device of the case before may still be
	# letting go of its image.
	ours=$T_DIR/ours.$name.img
	theirs=$T_DIR/theirs.$name.img
	repair_case "$c" "$T_DIR/base.img" "$ours" "$theirs" "$file" "$cmds" ||
		continue
	o=$(count "$ours" "$file")
	check "$c: the kernel mounts ours" [ -n "$o" ]
	t=$(count "$theirs" "$file") || t=0
	o=${o:-0}
	printf '# %-22s %-8s %-6s %-6s %s\n' "$c" "exit $RC_FIX" "$o" "$t" \
		"$(grep -c '^fixed' "$T_DIR/ours.out")"
	check "$c: ours keeps at least as many attributes ($o against $t)" \
		[ "$o" -ge "$t" ]
	# (sf-pptr-value: the fork's one user attribute became the bad
	# parent pointer; there is no other to keep)
	[ "$t" = 0 ] && [ "$c" != sf-pptr-value ] &&
		check "$c: ours keeps some where xfs_repair kept none" [ "$o" -gt 0 ]
	rm -f "$ours" "$theirs"
done <<< "$CASES"

t_done
