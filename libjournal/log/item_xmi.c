/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * XMI items (file mapping exchange intents): one 88-byte format region
 * (layout in fs/attri.h).  Their done items (XMD) are item_intent.c's.
 */
#include "log/item_priv.h"

static int dec_xmi(const struct xfsj_ritem *it, struct xfsj_item_info *in)
{
	const uint8_t *p = it->reg[0].p;

	if (it->reg[0].len != 88)
		return ITEM_BAD(in, "XMI item", "length", 0, it->reg[0].len);
	in->u.xmi.ino1 = xlog_le64(p + 16);
	in->u.xmi.ino2 = xlog_le64(p + 24);
	in->u.xmi.igen1 = xlog_le32(p + 32);
	in->u.xmi.igen2 = xlog_le32(p + 36);
	in->u.xmi.startoff1 = xlog_le64(p + 40);
	in->u.xmi.startoff2 = xlog_le64(p + 48);
	in->u.xmi.blockcount = xlog_le64(p + 56);
	in->u.xmi.flags = xlog_le64(p + 64);
	in->u.xmi.isize1 = xlog_le64(p + 72);
	in->u.xmi.isize2 = xlog_le64(p + 80);
	if (xlog_le32(p + 4))
		return ITEM_BAD(in, "XMI item", "xmi_pad", 4, xlog_le32(p + 4));
	return 0;
}

static bool xmi_touches_ino(const struct xfsj_item_info *in,
			    const struct xfsj_fsgeo *g, uint64_t ino)
{
	(void)g;
	return in->u.xmi.ino1 == ino || in->u.xmi.ino2 == ino;
}

static bool xmi_touches(const struct xfsj_item_info *in,
			const struct xfsj_fsgeo *g, uint64_t daddr,
			int64_t agno)
{
	(void)daddr;
	return agno >= 0 && g->known &&
	       (xfsj_ino_to_agno(g, in->u.xmi.ino1) == agno ||
		xfsj_ino_to_agno(g, in->u.xmi.ino2) == agno);
}

const struct xfsj_item_ops xlog_xmi_ops = {
	.decode = dec_xmi,
	.touches_ino = xmi_touches_ino,
	.touches = xmi_touches,
};
