# Fuzz corpus helpers shared by check-fuzz.sh and repair-fuzz.sh: the
# way fstests' fuzz tests make their damaged images (common/fuzzy), on the
# populated images of lib/populate.sh.  Needs DB (xfs_db 6.13), T_DIR,
# FUZZ_PROFILES, FUZZ_TARGETS, FUZZ_ALL, FUZZ_CASES, FUZZ_SEED, VERBS.

# db IMG NAV COMMAND...: xfs_db -r at NAV (commands separated by ";").
db() {
	local img=$1 nav=$2 c cmds=()
	shift 2
	IFS=';' read -ra navs <<< "$nav"
	for c in "${navs[@]}" "$@"; do cmds+=(-c "$c"); done
	"$DB" -r "${cmds[@]}" "$img" 2>/dev/null
}

# value IMG NAV FIELD
value() { db "$1" "$2" "print $3" | sed -n "s/^$3 = //p" | head -1; }

# fields: the fuzzable fields of the `print` output on stdin, one a line.
# Arrays ("name[a-b]rest" or "name[i]rest") become one field per index
# from 0 to 9; a value "[f1,f2,...]" names subfields; padding and what
# the kernel does not validate are dropped (fstests' lists).
fields() {
	awk '
	{
		i = index($0, " = ")
		if (i == 0)
			next
		key = substr($0, 1, i - 1)
		val = substr($0, i + 3)
		if (key ~ /pad/)
			next
		subs = ""
		if (substr(val, 1, 1) == "[") {
			e = index(val, "]")
			subs = substr(val, 2, e - 2)
		}
		ns = split(subs, sf, ",")
		if (match(key, /^[.a-zA-Z0-9_]*\[[0-9]+(-[0-9]+)?\]/)) {
			head = substr(key, 1, RLENGTH)
			rest = substr(key, RLENGTH + 1)
			b = index(head, "[")
			name = substr(head, 1, b - 1)
			n = split(substr(head, b + 1, length(head) - b - 1), r, "-")
			lo = r[1] + 0
			hi = (n > 1 ? r[2] : r[1]) + 0
			if (hi > 9)
				hi = 9
			for (x = lo; x <= hi; x++)
				emit(name "[" x "]" rest)
		} else {
			emit(key)
		}
	}
	function emit(k,  s) {
		if (ns == 0) {
			print k
			return
		}
		for (s = 1; s <= ns; s++)
			print k "." sf[s]
	}' | sed -e '/\.sec/d' -e '/\.nsec/d' -e '/^lsn$/d' -e '/\.lsn/d' \
		-e '/^core.flushiter/d' -e '/^core.dmevmask/d' -e '/^core.dmstate/d' \
		-e '/^core.gen/d' -e '/^core.prealloc/d' -e '/^core.immutable/d' \
		-e '/^core.append/d' -e '/^core.sync/d' -e '/^core.noatime/d' \
		-e '/^core.nodump/d' -e '/^core.nodefrag/d' -e '/^v3.dax/d' \
		-e '/^nvlist.*value/d' -e '/^entries.*root/d' -e '/^entries.*secure/d' \
		-e '/^a.sfattr.list.*value/d' -e '/^a.sfattr.list.*root/d' \
		-e '/^a.sfattr.list.*secure/d' -e '/^core.filestream/d' \
		-e '/^v3.bigtime/d' -e '/\.rtbwarns/d' -e '/\.[ib]warns/d'
}

# region: "byte-offset length" of the buffer in xfs_db's `stack` output
# on stdin.
region() {
	awk '
		/buffer block/ { b = $3 }
		/ bbs?$/ { n = $(NF - 1) }
		END { if (b != "" && n > 0) print b * 512, n * 512 }'
}

