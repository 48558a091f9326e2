# shellcheck shell=bash
# What the benchmarks of the check and the repair share: the cached
# images that bench/mkinodes.c fills through the kernel, a timed run with
# its peak RSS, medians, a cold page cache.  Needs common.sh, T_DIR,
# XFSPROGS613, CACHE, THREADS; sets VER (the images' version).

IMGVER=1
if [ ! -x /usr/bin/time ]; then
	echo "# /usr/bin/time missing: installing the Debian package 'time'"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q time > /dev/null 2>&1 ||
		{ echo "bench: cannot install 'time'"; exit 2; }
fi
mkdir -p "$CACHE"
cc -O2 -Wall -pthread -o "$T_DIR/mkinodes" "$TOP/bench/mkinodes.c" ||
	{ echo "bench: cannot build mkinodes"; exit 2; }
VER=$IMGVER-$(sha1sum "$TOP/bench/mkinodes.c" | cut -c1-8)


median() { printf '%s\n' "$@" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
maxof() { printf '%s\n' "$@" | sort -n | tail -1; }

# image N: the path of the cached image of N inodes, made when missing
image() {
	local n=$1 img="$CACHE/check-$VER-$1.img" dev t0 made
	if [ -f "$img" ]; then
		echo "$img"
		return 0
	fi
	rm -f "$img.new"
	# 16 GiB holds 8M inodes (imaxpct 25): larger counts get 64 GiB
	if [ "$n" -gt 4000000 ]; then
		truncate -s 64g "$img.new"
	else
		truncate -s 16g "$img.new"
	fi
	dev=$(attach_loop "$img.new") || return 1
	# shellcheck disable=SC2046
	"$XFSPROGS613/mkfs.xfs" -q -f $(newfeat) "$dev" >&2 || return 1
	t_mount "$dev" "$T_DIR/mnt" || return 1
	t0=$(date +%s%N)
	made=$("$T_DIR/mkinodes" "$T_DIR/mnt" "$n" "$THREADS") || return 1
	t_umount "$T_DIR/mnt"
	detach_loop "$dev"
	mv "$img.new" "$img"
	awk -v n="$made" -v t="$(( $(date +%s%N) - t0 ))" 'BEGIN {
		printf "# made %d inodes in %.1f s (%.0f per second) through the kernel\n",
			n, t / 1e9, n / (t / 1e9) }' >> "$T_DIR/notes"
	echo "$img"
}

# run_one OUT CMD...: one timed run; prints "ns kib rc cpu_ms", stdout
# into OUT (cpu: user + system, all threads)
run_one() {
	local out=$1 t0 t1 rc
	shift
	t0=$(date +%s%N)
	/usr/bin/time -f "%M %U %S" -o "$T_DIR/rss" "$@" > "$out" 2> "$T_DIR/err"
	rc=$?
	t1=$(date +%s%N)
	echo "$((t1 - t0)) $(tail -1 "$T_DIR/rss" | awk '{ printf "%d", $1 }') $rc $(tail -1 "$T_DIR/rss" | awk '{ printf "%d", ($2 + $3) * 1000 }')"
}

cold() { sync; echo 3 > /proc/sys/vm/drop_caches; }

# run_median REPS SETUP OUT CMD...: REPS runs of CMD, each after SETUP
# (eval'd, not timed: a fresh copy of a damaged image) and a cold page
# cache; prints the run of median wall time as run_one does ("ns kib rc
# cpu_ms"), its peak RSS the largest of all runs.
run_median() {
	local reps=$1 setup=$2 out=$3 i
	shift 3
	for ((i = 0; i < reps; i++)); do
		eval "$setup"
		cold
		run_one "$out" "$@"
	done | sort -n | awk -v r="$reps" '
		{ l[NR] = $0; if ($2 > m) m = $2 }
		END { split(l[int((r + 1) / 2)], f, " ")
		      print f[1], m, f[3], f[4] }'
}

# time_tools: the benchmarks of mkfs-like tools (bench/populate*.sh).  The
# caller defines TOOLS (names), cmd TOOL (its command line, the image
# left off), label TOOL, verify TOOL IMG, and SIZE, REPS, FAILED.  Each
# tool runs once on a fresh sparse image of SIZE, checked by verify
# (not timed), then REPS rounds, the order rotating each round; ns, kib
# and cpu (declared -A by the caller) get each tool's timed runs, and a
# line per tool gives its medians (peak RSS: the largest).
time_tools() {
	local t i j img n k rc c
	for t in "${TOOLS[@]}"; do
		img=$T_DIR/$t.img
		rm -f "$img"; truncate -s "$SIZE" "$img"
		# shellcheck disable=SC2046
		read -r n k rc c <<< "$(run_one /dev/null $(cmd "$t") "$img")"
		[ "$rc" = 0 ] || { echo "# $(label "$t"): exit $rc: $(head -3 "$T_DIR/err")"; FAILED=1; }
		verify "$t" "$img"
		rm -f "$img"
	done
	for ((i = 0; i < REPS; i++)); do
		for ((j = 0; j < ${#TOOLS[@]}; j++)); do
			t=${TOOLS[(i + j) % ${#TOOLS[@]}]}
			img=$T_DIR/$t.img
			rm -f "$img"; truncate -s "$SIZE" "$img"
			sync
			# shellcheck disable=SC2046
			read -r n k rc c <<< "$(run_one /dev/null $(cmd "$t") "$img")"
			[ "$rc" = 0 ] || { echo "# $(label "$t"): exit $rc"; FAILED=1; }
			ns[$t]+=" $n"; kib[$t]+=" $k"; cpu[$t]+=" $c"
			rm -f "$img"
		done
	done
	# shellcheck disable=SC2086
	for t in "${TOOLS[@]}"; do
		printf '%-24s wall %9.1f ms  cpu %9.1f ms  peak RSS %7d KiB\n' "$(label "$t")" \
			"$(median ${ns[$t]} | awk '{ print $1 / 1e6 }')" "$(median ${cpu[$t]})" "$(maxof ${kib[$t]})"
	done
}
