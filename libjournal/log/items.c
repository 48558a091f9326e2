/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The log item table (logread.h): one row per item type, naming its
 * family's ops (item_buf.c, item_inode.c, item_quota.c, item_icreate.c,
 * item_intent.c, item_attri.c, item_xmi.c), and the calls that dispatch
 * through it: decode, extents, what an item touches.
 *
 * Item format structures are in the byte order of the host that wrote
 * the log (little-endian for the Linux logs we read); copies of metadata
 * inside them (buffer data, forks, dquots, parent pointer values, the
 * icreate fields) are big-endian as on disk.  Every length is checked
 * against its region before the bytes are read: a decoder never looks past
 * what the log gave it, and a bad item yields a fault, not a crash.
 */
#include <string.h>
#include <strings.h>

#include "log/item_priv.h"

int xlog_item_fault(struct xfsj_item_info *info, int err, unsigned int reg,
		    const char *structure, const char *field, uint64_t off,
		    uint64_t val)
{
	if (info->err)
		return info->err;
	info->err = xfsj_fault_set(&info->fault, err, structure, field, off,
				   val);
	info->fault_reg = (uint16_t)reg;
	return info->err;
}

static int dec_never(const struct xfsj_ritem *it, struct xfsj_item_info *in)
{
	(void)it;
	/* In-memory only: seeing one on disk means the bytes are wrong. */
	return ITEM_BAD(in, "IUNLINK item", "type", 0, in->type);
}

const struct xfsj_item_ops xlog_iunlink_ops = {
	.decode = dec_never,
};

#define I XFSJ_ROLE_INTENT
#define D XFSJ_ROLE_DONE
#define O XFSJ_ROLE_OTHER
#define OB XFSJ_ORDER_BUF
#define OI XFSJ_ORDER_ITEM

static const struct xfsj_item_type item_types[] = {
	{ XFSJ_LI_BUF,      "BUF",      "BUF",    O, 0,              false, OB, &xlog_buf_ops },
	{ XFSJ_LI_INODE,    "INODE",    "INO",    O, 0,              false, OI, &xlog_inode_ops },
	{ XFSJ_LI_DQUOT,    "DQUOT",    "DQ ",    O, 0,              false, OI, &xlog_dquot_ops },
	{ XFSJ_LI_QUOTAOFF, "QUOTAOFF", "QOFF",   O, 0,              false, OI, &xlog_qoff_ops },
	{ XFSJ_LI_ICREATE,  "ICREATE",  "ICR",    O, 0,              false, OB, &xlog_icreate_ops },
	{ XFSJ_LI_EFI,      "EFI",      "EFI",    I, XFSJ_LI_EFD,    false, OI, &xlog_efi_ops },
	{ XFSJ_LI_EFD,      "EFD",      "EFD",    D, XFSJ_LI_EFI,    false, OI, &xlog_efi_ops },
	{ XFSJ_LI_RUI,      "RUI",      "RUI",    I, XFSJ_LI_RUD,    false, OI, &xlog_rui_ops },
	{ XFSJ_LI_RUD,      "RUD",      "RUD",    D, XFSJ_LI_RUI,    false, OI, &xlog_done_ops },
	{ XFSJ_LI_CUI,      "CUI",      "CUI",    I, XFSJ_LI_CUD,    false, OI, &xlog_cui_ops },
	{ XFSJ_LI_CUD,      "CUD",      "CUD",    D, XFSJ_LI_CUI,    false, OI, &xlog_done_ops },
	{ XFSJ_LI_BUI,      "BUI",      "BUI",    I, XFSJ_LI_BUD,    false, OI, &xlog_bui_ops },
	{ XFSJ_LI_BUD,      "BUD",      "BUD",    D, XFSJ_LI_BUI,    false, OI, &xlog_done_ops },
	{ XFSJ_LI_ATTRI,    "ATTRI",    "ATTRI",  I, XFSJ_LI_ATTRD,  false, OI, &xlog_attri_ops },
	{ XFSJ_LI_ATTRD,    "ATTRD",    "ATTRD",  D, XFSJ_LI_ATTRI,  false, OI, &xlog_done_ops },
	{ XFSJ_LI_XMI,      "XMI",      "XMI",    I, XFSJ_LI_XMD,    false, OI, &xlog_xmi_ops },
	{ XFSJ_LI_XMD,      "XMD",      "XMD",    D, XFSJ_LI_XMI,    false, OI, &xlog_done_ops },
	{ XFSJ_LI_EFI_RT,   "EFI_RT",   "EFI_RT", I, XFSJ_LI_EFD_RT, true,  OI, &xlog_efi_ops },
	{ XFSJ_LI_EFD_RT,   "EFD_RT",   "EFD_RT", D, XFSJ_LI_EFI_RT, true,  OI, &xlog_efi_ops },
	{ XFSJ_LI_RUI_RT,   "RUI_RT",   "RUI_RT", I, XFSJ_LI_RUD_RT, true,  OI, &xlog_rui_ops },
	{ XFSJ_LI_RUD_RT,   "RUD_RT",   "RUD_RT", D, XFSJ_LI_RUI_RT, true,  OI, &xlog_done_ops },
	{ XFSJ_LI_CUI_RT,   "CUI_RT",   "CUI_RT", I, XFSJ_LI_CUD_RT, true,  OI, &xlog_cui_ops },
	{ XFSJ_LI_CUD_RT,   "CUD_RT",   "CUD_RT", D, XFSJ_LI_CUI_RT, true,  OI, &xlog_done_ops },
	{ XFSJ_LI_IUNLINK,  "IUNLINK",  "IUL",    O, 0,              false, OI, &xlog_iunlink_ops },
};

