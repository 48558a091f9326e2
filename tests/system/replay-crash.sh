#!/bin/bash
# The crash suite: crash images made the way the kernel makes them (mount,
# random seeded workload, `shutdown -f` while it runs, unmount), replayed
# twice: copy A by xfsj-repair, copy B by the kernel (mount, unmount).
# Every case xfsj-repair replays must end identical (names, inode
# numbers, types, modes, owners, sizes, link counts, xattrs, contents,
# FIEMAP extents, free block and inode counts, every field of the
# reachable inodes' cores but their LSN and CRC, the superblock and AG
# free space and inode counters as xfs_db prints them), xfs_repair -n (6.13) must
# report nothing on A that it does not on B, and a second run on A must
# find a clean log.  That includes the cases whose log leaves work in the
# allocation groups (pending EFI/RUI/CUI intents, unlinked inodes, CoW
# staging extents), which xfsj-repair finishes as the kernel does at
# mount; the "free" workload (deletes, truncates, punches, reflinks,
# open-unlinked files, on filesystems with and without rmapbt) makes
# them.  Cases whose work this version cannot finish yet must be refused
# (exit 4) without a byte written.  The "inode"
# workload (creates, renames and links across directories with parent
# pointers, xattrs up to 64 KiB, reflinked copies written to,
# exchangerange) runs on the default profiles for the inode-level
# intents (ATTRI, BUI, XMI).  The "grown" profile is grown by xfs_growfs
# just before its workload: the log holds the new geometry, which the
# replay must follow (new AGs' counters and work).  Then replays
# killed at random points and run again must give the same bytes as an
# uninterrupted replay (a kill that comes after the run ended is made
# again, the run slowed down, so that each one interrupts a replay).
# The counts of cases wanted are met by making more images until they
# are (at most MAXTRIES), never by hoping a workload made them.
#
#   CASES=n (matched cases wanted, default 16, across every profile)
#   FREE_CASES=n (of which with finished AG work, default 11)
#   INODE_CASES=n (of which with BUI, ATTRI or XMI intents finished,
#   default 2: a third took up to 12 more images, 2 minutes of CI; 3 or
#   more by hand)
#   SEED=s  KILLS=n (default 6)
#   FSR_CASES=n (default 1): cases whose log holds owner changes, made
#   first by xfs_fsr on a filesystem without rmapbt (extent swaps whose
#   btree forks change owner; up to six tries each);
#   where the kernel's recovery fails on them, ours must mount and be
#   clean for xfs_repair -n
#   STD_MODES="m ..." (workload modes of the profile cases, default
#   "inode safe inode full"), PROFILES="p ..." (their profiles)
source "$(dirname "$0")/lib/common.sh"
source "$(dirname "$0")/lib/crashgen.sh"
source "$(dirname "$0")/lib/treedump.sh"
source "$(dirname "$0")/lib/checker.sh"
need_root
oracle_613
REPAIR=${XFSJ_REPAIR:-$BUILD/xfsj-repair}
CASES=${CASES:-16}
SEED=${SEED:-$(( $(date +%s) % 100000 ))}
KILLS=${KILLS:-6}
FREE_CASES=${FREE_CASES:-11}
INODE_CASES=${INODE_CASES:-2}
FSR_CASES=${FSR_CASES:-1}
MAXTRIES=$(((CASES + FREE_CASES + 4 * INODE_CASES + 6 * FSR_CASES) * 3))
echo "# replay-crash: seed $SEED, $CASES matched cases wanted, $FREE_CASES with AG work finished, $INODE_CASES with inode-level intents finished"

sum() { md5sum < "$1" | cut -d' ' -f1; }

