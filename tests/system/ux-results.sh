#!/bin/bash
# The results and words of the three tools where XFS users' habits expect
# them (issue 24), each made on purpose and checked:
#  1. JSON: every object of every JSON view conforms to doc/json-schema.json
#     (tests/system/lib/jsonschema.py: a "kind" on each, its keys and their
#     types, no key twice): xfsj-logprint's views on a kernel-written log
#     (and a damaged copy's error objects); xfsj-repair -n --json on clean,
#     dirty and damaged images, --json repairing one, the dry restore of a
#     zeroed primary, --salvage's loss report, --list-problems, a refusal;
#     the validator itself refuses a key given twice, an unknown key or kind.
#  2. --compat: xfsj-repair's exit code equals xfs_repair 6.13's on the
#     same image (clean, dirty and damaged with -n, -e repairing, zeros,
#     a directory, a missing device, no argument); a dirty log without -n
#     against xfs_repair after the kernel replayed it.
#  3. -c options=: each configuration file xfsprogs 6.13 ships gives the
#     same `xfs_db sb 0 print` and root inode (extent size hint, DAX,
#     attribute fork: autofsck) as mkfs.xfs 6.13 with the same file.
#  4. A kernel too old for a feature (XFSJ_TEST_KERNEL_RELEASE=6.1.0): one
#     warning line naming exchange, parent and lts_6.1.conf; the options it
#     gives make an image Debian 12's xfs_repair 6.1 accepts (it rejects
#     the default one; a system xfs_repair 6.10 or newer accepts both), and
#     no warning then; none on the running kernel.
#  5. -n on a zeroed primary says what the repair will do (would fix,
#     replay, check), not that the log cannot be replayed.
#  6. Zeros, seeded random bytes and ext4: one line "not an XFS
#     filesystem", exit 8 with and without -n.
#  7. The same words both ways: a directory, a truncated image (the device
#     is shorter, said first), -o ag_stride without a value, no argument
#     (two lines pointing at --help), logprint --ag past the last AG,
#     -n --replay-only (no check); every option of --help in the man page
#     and back; the exit status table the same in --help, man page, README.
#  8. Output a person can read: one block of a directory of 302 children
#     zeroed (xfs_db -x) prints one root line and one line counting its
#     consequences by code (-v: each, indented; the summary counts all);
#     an unrelated problem stays a root; --json gives each problem an id
#     and the consequences the root's id as cause (schema-valid).  The
#     repair: each field of each object fixed once (the link counts two
#     rounds set 3 -> 2 -> 3 are no fix), the rebuilt directory names the
#     entry it left out ('yyy', a free inode) and says nothing when none is
#     lost, AGF counter fixes count as counters, no zero counts, one
#     summary after a superblock restore (counting the restore), preen's
#     reason on stdout.
# About a minute (a 4-second kernel workload, images of 512 MiB).
#
#   XFSJ_VERBOSE=1   print every passing check too
export LC_ALL=C
source "$(dirname "$0")/lib/common.sh"
source "$(dirname "$0")/lib/crashimg.sh"
need_root
oracle_613
DB=$XFSPROGS613/xfs_db
XREPAIR=$XFSPROGS613/xfs_repair
XMKFS=$XFSPROGS613/mkfs.xfs
CONFDIR=$XFSPROGS613/../share/xfsprogs/mkfs
REPAIR=${XFSJ_REPAIR:-$BUILD/xfsj-repair}
LP=${XFSJ_LOGPRINT:-$BUILD/xfsj-logprint}
SCHEMA=$TOP/doc/json-schema.json
VALID="python3 $TOP/tests/system/lib/jsonschema.py $SCHEMA"
UUID=11111111-2222-3333-4444-555555555555

silent() { "$@" > /dev/null 2>&1; }
copy() { cp --sparse=always "$1" "$2"; }

# valid TOOL STREAM FILE [--need K,..] [--mixed]: a check that FILE conforms.
valid() {
	local what=$1 out
	shift
	if out=$($VALID "$@" 2>&1); then
		ok "$what: $(tail -1 <<< "$out")"
	else
		not_ok "$what: $(head -5 <<< "$out" | tr '\n' ' ')"
	fi
}

# ---- the images ----
CRASH=$T_DIR/crash.img
CRASH_CHAINS=1 make_crash_image "$CRASH" 512M "" "" 4 ||
	{ echo "ux-results: cannot make the crash image" >&2; exit 1; }
