#!/bin/bash
# xfsj-repair against xfs_repair (xfsprogs 6.13) on the fuzz corpus of
# check-fuzz.sh (lib/fuzz.sh: populated images, every field of every
# structure, fstests' verbs).  For each sampled case that
# `xfs_repair -n` detects, two copies of the damaged image:
#   ours:   xfsj-repair COPY
#   theirs: xfs_repair COPY
# Every case xfs_repair -n detects must end fixed: xfsj-repair exits 1,
# then xfs_repair -n and xfsj-repair -n are clean, a second xfsj-repair
# changes nothing (exit 0, same bytes), and the kernel mounts it and takes
# a short workload (files written and removed), after which xfs_repair -n
# is still clean.  The only other allowed end is a refusal (exit 8) that
# names a feature this version does not support.  Anything else fails:
# exit 4 (left uncorrected), exit 0 (a detection miss), exit 8 for any
# other reason ("cannot check" included), a crash or a hang.  Where both
# repairs leave a filesystem the kernel mounts, what each kept is
# measured: names kept anywhere (every path below the root, lost+found's
# included, names given back from parent pointers included; an entry of
# lost+found named by its inode number is not a kept name), extended
# attributes, and bytes of file content identical to the undamaged
# image's file of that path.  Ours must keep at least as much as
# xfs_repair on every count; where it keeps more, the case is printed.
#
#   REPAIR_FUZZ_SEED=s      the sample's seed (default 1: CI runs the same cases
#                           every time; another seed by hand)
#   REPAIR_FUZZ_CASES=n     cases drawn over all profiles (default 40); FUZZ_ALL=1:
#                           every one
#   REPAIR_FUZZ_PROFILES    populated profiles (default "4k 4k-normap 1k
#                           1k-normap": the sample is shared among them)
#   REPAIR_FUZZ_TARGETS=re  only targets whose name matches
#   REPAIR_FUZZ_JUDGED=n    the fewest detected (judged) cases a run may
#                           have (default 20; a run that judged fewer fails)
#   REPAIR_FUZZ_PAIRS=1     each case damages two structures: a field of an
#                           AG header or btree (agf, agi, agfl, bnobt, cntbt,
#                           inobt, finobt, rmapbt, refcountbt), drawn as the
#                           sample is, and a field of an inode, directory,
#                           attribute, bmbt or symlink block of the same
#                           profile, drawn with the seed: the AG stage and
#                           the inode stage of one repair meet (by hand)
#   XFSJ_KEEP=1             a failed case's damaged image is kept in /tmp
# By hand, all four profiles (REPAIR_FUZZ_PROFILES="4k 4k-normap 1k
# 1k-normap"): seeds 11 (110 cases), 12, 13 (200), 14 (150): 537 detected;
# three bugs found and fixed (a remote symlink's CRC, a wrong di_ino, a
# directory mapping over the AG headers); seeds 13 and 14 ran after them:
# 284 detected, all fixed, none keeping less than xfs_repair.
source "$(dirname "$0")/lib/common.sh"
source "$(dirname "$0")/lib/populate.sh"
source "$(dirname "$0")/lib/fuzz.sh"
source "$(dirname "$0")/lib/repaircase.sh"
need_root
export LC_ALL=C
oracle_613
REPAIR=${XFSJ_REPAIR:-$BUILD/xfsj-repair}
DB=$XFSPROGS613/xfs_db
ORACLE=$XFSPROGS613/xfs_repair
FUZZ_SEED=${REPAIR_FUZZ_SEED:-1}
FUZZ_CASES=${REPAIR_FUZZ_CASES:-40}
FUZZ_ALL=${FUZZ_ALL:-0}
FUZZ_PROFILES=${REPAIR_FUZZ_PROFILES:-4k 4k-normap 1k 1k-normap}
FUZZ_TARGETS=${REPAIR_FUZZ_TARGETS:-.}
JUDGED=${REPAIR_FUZZ_JUDGED:-20}
PAIRS=${REPAIR_FUZZ_PAIRS:-0}
VERBS="zeroes ones firstbit middlebit lastbit add sub"
echo "# repair-fuzz: seed $FUZZ_SEED, $([ "$FUZZ_ALL" = 1 ] && echo "every case" || echo "$FUZZ_CASES cases")$([ "$PAIRS" = 1 ] && echo " of two pieces of damage"), profiles $FUZZ_PROFILES, at least $JUDGED judged"

