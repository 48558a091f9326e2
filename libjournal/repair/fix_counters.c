/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * FIX_COUNTERS: the superblock's summary counters (icount, ifree,
 * fdblocks) set to what the scan counted.  The counters stage runs last,
 * after every rebuild, so the counts are of the repaired filesystem.
 */
#include <stdio.h>

#include "core/layout.h"
#include "repair/repair_priv.h"

int xrp_fix_counters(struct xrp *rp)
{
	struct xrp_prob *pr;
	struct xfsj_buf *bp;
	char what[96];
	int err;

	err = xfsj_buf_read(rp->fs, 0, rp->sb->sectsize, &bp);
	if (err)
		return err;
	xrp_for_each(rp, pr, XFSJ_FIX_COUNTERS) {
		const struct xfsj_problem *p = &pr->p;

		if (!p->field || !(p->has & XFSJ_PF_EXPECTED) ||
		    xfsj_layout_put(&xfsj_sb_layout, bp->data, p->field,
				    p->expected))
			continue;
		xfsj_buf_dirty(bp);
		pr->done = true;
		snprintf(what, sizeof(what), "set superblock %s to %llu",
			 p->field, (unsigned long long)p->expected);
		xrp_action(rp, &(struct xfsj_repair_action){
			.fix = XFSJ_FIX_COUNTERS, .problem = p, .what = what });
	}
	return 0;
}
