#!/bin/bash
# xfsj-repair fixes damaged AG headers and AG btrees (the AG stage:
# libjournal/repair/ag_rebuild.c).  On populated images (lib/populate.sh,
# profiles 4k and 4k-normap, a few cases on 1k), for a fixed list of fuzz
# cases on the AGF, AGI, AGFL and the bnobt, cntbt, inobt, rmapbt and refcountbt blocks
# (`xfs_db -x NAV -c "fuzz -d FIELD VERB"`, as fstests damages them), each
# case the oracle detects (`$XFSPROGS613/xfs_repair -n` exits 1; a case it
# finds clean is counted as skipped, not run) must be repaired:
#   - `xfsj-repair COPY` exits 0 or 1 (something fixed);
#   - afterwards `xfs_repair -n` and `xfsj-repair -n` both find it clean;
#   - a second `xfsj-repair COPY` exits 0 and leaves the bytes as they
#     were (a digest of the image's data);
#   - the kernel mounts it and takes a short workload (files written,
#     some removed, unmount), after which `xfs_repair -n` is still clean.
# Prints one TAP line per case and a summary with the counts; a run that
# judged (did not skip) fewer than REPAIR_AG_JUDGED cases (default 30 of
# the 40) fails.  (The
# mounts use nouuid: other tests may have a copy of the same populated
# image mounted.)
source "$(dirname "$0")/lib/common.sh"
source "$(dirname "$0")/lib/populate.sh"
need_root
oracle_613
REPAIR=${XFSJ_REPAIR:-$BUILD/xfsj-repair}
DB=$XFSPROGS613/xfs_db
ORACLE=$XFSPROGS613/xfs_repair
T_VERBOSE=1

# PROFILES:NAV|FIELD|VERB (NAV: xfs_db commands separated by ";";
# PROFILES "all" (4k and 4k-normap), "4k" where the case needs the
# rmapbt or refcountbt, "1k" for trees of more levels on 1 KiB blocks).
CASES="
all:agf 0|freeblks|add
4k:agf 0|longest|sub
all:agf 0|bnoroot|zeroes
4k:agf 0|cntroot|ones
4k:agf 0|bnolevel|firstbit
all:agf 1|cntlevel|add
4k:agf 1|flcount|add
4k:agf 2|btreeblks|ones
all:agfl 0|bno[1]|zeroes
4k:agi 1|count|add
all:agi 1|freecount|sub
all:agf 1;addr bnoroot|numrecs|add
4k:agf 0;addr bnoroot|recs[1].blockcount|sub
all:agf 1;addr cntroot|numrecs|sub
4k:agf 2;addr cntroot|magic|firstbit
all:agi 0;addr root|recs[2].freecount|sub
all:agi 0|root|add
all:agi 1|seqno|firstbit
4k:agi 0;addr root|numrecs|lastbit
all:agi 0;addr root|recs[4].holemask|add
4k:agf 0|rmaproot|zeroes
4k:agf 1;addr rmaproot|numrecs|sub
4k:agf 0;addr rmaproot|recs[3].owner|add
4k:agf 0|refcntroot|ones
4k:agf 2;addr refcntroot|numrecs|zeroes
1k:agf 1;addr bnoroot|numrecs|add
1k:agf 1;addr rmaproot|numrecs|sub
1k:agf 1|rmaplevel|sub
1k:agi 1;addr root;addr ptrs[1]|recs[3].freecount|add
"

SKIP=0
JUDGED=${REPAIR_AG_JUDGED:-30}
dbx() {	# IMG NAV FIELD VERB
	local img=$1 nav=$2 c cmds=()
	IFS=';' read -ra navs <<< "$nav"
	for c in "${navs[@]}"; do cmds+=(-c "$c"); done
	"$DB" -x "${cmds[@]}" -c "fuzz -d $3 $4" "$img" >/dev/null 2>&1
}

