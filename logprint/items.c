/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * How xfsj-logprint prints each log item type: one row per type, keyed
 * by the library's item type (logread.h), naming the text of -t
 * (item_text.c), the JSON fields (json.c) and the one-line summary of an
 * intent in --intents.  The views dispatch through this table and never
 * switch on the type; what an item holds comes decoded from the library.
 * A type the library knows and this table does not prints its id.
 */
#include <inttypes.h>

#include "logprint.h"

static void what_attri(const struct xfsj_item_info *in, char *buf, size_t n)
{
	int nl = (int)(in->u.attr.name_len < 32 ? in->u.attr.name_len : 32);

	snprintf(buf, n, "op %u ino 0x%" PRIx64 " name %.*s", in->u.attr.op,
		 in->u.attr.ino, in->u.attr.name ? nl : 0,
		 in->u.attr.name ? (const char *)in->u.attr.name : "");
	for (char *p = buf; *p; p++)
		if ((unsigned char)*p < 0x20 || (unsigned char)*p > 0x7e)
			*p = '?';
}

static void what_xmi(const struct xfsj_item_info *in, char *buf, size_t n)
{
	snprintf(buf, n, "ino1 0x%" PRIx64 " ino2 0x%" PRIx64 " len %" PRIu64,
		 in->u.xmi.ino1, in->u.xmi.ino2, in->u.xmi.blockcount);
}

/* The count of extents and the first one. */
static void what_ext(const struct xfsj_item_info *in, char *buf, size_t n)
{
	struct xfsj_item_ext e;

	if (!xfsj_item_extent(in, 0, &e))
		snprintf(buf, n, "%u ext, first s 0x%" PRIx64 " l %u",
			 in->u.ext.nextents, e.startblock, e.len);
}

/* The same with the owner and flags of the first mapping. */
static void what_map(const struct xfsj_item_info *in, char *buf, size_t n)
{
	struct xfsj_item_ext e;

	if (!xfsj_item_extent(in, 0, &e))
		snprintf(buf, n, "%u ext, first s 0x%" PRIx64 " l %u own %"
			 PRId64 " f 0x%x", in->u.ext.nextents, e.startblock,
			 e.len, (int64_t)e.owner, e.flags);
}

static void what_none(const struct xfsj_item_info *in, char *buf, size_t n)
{
	(void)in;
	(void)buf;
	(void)n;
}

#define ROW(t, text, json, what)					\
	[(t) - LP_TYPE_BASE] = { lp_text_##text, lp_json_##json, what_##what }

static const struct lp_item_print rows[LP_NTYPES] = {
	ROW(XFSJ_LI_BUF,      buf,     buf,     none),
	ROW(XFSJ_LI_INODE,    inode,   inode,   none),
	ROW(XFSJ_LI_DQUOT,    dquot,   dquot,   none),
	ROW(XFSJ_LI_QUOTAOFF, qoff,    qoff,    none),
	ROW(XFSJ_LI_ICREATE,  icreate, icreate, none),
	ROW(XFSJ_LI_EFI,      efi,     efi,     ext),
	ROW(XFSJ_LI_EFD,      efi,     efi,     none),
	ROW(XFSJ_LI_RUI,      map,     map,     map),
	ROW(XFSJ_LI_RUD,      id,      id,      none),
	ROW(XFSJ_LI_CUI,      cui,     cui,     ext),
	ROW(XFSJ_LI_CUD,      id,      id,      none),
	ROW(XFSJ_LI_BUI,      map,     map,     map),
	ROW(XFSJ_LI_BUD,      id,      id,      none),
	ROW(XFSJ_LI_ATTRI,    attri,   attri,   attri),
	ROW(XFSJ_LI_ATTRD,    id,      id,      none),
	ROW(XFSJ_LI_XMI,      xmi,     xmi,     xmi),
	ROW(XFSJ_LI_XMD,      id,      id,      none),
	ROW(XFSJ_LI_EFI_RT,   efi,     efi,     ext),
	ROW(XFSJ_LI_EFD_RT,   efi,     efi,     none),
	ROW(XFSJ_LI_RUI_RT,   map,     map,     map),
	ROW(XFSJ_LI_RUD_RT,   id,      id,      none),
	ROW(XFSJ_LI_CUI_RT,   cui,     cui,     ext),
	ROW(XFSJ_LI_CUD_RT,   id,      id,      none),
	/* Never on disk: its decode fails; an empty extent list in JSON. */
	ROW(XFSJ_LI_IUNLINK,  id,      efi,     none),
};

static const struct lp_item_print fallback = {
	lp_text_id, lp_json_id, what_none,
};

const struct lp_item_print *lp_item_print(uint16_t type)
{
	const struct lp_item_print *p;

	if (type < LP_TYPE_BASE || type - LP_TYPE_BASE >= LP_NTYPES)
		return &fallback;
	p = &rows[type - LP_TYPE_BASE];
	return p->text ? p : &fallback;
}
