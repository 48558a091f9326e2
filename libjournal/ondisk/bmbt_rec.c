// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The bmbt record: one mapping of a file range to disk blocks, as every
 * extent-format fork and every bmbt leaf stores it (and as logged inode
 * forks carry it).  The one codec; see ondisk.h for the bit layout.
 */
#include "xfsj/ondisk.h"

void xfsj_bmbt_rec_decode(const uint8_t *p, struct xfsj_bmbt_irec *r)
{
	uint64_t hi = xfsj_get_be64(p), lo = xfsj_get_be64(p + 8);

	r->unwritten = hi >> 63;
	r->startoff = (hi >> 9) & XFSJ_MAX_FILEOFF;
	r->startblock = (hi & 0x1ff) << 43 | lo >> 21;
	r->blockcount = lo & XFSJ_BMBT_MAX_EXTLEN;
}

void xfsj_bmbt_rec_encode(const struct xfsj_bmbt_irec *r, uint8_t *p)
{
	xfsj_put_be64(p, (uint64_t)r->unwritten << 63 |
			 (r->startoff & XFSJ_MAX_FILEOFF) << 9 |
			 (r->startblock >> 43 & 0x1ff));
	xfsj_put_be64(p + 8, r->startblock << 21 |
			     (r->blockcount & XFSJ_BMBT_MAX_EXTLEN));
}
