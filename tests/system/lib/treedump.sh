# shellcheck shell=bash
# A canonical description of a mounted filesystem, for comparing two
# replays of one crash image: every name with its inode number, type,
# mode, owner, size, link count, xattrs, content digest (or symlink
# target) and extent map (FIEMAP), then the free block and inode counts.
# A handful of processes per filesystem, not per file: the crash suite
# dumps thousands of files.  Names are assumed free of tabs and newlines
# (the generators make none).
# Usage: tree_dump MNT > file
#        dump_image IMG OUT [MOUNT-OPTIONS]   IMG mounted (default ro),
#        described into OUT, unmounted (needs common.sh)

tree_dump() {
	local mnt=$1 w
	w=$(mktemp -d) || return 1
	(
		cd "$mnt" || exit 1
		find . -xdev -printf '%p\t%i %y %m %U %G %s %n\n' > "$w/meta"
		find . -xdev -type l -printf '%p\t%l\n' > "$w/links"
		find . -xdev -type f -print0 | xargs -0 -r md5sum > "$w/sums"
		find . -xdev -type f -print0 |
			xargs -0 -r xfs_io -r -c "fiemap -v" > "$w/maps" 2>/dev/null
		getfattr -R -P -h -d -m - -e hex . > "$w/attrs" 2>/dev/null
		stat -f -c 'blocks free %f of %b, inodes free %d of %c' . > "$w/statfs"
	) || { rm -rf "$w"; return 1; }
	LC_ALL=C awk -F'\t' '
	function norm(p) { return (p == "." || substr(p, 1, 2) == "./") ? p : "./" p }
	FILENAME ~ /links$/ { target[$1] = $2; next }
	FILENAME ~ /sums$/ {
		h = substr($0, 1, 32); p = substr($0, 35); sum[norm(p)] = h; next
	}
	FILENAME ~ /maps$/ {
		if ($0 ~ /:$/ && $0 !~ /^ /) { cur = norm(substr($0, 1, length($0) - 1)); next }
		if ($0 ~ /^ *[0-9]+:/) {
			split($0, f, " +"); k = (f[1] == "") ? 2 : 1
			ext[cur] = ext[cur] f[k + 1] "/" f[k + 2] "/" f[k + 3] "/" f[k + 4] ";"
		}
		next
	}
	FILENAME ~ /attrs$/ {
		if ($0 ~ /^# file: /) { cur = norm(substr($0, 9)); next }
		if ($0 != "") attr[cur] = attr[cur] $0 " "
		next
	}
	FILENAME ~ /meta$/ { meta[$1] = $2; order[++n] = $1; next }
	END {
		for (i = 1; i <= n; i++) {
			p = order[i]
			d = (p in sum) ? sum[p] : ((p in target) ? target[p] : "-")
			printf "%s | %s | %s | %s | %s\n", p, meta[p], attr[p], d, ext[p]
		}
	}' "$w/links" "$w/sums" "$w/maps" "$w/attrs" "$w/meta" | LC_ALL=C sort
	cat "$w/statfs"
	rm -rf "$w"
}

# dump_image IMG OUT [OPTS]: mount (read-only by default), describe,
# unmount.
dump_image() {
	local dev mnt=$T_DIR/dumpmnt
	dev=$(attach_loop "$1") || return 1
	if ! t_mount "$dev" "$mnt" "${3:-ro}"; then
		detach_loop "$dev"
		return 1
	fi
	tree_dump "$mnt" > "$2"
	t_umount "$mnt"
	detach_loop "$dev"
}
