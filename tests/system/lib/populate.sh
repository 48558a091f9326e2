# shellcheck shell=bash
# A populated filesystem holding every directory, attribute and fork
# format, made by the kernel (format with mkfs.xfs 6.13, mount, a fixed
# workload, unmount), for the checker's tests.  Needs common.sh
# (T_DIR, attach_loop, t_mount...) and XFSPROGS613 (oracle_613).
#
#   populate_image IMG PROFILE
#       IMG becomes the populated image of PROFILE; made once per test and
#       kept in $T_DIR/populate.PROFILE.img, copied (sparse) after that.
#       Fails loudly, saying which, when a format did not come out as
#       intended (the tests must make the conditions they check).
#   POP_PROFILES    the profiles: 4k, 4k-normap, 1k, 1k-normap
#                   (4k: mkfs.xfs 6.13 defaults, so rmapbt, reflink,
#                   finobt, sparse inodes, bigtime, nrext64, plus
#                   parent pointers and exchange-range; -normap:
#                   -m rmapbt=0; 1k: -b size=1024)
#   populate_paths  "KIND PATH" lines: the file of each format, for
#                   `xfs_db -c "path PATH"`:
#       sfdir blockdir leafdir nodedir btreedir   directories
#       sfattr leafattr nodeattr rmtattr btreeattr  attribute forks
#       extfile btreefile reflink                 data forks
#       shortlink longlink chardev blockdev fifo  other inodes
#
# The workload, in /:
#   dirs/sf (3 entries), dirs/block (40), dirs/leaf (300), dirs/node
#   (3000) (directory blocks are 4 KiB on 1 KiB blocks too), dirs/btree
#   (1200 names of 240 bytes, the directory's blocks kept apart by
#   preallocated files made between them, and remote attribute values on
#   the directory itself made between them too, so both its forks come
#   out in btree format);
#   attrs/sf (one small value), attrs/leaf (30 values of 20 bytes; 12
#   on 1 KiB blocks), attrs/node (600 of 40 bytes), attrs/remote (a
#   9000-byte value);
#   files/small, files/extents (3 extents), files/prealloc (unwritten),
#   files/sparse (400 one-block extents: a bmbt of several leaves, two
#   levels below the root on 1 KiB blocks),
#   files/clone (cp --reflink=always of files/sparse, then partly
#   overwritten: copy on write), files/hard (a hard link of small);
#   links/short, links/long (a 300-byte target: a remote block);
#   devs/chr, devs/blk, devs/fifo;
#   frag/: 1200 one-block files, every other one deleted (free space in
#   many pieces: deep free space and rmap btrees).

POP_PROFILES="4k 4k-normap 1k 1k-normap"
POP_UUID=3c1f7e52-9d0b-4f6a-8a21-5b7c0d9e4f13

populate_paths() {
	cat <<-EOF
		sfdir /dirs/sf
		blockdir /dirs/block
		leafdir /dirs/leaf
		nodedir /dirs/node
		btreedir /dirs/btree
		sfattr /attrs/sf
		leafattr /attrs/leaf
		nodeattr /attrs/node
		rmtattr /attrs/remote
		btreeattr /dirs/btree
		extfile /files/extents
		btreefile /files/sparse
		reflink /files/clone
		shortlink /links/short
		longlink /links/long
		chardev /devs/chr
		blockdev /devs/blk
		fifo /devs/fifo
	EOF
}

# populate_mkfs_opts PROFILE
populate_mkfs_opts() {
	case $1 in
	4k) echo "" ;;
	4k-normap) echo "-m rmapbt=0" ;;
	1k) echo "-b size=1024" ;;
	1k-normap) echo "-b size=1024 -m rmapbt=0" ;;
	*) return 1 ;;
	esac
}

# _pop_names DIR COUNT PREFIX [WIDTH]: COUNT empty files in DIR.
_pop_names() {
	local i
	for ((i = 0; i < $2; i++)); do
		printf '%s/%s%0*d\n' "$1" "$3" "${4:-4}" "$i"
	done | xargs -d '\n' touch
}

# _pop_attrs FILE COUNT PREFIX VALUE-BYTES: COUNT user attributes in one
# setfattr run.
_pop_attrs() {
	local i v
	v=$(head -c "$4" /dev/zero | tr '\0' v)
	{
		printf '# file: %s\n' "$1"
		for ((i = 0; i < $2; i++)); do
			printf 'user.%s%04d="%s"\n' "$3" "$i" "$v"
		done
		echo
	} > "$T_DIR/pop.attrs"
	setfattr --restore="$T_DIR/pop.attrs"
}

