#!/bin/bash
# xfsj-logprint on corrupted logs.  A crash image's log (written by the
# kernel) is copied with -C, and each case damages a copy: flipped bits in
# record headers, extended headers, op headers and item payloads; lengths
# and counts pointing past the record (h_len, oh_len, h_num_logops,
# h_size, format counts); a torn last record; zeroed blocks in the middle;
# random bytes; a damaged tail record; an all-zero log; a truncated
# device.  Every case is read in both forms: the raw copy (-f) and the
# filesystem image with the damaged log written back in place.
#
# For each case, form and view (raw: records, -t, -t --json, -c -t;
# image: records, -t --json), the tool
#  - terminates within 20 s (timeout), never dies from a signal;
#  - exits 0, or exits 2 with an error line on stderr that names where
#    (a block, an offset or an LSN); with --json the error is also in
#    the JSON (an "error" object, or error fields of the item);
# and where the answer is known:
#  - damage to a record strictly inside the live log (the kernel would
#    refuse to recover it) is reported: exit 2; behind a valid CRC, an
#    op length past the record and a record length past the record are
#    reported by every view (the records view checks the op headers);
#  - a device cut inside its log is a damaged log: exit 2, one line
#    naming the byte where the device ends;
#  - a torn last record is not an error: exit 0, the head moves back to
#    the torn record, and the summary says so (torn_head); the kernel's
#    recovery of a copy of the image with that log puts its head there
#    too (the kernel decides where the head is, not xfs_logprint: see
#    kernel_head_is);
#  - an all-zero log is a clean, zeroed log: exit 0.
# With ASan and UBSan: the same runs with $XFSJ_LOGPRINT_SAN (default
# ./xfsj-logprint-san, built here with `make xfsj-logprint-san` when it is
# not there), which must report nothing: any sanitizer report fails.
# The crash images are made until their logs hold what the cases need
# (need_log: enough live records, records that use extended headers in
# the logbsize=256k log, a last record long enough to tear), so that no
# case depends on what the workload happened to write.
#   SEED=s (default 1) chooses the records, ops and bits; FUZZ=n rounds
#   of random bytes behind a valid CRC per log (default 3).
source "$(dirname "$0")/lib/common.sh"
source "$(dirname "$0")/lib/crashimg.sh"
need_root
LP=${XFSJ_LOGPRINT:-$BUILD/xfsj-logprint}
LPSAN=${XFSJ_LOGPRINT_SAN:-$BUILD/xfsj-logprint-san}
[ -x "$LP" ] || { echo "$T_NAME: no $LP (run make)" >&2; exit 2; }
if [ -z "${XFSJ_LOGPRINT_SAN:-}" ]; then
	# Bring the sanitizer build up to date with the tree (a no-op when
	# it is).
	make -C "$BUILD" -s xfsj-logprint-san > "$T_DIR/san.make" 2>&1 ||
		sed 's/^/#  /' "$T_DIR/san.make" | tail -5
fi
# The binaries as they are now, whatever a rebuild does meanwhile.
cp "$LP" "$T_DIR/xfsj-logprint" && LP=$T_DIR/xfsj-logprint
[ -x "$LPSAN" ] && cp "$LPSAN" "$T_DIR/xfsj-logprint-san" && LPSAN=$T_DIR/xfsj-logprint-san
SEED=${SEED:-1}
TMO=${TMO:-20}
FUZZ=${FUZZ:-3}
BINS=("$LP")
if [ -x "$LPSAN" ]; then
	BINS+=("$LPSAN")
	ok "sanitizer build $LPSAN"
else
	not_ok "no sanitizer build ($LPSAN; make xfsj-logprint-san): no sanitizer runs"
fi
VIEWS_RAW=("" "-t" "-t --json" "-c -t")
VIEWS_IMG=("" "-t --json")
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

# ---- byte surgery on a file (offsets in bytes) ----

# put FILE OFFSET HEX: writes the bytes spelt by HEX ("deadbeef")
put() {
	local esc
	esc=$(sed 's/../\\x&/g' <<< "$3")
	printf '%b' "$esc" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}

# put32 FILE OFFSET VALUE: a big-endian 32-bit value
put32() { put "$1" "$2" "$(printf '%08x' $(($3 & 0xffffffff)))"; }

get32() { od -An -tx1 -j "$2" -N4 "$1" | tr -d ' \n' | sed 's/^/0x/'; }

# flip FILE OFFSET BIT
flip() {
	local b
	b=$(od -An -tu1 -j "$2" -N1 "$1" | tr -d ' ')
	put "$1" "$2" "$(printf '%02x' $((b ^ (1 << $3))))"
}

