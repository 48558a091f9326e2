#!/bin/bash
# Benchmark: the offline check.  `xfsj-repair -n` against `xfs_repair -n`
# (xfsprogs 6.13) on the same image in the same run: wall time and peak
# RSS (/usr/bin/time; CPU time, user and system, is shown too: less noisy
# on a shared machine), warm cache (one run of each first, then the median
# of REPS) and cold cache (the page cache dropped before every run,
# median of REPS).  Prints the ratios ours / theirs (below 1.0: xfsj is
# faster or smaller); the target is a time ratio of at most 0.5 with a
# memory ratio of at most 1.0.
#
# The image: 16 GiB sparse, made by mkfs.xfs 6.13 with the features
# xfsj-mkfs turns on (rmapbt, reflink, finobt, sparse inodes, nrext64,
# exchange, parent pointers), filled through the kernel by bench/mkinodes.c
# (BENCH_INODES inodes, default 1,000,000: empty files, directories of
# every format from short form to btree, xattrs of every attribute fork
# format and remote values, one-extent and bmbt-format files, reflinked
# copies, symlinks inline and remote, devices, FIFOs, hard links).
#
# Memory scaling: the same workload at a tenth of the inodes is checked
# too; from the two runs it prints the checker's own tables (the JSON
# summary's "state_bytes") per inode and per extent, the peak RSS of
# each, and the RSS growth per added inode, to show that ten times the
# inodes does not take ten times the memory beyond those bytes.
#
# The images are cached (made once, reused by later runs) as
#   ${BENCH_CACHE:-/var/cache/xfsj/bench}/check-<version>-<inodes>.img
# where <version> changes with the workload (IMGVER and a hash of
# mkinodes.c); CLEAN_CACHE=1 removes this run's images at the end.
#
#   BENCH_INODES=n (default 1000000)   a quick run: BENCH_INODES=100000
#   REPS=n (default 3)   THREADS=n (the workload's threads, default 2)
#   SCALING=0: skip the tenth-size image
#   CACHE_MIB=n: run xfsj-repair -n with -m n (its memory bound: the cache
#     a quarter, the tables half, past that they spill)
#   BOUNDS="16 64 256": after the comparison, one run of xfsj-repair -n -m
#   at each of these bounds (MiB): how the peak RSS follows the bound
# Output: stdout only.
source "$(dirname "$0")/../tests/system/lib/common.sh"
need_root
oracle_613
REPAIR=${XFSJ_REPAIR:-$BUILD/xfsj-repair}
[ -x "$REPAIR" ] || { echo "bench/check: no $REPAIR (run make)"; exit 2; }
# A copy: a rebuild during the run does not change what is timed.
cp "$REPAIR" "$T_DIR/xfsj-repair" && REPAIR=$T_DIR/xfsj-repair
INODES=${BENCH_INODES:-1000000}
REPS=${REPS:-3}
THREADS=${THREADS:-2}
SCALING=${SCALING:-1}
CACHE=${BENCH_CACHE:-/var/cache/xfsj/bench}
source "$TOP/bench/lib.sh"

# jnum FILE KEY: a number of the JSON summary line
jnum() { tail -1 "$1" | sed -n "s/.*\"$2\":\([0-9]*\).*/\1/p"; }

