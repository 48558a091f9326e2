#!/bin/bash
# No false alarms: `xfsj-repair -n` on filesystems the kernel made.  Where
# `xfs_repair -n` (xfsprogs 6.13) exits 0, xfsj-repair -n must exit 0 and
# report 0 problems; where 6.13 reports problems on such an image (the
# INCOMPLETE attributes a crash leaves), xfsj-repair -n must report too
# (exit 1).  The images:
#   - the populated images (lib/populate.sh: every directory, attribute
#     and fork format, reflinks, parent pointers, devices, symlinks;
#     4 KiB and 1 KiB blocks, with and without rmapbt);
#   - the mkfs-kernel profiles (lib/profiles.sh: xfsj-mkfs, then the
#     kernel runs lib/workload.sh on them);
#   - crash images (lib/crashimg.sh: a workload shut down mid-flight)
#     after the kernel's replay (mount, unmount), a few seeds, with and
#     without rmapbt, with the chains of CoW, range exchanges and
#     renames.
# Prints each image's exit statuses and problem counts.
#
#   CLEAN_SEED=s (crash seeds s, s+1, ...; default: the time)
#   CLEAN_CRASHES=n (crash images per mkfs option set, default 2)
#   CLEAN_PROFILES="name ..." (mkfs-kernel profiles, default all)
source "$(dirname "$0")/lib/common.sh"
source "$(dirname "$0")/lib/workload.sh"
source "$(dirname "$0")/lib/profiles.sh"
source "$(dirname "$0")/lib/populate.sh"
source "$(dirname "$0")/lib/crashimg.sh"
source "$(dirname "$0")/lib/checker.sh"
need_root
oracle_613
CLEAN_SEED=${CLEAN_SEED:-$(( $(date +%s) % 100000 ))}
CLEAN_CRASHES=${CLEAN_CRASHES:-2}
CLEAN_PROFILES=${CLEAN_PROFILES:-}
echo "# check-clean: crash seed $CLEAN_SEED, $CLEAN_CRASHES crash images per option set"
printf '# %-34s %8s %8s %9s\n' image xfs_repair xfsj problems

# judge NAME IMG: both checkers on IMG, compared.
judge() {
	local name=$1
	oracle_check "$2"
	xfsj_check "$2"
	printf '# %-34s %8s %8s %9s\n' "$name" "$ORC" "$RC" "${NPROB:--}"
	case $ORC in
	0)
		if [ "$RC" = 0 ] && [ "$NPROB" = 0 ]; then
			ok "$name: clean for both"
		else
			not_ok "$name: xfs_repair -n is clean; xfsj-repair -n exit $RC, ${NPROB:-no} problems"
			show_xfsj 10
		fi ;;
	1)
		show_oracle 3
		check "$name: xfs_repair -n reports problems; so does xfsj-repair -n (exit $RC, ${NPROB:-no} problems)" \
			test "$RC" = 1 -a "${NPROB:-0}" -gt 0 ;;
	*)
		not_ok "$name: xfs_repair -n exit $ORC"
		show_oracle 3 ;;
	esac
}

# 1. The populated images.
for p in $POP_PROFILES; do
	img=$T_DIR/pop.$p.img
	if populate_image "$img" "$p" 2> "$T_DIR/pop.err"; then
		judge "populated $p" "$img"
	else
		not_ok "populated image $p: $(tr '\n' ' ' < "$T_DIR/pop.err" | cut -c1-400)"
	fi
	rm -f "$img" "$T_DIR/populate.$p.img"
done

# 2. The mkfs-kernel profiles after their workload.
for entry in "${KERNEL_PROFILES[@]}"; do
	# shellcheck disable=SC2086
	set -- $entry
	name=$1 size=$2
	shift 2
	[ -n "$CLEAN_PROFILES" ] && [[ " $CLEAN_PROFILES " != *" $name "* ]] && continue
	img=$T_DIR/prof.img
	kernel_profile_image "profile $name" "$img" "$size" "$@" &&
		judge "profile $name" "$img"
	rm -f "$img"
done

# 3. Crash images after the kernel's replay.
for opts in "" "-m rmapbt=0"; do
	for ((k = 0; k < CLEAN_CRASHES; k++)); do
		seed=$((CLEAN_SEED + k))
		name="crash seed $seed${opts:+ $opts}"
		img=$T_DIR/crash.img
		crash_case "$name" "$img" "$seed" "$opts" || continue
		if ! kernel_replay "$img"; then
			not_ok "$name: the kernel cannot mount it"
			continue
		fi
		judge "$name" "$img"
		rm -f "$img"
	done
done
t_done
