#!/bin/bash
# xfsj-repair on damaged logs: the log is hostile input too.  Crash images
# made by the kernel (crashgen.sh) get, case by case, one op payload of a
# live record damaged behind a valid record CRC (one bit flipped, or up
# to 64 bytes overwritten with random ones), so that the damage reaches
# the replay and the finishing of intents rather than the record checks.
# For each case:
#   - `xfsj-repair -n` and `xfsj-repair` end within 60 s, never from a
#     signal, with a documented exit status (-n: 0 clean, 1 problems
#     found in the replayed filesystem, 2 a dirty log whose replay checks
#     clean, 4 leftover work unsupported, 8 could not check; else 0, 4
#     or 8);
#   - -n never changes the image; exit 4 or 8 leaves it unchanged and
#     says why on one line naming the image;
#   - after exit 0 the log is clean: a second run says so;
#   - the same -n run under ASan and UBSan ($XFSJ_REPAIR_SAN, default
#     ./xfsj-repair-san, built here with `make xfsj-repair-san` when it is
#     not there) reports nothing.
# The kernel, given such a log (a valid CRC around garbage), replays the
# garbage as well or refuses to mount: what is asked here is no crash, no
# hang, no write the user did not ask for, and a clear refusal.
#
#   SEED=s (default: the time)  ROUNDS=n per image (default 15)
source "$(dirname "$0")/lib/common.sh"
source "$TOP/tests/system/lib/crashgen.sh"
source "$TOP/tests/system/lib/san.sh"
need_root
oracle_613
REPAIR=${XFSJ_REPAIR:-$BUILD/xfsj-repair}
LP=${XFSJ_LOGPRINT:-$BUILD/xfsj-logprint}
SEED=${SEED:-$(( $(date +%s) % 100000 ))}
ROUNDS=${ROUNDS:-15}
echo "# repair-corrupt: seed $SEED, $ROUNDS cases per image"
RANDOM=$SEED

san_repair

FIXCRC=$T_DIR/fixcrc
cc -O2 -o "$FIXCRC" "$TOP/tests/system/lib/fixcrc.c" ||
	{ echo "$T_NAME: cannot build the CRC helper" >&2; exit 2; }

# Whether the image was written to: its size and modification time (to
# the nanosecond), which any write changes, even of the same bytes; a
# checksum of the whole 1 GiB image per run would cost seconds.
sum() { stat -c '%s %y' "$1"; }

# load IMG: its raw log ($T_DIR/base.raw), where the log sits in the image
# (LOGOFF), and the op payloads of live records that do not wrap past the
# end of the log: "record-block header-blocks data-len payload-offset
# payload-len" in $T_DIR/payloads.
load() {
	"$LP" -C "$T_DIR/base.raw" "$1" > /dev/null 2>&1 || return 1
	LOGOFF=$(( $("$LP" --json --summary "$1" | grep -o '"log_daddr":[0-9]*' | cut -d: -f2) * 512 ))
	LOGLEN=$(stat -c %s "$T_DIR/base.raw")
	"$LP" -f --json --ops "$T_DIR/base.raw" |
		awk -v loglen="$LOGLEN" '
		/"kind":"record"/ {
			live = /"live":true/
			match($0, /"block":[0-9]+/); b = substr($0, RSTART + 8, RLENGTH - 8)
			match($0, /"hblks":[0-9]+/); h = substr($0, RSTART + 8, RLENGTH - 8)
			match($0, /"len":[0-9]+/); rl = substr($0, RSTART + 6, RLENGTH - 6)
			ok = live && (b + h) * 512 + rl <= loglen
		}
		/"kind":"op"/ && ok {
			match($0, /"offset":[0-9]+/); o = substr($0, RSTART + 9, RLENGTH - 9)
			match($0, /"len":[0-9]+/); l = substr($0, RSTART + 6, RLENGTH - 6)
			if (l > 0) print b, h, rl, o + 12, l
		}' > "$T_DIR/payloads"
	[ -s "$T_DIR/payloads" ]
}

# damage: one case on a copy of the raw log; sets WHAT, and REC_OFF and
# REC_LEN, the bytes of the raw log that changed (the record)
damage() {
	local n b h rl o l k off bit cnt
	n=$(wc -l < "$T_DIR/payloads")
	read -r b h rl o l <<< "$(sed -n "$(( (RANDOM << 15 | RANDOM) % n + 1 ))p" "$T_DIR/payloads")"
	REC_OFF=$((b * 512)) REC_LEN=$(((h + (rl + 511) / 512) * 512))
	cp "$T_DIR/base.raw" "$T_DIR/case.raw"
	k=$((RANDOM % 3))
	if [ $k -lt 2 ]; then
		# one bit, away from the cycle stamp at the start of a block
		while :; do
			off=$((o + (RANDOM << 15 | RANDOM) % l))
			[ $((off % 512)) -ge 4 ] && break
		done
		bit=$((RANDOM % 8))
		printf '%b' "\\x$(printf '%02x' $(( $(od -An -tu1 -j "$off" -N1 "$T_DIR/case.raw") ^ (1 << bit) )))" |
			dd of="$T_DIR/case.raw" bs=1 seek="$off" conv=notrunc status=none
		WHAT="bit $bit of byte $off (op payload at $o, $l bytes, record $b)"
	else
		# up to 64 random bytes from a random point of the payload
		off=$((o + (RANDOM << 15 | RANDOM) % l))
		cnt=$((1 + RANDOM % 64))
		[ $((off + cnt)) -gt $((o + l)) ] && cnt=$((o + l - off))
		head -c "$cnt" /dev/urandom |
			dd of="$T_DIR/case.raw" bs=1 seek="$off" conv=notrunc status=none
		WHAT="$cnt random bytes at $off (op payload at $o, $l bytes, record $b)"
	fi
	"$FIXCRC" "$T_DIR/case.raw" "$b" || return 1
}

