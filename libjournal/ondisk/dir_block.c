/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Decoding dir3 directory blocks (the layouts are in dir_block.h): the
 * headers, the bestfree table and the items of a data area, each bounded
 * by the block.
 */
#include <string.h>

#include "core/layout.h"
#include "ondisk/dir_block.h"
#include "xfsj/errors.h"

void xfsj_dir3_data_hdr_decode(const uint8_t *b, struct xfsj_dir3_hdr *h)
{
	memset(h, 0, sizeof(*h));
	h->magic = xfsj_get_be32(b);
	h->crc_off = 4;
	h->blkno = xfsj_get_be64(b + 8);
	h->lsn = xfsj_get_be64(b + 16);
	memcpy(h->uuid, b + 24, 16);
	h->owner = xfsj_get_be64(b + 40);
}

void xfsj_dir3_blkinfo_decode(const uint8_t *b, struct xfsj_dir3_hdr *h)
{
	memset(h, 0, sizeof(*h));
	h->forw = xfsj_get_be32(b);
	h->back = xfsj_get_be32(b + 4);
	h->magic = xfsj_get_be16(b + 8);
	h->crc_off = 12;
	h->blkno = xfsj_get_be64(b + 16);
	h->lsn = xfsj_get_be64(b + 24);
	memcpy(h->uuid, b + 32, 16);
	h->owner = xfsj_get_be64(b + 48);
}

void xfsj_dir3_bestfree_get(const uint8_t *b,
			    struct xfsj_dir2_bestfree bf[XFSJ_DIR2_BEST_FREE])
{
	for (unsigned int i = 0; i < XFSJ_DIR2_BEST_FREE; i++) {
		bf[i].offset = xfsj_get_be16(b + 48 + 4 * i);
		bf[i].length = xfsj_get_be16(b + 50 + 4 * i);
	}
}

unsigned int xfsj_dir2_data_entsize(unsigned int namelen, bool ftype)
{
	/* inumber, namelen, name, [ftype], tag; 8-byte aligned */
	unsigned int sz = 8 + 1 + namelen + (ftype ? 1 : 0) + 2;

	return (sz + XFSJ_DIR2_DATA_ALIGN - 1) & ~(XFSJ_DIR2_DATA_ALIGN - 1U);
}

int xfsj_dir2_data_item(const uint8_t *b, uint32_t off, uint32_t end,
			bool ftype, struct xfsj_dir2_item *it,
			const char **field)
{
	memset(it, 0, sizeof(*it));
	it->off = off;
	if (off % XFSJ_DIR2_DATA_ALIGN || end < off ||
	    end - off < XFSJ_DIR2_UNUSED_MIN) {
		*field = "offset";
		return -XFSJ_E_CORRUPT;
	}
	if (xfsj_get_be16(b + off) == XFSJ_DIR2_FREE_TAG) {
		it->unused = true;
		it->len = xfsj_get_be16(b + off + 2);
		if (it->len < XFSJ_DIR2_UNUSED_MIN ||
		    it->len % XFSJ_DIR2_DATA_ALIGN || it->len > end - off) {
			*field = "length";
			return -XFSJ_E_CORRUPT;
		}
		it->tag = xfsj_get_be16(b + off + it->len - 2);
		return 0;
	}
	it->ino = xfsj_get_be64(b + off);
	it->namelen = b[off + 8];
	it->len = xfsj_dir2_data_entsize(it->namelen, ftype);
	if (it->namelen == 0 || it->len > end - off) {
		*field = "namelen";
		return -XFSJ_E_CORRUPT;
	}
	it->name = b + off + 9;
	it->ftype = ftype ? b[off + 9 + it->namelen] : 0;
	it->tag = xfsj_get_be16(b + off + it->len - 2);
	return 0;
}