CLEAN=$T_DIR/clean.img
truncate -s 512M "$CLEAN"
silent "$MKFS" -q -f "$CLEAN" || { echo "ux-results: cannot make $CLEAN" >&2; exit 1; }
# Damaged: the superblock's and one AGF's free counters.
DAMAGED=$T_DIR/damaged.img
copy "$CLEAN" "$DAMAGED"
silent "$DB" -x -c 'sb 0' -c 'write -d fdblocks 1234' -c 'agf 1' \
	-c 'write -d freeblks 17' "$DAMAGED"

# ---- 1. JSON against the schema ----
printf '%s\n' '{"kind":"problem","state":"found","code":"x","num":"0x010001","severity":"corrupt","structure":"s","fix":"f","found":1,"found":2,"message":"m"}' > "$T_DIR/twice.json"
check "the validator refuses a key given twice" \
	bash -c "! $VALID xfsj-repair stdout '$T_DIR/twice.json' > /dev/null"
printf '%s\n' '{"kind":"fix","fix":"f","what":"w","extra":1}' > "$T_DIR/extra.json"
check "the validator refuses a key the schema does not list" \
	bash -c "! $VALID xfsj-repair stdout '$T_DIR/extra.json' > /dev/null"
printf '%s\n' '{"found":true,"code":"x"}' > "$T_DIR/nokind.json"
check "the validator refuses an object without a kind" \
	bash -c "! $VALID xfsj-repair stdout '$T_DIR/nokind.json' > /dev/null"

i=0
for view in "" "-t" "-t -o" "-t -n" "--records" "--records --ops" \
	    "--records --live" "--checkpoints" "--intents" "--summary"; do
	i=$((i + 1))
	# shellcheck disable=SC2086
	"$LP" --json $view "$CRASH" > "$T_DIR/lp$i.json" 2> /dev/null
	case $view in
	-t*) need=summary,trans,item ;;
	--records\ --ops) need=summary,record,op ;;
	--checkpoints) need=summary,cil_limit,checkpoint,checkpoint_total ;;
	--intents) need=summary,intent,audit ;;
	--summary) need=summary ;;
	*) need=summary,record ;;
	esac
	valid "xfsj-logprint --json ${view:-(records)}" xfsj-logprint stdout \
		"$T_DIR/lp$i.json" --need "$need"
