/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One AG's rebuild, between ag_rebuild.c (which AGs, the headers, the
 * loading) and ag_plan.c (the records and the blocks of the new trees).
 */
#ifndef XFSJ_REPAIR_AG_REBUILD_H
#define XFSJ_REPAIR_AG_REBUILD_H

#include "fs/btree_load.h"
#include "repair/repair_priv.h"

struct xrp_agplan {
	/* in */
	struct xfsj_fs *fs;
	const struct xfsj_sb *sb;
	struct xck_ag *ag;
	uint32_t agblocks;
	uint32_t hdrblocks;		/* sb, AGF, AGI, AGFL */
	bool rebuild[XFSJ_BT__COUNT];	/* the trees written anew */
	/* out */
	struct xfsj_rmap_rec *kept;	/* claims that stay, by key */
	size_t nkept;
	struct xfsj_alloc_rec *base;	/* free before the new trees */
	size_t nbase;
	struct xfsj_alloc_rec *free;	/* free after them, by start */
	size_t nfree;
	uint32_t *take;			/* the new trees' blocks, in order
					 * of enum xfsj_btnum */
	size_t ntake;
	struct xfsj_rmap_rec *rmap;	/* rmapbt records, by key */
	size_t nrmap;
	struct xfsj_refc_rec *refc;
	size_t nrefc;
	struct xfsj_inobt_rec *ino, *fino;
	size_t nino, nfino;
	uint64_t icount, ifree;
	struct xfsj_btree_geom geom[XFSJ_BT__COUNT];
	/*
	 * Blocks for the AGFL, in take after the trees' (owner AG in the
	 * rmap records): a rebuilt AG starts with the AGFL the kernel wants,
	 * so the first refill's rmapbt insert has blocks to split with.
	 */
	uint32_t nagfl;
};

/* Fill the plan's records and blocks from its AG's kept scan. */
int xrp_agplan_make(struct xrp_agplan *pl);
void xrp_agplan_free(struct xrp_agplan *pl);

#endif