# meta_digest IMG DUMP SINCE: the on-disk cores of the inodes DUMP lists
# (all but di_lsn and di_crc, which depend on where each log's head was)
# and the superblock and AG counters, as xfs_db (6.13) prints them.  A
# timestamp at or after SINCE (seconds: when the crash image was made)
# was set by the replay itself (the kernel stamps the time it finishes
# some leftover work with): it is shown as such, not as the time, which
# differs between two replays run seconds apart.
meta_digest() {
	local img=$1 dump=$2 since=$3 agc a args=()
	agc=$("$XFSPROGS613/xfs_db" -r -c "sb 0" -c "print agcount" "$img" | awk '{ print $3 }')
	args=(-c "sb 0" -c "print icount ifree fdblocks")
	for ((a = 0; a < ${agc:-0}; a++)); do
		args+=(-c "agf $a" -c "print freeblks longest flcount btreeblks"
		       -c "agi $a" -c "print count freecount")
	done
	while read -r ino; do
		args+=(-c "inode $ino" -c "print core")
	done < <(awk -F' [|] ' '{ split($2, m, " "); print m[1] }' "$dump" | sort -un)
	"$XFSPROGS613/xfs_db" -r "${args[@]}" "$img" 2>&1 |
		grep -v -e '^core\.lsn' -e '^core\.crc' > "$T_DIR/meta.raw"
	# "core.ctime.sec = Fri Nov 27 01:33:30 2026": each as seconds, in order
	{
		echo "seconds"	# never empty: awk tells the two files apart
		sed -n 's/^core\.[a-z]*time\.sec = //p' "$T_DIR/meta.raw" |
			date -u -f - +%s 2>/dev/null
	} > "$T_DIR/meta.secs"
	awk -v since="$since" '
		NR == FNR { if (FNR > 1) secs[++n] = $1; next }
		/^core\.[a-z]*time\.sec = / && secs[++k] + 0 >= since + 0 {
			f = $1; sub(/\.sec$/, "", f)
			print f " = set by the replay"; skip = f ".nsec"; next
		}
		skip != "" && $1 == skip { skip = ""; next }
		{ skip = ""; print }' "$T_DIR/meta.secs" "$T_DIR/meta.raw"
}

# The work xfsj-repair reports having finished, as one number.
finished_work() {
	sed -n 's/^finished \([0-9]*\) EFI, \([0-9]*\) RUI, \([0-9]*\) CUI, \([0-9]*\) BUI, \([0-9]*\) ATTRI and \([0-9]*\) XMI.*; \([0-9]*\) unlinked inodes.*; \([0-9]*\) CoW.*/\1 \2 \3 \4 \5 \6 \7 \8/p' |
		awk '{ print $1 + $2 + $3 + $4 + $5 + $6 + $7 + $8 }'
}

