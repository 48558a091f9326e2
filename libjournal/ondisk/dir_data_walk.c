/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The walk of a directory data area, shared by the check, the repair's
 * edits of data blocks and its salvage of names.
 *
 * Where the area ends: a data block's runs to the end of the block; a
 * single-block directory's stops before its leaf entries and the 8-byte
 * tail (count, stale) that ends the block.  The kernel rejects a block
 * whose leaf entries would reach into the header (xfs_dir3_data_check);
 * here such a count is flagged and the area taken to end at the tail, so
 * that the tail itself is never read as an item.
 *
 * The walk decodes one item after another from the end of the header;
 * every item takes at least 8 bytes, so it always ends.  It stops at the
 * area's end or at the first item that does not fit, and says which
 * field did not.
 */
#include <string.h>

#include "core/layout.h"
#include "ondisk/dir_block.h"
#include "xfsj/errors.h"

int xfsj_dir2_data_area(const uint8_t *b, uint32_t bsize,
			struct xfsj_dir2_area *a)
{
	uint32_t max;

	memset(a, 0, sizeof(*a));
	a->count_ok = true;
	if (bsize < XFSJ_DIR3_HDR_SIZE + XFSJ_DIR2_BLOCK_TAIL)
		return -XFSJ_E_CORRUPT;
	if (xfsj_get_be32(b) == XFSJ_DIR3_DATA_MAGIC) {
		a->end = bsize;
		return 0;
	}
	if (xfsj_get_be32(b) != XFSJ_DIR3_BLOCK_MAGIC)
		return -XFSJ_E_CORRUPT;
	a->block = true;
	a->count = xfsj_get_be32(b + bsize - 8);
	a->stale = xfsj_get_be32(b + bsize - 4);
	max = (bsize - XFSJ_DIR3_HDR_SIZE - XFSJ_DIR2_BLOCK_TAIL) /
	      XFSJ_DIR2_LEAF_ENT_SIZE;
	if (a->count > max)
		a->count_ok = false;
	a->end = bsize - XFSJ_DIR2_BLOCK_TAIL -
		 (a->count_ok ? a->count : 0) * XFSJ_DIR2_LEAF_ENT_SIZE;
	return 0;
}

void xfsj_dir2_walk_init(struct xfsj_dir2_walk *w, const uint8_t *b,
			 uint32_t end, bool ftype)
{
	*w = (struct xfsj_dir2_walk){ .b = b, .off = XFSJ_DIR3_HDR_SIZE,
				      .end = end, .ftype = ftype };
}

bool xfsj_dir2_walk_next(struct xfsj_dir2_walk *w, struct xfsj_dir2_item *it)
{
	if (w->field || w->off >= w->end)
		return false;
	if (xfsj_dir2_data_item(w->b, w->off, w->end, w->ftype, it,
				&w->field))
		return false;
	w->off += it->len;
	return true;
}
