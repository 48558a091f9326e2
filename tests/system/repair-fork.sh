#!/bin/bash
# xfsj-repair rebuilds damaged fork mappings: a fixed list of cases on a
# populated image (lib/populate.sh), each damaged as fstests' fuzz tests
# do (`xfs_db -x -c "path P" [-c "addr BMBT-PTR"] -c "fuzz -d FIELD
# VERB"`), or cross-linked (an extent pointed at another file's blocks
# with `write -d`):
#   - an extent's length running over the next ones and other files'
#     blocks (files/extents), a bmbt leaf record's offset out of order
#     (files/sparse, a bmbt of several leaves; dirs/btree, a directory
#     whose data fork is a bmbt), a cross-link (files/extents onto
#     files/sparse's blocks), a leaf record pointed at its own leaf
#     (files/sparse), an attribute fork format no fork has;
#   - profile 4k (rmapbt: the mappings come back from it) and 4k-normap
#     (the fork's own sound records are kept, one out of place put back
#     where its neighbours leave just its room);
#   - a start block gone wrong (files/extents, add: into free space;
#     sub: into the log): the inode is blamed, not the free space, and
#     its fork mended (from the rmapbt on 4k);
#   - a directory's mapping moved onto the AG headers (dirs/btree,
#     4k-normap, a start block zeroed): the rebuild reads no block there
#     (a directory block over the superblock's sector made the repair
#     fail), its entries are found in the block where it really is;
#   - a start block's top bit set (files/extents, 4k-normap, beside an
#     AGI bucket decremented so that xfs_repair -n detects the case): the
#     kernel and xfs_repair read the AG number as 32 bits and so the
#     blocks where they were; the record is mended to them, not dropped
#     (dropping it lost 65 blocks of the file that xfs_repair keeps);
#   - profile 1k-normap (and 1k by hand): files/sparse is a bmbt two
#     levels below the root; a node's pointer (the leaf it named is found
#     again through its siblings' links) and a node's record count (its
#     sound entries are kept) damaged.
# For each case, on a copy of the image:
#   - `$XFSPROGS613/xfs_repair -n` detects the damage (exit 1: the list is
#     made of detected cases, so not detecting one fails);
#   - `xfsj-repair COPY` exits 1 (fixed), then `xfs_repair -n` and
#     `xfsj-repair -n` exit 0, a second `xfsj-repair` exits 0;
#   - the kernel mounts it (nouuid: populated images share a uuid);
#   - the bytes of the damaged file identical to the undamaged image's
#     (4 KiB pieces at the same offset; a directory: its entry names) are
#     at least what `xfs_repair` keeps on another copy (both printed).
#
#   REPAIR_FORK_PROFILES="4k 4k-normap 1k-normap"   the profiles run (1k
#                    too: the rmapbt rebuild of a two-level bmbt)
#   XFSJ_VERBOSE=1   print every passing check too
export LC_ALL=C
source "$(dirname "$0")/lib/common.sh"
source "$(dirname "$0")/lib/populate.sh"
need_root
oracle_613
DB=$XFSPROGS613/xfs_db
REPAIR=${XFSJ_REPAIR:-$BUILD/xfsj-repair}
MNT=$T_DIR/mnt
OURS=$T_DIR/ours.img
THEIRS=$T_DIR/theirs.img
REDO=$T_DIR/redo
PROFILES=${REPAIR_FORK_PROFILES:-4k 4k-normap 1k-normap}

# "PROFILES|PATH|NAVIGATION;...|COMMAND[|WANT]" lines; NAVIGATION after
# the path; COMMAND "xlink" points the first extent at files/sparse's
# first block; WANT, a pattern xfsj-repair's output must hold.
CASES="
4k 4k-normap|/files/extents||fuzz -d u3.bmx[1].blockcount add
4k 4k-normap|/files/sparse|addr u3.bmbt.ptrs[1]|fuzz -d recs[3].startoff middlebit
4k|/dirs/btree|addr u3.bmbt.ptrs[1]|fuzz -d recs[2].startoff middlebit
4k|/files/extents||xlink
4k-normap|/dirs/btree|addr u3.bmbt.ptrs[1]|fuzz -d recs[4].startoff firstbit
4k-normap|/files/sparse|addr u3.bmbt.ptrs[1]|fuzz -d recs[6].startblock lastbit
4k-normap|/files/sparse||fuzz -d core.aformat lastbit
4k|/files/extents||fuzz -d u3.bmx[0].startblock add|fork.ext_free: rebuilt .* from the rmapbt
4k-normap|/files/extents||fuzz -d u3.bmx[0].startblock add|fork.ext_free: rebuilt
4k|/files/extents||fuzz -d u3.bmx[0].startblock sub|fork.ext_meta: rebuilt .* from the rmapbt
1k 1k-normap|/files/sparse|addr u3.bmbt.ptrs[1]|fuzz -d ptrs[4] firstbit
1k-normap|/files/sparse|addr u3.bmbt.ptrs[1]|fuzz -d numrecs ones
4k-normap|/dirs/btree|addr u3.bmbt.ptrs[1]|fuzz -d recs[7].startblock zeroes|rebuilt directory [0-9]* from [0-9]* entries$
4k-normap|/files/extents|agi 0;fuzz -d unlinked[0] sub;path /files/extents|fuzz -d u3.bmx[3].startblock firstbit|of its [0-9]* records 0 dropped, 1 mended
"

