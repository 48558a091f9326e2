/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Quota log items: DQUOT (the dquot log format, then the on-disk dquot,
 * big-endian) and QUOTAOFF (the quota types being turned off).
 */
#include "log/item_priv.h"

static int dec_dquot(const struct xfsj_ritem *it, struct xfsj_item_info *in)
{
	const uint8_t *p = it->reg[0].p;

	if (it->reg[0].len < 24)
		return ITEM_BAD(in, "DQUOT item", "qlf_len", 0, it->reg[0].len);
	in->u.dq.id = xlog_le32(p + 4);
	in->u.dq.blkno = xlog_le64(p + 8);
	in->u.dq.len = xlog_le32(p + 16);
	in->u.dq.boffset = xlog_le32(p + 20);
	if (it->nreg < 2)
		return ITEM_BAD(in, "DQUOT item", "regions", 2, it->nreg);
	if (it->reg[1].len < 104)
		return ITEM_BAD_R(in, 1, "dquot", "length", 0, it->reg[1].len);
	p = it->reg[1].p;
	in->u.dq.have_dq = true;
	in->u.dq.dq_magic = xfsj_get_be16(p);
	in->u.dq.dq_version = p[2];
	in->u.dq.dq_type = p[3];
	in->u.dq.blk_hard = xfsj_get_be64(p + 8);
	in->u.dq.blk_soft = xfsj_get_be64(p + 16);
	in->u.dq.ino_hard = xfsj_get_be64(p + 24);
	in->u.dq.ino_soft = xfsj_get_be64(p + 32);
	in->u.dq.bcount = xfsj_get_be64(p + 40);
	in->u.dq.icount = xfsj_get_be64(p + 48);
	in->u.dq.rtbcount = xfsj_get_be64(p + 88);
	if (in->u.dq.dq_magic != XFSJ_DQUOT_MAGIC)
		return ITEM_BAD_R(in, 1, "dquot", "d_magic", 0,
				  in->u.dq.dq_magic);
	return 0;
}

static int dec_qoff(const struct xfsj_ritem *it, struct xfsj_item_info *in)
{
	if (it->reg[0].len < 8)
		return ITEM_BAD(in, "QUOTAOFF item", "length", 0,
				it->reg[0].len);
	in->u.qoff.flags = xlog_le32(it->reg[0].p + 4);
	return 0;
}

static bool dquot_touches(const struct xfsj_item_info *in,
			  const struct xfsj_fsgeo *g, uint64_t daddr,
			  int64_t agno)
{
	if (agno >= 0)
		return g->known &&
		       xfsj_daddr_to_agno(g, in->u.dq.blkno) == agno;
	return xlog_in_range(daddr, in->u.dq.blkno, g->known ?
			     (uint64_t)in->u.dq.len << (g->blocklog - 9) : 1);
}

const struct xfsj_item_ops xlog_dquot_ops = {
	.decode = dec_dquot,
	.touches = dquot_touches,
};

const struct xfsj_item_ops xlog_qoff_ops = {
	.decode = dec_qoff,
};
