/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Inode chunk creation (ICREATE) items (ondisk/log.h XFSJ_ICL_FIELDS: the
 * AG, first block, inode count, inode size, length in blocks and
 * generation, big-endian as on disk).  The replay writes the new inodes,
 * whose cluster buffers are not logged.
 */
#include "log/item_priv.h"

static int dec_icreate(const struct xfsj_ritem *it, struct xfsj_item_info *in)
{
	const uint8_t *p = it->reg[0].p;

	if (it->reg[0].len < XFSJ_ICREATE_LOGFMT_SIZE)
		return ITEM_BAD(in, "ICREATE item", "length", 0,
				it->reg[0].len);
	in->u.icr.ag = xfsj_get_be32(p + XFSJ_ICL_OFF(ag));
	in->u.icr.agbno = xfsj_get_be32(p + XFSJ_ICL_OFF(agbno));
	in->u.icr.count = xfsj_get_be32(p + XFSJ_ICL_OFF(count));
	in->u.icr.isize = xfsj_get_be32(p + XFSJ_ICL_OFF(isize));
	in->u.icr.length = xfsj_get_be32(p + XFSJ_ICL_OFF(length));
	in->u.icr.gen = xfsj_get_be32(p + XFSJ_ICL_OFF(gen));
	return 0;
}

static bool icreate_touches_ino(const struct xfsj_item_info *in,
				const struct xfsj_fsgeo *g, uint64_t ino)
{
	if (!g->known || xfsj_ino_to_agno(g, ino) != in->u.icr.ag)
		return false;
	return xlog_in_range((ino >> g->inopblog) &
			     ((1ULL << g->agblklog) - 1),
			     in->u.icr.agbno, in->u.icr.length);
}

static bool icreate_touches(const struct xfsj_item_info *in,
			    const struct xfsj_fsgeo *g, uint64_t daddr,
			    int64_t agno)
{
	if (!g->known)
		return false;
	if (agno >= 0)
		return in->u.icr.ag == agno;
	return xlog_in_range(daddr, xfsj_fsb_to_daddr(g,
			     (uint64_t)in->u.icr.ag << g->agblklog |
			     in->u.icr.agbno),
			     (uint64_t)in->u.icr.length << (g->blocklog - 9));
}

const struct xfsj_item_ops xlog_icreate_ops = {
	.decode = dec_icreate,
	.touches_ino = icreate_touches_ino,
	.touches = icreate_touches,
};
