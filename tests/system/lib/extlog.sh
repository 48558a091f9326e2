# shellcheck shell=bash
# Crash images of filesystems with an external log device, made by the
# kernel.  Needs common.sh and crashgen.sh (crash_workload).
#
#   extlog_crash_image DATA LOG SEED MODE [LOGSIZE [MKFS]]
#       new DATA (1 GiB) and LOG (96 MiB) image files, formatted with the
#       log on LOG (LOGSIZE, default 64m; MKFS, default mkfs.xfs 6.13),
#       mounted with -o logdev=, crash_workload SEED MODE run in the
#       background, `shutdown -f` after a seeded 0.8 to 2.8 s, unmounted:
#       both loop devices detached, the log dirty.
extlog_crash_image() {
	local d l mnt=$T_DIR/extlogmnt wl mkfs=${6:-$XFSPROGS613/mkfs.xfs}
	rm -f "$1" "$2"
	truncate -s 1g "$1"
	truncate -s 96m "$2"
	d=$(attach_loop "$1") || return 1
	l=$(attach_loop "$2") || return 1
	"$mkfs" -q -f -l logdev="$l",size="${5:-64m}" "$d" || return 1
	t_mount "$d" "$mnt" "logdev=$l" || return 1
	set -m
	( crash_workload "$mnt" "$3" "$4" ) &
	wl=$!
	set +m
	sleep "$(awk -v s="$3" 'BEGIN { srand(s); printf "%.2f", 0.8 + 2 * rand() }')"
	xfs_io -x -c "shutdown -f" "$mnt"
	kill -- -"$wl" 2>/dev/null
	wait "$wl" 2>/dev/null
	t_umount "$mnt" || return 1
	detach_loop "$l"
	detach_loop "$d"
}
