# shellcheck shell=bash
# Shared helpers of the system tests.  Source it; it sets a cleanup trap.
#
# Rules every test follows through these helpers:
#  - its own temporary directory and names (mktemp), removed at exit;
#  - it unmounts only what it mounted and detaches only the loop devices it
#    attached, in an EXIT trap, even when a check fails half-way;
#  - it never kills a process it did not start;
#  - results are counted and printed as "N passed, N failed".

set -u

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
BUILD=${XFSJ_BUILD:-$TOP}
MKFS=${XFSJ_MKFS:-$BUILD/xfsj-mkfs}
T_NAME=$(basename "$0" .sh)
T_DIR=$(mktemp -d "/tmp/xfsj-${T_NAME}.XXXXXX")
# xfsj-repair's default redo files (named by the filesystem's uuid, which
# the populated images share) stay this test's own: two tests, or a test
# and a person, running at once never finish each other's runs.
export XFSJ_REDO_DIR=$T_DIR
T_PASS=0
T_FAIL=0
T_VERBOSE=${XFSJ_VERBOSE:-0}

# What this test attached and mounted is recorded in files under T_DIR, not
# in shell variables, so that `dev=$(attach_loop ...)` (a subshell) is
# tracked too.
T_LOOPFILE=$T_DIR/.loops
T_MOUNTFILE=$T_DIR/.mounts
: > "$T_LOOPFILE"
: > "$T_MOUNTFILE"

t_cleanup() {
	local m l
	if [ -s "$T_MOUNTFILE" ]; then
		tac "$T_MOUNTFILE" | while read -r m; do
			umount "$m" 2>/dev/null || { sleep 1; umount "$m" 2>/dev/null; } ||
				umount -l "$m" 2>/dev/null
		done
	fi
	if [ -s "$T_LOOPFILE" ]; then
		while read -r l; do
			losetup -d "$l" 2>/dev/null
		done < "$T_LOOPFILE"
	fi
	if [ "${XFSJ_KEEP:-0}" = 1 ] && [ "$T_FAIL" -gt 0 ]; then
		echo "# kept $T_DIR for inspection" >&2
	else
		rm -rf "$T_DIR"
	fi
}
trap t_cleanup EXIT
trap 'exit 130' INT TERM

need_root() {
	if [ "$(id -u)" != 0 ]; then
		echo "$T_NAME: must run as root (loop devices, mounts)" >&2
		exit 2
	fi
}

ok() { T_PASS=$((T_PASS + 1)); [ "$T_VERBOSE" = 1 ] && echo "ok - $*"; return 0; }
not_ok() { T_FAIL=$((T_FAIL + 1)); echo "not ok - $*"; return 0; }

# check DESCRIPTION COMMAND...: passes when the command succeeds.
check() {
	local what=$1
	shift
	if "$@"; then ok "$what"; else not_ok "$what"; fi
}

# Attach FILE to a new loop device; prints the device.
attach_loop() {
	local dev
	dev=$(losetup -f --show "$1") || return 1
	echo "$dev" >> "$T_LOOPFILE"
	echo "$dev"
}

_t_forget() {	# FILE LINE
	grep -vxF -- "$2" "$1" > "$1.new"
	mv "$1.new" "$1"
}

detach_loop() {
	losetup -d "$1" || return 1
	_t_forget "$T_LOOPFILE" "$1"
}

# t_private_copy PROG: a copy of PROG in this test's own directory, where
# another user (runuser -u nobody) can run it: the tree itself may sit
# under a 0700 directory (a clone in /root) that only root can reach.
# Prints the copy's path.
t_private_copy() {
	local d=$T_DIR/bin-shared
	mkdir -p "$d" || return 1
	chmod 755 "$T_DIR" "$d" || return 1
	install -m 755 "$1" "$d/" || return 1
	echo "$d/$(basename "$1")"
}

# t_mount DEV DIR [mount options]
t_mount() {
	mkdir -p "$2"
	mount ${3:+-o "$3"} "$1" "$2" || return 1
	echo "$2" >> "$T_MOUNTFILE"
}

# Unmount, retrying for a few seconds while something of ours still
# holds the filesystem busy.
t_umount() {
	local i
	for i in 1 2 3 4 5 6 7 8 9 10; do
		umount "$1" 2>/dev/null && { _t_forget "$T_MOUNTFILE" "$1"; return 0; }
		sleep 0.5
	done
	umount "$1" || return 1
	_t_forget "$T_MOUNTFILE" "$1"
}

# kernel_replay IMG: the kernel replays the log of the filesystem in IMG
# (mount, unmount).
kernel_replay() {
	local dev mnt=$T_DIR/kmnt
	dev=$(attach_loop "$1") || return 1
	t_mount "$dev" "$mnt" || { detach_loop "$dev"; return 1; }
	t_umount "$mnt"
	detach_loop "$dev"
}

# The xfsprogs 6.13 oracle (built once into a cache).
oracle_613() {
	if [ -z "${XFSPROGS613:-}" ]; then
		# shellcheck source=/dev/null
		source "$TOP/tests/system/lib/xfsprogs613.sh" >&2 || {
			echo "$T_NAME: cannot build the xfsprogs 6.13 oracle" >&2
			exit 2
		}
	fi
	[ -x "$XFSPROGS613/mkfs.xfs" ] || { echo "$T_NAME: no mkfs.xfs in $XFSPROGS613" >&2; exit 2; }
}

# newfeat OPTIONS...: the features xfsj-mkfs turns on by default but
# mkfs.xfs 6.13 does not, spelt out for mkfs.xfs so that both tools are
# asked for the same filesystem; only those OPTIONS do not set already
# (mkfs.xfs refuses an option given twice).
newfeat() {
	case "$*" in *exchange=*) ;; *) printf -- '-i exchange=1 ' ;; esac
	case "$*" in *parent=*) ;; *) printf -- '-n parent=1 ' ;; esac
}

t_done() {
	echo "# $T_NAME: $T_PASS passed, $T_FAIL failed"
	echo "$T_PASS passed, $T_FAIL failed"
	[ "$T_FAIL" -eq 0 ]
}

# sparse_sum FILE: a SHA-256 of FILE's size, its data segments and where
# they lie (SEEK_DATA/SEEK_HOLE: the holes of a sparse image are never
# read).  sparse_sum FILE blocks: instead, a line "offset crc32" for each
# 4 KiB block of the data segments that is not all zeroes: two files
# whose lists are equal hold the same bytes, wherever their holes fell.
sparse_sum() {
	python3 - "$@" <<'PY'
import hashlib, os, sys, zlib
blocks = len(sys.argv) > 2 and sys.argv[2] == "blocks"
fd = os.open(sys.argv[1], os.O_RDONLY)
end = os.fstat(fd).st_size
h = hashlib.sha256(b"%d;" % end)
off = 0
while off < end:
    try:
        off = os.lseek(fd, off, os.SEEK_DATA)
    except OSError:
        break
    hole = os.lseek(fd, off, os.SEEK_HOLE)
    if blocks:
        off -= off % 4096
    else:
        h.update(b"@%d:" % off)
    while off < hole:
        b = os.pread(fd, 4096 if blocks else min(1 << 20, hole - off), off)
        if not b:
            break
        if not blocks:
            h.update(b)
        elif b.strip(b"\0"):
            print(off, zlib.crc32(b))
        off += len(b)
if not blocks:
    print(h.hexdigest())
PY
}