fuzz_corpus

# Pairs: the cases become the AG structures' (seeded, FUZZ_CASES of them
# unless FUZZ_ALL), each followed by a partner's five fields.
if [ "$PAIRS" = 1 ]; then
	agre='^(agf|agi|agfl|bnobt|cntbt|inobt|finobt|rmapbt|refcountbt)'
	awk -F'\t' -v re="$agre" '$2 ~ re' "$T_DIR/all" > "$T_DIR/all.ag"
	awk -F'\t' -v re="$agre" '$2 !~ re && $2 !~ /^sb/' "$T_DIR/all" > "$T_DIR/all.other"
	awk -F'\t' -v seed="$FUZZ_SEED" 'BEGIN { srand(seed) } { print rand() "\t" $0 }' \
		"$T_DIR/all.ag" | sort -k1,1 | cut -f2- |
		{ if [ "$FUZZ_ALL" = 1 ]; then cat; else head -n "$FUZZ_CASES"; fi; } > "$T_DIR/prim"
	awk -F'\t' -v seed="$FUZZ_SEED" 'BEGIN { srand(seed + 1) }
		FNR == NR { c[$1]++; o[$1, c[$1]] = $0; next }
		c[$1] { print $0 "\t" o[$1, int(rand() * c[$1]) + 1] }' \
		"$T_DIR/all.other" "$T_DIR/prim" | sort -s -t$'\t' -k1,1 > "$T_DIR/cases"
	echo "# pairs: $(wc -l < "$T_DIR/cases") of $(wc -l < "$T_DIR/all.ag") AG cases and $(wc -l < "$T_DIR/all.other") others"
fi

MNT=$T_DIR/mnt

# manifest IMG OUT: "md5 size path" of every regular file, and the counts
# "names lostfound xattrs" on the first line (names: every path below the
# root but lost+found itself and its entries named by an inode number;
# lostfound: its entries); returns 1 when the kernel does not mount IMG.
manifest() {
	local img=$1 out=$2 dev n l x
	dev=$(attach_loop "$img") || return 1
	if ! t_mount "$dev" "$MNT" ro,nouuid; then
		detach_loop "$dev"
		return 1
	fi
	n=$(kept_names "$MNT")
	l=0
	[ -d "$MNT/lost+found" ] && l=$(find "$MNT/lost+found" -mindepth 1 -maxdepth 1 2>/dev/null | wc -l)
	x=$(getfattr -R -d -m - --absolute-names "$MNT" 2>/dev/null | grep -c '=')
	echo "$n $l $x" > "$out"
	# "md5 size path" of every file, sorted by path (one md5sum run).
	(cd "$MNT" && find . -xdev -type f -printf '%s %p\n' 2>/dev/null) |
		sort -k2 > "$T_DIR/man.sizes"
	(cd "$MNT" && find . -xdev -type f -print0 2>/dev/null |
		xargs -0 -r md5sum 2>/dev/null) | sort -k2 |
		join -1 2 -2 2 -o 1.1,2.1,1.2 - "$T_DIR/man.sizes" >> "$out"
	t_umount "$MNT"
	detach_loop "$dev"
}

# same_bytes BASE OURS: bytes of the files identical to the base's file
# of the same path.
same_bytes() {
	join -1 3 -2 3 <(tail -n +2 "$1" | sort -k3) <(tail -n +2 "$2" | sort -k3) |
		awk '$2 == $4 { s += $3 } END { print s + 0 }'
}

