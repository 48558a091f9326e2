#!/bin/bash
# Salvage replay of a log damaged in the middle (xfsj-repair --salvage).
#
# Crash images are made as the kernel makes them (mount, seeded workload,
# a freeze and thaw after 3 s that writes the metadata so far in place,
# more workload, `shutdown -f` while it runs, unmount; CRASH_NEED: the
# workload goes on until the live log holds what the image needs); the
# truth is the kernel's own replay (mount) of an undamaged copy: every
# path with its type, size, content checksum and xattrs (an image whose
# undamaged copy the kernel does not replay has no truth: it is skipped,
# saying so).  Profiles: IMAGES images of mkfs.xfs's defaults (512 MiB,
# at least MINRECS live records), BIGBUF of the same mounted with 256 KiB
# log buffers (records behind 8-block headers), and WRAPPED of the smallest log the
# kernel takes (xfsj-mkfs --small, 256 MiB: 16008 blocks), caught while
# its live log runs past the log's physical end, aiming first at a head
# early in the log.  Then one record strictly inside the live log (not
# the tail's, at least TORN records before the head; in the wrapped
# profile the first after the end or the last before it) is damaged,
# found with xfsj-logprint --json:
#  (flip) a byte of its data flipped (bad CRC);
#  (zero) the whole record zeroed but for each block's cycle stamp (so
#    the head and tail found stay those of the undamaged log, checked);
#  (lost) the same, each stamp one cycle less (the header's h_cycle, the
#    first word of the others): a write that never reached the disk, a
#    gap in the middle of the log.  Within the kernel's scan before the
#    head (4096 blocks; lost picks such a record when there is one), the
#    head the kernel finds moves to it and the records after it are
#    dropped; farther back it is a bad record.  xfsj-logprint must find
#    the ends xfs_logprint 6.13 finds (the kernel's head search), and the
#    case says which it was.
# For each case:
#  - without --salvage, xfsj-repair refuses (exit != 0) naming the record;
#  - (flip only) --salvage -O COPY of the damaged image made immutable
#    leaves its bytes as they were and writes into COPY the bytes that
#    --salvage in place writes;
#  - with --salvage it exits 0 or 1, then xfs_repair -n (6.13) and
#    xfsj-repair -n find nothing and the kernel mounts it; the paths equal
#    to the truth are counted and the fraction printed;
#  - another copy through xfs_repair -L, then xfs_repair, is counted the
#    same way: xfsj keeps at least as many;
#  - the loss report (--json) names every inode that the transactions it
#    says were not replayed logged, as xfsj-logprint -t -c --json of the
#    damaged log decodes them (lost: of the record zeroed in place, the
#    same loss with the head where it was); lost: it names the record,
#    and, when the kernel would stop there, the lost stretch.
#
#   SEED=s (default: from the clock; printed), IMAGES=n (default 1: flip,
#   zero and lost; the others one kind each), WRAPPED=n (default 1: lost
#   and flip), BIGBUF=n (default 1: images whose log buffers are 256 KiB,
#   mount -o logbsize=256k, one damage kind each, by the seed),
#   MINRECS=n (default 24), SALVAGE_JUDGED=n (default 3 of the 6 cases
#   of the defaults: the fewest cases judged, that is damaged and salvaged;
#   an image whose undamaged copy the kernel does not replay is skipped,
#   and a run that judged fewer fails).  XFSJ_KEEP=1 keeps the damaged
#   image of a failed case.  The time is printed: 60 to 150 s with the
#   defaults on the 2-core machine while other work runs beside it.  Long
#   runs: a loop over seeds, or IMAGES=4 WRAPPED=2 BIGBUF=2.
#
# Issue 14's seeded runs by hand found six bugs of the salvage and repair
# (seeds 118, 201, 205, 325, 338 and 413) and one of this test (458),
# each fixed in its commit, before the test joined the gate.
source "$(dirname "$0")/lib/common.sh"
source "$(dirname "$0")/lib/crashimg.sh"
source "$(dirname "$0")/lib/treedump.sh"
need_root
oracle_613
REPAIR=${XFSJ_REPAIR:-$BUILD/xfsj-repair}
LOGPRINT=${XFSJ_LOGPRINT:-$BUILD/xfsj-logprint}
SEED=${SEED:-$(( $(date +%s) % 100000 ))}
IMAGES=${IMAGES:-1}
WRAPPED=${WRAPPED:-1}
BIGBUF=${BIGBUF:-1}
COPY_KIND=flip		# the kind whose salvage also goes into a copy (-O)
MINRECS=${MINRECS:-24}
JUDGED=${SALVAGE_JUDGED:-3}
NJUDGED=0
echo "# replay-salvage: seed $SEED, $IMAGES crash images"

