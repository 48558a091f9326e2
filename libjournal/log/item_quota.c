/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Quota log items: DQUOT (the dquot log format, then the on-disk dquot,
 * big-endian) and QUOTAOFF (the quota types being turned off).
 */
#include "log/item_priv.h"

static int dec_dquot(const struct xfsj_ritem *it, struct xfsj_item_info *in)
{
	const uint8_t *p = it->reg[0].p;

	if (it->reg[0].len < XFSJ_DQUOT_LOGFMT_SIZE)
		return ITEM_BAD(in, "DQUOT item", "qlf_len", 0, it->reg[0].len);
	in->u.dq.id = xlog_le32(p + XFSJ_QLF_OFF(id));
	in->u.dq.blkno = xlog_le64(p + XFSJ_QLF_OFF(blkno));
	in->u.dq.len = xlog_le32(p + XFSJ_QLF_OFF(len));
	in->u.dq.boffset = xlog_le32(p + XFSJ_QLF_OFF(boffset));
	if (it->nreg < 2)
		return ITEM_BAD(in, "DQUOT item", "regions", 2, it->nreg);
	if (it->reg[1].len < XFSJ_DQBLK_CORE_SIZE)
		return ITEM_BAD_R(in, 1, "dquot", "length", 0, it->reg[1].len);
	p = it->reg[1].p;
	in->u.dq.have_dq = true;
	in->u.dq.dq_magic = xfsj_get_be16(p + XFSJ_DQ_OFF(magic));
	in->u.dq.dq_version = p[XFSJ_DQ_OFF(version)];
	in->u.dq.dq_type = p[XFSJ_DQ_OFF(type)];
	in->u.dq.blk_hard = xfsj_get_be64(p + XFSJ_DQ_OFF(blk_hardlimit));
	in->u.dq.blk_soft = xfsj_get_be64(p + XFSJ_DQ_OFF(blk_softlimit));
	in->u.dq.ino_hard = xfsj_get_be64(p + XFSJ_DQ_OFF(ino_hardlimit));
	in->u.dq.ino_soft = xfsj_get_be64(p + XFSJ_DQ_OFF(ino_softlimit));
	in->u.dq.bcount = xfsj_get_be64(p + XFSJ_DQ_OFF(bcount));
	in->u.dq.icount = xfsj_get_be64(p + XFSJ_DQ_OFF(icount));
	in->u.dq.rtbcount = xfsj_get_be64(p + XFSJ_DQ_OFF(rtbcount));
	if (in->u.dq.dq_magic != XFSJ_DQUOT_MAGIC)
		return ITEM_BAD_R(in, 1, "dquot", "d_magic", 0,
				  in->u.dq.dq_magic);
	return 0;
}

static int dec_qoff(const struct xfsj_ritem *it, struct xfsj_item_info *in)
{
	if (it->reg[0].len < XFSJ_QOFF_LOGFMT_MIN)
		return ITEM_BAD(in, "QUOTAOFF item", "length", 0,
				it->reg[0].len);
	in->u.qoff.flags = xlog_le32(it->reg[0].p + XFSJ_QOFF_OFF(flags));
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
