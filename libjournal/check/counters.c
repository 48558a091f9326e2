/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The superblock's summary counters against the totals the space phase
 * counted from every AG's trees (space_counters.c): sb_icount (the inodes
 * of the inobt records), sb_ifree (their free inodes), sb_fdblocks (free
 * records + AGFL entries + free space and rmap btree blocks beyond the
 * roots).
 *
 * With lazysbcount the kernel writes these only at unmount, when they are
 * exact; after a crash the in-memory replay recomputes them as the
 * kernel's mount does, so an exact match is expected, as xfs_repair -n
 * expects (it has no tolerance either).  A total some AG could not count
 * is not compared.
 */
#include "check/check_priv.h"

enum { CNT_SB, CNT__N };

static const struct xfsj_problem_def rows[CNT__N] = {
	[CNT_SB] = { "sb.counter", 0x090001, XFSJ_SEV_XCORRUPT, "superblock",
		"superblock: {field} is {found}, counted {expected}",
		XFSJ_FIX_COUNTERS,
		XFSJ_H_COUNTERS, XFSJ_T_COUNTER },
};
const struct xck_table xck_counters_table = { rows, CNT__N };

static void check_total(struct xck *ck, const char *field, uint64_t found,
			uint64_t counted)
{
	if (found == counted)
		return;
	xck_report(ck, &(struct xfsj_problem){
		.def = &rows[CNT_SB], .has = XFSJ_PF_FOUND | XFSJ_PF_EXPECTED,
		.field = field, .found = found, .expected = counted });
}

int xck_counters(struct xck *ck)
{
	/* The counters as they are now (a repair may have set them). */
	const struct xfsj_sb *sb = &ck->primary;

	ck->res->work[XFSJ_WK_COUNTERS] += ck->agcount;
	if (!(ck->totals_unknown & XCK_TOTAL_INODES)) {
		check_total(ck, "icount", sb->icount, ck->icount);
		check_total(ck, "ifree", sb->ifree, ck->ifree);
	}
	if (!(ck->totals_unknown & XCK_TOTAL_FDBLOCKS))
		check_total(ck, "fdblocks", sb->fdblocks, ck->fdblocks);
	return 0;
}