# CRASH_NEED: enough records in the live log for one in the middle.
need_records() {
	local n
	n=$("$LOGPRINT" -f --json --live "$1" 2>/dev/null | grep -c '"kind":"record"')
	[ "$n" -ge "$MINRECS" ] && return 0
	echo "only $n live records"
	return 1
}

# manifest IMG OUT: mount (nouuid, read-only), one line per path: path,
# type, size, xattrs, content checksum (or symlink target).
manifest() {
	local dev mnt=$T_DIR/mmnt
	dev=$(attach_loop "$1") || return 1
	if ! t_mount "$dev" "$mnt" ro,nouuid; then
		detach_loop "$dev"
		return 1
	fi
	tree_dump "$mnt" | awk -F' [|] ' 'NF >= 4 { split($2, m, " ");
		print $1 " | " m[2] " " m[6] " | " $3 " | " $4 }' | LC_ALL=C sort > "$2"
	t_umount "$mnt"
	detach_loop "$dev"
}

# same TRUTH OTHER: how many lines of TRUTH OTHER has as they are.
same() {
	LC_ALL=C comm -12 "$1" "$2" | wc -l
}

# damage IMG KIND FRAC: damage one record strictly inside the live log
# (KIND flip, zero, lost, or lostref: the record lost picks, zeroed):
# not the tail's, not the head's, and at least TORN records before the
# head (the kernel, and xfsj, take a bad record among the last 8 before
# the head for a torn write: that one is the end of the log, not a
# damage); FRAC places it between.  Every block keeps its cycle stamp
# (the first word; for the header, magic and cycle), so the head and
# tail found are those of the undamaged log: zeroed blocks without them
# would look like the end of a log never written that far.  Prints the
# record's log block; fails when the damaged image's head or tail moved.
TORN=10
damage() {
	local sum0 sum1
	"$LOGPRINT" --json --live "$1" 2>/dev/null > "$T_DIR/recs.json" || return 1
	python3 - "$1" "$2" "$3" "$T_DIR/recs.json" "$TORN" "${DAMAGE_AT:-}" <<'EOF2' || return 1
import json, sys
img, kind, frac, js, torn = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4], int(sys.argv[5])
at = sys.argv[6]
recs, daddr = [], None
for line in open(js):
    o = json.loads(line)
    if o["kind"] == "summary":
        daddr, size, head = o["log_daddr"], o["log_length"], o["head"]
    elif o["kind"] == "record" and o.get("live"):
        recs.append(o)
lo, hi = 1, len(recs) - 1 - torn
if hi < lo:
    sys.exit("only %d live records" % len(recs))
r = recs[min(hi, max(lo, int(len(recs) * frac)))]
w = [i for i in range(lo, hi + 1) if recs[i]["block"] < recs[i - 1]["block"]]
if at.startswith("wrap") and w:
    # At the physical end of the log: the first record after it
    # (wrap0), or the last before it (wrap1).
    r = recs[w[0] - int(at[4:]) if w[0] - int(at[4:]) >= lo else w[0]]
elif kind in ("lost", "lostref"):
    # Within the kernel's scan before the head (XLOG_TOTAL_REC_SHIFT,
    # 4096 blocks) when one is: the head it finds moves to it.
    near = [x for x in recs[lo:hi + 1] if (head - x["block"]) % size <= 4096]
    if near:
        r = near[min(len(near) - 1, int(len(near) * frac))]
nbb = r["hblks"] + (r["len"] + 511) // 512
if r["block"] + nbb > size:
    # A record that wraps: take the one before it.
    r = recs[recs.index(r) - 1]
    nbb = r["hblks"] + (r["len"] + 511) // 512
