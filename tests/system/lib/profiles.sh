# shellcheck shell=bash
# The format profiles that the kernel is given after xfsj-mkfs (mkfs-kernel.sh)
# and that the checker must find clean after their workload
# (check-clean.sh).  Needs common.sh and workload.sh.
#
#   KERNEL_PROFILES        "NAME SIZE xfsj-mkfs-OPTIONS..." entries
#   PROFILE_UUID           the uuid they are made with
#   kernel_profile_image NAME IMG SIZE OPTIONS...
#       IMG (SIZE) formatted by xfsj-mkfs with OPTIONS on a loop device,
#       mounted, run_workload, unmounted, detached; each step counted
#       (ok / not_ok, named NAME); the digest of what the workload left
#       in PROFILE_DIGEST.  Fails when a step did.

KERNEL_PROFILES=(
	"defaults 2g"
	"bsize1k 1g -b size=1024"
	"bsize64k 2g -b size=65536"
	"rmapbt0 1g -m rmapbt=0"
	"parent0 1g -n parent=0"
	"striped 2g -d su=64k,sw=4"
	"min300m 300m"
	"sparse1t 1t"
)
PROFILE_UUID=7b2ab6c4-5a0e-4a7c-9d43-1e1f2b7f0c11

kernel_profile_image() {
	local name=$1 img=$2 size=$3 dev mnt=$T_DIR/profmnt out
	shift 3
	PROFILE_DIGEST=""
	rm -f "$img"
	truncate -s "$size" "$img"
	dev=$(attach_loop "$img") || { not_ok "$name: losetup"; return 1; }
	if ! out=$("$MKFS" -q -f -m uuid=$PROFILE_UUID "$@" "$dev" 2>&1); then
		not_ok "$name: xfsj-mkfs failed: $out"
		detach_loop "$dev"
		return 1
	fi
	ok "$name: format"
	# nouuid: the same uuid may be mounted by another test running now
	if ! t_mount "$dev" "$mnt" nouuid; then
		not_ok "$name: mount"; dmesg | tail -5
		detach_loop "$dev"
		return 1
	fi
	ok "$name: mount"
	if ! run_workload "$mnt"; then
		not_ok "$name: workload"
		t_umount "$mnt"
		detach_loop "$dev"
		return 1
	fi
	ok "$name: workload"
	PROFILE_DIGEST=$(workload_digest "$mnt")
	t_umount "$mnt" || { not_ok "$name: unmount"; return 1; }
	detach_loop "$dev"
}