# zero FILE OFFSET LEN
zero() { head -c "$3" /dev/zero | dd of="$1" bs=4096 seek="$2" oflag=seek_bytes conv=notrunc status=none; }

# Seeded choices: $RANDOM, drawn in the current shell (a draw inside
# $(...) does not advance the sequence).
RANDOM=$SEED

# fixcrc FILE BLOCK: recomputes the CRC of the record at BLOCK of a raw
# log copy (xfs-log.md section 4), so that the damage is past the CRC
# and reaches the decoders.  Fails when the record's h_len or h_size
# points outside the file.
FIXCRC=$T_DIR/fixcrc
cc -O2 -o "$FIXCRC" "$TOP/tests/system/lib/fixcrc.c" || { echo "$T_NAME: cannot build the CRC helper" >&2; exit 2; }

# ---- the log under test ----

# load_log IMG: copies IMG's log to $BASE.raw and lists its records and
# ops (block, header blocks, length, live) from the pristine copy.
load_log() {
	local img=$1
	IMG=$img
	BASE=${img%.img}
	"$LP" -C "$BASE.raw" "$img" > /dev/null 2>&1 || return 1
	LOGOFF=$(( $("$LP" --json --summary "$img" | grep -o '"log_daddr":[0-9]*' | cut -d: -f2) * 512 ))
	LOGLEN=$(stat -c %s "$BASE.raw")
	# records of the live log: "block hblks len"
	"$LP" -f --json --ops "$BASE.raw" > "$BASE.ops"
	awk '/"kind":"record"/ && /"live":true/ {
		match($0, /"block":[0-9]+/); b = substr($0, RSTART + 8, RLENGTH - 8)
		match($0, /"hblks":[0-9]+/); h = substr($0, RSTART + 8, RLENGTH - 8)
		match($0, /"len":[0-9]+/); l = substr($0, RSTART + 6, RLENGTH - 6)
		print b, h, l }' "$BASE.ops" > "$BASE.recs"
	# ops of the live log: "record-block offset len"
	awk '/"kind":"record"/ { live = /"live":true/; match($0, /"block":[0-9]+/); b = substr($0, RSTART + 8, RLENGTH - 8) }
	/"kind":"op"/ && live {
		match($0, /"offset":[0-9]+/); o = substr($0, RSTART + 9, RLENGTH - 9)
		match($0, /"len":[0-9]+/); l = substr($0, RSTART + 6, RLENGTH - 6)
		print b, o, l }' "$BASE.ops" > "$BASE.oplist"
	NREC=$(wc -l < "$BASE.recs")
	# The CRC helper must reproduce the kernel's CRCs.
	local b
	CRC_OK=1
	cp "$BASE.raw" "$T_DIR/crc.raw"
	for b in $(awk 'NR % 7 == 1 { print $1 }' "$BASE.recs"); do
		"$FIXCRC" "$T_DIR/crc.raw" "$b"
		case $? in
		0|4) ;;
		*) CRC_OK=0; echo "# CRC helper failed on record at block $b" ;;
		esac
	done
	cmp -s "$BASE.raw" "$T_DIR/crc.raw" || CRC_OK=0
	rm -f "$T_DIR/crc.raw"
	check "$(basename "$BASE"): the CRC helper reproduces the kernel's record CRCs" test $CRC_OK = 1
	HEAD=$("$LP" -f --json --summary "$BASE.raw" | grep -o '"head":[0-9]*' | cut -d: -f2)
	[ "$NREC" -gt 16 ]
}

# live_records RAW: "block hblks len" of each live record of a raw log
live_records() {
	"$LP" -f --json --records --live "$1" 2>/dev/null | awk '/"kind":"record"/ {
		match($0, /"block":[0-9]+/); b = substr($0, RSTART + 8, RLENGTH - 8)
		match($0, /"hblks":[0-9]+/); h = substr($0, RSTART + 8, RLENGTH - 8)
		match($0, /"len":[0-9]+/); l = substr($0, RSTART + 6, RLENGTH - 6)
		print b, h, l }'
}

