/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One entry of an attribute leaf block, placed against the block: the
 * parse the leaf verifier, the check and the repair's salvage share.
 *
 * An entry (hash be32, nameidx be16, flags, pad) points at its name
 * structure: local (valuelen be16, namelen, name, value) or remote
 * (valueblk be32, valuelen be32, namelen, name).  The name structure must
 * start past the entry table (past firstused, for the verifier) and inside
 * the block, its fixed part must fit before its lengths are read, and the
 * whole structure, rounded up to 4 bytes as the kernel counts it
 * (xfs_attr_leaf_entsize_local/_remote), must end inside the block.
 */
#include <string.h>

#include "core/layout.h"
#include "fs/attr.h"

#define HDR	XFSJ_ATTR3_LEAF_HDR_SIZE
#define ENT	XFSJ_ATTR_LEAF_ENTRY_SIZE

int xfsj_attr_leaf_ent_place(const uint8_t *blk, uint32_t bs, uint32_t i,
			     uint32_t low, struct xfsj_attr_lent *e,
			     uint32_t *end)
{
	const uint8_t *p = blk + HDR + (size_t)i * ENT;

	memset(e, 0, sizeof(*e));
	*end = 0;
	if (i >= bs / ENT || HDR + (i + 1) * ENT > bs)
		return XFSJ_ALENT_SLOT;
	e->hash = xfsj_get_be32(p);
	e->nameidx = xfsj_get_be16(p + 4);
	e->flags = p[6];
	if (e->nameidx < low || e->nameidx >= bs)
		return XFSJ_ALENT_NAMEIDX;
	*end = e->nameidx + ((e->flags & XFSJ_ATTR_FLAG_LOCAL) ? 3 : 9);
	if (*end > bs)
		return XFSJ_ALENT_FIXED;
	xfsj_attr_leaf_get_ent(blk, bs, i, e);
	*end = e->nameidx + e->entsize;
	return *end > bs ? XFSJ_ALENT_PAST : XFSJ_ALENT_OK;
}