# _pop_workload MNT BLOCKSIZE
_pop_workload() {
	local m=$1 bs=$2 i k nleafattr=30 perblk long cmds=()
	# (directory blocks are 4 KiB also on 1 KiB blocks; attribute
	# blocks are a filesystem block)
	[ "$bs" -lt 4096 ] && nleafattr=12
	mkdir -p "$m"/{dirs,attrs,files,links,devs,frag} || return 1
	# Directories.
	mkdir -p "$m"/dirs/{sf,block,leaf,node,btree} || return 1
	_pop_names "$m/dirs/sf" 3 f 1 || return 1
	_pop_names "$m/dirs/block" 40 entry_ 4 || return 1
	_pop_names "$m/dirs/leaf" 300 entry_ 4 || return 1
	_pop_names "$m/dirs/node" 3000 entry_ 4 || return 1
	# The btree directory: a data block's worth of 240-byte names, then
	# a preallocated file and now and then a remote attribute value of
	# the directory, so that the next data block cannot follow the last.
	perblk=$((bs / 264))
	[ "$perblk" -lt 1 ] && perblk=1
	long=$(printf '%0220d' 0)
	for ((i = 0; i < 1200; i++)); do
		: > "$m/dirs/btree/long_name_${long}_$(printf '%05d' "$i")" || return 1
		if [ $((i % perblk)) = $((perblk - 1)) ]; then
			xfs_io -f -c "falloc 0 $bs" "$m/dirs/btree/filler$(printf '%04d' "$i")" || return 1
			if [ $((i % (perblk * 2))) = $((perblk * 2 - 1)) ]; then
				setfattr -n "user.remote$(printf '%04d' "$i")" \
					-v "$(head -c $((bs + bs / 2)) /dev/zero | tr '\0' r)" "$m/dirs/btree" || return 1
			fi
		fi
	done
	# Attribute forks.
	: > "$m/attrs/sf"; : > "$m/attrs/leaf"; : > "$m/attrs/node"; : > "$m/attrs/remote"
	setfattr -n user.small -v value "$m/attrs/sf" || return 1
	_pop_attrs "$m/attrs/leaf" "$nleafattr" leafattr_ 20 || return 1
	_pop_attrs "$m/attrs/node" 600 nodeattr_ 40 || return 1
	setfattr -n user.remote -v "$(head -c 9000 /dev/zero | tr '\0' R)" "$m/attrs/remote" || return 1
	setfattr -n user.local -v local "$m/attrs/remote" || return 1
	# Data forks.
	printf 'small file\n' > "$m/files/small" || return 1
	xfs_io -f -c "pwrite -q -S 0x61 0 $((bs * 4))" -c "pwrite -q -S 0x62 $((bs * 16)) $((bs * 2))" \
		-c "pwrite -q -S 0x63 $((bs * 64)) $bs" -c fsync "$m/files/extents" || return 1
	xfs_io -f -c "falloc 0 $((bs * 32))" -c "pwrite -q $((bs * 4)) $bs" "$m/files/prealloc" || return 1
	for ((k = 0; k < 400; k++)); do
		cmds+=(-c "pwrite -q -S $((k % 250)) $((k * 2 * bs)) $bs")
	done
	xfs_io -f "${cmds[@]}" -c fsync "$m/files/sparse" || return 1
	cp --reflink=always "$m/files/sparse" "$m/files/clone" || return 1
	xfs_io -c "pwrite -q -S 0xcc 0 $((bs * 8))" -c "pwrite -q -S 0xdd $((bs * 100)) $((bs * 3))" \
		-c fsync "$m/files/clone" || return 1
	ln "$m/files/small" "$m/files/hard" || return 1
	# Symlinks and special files.
	ln -s ../files/small "$m/links/short" || return 1
	ln -s "$(printf 'long/%.0s' {1..60})target" "$m/links/long" || return 1
	mknod "$m/devs/chr" c 1 3 && mknod "$m/devs/blk" b 7 0 && mkfifo "$m/devs/fifo" || return 1
	# Free space in many pieces.
	for ((i = 0; i < 1200; i++)); do
		printf '%s/frag/f%04d\n' "$m" "$i"
	done | xargs -d '\n' sh -c 'for f; do head -c '"$bs"' /dev/zero > "$f" || exit 1; done' sh || return 1
	sync -f "$m/frag" || return 1
	for ((i = 0; i < 1200; i += 2)); do
		printf '%s/frag/f%04d\n' "$m" "$i"
	done | xargs -d '\n' rm -f || return 1
	sync
}

# _pop_db IMG COMMAND...: xfs_db -r with one -c per argument.
_pop_db() {
	local img=$1 c cmds=()
	shift
	for c in "$@"; do cmds+=(-c "$c"); done
	"$XFSPROGS613/xfs_db" -r "${cmds[@]}" "$img" 2>&1
}

# _pop_field IMG PATH FIELD [NAV...]: the value of FIELD at PATH (and NAV).
_pop_field() {
	local img=$1 path=$2 field=$3
	shift 3
	_pop_db "$img" "path $path" "$@" "print $field" | sed -n "s/^$field = //p" | head -1
}