read -r -a profiles <<< "${PROFILES:-noparent defaults bs1k normap smalllog mkfsxfs isize1k grown mkfs61 logsu}"
free_profiles=(noparent mkfsxfs noparent_normap noparent_bs1k grown mkfs61)
# Where the other goals are met and too few cases had inode-level
# intents to finish, more "inode" cases on these.
inode_profiles=(defaults bs1k isize1k)
matched=0 refused=0 tries=0 finished=0 nfree=0 nstd=0 nino=0 kfailed=0 iintents=0 nowner=0 nfsr=0
# More fsr cases while too few logs held owner changes (six tries each).
fsr_wanted() { [ $nowner -lt "$FSR_CASES" ] && [ $nfsr -lt $((6 * FSR_CASES)) ]; }
replayed_imgs=() inode_imgs=()
declare -A ntype=([BUI]=0 [ATTRI]=0 [XMI]=0)
while { [ $matched -lt "$CASES" ] || [ $finished -lt "$FREE_CASES" ] ||
	[ $iintents -lt "$INODE_CASES" ] || fsr_wanted; } &&
	[ $tries -lt $MAXTRIES ]; do
	seed=$((SEED + tries))
	if fsr_wanted; then
		# First, extent swaps by xfs_fsr without rmapbt (DOWNER).
		profile=noparent_normap
		mode=fsr
		nfsr=$((nfsr + 1))
	elif [ $finished -lt "$FREE_CASES" ] &&
	   { [ $((tries % 3)) -ne 0 ] || [ $matched -ge "$CASES" ]; }; then
		profile=${free_profiles[nfree % ${#free_profiles[@]}]}
		mode=free
		nfree=$((nfree + 1))
	elif [ $matched -ge "$CASES" ] && [ $finished -ge "$FREE_CASES" ]; then
		profile=${inode_profiles[nino % ${#inode_profiles[@]}]}
		mode=inode
		nino=$((nino + 1))
	else
		profile=${profiles[nstd % ${#profiles[@]}]}
		read -r -a modes <<< "${STD_MODES:-inode safe inode full}"
		mode=${modes[(nstd + nstd / ${#profiles[@]}) % ${#modes[@]}]}
		nstd=$((nstd + 1))
	fi
	tries=$((tries + 1))
	name="case seed=$seed $profile $mode"
	img=$T_DIR/crash.img
	if ! crash_image "$img" "$seed" "$profile" "$mode" 2>"$T_DIR/gen.err"; then
		not_ok "$name: could not make the crash image ($(head -c 200 "$T_DIR/gen.err"))"
		continue
	fi
	since=$(date +%s)
	cp --sparse=always "$img" "$T_DIR/A.img"
	cp --sparse=always "$img" "$T_DIR/B.img"

	before=$(sum "$T_DIR/A.img")
	out=$("$REPAIR" -n "$T_DIR/A.img" 2>&1)
	nrc=$?
	check "$name: -n writes nothing" test "$before" = "$(sum "$T_DIR/A.img")"
	out=$("$REPAIR" --replay-only "$T_DIR/A.img" 2>&1)
	rc=$?
	if [ $rc -eq 4 ]; then
		check "$name: leftover work refused (-n said $nrc)" test $nrc -eq 4
		check "$name: refused, naming what it cannot finish" \
			grep -q "this version cannot finish" <<<"$out"
		check "$name: refused without a byte written" test "$before" = "$(sum "$T_DIR/A.img")"
		refused=$((refused + 1))
		continue
	fi
	if [ $rc -ne 0 ]; then
		not_ok "$name: xfsj-repair exit $rc: $(echo "$out" | tail -2)"
		[ "${XFSJ_KEEP:-0}" = 1 ] && cp --sparse=always "$img" "$T_DIR/failed-$seed.img"
		continue
	fi
	# -n: 2 when the replayed filesystem checks clean, 1 when the check
	# finds problems in it (check-dirty.sh holds those to xfs_repair -n
	# on the kernel's replay), 0 for a clean log.
	check "$name: -n exit status tells dirty ($nrc)" test $nrc -eq 2 -o $nrc -eq 1 -o $nrc -eq 0
	work=$(finished_work <<<"$out")
	iint=0
	for t in BUI ATTRI XMI; do
		if grep -q "^finished .* [1-9][0-9]* $t" <<<"$out"; then
			ntype[$t]=$((ntype[$t] + 1))
			iint=1
		fi
	done
	grep -q "^owner changes" <<<"$out" && nowner=$((nowner + 1))
	if [ "${work:-0}" -gt 0 ]; then
		finished=$((finished + 1))
		name="$name (finished: $(grep '^finished' <<<"$out" | cut -c1-160))"
	fi
	out=$("$REPAIR" --replay-only "$T_DIR/A.img" 2>&1)
	check "$name: second run finds a clean log" grep -q "log is clean" <<<"$out"
	check "$name: xfs_logprint 6.13 sees a clean log" \
		grep -q "<CLEAN>" <("$XFSPROGS613/xfs_logprint" -t "$T_DIR/A.img" 2>/dev/null | head -8)
	if ! kernel_replay "$T_DIR/B.img"; then
		# The kernel's own recovery can fail (a corrupt unlinked list
		# after heavy xattr work, for one): then ours must still have
		# finished what it could and left a filesystem that mounts.
		check "$name: the kernel's recovery failed; ours mounts" \
			dump_image "$T_DIR/A.img" "$T_DIR/A.dump"
		# Where the log itself is sound (extent swaps), ours must also
		# be clean for xfs_repair -n.
		if [ "$mode" = fsr ]; then
			extra=$(repair_findings "$T_DIR/A.img")
			check "$name: the kernel's recovery failed; xfs_repair -n finds nothing on ours${extra:+: $(echo "$extra" | head -3 | tr '\n' ' ')}" \
				test -z "$extra"
		fi
		dmesg | grep -m1 -o 'Metadata corruption detected at [^ ]*\( [^ ]*\)\{0,3\}' | tail -1 |
			sed "s/^/# kernel: /"
		kfailed=$((kfailed + 1))
		continue
	fi
	if ! dump_image "$T_DIR/A.img" "$T_DIR/A.dump"; then
		not_ok "$name: copy A does not mount after xfsj-repair"
		dmesg | tail -3 | sed 's/^/#  /'
		continue
	fi
	dump_image "$T_DIR/B.img" "$T_DIR/B.dump"
	if diff -q "$T_DIR/A.dump" "$T_DIR/B.dump" >/dev/null; then
		ok "$name: same tree as the kernel's replay ($(wc -l < "$T_DIR/A.dump") entries)"
	else
		not_ok "$name: trees differ"
		diff "$T_DIR/A.dump" "$T_DIR/B.dump" | head -6 | cut -c1-200 | sed 's/^/#  /'
		[ "${XFSJ_KEEP:-0}" = 1 ] && cp --sparse=always "$img" "$T_DIR/failed-$seed.img"
	fi
	meta_digest "$T_DIR/A.img" "$T_DIR/A.dump" "$since" > "$T_DIR/A.meta"
	meta_digest "$T_DIR/B.img" "$T_DIR/A.dump" "$since" > "$T_DIR/B.meta"
	if cmp -s "$T_DIR/A.meta" "$T_DIR/B.meta" && [ -s "$T_DIR/A.meta" ]; then
		ok "$name: same inode cores and AG counters as the kernel's replay"
	else
		not_ok "$name: inode cores or AG counters differ"
		diff "$T_DIR/A.meta" "$T_DIR/B.meta" | head -6 | sed 's/^/#  /'
		[ "${XFSJ_KEEP:-0}" = 1 ] && cp --sparse=always "$img" "$T_DIR/failed-$seed.img"
	fi
	extra=$(comm -23 <(repair_findings "$T_DIR/A.img") <(repair_findings "$T_DIR/B.img"))
	if [ -z "$extra" ]; then
		ok "$name: xfs_repair -n finds nothing more than on the kernel's replay"
	else
		not_ok "$name: xfs_repair -n on our replay: $(echo "$extra" | head -3 | tr '\n' ' ')"
	fi
	matched=$((matched + 1))
	iintents=$((iintents + iint))
	# And up to three with inode-level intents finished.
	if [ $iint = 1 ] && [ ${#inode_imgs[@]} -lt 3 ]; then
		cp --sparse=always "$img" "$T_DIR/ikeep${#inode_imgs[@]}.img"
		inode_imgs+=("$T_DIR/ikeep${#inode_imgs[@]}.img")
	fi
	# Keep a few replayable images for the interruption test: one with
	# a plain replay, the others with work to finish after it.
	if [ ${#replayed_imgs[@]} -lt 4 ] &&
	   { [ "${work:-0}" -gt 0 ] || [ ${#replayed_imgs[@]} -eq 0 ]; }; then
		cp --sparse=always "$img" "$T_DIR/keep${#replayed_imgs[@]}.img"
		replayed_imgs+=("$T_DIR/keep${#replayed_imgs[@]}.img")
	fi
done
echo "# $matched matched ($finished with work finished, $iintents of them with inode-level intents: ${ntype[BUI]} with BUI, ${ntype[ATTRI]} with ATTRI, ${ntype[XMI]} with XMI), $refused refused as not finishable yet, $kfailed where the kernel's own recovery failed, $nowner with owner changes replayed, $tries images"
check "at least $CASES cases replayed and compared ($matched)" test $matched -ge "$CASES"
check "at least $FREE_CASES cases with AG work finished and compared ($finished)" \
	test $finished -ge "$FREE_CASES"
check "at least $INODE_CASES cases with BUI, ATTRI or XMI intents finished and compared ($iintents)" \
	test $iintents -ge "$INODE_CASES"
check "at least $FSR_CASES cases with owner changes replayed ($nowner)" \
	test $nowner -ge "$FSR_CASES"

# Interruption: kill -9 at a random point, run again, compare bytes;
# the images with inode-level intents first.
replayed_imgs=("${inode_imgs[@]}" "${replayed_imgs[@]}")
k=0
for ((i = 0; i < KILLS && ${#replayed_imgs[@]} > 0; i++)); do
	src=${replayed_imgs[i % ${#replayed_imgs[@]}]}
	cp --sparse=always "$src" "$T_DIR/ref.img"
	"$REPAIR" --replay-only -r "$T_DIR/ref.redo" "$T_DIR/ref.img" >/dev/null 2>&1
	# Killed at a random point of its first 0.6 s; when the run ended
	# before the kill, again with slower writing (up to 3 times).
	for delay in 2000 8000 32000; do
		cp --sparse=always "$src" "$T_DIR/int.img"
		rm -f "$T_DIR/int.redo"
		XFSJ_REPAIR_TEST_DELAY_US=$delay "$REPAIR" --replay-only -r "$T_DIR/int.redo" "$T_DIR/int.img" >/dev/null 2>&1 &
		pid=$!
		sleep "$(awk -v r="$RANDOM" 'BEGIN { printf "%.3f", (1 + r % 600) / 1000 }')"
		kill -9 "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
		krc=$?
		[ $krc -eq 137 ] && break
	done
	check "replay $i killed before it ended (exit $krc)" test $krc -eq 137
	"$REPAIR" --replay-only -r "$T_DIR/int.redo" "$T_DIR/int.img" >/dev/null 2>&1
	rc=$?
	check "interrupted replay $i (exit $rc) gives the same bytes" \
		test "$(sum "$T_DIR/int.img")" = "$(sum "$T_DIR/ref.img")"
	check "interrupted replay $i leaves no redo file" test ! -e "$T_DIR/int.redo"
	k=$((k + 1))
done
check "at least $KILLS interruptions ($k)" test $k -ge "$KILLS"
t_done
