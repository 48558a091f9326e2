/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The intents that name extents and their done items (shared/reference/
 * xfs-log.md §8), with their realtime twins: EFI/EFD (extents to free),
 * RUI (reverse mapping updates), CUI (reference count updates), BUI (one
 * file mapping update), and the done items RUD, CUD, BUD, ATTRD and XMD,
 * which carry only the id of the intent they end.
 *
 * Every format starts with type u16, size u16, nextents u32, id u64
 * (host order); then the entries:
 *   EFI/EFD: start u64, len u32 (and u32 padding on 64-bit writers: 16 or
 *            12 bytes each, told apart by the region length as the kernel
 *            does);
 *   RUI/BUI: owner u64, startblock u64, offset u64, len u32, flags u32;
 *   CUI:     startblock u64, len u32, flags u32.
 * The entries are decoded here, once, for xfsj-logprint and for the
 * finishing of intents alike.
 */
#include <string.h>

#include "log/item_priv.h"

static int ext_count(const struct xfsj_ritem *it, struct xfsj_item_info *in,
		     const char *st, uint32_t *n)
{
	const uint8_t *p = it->reg[0].p;
	uint32_t len = it->reg[0].len;

	if (len < XFSJ_INTENT_HDR_SIZE)
		return ITEM_BAD(in, st, "length", 0, len);
	*n = xlog_le32(p + XFSJ_INTENT_OFF(nextents));
	in->u.ext.logged = *n;
	in->u.ext.ext = p + XFSJ_INTENT_HDR_SIZE;
	return 0;
}

/* EFI/EFD and their RT twins: 16- or 12-byte extents, told by length. */
static int dec_efx(const struct xfsj_ritem *it, struct xfsj_item_info *in)
{
	uint32_t len = it->reg[0].len, n = 0;
	const char *st = in->kind->role == XFSJ_ROLE_DONE ? "EFD item" :
							    "EFI item";

	if (ext_count(it, in, st, &n))
		return in->err;
	if ((uint64_t)len == XFSJ_INTENT_HDR_SIZE + (uint64_t)XFSJ_EFI_EXT_SIZE * n) {
		in->u.ext.stride = XFSJ_EFI_EXT_SIZE;
	} else if ((uint64_t)len == XFSJ_INTENT_HDR_SIZE + (uint64_t)XFSJ_EFI_EXT32_SIZE * n) {
		in->u.ext.stride = XFSJ_EFI_EXT32_SIZE;
	} else {
		in->u.ext.stride = XFSJ_EFI_EXT_SIZE;
		in->u.ext.nextents = (len - XFSJ_INTENT_HDR_SIZE) /
				     XFSJ_EFI_EXT_SIZE;
		return ITEM_BAD(in, st, "nextents",
				XFSJ_INTENT_OFF(nextents), n);
	}
	in->u.ext.nextents = n;
	return 0;
}

static int dec_map(const struct xfsj_ritem *it, struct xfsj_item_info *in,
		   uint32_t stride, const char *st, bool one)
{
	uint32_t len = it->reg[0].len, n = 0;

	if (ext_count(it, in, st, &n))
		return in->err;
	in->u.ext.stride = stride;
	if ((uint64_t)len != XFSJ_INTENT_HDR_SIZE + (uint64_t)stride * n) {
		in->u.ext.nextents = (len - XFSJ_INTENT_HDR_SIZE) / stride;
		return ITEM_BAD(in, st, "nextents",
				XFSJ_INTENT_OFF(nextents), n);
	}
	in->u.ext.nextents = n;
	if (one && n != 1)
		return ITEM_BAD(in, st, "nextents",
				XFSJ_INTENT_OFF(nextents), n);
	return 0;
}

static int dec_rui(const struct xfsj_ritem *it, struct xfsj_item_info *in)
{
	return dec_map(it, in, XFSJ_MAP_EXT_SIZE, "RUI item", false);
}

static int dec_cui(const struct xfsj_ritem *it, struct xfsj_item_info *in)
{
	return dec_map(it, in, XFSJ_CUI_EXT_SIZE, "CUI item", false);
}

static int dec_bui(const struct xfsj_ritem *it, struct xfsj_item_info *in)
{
	return dec_map(it, in, XFSJ_MAP_EXT_SIZE, "BUI item", true);
}

/* RUD, CUD, BUD, ATTRD, XMD: type, size, pad, the intent's id. */
static int dec_done16(const struct xfsj_ritem *it, struct xfsj_item_info *in)
{
	if (it->reg[0].len != XFSJ_DONE_FMT_SIZE)
		return ITEM_BAD(in, "done item", "length", 0, it->reg[0].len);
	return 0;
}

