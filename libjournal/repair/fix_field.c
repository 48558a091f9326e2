/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * FIX_FIELD of the AG headers' counts: set one field to the value the
 * check expected (the other structures' field fixes live in the files of
 * their structures; the handler table, fixes.c, picks one by the row).
 */
#include <stdio.h>
#include <string.h>

#include "core/layout.h"
#include "repair/repair_priv.h"

/* The sector of AG @agno's header @sect (1 AGF, 2 AGI, 3 AGFL). */
int xrp_ag_header_buf(struct xrp *rp, uint32_t agno, unsigned int sect,
		      struct xfsj_buf **bp)
{
	const struct xfsj_sb *sb = rp->sb;

	return xfsj_buf_read(rp->fs, xfsj_agb_to_daddr(sb, agno, 0) +
			     (uint64_t)sect * (sb->sectsize >> 9),
			     sb->sectsize, bp);
}

/* agf.counter, agi.counter: a count the scan made. */
int xrp_field_ag(struct xrp *rp, struct xrp_prob *pr)
{
	const struct xfsj_problem *p = &pr->p;
	bool agf = xrp_names(pr, XFSJ_H_AGF_COUNTER);
	const struct xfsj_layout *l = agf ? &xfsj_agf_layout :
					    &xfsj_agi_layout;
	struct xfsj_buf *bp;
	char what[96];
	int err;

	if (!(p->has & XFSJ_PF_AG) || !(p->has & XFSJ_PF_EXPECTED) ||
	    !p->field || p->agno >= rp->sb->agcount)
		return 0;
	err = xrp_ag_header_buf(rp, p->agno, agf ? 1 : 2, &bp);
	if (err)
		return err;
	if (xfsj_layout_put(l, bp->data, p->field, p->expected))
		return 0;
	xfsj_buf_dirty(bp);
	pr->done = true;
	snprintf(what, sizeof(what), "set %s %s to %llu", agf ? "AGF" : "AGI",
		 p->field, (unsigned long long)p->expected);
	xrp_action(rp, &(struct xfsj_repair_action){
		.fix = XFSJ_FIX_FIELD, .problem = p, .has = XFSJ_PF_AG,
		.agno = p->agno, .what = what });
	return 0;
}
