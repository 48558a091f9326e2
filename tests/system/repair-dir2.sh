#!/bin/bash
# xfsj-repair on large directories (issue 13): node and btree-fork
# directories of the populated images (lib/populate.sh: dirs/node 3000
# entries, dirs/btree 1200 long names), on 4 KiB blocks and on 1 KiB
# blocks (profile 1k: 4 KiB directory blocks of four filesystem blocks,
# dirblklog 2), and a directory the kernel fills (profile big: /big,
# 260,000 names of 40 characters, hard links of one file: two node
# levels and two free index blocks, which the rebuild writes again).
# Each case fuzzes one field with xfs_db (fstests' way):
# a data block's header owner, an entry's file type (not a type;
# a type, but not the child's), an entry naming no inode, a leaf block's
# count, the free index's nvalid; an entry (of a block directory, of a
# node directory: removed by a rebuild) made to name directory
# dirs/sf (@SF@: its inode number), which then has two parents; a
# short-form entry's file type (a type, but not the child's); in /big
# a hash of a node below the root (@NODE@: the root's first child) and
# the second free index block's firstdb.  On two copies of the damaged image (lib/repaircase.sh):
#   - xfs_repair -n (6.13) detects it;
#   - xfsj-repair fixes it (exit 1); xfs_repair -n and xfsj-repair -n are
#     clean after, a second xfsj-repair exits 0 and changes nothing, the
#     kernel mounts it and lists the directory (and finds its last name);
#   - xfs_repair repairs the other copy; the names the kernel lists in
#     the damaged directory (not in lost+found) and the names kept
#     anywhere (lib/repaircase.sh's kept_names: lost+found's entries
#     named by an inode number are not kept names) are counted in both
#     and printed (the "again" column: the second run's exit): ours keeps
#     at least as many names anywhere, and every one of /big in place.
source "$(dirname "$0")/lib/common.sh"
source "$(dirname "$0")/lib/populate.sh"
source "$(dirname "$0")/lib/repaircase.sh"
need_root
oracle_613
REPAIR=${XFSJ_REPAIR:-$BUILD/xfsj-repair}
DB=$XFSPROGS613/xfs_db
ORACLE=$XFSPROGS613/xfs_repair
MNT=$T_DIR/mnt
NBIG=260000

# Leaf and free index spaces start at directory offsets 32 and 64 GiB;
# xfs_db's dblock counts filesystem blocks.
space() { echo $(($1 * 34359738368 / $2)); }
L4=$(space 1 4096)
F4=$(space 2 4096)
L1=$(space 1 1024)
F1=$(space 2 1024)

# profile  name  directory  commands after `path DIR` (';'-split)
CASES="1k owner /dirs/node dblock 0;fuzz -d dhdr.hdr.owner ones
1k ftype-bad /dirs/node dblock 0;fuzz -d du[3].filetype ones
4k ftype-wrong /dirs/node dblock 2;fuzz -d du[9].filetype zeroes
1k target /dirs/node dblock 0;fuzz -d du[5].inumber sub
1k leaf-count /dirs/node dblock $((L1 + 4));fuzz -d lhdr.count add
4k free-nvalid /dirs/node dblock $F4;fuzz -d fhdr.nvalid add
1k free-nvalid /dirs/node dblock $F1;fuzz -d fhdr.nvalid add
4k btree-target /dirs/btree dblock 1;fuzz -d du[3].inumber sub
4k two-parents /dirs/block dblock 0;write -d bu[3].inumber @SF@
4k node-two-parents /dirs/node dblock 0;write -d du[3].inumber @SF@
4k sf-ftype-wrong /dirs/sf write -d u3.sfdir3.list[1].filetype 2
big node-hash /big dblock @NODE@;fuzz -d nbtree[5].hashval ones
big free2-firstdb /big dblock $((F4 + 1));fuzz -d fhdr.firstdb add"

silent() { "$@" > /dev/null 2>&1; }