#undef I
#undef D
#undef O
#undef OB
#undef OI

#define NTYPES (sizeof(item_types) / sizeof(item_types[0]))

const struct xfsj_item_type *xfsj_item_type_lookup(uint16_t type)
{
	for (size_t i = 0; i < NTYPES; i++)
		if (item_types[i].type == type)
			return &item_types[i];
	return NULL;
}

const struct xfsj_item_type *xfsj_item_type_by_name(const char *name)
{
	for (size_t i = 0; i < NTYPES; i++) {
		const char *lp = item_types[i].lp_name;
		size_t n = strlen(lp);

		/* "DQ " is padded in xfs_logprint's output. */
		while (n && lp[n - 1] == ' ')
			n--;
		if (!strcasecmp(item_types[i].name, name) ||
		    (strlen(name) == n && !strncasecmp(lp, name, n)))
			return &item_types[i];
	}
	return NULL;
}

const struct xfsj_item_type *xfsj_item_types(unsigned int *n)
{
	*n = NTYPES;
	return item_types;
}

static int decode(const struct xfsj_ritem *it, struct xfsj_item_info *info,
		  bool brief)
{
	memset(info, 0, sizeof(*info));
	info->brief = brief;
	info->type = it->type;
	info->nreg = it->nreg;
	info->order = XFSJ_ORDER_ITEM;
	if (!it->nreg || !it->reg || it->reg[0].len < 4)
		return xlog_item_fault(info, XFSJ_E_CORRUPT, 0, "log item",
				       "length", 0,
				       it->nreg ? it->reg[0].len : 0);
	info->kind = xfsj_item_type_lookup(it->type);
	if (!info->kind)
		return xlog_item_fault(info, XFSJ_E_UNSUPP, 0, "log item",
				       "type", 0, it->type);
	info->order = (uint8_t)info->kind->order;
	/* Every intent and done item names its intent in its header. */
	if (info->kind->role != XFSJ_ROLE_OTHER &&
	    it->reg[0].len >= XFSJ_INTENT_HDR_SIZE) {
		info->id = xlog_le64(it->reg[0].p + XFSJ_INTENT_OFF(id));
		info->have_id = true;
	}
	if (!info->kind->ops->decode(it, info))
		info->fmt_ok = true;
	return info->err;
}

int xfsj_item_decode(const struct xfsj_ritem *it, struct xfsj_item_info *info)
{
	return decode(it, info, false);
}

int xfsj_item_decode_brief(const struct xfsj_ritem *it,
			   struct xfsj_item_info *info)
{
	return decode(it, info, true);
}

