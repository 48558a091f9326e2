#!/bin/bash
# Detection parity of `xfsj-repair -n` with `xfs_repair -n` (xfsprogs
# 6.13) on a fuzz corpus, made the way fstests' fuzz tests make theirs
# (common/fuzzy): populated images (lib/populate.sh: every directory,
# attribute and fork format, 4 KiB and 1 KiB blocks, with and without
# rmapbt), and for each target structure, each field xfs_db prints there
# and each verb, one damaged copy:
#   xfs_db -x NAV -c "fuzz -d FIELD VERB"     (fuzz -c for *crc fields)
# Targets (fstests' navigation): sb 0, sb 1, agf 0, agi 0, agfl 0; the
# roots of the bnobt, cntbt, inobt, finobt, rmapbt and refcountbt (in an
# AG where the tree has two levels, and then its ptrs[1] child too); the
# inode of each file, directory and attribute format; dblock 0 of the
# block and leaf directories, the leaf, node, leafn and free index
# blocks; ablock 0 of the leaf and node attribute forks, the remote
# value block; the bmbt blocks of the btree file and of the btree
# directory's forks; the remote symlink block.
# Fields: `xfs_db -c print`, arrays exploded to indices 0-9, padding and
# the fields the kernel does not validate dropped, as fstests'
# __explode_xfs_db_fields and __filter_unvalidated_xfs_db_fields do.
# Verbs: zeroes ones firstbit middlebit lastbit add sub.  A case whose
# fuzz left the image's bytes as they were is skipped.
# For each case: `$XFSPROGS613/xfs_repair -n` (1 detects, 0 clean,
# anything else an oracle crash, recorded) and `xfsj-repair -n` (1
# detects, 0 clean; exit 8 refusing an unknown feature counts as not
# detected; a crash, a 60 s timeout or any other exit status is a
# failure of ours); a sample of the cases also runs the ASan/UBSan
# build (lib/san.sh), where any report fails.
# Prints a table by structure (cases, both detect, only xfs_repair, only
# xfsj, neither, oracle crashes, our failures) and every case where only
# one detects; passes when xfsj detects at least FUZZ_PARITY percent of
# what xfs_repair detects, with no failure of ours.
#
#   FUZZ_SEED=s      the sample's seed (default: the time; printed)
#   FUZZ_CASES=n     cases in the sample (default 190: about 2 minutes on
#                    this 2-core machine under load, 0.5 s a case), drawn
#                    evenly across the targets
#   FUZZ_ALL=1       every case (hours: the long run, by hand)
#   FUZZ_PARITY=p    percent of the oracle's detections we must make
#                    (default 99)
#   FUZZ_JUDGED=n    the fewest cases xfs_repair -n detects (the cases
#                    the parity judges) a run may have (default a quarter
#                    of FUZZ_CASES, 30 with FUZZ_ALL=1): fewer fail
#   FUZZ_PROFILES="4k 1k ..."  populated profiles (default all four)
#   FUZZ_TARGETS=re  only the targets whose name matches the regex
#   FUZZ_SAN_CASES=n cases also run under ASan/UBSan (default 30)
#   FUZZ_RESULTS=f   also keep the per-case results in file f (profile,
#                    target, field, verb, oracle, ours, oracle exit, our
#                    first line, our exit; tab-separated), e.g. to count the
#                    distinct cases of several long runs
source "$(dirname "$0")/lib/common.sh"
source "$(dirname "$0")/lib/populate.sh"
source "$(dirname "$0")/lib/san.sh"
source "$(dirname "$0")/lib/fuzz.sh"
need_root
oracle_613
REPAIR=${XFSJ_REPAIR:-$BUILD/xfsj-repair}
DB=$XFSPROGS613/xfs_db
FUZZ_SEED=${FUZZ_SEED:-$(( $(date +%s) % 100000 ))}
FUZZ_CASES=${FUZZ_CASES:-190}
FUZZ_ALL=${FUZZ_ALL:-0}
FUZZ_PARITY=${FUZZ_PARITY:-99}
FUZZ_JUDGED=${FUZZ_JUDGED:-$([ "$FUZZ_ALL" = 1 ] && echo 30 || echo $((FUZZ_CASES / 4)))}
FUZZ_PROFILES=${FUZZ_PROFILES:-$POP_PROFILES}
FUZZ_TARGETS=${FUZZ_TARGETS:-.}
FUZZ_SAN_CASES=${FUZZ_SAN_CASES:-30}
VERBS="zeroes ones firstbit middlebit lastbit add sub"
echo "# check-fuzz: seed $FUZZ_SEED, $([ "$FUZZ_ALL" = 1 ] && echo "every case" || echo "$FUZZ_CASES cases"), parity >= $FUZZ_PARITY%, profiles $FUZZ_PROFILES"