# need_log RAW live|final: the crash image's CRASH_NEED (crashimg.sh).
# The cases need more than 16 live records (load_log), more than 4
# records using extended headers (not the tail's, and EXT_AFTER records
# or more after them: damage among the last 8 before the head is a torn
# write) where NEED_EXT=1 (the logbsize=256k log), and, in the final
# log, a last record of more than 1024 bytes (the torn cases cut it in
# half).
EXT_AFTER=9
need_log() {
	live_records "$1" | awk -v ext="${NEED_EXT:-0}" -v after="$EXT_AFTER" -v final="$([ "$2" = final ] && echo 1 || echo 0)" '
		{ n++; e[n] = $2 > 1 && $3 > 65 * 512; last = $3 }
		END {
			for (i = 2; i <= n - after; i++)
				x += e[i]
			if (n <= 16) bad = bad sprintf("%d live records (more than 16 wanted); ", n)
			if (ext && x <= 4) bad = bad sprintf("%d records using extended headers (more than 4 wanted); ", x)
			if (final && last + 0 <= 1024) bad = bad sprintf("a last record of %d bytes (more than 1024 wanted); ", last)
			if (bad != "") { print bad; exit 1 }
		}'
}

# kernel_head_is RAW BLOCK: the kernel, recovering a copy of the image
# whose log is RAW, put the head at log block BLOCK.  Recovery writes
# the log from its head on, and nothing before it: the blocks after the
# head are cleared of stale records, then the new records are written
# from the head.  So after the kernel mounted and unmounted the copy,
# block BLOCK is rewritten and the block before it is as it was exactly
# when the kernel's head was BLOCK.  (xfs_logprint is no oracle here:
# with -f it takes the log for a version 1 log when it backs up over a
# partial record, so a record cut where it would have ended with one
# header block looks whole; on the image it does not check the CRCs of
# the last records, so a torn record in a wrapped log looks whole.)
kernel_head_is() {
	local raw=$1 b=$2 dev prev k=$T_DIR/k.img
	cp --sparse=always "$IMG" "$k"
	dd if="$raw" of="$k" bs=1M seek="$LOGOFF" oflag=seek_bytes conv=notrunc status=none
	dev=$(attach_loop "$k") || return 1
	if ! t_mount "$dev" "$T_DIR/kmnt"; then
		echo "#  the kernel did not mount it: $(dmesg | tail -2 | tr '\n' ' ')"
		detach_loop "$dev"; rm -f "$k"
		return 1
	fi
	t_umount "$T_DIR/kmnt"
	detach_loop "$dev"
	dd if="$k" of="$T_DIR/k.raw" bs=1M iflag=skip_bytes,count_bytes skip="$LOGOFF" count="$LOGLEN" status=none
	rm -f "$k"
	prev=$(((b + LOGLEN / 512 - 1) % (LOGLEN / 512)))
	if ! cmp -s <(dd if="$raw" bs=512 skip="$b" count=1 status=none) \
		<(dd if="$T_DIR/k.raw" bs=512 skip="$b" count=1 status=none) &&
	   cmp -s <(dd if="$raw" bs=512 skip="$prev" count=1 status=none) \
		<(dd if="$T_DIR/k.raw" bs=512 skip="$prev" count=1 status=none); then
		rm -f "$T_DIR/k.raw"
		return 0
	fi
	# Where the kernel's writes start (a block rewritten after one that
	# is not).
	echo "#  the kernel's writes start at log block(s): $(cmp -l "$raw" "$T_DIR/k.raw" |
		awk '{ b = int(($1 - 1) / 512) } b != l { if (b != l + 1) print b; l = b }' | head -3 | tr '\n' ' ')"
	rm -f "$T_DIR/k.raw"
	return 1
}

# rec FIELD INDEX: a field (1 block, 2 hblks, 3 len) of the INDEXth live record
rec() { sed -n "$2p" "$BASE.recs" | cut -d' ' -f"$1"; }

# pick INDEX: the record under attack: RB (block), RH (header blocks), RL
# (data length), RD (byte offset of its data).
pick() {
	read -r RB RH RL <<< "$(sed -n "$1p" "$BASE.recs")"
	RD=$(((RB + RH) * 512))
}

# A record strictly inside the live log, away from the tail and from the
# last records before the head (the kernel treats damage there as a torn
# write), with at least two blocks of data.
pick_mid() {
	local i n=0
	while :; do
		i=$((NREC / 8 + $(((RANDOM << 15 | RANDOM) % (NREC / 2)))))
		pick "$i"
		[ "$RL" -ge 1024 ] && return 0
		n=$((n + 1))
		[ $n -gt 50 ] && return 0
	done
}

# pick_mid_fixable: as pick_mid, a record whose CRC the helper can make
# valid again: not the one that wraps past the end of the log.
pick_mid_fixable() {
	local t
	for ((t = 0; t < 20; t++)); do
		pick_mid
		[ $(((RB + RH) * 512 + RL)) -le "$LOGLEN" ] && return 0
	done
	return 1
}