uint8_t xfsj_item_order(const struct xfsj_ritem *it)
{
	const struct xfsj_item_type *kind = xfsj_item_type_lookup(it->type);

	/*
	 * Most rows are of the default class whatever the bytes say: those
	 * are not looked at (they are far from the cache here).
	 */
	if (!kind || (kind->order == XFSJ_ORDER_ITEM && !kind->ops->order))
		return XFSJ_ORDER_ITEM;
	if (!it->nreg || !it->reg || it->reg[0].len < 4)
		return XFSJ_ORDER_ITEM;
	if (kind->ops->order)
		return kind->ops->order(it, (uint8_t)kind->order);
	return (uint8_t)kind->order;
}

int xfsj_item_extent(const struct xfsj_item_info *info, uint32_t i,
		     struct xfsj_item_ext *e)
{
	memset(e, 0, sizeof(*e));
	if (!info->kind || !info->kind->ops->extent ||
	    i >= info->u.ext.nextents || !info->u.ext.ext)
		return -XFSJ_E_RANGE;
	info->kind->ops->extent(info->u.ext.ext +
				(size_t)i * info->u.ext.stride, e);
	return 0;
}

/* ---- what an item touches ---- */

void xfsj_fsgeo_from_sb(const struct xfsj_sb *sb, struct xfsj_fsgeo *g)
{
	memset(g, 0, sizeof(*g));
	if (sb->magicnum != XFSJ_SB_MAGIC || sb->blocklog < 9)
		return;
	g->blocksize = sb->blocksize;
	g->blocklog = sb->blocklog;
	g->agblklog = sb->agblklog;
	g->inopblog = sb->inopblog;
	g->agblocks = sb->agblocks;
	g->agcount = sb->agcount;
	g->inodesize = sb->inodesize;
	g->known = sb->agblocks && sb->agblklog < 32 && sb->inopblog < 16;
}

uint64_t xfsj_fsb_to_daddr(const struct xfsj_fsgeo *g, uint64_t fsbno)
{
	uint64_t agno = fsbno >> g->agblklog;
	uint64_t agbno = fsbno & ((1ULL << g->agblklog) - 1);

	return (agno * g->agblocks + agbno) << (g->blocklog - 9);
}

uint32_t xfsj_fsb_to_agno(const struct xfsj_fsgeo *g, uint64_t fsbno)
{
	return (uint32_t)(fsbno >> g->agblklog);
}

uint32_t xfsj_ino_to_agno(const struct xfsj_fsgeo *g, uint64_t ino)
{
	return (uint32_t)(ino >> (g->agblklog + g->inopblog));
}

uint32_t xfsj_daddr_to_agno(const struct xfsj_fsgeo *g, uint64_t daddr)
{
	uint64_t agbb = (uint64_t)g->agblocks << (g->blocklog - 9);

	return agbb ? (uint32_t)(daddr / agbb) : 0;
}

bool xfsj_item_touches_ino(const struct xfsj_ritem *it,
			   const struct xfsj_item_info *info,
			   const struct xfsj_fsgeo *g, uint64_t ino)
{
	(void)it;
	if (!info->kind || !info->kind->ops->touches_ino)
		return false;
	return info->kind->ops->touches_ino(info, g, ino);
}

static bool touches(const struct xfsj_item_info *info,
		    const struct xfsj_fsgeo *g, uint64_t daddr, int64_t agno)
{
	if (!info->kind || !info->kind->ops->touches)
		return false;
	return info->kind->ops->touches(info, g, daddr, agno);
}

void xfsj_item_each_ino(const struct xfsj_item_info *info,
			void (*fn)(void *arg, uint64_t ino), void *arg)
{
	if (info->kind && info->kind->ops->each_ino)
		info->kind->ops->each_ino(info, fn, arg);
}

void xfsj_item_each_daddr(const struct xfsj_item_info *info,
			  void (*fn)(void *arg, uint64_t daddr, uint32_t bbs),
			  void *arg)
{
	if (info->kind && info->kind->ops->each_daddr)
		info->kind->ops->each_daddr(info, fn, arg);
}

bool xfsj_item_touches_daddr(const struct xfsj_item_info *info,
			     const struct xfsj_fsgeo *g, uint64_t daddr)
{
	return touches(info, g, daddr, -1);
}

bool xfsj_item_touches_ag(const struct xfsj_item_info *info,
			  const struct xfsj_fsgeo *g, uint32_t agno)
{
	return touches(info, g, 0, agno);
}