# workload IMG: the kernel mounts it, writes and removes files; then
# xfs_repair -n must be clean.
workload() {
	local dev i
	dev=$(attach_loop "$1") || return 1
	if ! t_mount "$dev" "$MNT" nouuid; then
		detach_loop "$dev"
		return 1
	fi
	mkdir -p "$MNT/rf.work" &&
	for i in 1 2 3 4 5 6 7 8; do
		head -c $((i * 7000)) /dev/urandom > "$MNT/rf.work/f$i" || break
	done
	rm -f "$MNT/rf.work/f2" "$MNT/rf.work/f5"
	setfattr -n user.rf -v x "$MNT/rf.work/f1" 2>/dev/null
	t_umount "$MNT" || return 1
	detach_loop "$dev"
	"$ORACLE" -n "$1" > /dev/null 2>&1
}

for p in $FUZZ_PROFILES; do
	[ -e "$T_DIR/base.$p.img" ] || continue
	manifest "$T_DIR/base.$p.img" "$T_DIR/man.base.$p" ||
		not_ok "the kernel mounts the undamaged $p image"
done

i=0
: > "$T_DIR/results"
while IFS=$'\t' read -r p name nav f v _ name2 nav2 f2 v2; do
	i=$((i + 1))
	base=$T_DIR/base.$p.img
	img=$T_DIR/case.img
	cp --sparse=always "$base" "$img"
	read -r roff rlen < "$T_DIR/region.$p.$name"
	if ! fuzz_apply "$base" "$img" "$nav" "$f" "$v" "$roff" "$rlen"; then
		continue
	fi
	id="$p $name $f $v"
	if [ -n "$name2" ]; then
		read -r roff rlen < "$T_DIR/region.$p.$name2"
		fuzz_apply "$base" "$img" "$nav2" "$f2" "$v2" "$roff" "$rlen" ||
			continue
		id="$id + $name2 $f2 $v2"
	fi
	timeout 120 "$ORACLE" -n "$img" > /dev/null 2>&1
	[ $? = 1 ] || continue
	cp --sparse=always "$img" "$T_DIR/theirs.img"
	timeout 120 "$REPAIR" "$img" > "$T_DIR/ours.out" 2>&1
	rc=$?
	case $rc in
	1) ;;
	8)
		if grep -q 'features this version does not know\|unsupported feature' "$T_DIR/ours.out"; then
			printf '%s\trefused\n' "$id" >> "$T_DIR/results"
			echo "# $id: refused: $(grep -m1 'feature' "$T_DIR/ours.out" | cut -c1-160)"
			continue
		fi
		;&
	*)
		case $rc in
		0) r=missed ;;
		4) r=left ;;
		*) r=fail ;;
		esac
		printf '%s\t%s\n' "$id" "$r" >> "$T_DIR/results"
		not_ok "$id: xfsj-repair exit $rc ($r): $(grep -v '^found:\|^fixed:' "$T_DIR/ours.out" | tail -1 | cut -c1-200)"
		[ "${XFSJ_KEEP:-0}" = 1 ] && cp --sparse=always "$T_DIR/theirs.img" "/tmp/repair-fuzz-$r-${id// /_}.img"
		continue
		;;
	esac
	bad=""
	"$ORACLE" -n "$img" > "$T_DIR/o2.out" 2>&1 ||
		bad="xfs_repair -n finds: $(grep -v '^Phase\|^ *-\|^No modify\|host filesystem\|the image and' "$T_DIR/o2.out" | head -2 | tr '\n' ' ' | cut -c1-160)"
	[ -z "$bad" ] && { "$REPAIR" -n "$img" > "$T_DIR/n2.out" 2>&1 ||
		bad="xfsj-repair -n finds: $(grep -m1 -v 'log is clean\|checked' "$T_DIR/n2.out" | cut -c1-160)"; }
	if [ -z "$bad" ]; then
		sum=$(md5sum < "$img")
		"$REPAIR" "$img" > "$T_DIR/r2.out" 2>&1
		rc2=$?
		[ $rc2 = 0 ] && [ "$(md5sum < "$img")" = "$sum" ] ||
			bad="a second xfsj-repair exits $rc2 or changes bytes"
	fi
	if [ -z "$bad" ]; then
		cp --sparse=always "$img" "$T_DIR/work.img"
		workload "$T_DIR/work.img" || bad="the kernel's workload fails or xfs_repair -n finds something after it"
	fi
	if [ -n "$bad" ]; then
		printf '%s\tfail\n' "$id" >> "$T_DIR/results"
		not_ok "$id: fixed (exit 1) but $bad"
		grep -v '^found: ' "$T_DIR/r2.out" 2>/dev/null | head -4 | cut -c1-200 | sed 's/^/#   second run: /'
		[ "${XFSJ_KEEP:-0}" = 1 ] && cp --sparse=always "$T_DIR/theirs.img" "/tmp/repair-fuzz-fail-${id// /_}.img"
		continue
	fi
	printf '%s\tfixed\n' "$id" >> "$T_DIR/results"
	ok "$id: fixed, clean for both checkers, stable, mounts and takes a workload"
	# What each repair kept.
	timeout 300 "$ORACLE" "$T_DIR/theirs.img" > /dev/null 2>&1
	manifest "$img" "$T_DIR/man.ours" || { not_ok "$id: ours does not mount read-only"; continue; }
	if ! manifest "$T_DIR/theirs.img" "$T_DIR/man.theirs"; then
		echo "# $id: xfs_repair's result does not mount; ours does"
		continue
	fi
	read -r on ol ox < "$T_DIR/man.ours"
	read -r tn tl tx < "$T_DIR/man.theirs"
	ob=$(same_bytes "$T_DIR/man.base.$p" "$T_DIR/man.ours")
	tb=$(same_bytes "$T_DIR/man.base.$p" "$T_DIR/man.theirs")
	check "$id: keeps at least what xfs_repair keeps (names $on/$tn, xattrs $ox/$tx, identical bytes $ob/$tb)" \
		test "$on" -ge "$tn" -a "$ox" -ge "$tx" -a "$ob" -ge "$tb"
	if [ "$on" -gt "$tn" ] || [ "$ox" -gt "$tx" ] || [ "$ob" -gt "$tb" ] || [ "$ol" -lt "$tl" ]; then
		echo "# keeps more: $id: names $on vs $tn, lost+found $ol vs $tl, xattrs $ox vs $tx, identical bytes $ob vs $tb"
	fi
