#!/bin/bash
# xfsj-repair -O: the replay (and repair) written into a copy, the
# original never written.  Crash images made by the kernel (mount, seeded
# workload, `shutdown -f` while it runs, unmount); for each, copy A is
# replayed in place and the original O into a copy C with -O:
#   - O is opened read-only: an image file made immutable (chattr +i,
#     which refuses even root an open for writing), or read-only loop
#     devices (losetup -r) for the external log case; its bytes (md5)
#     are unchanged;
#   - C (and, with an external log, C.log) equals A byte for byte, is
#     sparse, and xfs_repair -n finds it clean;
#   - the same run into a block device (a loop device over a file
#     holding junk) gives the same bytes;
# and the refusals: an existing non-empty file without -f (then -f
# overwrites it), -O with -n, -O naming the device itself or the file
# behind its loop device.
#
#   SEED=s
source "$(dirname "$0")/lib/common.sh"
source "$TOP/tests/system/lib/crashgen.sh"
source "$TOP/tests/system/lib/extlog.sh"
need_root
# Two runs are compared byte for byte: the time a replay stamps where the
# kernel stamps its clock (an xattr finished in short form) is fixed.
export SOURCE_DATE_EPOCH=1800000000
oracle_613
REPAIR=${XFSJ_REPAIR:-$BUILD/xfsj-repair}
SEED=${SEED:-$(( $(date +%s) % 100000 ))}
echo "# replay-copy: seed $SEED"

sum() { md5sum < "$1" | cut -d' ' -f1; }
# Immutable files would outlive the test's cleanup: made mutable first.
IMMUTABLE=()
trap 'for f in "${IMMUTABLE[@]}"; do chattr -i "$f"; done 2>/dev/null; t_cleanup' EXIT
immutable() { chattr +i "$1" && IMMUTABLE+=("$1"); }

clean_613() {
	"$XFSPROGS613/xfs_repair" -n "$@" > "$T_DIR/x.out" 2>&1
}

# ---- an internal log, image files ----
O=$T_DIR/o.img A=$T_DIR/a.img C=$T_DIR/c.img
ok_case=0
for ((t = 0; t < 4 && ok_case == 0; t++)); do
	seed=$((SEED + t))
	if ! crash_image "$O" "$seed" defaults safe 2> "$T_DIR/gen.err"; then
		not_ok "seed $seed: could not make the crash image ($(head -c 200 "$T_DIR/gen.err"))"
		continue
	fi
	# A log with something to replay, else another seed.
	"$REPAIR" -n "$O" > /dev/null 2>&1
	[ $? -eq 2 ] && ok_case=1
done
check "a crash image with a dirty log (seed $seed)" test $ok_case = 1
cp --sparse=always "$O" "$A"
"$REPAIR" "$A" > "$T_DIR/a.out" 2>&1
arc=$?
bo=$(sum "$O")
immutable "$O"
not_writable() { ! ( exec 3>> "$1" ) 2> /dev/null; }
check "O is immutable (opening it for writing fails)" not_writable "$O"
"$REPAIR" -O "$C" "$O" > "$T_DIR/c.out" 2>&1
crc=$?
check "-O: same exit as in place ($crc, $arc)" test $crc = $arc
check "-O: says the original is not written" grep -q "is not written" "$T_DIR/c.out"
check "-O: the original's bytes are unchanged" test "$(sum "$O")" = "$bo"
check "-O: the copy equals the in-place replay byte for byte" cmp -s "$A" "$C"
alloc=$(du -k "$C" | cut -f1) apparent=$(( $(stat -c %s "$C") / 1024 ))
check "-O: the copy is sparse (${alloc} KiB of ${apparent} KiB)" test "$alloc" -lt $((apparent / 4))
check "-O: xfs_repair -n finds the copy clean" clean_613 "$C"
check "-O: a second run finds a clean log on the copy" \
	grep -q "log is clean" <("$REPAIR" --replay-only "$C" 2>&1)
check "-O: no redo file left beside the copy" test ! -e "$C.redo"

# Refusals, and -f.
bc=$(sum "$C")
"$REPAIR" --replay-only -O "$C" "$O" > "$T_DIR/r.out" 2>&1
rc=$?
check "an existing non-empty copy without -f: refused, exit 8 ($rc): $(head -1 "$T_DIR/r.out")" \
	test $rc = 8 -a "$(sum "$C")" = "$bc"
