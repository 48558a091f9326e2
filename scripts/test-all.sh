#!/bin/bash
# Install what is needed, build, and run every test: the unit tests (plain
# and under ASan/UBSan) and the system tests (loop devices, the kernel and
# xfsprogs 6.13 as oracles).  Prints "N passed, N failed" at the end.
set -u
cd "$(dirname "$0")/.."
bash scripts/deps.sh || exit 1
# The xfsprogs 6.13 oracle: built once into a cache.
# shellcheck source=/dev/null
source tests/system/lib/xfsprogs613.sh || exit 1
export XFSPROGS613
bash scripts/build.sh || exit 1

pass=0
fail=0
failed=()
run() {
	local name=$1
	shift
	local t0=$SECONDS
	echo "=== $name"
	if "$@"; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		failed+=("$name")
	fi
	echo "=== $name: $((SECONDS - t0)) s"
}

run "unit tests (make check: plain and sanitizers)" \
	make -j"$(nproc)" check
for t in tests/system/*.sh; do
	[ -n "${TEST:-}" ] && [[ "$(basename "$t")" != $TEST ]] && continue
	run "$(basename "$t")" bash "$t"
done
[ -f tests/unit/run_unit.log ] && grep -h '^[0-9]*%: Checks' tests/unit/*.log
echo
if [ $fail -gt 0 ]; then
	echo "failed: ${failed[*]}"
fi
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