# compare LABEL IMG: the timed runs of both tools, warm and cold
compare() {
	local label=$1 img=$2 mode i ns kib rc cpu
	local -a ot or oc tt tr tc
	for mode in warm cold; do
		ot=() or=() oc=() tt=() tr=() tc=()
		if [ "$mode" = warm ]; then
			run_one /dev/null "$REPAIR" -n "$img" > /dev/null
			run_one /dev/null "$XFSPROGS613/xfs_repair" -n "$img" > /dev/null
		fi
		for ((i = 0; i < REPS; i++)); do
			# Alternate the order: neither tool always runs first.
			for who in $((i % 2)) $((1 - i % 2)); do
				[ "$mode" = cold ] && cold
				if [ "$who" = 0 ]; then
					read -r ns kib rc cpu <<< "$(run_one "$T_DIR/ours.json" "$REPAIR" -n ${CACHE_MIB:+-m "$CACHE_MIB"} --json "$img")"
					ot+=("$ns") or+=("$kib") oc+=("$cpu")
					[ "$rc" = 0 ] || ORC=$rc
				else
					read -r ns kib rc cpu <<< "$(run_one "$T_DIR/theirs.txt" "$XFSPROGS613/xfs_repair" -n "$img")"
					tt+=("$ns") tr+=("$kib") tc+=("$cpu")
					[ "$rc" = 0 ] || TRC=$rc
				fi
			done
		done
		awk -v l="$label, $mode cache" -v o="$(median "${ot[@]}")" -v t="$(median "${tt[@]}")" \
			-v om="$(maxof "${or[@]}")" -v tm="$(maxof "${tr[@]}")" -v n="$REPS" \
			-v oc="$(median "${oc[@]}")" -v tc="$(median "${tc[@]}")" 'BEGIN {
			printf "%s (median of %d): xfsj-repair -n %.3f s (cpu %.3f s) %.1f MiB, xfs_repair -n %.3f s (cpu %.3f s) %.1f MiB; ratio (xfsj / xfs_repair) time %.3f, cpu %.3f, memory %.3f%s\n",
				l, n, o / 1e9, oc / 1e3, om / 1024, t / 1e9, tc / 1e3, tm / 1024, o / t, (tc ? oc / tc : 0), om / tm,
				(o / t <= 0.5 && om <= tm) ? "" : "  [target 0.5 / 1.0 not met]" }'
		eval "${label//[^a-z0-9]/_}_${mode}_rss=$(maxof "${or[@]}")"
	done
	if [ "${ORC:-0}" != 0 ]; then
		echo "# xfsj-repair -n exited $ORC on a filesystem the kernel made; its problems by code:"
		grep -v '"kind":"check_summary"' "$T_DIR/ours.json" | sed 's/.*"code":"\([^"]*\)".*/\1/' | sort | uniq -c | sort -rn | head | sed 's/^/#   /'
	fi
	[ "${TRC:-0}" != 0 ] && echo "# xfs_repair -n exited $TRC: $(grep -v '^ *-\|^Phase\|^No modify' "$T_DIR/theirs.txt" | head -3 | tr '\n' ' ')"
	ORC=0 TRC=0
	cp "$T_DIR/ours.json" "$T_DIR/$label.json"
}

# state LABEL: the summary of the last xfsj run of LABEL, and its peak RSS
state() {
	local j="$T_DIR/$1.json"
	awk -v l="$1" -v i="$(jnum "$j" inodes)" -v e="$(jnum "$j" extents)" \
		-v s="$(jnum "$j" state_bytes)" -v r="$2" 'BEGIN {
		printf "%s: %d inodes, %d extents; checker tables %.1f MiB = %.1f bytes per inode (all tables / inodes; / extents: %.1f); peak RSS %.1f MiB = %.1f bytes per inode\n",
			l, i, e, s / 1048576, (i ? s / i : 0), (e ? s / e : 0), r / 1024, (i ? r * 1024 / i : 0) }'
}

echo "# check benchmark: $(basename "$REPAIR") $("$REPAIR" -V | awk '{ print $NF }') against xfs_repair 6.13; images in $CACHE (version $VER)"
BIG=$(image "$INODES") || { echo "bench/check: cannot make the image"; exit 1; }
cat "$T_DIR/notes" 2>/dev/null; rm -f "$T_DIR/notes"
compare big "$BIG"
# The buffer cache bound (-m): peak RSS and time of one warm run at each.
for m in ${BOUNDS:-16 64 256}; do
	read -r ns kib rc cpu <<< "$(run_one "$T_DIR/m.json" "$REPAIR" -n -m "$m" --json "$BIG")"
	awk -v m="$m" -v o="$ns" -v r="$kib" -v rc="$rc" -v c="$cpu" 'BEGIN {
		printf "big, warm cache, xfsj-repair -n -m %d: %.3f s (cpu %.3f s) peak RSS %.1f MiB (exit %d)\n", m, o / 1e9, c / 1e3, r / 1024, rc }'
done
state big "$big_warm_rss"
if [ "$SCALING" = 1 ]; then
	SMALL=$(image $((INODES / 10))) || { echo "bench/check: cannot make the small image"; exit 1; }
	cat "$T_DIR/notes" 2>/dev/null
	compare small "$SMALL"
	state small "$small_warm_rss"
	jb="$T_DIR/big.json" js="$T_DIR/small.json"
	awk -v bi="$(jnum "$jb" inodes)" -v si="$(jnum "$js" inodes)" \
		-v bs="$(jnum "$jb" state_bytes)" -v ss="$(jnum "$js" state_bytes)" \
		-v br="$big_warm_rss" -v sr="$small_warm_rss" 'BEGIN {
		m = (br - sr) * 1024 / (bi - si)
		printf "scaling: inodes x%.2f, checker tables x%.2f, peak RSS x%.2f; RSS per added inode %.1f bytes (tables per inode %.1f)\n",
			bi / si, bs / ss, br / sr, m, bs / bi
		printf "scaling: peak RSS beyond the checker tables (buffer cache, program, overlay): %.1f MiB at %d inodes, %.1f MiB at %d (x%.2f)\n",
			(sr * 1024 - ss) / 1048576, si, (br * 1024 - bs) / 1048576, bi, (br * 1024 - bs) / (sr * 1024 - ss) }'
fi
if [ "${CLEAN_CACHE:-0}" = 1 ]; then
	rm -f "$BIG" "${SMALL:-}"
fi