# listed IMG DIR [NAME]: the names the kernel lists in DIR ("." and ".."
# left out), or "-" when it does not mount IMG, cannot list DIR or does
# not find DIR/NAME.
listed() {
	local dev n=-
	dev=$(attach_loop "$1") || { echo -; return; }
	if t_mount "$dev" "$MNT" ro,nouuid; then
		silent ls -A "$MNT$2" && [ -e "$MNT$2/${3:-.}" ] &&
			n=$(ls -A "$MNT$2" | wc -l)
		t_umount "$MNT"
	fi
	detach_loop "$dev"
	echo "$n"
}

# big_image IMG: /big filled by the kernel with NBIG hard links named
# f000...0N (40 characters), on a 1 GiB filesystem of mkfs.xfs 6.13.
big_image() {
	local dev rc=1
	truncate -s 1g "$1" && silent "$XFSPROGS613/mkfs.xfs" -f "$1" &&
		dev=$(attach_loop "$1") || return 1
	if t_mount "$dev" "$MNT"; then
		mkdir "$MNT/big" && perl -e '
			my ($d, $n) = @ARGV;
			my $first = sprintf("%s/f%039d", $d, 0);
			open(my $fh, ">", $first) or exit 1;
			close($fh);
			for my $i (1 .. $n - 1) {
				link($first, sprintf("%s/f%039d", $d, $i)) or exit 1;
			}' "$MNT/big" "$NBIG" && rc=0
		t_umount "$MNT"
	fi
	detach_loop "$dev"
	return $rc
}

for p in 4k 1k; do
	populate_image "$T_DIR/pop.$p.img" "$p" || not_ok "populate $p"
done
big_image "$T_DIR/pop.big.img" || not_ok "the kernel fills /big"
LAST=$(printf 'f%039d' $((NBIG - 1)))

printf '# %-22s %-6s %-12s %s\n' case again "ours in/any" "6.13 in/any"
while read -r p name dir cmds; do
	[ -f "$T_DIR/pop.$p.img" ] || continue
	c="$p $name ($dir)"
	case $cmds in
	*@SF@*)
		sf=$("$DB" -r -c "path /dirs/sf" -c "print v3.inumber" \
			"$T_DIR/pop.$p.img" | sed 's/.* = //')
		cmds=${cmds//@SF@/$sf} ;;
	*@NODE@*)
		node=$("$DB" -r -c "path $dir" -c "dblock $L4" \
			-c "print nbtree[0].before" "$T_DIR/pop.$p.img" |
			sed 's/.* = //')
		cmds=${cmds//@NODE@/$node} ;;
	esac
	a=$T_DIR/a.img
	b=$T_DIR/b.img
	repair_case "$c" "$T_DIR/pop.$p.img" "$a" "$b" "$dir" "$cmds" ||
		continue
	last=
	[ "$p" = big ] && last=$LAST
	ours=$(listed "$a" "$dir" "$last")
	theirs=$(listed "$b" "$dir")
	oa=$(names_anywhere "$a")
	ta=$(names_anywhere "$b")
	printf '# %-22s %-6s %-12s %s\n' "$p $name" "$RC_AGAIN" "$ours/$oa" "$theirs/$ta"
	check "$c: the kernel mounts ours and lists $dir" [ "$ours" != - ]
	[ "$ta" = - ] && ta=0
	check "$c: ours keeps as many names anywhere ($oa, 6.13 $ta; in $dir $ours, 6.13 $theirs)" \
		[ "${oa/-/0}" -ge "$ta" ]
	if [ "$p" = big ]; then
		check "$c: ours keeps every name ($ours of $NBIG)" \
			[ "$ours" = "$NBIG" ]
		lv=$("$DB" -r -c "path $dir" -c "dblock $L4" \
			-c "print nhdr.level" "$a" | sed 's/.* = //')
		check "$c: ours has two node levels (root level $lv)" \
			[ "$lv" = 2 ]
	fi
done <<< "$CASES"

t_done
