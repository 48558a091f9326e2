#!/bin/bash
# xfsj-mkfs -p at scale: a protofile (mkfs.xfs's format) naming
#   - one directory of ENTRIES (600,000) empty files,
#   - one directory of 70,000 one-block files (more copies queued than
#     one batch of the fill holds: the data goes out in several),
#   - 200 directories of 50 entries each;
# the fill writes its metadata out as it goes, so that
#   - its peak RSS (/usr/bin/time) stays under RSS_MAX_MB (400: the fill
#     held the whole tree before, 650 MB at 600,000 entries);
#   - xfs_repair -n (6.13) and xfsj-repair -n are clean;
#   - the kernel mounts it: every directory holds the count of entries it
#     was given, the files read back their bytes.
# Knobs: ENTRIES=n (600000; 2000000 for the long run by hand, with
# RSS_MAX_MB raised by ~70 bytes per entry: the protofile is read whole
# and the large directory's names are held until it is written).
source "$(dirname "$0")/lib/common.sh"
need_root
oracle_613
[ -x /usr/bin/time ] || DEBIAN_FRONTEND=noninteractive apt-get install -y -q time > /dev/null ||
	{ echo "$T_NAME: cannot install /usr/bin/time (scripts/deps.sh installs it)" >&2; exit 2; }
ENTRIES=${ENTRIES:-600000}
RSS_MAX_MB=${RSS_MAX_MB:-400}
IMG=$T_DIR/img
MNT=$T_DIR/mnt

echo hello > "$T_DIR/hello"
: > "$T_DIR/empty"
python3 - "$T_DIR" "$ENTRIES" > "$T_DIR/proto" <<'EOF'
import sys
d, n = sys.argv[1], int(sys.argv[2])
w = sys.stdout.write
w("/dev/null\n0 0\nd--755 0 0\nbig d--755 0 0\n")
for i in range(n):
    w("e%07d ---644 0 0 %s/empty\n" % (i, d))
w("$\ndata d--755 0 0\n")
for i in range(70000):
    w("f%05d ---644 0 0 %s/hello\n" % (i, d))
w("$\n")
for j in range(200):
    w("sub%03d d--755 0 0\n" % j)
    for i in range(50):
        w("s%02d ---600 1000 1000 %s/empty\n" % (i, d))
    w("$\n")
w("$\n")
EOF

truncate -s 4g "$IMG"
lap() { echo "# $1: $(( ($(date +%s%N) - t0) / 1000000 )) ms"; t0=$(date +%s%N); }
t0=$(date +%s%N)
/usr/bin/time -o "$T_DIR/rss" -f %M "$MKFS" -q -f -p "$T_DIR/proto" "$IMG" > "$T_DIR/mkfs.out" 2>&1
rc=$?
lap "xfsj-mkfs -p (peak RSS $(( $(tail -1 "$T_DIR/rss") / 1024 )) MiB)"
check "xfsj-mkfs -p of $ENTRIES + 80,000 entries exits 0 ($(head -c 300 "$T_DIR/mkfs.out"))" [ "$rc" = 0 ]
rss=$(tail -1 "$T_DIR/rss")
check "peak RSS $((rss / 1024)) MiB under $RSS_MAX_MB MiB" [ "$rss" -lt $((RSS_MAX_MB * 1024)) ]

"$XFSPROGS613/xfs_repair" -n "$IMG" > "$T_DIR/xr.out" 2>&1
rc=$?
check "xfs_repair -n 6.13 clean ($(grep -v '^Phase\|^        -' "$T_DIR/xr.out" | head -2 | tr '\n' ' '))" [ "$rc" = 0 ]
lap "xfs_repair -n"
"$BUILD/xfsj-repair" -n "$IMG" > "$T_DIR/jr.out" 2>&1
rc=$?
check "xfsj-repair -n clean ($(tail -1 "$T_DIR/jr.out"))" [ "$rc" = 0 ]
lap "xfsj-repair -n"

dev=$(attach_loop "$IMG")
if t_mount "$dev" "$MNT" ro,nouuid; then
	got=$(python3 - "$MNT" <<'EOF'
import os, sys
m = sys.argv[1]
big = sum(1 for _ in os.scandir(m + "/big"))
data = sum(1 for _ in os.scandir(m + "/data"))
subs = [e.name for e in os.scandir(m) if e.name.startswith("sub")]
small = sorted(set(sum(1 for _ in os.scandir(m + "/" + s)) for s in subs))
print(big, data, len(subs), small)
EOF
)
	check "entry counts: $got" [ "$got" = "$ENTRIES 70000 200 [50]" ]
	bad=0
	for f in f00000 f32767 f65535 f65536 f69999; do
		cmp -s "$T_DIR/hello" "$MNT/data/$f" || bad=$((bad + 1))
	done
	check "one-block files read back their bytes (first, last, across batches)" [ "$bad" = 0 ]
	check "owner of sub199/s49 is 1000:1000" [ "$(stat -c %u:%g "$MNT/sub199/s49")" = 1000:1000 ]
	t_umount "$MNT"
	lap "mount and count"
else
	not_ok "the kernel mounts the image"
fi
detach_loop "$dev"
t_done
