/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * XMI items (file mapping exchange intents): one format region, decoded
 * by ondisk/xmi_fmt.c as for their recovery.  Their done items (XMD) are
 * item_intent.c's.
 */
#include "log/item_priv.h"
#include "ondisk/xmi_fmt.h"

static int dec_xmi(const struct xfsj_ritem *it, struct xfsj_item_info *in)
{
	struct xfsj_xmi_fmt x;

	if (!xfsj_xmi_fmt_decode(it->reg[0].p, it->reg[0].len, &x))
		return ITEM_BAD(in, "XMI item", "length", 0, it->reg[0].len);
	in->u.xmi.ino1 = x.ino1;
	in->u.xmi.ino2 = x.ino2;
	in->u.xmi.igen1 = x.igen1;
	in->u.xmi.igen2 = x.igen2;
	in->u.xmi.startoff1 = x.startoff1;
	in->u.xmi.startoff2 = x.startoff2;
	in->u.xmi.blockcount = x.blockcount;
	in->u.xmi.flags = x.flags;
	in->u.xmi.isize1 = x.isize1;
	in->u.xmi.isize2 = x.isize2;
	if (x.pad)
		return ITEM_BAD(in, "XMI item", "xmi_pad", XFSJ_XMI_OFF(pad),
				x.pad);
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

static void xmi_each_ino(const struct xfsj_item_info *in,
			 void (*fn)(void *arg, uint64_t ino), void *arg)
{
	fn(arg, in->u.xmi.ino1);
	fn(arg, in->u.xmi.ino2);
}

const struct xfsj_item_ops xlog_xmi_ops = {
	.each_ino = xmi_each_ino,
	.decode = dec_xmi,
	.touches_ino = xmi_touches_ino,
	.touches = xmi_touches,
};
