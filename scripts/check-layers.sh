#!/bin/bash
# The library's layering, enforced (run by `make check`).
#
#   core      errors, CRC32c, the layout codec, I/O backends, the overlay
#   ondisk    format facts and the codecs and verifiers of on-disk objects
#   log       reading the log: records, transactions, item decoders
#   fs        the modification layer: buffer cache, btrees, allocation,
#             inodes, forks, attributes, deferred work
#   recover   replay, leftover work, the redo file: the replay pipeline
#   check     the offline checker: phases over fs, the problem table
#             (beside recover: neither uses the other)
#   repair    the offline repair: rounds of check and fixes, the fix
#             table, the commit with the needs-repair flag
#   mkfs      geometry policy and writing a new filesystem
#
# A file may include headers of its own layer and of the layers below it
# (mkfs sits on ondisk and core only).  Headers the tools include live in
# include/xfsj/ and belong to the layer named in PUBLIC below.  The tools
# include only xfsj/ headers and their own (fsck.xfsj, xfsj-repair's
# front end, also repair/repair.h).  A library file over MAXLINES
# lines fails too.
#
#   scripts/check-layers.sh [TOP]      check the tree at TOP (default: ..;
#                                      with no TOP the selftest runs first)
#   scripts/check-layers.sh --selftest check that an upward include fails
set -u
MAXLINES=${MAXLINES:-1500}

declare -A RANK=([core]=0 [ondisk]=1 [log]=2 [fs]=3 [recover]=4 [check]=4 [repair]=5 [mkfs]=2)
declare -A PUBLIC=([errors]=core [io]=core [ondisk]=ondisk [logread]=log
	[fs]=fs [recover]=recover [redo]=recover [finish]=recover
	[replay]=recover [check]=check [repair]=repair [geometry]=mkfs [newfs]=mkfs)

# may FROM TO: may a file of layer FROM include a header of layer TO?
may() {
	local from=$1 to=$2
	[ "$from" = "$to" ] && return 0
	if [ "$from" = mkfs ]; then
		[ "$to" = core ] || [ "$to" = ondisk ]
		return
	fi
	[ "$to" = mkfs ] && return 1
	[ "${RANK[$to]}" -lt "${RANK[$from]}" ]
}

PUBLIC[undo]=recover
PUBLIC[salvage]=recover
# progress: lines and JSON objects of a run's progress, for the tools.
PUBLIC[progress]=core
PUBLIC[spill]=core
# populate: filling a new filesystem from a tree (xfsj-mkfs -p), on fs
# (its directories written by fs/dir_write.h); beside recover and check,
# which it may not include.
RANK[populate]=4
PUBLIC[populate]=populate
PUBLIC[rootprops]=populate

# layer_of_include NAME: the layer of an included header, or "" if not ours
layer_of_include() {
	local name=$1 dir base
	dir=${name%%/*}
	base=${name##*/}
	base=${base%.h}
	if [ "$dir" = xfsj ]; then
		echo "${PUBLIC[$base]:-?}"
	elif [ -n "${RANK[$dir]+x}" ] && [ "$dir" != "$name" ]; then
		echo "$dir"
	fi
}

check_tree() {
	local top=$1 bad=0 f layer inc to n
	cd "$top" || return 2
	for f in libjournal/*/*.[ch] include/xfsj/*.h; do
		[ -f "$f" ] || continue
		if [[ $f == include/xfsj/* ]]; then
			n=$(basename "$f" .h)
			layer=${PUBLIC[$n]:-}
			if [ -z "$layer" ]; then
				echo "check-layers: $f: a public header no layer claims (add it to PUBLIC)"
				bad=1
				continue
			fi
		else
			layer=$(basename "$(dirname "$f")")
			if [ -z "${RANK[$layer]+x}" ]; then
				echo "check-layers: $f: libjournal/$layer is not a known layer"
				bad=1
				continue
			fi
			n=$(wc -l < "$f")
			if [ "$n" -gt "$MAXLINES" ]; then
				echo "check-layers: $f: $n lines (over $MAXLINES: split it by idea)"
				bad=1
			fi
		fi
		while IFS= read -r inc; do
			to=$(layer_of_include "$inc")
			[ -z "$to" ] && continue
			if [ "$to" = "?" ]; then
				echo "check-layers: $f ($layer) includes $inc, a public header no layer claims"
				bad=1
			elif ! may "$layer" "$to"; then
				echo "check-layers: $f ($layer) includes $inc ($to): an upward include"
				bad=1
			fi
		done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f")
	done
	for f in mkfs/*.[ch] logprint/*.[ch] repair/*.[ch] fsck/*.[ch]; do
		[ -f "$f" ] || continue
		while IFS= read -r inc; do
			case $f:$inc in
			fsck/*:../repair/repair.h) continue ;;	# fsck.xfsj runs repair's code
			esac
			case $inc in
			xfsj/*) ;;
			*/*) echo "check-layers: $f includes $inc: tools include only xfsj/ headers"; bad=1 ;;
			*) [ -f "$(dirname "$f")/$inc" ] || { echo "check-layers: $f includes $inc: not a header of its tool"; bad=1; } ;;
			esac
		done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f")
	done
	return $bad
}

if [ "${1:-}" = --selftest ]; then
	top=$(cd "$(dirname "$0")/.." && pwd)
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	mkdir -p "$tmp/libjournal/core" "$tmp/libjournal/fs" "$tmp/include/xfsj" "$tmp/repair"
	printf '#include "core/io.h"\n' > "$tmp/libjournal/fs/ok.c"
	printf '/* nothing */\n' > "$tmp/libjournal/core/io.h"
	( check_tree "$tmp" > /dev/null ) || { echo "check-layers selftest: a downward include was refused"; exit 1; }
	printf '#include "fs/btree.h"\n' > "$tmp/libjournal/core/bad.c"
	( check_tree "$tmp" > /dev/null ) && { echo "check-layers selftest: an upward include passed"; exit 1; }
	rm "$tmp/libjournal/core/bad.c"
	printf '#include "fs/btree.h"\n' > "$tmp/repair/bad.c"
	( check_tree "$tmp" > /dev/null ) && { echo "check-layers selftest: a tool including a private header passed"; exit 1; }
	echo "check-layers selftest: ok"
	exit 0
fi
if [ $# -eq 0 ]; then
	bash "$0" --selftest || exit 1
fi
top=${1:-$(dirname "$0")/..}
if check_tree "$top"; then
	echo "check-layers: ok"
	exit 0
fi
exit 1
