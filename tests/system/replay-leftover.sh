#!/bin/bash
# Salvage cases the repair must finish (issue 23): a log damaged in the
# middle leaves the filesystem in a state its replay alone cannot make
# whole, and xfsj-repair --salvage must leave it clean.  Two cases per
# profile, each made on purpose and checked to be there before the
# salvage runs:
#
#  (dotdot) a directory's ".." names one directory while another holds
#    its entry: directories X and Y, short-form X/c (written in place by
#    a freeze), a few checkpoints, then `mv X/c Y/c` in a checkpoint of
#    its own (a log force), then a file made in Y/c (a later checkpoint logs c's fork,
#    whose ".." is Y), then more checkpoints and `shutdown -f`.  The
#    records of the rename's checkpoint are zeroed (cycle stamps kept):
#    X, as written in place, still holds c.  The salvage's check must
#    report names.dotdot for c.
#  (undone) leftover log work the replay could not finish: a crash image
#    of the suite's workload with the reflink, CoW and exchange-range
#    loops (lib/crashimg.sh, CRASH_CHAINS=1) and files held open after
#    their unlink (CRASH_HOLD: their inodes are on the AGI unlinked
#    lists); a record is zeroed that holds the done item of an intent
#    logged in an earlier checkpoint, so the salvage must replay the
#    intent without its end: records are tried in turn (seeded order)
#    until the salvage reports it left the work undone
#    ("leftover_work_undone", as xfs_repair -L would leave it), which is
#    checked, with the unlinked inodes and the CoW staging extents the
#    check then reports, for the repair to finish.
#
# For each case: xfsj-repair --salvage exits 1 (problems found, all
# fixed), then xfs_repair -n (6.13) and xfsj-repair -n are clean, and the
# kernel mounts it, takes a write (files made, written, one removed) and
# unmounts it, after which xfs_repair -n is still clean.
#
# Profiles (LEFTOVER_PROFILES, default "defaults bigbuf small"): mkfs.xfs
# 6.13's defaults (512 MiB), the same mounted with 256 KiB log buffers
# (logbsize=256k), and xfsj-mkfs --small (256 MiB, the smallest log);
# "bs1k" (mkfs.xfs -b size=1024) by hand.  SEED=s (default: from the
# clock; printed) orders the records tried and seeds the workload;
# UNDONE_TRIES=n (default 12) records tried per image; UNDONE_IMAGES=n
# (default 4) crash images made (seeds SEED, SEED+7919, ...) until one
# has a record whose loss leaves work undone; UNDONE_ATTEMPTS=n (default
# 12) workloads run for each of them until the log holds at least 3
# checkpoints ending an intent of an earlier one (on the small profile
# about half the crashes leave fewer: the tail passed them before the
# shutdown; 4 attempts failed a run of seed 43520).  Long runs: a loop
# over seeds with LEFTOVER_PROFILES="defaults bigbuf small bs1k".
# UNDONE_ALL=1 (by hand) salvages and judges every record tried whose
# loss leaves work undone, not only the first (many cases per image).
# XFSJ_KEEP=1 keeps the damaged image of a failed case.  The time is
# printed: 80 s with the defaults on the 2-core machine while another
# system test ran beside it (seed 5: 33 checks); bs1k alone 19 s.  By
# hand, seeds 201-203 over all four profiles: 132 checks passed (116 to
# 191 s a seed under load).
source "$(dirname "$0")/lib/common.sh"
source "$(dirname "$0")/lib/crashimg.sh"
need_root
oracle_613
REPAIR=${XFSJ_REPAIR:-$BUILD/xfsj-repair}
LOGPRINT=${XFSJ_LOGPRINT:-$BUILD/xfsj-logprint}
ORACLE=$XFSPROGS613/xfs_repair
SEED=${SEED:-$(( $(date +%s) % 100000 ))}
PROFILES=${LEFTOVER_PROFILES:-defaults bigbuf small}
TRIES=${UNDONE_TRIES:-12}
IMAGES=${UNDONE_IMAGES:-4}
ATTEMPTS=${UNDONE_ATTEMPTS:-12}
ALL=${UNDONE_ALL:-0}
TORN=10
MNT=$T_DIR/mnt
echo "# replay-leftover: seed $SEED, profiles $PROFILES"

# profile NAME: sets P_MKFS (mkfs.xfs or xfsj), P_SIZE, P_MKOPTS, P_MOPTS.
profile() {
	P_MKFS=mkfs.xfs P_SIZE=512m P_MKOPTS="" P_MOPTS=""
	case $1 in
	defaults) ;;
	bigbuf) P_MOPTS=logbsize=256k ;;
	small) P_MKFS=xfsj P_SIZE=256m P_MKOPTS=--small ;;
	bs1k) P_MKOPTS="-b size=1024" ;;
	*) return 1 ;;
	esac
}

