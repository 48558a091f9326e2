/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The fix table: one row per kind of fix the problem table names, in the
 * order a round applies them (fields before rebuilds, rebuilds before the
 * counters they change).  A row without @apply is a fix this version does
 * not make yet: its problems are left for the final check to report.
 */
#include "repair/repair_priv.h"

/* FIX_AG_HEADER names the secondary superblocks too (superblock stage). */
static int ag_header(struct xrp *rp)
{
	if (rp->stage == XFSJ_RS_SB)
		return xrp_fix_sb_copies(rp);
	return xrp_fix_ag_headers(rp);
}

static const struct xrp_fix_ops fixes[XFSJ_FIX__COUNT] = {
	[XFSJ_FIX_NONE]		= { XFSJ_FIX_NONE, false, NULL },
	[XFSJ_FIX_SB_FROM_SECONDARY] = { XFSJ_FIX_SB_FROM_SECONDARY, false,
					 xrp_fix_sb_secondary },
	[XFSJ_FIX_FIELD]	= { XFSJ_FIX_FIELD, false, xrp_fix_field },
	[XFSJ_FIX_CLEAR_INODE]	= { XFSJ_FIX_CLEAR_INODE, false,
				    xrp_fix_clear_inode },
	[XFSJ_FIX_CLEAR_FORK]	= { XFSJ_FIX_CLEAR_FORK, false,
				    xrp_fix_clear_fork },
	[XFSJ_FIX_REBUILD_BMBT]	= { XFSJ_FIX_REBUILD_BMBT, false,
				    xrp_fix_rebuild_bmbt },
	[XFSJ_FIX_SALVAGE_DIR]	= { XFSJ_FIX_SALVAGE_DIR, false,
				    xrp_fix_salvage_dir },
	[XFSJ_FIX_CLEAR_ENTRY]	= { XFSJ_FIX_CLEAR_ENTRY, false,
				    xrp_fix_clear_entry },
	[XFSJ_FIX_SALVAGE_ATTR]	= { XFSJ_FIX_SALVAGE_ATTR, false,
				    xrp_fix_salvage_attr },
	[XFSJ_FIX_NLINK]	= { XFSJ_FIX_NLINK, false, xrp_fix_nlink },
	[XFSJ_FIX_RECONNECT]	= { XFSJ_FIX_RECONNECT, false,
				    xrp_fix_reconnect },
	[XFSJ_FIX_PPTR]		= { XFSJ_FIX_PPTR, false, xrp_fix_pptr },
	[XFSJ_FIX_UNLINKED]	= { XFSJ_FIX_UNLINKED, true, xrp_fix_unlinked },
	[XFSJ_FIX_AG_HEADER]	= { XFSJ_FIX_AG_HEADER, false, ag_header },
	[XFSJ_FIX_REBUILD_BTREE] = { XFSJ_FIX_REBUILD_BTREE, false,
				     xrp_fix_rebuild_btrees },
	[XFSJ_FIX_FREE_SPACE]	= { XFSJ_FIX_FREE_SPACE, true, xrp_fix_free_space },
	[XFSJ_FIX_COUNTERS]	= { XFSJ_FIX_COUNTERS, true, xrp_fix_counters },
};

const struct xrp_fix_ops *xrp_fix_ops(enum xfsj_fix fix)
{
	return fix < XFSJ_FIX__COUNT ? &fixes[fix] : NULL;
}

bool xfsj_fix_preen_safe(enum xfsj_fix fix)
{
	return fix < XFSJ_FIX__COUNT && fixes[fix].preen;
}

bool xfsj_fix_implemented(enum xfsj_fix fix)
{
	return fix < XFSJ_FIX__COUNT && fixes[fix].apply;
}
