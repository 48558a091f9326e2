# shellcheck shell=bash
# A real, deterministic workload on a mounted filesystem: thousands of files
# and directories, large and sparse files, xattrs (inline, leaf and remote
# values up to 64 KiB), hard links, reflink copies, renames and deletes.
# Usage: run_workload MNT [scale]   (scale 1 = about 2,500 inodes)

run_workload() {
	local mnt=$1 scale=${2:-1} d f i
	local ndirs=$((25 * scale)) nfiles=100

	mkdir -p "$mnt/tree" || return 1
	for ((d = 0; d < ndirs; d++)); do
		mkdir -p "$mnt/tree/d$d/sub" || return 1
		for ((f = 0; f < nfiles; f++)); do
			printf 'file %d/%d\n' "$d" "$f" > "$mnt/tree/d$d/f$f" || return 1
		done
	done
	# Large and sparse files.
	xfs_io -f -c "pwrite -q -S 0xab 0 32m" -c fsync "$mnt/large" || return 1
	xfs_io -f -c "pwrite -q -S 0x11 0 64k" -c "pwrite -q -S 0x22 300m 64k" \
		-c "pwrite -q -S 0x33 700m 4k" -c "truncate 1g" "$mnt/sparse" || return 1
	xfs_io -f -c "falloc 0 8m" -c "pwrite -q 1m 4k" "$mnt/prealloc" || return 1
	# Extended attributes of every size class.
	for i in 1 100 1000 4000 20000 65536; do
		setfattr -n "user.a$i" -v "$(head -c "$i" /dev/zero | tr '\0' x)" \
			"$mnt/tree/d0/f$((i % nfiles))" 2>/dev/null ||
		setfattr -n "user.a$i" -v "0s$(head -c "$i" /dev/zero | tr '\0' y | base64 -w0)" \
			"$mnt/tree/d0/f$((i % nfiles))" || return 1
	done
	for ((i = 0; i < 50; i++)); do
		setfattr -n "user.many$i" -v "value$i" "$mnt/tree/d1/f0" || return 1
	done
	# Hard links across directories.
	for ((i = 0; i < 50; i++)); do
		ln "$mnt/tree/d2/f$i" "$mnt/tree/d3/link$i" || return 1
	done
	# Reflink copies where the filesystem has reflink.
	if cp --reflink=always "$mnt/large" "$mnt/large.clone" 2>/dev/null; then
		xfs_io -c "pwrite -q -S 0xcd 1m 64k" "$mnt/large.clone" || return 1
	fi
	# Symlinks, renames, deletes.
	ln -s ../large "$mnt/tree/lnk" || return 1
	mv "$mnt/tree/d4" "$mnt/tree/d4.renamed" || return 1
	rm -rf "$mnt/tree/d5" || return 1
	for ((f = 0; f < nfiles; f += 2)); do
		rm -f "$mnt/tree/d6/f$f"
	done
	sync
}

# The checksum of what run_workload left, to compare after a remount.
workload_digest() {
	local mnt=$1
	(cd "$mnt" && find . -type f -print0 | sort -z | xargs -0 md5sum | md5sum)
}