# live_records IMG: "block blocks" of every live record of IMG's log.
live_records() {
	"$LOGPRINT" --json --live "$1" 2>/dev/null | python3 -c '
import json, sys
for o in map(json.loads, sys.stdin):
    if o["kind"] == "record" and o.get("live"):
        print(o["block"], o["hblks"] + (o["len"] + 511) // 512)
'
}

# zero_records IMG FIRST LAST: every live record from the one holding
# log block FIRST to the one holding LAST zeroed but for each block's
# cycle stamp (the head and tail found stay where they were).  Prints
# the blocks of the records zeroed; fails when none is strictly inside
# the live log (not the tail's, TORN records or more before the head).
zero_records() {
	"$LOGPRINT" --json --live "$1" 2>/dev/null > "$T_DIR/recs.json" || return 1
	python3 - "$1" "$2" "$3" "$T_DIR/recs.json" "$TORN" <<'EOF2'
import json, sys
img, first, last, js, torn = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], int(sys.argv[5])
recs, daddr = [], None
for o in map(json.loads, open(js)):
    if o["kind"] == "summary":
        daddr, size = o["log_daddr"], o["log_length"]
    elif o["kind"] == "record" and o.get("live"):
        o["nbb"] = o["hblks"] + (o["len"] + 511) // 512
        recs.append(o)
def holding(b):
    for i, r in enumerate(recs):
        if r["block"] <= b < r["block"] + r["nbb"]:
            return i
    sys.exit("no live record holds log block %d" % b)
i, j = holding(first), holding(last)
if i < 1 or j > len(recs) - 1 - torn or j < i:
    sys.exit("records %d..%d of %d: not strictly inside the live log" % (i, j, len(recs)))
with open(img, "r+b") as f:
    for r in recs[i:j + 1]:
        if r["block"] + r["nbb"] > size:
            sys.exit("record at %d wraps" % r["block"])
        base = (daddr + r["block"]) * 512
        for k in range(r["nbb"]):
            keep = 8 if k == 0 else 4
            f.seek(base + k * 512 + keep)
            f.write(bytes(512 - keep))
print(" ".join(str(r["block"]) for r in recs[i:j + 1]))
EOF2
}

# codes JSON: the problem codes a --json run reported, "code count" lines.
codes() {
	python3 -c '
import json, sys, collections
c = collections.Counter()
for l in open(sys.argv[1]):
    try:
        o = json.loads(l)
    except ValueError:
        continue
    if o.get("kind") == "problem":
        c[o.get("code")] += 1
for k, v in sorted(c.items()):
    print(k, v)
' "$1"
}

# takes_write IMG: the kernel mounts IMG, files are made, written and one
# removed, it unmounts; then xfs_repair -n is clean.
takes_write() {
	local dev i
	dev=$(attach_loop "$1") || return 1
	if ! t_mount "$dev" "$MNT" nouuid; then
		detach_loop "$dev"
		return 1
	fi
	mkdir -p "$MNT/lo.work" &&
	for i in 1 2 3 4; do
		head -c $((i * 9000)) /dev/urandom > "$MNT/lo.work/f$i" || break
	done
	rm -f "$MNT/lo.work/f2"
	sync -f "$MNT/lo.work/f1"
	[ -s "$MNT/lo.work/f4" ] || { t_umount "$MNT"; detach_loop "$dev"; return 1; }
	t_umount "$MNT" || return 1
	detach_loop "$dev"
	"$ORACLE" -n "$1" > "$T_DIR/after-write.out" 2>&1
}

# salvaged NAME IMG: --salvage of the damaged IMG (in place), then both
# checkers and the kernel.
salvaged() {
	local name=$1 img=$2 rc
	"$REPAIR" --salvage "$img" > "$T_DIR/salv.out" 2>&1
	rc=$?
	check "$name: xfsj-repair --salvage exits 1 (got $rc)" [ "$rc" -eq 1 ]
	[ "$rc" -eq 1 ] || grep -v '^found:\|^fixed:' "$T_DIR/salv.out" | tail -3 | cut -c1-200 | sed 's/^/#   /'
	if "$ORACLE" -n "$img" > "$T_DIR/xr.out" 2>&1; then
		ok "$name: xfs_repair -n clean after --salvage"
	else
		not_ok "$name: xfs_repair -n after --salvage: $(grep -v '^Phase\|^ *-\|^No modify\|host filesystem\|the image and\|Repair may fail' "$T_DIR/xr.out" | head -3 | tr '\n' ' ' | cut -c1-240)"
	fi
	if "$REPAIR" -n "$img" > "$T_DIR/xj.out" 2>&1; then
		ok "$name: xfsj-repair -n clean after --salvage"
	else
		not_ok "$name: xfsj-repair -n after --salvage: $(grep -v 'log is clean\|checked' "$T_DIR/xj.out" | head -3 | tr '\n' ' ' | cut -c1-240)"
	fi
	check "$name: the kernel mounts it and takes a write, xfs_repair -n clean after" \
		takes_write "$img"
}