# in_data OFF N: the N bytes at OFF lie in the picked record's data and
# none is in the cycle stamp at the start of a block (whose real bytes
# are in the header's cycle data, so that damaging it changes nothing).
in_data() {
	local o=$1 n=$2
	[ "$o" -ge "$RD" ] && [ $((o + n)) -le $((RD + RL)) ] || return 1
	[ $((o % 512)) -ge 4 ] && [ $(((o % 512) + n)) -le 512 ]
}

# data_off N: DOFF = a seeded offset of N stampless bytes in the picked
# record
data_off() {
	while :; do
		DOFF=$((RD + (RANDOM << 15 | RANDOM) % RL))
		in_data "$DOFF" "$1" && return
	done
}

# ops_of SEED: ops of the picked record with a payload: "offset len", in
# an order chosen by SEED
ops_of() {
	awk -v b="$RB" -v s="$1" 'BEGIN { srand(s) }
		$1 == b && $3 > 0 { print rand(), $2, $3 }' "$BASE.oplist" | sort -n | cut -d' ' -f2-
}

# op_field FOFF N SEED: an op of the picked record whose bytes
# [FOFF, FOFF+N) from its header are stampless record data; prints
# "offset len".
op_field() {
	local o l
	while read -r o l; do
		in_data $((o + $1)) "$2" && { echo "$o $l"; return 0; }
	done < <(ops_of "$3")
	return 1
}

# ---- running the tool ----

# keep_case TARGET: with XFSJ_KEEP=1, a failing raw case is kept (once)
# as $T_DIR/kept/N.raw, its name in N.txt.
KEPT=0
keep_case() {
	[ "${XFSJ_KEEP:-0}" = 1 ] && [ "$form" = raw ] || return 0
	[ "${KEPT_LAST:-}" = "$case" ] && return 0
	KEPT_LAST=$case KEPT=$((KEPT + 1))
	mkdir -p "$T_DIR/kept"
	cp "$1" "$T_DIR/kept/$KEPT.raw"
	echo "$case" > "$T_DIR/kept/$KEPT.txt"
	echo "#  kept as $T_DIR/kept/$KEPT.raw"
}

# run_one CASE FORM TARGET EXPECT: every binary and view on TARGET.
# EXPECT: "any" (0 or 2), "2" (reported), "0" (no error), "12" (1 or 2)
run_one() {
	local case=$1 form=$2 target=$3 expect=$4 bin view rc out err what f views e
	f=""
	views=("${VIEWS_IMG[@]}")
	[ "$form" = raw ] && f="-f" views=("${VIEWS_RAW[@]}")
	for bin in "${BINS[@]}"; do
		for view in "${views[@]}"; do
			out=$T_DIR/out err=$T_DIR/err
			what="$case ($form, $(basename "$bin") ${view:-records})"
			# shellcheck disable=SC2086
			timeout "$TMO" "$bin" $f $view "$target" > "$out" 2> "$err"
			rc=$?
			if [ $rc -eq 124 ]; then
				keep_case "$target"; not_ok "$what: still running after ${TMO}s"
				continue
			fi
			if [ $rc -ge 128 ]; then
				keep_case "$target"; not_ok "$what: killed by signal $((rc - 128))"
				grep -m3 -E 'ERROR|SUMMARY|runtime error' "$err" | sed 's/^/#  /'
				continue
			fi
			if grep -qE 'AddressSanitizer|LeakSanitizer|runtime error:' "$err"; then
				keep_case "$target"; not_ok "$what: sanitizer report (exit $rc)"
				grep -m3 -E 'ERROR|SUMMARY|runtime error' "$err" | sed 's/^/#  /'
				continue
			fi
			e=$expect
			case "$rc/$e" in
			0/any|2/any|0/0|2/2|1/12|2/12) ;;
			*)
				keep_case "$target"; not_ok "$what: exit $rc, expected ${e/any/0 or 2}"
				head -3 "$err" | sed 's/^/#  /'
				continue ;;
			esac
			if [ $rc -eq 2 ] && ! grep -qiE 'offset|block|LSN [0-9]+,[0-9]+' "$err"; then
				keep_case "$target"; not_ok "$what: exit 2 without an error naming a block, offset or LSN"
				head -3 "$err" | sed 's/^/#  /'
				continue
			fi
			# JSON: an "error" object, or an item carrying error fields
			if [ $rc -eq 2 ] && [[ $view == *--json* ]] && ! grep -q '"kind":"error"\|"error":' "$out"; then
				keep_case "$target"; not_ok "$what: exit 2 with --json but no error in the JSON"
				continue
			fi
			ok "$what: exit $rc"
			[ "$T_VERBOSE" = 1 ] && [ $rc -eq 2 ] && head -1 "$err" | sed 's/^/#    /'
		done
	done
	return 0
}

