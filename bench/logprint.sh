#!/bin/bash
# Benchmark: xfsj-logprint against xfs_logprint on a big live log.
# A 64 GiB sparse image with a 2 GiB log (-l size=2038m), mounted with
# logbsize=256k, gets a metadata-heavy workload (the crash workers of
# tests/system/lib/crashimg.sh, plus O_SYNC direct writes at random
# offsets of preallocated files: unwritten extent conversions, each its
# own checkpoint) until the live log (tail to head, from sysfs) reaches
# FILL percent of the log or MAXSECS pass; then `shutdown -f`.
# Then, in the same run and alternating the order, REPS runs each of
#   xfsj-logprint -t, xfsj-logprint -t --json, xfs_logprint -t
# (xfsprogs 6.13; or Debian's 6.1 on a filesystem made with -n parent=0
# when the 6.13 build is not there), output to /dev/null: the median wall
# time and the peak RSS (/usr/bin/time -f %M) of each, and the ratios
# xfs_logprint time / xfsj time (above 1.0: xfsj is faster).  Then the
# floor: dd copying the live log to /dev/null on one and on two cores,
# and the bound it sets: xfs_logprint time / floor time.
#
#   IMAGE=path: time an image kept by SAVE_IMAGE=path in an earlier run
#   instead of making one (the ratios then need no workload).
#   REPS=n (default 5)  FILL=percent (default 70)  MAXSECS=s (default 480)
#   IMGSIZE (default 64g)  LOGSIZE (default 2038m)  MKFS_TOOL=xfsj|mkfs.xfs
#   SYNCD=1 (default): for the workload, raise the kernel's
#   fs.xfs.xfssyncd_centisecs (the 30 s periodic log work that pushes all
#   metadata and lets the tail catch up) to its maximum, and put the old
#   value back afterwards (also on exit); SYNCD=0 leaves it alone and the
#   live log stays at what 30 s of work writes.
# Output: stdout only.
source "$(dirname "$0")/../tests/system/lib/common.sh"
source "$TOP/tests/system/lib/crashimg.sh"
need_root
REPS=${REPS:-5}
FILL=${FILL:-70}
MAXSECS=${MAXSECS:-480}
IMGSIZE=${IMGSIZE:-64g}
LOGSIZE=${LOGSIZE:-2038m}
SYNCD=${SYNCD:-1}
LP=${XFSJ_LOGPRINT:-$BUILD/xfsj-logprint}
[ -x "$LP" ] || { echo "bench/logprint: no $LP (run make)"; exit 2; }
cp "$LP" "$T_DIR/xfsj-logprint" && LP=$T_DIR/xfsj-logprint

# The oracle: 6.13 when it can be had, else 6.1 without parent pointers.
MKOPTS="-l size=$LOGSIZE"
if [ -n "${XFSPROGS613:-}" ] || [ -f "$TOP/tests/system/lib/xfsprogs613.sh" ]; then
	oracle_613
	ORACLE=$XFSPROGS613/xfs_logprint
	ORACLE_NAME="xfs_logprint 6.13"
else
	ORACLE=/usr/sbin/xfs_logprint
	ORACLE_NAME="xfs_logprint 6.1"
	MKOPTS="$MKOPTS -n parent=0"
	echo "# no xfsprogs 6.13 build: comparing with Debian's 6.1 on a -n parent=0 filesystem"
fi
if [ ! -x /usr/bin/time ]; then
	echo "# /usr/bin/time missing: installing the Debian package 'time'"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q time > /dev/null 2>&1 ||
		{ echo "bench/logprint: cannot install 'time'"; exit 2; }
fi

SYSCTL=/proc/sys/fs/xfs/xfssyncd_centisecs
SYNCD_OLD=""
restore_syncd() {
	if [ -n "$SYNCD_OLD" ]; then
		echo "$SYNCD_OLD" > "$SYSCTL"
		SYNCD_OLD=""
	fi
}
trap 'restore_syncd; t_cleanup' EXIT