# targets IMG BLOCKSIZE: "NAME<TAB>NAV" lines, NAV's commands separated by
# ";", for the targets this image has (each checked to land on what it
# names).
targets() {
	local img=$1 bs=$2 ag agc t l lvl root kind path leaf free dirfsb nav cmds
	printf 'sb0\tsb 0\nsb1\tsb 1\nagf\tagf 0\nagi\tagi 0\nagfl\tagfl 0\n'
	# AG btrees: an AG where the tree has two levels or more, else AG 0
	# (the levels and roots of every AG from one xfs_db run).
	agc=$(value "$img" "sb 0" agcount)
	for ((ag = 0; ag < agc; ag++)); do
		for t in "agf bnolevel bnoroot cntlevel cntroot rmaplevel rmaproot refcntlevel refcntroot" \
			 "agi level root free_level free_root"; do
			set -- $t
			printf '%s\n' "-c" "$1 $ag"
			shift
			for t in "$@"; do printf '%s\n' "-c" "print $t"; done
		done
	done > "$T_DIR/levels.cmds"
	mapfile -t cmds < "$T_DIR/levels.cmds"
	"$DB" -r "${cmds[@]}" "$img" 2>/dev/null | awk '
		/^bnolevel = / { ag++ }
		/ = / { split($0, kv, " = "); print ag - 1, kv[1], kv[2] }' > "$T_DIR/levels"
	for t in "bnobt agf bnolevel bnoroot" "cntbt agf cntlevel cntroot" \
		 "inobt agi level root" "finobt agi free_level free_root" \
		 "rmapbt agf rmaplevel rmaproot" "refcountbt agf refcntlevel refcntroot"; do
		set -- $t
		nav=""
		lvl=0
		for ((ag = 0; ag < agc; ag++)); do
			l=$(awk -v a="$ag" -v f="$3" '$1 == a && $2 == f { print $3 }' "$T_DIR/levels")
			root=$(awk -v a="$ag" -v f="$4" '$1 == a && $2 == f { print $3 }' "$T_DIR/levels")
			[ -n "$l" ] && [ "${root:-0}" != 0 ] || continue
			if [ -z "$nav" ] || [ "$l" -ge 2 ]; then
				nav="$2 $ag;addr $4"
				lvl=$l
			fi
			[ "$l" -ge 2 ] && break
		done
		[ -n "$nav" ] || continue
		printf '%s\t%s\n' "$1" "$nav"
		[ "$lvl" -ge 2 ] && printf '%s.child\t%s;addr ptrs[1]\n' "$1" "$nav"
	done
	# Inodes of every format (the btree directory's inode also holds
	# the btree attribute fork).
	populate_paths | awk '!seen[$2]++' | while read -r kind path; do
		printf 'inode.%s\tpath %s\n' "$kind" "$path"
	done
	dirfsb=$(( 4096 / bs ))
	[ "$dirfsb" -lt 1 ] && dirfsb=1
	leaf=$(( (1 << 35) / bs ))
	free=$(( (1 << 36) / bs ))
	printf 'dir.block\tpath /dirs/block;dblock 0\n'
	printf 'dir.data\tpath /dirs/leaf;dblock 0\n'
	printf 'dir.leaf1\tpath /dirs/leaf;dblock %d\n' "$leaf"
	printf 'dir.node\tpath /dirs/node;dblock %d\n' "$leaf"
	[ "$(value "$img" "path /dirs/node;dblock $((leaf + dirfsb))" lhdr.info.hdr.magic)" = 0x3dff ] &&
		printf 'dir.leafn\tpath /dirs/node;dblock %d\n' $((leaf + dirfsb))
	printf 'dir.free\tpath /dirs/node;dblock %d\n' "$free"
	printf 'attr.leaf\tpath /attrs/leaf;ablock 0\n'
	printf 'attr.node\tpath /attrs/node;ablock 0\n'
	printf 'attr.remote\tpath /attrs/remote;ablock 1\n'
	printf 'bmbt.file\tpath /files/sparse;addr u3.bmbt.ptrs[1]\n'
	printf 'bmbt.dir\tpath /dirs/btree;addr u3.bmbt.ptrs[1]\n'
	printf 'bmbt.attr\tpath /dirs/btree;addr a.bmbt.ptrs[1]\n'
	printf 'symlink.remote\tpath /links/long;dblock 0\n'
}