# What a file of IMG at PATH holds into OUT: its bytes, or for a
# directory its sorted entry names; returns 1 when the kernel refuses IMG.
snapshot() {
	local img=$1 path=$2 out=$3 dev rc=0
	dev=$(attach_loop "$img") || return 1
	if t_mount "$dev" "$MNT" ro,nouuid; then
		if [ -d "$MNT$path" ]; then
			ls -a "$MNT$path" 2>/dev/null | sort > "$out"
		else
			cat "$MNT$path" > "$out" 2>/dev/null || : > "$out"
		fi
		t_umount "$MNT" || rc=1
	else
		rc=1
	fi
	detach_loop "$dev"
	return $rc
}

# same BASE FILE: bytes of FILE identical to BASE's (a directory's
# listing: the bytes of the names both hold).
same() {
	python3 - "$1" "$2" <<-'EOF'
	import sys
	a = open(sys.argv[1], 'rb').read()
	b = open(sys.argv[2], 'rb').read()
	if sys.argv[1].endswith('.dir'):
	    x = set(a.split(b'\n')) & set(b.split(b'\n'))
	    print(sum(len(n) + 1 for n in x if n))
	else:
	    n = 0
	    for o in range(0, min(len(a), len(b)), 4096):
	        if a[o:o + 4096] == b[o:o + 4096]:
	            n += len(a[o:o + 4096])
	    print(n)
	EOF
}

damage() {
	local img=$1 path=$2 nav=$3 cmd=$4 args=(-x -c "path $path") c blk
	if [ "$cmd" = xlink ]; then
		blk=$("$DB" -r -c "path /files/sparse" -c "addr u3.bmbt.ptrs[1]" \
			-c "print recs[1].startblock" "$img" | sed -n 's/^recs\[1\].startblock = //p')
		cmd="write -d u3.bmx[0].startblock $blk"
	fi
	IFS=';' read -ra navs <<< "$nav"
	for c in "${navs[@]}"; do args+=(-c "$c"); done
	"$DB" "${args[@]}" -c "$cmd" "$img" > /dev/null 2>&1
}

NCASES=0
for profile in $PROFILES; do
	BASE=$T_DIR/base.$profile.img
	populate_image "$BASE" "$profile" || exit 1
	while IFS='|' read -r profs path nav cmd want; do
		[ -n "$profs" ] || continue
		case " $profs " in *" $profile "*) ;; *) continue ;; esac
		what="$profile $path ${nav:+$nav; }$cmd"
		NCASES=$((NCASES + 1))
		ext=bin
		[ "$path" = /dirs/btree ] && ext=dir
		snapshot "$BASE" "$path" "$T_DIR/want.$ext" || {
			not_ok "$what: the kernel refuses the undamaged image"
			continue
		}
		cp --sparse=always "$BASE" "$OURS"
		damage "$OURS" "$path" "$nav" "$cmd"
		cp --sparse=always "$OURS" "$THEIRS"
		fails=()
		"$XFSPROGS613/xfs_repair" -n "$OURS" > /dev/null 2>&1
		[ $? -eq 1 ] || fails+=("xfs_repair -n does not detect it")
		timeout 60 "$REPAIR" -r "$REDO" "$OURS" > "$T_DIR/repair.out" 2>&1
		rc=$?
		[ $rc -eq 1 ] || fails+=("xfsj-repair exit $rc")
		"$XFSPROGS613/xfs_repair" -n "$OURS" > /dev/null 2>&1 ||
			fails+=("xfs_repair -n after exit $?")
		timeout 60 "$REPAIR" -n "$OURS" > "$T_DIR/check.out" 2>&1 ||
			fails+=("xfsj-repair -n after exit $?")
		timeout 60 "$REPAIR" -r "$REDO" "$OURS" > /dev/null 2>&1 ||
			fails+=("second xfsj-repair exit $?")
		ours=0 theirs=0
		if snapshot "$OURS" "$path" "$T_DIR/ours.$ext"; then
			ours=$(same "$T_DIR/want.$ext" "$T_DIR/ours.$ext")
		else
			fails+=("the kernel refuses it")
		fi
		"$XFSPROGS613/xfs_repair" "$THEIRS" > /dev/null 2>&1
		snapshot "$THEIRS" "$path" "$T_DIR/theirs.$ext" &&
			theirs=$(same "$T_DIR/want.$ext" "$T_DIR/theirs.$ext")
		echo "# $what: identical bytes: xfsj-repair $ours, xfs_repair $theirs (of $(stat -c %s "$T_DIR/want.$ext"))"
		[ "$ours" -ge "$theirs" ] ||
			fails+=("keeps $ours identical bytes, xfs_repair $theirs")
		grep -q "rebuilt the\|cleared the attr fork" "$T_DIR/repair.out" ||
			fails+=("no fork rebuilt")
		[ -z "$want" ] || grep -q "$want" "$T_DIR/repair.out" ||
			fails+=("no '$want' in the repair's output")
		if [ ${#fails[@]} -eq 0 ]; then
			ok "$what"
		else
			not_ok "$what: $(IFS=';'; echo "${fails[*]}")"
			grep -v "^found:\|log is clean" "$T_DIR/repair.out" | head -6 | sed 's/^/#   /'
			grep -v "log is clean" "$T_DIR/check.out" | head -4 | sed 's/^/#   /'
		fi
	done <<< "$CASES"
done
echo "# repair-fork: $NCASES cases"
t_done