done < "$T_DIR/cases"

read -r ndet nfixed nleft nmiss nref nfail <<< "$(awk -F'\t' '{ n++; c[$2]++ }
	END { print n + 0, c["fixed"] + 0, c["left"] + 0, c["missed"] + 0, c["refused"] + 0, c["fail"] + 0 }' "$T_DIR/results")"
echo "# by structure (fixed/left/missed/refused/fail):"
awk -F'\t' '{ split($1, w, " "); s = w[2]; t[s]++; c[s, $2]++ }
	END { for (s in t) printf "#   %-16s %3d cases: %d/%d/%d/%d/%d\n", s, t[s], c[s, "fixed"], c[s, "left"], c[s, "missed"], c[s, "refused"], c[s, "fail"] }' "$T_DIR/results" | sort
echo "# left uncorrected:"
awk -F'\t' '$2 == "left" { print "#   " $1 }' "$T_DIR/results"
echo "# $ndet detected cases: fixed $nfixed, left $nleft, missed $nmiss, refused $nref, failed $nfail ($((SECONDS - t0)) s)"
check "at least $JUDGED cases judged ($ndet detected)" test "$ndet" -ge "$JUDGED"
check "every detected case fixed or refused for a feature ($nfixed fixed, $nref refused of $ndet; left $nleft, missed $nmiss, failed $nfail)" \
	test "$((nleft + nmiss + nfail))" -eq 0
t_done
