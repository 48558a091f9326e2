# shellcheck shell=bash
# The two checkers run on one image, for the check-* tests.  Needs
# common.sh and XFSPROGS613 (oracle_613).
#
#   oracle_check IMG   `xfs_repair -n` (6.13): ORC, its exit status; its
#                      output in $T_DIR/oracle.out
#   xfsj_check IMG     `xfsj-repair -n --json` (at most 300 s): RC, its
#                      exit status; NPROB, the summary's problem count
#                      (empty without a summary); the JSON lines in
#                      $T_DIR/ours.json, the text in $T_DIR/ours.err
#   show_oracle N, show_xfsj N   their first N findings, as TAP comments
#   repair_findings IMG   the problems `xfs_repair -n` (6.13) reports on
#                      IMG, without progress lines, long numbers as N,
#                      sorted: for comparing two replays of one image
#   crash_case NAME IMG SEED MKFS-OPTIONS
#                      IMG, a crash image of 1 GiB (lib/crashimg.sh, which
#                      the test sources: 3 s of the workload, with its
#                      chains of CoW, range exchanges and renames, then a
#                      shutdown; the log dirty); not_ok NAME and false
#                      when it cannot be made

REPAIR=${XFSJ_REPAIR:-$BUILD/xfsj-repair}

oracle_check() {
	"$XFSPROGS613/xfs_repair" -n "$1" > "$T_DIR/oracle.out" 2>&1
	ORC=$?
}

xfsj_check() {
	timeout 300 "$REPAIR" -n --json "$1" > "$T_DIR/ours.json" 2> "$T_DIR/ours.err"
	RC=$?
	NPROB=$(sed -n 's/.*"kind":"check_summary".*"problems":\([0-9]*\).*/\1/p' "$T_DIR/ours.json" | tail -1)
}

show_oracle() {
	grep -v -e '^Phase' -e '^ *- ' -e '^No modify' -e '^ *$' -e 'host filesystem geometry' \
		-e 'sector size mismatch' -e 'the image and the host filesystem' "$T_DIR/oracle.out" |
		head -n "$1" | cut -c1-240 | sed 's/^/#    xfs_repair: /'
}

repair_findings() {
	"$XFSPROGS613/xfs_repair" -n "$1" 2>&1 |
		grep -v -e '^Phase' -e '^        - ' -e '^No modify flag' \
			-e 'host filesystem geometry' -e 'sector size mismatch' \
			-e 'the image and the host filesystem' |
		sed 's/[0-9]\{6,\}/N/g' | sort -u
}

show_xfsj() {
	grep -v '"kind":"check_summary"' "$T_DIR/ours.json" | head -n "$1" | cut -c1-300 | sed 's/^/#    xfsj: /'
	tail -n 3 "$T_DIR/ours.err" | cut -c1-240 | sed 's/^/#    xfsj: /'
}

crash_case() {
	if ! CRASH_SEED=$3 CRASH_CHAINS=1 make_crash_image "$2" 1g "$4" "" 3 2> "$T_DIR/crash.err"; then
		not_ok "$1: could not make the crash image: $(head -c 300 "$T_DIR/crash.err")"
		return 1
	fi
}