base = (daddr + r["block"]) * 512
with open(img, "r+b") as f:
    if kind == "flip":
        # A data byte, never a block's cycle stamp.
        d = r["len"] // 2
        if d % 512 < 4:
            d += 4
        off = base + r["hblks"] * 512 + d
        f.seek(off)
        b = f.read(1)
        f.seek(off)
        f.write(bytes([b[0] ^ 0x5a]))
    else:
        for i in range(nbb):
            keep = 8 if i == 0 else 4
            if kind == "lost":
                # The cycle stamp (the header's h_cycle) one less:
                # what the block held a cycle earlier.
                at = base + i * 512 + keep - 4
                f.seek(at)
                c = int.from_bytes(f.read(4), "big")
                f.seek(at)
                f.write((c - 1).to_bytes(4, "big"))
            f.seek(base + i * 512 + keep)
            f.write(bytes(512 - keep))
print(r["block"])
EOF2
}

# ends IMG: the live log's tail and head, as xfsj-logprint finds them.
ends() {
	"$LOGPRINT" --json --summary "$1" 2>/dev/null |
		grep -o '"tail":[0-9]*,"head":[0-9]*' | head -1
}

# kernel_ends IMG: tail and head as xfs_logprint (6.13) finds them, in
# the form of ends().
kernel_ends() {
	"$XFSPROGS613/xfs_logprint" -t "$1" 2>/dev/null |
		awk '/log tail: [0-9]+ head: [0-9]+ state: / {
			for (i = 1; i <= NF; i++) {
				if ($i == "tail:") t = $(i + 1)
				if ($i == "head:") h = $(i + 1)
			}
			printf "\"tail\":%s,\"head\":%s\n", t, h; exit }'
}

# The inodes the INODE items of the transactions TIDS logged (xfsj-logprint
# -t -c of the damaged log), one a line; an item that does not decode (its
# regions run into the damaged record: ino 0 and an error) names none.
logged_inodes() {
	"$LOGPRINT" --json -t -c "$1" 2>/dev/null |
		python3 -c '
import json, sys
tids = set(sys.argv[1].split())
on = False
for line in sys.stdin:
    o = json.loads(line)
    if o["kind"] == "trans":
        on = o["tid"] in tids
    elif on and o["kind"] == "item" and o.get("type") == "INODE" and \
            "error" not in o:
        print(o["ino"])
' "$2" | sort -u
}

# into_copy NAME D: the salvage of D.dmg, made immutable (an open for
# writing fails), into a new sparse file with -O: D.dmg's bytes stay,
# and the copy is D.salv (the salvage in place) byte for byte.
IMMUTABLE=()
trap 'for f in "${IMMUTABLE[@]}"; do chattr -i "$f"; done 2>/dev/null; t_cleanup' EXIT
into_copy() {
	local name=$1 d=$2 before rc
	before=$(md5sum < "$d.dmg")
	chattr +i "$d.dmg" && IMMUTABLE+=("$d.dmg")
	"$REPAIR" --salvage -O "$d.copy" "$d.dmg" > "$d.copy.out" 2>&1
	rc=$?
	chattr -i "$d.dmg"
	check "$name: --salvage -O leaves the damaged image as it was" \
		[ "$(md5sum < "$d.dmg")" = "$before" ]
	check "$name: --salvage -O (exit $rc) writes what --salvage in place writes" \
		cmp -s "$d.copy" "$d.salv"
	rm -f "$d.copy"
}

