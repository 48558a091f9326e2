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

/* Where the header fields sit in each of the two dir3 layouts. */
struct hdr_layout {
	uint8_t crc, blkno, lsn, uuid, owner;
	bool blkinfo;		/* forw, back at 0, a 16-bit magic at 8 */
};

static const struct hdr_layout data_layout = { 4, 8, 16, 24, 40, false };
static const struct hdr_layout blkinfo_layout = { 12, 16, 24, 32, 48, true };

static void hdr_decode(const uint8_t *b, const struct hdr_layout *l,
		       struct xfsj_dir3_hdr *h)
{
	memset(h, 0, sizeof(*h));
	if (l->blkinfo) {
		h->forw = xfsj_get_be32(b);
		h->back = xfsj_get_be32(b + 4);
		h->magic = xfsj_get_be16(b + 8);
	} else {
		h->magic = xfsj_get_be32(b);
	}
	h->crc_off = l->crc;
	h->blkno = xfsj_get_be64(b + l->blkno);
	h->lsn = xfsj_get_be64(b + l->lsn);
	memcpy(h->uuid, b + l->uuid, 16);
	h->owner = xfsj_get_be64(b + l->owner);
}

void xfsj_dir3_data_hdr_decode(const uint8_t *b, struct xfsj_dir3_hdr *h)
{
	hdr_decode(b, &data_layout, h);
}

void xfsj_dir3_blkinfo_decode(const uint8_t *b, struct xfsj_dir3_hdr *h)
{
	hdr_decode(b, &blkinfo_layout, h);
}

bool xfsj_dir3_hdr_decode_any(const uint8_t *b, struct xfsj_dir3_hdr *h)
{
	xfsj_dir3_data_hdr_decode(b, h);
	if (h->magic == XFSJ_DIR3_BLOCK_MAGIC ||
	    h->magic == XFSJ_DIR3_DATA_MAGIC ||
	    h->magic == XFSJ_DIR3_FREE_MAGIC)
		return true;
	xfsj_dir3_blkinfo_decode(b, h);
	return h->magic == XFSJ_DIR3_LEAF1_MAGIC ||
	       h->magic == XFSJ_DIR3_LEAFN_MAGIC ||
	       h->magic == XFSJ_DIR3_NODE_MAGIC;
}

void xfsj_dir3_hdr_encode(uint8_t *b, const struct xfsj_dir3_hdr *h)
{
	const struct hdr_layout *l = h->crc_off == blkinfo_layout.crc ?
				     &blkinfo_layout : &data_layout;

	if (l->blkinfo) {
		xfsj_put_be32(b, h->forw);
		xfsj_put_be32(b + 4, h->back);
		xfsj_put_be16(b + 8, (uint16_t)h->magic);
	} else {
		xfsj_put_be32(b, h->magic);
	}
	xfsj_put_be64(b + l->blkno, h->blkno);
	xfsj_put_be64(b + l->lsn, h->lsn);
	memcpy(b + l->uuid, h->uuid, 16);
	xfsj_put_be64(b + l->owner, h->owner);
}

void xfsj_dir3_bestfree_get(const uint8_t *b,
			    struct xfsj_dir2_bestfree bf[XFSJ_DIR2_BEST_FREE])
{
	for (unsigned int i = 0; i < XFSJ_DIR2_BEST_FREE; i++) {
		bf[i].offset = xfsj_get_be16(b + 48 + 4 * i);
		bf[i].length = xfsj_get_be16(b + 50 + 4 * i);
	}
}

void xfsj_dir3_bestfree_put(uint8_t *b,
			    const struct xfsj_dir2_bestfree bf[XFSJ_DIR2_BEST_FREE])
{
	for (unsigned int i = 0; i < XFSJ_DIR2_BEST_FREE; i++) {
		xfsj_put_be16(b + 48 + 4 * i, bf[i].offset);
		xfsj_put_be16(b + 50 + 4 * i, bf[i].length);
	}
}

void xfsj_dir2_bestfree_add(struct xfsj_dir2_bestfree bf[XFSJ_DIR2_BEST_FREE],
			    uint32_t off, uint32_t len)
{
	for (unsigned int i = 0; i < XFSJ_DIR2_BEST_FREE; i++)
		if (len > bf[i].length) {
			memmove(&bf[i + 1], &bf[i],
				(XFSJ_DIR2_BEST_FREE - 1 - i) * sizeof(bf[0]));
			bf[i].offset = (uint16_t)off;
			bf[i].length = (uint16_t)len;
			return;
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
	/* An entry holds at least its inode number and name length. */
	if (end - off < 9) {
		*field = "namelen";
		return -XFSJ_E_CORRUPT;
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