san_repair

fuzz_corpus

# Every SAN_EVERY-th case also runs under the sanitizers (0: none).
SAN_EVERY=0
if [ "$FUZZ_SAN_CASES" -gt 0 ]; then
	SAN_EVERY=$(( (ncases + FUZZ_SAN_CASES - 1) / FUZZ_SAN_CASES ))
	[ "$SAN_EVERY" -lt 1 ] && SAN_EVERY=1
fi

# run_both IMG: orc and ourc, the exits of xfs_repair -n and
# xfsj-repair -n on IMG (their outputs in oracle.out and ours.out).
# Every other case reads O_DIRECT into our own pool (XFSJ_DIRECT=1, the
# default past 2 GiB of inodes), the others through the page cache, so
# that both read paths meet every kind of damage.
run_both() {
	timeout 120 "$XFSPROGS613/xfs_repair" -n "$1" > "$T_DIR/oracle.out" 2>&1
	orc=$?
	XFSJ_DIRECT=$((i % 2)) timeout 60 "$REPAIR" -n "$1" > "$T_DIR/ours.out" 2>&1
	ourc=$?
}

# Each case damages $T_DIR/case.img, a copy of its profile's image, and
# puts back the buffer it damaged afterwards (checked).
cur=""
i=0 nsan=0
: > "$T_DIR/results"
while IFS=$'\t' read -r p name nav f v; do
	i=$((i + 1))
	base=$T_DIR/base.$p.img
	img=$T_DIR/case.img
	if [ "$cur" != "$p" ]; then
		cp --sparse=always "$base" "$img"
		cur=$p
	fi
	read -r roff rlen < "$T_DIR/region.$p.$name"
	if ! fuzz_apply "$base" "$img" "$nav" "$f" "$v" "$roff" "$rlen"; then
		printf '%s\t%s\t%s\t%s\tskip\n' "$p" "$name" "$f" "$v" >> "$T_DIR/results"
		continue
	fi
	run_both "$img"
	if [ "$orc" != "$ourc" ]; then
		# Only one detects: once more on a fresh copy, so that damage an
		# earlier case left outside its buffer (the image is checked
		# against its base only every 50 cases) cannot make the verdict.
		o1=$orc u1=$ourc
		cp --sparse=always "$base" "$T_DIR/fresh.img"
		fuzz_apply "$base" "$T_DIR/fresh.img" "$nav" "$f" "$v" "$roff" "$rlen"
		run_both "$T_DIR/fresh.img"
		if [ "$orc" != "$o1" ] || [ "$ourc" != "$u1" ]; then
			echo "# $p $name $f $v: exits $o1/$u1 on the running copy, $orc/$ourc on a fresh one (earlier damage left in the image); copying it again"
			cp --sparse=always "$base" "$img"
			fuzz_apply "$base" "$img" "$nav" "$f" "$v" "$roff" "$rlen"
		fi
		rm -f "$T_DIR/fresh.img"
	fi
	case $orc in 0|1) o=$orc ;; *) o=crash ;; esac
	case $ourc in
	0|1) u=$ourc ;;
	8)
		# Refusing a feature this version cannot check (unknown
		# feature bits) is by design (exit 8, the feature named); it
		# counts as not detected, so a refusal where xfs_repair -n
		# detects something is a parity miss.
		if grep -q 'features this version does not know\|unsupported feature' "$T_DIR/ours.out"; then
			u=0
		else
			u=fail
			not_ok "$p $name $f $v: xfsj-repair -n exit 8: $(tail -1 "$T_DIR/ours.out" | cut -c1-200)"
		fi
		;;
	124) u=fail; not_ok "$p $name $f $v: xfsj-repair -n did not end in 60 s" ;;
	*) u=fail; not_ok "$p $name $f $v: xfsj-repair -n exit $ourc: $(tail -1 "$T_DIR/ours.out" | cut -c1-200)" ;;
	esac
	if [ -n "$SAN" ] && [ "$SAN_EVERY" -gt 0 ] && [ $((i % SAN_EVERY)) = 0 ]; then
		nsan=$((nsan + 1))
		out=$(timeout 300 "$SAN" -n "$img" 2>&1)
		src=$?
		if san_report "$out"; then
			u=fail
			not_ok "$p $name $f $v: sanitizer report: $(grep -m1 -E 'ERROR|runtime error' <<< "$out" | cut -c1-200)"
		elif [ $src != "$ourc" ]; then
			not_ok "$p $name $f $v: the sanitizer build exits $src, the plain one $ourc"
		fi
	fi
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$p" "$name" "$f" "$v" "$o" "$u" "$orc" \
		"$(grep -m1 -v 'log is clean\|^Phase\|^ *-\|^No modify' "$T_DIR/ours.out" | cut -c1-120)" \
		"$ourc" >> "$T_DIR/results"
	# The damaged buffer back.
	dd if="$base" of="$img" bs=512 iflag=skip_bytes,count_bytes oflag=seek_bytes \
		skip="$roff" count="$rlen" seek="$roff" conv=notrunc status=none
	if [ $((i % 50)) = 0 ] && ! cmp -s "$base" "$img"; then
		echo "# case $i ($p $name $f $v) changed more than its buffer; copying the image again"
		cp --sparse=always "$base" "$img"
	fi