# one_case IMG TRUTH KIND FRAC NAME
one_case() {
	local img=$1 truth=$2 kind=$3 frac=$4 name=$5 d=$T_DIR/$5 blk rc
	local nt ns nl tids fail0=$T_FAIL x k ref
	cp --sparse=always "$img" "$d.dmg"
	blk=$(damage "$d.dmg" "$kind" "$frac") || { not_ok "$name: damage"; return; }
	# The condition: the damage is inside the live log, head and tail
	# stay where they were.  A lost record moves the head the kernel
	# finds to it when it lies within the kernel's scan before the
	# head (xlog_find_head: a block of the older cycle there is where
	# the head is); xfs_logprint 6.13 finds them as the kernel does.
	if [ "$kind" = lost ]; then
		x=$(ends "$d.dmg")
		k=$(kernel_ends "$d.dmg")
		if [ "$x" != "$k" ]; then
			not_ok "$name: lost record at log block $blk: xfsj-logprint finds $x, xfs_logprint $k"
		elif [ "${x#*\"head\":}" = "$blk" ]; then
			ok "$name: the kernel's head is the lost record ($x)"
			echo "# $name: the kernel's head moved to the lost record at $blk ($(ends "$img") -> $x): it would drop the records after it"
		elif [ "$x" = "$(ends "$img")" ]; then
			ok "$name: the lost record is past the kernel's head scan ($x)"
			echo "# $name: the lost record at $blk is too far before the head for the kernel's scan: a bad record in the middle"
		else
			not_ok "$name: lost record at log block $blk: ends $(ends "$img") -> $x"
		fi
	elif [ "$(ends "$img")" != "$(ends "$d.dmg")" ]; then
		not_ok "$name: the damage at log block $blk moved the log's ends: $(ends "$img") -> $(ends "$d.dmg")"
		rm -f "$d.dmg"
		return
	fi

	cp --sparse=always "$d.dmg" "$d.plain"
	"$REPAIR" "$d.plain" > "$d.plain.out" 2>&1
	rc=$?
	if [ "$rc" -ne 0 ] && grep -q "log block $blk" "$d.plain.out"; then
		ok "$name: refused without --salvage"
	else
		not_ok "$name: without --salvage: exit $rc, record $blk not named: $(head -c 300 "$d.plain.out")"
	fi
	rm -f "$d.plain"

	cp --sparse=always "$d.dmg" "$d.salv"
	NJUDGED=$((NJUDGED + 1))
	"$REPAIR" --salvage --json "$d.salv" > "$d.salv.json" 2> "$d.salv.err"
	rc=$?
	check "$name: --salvage exits 0 or 1 (got $rc)" [ "$rc" -le 1 ]
	[ "$rc" -le 1 ] || tail -3 "$d.salv.err" | cut -c1-200 | sed "s/^/#   /"
	[ "$kind" = "$COPY_KIND" ] && into_copy "$name" "$d"
	"$XFSPROGS613/xfs_repair" -n "$d.salv" > "$d.xr.out" 2>&1
	check "$name: xfs_repair -n clean after --salvage" [ $? -eq 0 ]
	"$REPAIR" -n "$d.salv" > "$d.xj.out" 2>&1
	check "$name: xfsj-repair -n clean after --salvage" [ $? -eq 0 ]
	if manifest "$d.salv" "$d.salv.man"; then
		ok "$name: the kernel mounts it"
	else
		not_ok "$name: the kernel does not mount it"
		: > "$d.salv.man"
	fi

	cp --sparse=always "$d.dmg" "$d.L"
	"$XFSPROGS613/xfs_repair" -L "$d.L" > "$d.L.out" 2>&1
	"$XFSPROGS613/xfs_repair" "$d.L" >> "$d.L.out" 2>&1
	manifest "$d.L" "$d.L.man" || : > "$d.L.man"

	nt=$(wc -l < "$truth")
	ns=$(same "$truth" "$d.salv.man")
	nl=$(same "$truth" "$d.L.man")
	echo "# $name: record at log block $blk: xfsj --salvage keeps $ns of $nt paths ($(awk -v a="$ns" -v b="$nt" 'BEGIN { printf "%.3f", b ? a / b : 0 }')), xfs_repair -L $nl ($(awk -v a="$nl" -v b="$nt" 'BEGIN { printf "%.3f", b ? a / b : 0 }')); $(grep '"kind":"salvage_summary"' "$d.salv.json")"
	check "$name: --salvage keeps at least what xfs_repair -L keeps ($ns >= $nl)" [ "$ns" -ge "$nl" ]

	tids=$(python3 -c '
import json, sys
for line in open(sys.argv[1]):
    o = json.loads(line)
    if o.get("kind") == "salvage_lost":
        print(o["tid"])
' "$d.salv.json" | tr '\n' ' ')
	python3 -c '
import json, sys
s = set()
for line in open(sys.argv[1]):
    o = json.loads(line)
    if o.get("kind") == "salvage_lost":
        s.update(o["inodes"])
for i in sorted(s):
    print(i)
' "$d.salv.json" | sort -u > "$d.rep.ino"
	# A lost record may end the log the kernel sees: the transactions
	# across it are read from the same record zeroed in place instead
	# (the same loss, the head where it was).
	ref=$d.dmg
	if [ "$kind" = lost ]; then
		ref=$d.ref
		cp --sparse=always "$img" "$ref"
		damage "$ref" lostref "$frac" > /dev/null
		if grep -q "\"kind\":\"salvage_damage\",\"bad_block\":$blk," "$d.salv.json"; then
			ok "$name: the loss report names the lost record at $blk"
		else
			not_ok "$name: the loss report does not name the lost record at $blk: $(grep '"kind":"salvage_damage"' "$d.salv.json" | head -c 300)"
		fi
		if [ "${x#*\"head\":}" = "$blk" ] &&
		   ! grep -q "\"lost_stretch\":{\"kernel_head\":$blk," "$d.salv.json"; then
			not_ok "$name: the loss report does not say the kernel would stop at $blk"
		fi
	fi
	logged_inodes "$ref" "$tids" > "$d.lp.ino"
	[ "$kind" = lost ] && rm -f "$ref"
	missing=$(comm -13 "$d.rep.ino" "$d.lp.ino" | head -5 | tr '\n' ' ')
	if [ -z "$tids" ] && grep -q '"kind":"salvage_summary","damaged":1' "$d.salv.json" &&
	   grep -q '"kind":"salvage_damage"' "$d.salv.json"; then
		# The zeroed record held whole transactions only: nothing of
		# them is left to decode; the report names the stretch.
		ok "$name: the loss report names the damaged stretch (no transaction left to decode)"
	elif [ -n "$tids" ] && [ -z "$missing" ]; then
		ok "$name: the loss report names every inode the lost transactions logged"
	else
		not_ok "$name: loss report: lost transactions [$tids], inodes logged but not named: $missing"
	fi
	# A failed case keeps its damaged image (XFSJ_KEEP=1 keeps T_DIR).
	if [ "$T_FAIL" -gt "$fail0" ] && [ "${XFSJ_KEEP:-0}" = 1 ]; then
		rm -f "$d.salv" "$d.L"
		echo "# $name: damaged image kept: $d.dmg"
	else
		rm -f "$d.dmg" "$d.salv" "$d.L"
	fi
}

# wrapped RAWLOG WHEN NEAR: does the live log run past the physical end of
# the log with records on both sides of it that damage() may take (the
# first after the end at least TORN + 1 before the head)?  With NEAR, the
# head must also be early in the log: the records on either side of its
# end are then within the kernel's head scan (4096 blocks), where the
# head it finds moves to a lost one (its search in two parts).
wrapped() {
	"$LOGPRINT" -f --json --live "$1" 2>/dev/null | python3 -c '
import json, sys
torn, near = int(sys.argv[1]), sys.argv[2] == "1"
recs, head = [], 0
for o in map(json.loads, sys.stdin):
    if o["kind"] == "record" and o.get("live"):
        recs.append(o["block"])
    elif o["kind"] == "summary":
        head = o["head"]
w = [i for i in range(1, len(recs)) if recs[i] < recs[i - 1]]
if not w:
    sys.exit("the live log does not wrap")
if w[0] < 3 or len(recs) - w[0] < torn + 2:
    sys.exit("the live log wraps %d records from its tail, %d from its head" % (w[0], len(recs) - w[0]))
if near and head > 2500:
    sys.exit("the head (%d) is far from the start" % head)
' "$TORN" "$2"
}

# near_end: a quick look at the log of WRAP_IMG in place (CRASHIMG_LOG
# says where it is), the cycle stamps only: has the head gone past the
# log's end by TORN + 2 records, with the tail (of the last record)
# still WRAP_MARGIN blocks or more before the end, and (NEAR 1) the head
# early in the log?  The small log's live log straddles its end for
# well under a second of each round when the machine is fast: a slower
# look would see the crash come after the tail went past the end.
near_end() {
	python3 - "$WRAP_IMG" "${CRASHIMG_LOG% *}" "${CRASHIMG_LOG#* }" "$TORN" "$WRAP_MARGIN" "$1" <<'EOF2'
import sys
img, off, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]) // 512
torn, margin, near = int(sys.argv[4]), int(sys.argv[5]), sys.argv[6] == "1"
MAGIC = 0xFEEDBABE
f = open(img, "rb")
def blocks(b, n):
    f.seek(off + b * 512)
    return f.read(n * 512)
