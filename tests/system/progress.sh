#!/bin/bash
# Progress of xfsj-mkfs -p and xfsj-repair -n, on a filesystem filled
# from a protofile of 60,000 entries (60 directories of 999 files):
#   - with --progress into a pipe: every line of stderr is a JSON object
#     {"kind":"progress","tool","phase","done","total","eta_s"} (python3's
#     json parses each), no escape byte anywhere, the phases named (mkfs:
#     copying entries, ending done == total; repair: every check phase,
#     each ending done == total);
#   - without --progress, stderr a pipe or a file: no progress at all
#     (stderr empty), no escape byte;
#   - on a terminal (script(1) gives one): the progress lines, one per
#     phase, each ended by a newline.
source "$(dirname "$0")/lib/common.sh"
need_root
command -v script > /dev/null || { echo "$T_NAME: script(1) missing (util-linux)" >&2; exit 2; }
IMG=$T_DIR/img
REPAIR=$BUILD/xfsj-repair

: > "$T_DIR/empty"
python3 - "$T_DIR/empty" > "$T_DIR/proto" <<'EOF'
import sys
w = sys.stdout.write
w("/dev/null\n0 0\nd--755 0 0\n")
for d in range(60):
    w("d%02d d--755 0 0\n" % d)
    for i in range(999):
        w("f%03d ---644 0 0 %s\n" % (i, sys.argv[1]))
    w("$\n")
w("$\n")
EOF

# jsonl FILE TOOL: every line a progress object of TOOL; prints the
# phases in order, each with whether its last object had done == total.
jsonl() {
	python3 - "$1" "$2" <<'EOF'
import json, sys
last = {}
order = []
for n, l in enumerate(open(sys.argv[1], "rb"), 1):
    o = json.loads(l)
    keys = ["kind", "tool", "phase", "done", "total", "eta_s"]
    if list(o) != keys or o["kind"] != "progress" or o["tool"] != sys.argv[2]:
        sys.exit("line %d: %r" % (n, o))
    if not (o["eta_s"] is None or (isinstance(o["eta_s"], int) and o["eta_s"] >= 0)):
        sys.exit("line %d: eta_s %r" % (n, o["eta_s"]))
    if o["phase"] not in last:
        order.append(o["phase"])
    last[o["phase"]] = o["done"] == o["total"] and o["total"] > 0
print(";".join("%s=%s" % (p, "end" if last[p] else "open") for p in order))
EOF
}
noesc() { ! grep -q $'\e' "$1"; }

truncate -s 1g "$IMG"
"$MKFS" -q -f --progress -p "$T_DIR/proto" "$IMG" 2>&1 > "$T_DIR/m.out" | cat > "$T_DIR/m.err"
rc=${PIPESTATUS[0]}
check "xfsj-mkfs --progress: exit 0" [ "$rc" = 0 ]
check "xfsj-mkfs -q --progress: nothing on stdout" [ ! -s "$T_DIR/m.out" ]
got=$(jsonl "$T_DIR/m.err" xfsj-mkfs)
check "xfsj-mkfs --progress into a pipe: JSON Lines, phases [$got]" [ "$got" = "writing AGs=end;copying entries=end" ]
check "xfsj-mkfs --progress: no escape byte" noesc "$T_DIR/m.err"
check "xfsj-mkfs --progress: the count reaches 60,000 entries" grep -q '"done":60000,"total":60000' "$T_DIR/m.err"

"$MKFS" -f -p "$T_DIR/proto" "$IMG" 2>&1 > "$T_DIR/m2.out" | cat > "$T_DIR/m2.err"
check "xfsj-mkfs without --progress, stderr a pipe: no progress ($(head -c 200 "$T_DIR/m2.err"))" [ ! -s "$T_DIR/m2.err" ]
check "xfsj-mkfs without --progress: no escape byte in the report" noesc "$T_DIR/m2.out"

"$REPAIR" -n --progress "$IMG" 2>&1 > "$T_DIR/r.out" | cat > "$T_DIR/r.err"
got=$(jsonl "$T_DIR/r.err" xfsj-repair)
want="checking superblocks=end;checking AG headers and btrees=end;checking inodes=end;checking space=end;checking names=end;checking counters=end"
check "xfsj-repair -n --progress into a pipe: JSON Lines, phases [$got]" [ "$got" = "$want" ]
check "xfsj-repair -n --progress: no escape byte" noesc "$T_DIR/r.err"
check "xfsj-repair -n --progress: the report still on stdout" grep -q "checked 60003 inodes.*0 problems" "$T_DIR/r.out"
# With --json the words go to stderr too: the progress objects are there,
# not among the JSON of stdout.
"$REPAIR" -n --json --progress "$IMG" 2> "$T_DIR/rj.err" > "$T_DIR/rj.out"
grep '^{' "$T_DIR/rj.err" > "$T_DIR/rj.jsonl"
check "--json --progress: the progress objects on stderr" \
	[ "$(jsonl "$T_DIR/rj.jsonl" xfsj-repair)" = "$want" ]
check "--json --progress: none among stdout's JSON" \
	[ "$(grep -c '"kind":"progress"' "$T_DIR/rj.out")" = 0 ]

"$REPAIR" -n "$IMG" > "$T_DIR/r2.out" 2> "$T_DIR/r2.err"
check "xfsj-repair -n without --progress, stderr a file: nothing there ($(head -c 200 "$T_DIR/r2.err"))" [ ! -s "$T_DIR/r2.err" ]
"$REPAIR" -n "$IMG" 2>&1 > /dev/null | cat > "$T_DIR/r3.err"
check "xfsj-repair -n without --progress, stderr a pipe: nothing there" [ ! -s "$T_DIR/r3.err" ]

# On a terminal: the escapes, one line per phase.
script -qec "$REPAIR -n $IMG > /dev/null" /dev/null > "$T_DIR/tty.out" 2>&1
n=$(tr '\r' '\n' < "$T_DIR/tty.out" | grep -c 'xfsj-repair: checking [a-z]')
check "on a terminal: progress lines with escapes" grep -q $'\e\\[K' "$T_DIR/tty.out"
check "on a terminal: six phases, each line ended ($(grep -c 'checking.*s$' "$T_DIR/tty.out") ended, $n drawn)" \
	[ "$(sed 's/\r$//' "$T_DIR/tty.out" | grep -c 'checking [a-zA-Z ]*: [0-9]*/[0-9]* (100%), [0-9.]* s$')" = 6 ]
t_done
