#!/bin/bash
# xfsj-repair on damaged directories (FIX_SALVAGE_DIR, FIX_RECONNECT,
# FIX_PPTR): populated images (lib/populate.sh, profiles 4k with parent
# pointers and 4k-normap), each case one field of a directory fuzzed with
# xfs_db as fstests does: block headers (a data block's bestfree table
# too), entries' name lengths, tags and
# inode numbers, leaf and node headers, data blocks of leaf, node and
# btree-fork directories, short-form entries (a name length, an offset);
# the bmbt block of a btree-fork
# directory on a filesystem without rmapbt (its fork cannot be rebuilt: the
# entries come back from the children's parent pointers, where xfs_repair
# sends them all to lost+found).  For each case, on two copies of the
# damaged image (lib/repaircase.sh):
#   - xfs_repair -n (6.13) detects it;
#   - xfsj-repair fixes it (exit 1): then xfs_repair -n and xfsj-repair -n
#     are clean, a second xfsj-repair changes nothing (exit 0, same md5),
#     and the kernel mounts it and lists the directory;
#   - xfs_repair repairs the other copy; the entries of the damaged
#     directory and of lost+found are counted in each (the kernel lists
#     them) and printed, and the names kept anywhere (lib/repaircase.sh's
#     kept_names: lost+found's entries named by an inode number are not
#     kept names): ours must keep at least as many.
source "$(dirname "$0")/lib/common.sh"
source "$(dirname "$0")/lib/populate.sh"
source "$(dirname "$0")/lib/repaircase.sh"
need_root
oracle_613
REPAIR=${XFSJ_REPAIR:-$BUILD/xfsj-repair}
DB=$XFSPROGS613/xfs_db
ORACLE=$XFSPROGS613/xfs_repair
MNT=$T_DIR/mnt

# Leaf blocks start at directory offset 32 GiB: 4 KiB blocks.
LEAFDB=$((34359738368 / 4096))

# profile  name  directory  xfs_db commands (after `path DIR`), ';'-split
CASES="4k block-magic /dirs/block dblock 0;fuzz -d bhdr.hdr.magic zeroes
4k block-namelen /dirs/block dblock 0;fuzz -d bu[3].namelen ones
4k block-tag /dirs/block dblock 0;fuzz -d bu[5].tag ones
4k block-inumber /dirs/block dblock 0;fuzz -d bu[5].inumber ones
4k leaf-magic /dirs/leaf dblock $LEAFDB;fuzz -d lhdr.info.hdr.magic zeroes
4k leaf-count /dirs/leaf dblock $LEAFDB;fuzz -d lhdr.count add
4k leaf-data-magic /dirs/leaf dblock 1;fuzz -d dhdr.hdr.magic ones
4k leaf-data-namelen /dirs/leaf dblock 1;fuzz -d du[2].namelen ones
4k leaf-data-bestfree /dirs/leaf dblock 0;fuzz -d dhdr.bestfree[1].length sub
4k sf-namelen /dirs/sf fuzz -d u3.sfdir3.list[1].namelen ones
4k sf-offset /dirs/sf fuzz -d u3.sfdir3.list[2].offset zeroes
4k-normap block-inumber /dirs/block dblock 0;fuzz -d bu[5].inumber ones
4k node-magic /dirs/node dblock $LEAFDB;fuzz -d nhdr.info.hdr.magic zeroes
4k-normap node-data-namelen /dirs/node dblock 3;fuzz -d du[4].namelen ones
4k-normap btree-data-magic /dirs/btree dblock 2;fuzz -d dhdr.hdr.magic zeroes
4k-normap btree-bmbt-magic /dirs/btree addr u3.bmbt.ptrs[1];fuzz -d magic zeroes"

# count IMG DIR: "entries-of-DIR entries-of-lost+found listed names", the
# kernel listing them (listed: 0 when DIR is gone or cannot be listed, its
# entries then counted 0; names: kept_names); fails when the kernel does
# not mount IMG.
count() {
	local dev d=0 l=0 listed=0 n
	dev=$(attach_loop "$1") || return 1
	if ! t_mount "$dev" "$MNT" ro,nouuid; then
		detach_loop "$dev"
		return 1
	fi
	if ls -la "$MNT$2" > "$T_DIR/ls.out" 2>/dev/null; then
		listed=1
		d=$(tail -n +2 "$T_DIR/ls.out" | grep -vc ' \.\.\?$')
	fi
	[ -d "$MNT/lost+found" ] && l=$(ls -A "$MNT/lost+found" | wc -l)
	n=$(kept_names "$MNT")
	t_umount "$MNT"
	detach_loop "$dev"
	echo "$d $l $listed $n"
}

for p in 4k 4k-normap; do
	populate_image "$T_DIR/base.$p.img" "$p" ||
		{ not_ok "populate $p"; continue; }
done

printf '# %-28s %-10s %-14s %-14s %s\n' case "ours" "dir/l+f ours" "dir/l+f 6.13" fixes
while read -r p name dir cmds; do
	base=$T_DIR/base.$p.img
	[ -f "$base" ] || continue
	c="$p $name"
	ours=$T_DIR/ours.img
	theirs=$T_DIR/theirs.img
	repair_case "$c" "$base" "$ours" "$theirs" "$dir" "$cmds" || continue
	o=$(count "$ours" "$dir") || o="0 0 0 0"
	t=$(count "$theirs" "$dir") || t="0 0 0 0"
	read -r od ol olisted on <<< "$o"
	read -r td tl tlisted tn <<< "$t"
	check "$c: the kernel mounts ours and lists $dir" [ "$olisted" = 1 ]
	[ "$tlisted" = 1 ] || td="0 (gone)"
	printf '# %-28s %-10s %-14s %-14s %s\n' "$c" "exit $RC_FIX" "$od/$ol" "$td/$tl" \
		"$(grep -c '^fixed' "$T_DIR/ours.out")"
	check "$c: ours keeps at least as many names anywhere ($on against $tn; in $dir $od against $td)" \
		[ "$on" -ge "$tn" ]
done <<< "$CASES"

t_done