def cycle(d, i):
    w = int.from_bytes(d[i * 512:i * 512 + 4], "big")
    return int.from_bytes(d[i * 512 + 4:i * 512 + 8], "big") if w == MAGIC else w
first = blocks(0, min(size, 4096))
c0, cl = cycle(first, 0), cycle(blocks(size - 1, 1), 0)
if c0 != cl + 1:
    sys.exit(1)
head = next((i for i in range(len(first) // 512) if cycle(first, i) != c0), None)
if head is None or (near and head > 2500):
    sys.exit(1)
hdrs = [i for i in range(head) if int.from_bytes(first[i * 512:i * 512 + 4], "big") == MAGIC]
if len(hdrs) < torn + 2:
    sys.exit(1)
tail = int.from_bytes(first[hdrs[-1] * 512 + 28:hdrs[-1] * 512 + 32], "big")
sys.exit(0 if head < tail <= size - margin else 1)
EOF2
}

# need_wrapped RAWLOG live|final (CRASH_NEED): while the workload runs,
# near_end() twenty times a second for a second, for a head early in the
# log during the first WRAP_AIM seconds, then for any past the end; the
# final log (and a live one near_end() took) must wrap as wrapped() says.
need_wrapped() {
	local k near=0
	[ "$2" = final ] && { wrapped "$1" 0; return; }
	[ $((SECONDS - WRAP_T0)) -lt "$WRAP_AIM" ] && near=1
	for ((k = 0; k < 20; k++)); do
		near_end "$near" && return 0
		sleep 0.05
	done
	echo "the live log does not straddle the end of the log"
	return 1
}

# one_image I NAME MKFS SIZE MKFS_OPTS NEED AT KINDS...: a crash image,
# its truth, then one case per damage kind (AT: where damage() takes its
# record).
one_image() {
	local i=$1 name=$2 mkfs=$3 size=$4 mkopts=$5 need=$6 at=$7 img frac kind
	shift 7
	img=$T_DIR/crash$i.img
	if ! CRASH_MKFS=$mkfs CRASH_NEED=$need CRASH_SEED=$((SEED + i)) \
		make_crash_image "$img" "$size" "$mkopts" "${MOPTS:-}" 3; then
		not_ok "$name: crash image"
		return
	fi
	cp --sparse=always "$img" "$T_DIR/truth.img"
	if ! kernel_replay "$T_DIR/truth.img"; then
		# No truth to compare with: nothing else can stand in.
		echo "# $name: skipped: the kernel does not replay the undamaged copy"
		rm -f "$img" "$T_DIR/truth.img"
		return
	fi
	manifest "$T_DIR/truth.img" "$T_DIR/truth$i.man" || { not_ok "$name: manifest of the truth"; return; }
	rm -f "$T_DIR/truth.img"
	frac=0.$((40 + (SEED + 7 * i) % 20))
	for kind in "$@"; do
		DAMAGE_AT=$at one_case "$img" "$T_DIR/truth$i.man" "$kind" "$frac" "$name-$kind"
	done
	rm -f "$img"
}

# The freeze writes the metadata of the first seconds in place: what
# xfs_repair -L keeps; the live log holds only what came after it.
export CRASH_FREEZE=1
t0=$SECONDS
for ((i = 0; i < IMAGES; i++)); do
	if [ "$i" -eq 0 ]; then
		one_image "$i" "img$i" mkfs.xfs 512m "" need_records "" flip zero lost
	else
		one_image "$i" "img$i" mkfs.xfs 512m "" need_records "" \
			"$(echo "lost zero flip" | cut -d' ' -f$((1 + (i - 1) % 3)))"
	fi
done
# Log buffers of 256 KiB (mount -o logbsize=256k): records of up to 512
# blocks behind a header of 8 blocks (seven extended headers).
for ((i = IMAGES + WRAPPED; i < IMAGES + WRAPPED + BIGBUF; i++)); do
	MOPTS=logbsize=256k one_image "$i" "bigbuf$i" mkfs.xfs 512m "" \
		need_records "" "$(echo "flip lost zero" | cut -d' ' -f$((1 + (SEED + i) % 3)))"
done
# The smallest log the kernel takes (xfsj-mkfs --small: mkfs.xfs makes
# none below 64 MiB), on the smallest filesystem: the live log wraps past
# the log's physical end, and the records on either side of it are damaged.
for ((i = IMAGES; i < IMAGES + WRAPPED; i++)); do
	# Until the head has gone round once (tens of seconds when the
	# machine is loaded): the live log straddles the end for a few
	# seconds of each round.
	WRAP_IMG=$T_DIR/crash$i.img WRAP_T0=$SECONDS WRAP_AIM=20 WRAP_MARGIN=400
	CRASH_MAX_SECONDS=45 one_image "$i" "wrap$i" xfsj 256m --small \
		need_wrapped wrap$(((SEED + i) % 2)) lost flip
done
echo "# replay-salvage: $((SECONDS - t0)) s"
check "at least $JUDGED cases judged ($NJUDGED)" [ "$NJUDGED" -ge "$JUDGED" ]
t_done