# run BIN ARGS...: runs with a 60 s limit; sets RC, OUT (stdout+stderr)
run() {
	OUT=$(timeout 60 "$@" -r "$T_DIR/case.redo" "$T_DIR/case.img" 2>&1)
	RC=$?
}

images=("defaults full" "noparent free" "defaults inode" "normap free")
ncase=0 nreplayed=0 nrefused=0
for ((i = 0; i < ${#images[@]}; i++)); do
	read -r profile mode <<< "${images[i]}"
	img=$T_DIR/crash.img
	# An image whose live log holds op payloads to damage: made again
	# (other seeds) when the crash left none, up to 3 times.
	made=""
	for ((try = 0; try < 3; try++)); do
		if ! crash_image "$img" $((SEED + i + 1000 * try)) "$profile" "$mode" 2> "$T_DIR/gen.err"; then
			made="could not make it ($(head -c 200 "$T_DIR/gen.err"))"
			continue
		fi
		if load "$img"; then
			made=ok
			break
		fi
		made="no op payloads in its live log"
		echo "# image $profile $mode (seed $((SEED + i + 1000 * try))): $made; another"
	done
	if [ "$made" != ok ]; then
		not_ok "image $profile $mode: 3 tries: $made"
		continue
	fi
	# ROUNDS cases (a damaged record whose CRC cannot be made valid
	# again is passed over, at most ROUNDS times).
	for ((r = 0, skip = 0; r < ROUNDS && skip <= ROUNDS; )); do
		damage || { skip=$((skip + 1)); continue; }
		r=$((r + 1))
		name="$profile $mode: $WHAT"
		cp --sparse=always "$img" "$T_DIR/case.img"
		# The damaged record back in place.
		dd if="$T_DIR/case.raw" of="$T_DIR/case.img" bs=512 iflag=skip_bytes,count_bytes \
			oflag=seek_bytes skip="$REC_OFF" count="$REC_LEN" \
			seek=$((LOGOFF + REC_OFF)) conv=notrunc status=none
		rm -f "$T_DIR/case.redo"
		before=$(sum "$T_DIR/case.img")
		ncase=$((ncase + 1))

		run "$REPAIR" -n
		case $RC in
		0|1|2|4|8) ok "$name: -n exit $RC" ;;
		*) not_ok "$name: -n exit $RC: $(tail -1 <<< "$OUT")" ;;
		esac
		[ "$(sum "$T_DIR/case.img")" = "$before" ] ||
			not_ok "$name: -n changed the image"
		if [ -n "$SAN" ]; then
			run "$SAN" -n
			if san_report "$OUT"; then
				not_ok "$name: sanitizer report: $(grep -m1 -E 'ERROR|runtime error' <<< "$OUT")"
			elif ! [[ $RC =~ ^[01248]$ ]]; then
				not_ok "$name: sanitizer build -n exit $RC"
			else
				ok "$name: sanitizer build -n quiet (exit $RC)"
			fi
		fi

		run "$REPAIR" --replay-only
		case $RC in
		0)
			nreplayed=$((nreplayed + 1))
			run "$REPAIR" --replay-only
			check "$name: replayed; a second run finds a clean log" \
				grep -q "log is clean" <<< "$OUT"
			;;
		4|8)
			nrefused=$((nrefused + 1))
			check "$name: refused (exit $RC) without a byte written" \
				test "$(sum "$T_DIR/case.img")" = "$before"
			check "$name: refused (exit $RC), saying why: $(grep -m1 'xfsj-repair\|cannot\|corrupt' <<< "$OUT" | cut -c1-160)" \
				grep -q "case.img" <<< "$OUT"
			;;
		*)
			not_ok "$name: exit $RC: $(tail -2 <<< "$OUT" | tr '\n' ' ')"
			;;
		esac
		[ -e "$T_DIR/case.redo" ] && not_ok "$name: a redo file was left behind"
	done
done
echo "# $ncase damaged logs: $nreplayed replayed, $nrefused refused"
check "$ROUNDS damaged logs tried on each of the ${#images[@]} images ($ncase)" test $ncase -eq $((ROUNDS * ${#images[@]}))
t_done
