# shellcheck shell=bash
# A canonical description of a mounted filesystem, for comparing two
# replays of one crash image: every name with its inode number, type,
# mode, owner, size, link count, xattrs, content digest and extent map,
# then the free block and inode counts.
# Usage: tree_dump MNT > file

tree_dump() {
	local mnt=$1
	(
		cd "$mnt" || exit 1
		find . -xdev -print0 | LC_ALL=C sort -z | while IFS= read -r -d '' p; do
			local st x d e
			st=$(stat -c '%i %F %a %u %g %s %h' -- "$p")
			x=$(getfattr -h -d -m - -e hex -- "$p" 2>/dev/null | grep -v '^#' | LC_ALL=C sort | tr '\n' ' ')
			d=-
			e=-
			if [ -f "$p" ] && [ ! -L "$p" ]; then
				d=$(md5sum < "$p" | cut -c1-32)
				# Physical extents (FIEMAP): logical, physical, length, flags.
				e=$(xfs_io -r -c "fiemap -v" -- "$p" 2>/dev/null | awk 'NR > 2 { printf "%s/%s/%s/%s;", $2, $3, $4, $5 }')
			elif [ -L "$p" ]; then
				d=$(readlink -- "$p")
			fi
			printf '%s | %s | %s | %s | %s\n' "$p" "$st" "$x" "$d" "$e"
		done
		stat -f -c 'blocks free %f of %b, inodes free %d of %c' .
	)
}