# keep NAME IMG FAIL0: a failed case's damaged image kept (XFSJ_KEEP=1).
keep() {
	if [ "$T_FAIL" -gt "$3" ] && [ "${XFSJ_KEEP:-0}" = 1 ]; then
		cp --sparse=always "$2" "/tmp/replay-leftover-$1.img"
		echo "# $1: damaged image kept: /tmp/replay-leftover-$1.img"
	fi
}

# ---- (dotdot) ----

# inode_items IMG INO...: the transactions whose INODE items log every
# one of the INOs, "start_block commit_block" a line, in log order.
inode_items() {
	local img=$1
	shift
	"$LOGPRINT" --json -t -c "$img" 2>/dev/null | python3 -c '
import json, sys
want = set(int(x) for x in sys.argv[1:])
cur, seen = None, set()
def done():
    if cur is not None and want <= seen:
        print(cur["start_block"], cur["commit_block"])
for o in map(json.loads, sys.stdin):
    if o["kind"] == "trans":
        done()
        cur, seen = o, set()
    elif o["kind"] == "item" and o.get("type") == "INODE" and "error" not in o:
        seen.add(o["ino"])
done()
' "$@"
}

dotdot_case() {
	local prof=$1 name=$prof-dotdot img=$T_DIR/dotdot.img dev i x y c tr blocks
	local fail0=$T_FAIL
	profile "$prof"
	rm -f "$img"
	truncate -s "$P_SIZE" "$img"
	dev=$(attach_loop "$img") || { not_ok "$name: losetup"; return; }
	CRASH_MKFS=$P_MKFS crashimg_mkfs "$dev" "$P_MKOPTS" || { not_ok "$name: mkfs"; detach_loop "$dev"; return; }
	t_mount "$dev" "$MNT" "$P_MOPTS" || { not_ok "$name: mount"; detach_loop "$dev"; return; }
	mkdir -p "$MNT/X/c" "$MNT/Y" "$MNT/Z"
	touch "$MNT/X/c/a" "$MNT/X/x1" "$MNT/Y/y1"
	# X, Y and c written in place, the log covered.
	xfs_io -x -c freeze -c thaw "$MNT"
	x=$(stat -c %i "$MNT/X") y=$(stat -c %i "$MNT/Y") c=$(stat -c %i "$MNT/X/c")
	# Checkpoints before the rename's: its records are not the tail's.
	for ((i = 0; i < 3; i++)); do
		touch "$MNT/Z/p$i"
		sync -f "$MNT/Z"
	done
	mv "$MNT/X/c" "$MNT/Y/c"
	sync -f "$MNT/Y"
	touch "$MNT/Y/c/b"
	sync -f "$MNT/Y"
	for ((i = 0; i < TORN + 6; i++)); do
		touch "$MNT/Z/z$i"
		sync -f "$MNT/Z"
	done
	xfs_io -x -c "shutdown -f" "$MNT"
	t_umount "$MNT"
	detach_loop "$dev"
	# The rename's checkpoint: the first that logs X, Y and c.
	tr=$(inode_items "$img" "$x" "$y" "$c" | head -1)
	if [ -z "$tr" ]; then
		not_ok "$name: no checkpoint of the log holds the rename of c ($c) from X ($x) to Y ($y)"
		return
	fi
	if ! blocks=$(zero_records "$img" $tr 2>&1); then
		not_ok "$name: the rename's records: $blocks"
		return
	fi
	"$REPAIR" -n --salvage --json "$img" > "$T_DIR/n.json" 2> "$T_DIR/n.err"
	if grep -q "\"code\":\"names.dotdot\".*\"ino\":$c[,}]" "$T_DIR/n.json"; then
		ok "$name: the salvage's check reports the '..' of c ($c) naming Y ($y) while X ($x) holds it"
	else
		not_ok "$name: the rename's records ($blocks) zeroed, but no names.dotdot for c ($c): $(codes "$T_DIR/n.json" | tr '\n' ' ')"
		return
	fi
	echo "# $name: records $blocks zeroed; found: $(codes "$T_DIR/n.json" | tr '\n' ' ')"
	salvaged "$name" "$img"
	keep "$name" "$img" "$fail0"
	rm -f "$img"
}

# ---- (undone) ----