done
# Error objects: a copy of the log with a byte of one record's data
# flipped (its CRC fails; the cycle stamps, and so the head, stay), the
# middle one of the live records of two blocks or more.
"$LP" -C "$T_DIR/log.raw" "$CRASH" > /dev/null 2>&1
blk=$("$LP" -f --json --live "$T_DIR/log.raw" 2>/dev/null | python3 -c '
import json, sys
r = [o["block"] + o["hblks"] for o in map(json.loads, sys.stdin)
     if o["kind"] == "record" and o["len"] >= 1024]
print(r[len(r) // 2])')	# the record's first data block
# flip FILE BYTE: one byte of FILE inverted.
flip() {
	python3 -c '
import sys
with open(sys.argv[1], "r+b") as f:
    f.seek(int(sys.argv[2])); b = f.read(1); f.seek(int(sys.argv[2]))
    f.write(bytes([b[0] ^ 0xff]))' "$1" "$2"
}
flip "$T_DIR/log.raw" $((blk * 512 + 100))
"$LP" -f -c -t --json "$T_DIR/log.raw" > "$T_DIR/lperr.json" 2> /dev/null
valid "xfsj-logprint -f -c -t --json on a damaged log" xfsj-logprint stdout \
	"$T_DIR/lperr.json" --need summary,error

"$REPAIR" -n --json "$CLEAN" > "$T_DIR/r1.json" 2> "$T_DIR/r1.err"
valid "xfsj-repair -n --json, clean" xfsj-repair stdout "$T_DIR/r1.json" --need check_summary
copy "$CRASH" "$T_DIR/dirty.img"
"$REPAIR" -n --json --progress "$T_DIR/dirty.img" > "$T_DIR/r2.json" 2> "$T_DIR/r2.err"
valid "xfsj-repair -n --json, dirty log" xfsj-repair stdout "$T_DIR/r2.json" --need check_summary
valid "xfsj-repair -n --json --progress: the JSON lines on stderr" \
	xfsj-repair stderr "$T_DIR/r2.err" --mixed
"$REPAIR" -n --json "$DAMAGED" > "$T_DIR/r3.json" 2> /dev/null
valid "xfsj-repair -n --json, damaged" xfsj-repair stdout "$T_DIR/r3.json" --need problem,check_summary
check "-n --json: a problem's found value survives a JSON parser (no key twice)" \
	python3 -c '
import json, sys
p = [o for o in map(json.loads, open(sys.argv[1])) if o["kind"] == "problem"]
sys.exit(not any(o.get("field") == "fdblocks" and o.get("found") == 1234 for o in p))' "$T_DIR/r3.json"
copy "$DAMAGED" "$T_DIR/fix.img"
"$REPAIR" --json "$T_DIR/fix.img" > "$T_DIR/r4.json" 2> /dev/null
valid "xfsj-repair --json, repairing" xfsj-repair stdout "$T_DIR/r4.json" --need problem,fix,repair_summary
"$REPAIR" --list-problems --json > "$T_DIR/r5.json"
valid "xfsj-repair --list-problems --json" xfsj-repair stdout "$T_DIR/r5.json" --need problem_def
copy "$CRASH" "$T_DIR/zsb.img"
dd if=/dev/zero of="$T_DIR/zsb.img" bs=512 count=1 conv=notrunc status=none
"$REPAIR" -n --json "$T_DIR/zsb.img" > "$T_DIR/r6.json" 2> /dev/null
valid "xfsj-repair -n --json, zeroed primary (dry restore)" xfsj-repair stdout \
	"$T_DIR/r6.json" --need problem,fix,check_summary
LOGDADDR=$("$LP" --json --summary "$CRASH" | grep -o '"log_daddr":[0-9]*' | cut -d: -f2)
copy "$CRASH" "$T_DIR/salv.img"
flip "$T_DIR/salv.img" $(((LOGDADDR + blk) * 512 + 100))
copy "$T_DIR/salv.img" "$T_DIR/salv2.img"
copy "$T_DIR/salv.img" "$T_DIR/salv3.img"
copy "$T_DIR/salv.img" "$T_DIR/salv4.img"
"$REPAIR" -n --json "$T_DIR/salv.img" > "$T_DIR/r9.json" 2> /dev/null
valid "xfsj-repair -n --json, a record damaged mid-log (unreplayable)" xfsj-repair stdout \
	"$T_DIR/r9.json" --need problem,check_summary
"$REPAIR" --salvage --json "$T_DIR/salv.img" > "$T_DIR/r7.json" 2> /dev/null
valid "xfsj-repair --salvage --json (loss report)" xfsj-repair stdout "$T_DIR/r7.json" \
	--need salvage_damage,salvage_summary,repair_summary
truncate -s 64M "$T_DIR/zero.img"
"$REPAIR" -n --json "$T_DIR/zero.img" > "$T_DIR/r8.json" 2> /dev/null
valid "xfsj-repair -n --json, not XFS" xfsj-repair stdout "$T_DIR/r8.json" --need check_summary

# ---- 2. --compat against xfs_repair 6.13 on the same image ----
# compat WHAT XFS_REPAIR_ARGS... -- XFSJ_ARGS...
compat() {
	local what=$1 a=() b=() theirs ours
	shift
	while [ "$1" != -- ]; do a+=("$1"); shift; done
	shift
	b=("$@")
	silent timeout 120 "$XREPAIR" "${a[@]}" < /dev/null
	theirs=$?
	silent "$REPAIR" --compat "${b[@]}"
	ours=$?
	if [ "$ours" = "$theirs" ]; then
		ok "--compat $what: $ours, as xfs_repair"
	else
		not_ok "--compat $what: xfsj $ours, xfs_repair $theirs"
	fi
}
compat "-n, clean" -n "$CLEAN" -- -n "$CLEAN"
copy "$CRASH" "$T_DIR/d1.img"
compat "-n, dirty log" -n "$T_DIR/d1.img" -- -n "$T_DIR/d1.img"
compat "-n, damaged" -n "$DAMAGED" -- -n "$DAMAGED"
copy "$DAMAGED" "$T_DIR/e1.img"
copy "$DAMAGED" "$T_DIR/e2.img"
compat "-e, repairing" -e "$T_DIR/e1.img" -- -e "$T_DIR/e2.img"
copy "$CLEAN" "$T_DIR/c1.img"
copy "$CLEAN" "$T_DIR/c2.img"
compat "-e, clean" -e "$T_DIR/c1.img" -- -e "$T_DIR/c2.img"
compat "-n, zeros" -n "$T_DIR/zero.img" -- -n "$T_DIR/zero.img"
compat "zeros" "$T_DIR/zero.img" -- "$T_DIR/zero.img"
compat "-n, a directory" -n "$T_DIR" -- -n "$T_DIR"
compat "a directory" "$T_DIR" -- "$T_DIR"
compat "a missing device" -n "$T_DIR/none" -- -n "$T_DIR/none"
compat "no argument" -- 
compat "an unknown option" --bogus "$CLEAN" -- --bogus "$CLEAN"
compat "-n, a record damaged mid-log" -n "$T_DIR/salv2.img" -- -n "$T_DIR/salv2.img"
compat "a record damaged mid-log (the log needs the kernel: 2)" \
	"$T_DIR/salv3.img" -- "$T_DIR/salv4.img"
# A dirty log without -n: xfs_repair refuses (2) until a mount replays it;
# xfsj replays it, and answers for what is left, as xfs_repair then.
copy "$CRASH" "$T_DIR/k1.img"
copy "$CRASH" "$T_DIR/k2.img"
silent "$XREPAIR" "$T_DIR/k1.img"
check "xfs_repair refuses a dirty log (2)" [ $? -eq 2 ]
kernel_replay "$T_DIR/k1.img"
compat "dirty log, no -n (xfs_repair after the kernel's replay)" \
	"$T_DIR/k1.img" -- "$T_DIR/k2.img"

# ---- 3. -c options=: every file xfsprogs 6.13 ships ----
nconf=0
for conf in "$CONFDIR"/*.conf; do
	[ -e "$conf" ] || break
	nconf=$((nconf + 1))
	name=$(basename "$conf" .conf)
	cp "$conf" "$T_DIR/$name.conf"
	truncate -s 2G "$T_DIR/ca.img" "$T_DIR/cb.img"
	# The features xfsj-mkfs turns on by default and mkfs.xfs 6.13 does
	# not, asked of mkfs.xfs when the file leaves them to the default.
	extra=$(grep -q '^exchange=' "$conf" || newfeat)
	if ! "$MKFS" -q -f -c options="$T_DIR/$name.conf" -m uuid=$UUID \
		"$T_DIR/ca.img" > "$T_DIR/ca.out" 2>&1; then
		not_ok "-c options=$name.conf: xfsj-mkfs refuses it: $(head -2 "$T_DIR/ca.out" | tr '\n' ' ')"
		continue
	fi
	# shellcheck disable=SC2086
	silent "$XMKFS" -q -f -c options="$T_DIR/$name.conf" $extra \
		-m uuid=$UUID "$T_DIR/cb.img"
	for x in a b; do
		"$DB" -c 'sb 0' -c print "$T_DIR/c$x.img" > "$T_DIR/c$x.sb" 2>&1
		root=$(sed -n 's/^rootino = //p' "$T_DIR/c$x.sb")
		"$DB" -c "inode $root" -c 'print core.extsize core.extszinherit v3.dax core.forkoff core.aformat' \
			-c 'print a' "$T_DIR/c$x.img" 2>&1 | grep -v '^Metadata' > "$T_DIR/c$x.root"
	done
	check "-c options=$name.conf: the superblock mkfs.xfs 6.13 makes" \
		cmp -s "$T_DIR/ca.sb" "$T_DIR/cb.sb"
	check "-c options=$name.conf: the root directory mkfs.xfs 6.13 makes" \
		cmp -s "$T_DIR/ca.root" "$T_DIR/cb.root"
done
check "xfsprogs 6.13 ships configuration files ($nconf)" [ "$nconf" -ge 8 ]
check "-m autofsck=1 on the command line is taken" \
	silent "$MKFS" -q -f -m autofsck=1 "$T_DIR/ca.img"
check "... and stored as the root's xfs:autofsck = repair" \
	grep -q 'value = "repair"' <("$DB" -c "inode $("$DB" -c 'sb 0' -c 'print rootino' "$T_DIR/ca.img" | sed 's/.* = //')" -c 'print a' "$T_DIR/ca.img" 2>/dev/null)

# ---- 4. a kernel too old for the defaults ----
truncate -s 512M "$T_DIR/k.img"
XFSJ_TEST_KERNEL_RELEASE=6.1.0-28-amd64 "$MKFS" -q -f "$T_DIR/k.img" 2> "$T_DIR/k.err" > /dev/null
check "kernel 6.1: one warning line" [ "$(wc -l < "$T_DIR/k.err")" -eq 1 ]
check "... naming exchange, parent and lts_6.1.conf" \
	grep -q 'cannot mount exchange, parent .*-c options=lts_6.1.conf -i exchange=0 -n parent=0' "$T_DIR/k.err"
silent /usr/sbin/xfs_repair -n "$T_DIR/k.img"
rc=$?
# The distribution's xfs_repair (Debian 12's is 6.1): before 6.10 it does
# not know exchange and parent pointers.
sysver=$(/usr/sbin/xfs_repair -V | grep -oE '[0-9]+\.[0-9]+' | head -1)
if [ "$(printf '%s\n6.10\n' "$sysver" | sort -V | head -1)" != 6.10 ]; then
	check "... the system's xfs_repair $sysver rejects the default image" [ $rc -ne 0 ]
else
	check "... the system's xfs_repair $sysver accepts the default image" [ $rc -eq 0 ]
fi
advice=$(sed -n 's/.*for it: //p' "$T_DIR/k.err" | sed "s|options=|options=$CONFDIR/|")
# shellcheck disable=SC2086
XFSJ_TEST_KERNEL_RELEASE=6.1.0 "$MKFS" -q -f $advice "$T_DIR/k.img" 2> "$T_DIR/k2.err" > /dev/null
check "... its advice ($advice) makes no warning" [ ! -s "$T_DIR/k2.err" ]
check "... and an image the system's xfs_repair $sysver accepts" silent /usr/sbin/xfs_repair -n "$T_DIR/k.img"
"$MKFS" -q -f "$T_DIR/k.img" 2> "$T_DIR/k3.err" > /dev/null
kver=$(uname -r | grep -oE '^[0-9]+\.[0-9]+')
if [ "$(printf '%s\n6.10\n' "$kver" | sort -V | head -1)" = 6.10 ]; then
	check "the running kernel ($(uname -r)): no warning" [ ! -s "$T_DIR/k3.err" ]
else
	check "the running kernel ($(uname -r)): the warning" grep -q 'cannot mount' "$T_DIR/k3.err"
fi

# ---- 5. -n on a zeroed primary says what the repair will do ----
"$REPAIR" -n "$T_DIR/zsb.img" > "$T_DIR/z.out" 2>&1
check "-n, zeroed primary: exit 1" [ $? -eq 1 ]
check "... 'would fix' the primary from a secondary" grep -q '^would fix: .*primary superblock' "$T_DIR/z.out"
check "... then replays and checks (0 problems)" grep -q 'checked .* 0 problems found' "$T_DIR/z.out"
check "... never 'cannot be replayed'" bash -c "! grep -q 'cannot be replayed' '$T_DIR/z.out'"
check "... writes nothing" cmp -s <(head -c 512 "$T_DIR/zsb.img") <(head -c 512 /dev/zero)
silent "$REPAIR" "$T_DIR/zsb.img"
check "... the repair restores it and replays: -n clean then" silent "$REPAIR" -n "$T_DIR/zsb.img"

# ---- 6. not an XFS filesystem ----
python3 -c 'import random, sys; random.seed(24); sys.stdout.buffer.write(random.randbytes(64 << 20))' > "$T_DIR/rnd.img"
truncate -s 64M "$T_DIR/ext4.img"
silent mkfs.ext4 -q -F "$T_DIR/ext4.img"
for img in zero rnd ext4; do
	for n in -n ""; do
		copy "$T_DIR/$img.img" "$T_DIR/nx.img"
		# shellcheck disable=SC2086
		"$REPAIR" $n "$T_DIR/nx.img" > "$T_DIR/nx.out" 2> "$T_DIR/nx.err"
		rc=$?
		check "$img ${n:-(repair)}: exit 8" [ $rc -eq 8 ]
		check "$img ${n:-(repair)}: one line, 'not an XFS filesystem'" \
			bash -c "[ ! -s '$T_DIR/nx.out' ] && [ \$(wc -l < '$T_DIR/nx.err') -eq 1 ] && grep -q 'not an XFS filesystem' '$T_DIR/nx.err'"
	done
done

# ---- 7. the same words both ways ----
for n in -n ""; do
	# shellcheck disable=SC2086
	"$REPAIR" $n "$T_DIR" > /dev/null 2> "$T_DIR/dir.err"
	check "a directory ${n:-(repair)}: 'Is a directory'" grep -qx "xfsj-repair: cannot open $T_DIR: Is a directory" "$T_DIR/dir.err"
done
copy "$CLEAN" "$T_DIR/short.img"
truncate -s 300M "$T_DIR/short.img"
for n in -n ""; do
	# shellcheck disable=SC2086
	"$REPAIR" $n "$T_DIR/short.img" > "$T_DIR/short.out" 2>&1
	rc=$?
	check "truncated ${n:-(repair)}: exit 8" [ $rc -eq 8 ]
	check "truncated ${n:-(repair)}: the device is shorter, said first" \
		bash -c "head -1 '$T_DIR/short.out' | grep -q 'shorter than the filesystem' && ! grep -q sb_logblocks '$T_DIR/short.out'"
done
# A primary whose blocklog disagrees with its blocksize (fuzzed as fstests
# does) states a filesystem twice the device's size, and the secondary it
# then locates is AG 2's, which agrees on dblocks: a damaged primary, not
# a short device.  The repair mends it from a secondary.
copy "$CLEAN" "$T_DIR/bl.img"
silent "$DB" -x -c 'sb 0' -c 'fuzz -d blocklog lastbit' "$T_DIR/bl.img"
check "blocklog fuzzed: the primary states more than the device holds" \
	bash -c "[ \$('$DB' -r -c 'sb 0' -c 'p blocklog' '$T_DIR/bl.img' 2>/dev/null | awk '{ print \$3 }') = 13 ]"
"$REPAIR" -n "$T_DIR/bl.img" > "$T_DIR/bl.out" 2>&1
rc=$?
check "blocklog fuzzed (-n): exit 1, not refused as a short device" \
	bash -c "[ $rc -eq 1 ] && ! grep -q 'shorter than' '$T_DIR/bl.out'"
check "... the primary found to disagree with the secondaries" \
	grep -q 'sb.primary.mismatch' "$T_DIR/bl.out"
"$REPAIR" "$T_DIR/bl.img" > "$T_DIR/bl.out" 2>&1
check "blocklog fuzzed (repair): xfs_repair -n finds it clean after" \
	silent "$XREPAIR" -n -f "$T_DIR/bl.img"
"$REPAIR" -o ag_stride -n "$CLEAN" > /dev/null 2> "$T_DIR/ags.err"
check "-o ag_stride without a value: 'takes a number'" grep -qx 'xfsj-repair: ag_stride takes a number (ag_stride=N)' "$T_DIR/ags.err"
for t in mkfs repair logprint; do
	"$BUILD/xfsj-$t" > "$T_DIR/noarg.out" 2>&1
	check "xfsj-$t without arguments: at most 3 lines, pointing at --help" \
		bash -c "[ \$(wc -l < '$T_DIR/noarg.out') -le 3 ] && grep -q -- \"--help\" '$T_DIR/noarg.out'"
done
"$LP" --ag 99 -t "$CLEAN" > /dev/null 2> "$T_DIR/ag.err"
check "logprint --ag past the last AG: refused (exit 1)" [ $? -eq 1 ]
check "... naming the AGs there are" grep -q 'AGs 0 to 3' "$T_DIR/ag.err"
copy "$CRASH" "$T_DIR/ro.img"
"$REPAIR" -n --replay-only "$T_DIR/ro.img" > "$T_DIR/ro.out" 2>&1
check "-n --replay-only, dirty log: exit 2" [ $? -eq 2 ]
check "... replays, checks nothing" bash -c "grep -q 'not checked' '$T_DIR/ro.out' && ! grep -q '^.*: checked ' '$T_DIR/ro.out'"
for t in mkfs repair logprint; do
	"$BUILD/xfsj-$t" --help > "$T_DIR/help.$t"
	out=$(python3 "$TOP/tests/system/lib/optcheck.py" "$T_DIR/help.$t" "$TOP/man/man8/xfsj-$t.8")
	check "xfsj-$t: --help and the man page list the same options ($(tail -1 <<< "$out"))" \
		[ "$(wc -l <<< "$out")" -eq 1 ]
	[ "$(wc -l <<< "$out")" -eq 1 ] || echo "# $out"
	sed -n '/^Exit status:/,$p' "$T_DIR/help.$t" > "$T_DIR/exit.$t"
	check "xfsj-$t: README holds --help's exit status table" \
		python3 -c 'import sys; sys.exit(open(sys.argv[1]).read() not in open(sys.argv[2]).read())' \
		"$T_DIR/exit.$t" "$TOP/README.md"
	codes_help=$(grep -oE '^  [0-9]+ ' "$T_DIR/exit.$t" | tr -d ' ' | sort -n | tr '\n' ' ')
	codes_man=$(sed -n '/^\.SH EXIT STATUS/,/^\.SH SEE/p' "$TOP/man/man8/xfsj-$t.8" |
		grep -A1 '^\.TP' | grep -oE '^(\.B )?[0-9]+$' | grep -oE '[0-9]+' | sort -nu | tr '\n' ' ')
	check "xfsj-$t: the man page's exit codes are --help's ($codes_help)" [ "$codes_help" = "$codes_man" ]
done

# ---- 8. output a person can read ----
# A tree of /d (300 files, 2 directories) and /other, written by xfsj-mkfs -p.
mkdir -p "$T_DIR/tree/d/s1" "$T_DIR/tree/d/s2"
(cd "$T_DIR/tree/d" && seq -f 'f%.0f' 1 300 | xargs touch)
touch "$T_DIR/tree/other"
TREE=$T_DIR/tree.img
truncate -s 512M "$TREE"
silent "$MKFS" -q -f -p "$T_DIR/tree" "$TREE" ||
	{ echo "ux-results: cannot make $TREE" >&2; exit 1; }
# ino_of PATH: its inode number in the image.
ino_of() {
	"$DB" -c "path $1" -c stack "$TREE" 2>/dev/null |
		sed -n 's/.*\binode \([0-9]*\),.*/\1/p' | head -1
}
DIRINO=$(ino_of /d)
OTHER=$(ino_of /other)
# A free inode of a chunk in use: the first after /other's with mode 0.
FREEINO=
for ((i = OTHER + 1; i < OTHER + 64; i++)); do
	if "$DB" -c "inode $i" -c 'print core.mode' "$TREE" 2>/dev/null |
	   grep -qx 'core.mode = 0'; then
		FREEINO=$i
		break
	fi
done
check "the tree's image: /d ($DIRINO), /other ($OTHER), a free inode ($FREEINO)" \
	test -n "$DIRINO" -a -n "$OTHER" -a -n "$FREEINO"
# The first directory block of /d zeroed where its magic is (".", ".."
# and about 250 entries with it).
copy "$TREE" "$T_DIR/g1.img"
silent "$DB" -x -c 'path /d' -c 'dblock 0' -c 'fuzz -d dhdr.hdr.magic zeroes' "$T_DIR/g1.img"
"$REPAIR" -n "$T_DIR/g1.img" > "$T_DIR/g1.out" 2>&1
check "a zeroed directory block, -n: exit 1" [ $? -eq 1 ]
grep -v "^$T_DIR/g1.img: " "$T_DIR/g1.out" > "$T_DIR/g1.lines"
check "... one root line, the block's (dir.magic)" \
	bash -c "[ \$(grep -vc '^  ' '$T_DIR/g1.lines') -eq 1 ] && grep -q '^dir.magic: directory inode $DIRINO: ' '$T_DIR/g1.lines'"
check "... under it, one line counting its consequences by code" \
	bash -c "[ \$(grep -c '^  ' '$T_DIR/g1.lines') -eq 1 ] && grep -Eq '^  \(\+[0-9]+ consequences: .*inode\.nlink x[0-9]+.*pptr\.extra x[0-9]+.*inode\.disconnected x[0-9]+.*; -v shows them\)$' '$T_DIR/g1.lines'"
check "... at most 5 lines in all ($(wc -l < "$T_DIR/g1.out"))" [ "$(wc -l < "$T_DIR/g1.out")" -le 5 ]
nconseq=$(grep -oE '^  \(\+[0-9]+' "$T_DIR/g1.lines" | tr -dc 0-9)
nall=$(sed -n 's/.*: \([0-9]*\) problems found$/\1/p' "$T_DIR/g1.out")
check "... the summary counts every problem ($nall = 1 + $nconseq, over 250)" \
	test "${nall:-0}" -eq $((1 + ${nconseq:-0})) -a "${nconseq:-0}" -gt 250
"$REPAIR" -n -v "$T_DIR/g1.img" > "$T_DIR/g1v.out" 2>&1
check "-v: each consequence indented under it ($nconseq lines)" \
	[ "$(grep -c '^  [a-z]' "$T_DIR/g1v.out")" -eq "${nconseq:-x}" ]
check "... a child's link count among them" grep -q '^  inode\.nlink: inode [0-9]*: link count 1, but 0 entries' "$T_DIR/g1v.out"
"$REPAIR" -n --json "$T_DIR/g1.img" > "$T_DIR/g1.json" 2> /dev/null
valid "xfsj-repair -n --json, causes" xfsj-repair stdout "$T_DIR/g1.json" --need problem,check_summary
check "--json: ids 0..N-1, every problem but the root has the root's id as cause" \
	python3 -c '
import json, sys
p = [o for o in map(json.loads, open(sys.argv[1])) if o["kind"] == "problem"]
roots = [o for o in p if "cause" not in o]
ok = [o["id"] for o in p] == list(range(len(p))) and len(roots) == 1 and \
     roots[0]["code"] == "dir.magic" and \
     all(o["cause"] == roots[0]["id"] for o in p if "cause" in o)
sys.exit(not ok)' "$T_DIR/g1.json"
# The same block, an entry of the second block renamed "yyy" and pointed
# at a free inode, and /other's link count set to 5: two more roots.
copy "$TREE" "$T_DIR/g2.img"
silent "$DB" -x -c 'path /d' -c 'dblock 0' -c 'fuzz -d dhdr.hdr.magic zeroes' \
	-c 'path /d' -c 'dblock 1' -c 'write -d du[3].name "yyy"' \
	-c "write -d du[3].inumber $FREEINO" -c 'path /other' -c 'write -d core.nlinkv2 5' "$T_DIR/g2.img"
"$REPAIR" -n "$T_DIR/g2.img" > "$T_DIR/g2n.out" 2>&1
check "a problem of its own stays a root: /other's link count" \
	grep -q "^inode\.nlink: inode $OTHER: link count 5, but 1 entries" "$T_DIR/g2n.out"
copy "$T_DIR/g2.img" "$T_DIR/g2p.img"
"$REPAIR" -p "$T_DIR/g2p.img" > "$T_DIR/g2p.out" 2> "$T_DIR/g2p.err"
check "preen: stops (exit 32)" [ $? -eq 32 ]
check "... its reason on stdout, not stderr" \
	bash -c "grep -q 'preen stops: ' '$T_DIR/g2p.out' && ! grep -q 'preen stops' '$T_DIR/g2p.err'"
copy "$T_DIR/g1.img" "$T_DIR/g1r.img"
"$REPAIR" "$T_DIR/g1r.img" > "$T_DIR/g1r.out" 2>&1
check "repair of the zeroed block: exit 1" [ $? -eq 1 ]
check "... 'found:' one root line, its consequences counted" \
	bash -c "[ \$(grep -c '^found: ' '$T_DIR/g1r.out') -eq 1 ] && grep -q '^  (+' '$T_DIR/g1r.out'"
check "... the directory rebuilt, nothing said lost (none is)" \
	grep -Eq '^fixed: rebuilt directory [0-9]+ from 302 entries$' "$T_DIR/g1r.out"
check "... never a field of an object fixed twice (link counts set back and forth)" \
	bash -c "! grep '^fixed: ' '$T_DIR/g1r.out' | sed 's/ to [0-9]*.*//' | sort | uniq -d | grep -q ."
check "... no link count fix that only put a value back (inode $DIRINO, the root)" \
	bash -c "! grep -q 'set nlink of inode \\($DIRINO\\|128\\) ' '$T_DIR/g1r.out'"
check "... then clean" silent "$REPAIR" -n "$T_DIR/g1r.img"
"$REPAIR" "$T_DIR/g2.img" > "$T_DIR/g2.out" 2>&1
check "repair: the rebuilt directory names the entry it left out ('yyy')" \
	grep -q "^fixed: rebuilt directory $DIRINO from [0-9]* entries, leaving out 'yyy'$" "$T_DIR/g2.out"
check "... /other's link count fixed once" \
	[ "$(grep -c "^fixed: inode\.nlink: set nlink of inode $OTHER to 1$" "$T_DIR/g2.out")" -eq 1 ]
check "... the summary names no zero count" \
	bash -c "tail -1 '$T_DIR/g2.out' | grep -q 'problems found' && ! tail -1 '$T_DIR/g2.out' | grep -Eq '\(([^)]*, )?[a-z +/]+ 0[,)]'"
copy "$T_DIR/g2.img" "$T_DIR/g2j.img"
copy "$DAMAGED" "$T_DIR/ctr.img"
"$REPAIR" "$T_DIR/ctr.img" > "$T_DIR/ctr.out" 2>&1
check "an AGF and the superblock's counters fixed: counted as counters, not fields" \
	bash -c "grep -q '^fixed: agf.counter: ' '$T_DIR/ctr.out' && tail -1 '$T_DIR/ctr.out' | grep -q 'counters 2' && ! tail -1 '$T_DIR/ctr.out' | grep -q fields"
copy "$DAMAGED" "$T_DIR/ctr2.img"
"$REPAIR" --json "$T_DIR/ctr2.img" > "$T_DIR/ctr.json" 2> /dev/null
valid "xfsj-repair --json, counters" xfsj-repair stdout "$T_DIR/ctr.json" --need problem,fix,repair_summary
check "... JSON: counters_fixed 2, fields_fixed 0, fixes = fix objects" \
	python3 -c '
import json, sys
o = list(map(json.loads, open(sys.argv[1])))
s = [x for x in o if x["kind"] == "repair_summary"][0]
f = [x for x in o if x["kind"] == "fix"]
sys.exit(not (s["counters_fixed"] == 2 and s["fields_fixed"] == 0 and s["fixes"] == len(f)))' "$T_DIR/ctr.json"
copy "$TREE" "$T_DIR/zp.img"
dd if=/dev/zero of="$T_DIR/zp.img" bs=512 count=1 conv=notrunc status=none
"$REPAIR" "$T_DIR/zp.img" > "$T_DIR/zp.out" 2>&1
check "a superblock restored, then the replay's repair: one summary" \
	[ "$(grep -c 'problems\? found, .* applied' "$T_DIR/zp.out")" -eq 1 ]
check "... counting the restore (its problem and fix)" \
	grep -q 'headers rebuilt 1' "$T_DIR/zp.out"

t_done