"$REPAIR" -n -O "$T_DIR/n.img" "$O" > /dev/null 2>&1
rc=$?
check "-O with -n: refused, exit 8 ($rc), nothing made" test $rc = 8 -a ! -e "$T_DIR/n.img"
chattr -i "$O"
"$REPAIR" --replay-only -O "$O" "$O" > "$T_DIR/r.out" 2>&1
rc=$?
check "-O naming the device itself: refused, exit 8 ($rc): $(head -1 "$T_DIR/r.out")" \
	test $rc = 8 -a "$(sum "$O")" = "$bo"
dev=$(attach_loop "$O")
"$REPAIR" --replay-only -f -O "$O" "$dev" > "$T_DIR/r.out" 2>&1
rc=$?
detach_loop "$dev"
check "-O naming the file behind the device's loop device: refused, exit 8 ($rc): $(head -1 "$T_DIR/r.out")" \
	test $rc = 8 -a "$(sum "$O")" = "$bo"
immutable "$O"
head -c 1M /dev/urandom > "$C"
"$REPAIR" -f --replay-only -O "$C" "$O" > "$T_DIR/f.out" 2>&1
rc=$?
cp --sparse=always "$O" "$T_DIR/ro.img"
"$REPAIR" --replay-only "$T_DIR/ro.img" > /dev/null 2>&1
check "-f overwrites a non-empty copy: the replay of O (exit $rc)" \
	cmp -s "$T_DIR/ro.img" "$C"

# Into a block device holding junk: every byte comes out as in place.
truncate -s "$(stat -c %s "$O")" "$T_DIR/dev.img"
head -c 8M /dev/urandom | dd of="$T_DIR/dev.img" conv=notrunc status=none
dev=$(attach_loop "$T_DIR/dev.img")
"$REPAIR" -O "$dev" "$O" > "$T_DIR/d.out" 2>&1
rc=$?
check "-O onto a block device: exit $rc, equals the in-place replay" \
	cmp -s "$A" "$dev"
detach_loop "$dev"
check "the original's bytes are still unchanged" test "$(sum "$O")" = "$bo"
chattr -i "$O"

# ---- an external log, read-only loop devices ----
D=$T_DIR/d.img L=$T_DIR/l.img
if extlog_crash_image "$D" "$L" "$SEED" safe 2> "$T_DIR/gen.err"; then
	cp --sparse=always "$D" "$T_DIR/a2.img"
	cp --sparse=always "$L" "$T_DIR/a2.log"
	"$REPAIR" -l "$T_DIR/a2.log" "$T_DIR/a2.img" > "$T_DIR/a2.out" 2>&1
	arc=$?
	bd=$(sum "$D") bl=$(sum "$L")
	rd=$(losetup -r -f --show "$D") && echo "$rd" >> "$T_LOOPFILE"
	rl=$(losetup -r -f --show "$L") && echo "$rl" >> "$T_LOOPFILE"
	"$REPAIR" -l "$rl" -O "$T_DIR/c2.img" "$rd" > "$T_DIR/c2.out" 2>&1
	crc=$?
	"$REPAIR" -l "$rl" -O "$T_DIR/c3.img" --output-log "$T_DIR/c3.lg" --replay-only "$rd" > /dev/null 2>&1
	rc3=$?
	detach_loop "$rl"
	detach_loop "$rd"
	check "external log -O: same exit as in place ($crc, $arc)" test $crc = $arc
	check "external log -O: neither device written" \
		test "$(sum "$D") $(sum "$L")" = "$bd $bl"
	check "external log -O: the copy equals the in-place replay" \
		cmp -s "$T_DIR/a2.img" "$T_DIR/c2.img"
	check "external log -O: the log copy (COPY.log) equals the in-place replay's log" \
		cmp -s "$T_DIR/a2.log" "$T_DIR/c2.img.log"
	check "external log -O: xfs_repair -n -l finds the copy clean" \
		clean_613 -l "$T_DIR/c2.img.log" "$T_DIR/c2.img"
	check "external log --output-log: the log copy where asked, log clean (exit $rc3)" \
		grep -q "log is clean" <("$REPAIR" -n -l "$T_DIR/c3.lg" "$T_DIR/c3.img" 2>&1)
	"$REPAIR" -O "$T_DIR/x.img" --output-log "$T_DIR/x.lg" "$D" > /dev/null 2>&1
	rc=$?
	check "--output-log without -l: refused, exit 8 ($rc)" test $rc = 8 -a ! -e "$T_DIR/x.img"
else
	not_ok "could not make the external log crash image ($(head -c 200 "$T_DIR/gen.err"))"
fi
t_done
