# shellcheck shell=bash
# The ASan/UBSan build of xfsj-repair for the system tests.  Needs
# common.sh.
#
#   san_repair      sets SAN to a private copy of the sanitizer build
#                   ($XFSJ_REPAIR_SAN, default ./xfsj-repair-san, brought
#                   up to date with `make xfsj-repair-san` when
#                   XFSJ_REPAIR_SAN is not given) and counts it as a
#                   check; SAN is empty when there is none (a failure).
#   san_report OUT  true when OUT (a run's stdout and stderr) holds an
#                   ASan, LeakSanitizer or UBSan report.
# The sanitizer options are exported: leaks reported, any UBSan finding
# fatal.

san_repair() {
	SAN=${XFSJ_REPAIR_SAN:-$BUILD/xfsj-repair-san}
	if [ -z "${XFSJ_REPAIR_SAN:-}" ]; then
		make -C "$BUILD" -s xfsj-repair-san > "$T_DIR/san.make" 2>&1 ||
			sed 's/^/#  /' "$T_DIR/san.make" | tail -5
	fi
	if [ -x "$SAN" ]; then
		cp "$SAN" "$T_DIR/xfsj-repair-san" && SAN=$T_DIR/xfsj-repair-san
		ok "sanitizer build $SAN"
	else
		not_ok "no sanitizer build ($SAN; make xfsj-repair-san)"
		SAN=""
	fi
}

san_report() {
	grep -qE 'AddressSanitizer|LeakSanitizer|runtime error:' <<< "$1"
}

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