# run_case CASE EXPECT: the damaged copy $T_DIR/case.raw read raw and,
# written back into the image, as a filesystem (the image is restored
# afterwards); damage behind a valid CRC ("valid CRC" in CASE) is read
# raw only.
run_case() {
	local case=$1 expect=$2
	run_one "$case" raw "$T_DIR/case.raw" "$expect"
	[[ $case == *"valid CRC"* ]] && return 0
	dd if="$T_DIR/case.raw" of="$IMG" bs=1M seek="$LOGOFF" oflag=seek_bytes conv=notrunc status=none
	run_one "$case" image "$IMG" "$expect"
	dd if="$BASE.raw" of="$IMG" bs=1M seek="$LOGOFF" oflag=seek_bytes conv=notrunc status=none
}

fresh_copy() { cp "$BASE.raw" "$T_DIR/case.raw"; }

# ---- the cases ----
# Record header: magic 0, cycle 4, version 8, len 12, lsn 16, tail lsn 24,
# crc 32, prev block 36, num_logops 40, cycle data 44..299, fmt 300,
# uuid 304, size 320.  Extended header (block 2.. of the header):
# cycle 0, cycle data 4..259.  Op header: tid 0, len 4, clientid 8,
# flags 9.

cases_for_log() {
	local tag=$1 i b o l k n t expect

	# The pristine log reads without error.
	run_one "$tag pristine" raw "$BASE.raw" 0
	run_one "$tag pristine" image "$IMG" 0

	# Record header fields.
	for k in magic:0:7 version:8:1 len:12:20 lsn:16:3 tail_lsn:24:2 crc:32:5 prev:36:9 numops:40:4 fmt:300:0 uuid:306:3 size:320:18; do
		fresh_copy; pick_mid
		IFS=: read -r n o i <<< "$k"
		flip "$T_DIR/case.raw" $((RB * 512 + o)) "$i"
		run_case "$tag rec-hdr bit $n (record at block $RB)" 2
	done
	# Random bits over the CRC-covered header of three records, but not
	# in h_cycle (the head search reads it).
	for i in 1 2 3; do
		fresh_copy; pick_mid
		for n in 1 2 3 4; do
			o=$((RANDOM % 324))
			[ "$o" -ge 4 ] && [ "$o" -lt 8 ] && o=$((o + 4))
			flip "$T_DIR/case.raw" $((RB * 512 + o)) "$((RANDOM % 8))"
		done
		run_case "$tag rec-hdr 4 random bits #$i (block $RB)" 2
	done
	# Lengths and counts pointing past the record.
	fresh_copy; pick_mid
	put32 "$T_DIR/case.raw" $((RB * 512 + 12)) $((RL + 65536))
	run_case "$tag h_len past the record (block $RB, $RL -> $((RL + 65536)))" 2
	fresh_copy; pick_mid
	put32 "$T_DIR/case.raw" $((RB * 512 + 12)) 0x7ffffe00
	run_case "$tag h_len past the log (block $RB)" 2
	fresh_copy; pick_mid
	put32 "$T_DIR/case.raw" $((RB * 512 + 12)) 0xffffffff
	run_case "$tag h_len -1 (block $RB)" 2
	fresh_copy; pick_mid
	put32 "$T_DIR/case.raw" $((RB * 512 + 40)) 0x7fffffff
	run_case "$tag h_num_logops huge (block $RB)" 2
	fresh_copy; pick_mid
	put32 "$T_DIR/case.raw" $((RB * 512 + 320)) 0x80000000
	run_case "$tag h_size huge (block $RB)" 2
	# A word of cycle data: the first word of one of the record's blocks.
	fresh_copy; pick_mid
	n=$((RL / 512)); [ "$n" -gt 64 ] && n=64
	put32 "$T_DIR/case.raw" $((RB * 512 + 44 + 4 * $((RANDOM % ($n))))) 0xdeadbeef
	run_case "$tag h_cycle_data word (block $RB)" 2
	# Extended headers, where the records have them and are long enough
	# to use them (more than 64 blocks of data), away from the tail and
	# from the last records before the head (need_log).
	awk -v n="$NREC" -v after="$EXT_AFTER" '$2 > 1 && $3 > 65 * 512 &&
		NR > 1 && NR <= n - after { print NR }' "$BASE.recs" > "$T_DIR/ext"
	n=$(wc -l < "$T_DIR/ext")
	if [ "$n" -gt 4 ]; then
		i=$((n / 4 + RANDOM % (n / 2)))
		pick "$(sed -n "${i}p" "$T_DIR/ext")"
		fresh_copy
		o=$(get32 "$T_DIR/case.raw" $(((RB + 1) * 512)))
		flip "$T_DIR/case.raw" $(((RB + 1) * 512 + 3)) "$((RANDOM % 8))"
		n=$(get32 "$T_DIR/case.raw" $(((RB + 1) * 512)))
		# xh_cycle is also the cycle number of its block, which the
		# head search reads: turned into the previous cycle (0 in a
		# log not yet wrapped) within the search's reach of the head,
		# the block is where writing stopped, for the kernel's search
		# as for ours, and the head moves back to this record (a log
		# that reads cleanly, only shorter); further back the CRC
		# tells.  A 0 in a wrapped log may steer the search too.
		# Other values: the CRC tells.
		if [ $((n)) -eq $((o - 1)) ] || [ $((n)) -eq 0 ]; then
			run_case "$tag ext-hdr xh_cycle bit, cycle $((o)) -> $((n)) (block $RB)" any
			"$LP" -f --json --summary "$T_DIR/case.raw" > "$T_DIR/sum" 2>/dev/null
			check "$tag ext-hdr xh_cycle $((o)) -> $((n)): head unchanged ($HEAD) or moved back to block $RB" \
				grep -qE "\"head\":($HEAD|$RB)," "$T_DIR/sum"
		else
			run_case "$tag ext-hdr xh_cycle bit, cycle $((o)) -> $((n)) (block $RB)" 2
		fi
		fresh_copy
		i=$((RL / 512 - 64)); [ "$i" -gt 64 ] && i=64
		put32 "$T_DIR/case.raw" $(((RB + 1) * 512 + 4 + 4 * $((RANDOM % ($i))))) 0xdeadbeef
		run_case "$tag ext-hdr cycle data word (block $RB)" 2
		fresh_copy
		put32 "$T_DIR/case.raw" $(((RB + 1) * 512 + 4 + 4 * (RL / 512 - 64) + 4 * $((RANDOM % 4)))) 0xdeadbeef
		run_case "$tag ext-hdr unused cycle data word (block $RB)" any
	elif [ "${NEED_EXT:-0}" = 1 ]; then
		not_ok "$tag only $n records use extended headers, though need_log asked for more than 4"
	else
		echo "# $tag no record with extended headers in use (32 KiB log buffers)"
	fi

	# Op headers, item payloads, random bytes: first as they are (the
	# record's CRC no longer matches: reported), then with the CRC made
	# valid again (the damage reaches the op walker and the item
	# decoders: a length past the record must still be reported).
	local fix sfx
	for fix in 0 1; do
		sfx=""
		[ $fix = 1 ] && sfx=", valid CRC"
		[ $fix = 1 ] && [ "$CRC_OK" != 1 ] && break
		for k in len-huge:2 len-past:2 len-zero:any clientid:any flags:any tid:any bits:any; do
			n=${k%%:*}
			case $n in tid) i=0 ;; clientid) i=8 ;; flags) i=9 ;; *) i=4 ;; esac
			# A record with an op whose field can be damaged
			# (another one while the picked record has none).
			for ((t = 0; t < 10; t++)); do
				fresh_copy
				if [ $fix = 1 ]; then pick_mid_fixable; else pick_mid; fi
				o=$RANDOM
				read -r o l <<< "$(op_field "$i" 4 "$o")"
				[ -n "$o" ] && break
			done
			[ -n "$o" ] || { not_ok "$tag op-hdr $n: no op to damage in 10 records"; continue; }
			case $n in
			len-huge) put32 "$T_DIR/case.raw" $((o + 4)) 0xfffffff0 ;;
			len-past) put32 "$T_DIR/case.raw" $((o + 4)) $((RL + 4096)) ;;
			len-zero) put32 "$T_DIR/case.raw" $((o + 4)) 0 ;;
			clientid) put "$T_DIR/case.raw" $((o + 8)) 55 ;;
			flags) put "$T_DIR/case.raw" $((o + 9)) ff ;;
			tid) flip "$T_DIR/case.raw" $((o + 1)) "$((RANDOM % 8))" ;;
			bits) for i in 1 2 3; do flip "$T_DIR/case.raw" $((o + 4 + RANDOM % 4)) "$((RANDOM % 8))"; done ;;
			esac
			expect=2
			if [ $fix = 1 ]; then
				"$FIXCRC" "$T_DIR/case.raw" "$RB" || { echo "# $tag op-hdr $n: CRC not fixable"; continue; }
				expect=${k#*:}
			fi
			run_case "$tag op-hdr $n (op at byte $o, record block $RB$sfx)" "$expect"
		done

		# Item payloads: the format header (type, size, counts) and
		# the region bytes, in several ops of a record.
		for k in fmt-bits fmt-counts region-bits; do
			# (Another record while the picked one has nothing
			# to damage.)
			for ((t = 0; t < 10; t++)); do
				fresh_copy
				if [ $fix = 1 ]; then pick_mid_fixable; else pick_mid; fi
				n=0 o=$RANDOM
				while read -r o l; do
					case $k in
					fmt-bits) i=$((o + 12 + RANDOM % (l < 16 ? l : 16))); in_data "$i" 1 &&
						flip "$T_DIR/case.raw" "$i" "$((RANDOM % 8))" && n=$((n + 1)) ;;
					fmt-counts) [ "$l" -ge 8 ] && in_data $((o + 14)) 6 &&
						put "$T_DIR/case.raw" $((o + 14)) ffffffffffff && n=$((n + 1)) ;;
					region-bits) i=$((o + 12 + (RANDOM << 15 | RANDOM) % l)); in_data "$i" 1 &&
						flip "$T_DIR/case.raw" "$i" "$((RANDOM % 8))" && n=$((n + 1)) ;;
					esac
					[ $n -ge 6 ] && break
				done < <(ops_of "$o")
				[ $n -gt 0 ] && break
			done
			[ $n -gt 0 ] || { not_ok "$tag payload $k: nothing to damage in 10 records"; continue; }
			expect=2
			if [ $fix = 1 ]; then
				"$FIXCRC" "$T_DIR/case.raw" "$RB" || { echo "# $tag payload $k: CRC not fixable"; continue; }
				expect=any
			fi
			run_case "$tag payload $k ($n ops of record block $RB$sfx)" "$expect"
		done

		# Random bytes over up to 8 blocks of a record (cycle stamps kept).
		fresh_copy
		if [ $fix = 1 ]; then pick_mid_fixable; else pick_mid; fi
		n=$((RL / 512)); [ "$n" -gt 8 ] && n=8
		for ((i = 0; i < n; i++)); do
			o=$RANDOM
			put "$T_DIR/case.raw" $((RD + i * 512 + 4)) "$(awk -v s="$o" 'BEGIN { srand(s); for (i = 0; i < 508; i++) printf "%02x", int(rand() * 256) }')"
		done
		expect=2
		if [ $fix = 1 ]; then
			"$FIXCRC" "$T_DIR/case.raw" "$RB" && expect=any
		fi
		run_case "$tag random bytes over $n blocks (record block $RB$sfx)" "$expect"
	done

	# Headers behind a valid CRC: a length past the record, a huge op
	# count, a huge h_size.
	if [ "$CRC_OK" = 1 ]; then
		fresh_copy; pick_mid_fixable
		put32 "$T_DIR/case.raw" $((RB * 512 + 12)) $((RL + 65536))
		# If the longer record happens to end exactly where a later
		# record starts, the log still reads as a chain of valid
		# records (the kernel would read it the same way): then any
		# clean outcome is right.
		expect=2
		cut -d' ' -f1 "$BASE.recs" | grep -qx "$((RB + RH + (RL + 65536) / 512))" &&
			expect=any
		"$FIXCRC" "$T_DIR/case.raw" "$RB" &&
			run_case "$tag h_len past the record (block $RB, valid CRC)" "$expect"
		fresh_copy; pick_mid_fixable
		put32 "$T_DIR/case.raw" $((RB * 512 + 40)) 0x7fffffff
		"$FIXCRC" "$T_DIR/case.raw" "$RB" &&
			run_case "$tag h_num_logops huge (block $RB, valid CRC)" any
		fresh_copy; pick_mid_fixable
		put32 "$T_DIR/case.raw" $((RB * 512 + 320)) 0x40000000
		"$FIXCRC" "$T_DIR/case.raw" "$RB" &&
			run_case "$tag h_size 1 GiB (block $RB, valid CRC)" 2
	fi

	# Fuzz behind a valid CRC: FUZZ rounds of 1 to 16 random bytes in the
	# data of one record, raw form only.
	[ "$CRC_OK" = 1 ] || FUZZ=0
	for ((k = 0; k < FUZZ; k++)); do
		fresh_copy; pick_mid_fixable
		n=$((1 + RANDOM % 16))
		for ((i = 0; i < n; i++)); do
			data_off 1
			o=$((RANDOM % 256))
			put "$T_DIR/case.raw" "$DOFF" "$(printf '%02x' "$o")"
		done
		"$FIXCRC" "$T_DIR/case.raw" "$RB" &&
			run_one "$tag fuzz #$k: $n bytes (record block $RB, valid CRC)" raw "$T_DIR/case.raw" any
	done

	# The tail record damaged.
	fresh_copy; pick 1
	if [ "$RL" -gt 16 ]; then
		data_off 1
		flip "$T_DIR/case.raw" "$DOFF" "$((RANDOM % 8))"
		run_case "$tag tail record payload bit (block $RB)" 2
	fi

	# Zeroed blocks in the middle of the live log: the kernel may find the
	# head there (cycle 0), so success is allowed.
	fresh_copy; pick_mid
	zero "$T_DIR/case.raw" $((RB * 512)) $((64 * 512))
	run_case "$tag 64 zeroed blocks (from block $RB)" any
	fresh_copy; pick_mid
	zero "$T_DIR/case.raw" "$RD" 512
	run_case "$tag one zeroed block inside a record (block $((RD / 512)))" any

	# A torn last record: its header written, the rest not (zeros here),
	# or one bit of it wrong (CRC).  Recovery moves the head back to it.
	# (need_log made a last record long enough.)
	pick "$NREC"
	[ "$RL" -gt 1024 ] || not_ok "$tag the last record has $RL bytes, though need_log asked for more than 1024"
	fresh_copy
	zero "$T_DIR/case.raw" $((RD + RL / 2 / 512 * 512)) $((RL - RL / 2 / 512 * 512))
	run_case "$tag torn last record (block $RB, second half zeroed)" 0
	"$LP" -f --json --summary "$T_DIR/case.raw" > "$T_DIR/sum" 2>/dev/null
	check "$tag torn last record (zeros): head moved back to block $RB" grep -q "\"head\":$RB," "$T_DIR/sum"
	check "$tag torn last record (zeros): the kernel's recovery puts the head at block $RB too" \
		kernel_head_is "$T_DIR/case.raw" "$RB"
	fresh_copy
	data_off 1
	flip "$T_DIR/case.raw" "$DOFF" 3
	run_case "$tag last record with a flipped bit (block $RB)" 0
	"$LP" -f --json --summary "$T_DIR/case.raw" > "$T_DIR/sum" 2>/dev/null
	check "$tag last record with a flipped bit: torn_head in the summary" grep -q '"torn_head":true' "$T_DIR/sum"
	check "$tag last record with a flipped bit: head moved back to block $RB" grep -q "\"head\":$RB," "$T_DIR/sum"
	check "$tag last record with a flipped bit: the kernel's recovery puts the head at block $RB too" \
		kernel_head_is "$T_DIR/case.raw" "$RB"

	# An all-zero log: a zeroed log, clean.
	rm -f "$T_DIR/case.raw"; truncate -s "$LOGLEN" "$T_DIR/case.raw"
	run_case "$tag all-zero log" 0

	# Truncated: the raw copy cut in the middle of the live log, and the
	# image cut inside its log.
	fresh_copy; pick $((NREC / 2)); b=$RB
	truncate -s $((b * 512 + 700)) "$T_DIR/case.raw"
	# A raw copy has no superblock: the shorter file is a shorter log.
	run_one "$tag truncated raw log (at block $b + 700 bytes)" raw "$T_DIR/case.raw" any
	cp --sparse=always "$IMG" "$T_DIR/trunc.img"
	truncate -s $((LOGOFF + b * 512 + 700)) "$T_DIR/trunc.img"
	run_one "$tag truncated device (inside the log, at block $b)" image "$T_DIR/trunc.img" 2
	truncate -s $((LOGOFF / 2)) "$T_DIR/trunc.img"
	run_one "$tag truncated device (before the log)" image "$T_DIR/trunc.img" 12
	rm -f "$T_DIR/trunc.img" "$T_DIR/case.raw"
}

export CRASH_SEED=$SEED CRASH_NEED=need_log
IMGA=$T_DIR/a.img
make_crash_image "$IMGA" 1g "" "" 5 || { not_ok "making the crash image"; t_done; exit; }
if load_log "$IMGA"; then
	echo "# a: $NREC live records, head $HEAD, log at byte $LOGOFF"
	cases_for_log "a:"
else
	not_ok "a: reading the crash image's log ($NREC records)"
fi
rm -f "$T_DIR"/a.*

# Extended headers: logbsize=256k, large records.
IMGB=$T_DIR/b.img
NEED_EXT=1
CRASH_SYNCER=0 make_crash_image "$IMGB" 1g "" "logbsize=256k" 8 || { not_ok "making the logbsize=256k image"; t_done; exit; }
if load_log "$IMGB"; then
	echo "# b (logbsize=256k): $NREC live records, head $HEAD"
	cases_for_log "b:"
else
	not_ok "b: reading the logbsize=256k image's log ($NREC records)"
fi
rm -f "$T_DIR"/b.*
t_done
