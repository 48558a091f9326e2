# shellcheck shell=bash
# The crash-torture tools (tests/torture/): the FUSE write recorder and
# the crash-state builder, built for a test or for
# scripts/crash-torture.sh.  Needs common.sh.
#
#   torture_tools DIR   libfuse3 and fuse3 installed when missing (Debian
#                       packages), DIR/wrec and DIR/wstate built; sets
#                       WREC and WSTATE
#   wrec_start IMG LOG FUSEDIR [--direct]
#                       serves IMG as FUSEDIR/img (and FUSEDIR/ctl for
#                       notes), every write and fsync logged to LOG; the
#                       FUSE mount is unmounted by common.sh's cleanup
#   wrec_stop FUSEDIR   unmounts it and waits for the recorder to exit
#                       (its log complete)

torture_tools() {
	local dir=$1 src
	src=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../torture" && pwd)
	if ! pkg-config --exists fuse3 2> /dev/null || ! command -v fusermount3 > /dev/null; then
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
			libfuse3-dev fuse3 pkg-config > /dev/null 2>&1 || {
			apt-get update -q > /dev/null 2>&1
			DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
				libfuse3-dev fuse3 pkg-config > /dev/null || return 1
		}
	fi
	modprobe fuse 2> /dev/null
	WREC=$dir/wrec
	WSTATE=$dir/wstate
	# shellcheck disable=SC2046
	cc -std=gnu11 -O2 -Wall -Wextra -Werror -o "$WREC" "$src/wrec.c" \
		$(pkg-config --cflags --libs fuse3) || return 1
	cc -std=gnu11 -O2 -Wall -Wextra -Werror -o "$WSTATE" "$src/wstate.c"
}

wrec_start() {
	local img=$1 log=$2 fm=$3 i
	shift 3
	mkdir -p "$fm"
	"$WREC" "$@" "$img" "$log" "$fm" 2> "$fm.err" &
	WREC_PID=$!
	for ((i = 0; i < 200; i++)); do
		[ -e "$fm/img" ] && break
		sleep 0.05
	done
	[ -e "$fm/img" ] || { echo "wrec did not start: $(cat "$fm.err")" >&2; return 1; }
	echo "$fm" >> "$T_MOUNTFILE"
}

wrec_stop() {
	t_umount "$1" || return 1
	wait "$WREC_PID"
}
