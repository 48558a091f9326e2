#!/bin/bash
# xfsj-repair on large directories (issue 13): node and btree-fork
# directories of the populated images (lib/populate.sh: dirs/node 3000
# entries, dirs/btree 1200 long names), on 4 KiB blocks and on 1 KiB
# blocks (profile 1k: 4 KiB directory blocks of four filesystem blocks,
# dirblklog 2).  Each case fuzzes one field with xfs_db (fstests' way):
# a data block's header owner, an entry's file type (not a type;
# a type, but not the child's), an entry naming no inode, a leaf block's
# count, the free index's nvalid; an entry made to name directory
# dirs/sf (@SF@: its inode number), which then has two parents.  On two
# copies of the damaged image:
#   - xfs_repair -n (6.13) detects it;
#   - xfsj-repair fixes it (exit 1); xfs_repair -n and xfsj-repair -n are
#     clean after, a second xfsj-repair exits 0 and changes nothing, the
#     kernel mounts it (nouuid) and lists the directory;
#   - xfs_repair repairs the other copy; the names the kernel lists in
#     the damaged directory (not in lost+found) are counted in both and
#     printed (the "again" column: the second run's exit): ours keeps at
#     least as many.
source "$(dirname "$0")/lib/common.sh"
source "$(dirname "$0")/lib/populate.sh"
need_root
oracle_613
REPAIR=${XFSJ_REPAIR:-$BUILD/xfsj-repair}
DB=$XFSPROGS613/xfs_db
MNT=$T_DIR/mnt
# Its own redo file: the populated images share one UUID, which names the
# default one, with other tests running now.
REDO=(-r "$T_DIR/redo")

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
4k two-parents /dirs/block dblock 0;write -d bu[3].inumber @SF@"
: "$L4"

silent() { "$@" > /dev/null 2>&1; }

# listed IMG DIR: the names the kernel lists in DIR ("." and ".." left
# out), or "-" when it does not mount IMG or cannot list DIR.
listed() {
	local dev n=-
	dev=$(attach_loop "$1") || { echo -; return; }
	if t_mount "$dev" "$MNT" ro,nouuid; then
		silent ls -A "$MNT$2" && n=$(ls -A "$MNT$2" | wc -l)
		t_umount "$MNT"
	fi
	detach_loop "$dev"
	echo "$n"
}

for p in 4k 1k; do
	populate_image "$T_DIR/pop.$p.img" "$p" || not_ok "populate $p"
done

# damage SRC IMG DIR CMDS: IMG is SRC with xfs_db's CMDS run in DIR (one
# command a line on its input).
damage() {
	cp --sparse=always "$1" "$2" &&
		printf 'path %s\n%s\n' "$3" "${4//;/$'\n'}" | silent "$DB" -x "$2"
}

printf '# %-22s %-6s %-12s %s\n' case again "kept ours" "kept 6.13"
while read -r p name dir cmds; do
	[ -f "$T_DIR/pop.$p.img" ] || continue
	c="$p $name ($dir)"
	a=$T_DIR/a.img
	b=$T_DIR/b.img
	sf=$("$DB" -r -c "path /dirs/sf" -c "print v3.inumber" \
		"$T_DIR/pop.$p.img" | sed 's/.* = //')
	damage "$T_DIR/pop.$p.img" "$a" "$dir" "${cmds//@SF@/$sf}"
	cp --sparse=always "$a" "$b"
	if silent "$XFSPROGS613/xfs_repair" -n "$a"; then
		not_ok "$c: xfs_repair -n misses the damage"
		continue
	fi
	"$REPAIR" "${REDO[@]}" "$a" > "$T_DIR/out" 2>&1
	rc=$?
	check "$c: xfsj-repair fixes it (exit $rc)" [ "$rc" = 1 ]
	[ "$rc" = 1 ] || grep -v '^found' "$T_DIR/out" | tail -3 | sed 's/^/#   /'

	check "$c: xfs_repair -n is clean after" silent "$XFSPROGS613/xfs_repair" -n "$a"
	check "$c: xfsj-repair -n is clean after" silent "$REPAIR" "${REDO[@]}" -n "$a"
	sum=$(md5sum < "$a")
	"$REPAIR" "${REDO[@]}" "$a" > /dev/null 2>&1
	rc=$?
	check "$c: a second run changes nothing (exit $rc)" \
		[ "$rc:$sum" = "0:$(md5sum < "$a")" ]
	silent "$XFSPROGS613/xfs_repair" "$b"
	ours=$(listed "$a" "$dir")
	theirs=$(listed "$b" "$dir")
	printf '# %-22s %-6s %-12s %s\n' "$p $name" "$rc" "$ours" "$theirs"
	check "$c: the kernel mounts ours and lists $dir" [ "$ours" != - ]
	[ "$theirs" = - ] && theirs=0
	check "$c: ours keeps as many names in place ($ours, 6.13 $theirs)" \
		[ "${ours/-/0}" -ge "$theirs" ]
done <<< "$CASES"

t_done