# done_trans IMG [-f]: the transactions of IMG's log (-f: IMG is a raw
# log) holding a done item whose intent an earlier transaction logged,
# "start_block commit_block" a line, in log order.
done_trans() {
	"$LOGPRINT" ${2:-} --json -t -c "$1" 2>/dev/null | python3 -c '
import json, sys
intent_at, cur, out = {}, None, []
for o in map(json.loads, sys.stdin):
    if o["kind"] == "trans":
        cur = o
    elif o["kind"] == "item" and cur is not None and "id" in o:
        t = o.get("type", "")
        if t in ("CUI", "RUI", "EFI", "BUI", "XMI"):
            intent_at[o["id"]] = cur
        elif t in ("CUD", "RUD", "EFD", "BUD", "XMD") and o["id"] in intent_at:
            if intent_at[o["id"]]["commit_block"] != cur["commit_block"]:
                out.append("%d %d" % (cur["start_block"], cur["commit_block"]))
for l in dict.fromkeys(out):
    print(l)
'
}

# CRASH_NEED: a done item split from its intent, far enough before the
# head for zero_records.
need_split() {
	local n
	n=$(done_trans "$1" -f | wc -l)
	[ "$n" -ge 3 ] && return 0
	echo "only $n checkpoints end an intent of an earlier one"
	return 1
}

# undone_try PROF SEED: one crash image, its records tried; sets u, try,
# blocks (u empty: none left work undone)
undone_try() {
	local prof=$1 seed=$2 img=$T_DIR/undone.img tr
	u=""
	try=0
	if ! CRASH_MKFS=$P_MKFS CRASH_NEED=need_split CRASH_SEED=$seed \
		CRASH_ATTEMPTS=$ATTEMPTS \
		CRASH_CHAINS=1 CRASH_HOLD=6 CRASH_FREEZE=1 \
		make_crash_image "$T_DIR/crash.img" "$P_SIZE" "$P_MKOPTS" "$P_MOPTS" 3; then
		return 1
	fi
	# The checkpoints that end intents of earlier ones, in a seeded order.
	done_trans "$T_DIR/crash.img" |
		awk -v s="$seed" 'BEGIN { srand(s) } { print rand() "\t" $0 }' |
		sort | cut -f2 | head -n "$TRIES" > "$T_DIR/tries"
	while read -r tr; do
		try=$((try + 1))
		cp --sparse=always "$T_DIR/crash.img" "$img"
		blocks=$(zero_records "$img" $tr 2>/dev/null) || continue
		"$REPAIR" -n --salvage --json "$img" > "$T_DIR/n.json" 2> "$T_DIR/n.err"
		if grep -q '"leftover_work_undone":true' "$T_DIR/n.json"; then
			u=$(grep -o '"leftover_error":"[^"]*"' "$T_DIR/n.json" | head -1)
			[ "$ALL" = 1 ] || break
			every_undone "$prof-undone-$seed-$try" "$img"
		fi
	done < "$T_DIR/tries"
	rm -f "$T_DIR/crash.img"
	[ -n "$u" ] || rm -f "$img"
	return 0
}

# every_undone NAME IMG (UNDONE_ALL=1): one more judged case per record
# whose loss leaves work undone, IMG salvaged in place.
every_undone() {
	local fail0=$T_FAIL
	echo "# $1: records $blocks zeroed: $(codes "$T_DIR/n.json" | tr '\n' ' ')"
	salvaged "$1" "$2"
	keep "$1" "$2" "$fail0"
}

undone_case() {
	local prof=$1 name=$prof-undone img=$T_DIR/undone.img try blocks u
	local fail0=$T_FAIL image tries=0
	profile "$prof"
	# A crash image whose records all fail to leave work undone (too
	# few intents ended in a later checkpoint) is replaced by another
	# one of the next seed, up to UNDONE_IMAGES images.
	for image in $(seq 0 $((IMAGES - 1))); do
		if ! undone_try "$prof" $((SEED + image * 7919)); then
			not_ok "$name: crash image"
			return
		fi
		tries=$((tries + try))
		[ -n "$u" ] && break
	done
	if [ -z "$u" ]; then
		not_ok "$name: none of $tries damaged records in $IMAGES crash images left work the salvage could not finish"
		return
	fi
	ok "$name: records $blocks zeroed (image $((image + 1)), try $try): the salvage leaves the log's work undone ($u)"
	if [ "$ALL" = 1 ]; then
		rm -f "$img"
		return
	fi
	echo "# $name: found: $(codes "$T_DIR/n.json" | tr '\n' ' ')"
	check "$name: the check reports the held files' unlinked inodes left for the repair" \
		grep -q '"code":"agi.unlinked_pending"' "$T_DIR/n.json"
	salvaged "$name" "$img"
	keep "$name" "$img" "$fail0"
	rm -f "$img"
}

t0=$SECONDS
for prof in $PROFILES; do
	profile "$prof" || { not_ok "no profile $prof"; continue; }
	dotdot_case "$prof"
	undone_case "$prof"
done
echo "# replay-leftover: $((SECONDS - t0)) s"
t_done