workload() {	# IMG
	local dev mnt=$T_DIR/mnt i
	dev=$(attach_loop "$1") || return 1
	t_mount "$dev" "$mnt" nouuid || { detach_loop "$dev"; return 1; }
	mkdir -p "$mnt/agtest" &&
	for i in 1 2 3 4 5 6 7 8; do
		head -c $((i * 37000)) /dev/zero > "$mnt/agtest/f$i" || break
	done &&
	rm -f "$mnt/agtest/f2" "$mnt/agtest/f5" "$mnt/frag/"*1 2>/dev/null
	sync
	t_umount "$mnt" && detach_loop "$dev"
}

one_case() {	# PROFILE BASE NAV FIELD VERB
	local prof=$1 base=$2 nav=$3 field=$4 verb=$5
	local img=$T_DIR/case.img name="$prof: $nav: $field $verb" rc sum1 sum2
	cp --sparse=always "$base" "$img"
	sum1=$(sparse_sum "$img")
	dbx "$img" "$nav" "$field" "$verb"
	if [ "$(sparse_sum "$img")" = "$sum1" ]; then
		echo "ok - $name # SKIP the fuzz changed nothing"; SKIP=$((SKIP + 1)); return
	fi
	timeout 60 "$ORACLE" -n "$img" >/dev/null 2>&1
	if [ $? -ne 1 ]; then
		echo "ok - $name # SKIP xfs_repair -n finds nothing"; SKIP=$((SKIP + 1)); return
	fi
	timeout 120 "$REPAIR" "$img" > "$T_DIR/out" 2>&1; rc=$?
	if [ $rc -gt 1 ]; then
		not_ok "$name: xfsj-repair exit $rc"; sed 's/^/#   /' "$T_DIR/out" | tail -5; return
	fi
	if ! timeout 60 "$ORACLE" -n "$img" > "$T_DIR/oracle" 2>&1; then
		not_ok "$name: xfs_repair -n after the repair"
		grep -v '^\s*- \|^Phase\|^No modify\|^        - ' "$T_DIR/oracle" | head -5 | sed 's/^/#   /'
		sed 's/^/#   /' "$T_DIR/out" | grep -v "^#   found" | head -8; return
	fi
	if ! timeout 60 "$REPAIR" -n "$img" > "$T_DIR/check" 2>&1; then
		not_ok "$name: xfsj-repair -n after the repair"; grep found "$T_DIR/check" | head -5 | sed 's/^/#   /'; return
	fi
	sum1=$(sparse_sum "$img")
	timeout 120 "$REPAIR" "$img" > "$T_DIR/out2" 2>&1; rc=$?
	sum2=$(sparse_sum "$img")
	if [ $rc -ne 0 ] || [ "$sum1" != "$sum2" ]; then
		not_ok "$name: second repair exit $rc, bytes $([ "$sum1" = "$sum2" ] && echo same || echo changed)"; return
	fi
	if ! workload "$img"; then
		not_ok "$name: the kernel's workload failed"; return
	fi
	if ! timeout 60 "$ORACLE" -n "$img" > "$T_DIR/oracle" 2>&1; then
		not_ok "$name: xfs_repair -n after the kernel's workload"
		grep -v '^\s*- \|^Phase\|^No modify' "$T_DIR/oracle" | head -5 | sed 's/^/#   /'; return
	fi
	ok "$name ($(grep -c '^fixed' "$T_DIR/out") fixes)"
}

for prof in 4k 4k-normap 1k; do
	base=$T_DIR/pop.$prof.img
	populate_image "$base" "$prof"
	while IFS='|' read -r nav field verb; do
		[ -z "$nav" ] && continue
		case ${nav%%:*} in
		all) [ "$prof" = 1k ] && continue ;;
		"$prof") ;;
		*) continue ;;
		esac
		nav=${nav#*:}
		one_case "$prof" "$base" "$nav" "$field" "$verb"
	done <<< "$CASES"
	rm -f "$base"
done
echo "# repair-ag: $T_PASS repaired, $T_FAIL failed, $SKIP skipped"
# (every case not skipped ended in exactly one ok or not_ok)
check "at least $JUDGED cases judged ($((T_PASS + T_FAIL)))" [ $((T_PASS + T_FAIL)) -ge "$JUDGED" ]
t_done