done < "$T_DIR/cases"

# The table by structure.
awk -F'\t' '
	$5 == "skip" { skip[$2]++; S++; next }
	{
		s = $2; n[s]++; N++
		if ($5 == "crash") { oc[s]++; OC++ }
		if ($6 == "fail") { uf[s]++; UF++ }
		if ($5 == 1 && $6 == 1) { both[s]++; B++ }
		if ($5 == 1 && $6 != 1) { oo[s]++; OO++ }
		if ($5 != 1 && $6 == 1) { xo[s]++; XO++ }
		if ($5 == 0 && $6 == 0) { ne[s]++; NE++ }
	}
	END {
		printf "# %-18s %6s %6s %6s %6s %6s %6s %6s %6s\n", "structure", "cases", "skip", "both", "oracle", "xfsj", "neither", "ocrash", "ourfail"
		for (s in n) rows[s] = 1
		for (s in skip) rows[s] = 1
		m = asorti_portable(rows, keys)
		for (k = 1; k <= m; k++) {
			s = keys[k]
			printf "# %-18s %6d %6d %6d %6d %6d %6d %6d %6d\n", s, n[s], skip[s], both[s], oo[s], xo[s], ne[s], oc[s], uf[s]
		}
		printf "# %-18s %6d %6d %6d %6d %6d %6d %6d %6d\n", "total", N, S, B, OO, XO, NE, OC, UF
	}
	function asorti_portable(a, out,  k, n, i, j, t) {
		n = 0
		for (k in a) out[++n] = k
		for (i = 2; i <= n; i++)
			for (j = i; j > 1 && out[j - 1] > out[j]; j--) {
				t = out[j]; out[j] = out[j - 1]; out[j - 1] = t
			}
		return n
	}' "$T_DIR/results"
echo "# cases only xfs_repair -n detects (profile structure field verb):"
awk -F'\t' '$5 == 1 && $6 != 1 { printf "#   %s %s %s %s (xfsj: %s, exit %s): %s\n", $1, $2, $3, $4, $6, $9, $8 }' "$T_DIR/results"
echo "# cases only xfsj-repair -n detects (profile structure field verb: its first line):"
awk -F'\t' '$5 != 1 && $5 != "skip" && $6 == 1 { printf "#   %s %s %s %s (xfs_repair: %s): %s\n", $1, $2, $3, $4, $7, $8 }' "$T_DIR/results"
awk -F'\t' '$5 == "crash" { printf "# oracle crash: %s %s %s %s (exit %s)\n", $1, $2, $3, $4, $7 }' "$T_DIR/results"

[ -n "${FUZZ_RESULTS:-}" ] && cp "$T_DIR/results" "$FUZZ_RESULTS"
read -r ndet nboth nfail nrun <<< "$(awk -F'\t' '$5 != "skip" { r++ } $5 == 1 { d++ } $5 == 1 && $6 == 1 { b++ } $6 == "fail" { f++ }
	END { print d + 0, b + 0, f + 0, r + 0 }' "$T_DIR/results")"
echo "# $nrun cases run ($nsan also under ASan/UBSan) in $((SECONDS - t0)) s: xfs_repair -n detects $ndet, xfsj-repair -n $nboth of those"
check "cases were run ($nrun of $ncases)" test "$nrun" -gt 0
check "at least $FUZZ_JUDGED cases judged (detected by xfs_repair -n: $ndet)" test "$ndet" -ge "$FUZZ_JUDGED"
check "no crash, hang or exit other than 0/1 (or 8 refusing a feature) of xfsj-repair -n ($nfail)" test "$nfail" -eq 0
if [ "$ndet" -gt 0 ]; then
	pct=$(awk -v b="$nboth" -v d="$ndet" 'BEGIN { printf "%.1f", 100 * b / d }')
	check "xfsj-repair -n detects $pct% of what xfs_repair -n detects ($nboth of $ndet; needs $FUZZ_PARITY%)" \
		awk -v b="$nboth" -v d="$ndet" -v p="$FUZZ_PARITY" 'BEGIN { exit !(100 * b >= p * d) }'
fi
t_done
