/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The root of a bmbt in an inode fork (the kernel's xfs_bmdr_block): a
 * 4-byte header (level be16, numrecs be16), then as many 8-byte keys as
 * the fork has room for key-and-pointer pairs, then as many pointers.
 * The pointers therefore sit where the fork size, not the record count,
 * puts them: every walker of a bmbt fork (the reader, the check, the
 * repair's salvage, log recovery) places them here, once.
 */
#include "core/layout.h"
#include "ondisk/bmdr.h"
#include "ondisk/format.h"

unsigned int xfsj_bmdr_room(uint32_t size)
{
	if (size < XFSJ_BMDR_HDR_SIZE + XFSJ_BMDR_PAIR)
		return 0;
	return (size - XFSJ_BMDR_HDR_SIZE) / XFSJ_BMDR_PAIR;
}

bool xfsj_bmdr_decode(const uint8_t *root, uint32_t size, struct xfsj_bmdr *r)
{
	*r = (struct xfsj_bmdr){ 0 };
	r->maxr = xfsj_bmdr_room(size);
	if (!root || !r->maxr)
		return false;
	r->level = xfsj_get_be16(root);
	r->numrecs = xfsj_get_be16(root + 2);
	r->keys = root + XFSJ_BMDR_HDR_SIZE;
	r->ptrs = r->keys + (size_t)r->maxr * 8;
	return true;
}