# fuzz_corpus: every case of every profile in $FUZZ_PROFILES, "PROFILE<TAB>
# TARGET<TAB>NAV<TAB>FIELD<TAB>VERB" in $T_DIR/all; the regions in
# $T_DIR/region.PROFILE.TARGET; the base images as $T_DIR/base.PROFILE.img.
# Then the sample in $T_DIR/cases (FUZZ_ALL=1: every case; else
# FUZZ_CASES drawn with FUZZ_SEED, evenly across the targets).
fuzz_corpus() {
	local p bs name nav r total
	t0=$SECONDS
	: > "$T_DIR/all"
	for p in $FUZZ_PROFILES; do
		# (the cached image itself is the base)
		if ! populate_image "$T_DIR/populate.$p.img" "$p" 2> "$T_DIR/pop.err"; then
			not_ok "populated image $p: $(tr '\n' ' ' < "$T_DIR/pop.err" | cut -c1-400)"
			continue
		fi
		ok "populated image $p"
		ln -s "populate.$p.img" "$T_DIR/base.$p.img"
		bs=$(value "$T_DIR/base.$p.img" "sb 0" blocksize)
		targets "$T_DIR/base.$p.img" "$bs" | grep -E "^[^	]*($FUZZ_TARGETS)" |
		while IFS=$'\t' read -r name nav; do
			db "$T_DIR/base.$p.img" "$nav" stack print > "$T_DIR/target.out"
			r=$(region < "$T_DIR/target.out")
			if [ -z "$r" ]; then
				echo "# $p $name ($nav): xfs_db lands nowhere; no cases" >&2
				continue
			fi
			echo "$r" > "$T_DIR/region.$p.$name"
			# (the print output follows the stack's lines, which hold no " = ")
			fields < "$T_DIR/target.out" |
			awk -v pre="$p	$name	$nav" -v verbs="$VERBS" '
				BEGIN { nv = split(verbs, v, " ") }
				!seen[$0]++ { for (i = 1; i <= nv; i++) print pre "\t" $0 "\t" v[i] }'
		done >> "$T_DIR/all"
	done
	total=$(wc -l < "$T_DIR/all")
	# The sample: shuffled (seeded) within each target, then taken a round
	# of every target at a time, so that each structure gets its share; run
	# profile by profile (one copy of each image).
	if [ "$FUZZ_ALL" = 1 ]; then
		cp "$T_DIR/all" "$T_DIR/cases"
	else
		awk -F'\t' -v seed="$FUZZ_SEED" 'BEGIN { srand(seed) }
			{ print rand() "\t" $0 }' "$T_DIR/all" | sort -k1,1 |
		awk -F'\t' '{ t = $2 "\t" $3; print ++rank[t] "\t" rand() "\t" $0 }' |
		sort -t$'\t' -k1,1n -k2,2 | head -n "$FUZZ_CASES" | cut -f4- |
		sort -s -t$'\t' -k1,1 > "$T_DIR/cases"
	fi
	ncases=$(wc -l < "$T_DIR/cases")
	echo "# corpus: $total cases over $(cut -f1,2 "$T_DIR/all" | sort -u | wc -l) targets ($((SECONDS - t0)) s); running $ncases"
}

# fuzz_apply BASE IMG NAV FIELD VERB ROFF RLEN: damage IMG (a copy of
# BASE) as the case says; returns 1 when the fuzz left the buffer as it
# was (a case to skip).
fuzz_apply() {
	local base=$1 img=$2 nav=$3 f=$4 v=$5 roff=$6 rlen=$7 arg=-d c
	local navs cmds=()
	[[ $f == *crc ]] && arg=-c
	IFS=';' read -ra navs <<< "$nav"
	for c in "${navs[@]}"; do cmds+=(-c "$c"); done
	"$DB" -x "${cmds[@]}" -c "fuzz $arg $f $v" "$img" > "$T_DIR/db.out" 2>&1
	! cmp -s <(dd if="$base" bs=512 iflag=skip_bytes,count_bytes skip="$roff" count="$rlen" status=none) \
		 <(dd if="$img" bs=512 iflag=skip_bytes,count_bytes skip="$roff" count="$rlen" status=none)
}
