#!/bin/bash
# Benchmark: the repair.  `xfsj-repair` against `xfs_repair` (xfsprogs
# 6.13) on copies of one damaged image in the same run: wall time, CPU
# time and peak RSS (/usr/bin/time), the page cache warm (both copies
# read once before the timed runs), median of REPS, the order of the two
# tools alternating.  Prints the ratios ours / theirs; the target is a
# time ratio of at most 0.5 with a memory ratio of at most 1.0.  After
# each run, `xfs_repair -n` must find the result clean (not timed); the
# line says when it does not.
#
# The image: bench/check.sh's (bench/lib.sh: 16 GiB sparse, BENCH_INODES
# inodes filled through the kernel by bench/mkinodes.c, cached), damaged
# in every AG as DAMAGE says: xfs_db commands run with "agf N" or "agi N"
# first, one ";"-separated list per tree (default: the bnobt root gets a
# bad CRC, the cntbt root a bad record, an inobt leaf a bad free count,
# so free-space and inode btrees need rebuilding in every AG; an inobt
# whose blocks cannot be read is not rebuilt by this version yet).
#
#   BENCH_INODES=n (default 1000000)   REPS=n (default 3)
#   DAMAGE="agf:addr bnoroot;fuzz -c crc zeroes|..."
# Output: stdout only.
source "$(dirname "$0")/../tests/system/lib/common.sh"
need_root
oracle_613
REPAIR=${XFSJ_REPAIR:-$BUILD/xfsj-repair}
[ -x "$REPAIR" ] || { echo "bench/repair: no $REPAIR (run make)"; exit 2; }
cp "$REPAIR" "$T_DIR/xfsj-repair" && REPAIR=$T_DIR/xfsj-repair
INODES=${BENCH_INODES:-1000000}
REPS=${REPS:-3}
THREADS=${THREADS:-2}
CACHE=${BENCH_CACHE:-/var/cache/xfsj/bench}
DAMAGE=${DAMAGE:-agf:addr bnoroot;fuzz -c crc zeroes|agf:addr cntroot;fuzz -d recs[1].blockcount add|agi:addr root;addr ptrs[1];fuzz -d recs[2].freecount add}
source "$TOP/bench/lib.sh"

IMG=$(image "$INODES") || { echo "bench/repair: cannot make the image"; exit 1; }
cat "$T_DIR/notes" 2>/dev/null
agc=$("$XFSPROGS613/xfs_db" -r -c 'sb 0' -c 'print agcount' "$IMG" | sed 's/.* = //')
cmds=()
IFS='|' read -ra trees <<< "$DAMAGE"
for ((ag = 0; ag < agc; ag++)); do
	for t in "${trees[@]}"; do
		cmds+=(-c "${t%%:*} $ag")
		IFS=';' read -ra cs <<< "${t#*:}"
		for c in "${cs[@]}"; do cmds+=(-c "$c"); done
	done
done
cp --sparse=always "$IMG" "$T_DIR/damaged.img"
"$XFSPROGS613/xfs_db" -x "${cmds[@]}" "$T_DIR/damaged.img" > "$T_DIR/db.out" 2>&1
"$XFSPROGS613/xfs_repair" -n "$T_DIR/damaged.img" > /dev/null 2>&1
echo "# repair benchmark: $INODES inodes, $agc AGs damaged ($DAMAGE); xfs_repair -n exit $? on the damaged image"

ot=() or=() oc=() tt=() tr=() tc=()
for ((i = 0; i < REPS; i++)); do
	for who in $((i % 2)) $((1 - i % 2)); do
		cp --sparse=always "$T_DIR/damaged.img" "$T_DIR/run.img"
		cat "$T_DIR/run.img" > /dev/null	# warm, as for both
		if [ "$who" = 0 ]; then
			read -r ns kib rc cpu <<< "$(run_one "$T_DIR/ours.txt" "$REPAIR" "$T_DIR/run.img")"
			ot+=("$ns") or+=("$kib") oc+=("$cpu")
			what="xfsj-repair (exit $rc)"
		else
			read -r ns kib rc cpu <<< "$(run_one "$T_DIR/theirs.txt" "$XFSPROGS613/xfs_repair" "$T_DIR/run.img")"
			tt+=("$ns") tr+=("$kib") tc+=("$cpu")
			what="xfs_repair (exit $rc)"
		fi
		"$XFSPROGS613/xfs_repair" -n "$T_DIR/run.img" > "$T_DIR/after.txt" 2>&1 ||
			echo "# run $i: after $what, xfs_repair -n still finds: $(grep -v '^Phase\|^ *-\|^No modify\|host filesystem\|the image and\|sector size mismatch' "$T_DIR/after.txt" | head -2 | tr '\n' ' ' | cut -c1-200)"
	done
done
grep -E '^[^f].*: [0-9]+ problem' "$T_DIR/ours.txt" | tail -1 | sed 's/^/# xfsj-repair: /'
awk -v o="$(median "${ot[@]}")" -v t="$(median "${tt[@]}")" \
	-v om="$(maxof "${or[@]}")" -v tm="$(maxof "${tr[@]}")" -v n="$REPS" \
	-v oc="$(median "${oc[@]}")" -v tc="$(median "${tc[@]}")" 'BEGIN {
	printf "repair, warm cache (median of %d): xfsj-repair %.3f s (cpu %.3f s) %.1f MiB, xfs_repair %.3f s (cpu %.3f s) %.1f MiB; ratio (xfsj / xfs_repair) time %.3f, cpu %.3f, memory %.3f%s\n",
		n, o / 1e9, oc / 1e3, om / 1024, t / 1e9, tc / 1e3, tm / 1024, o / t, (tc ? oc / tc : 0), om / tm,
		(o / t <= 0.5 && om <= tm) ? "" : "  [target 0.5 / 1.0 not met]" }'