# _pop_verify IMG BLOCKSIZE: each format came out as intended; prints
# what did not.
_pop_verify() {
	local img=$1 bs=$2 bad=0 v leafoff freeoff
	leafoff=$(( (1 << 35) / bs ))
	freeoff=$(( (1 << 36) / bs ))
	# expect WHAT VALUE PATH FIELD [NAV...]
	expect() {
		local what=$1 want=$2 got
		shift 2
		got=$(_pop_field "$img" "$@")
		if [ "$got" != "$want" ]; then
			echo "populate: $what: $1 ${*:3} $2 is '$got', not '$want'"
			bad=1
		fi
	}
	expect "short form directory" "1 (local)" /dirs/sf core.format
	expect "block directory" "2 (extents)" /dirs/block core.format
	expect "block directory" 0x58444233 /dirs/block bhdr.hdr.magic "dblock 0"
	expect "leaf directory" 0x58444433 /dirs/leaf dhdr.hdr.magic "dblock 0"
	expect "leaf directory" 0x3df1 /dirs/leaf lhdr.info.hdr.magic "dblock $leafoff"
	expect "node directory" 0x3ebe /dirs/node nhdr.info.hdr.magic "dblock $leafoff"
	expect "node directory" 0x58444633 /dirs/node fhdr.hdr.magic "dblock $freeoff"
	expect "btree directory" "3 (btree)" /dirs/btree core.format
	expect "btree attribute fork" "3 (btree)" /dirs/btree core.aformat
	expect "short form attributes" "1 (local)" /attrs/sf core.aformat
	expect "leaf attributes" 0x3bee /attrs/leaf hdr.info.hdr.magic "ablock 0"
	expect "node attributes" 0x3ebe /attrs/node hdr.info.hdr.magic "ablock 0"
	expect "remote attribute value" 0x5841524d /attrs/remote hdr.magic "ablock 1"
	expect "extents file" "2 (extents)" /files/extents core.format
	expect "btree file" "3 (btree)" /files/sparse core.format
	expect "short symlink" "1 (local)" /links/short core.format
	expect "long symlink" "2 (extents)" /links/long core.format
	expect "long symlink" 0x58534c4d /links/long magic "dblock 0"
	expect "character device" "0 (dev)" /devs/chr core.format
	expect "block device" "0 (dev)" /devs/blk core.format
	expect "fifo" "0 (dev)" /devs/fifo core.format
	expect "hard link" 2 /files/small core.nlinkv2
	v=$(_pop_field "$img" /files/sparse u3.bmbt.numrecs)
	[ "${v:-0}" -ge 2 ] || [ "$(_pop_field "$img" /files/sparse u3.bmbt.level)" -ge 2 ] ||
		{ echo "populate: btree file: /files/sparse: its bmbt root has ${v:-no} pointers and one level below"; bad=1; }
	# Parent pointers: incompat bit 0x80.
	v=$(_pop_db "$img" "sb 0" "print features_incompat" | sed -n 's/^features_incompat = //p')
	[ $((v & 0x80)) != 0 ] || { echo "populate: no parent pointers (features_incompat $v)"; bad=1; }
	[ $bad = 0 ]
}

# _pop_shared FILE: FIEMAP says an extent of FILE is shared.
_pop_shared() {
	local f
	for f in $(xfs_io -c "fiemap -v" "$1" | awk '$NF ~ /^0x/ { print $NF }'); do
		[ $((f & 0x2000)) != 0 ] && return 0
	done
	return 1
}

# _pop_make IMG PROFILE: format, mount, workload, unmount, verify.
_pop_make() {
	local img=$1 profile=$2 opts dev mnt=$T_DIR/popmnt bs out
	opts=$(populate_mkfs_opts "$profile") || { echo "populate: no profile $profile" >&2; return 1; }
	bs=4096
	case $opts in *"size=1024"*) bs=1024 ;; esac
	rm -f "$img"
	truncate -s 1g "$img" || return 1
	# shellcheck disable=SC2046,SC2086
	if ! out=$("$XFSPROGS613/mkfs.xfs" -q -f -m uuid=$POP_UUID $(newfeat $opts) $opts "$img" 2>&1); then
		echo "populate: mkfs.xfs $opts: $out" >&2
		return 1
	fi
	dev=$(attach_loop "$img") || return 1
	# nouuid: the same uuid may be mounted by another test running now
	t_mount "$dev" "$mnt" nouuid || { detach_loop "$dev"; return 1; }
	if ! _pop_workload "$mnt" "$bs" > "$T_DIR/pop.out" 2>&1; then
		echo "populate: $profile: the workload failed: $(tail -3 "$T_DIR/pop.out")" >&2
		t_umount "$mnt"
		detach_loop "$dev"
		return 1
	fi
	# Reflinked extents are shared (FIEMAP_EXTENT_SHARED).
	if ! _pop_shared "$mnt/files/clone"; then
		echo "populate: $profile: files/clone shares no extent with files/sparse" >&2
		t_umount "$mnt"
		detach_loop "$dev"
		return 1
	fi
	t_umount "$mnt" || return 1
	detach_loop "$dev" || return 1
	_pop_verify "$img" "$bs" >&2 || { echo "populate: $profile: a format did not come out" >&2; return 1; }
}

populate_image() {
	local img=$1 profile=$2 cache=$T_DIR/populate.$2.img
	if [ ! -f "$cache" ]; then
		_pop_make "$cache.new" "$profile" || { rm -f "$cache.new"; return 1; }
		mv "$cache.new" "$cache" || return 1
	fi
	[ "$img" = "$cache" ] && return 0
	cp --sparse=always "$cache" "$img"
}
