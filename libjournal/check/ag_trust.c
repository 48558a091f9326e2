/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The AG trust predicate (ag_trust.h): one table row per kind of AG
 * metadata, naming the header it hangs off, the btrees that must have
 * walked clean, and the feature without which a btree is not there to
 * doubt.  A btree is marked sound only after its header decoded and its
 * walk found nothing wrong (agbtree.c), so a header in doubt takes its
 * trees with it.
 */
#include "check/check_priv.h"

enum hdr { HDR_NONE, HDR_AGF, HDR_AGI, HDR_AGFL };

static const struct trust_row {
	unsigned int bit;
	enum hdr hdr;
	int bt[2];		/* -1: none */
	uint32_t ro_feature;	/* 0: always there */
} rows[] = {
	{ XCK_TRUST_FREE, HDR_AGF, { XFSJ_BT_BNO, XFSJ_BT_CNT }, 0 },
	{ XCK_TRUST_AGFL, HDR_AGFL, { -1, -1 }, 0 },
	{ XCK_TRUST_RMAP, HDR_AGF, { XFSJ_BT_RMAP, -1 },
	  XFSJ_RO_COMPAT_RMAPBT },
	{ XCK_TRUST_INODES, HDR_AGI, { XFSJ_BT_INO, -1 }, 0 },
	{ XCK_TRUST_INODES, HDR_AGI, { XFSJ_BT_FINO, -1 },
	  XFSJ_RO_COMPAT_FINOBT },
};

static bool hdr_ok(const struct xck_ag *ag, enum hdr h)
{
	const bool ok[] = { [HDR_NONE] = true, [HDR_AGF] = ag->agf_ok,
			    [HDR_AGI] = ag->agi_ok, [HDR_AGFL] = ag->agfl_ok };

	return ok[h];
}

static bool row_ok(const struct xck *ck, const struct xck_ag *ag,
		   const struct trust_row *r)
{
	unsigned int i;

	if (r->ro_feature && !xfsj_fs_has(ck->fs, r->ro_feature))
		return true;
	if (!hdr_ok(ag, r->hdr))
		return false;
	for (i = 0; i < 2; i++)
		if (r->bt[i] >= 0 && !ag->tree_ok[r->bt[i]])
			return false;
	return true;
}

bool xck_ag_trusted(const struct xck *ck, uint32_t agno, unsigned int what)
{
	size_t i;

	if (agno >= ck->agcount)
		return false;
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		if ((what & rows[i].bit) &&
		    !row_ok(ck, &ck->ags[agno], &rows[i]))
			return false;
	return true;
}

bool xck_ags_trusted(const struct xck *ck, unsigned int what)
{
	uint32_t agno;

	for (agno = 0; agno < ck->agcount; agno++)
		if (!xck_ag_trusted(ck, agno, what))
			return false;
	return true;
}
