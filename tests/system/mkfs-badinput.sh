#!/bin/bash
# Bad input to xfsj-mkfs: a clear message, exit status 1, and the device
# left exactly as it was (checksum before and after).
source "$(dirname "$0")/lib/common.sh"
need_root
IMG=$T_DIR/img

sum() { md5sum < "$1" | cut -d' ' -f1; }

# refuse NAME EXPECTED-MESSAGE-REGEX MKFS-ARGS... (the image is the last arg)
refuse() {
	local name=$1 re=$2 before after out rc
	shift 2
	before=$(sum "$IMG")
	out=$("$MKFS" "$@" 2>&1)
	rc=$?
	after=$(sum "$IMG")
	if [ $rc -ne 1 ]; then
		not_ok "$name: exit status $rc, expected 1 ($out)"
	elif ! grep -Eq -- "$re" <<<"$out"; then
		not_ok "$name: message '$out' does not match /$re/"
	elif [ "$before" != "$after" ]; then
		not_ok "$name: the device changed"
	else
		ok "$name"
	fi
}

truncate -s 320m "$IMG"
head -c 1M /dev/urandom | dd of="$IMG" conv=notrunc status=none
refuse "bad block size" "illegal block size" -f -b size=3000 "$IMG"
refuse "block size too big" "illegal value" -f -b size=131072 "$IMG"
refuse "inode size too big" "illegal value|inode size" -f -i size=4096 "$IMG"
refuse "inode larger than block" "larger than the block size" -f -b size=1024 -i size=2048 "$IMG"
refuse "agcount 0" "illegal value" -f -d agcount=0 "$IMG"
refuse "agsize too small" "too small" -f -d agsize=8m "$IMG"
refuse "agsize not block multiple" "not a multiple" -f -d agsize=16777217 "$IMG"
refuse "log too small" "too small|at least" -f -l size=4m "$IMG"
refuse "log too big" "too large" -f -l size=600m "$IMG"
refuse "crc=0" "v4" -f -m crc=0 "$IMG"
refuse "external log on a character device" "neither a block device" -f -l logdev=/dev/null "$IMG"
refuse "internal=0 without logdev=" "needs -l logdev" -f -l internal=0 "$IMG"
refuse "logdev= with internal=" "Cannot specify both" -f -l logdev="$IMG",internal=1 "$IMG"
refuse "logdev= the data device" "is the data device" -f -l logdev="$IMG" "$IMG"
refuse "realtime" "realtime" -f -r rtdev=/dev/null "$IMG"
refuse "metadir" "metadir" -f -m metadir=1 "$IMG"
refuse "ascii-ci" "naming version" -f -n version=ci "$IMG"
refuse "unknown suboption" "unknown suboption" -f -d frobnicate=1 "$IMG"
refuse "label too long" "too long" -f -L thirteen-char "$IMG"
refuse "su without sw" "both data su and data sw" -f -d su=64k "$IMG"
refuse "sunit without swidth" "both data sunit and data swidth" -f -d sunit=128 "$IMG"
refuse "su not a multiple of block" "multiple of the block size" -f -d su=6k,sw=2 "$IMG"
refuse "finobt=0 with inobtcount" "inobtcount" -f -m finobt=0 "$IMG"
refuse "ftype=0" "ftype" -f -n ftype=0 "$IMG"
refuse "bad number" "illegal value" -f -d size=12q "$IMG"
refuse "missing config file" "config file" -f -c options=/nonexistent/x.conf "$IMG"
refuse "no device" "no device" -f
refuse "missing device" "cannot open" -f /nonexistent/device

# Too small: mkfs.xfs's 300 MB limit.
truncate -s 200m "$IMG"
refuse "below 300 MB" "larger than 300MB" -f "$IMG"
refuse "tiny even with --small" "too small" -f --small -d size=4m "$IMG"
truncate -s 320m "$IMG"

# Existing signatures without -f.
mkfs.ext4 -q -F "$IMG"
refuse "existing ext4" "existing filesystem \(ext4\).*|-f" "$IMG"
dd if=/dev/zero of="$IMG" bs=1M count=1 conv=notrunc status=none
printf 'label: gpt\n,100M\n' | sfdisk -q "$IMG" >/dev/null 2>&1
refuse "existing partition table" "partition table \((gpt|dos)\)" "$IMG"
check "-f overrides a signature" "$MKFS" -q -f "$IMG"
refuse "existing xfs" "existing filesystem \(xfs\)" "$IMG"

# A device smaller than -d size.
dev=$(attach_loop "$IMG")
before=$(sum "$IMG")
out=$("$MKFS" -f -d size=2g "$dev" 2>&1)
rc=$?
check "block device smaller than -d size refused (rc=$rc: $out)" test $rc -eq 1
check "and left unchanged" test "$before" = "$(sum "$IMG")"

# A mounted device, and the file behind it.
check "format for mount" "$MKFS" -q -f "$dev"
t_mount "$dev" "$T_DIR/mnt" || not_ok "mount"
uuid=$(blkid -s UUID -o value "$dev")
out=$("$MKFS" -f "$dev" 2>&1)
rc=$?
check "mounted device refused (rc=$rc)" test $rc -eq 1
check "mounted device message names it" grep -q "mounted" <<<"$out"
out=$("$MKFS" -f "$IMG" 2>&1)
rc=$?
check "backing file of a mounted loop refused (rc=$rc: $out)" test $rc -eq 1
t_umount "$T_DIR/mnt"
check "mounted filesystem untouched" test "$uuid" = "$(blkid -s UUID -o value "$dev")"
detach_loop "$dev"

# -N never writes.
truncate -s 1g "$T_DIR/n.img"
before=$(sum "$T_DIR/n.img")
"$MKFS" -N -f "$T_DIR/n.img" >/dev/null
check "-N leaves the device alone" test "$before" = "$(sum "$T_DIR/n.img")"
t_done