median() { printf '%s\n' "$@" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

# lsn_blocks "cycle:block" -> an absolute block count given the log size
lsn_abs() { echo $(( ${1%%:*} * LOGBLKS + ${1##*:} )); }

# ---- the image ----
IMG=$T_DIR/big.img
if [ -n "${IMAGE:-}" ]; then
	# A crashed image kept by an earlier run (SAVE_IMAGE): no workload.
	IMG=$IMAGE
	echo "# image: $IMG (kept from an earlier run)"
else
truncate -s "$IMGSIZE" "$IMG"
DEV=$(attach_loop "$IMG") || { echo "bench/logprint: losetup failed"; exit 1; }
CRASH_MKFS=${MKFS_TOOL:-xfsj} crashimg_mkfs "$DEV" "$MKOPTS" || exit 1
MNT=$T_DIR/mnt
if [ "$SYNCD" = 1 ]; then
	SYNCD_OLD=$(cat "$SYSCTL")
	echo "# fs.xfs.xfssyncd_centisecs: $SYNCD_OLD -> 720000 for the workload (restored after)"
	echo 720000 > "$SYSCTL"
fi
export CRASH_SEED=${SEED:-11} CRASH_WORKERS=${WORKERS:-3}
crashimg_run "$DEV" "$MNT" "logbsize=256k" 0 || exit 1
# Direct O_SYNC writers at random offsets of preallocated files.
SYSFS=/sys/fs/xfs/$(basename "$DEV")/log
DIOPIDS=()
for ((k = 0; k < ${DIOWRITERS:-6}; k++)); do
	xfs_io -f -c "falloc 0 2g" "$MNT/dio$k"
	xfs_io -d -s -c "pwrite -R -b 4k -q 0 2g" "$MNT/dio$k" > /dev/null 2>&1 &
	DIOPIDS+=($!)
done
LOGBLKS=$(( $(numfmt --from=iec "${LOGSIZE^^}") / 512 ))
t0=$(date +%s)
live=0
while :; do
	sleep 5
	h=$(cat "$SYSFS/log_head_lsn") t=$(cat "$SYSFS/log_tail_lsn")
	live=$(( $(lsn_abs "$h") - $(lsn_abs "$t") ))
	el=$(( $(date +%s) - t0 ))
	[ $((el % 30)) -lt 5 ] && echo "# workload: ${el}s, head $h tail $t, live log $((live * 100 / LOGBLKS))%"
	[ $((live * 100 / LOGBLKS)) -ge "$FILL" ] && break
	[ "$el" -ge "$MAXSECS" ] && break
done
xfs_io -x -c "shutdown -f" "$MNT"
crashimg_stop
wait "${DIOPIDS[@]}" 2>/dev/null
t_umount "$MNT"
detach_loop "$DEV"
restore_syncd
echo "# workload: $(( $(date +%s) - t0 ))s, live log at shutdown $((live * 512 / 1048576)) MiB ($((live * 100 / LOGBLKS))% of the log)"
[ -n "${SAVE_IMAGE:-}" ] && cp --sparse=always "$IMG" "$SAVE_IMAGE"
fi
"$LP" --summary "$IMG" | grep 'log tail'
"$LP" -t --json "$IMG" | awk '/"kind":"trans"/ { t++ } /"kind":"item"/ { i++ } END { printf "# %d transactions, %d items in the live log\n", t, i }'

# run_one NAME CMD...: one timed run; prints "ns kib"
run_one() {
	local t0 t1 rss
	t0=$(date +%s%N)
	/usr/bin/time -f %M -o "$T_DIR/rss" "$@" > /dev/null 2> "$T_DIR/err"
	local rc=$?
	t1=$(date +%s%N)
	rss=$(tail -1 "$T_DIR/rss")
	if [ $rc -ne 0 ]; then
		echo "# $* exited $rc: $(grep -v '^Command' "$T_DIR/err" | head -1)" >&2
	fi
	echo "$((t1 - t0)) $rss"
}

declare -A T R
names=(xfsj-t xfsj-json oracle)
cmd() {
	case $1 in
	xfsj-t) echo "$LP -t $IMG" ;;
	xfsj-json) echo "$LP -t --json $IMG" ;;
	oracle) echo "$ORACLE -t $IMG" ;;
	esac
}
# One warm-up run each (not counted): every tool then reads a warm log.
for n in "${names[@]}"; do
	# shellcheck disable=SC2046
	run_one $(cmd "$n") > /dev/null
done
for ((i = 0; i < REPS; i++)); do
	# Rotate the order so that no tool always runs first.
	for ((j = 0; j < 3; j++)); do
		n=${names[$(((i + j) % 3))]}
		# shellcheck disable=SC2046
		read -r ns kib <<< "$(run_one $(cmd "$n"))"
		T[$n]="${T[$n]:-} $ns"
		R[$n]="${R[$n]:-} $kib"
	done
done

# ---- the floor: copying the live log out of the page cache, nothing else ----
# What no reader of the live log through read() goes below here: dd
# copies the bytes from tail to head (both parts when the log wraps) to
# /dev/null in 4 MiB reads, on one core and split between two dd
# processes (this machine's two cores).  A checker of record CRCs or a
# decoder of every item reads each of those bytes at least once.
SUMJ=$("$LP" --summary --json "$IMG")
jnum() { sed -n "s/.*\"$1\":\([0-9]*\).*/\1/p" <<< "$SUMJ"; }
L_DADDR=$(jnum log_daddr) L_LEN=$(jnum log_length) L_TAIL=$(jnum tail) L_HEAD=$(jnum head)
# live_segs: "start count" block ranges of the live log, in log order
live_segs() {
	if [ "$L_HEAD" -ge "$L_TAIL" ]; then
		echo "$L_TAIL $((L_HEAD - L_TAIL))"
	else
		echo "$L_TAIL $((L_LEN - L_TAIL))"
		echo "0 $L_HEAD"
	fi
}
L_LIVE=$(live_segs | awk '{ n += $2 } END { print n }')
# dd_part FROM COUNT: copy live blocks [FROM, FROM + COUNT) (counted from
# the tail along the log) to /dev/null
dd_part() {
	local from=$1 cnt=$2 start len
	while read -r start len; do
		if [ "$from" -ge "$len" ]; then
			from=$((from - len))
			continue
		fi
		local n=$((len - from < cnt ? len - from : cnt))
		dd if="$IMG" of=/dev/null bs=4M iflag=skip_bytes,count_bytes \
			skip=$(((L_DADDR + start + from) * 512)) count=$((n * 512)) 2> /dev/null
		cnt=$((cnt - n))
		from=0
		[ "$cnt" -le 0 ] && break
	done < <(live_segs)
}
floor_run() {
	local k=$1 t0 t1 per=$(((L_LIVE + $1 - 1) / $1)) pids=()
	t0=$(date +%s%N)
	for ((p = 0; p < k; p++)); do
		dd_part $((p * per)) "$per" &
		pids+=($!)
	done
	wait "${pids[@]}"
	t1=$(date +%s%N)
	echo $((t1 - t0))
}
declare -A F
for ((i = 0; i < REPS; i++)); do
	for k in 1 2; do
		F[$k]="${F[$k]:-} $(floor_run $k)"
	done
done

echo "# logprint benchmark: $IMGSIZE image, $LOGSIZE log, logbsize=256k, median of $REPS runs"
# shellcheck disable=SC2086
mo=$(median ${T[oracle]})
for n in xfsj-t xfsj-json oracle; do
	# shellcheck disable=SC2086
	m=$(median ${T[$n]})
	# shellcheck disable=SC2086
	r=$(printf '%s\n' ${R[$n]} | sort -n | tail -1)
	case $n in
	xfsj-t) label="xfsj-logprint -t" ;;
	xfsj-json) label="xfsj-logprint -t --json" ;;
	oracle) label="$ORACLE_NAME -t" ;;
	esac
	awk -v l="$label" -v m="$m" -v o="$mo" -v r="$r" 'BEGIN {
		printf "%-26s %9.1f ms   peak RSS %8.1f MiB   ratio %s\n", l, m / 1e6, r / 1024,
			(l ~ /^xfs_logprint/ ? "-" : sprintf("%.2fx (xfs_logprint / xfsj)", o / m)) }'
done
for k in 1 2; do
	# shellcheck disable=SC2086
	m=$(median ${F[$k]})
	awk -v k="$k" -v m="$m" -v o="$mo" -v mib="$((L_LIVE / 2048))" 'BEGIN {
		printf "%-26s %9.1f ms   %d MiB copied          bound %.2fx (xfs_logprint / floor)\n",
			sprintf("floor: dd, %d process%s", k, k > 1 ? "es" : ""), m / 1e6, mib, o / m }'
done
echo "# floor: copying the live log out of the page cache and nothing else (no CRC, no decoding, no output); its bound is the best ratio a tool that reads the live log with read(), as both tools do, could reach here"
