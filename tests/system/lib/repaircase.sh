# shellcheck shell=bash
# One fuzz case of the repair tests (repair-attr.sh, repair-dir.sh,
# repair-dir2.sh): the steps they share.  Source it after lib/common.sh;
# the test sets DB (xfs_db), ORACLE (xfs_repair) and REPAIR (xfsj-repair).
#
#   repair_case CASE BASE OURS THEIRS PATH CMDS
#
# OURS is BASE with xfs_db's CMDS (';'-split) run after `path PATH`, and
# THEIRS a copy of it.  xfs_repair -n must detect the damage (else
# not_ok, and repair_case returns 1: the case ends there).  xfsj-repair
# repairs OURS (its output in $T_DIR/ours.out, its exit in RC_FIX): it
# must exit 1 (the last lines of its output shown when not), then
# xfs_repair -n and xfsj-repair -n pass it, and a second xfsj-repair
# exits 0 (RC_AGAIN) and changes nothing.  xfs_repair repairs THEIRS.
# The test then compares what each kept.
#
#   kept_names MNT        the names kept below the mounted root MNT
#   names_anywhere IMG    the same of IMG (mounted read-only), "-" when
#                         the kernel does not mount it
#
# A name kept is one anywhere in the tree: in place, given back from a
# parent pointer, or in lost+found (below an entry of it, too); an entry
# of lost+found named by its inode number is a name lost, not kept.

repair_case() {
	local c=$1 base=$2 ours=$3 theirs=$4 path=$5 cmds=$6
	local args=(-x -c "path $path") cl x m1 m2

	cp --sparse=always "$base" "$ours"
	IFS=';' read -ra cl <<< "$cmds"
	for x in "${cl[@]}"; do args+=(-c "$x"); done
	"$DB" "${args[@]}" "$ours" > "$T_DIR/db.out" 2>&1
	cp --sparse=always "$ours" "$theirs"
	if "$ORACLE" -n "$ours" > /dev/null 2>&1; then
		not_ok "$c: xfs_repair -n does not detect the damage"
		return 1
	fi
	"$REPAIR" "$ours" > "$T_DIR/ours.out" 2>&1
	RC_FIX=$?
	check "$c: xfsj-repair fixes it (exit $RC_FIX)" [ "$RC_FIX" = 1 ]
	[ "$RC_FIX" = 1 ] || tail -5 "$T_DIR/ours.out" | sed 's/^/#   /'
	check "$c: xfs_repair -n clean after" \
		_rc_quiet "$ORACLE" -n "$ours"
	check "$c: xfsj-repair -n clean after" _rc_quiet "$REPAIR" -n "$ours"
	m1=$(md5sum < "$ours")
	"$REPAIR" "$ours" > "$T_DIR/again.out" 2>&1
	RC_AGAIN=$?
	m2=$(md5sum < "$ours")
	check "$c: a second xfsj-repair changes nothing (exit $RC_AGAIN)" \
		[ "$RC_AGAIN.$m1" = "0.$m2" ]
	"$ORACLE" "$theirs" > /dev/null 2>&1
	return 0
}

_rc_quiet() { "$@" > /dev/null 2>&1; }

kept_names() {
	find "$1" -xdev -mindepth 1 -printf '%P\n' 2>/dev/null |
		grep -cvE '^lost\+found(/[0-9]+)?$'
}

names_anywhere() {
	local dev n=-
	dev=$(attach_loop "$1") || { echo -; return; }
	if t_mount "$dev" "$MNT" ro,nouuid; then
		n=$(kept_names "$MNT")
		t_umount "$MNT"
	fi
	detach_loop "$dev"
	echo "$n"
}