/* One entry, at @p, of each layout. */
static void ext_efx(const uint8_t *p, struct xfsj_item_ext *e)
{
	e->startblock = xlog_le64(p + XFSJ_EFI_EXT_OFF(start));
	e->len = xlog_le32(p + XFSJ_EFI_EXT_OFF(len));
}

static void ext_map(const uint8_t *p, struct xfsj_item_ext *e)
{
	e->owner = xlog_le64(p + XFSJ_MAP_EXT_OFF(owner));
	e->startblock = xlog_le64(p + XFSJ_MAP_EXT_OFF(startblock));
	e->offset = xlog_le64(p + XFSJ_MAP_EXT_OFF(offset));
	e->len = xlog_le32(p + XFSJ_MAP_EXT_OFF(len));
	e->flags = xlog_le32(p + XFSJ_MAP_EXT_OFF(flags));
}

static void ext_cui(const uint8_t *p, struct xfsj_item_ext *e)
{
	e->startblock = xlog_le64(p + XFSJ_CUI_EXT_OFF(startblock));
	e->len = xlog_le32(p + XFSJ_CUI_EXT_OFF(len));
	e->flags = xlog_le32(p + XFSJ_CUI_EXT_OFF(flags));
}

static bool is_file_owner(uint64_t owner)
{
	/* Special owners are small negative numbers. */
	return owner < (uint64_t)-16;
}

/* RUI and BUI entries name the inode that owns the mapping. */
static bool owner_touches_ino(const struct xfsj_item_info *in,
			      const struct xfsj_fsgeo *g, uint64_t ino)
{
	struct xfsj_item_ext e;

	(void)g;
	for (uint32_t i = 0; i < in->u.ext.nextents; i++)
		if (!xfsj_item_extent(in, i, &e) && is_file_owner(e.owner) &&
		    e.owner == ino)
			return true;
	return false;
}

static void owner_each_ino(const struct xfsj_item_info *in,
			   void (*fn)(void *arg, uint64_t ino), void *arg)
{
	struct xfsj_item_ext e;

	for (uint32_t i = 0; i < in->u.ext.nextents; i++)
		if (!xfsj_item_extent(in, i, &e) && is_file_owner(e.owner))
			fn(arg, e.owner);
}

/* Entries with a flag of @skip set are not on the data device. */
static bool ext_touches_but(const struct xfsj_item_info *in,
			    const struct xfsj_fsgeo *g, uint64_t daddr,
			    int64_t agno, uint32_t skip)
{
	struct xfsj_item_ext e;

	if (in->kind->rt || !g->known)
		return false;
	for (uint32_t i = 0; i < in->u.ext.nextents; i++) {
		if (xfsj_item_extent(in, i, &e))
			break;
		if (e.flags & skip)
			continue;
		if (agno >= 0) {
			if (xfsj_fsb_to_agno(g, e.startblock) == agno)
				return true;
		} else if (xlog_in_range(daddr,
					 xfsj_fsb_to_daddr(g, e.startblock),
					 (uint64_t)e.len << (g->blocklog - 9))) {
			return true;
		}
	}
	return false;
}

static bool ext_touches(const struct xfsj_item_info *in,
			const struct xfsj_fsgeo *g, uint64_t daddr,
			int64_t agno)
{
	return ext_touches_but(in, g, daddr, agno, 0);
}

/* BUI mappings of realtime files are not on this device. */
static bool bui_touches(const struct xfsj_item_info *in,
			const struct xfsj_fsgeo *g, uint64_t daddr,
			int64_t agno)
{
	return ext_touches_but(in, g, daddr, agno, XFSJ_BUI_REALTIME);
}

const struct xfsj_item_ops xlog_efi_ops = {
	.decode = dec_efx,
	.extent = ext_efx,
	.touches = ext_touches,
};

const struct xfsj_item_ops xlog_rui_ops = {
	.decode = dec_rui,
	.extent = ext_map,
	.touches_ino = owner_touches_ino,
	.each_ino = owner_each_ino,
	.touches = ext_touches,
};

const struct xfsj_item_ops xlog_cui_ops = {
	.decode = dec_cui,
	.extent = ext_cui,
	.touches = ext_touches,
};

const struct xfsj_item_ops xlog_bui_ops = {
	.decode = dec_bui,
	.extent = ext_map,
	.touches_ino = owner_touches_ino,
	.each_ino = owner_each_ino,
	.touches = bui_touches,
};

const struct xfsj_item_ops xlog_done_ops = {
	.decode = dec_done16,
};
