/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Btree blocks: the v5 short (AG btrees) and long (inode bmap btree) block
 * headers, the shape of each tree (record, key and pointer sizes) and the
 * record codecs.  The generic btree engine builds on these.
 */
#include <stddef.h>
#include <string.h>

#include "core/crc32c.h"
#include "xfsj/ondisk.h"

#define XFSJ_CUR xfsj_sblock
XFSJ_DEFINE_LAYOUT(xfsj_sblock_layout, XFSJ_SBLOCK_FIELDS, "btree block",
		   XFSJ_SBLOCK_HDR_SIZE);
#undef XFSJ_CUR
#define XFSJ_CUR xfsj_lblock
XFSJ_DEFINE_LAYOUT(xfsj_lblock_layout, XFSJ_LBLOCK_FIELDS, "bmap btree block",
		   XFSJ_LBLOCK_HDR_SIZE);
#undef XFSJ_CUR

/* The two v5 header formats, from their checked layouts. */
#define HDR_OF(raw)							\
	.hdrlen = sizeof(struct raw),					\
	.lsn_off = offsetof(struct raw, lsn),				\
	.uuid_off = offsetof(struct raw, uuid),				\
	.crc_off = offsetof(struct raw, crc)
#define SHORT_HDR	HDR_OF(xfsj_sblock_raw), .ptrlen = 4
#define LONG_HDR	HDR_OF(xfsj_lblock_raw), .ptrlen = 8, .long_ptrs = true

/*
 * Key sizes: rmapbt nodes hold a low and a high key per child (2 x 20
 * bytes) because its records overlap; every other tree holds one key.
 */
static const struct xfsj_btree_shape shapes[XFSJ_BT__COUNT] = {
	[XFSJ_BT_BNO] = {
		"bnobt", "bnobt (v4)", XFSJ_BNO_MAGIC, XFSJ_BNO_MAGIC_V4,
		.reclen = 8, .keylen = 8, SHORT_HDR,
	},
	[XFSJ_BT_CNT] = {
		"cntbt", "cntbt (v4)", XFSJ_CNT_MAGIC, XFSJ_CNT_MAGIC_V4,
		.reclen = 8, .keylen = 8, SHORT_HDR,
	},
	[XFSJ_BT_INO] = {
		"inobt", "inobt (v4)", XFSJ_INO_MAGIC, XFSJ_INO_MAGIC_V4,
		.reclen = 16, .keylen = 4, SHORT_HDR,
	},
	[XFSJ_BT_FINO] = {
		"finobt", "finobt (v4)", XFSJ_FINO_MAGIC, XFSJ_FINO_MAGIC_V4,
		.reclen = 16, .keylen = 4, SHORT_HDR,
		.need_ro_compat = XFSJ_RO_COMPAT_FINOBT,
	},
	[XFSJ_BT_RMAP] = {
		"rmapbt", NULL, XFSJ_RMAP_MAGIC, 0,
		.reclen = 24, .keylen = 40, SHORT_HDR, .overlapping = true,
		.need_ro_compat = XFSJ_RO_COMPAT_RMAPBT,
	},
	[XFSJ_BT_REFC] = {
		"refcountbt", NULL, XFSJ_REFC_MAGIC, 0,
		.reclen = 12, .keylen = 4, SHORT_HDR,
		.need_ro_compat = XFSJ_RO_COMPAT_REFLINK,
	},
	[XFSJ_BT_BMAP] = {
		"bmbt", "bmbt (v4)", XFSJ_BMAP_MAGIC, XFSJ_BMAP_MAGIC_V4,
		.reclen = 16, .keylen = 8, LONG_HDR,
	},
};

const struct xfsj_btree_shape *xfsj_btree_shape(enum xfsj_btnum bt)
{
	return bt < XFSJ_BT__COUNT ? &shapes[bt] : NULL;
}

const struct xfsj_btree_shape *xfsj_btree_by_magic(uint32_t magic, bool *v4)
{
	for (unsigned int i = 0; i < XFSJ_BT__COUNT; i++) {
		bool old = shapes[i].magic_v4 && magic == shapes[i].magic_v4;

		if (magic == shapes[i].magic || old) {
			if (v4)
				*v4 = old;
			return &shapes[i];
		}
	}
	return NULL;
}

unsigned int xfsj_btree_maxrecs(enum xfsj_btnum bt, uint32_t blocksize,
				bool leaf)
{
	const struct xfsj_btree_shape *s = &shapes[bt];
	uint32_t space = blocksize - s->hdrlen;

	if (leaf)
		return space / s->reclen;
	return space / (s->keylen + s->ptrlen);
}

XFSJ_DEFINE_DECODER(xfsj_sblock_decode, xfsj_sblock, XFSJ_SBLOCK_FIELDS)

void xfsj_sblock_encode(const struct xfsj_sblock *h, void *buf)
{
	xfsj_layout_encode(&xfsj_sblock_layout, h, buf);
}

XFSJ_DEFINE_DECODER(xfsj_lblock_decode, xfsj_lblock, XFSJ_LBLOCK_FIELDS)

void xfsj_lblock_encode(const struct xfsj_lblock *h, void *buf)
{
	xfsj_layout_encode(&xfsj_lblock_layout, h, buf);
}

void xfsj_btree_block_finish(void *buf, uint32_t blocksize, bool long_ptrs)
{
	xfsj_cksum_update(buf, blocksize, long_ptrs ? XFSJ_LBLOCK_CRC_OFF :
						      XFSJ_SBLOCK_CRC_OFF);
}

#define BT_BAD(err, field, val)						\
	xfsj_fault_set(f, err, s->name, field,				\
		       daddr * 512 + (uint64_t)xfsj_layout_offset(	\
			       &xfsj_sblock_layout, field), (uint64_t)(val))

int xfsj_sblock_verify(const void *buf, enum xfsj_btnum bt,
		       const struct xfsj_vctx *c, uint64_t daddr,
		       struct xfsj_fault *f)
{
	const struct xfsj_btree_shape *s = xfsj_btree_shape(bt);
	struct xfsj_sblock h;
	unsigned int max;

	if (!s || s->long_ptrs)
		return -XFSJ_E_INVAL;
	xfsj_sblock_decode(buf, &h);
	if (h.magic != s->magic)
		return BT_BAD(XFSJ_E_BADMAGIC, "magic", h.magic);
	if (!xfsj_cksum_ok(buf, c->blocksize, XFSJ_SBLOCK_CRC_OFF))
		return BT_BAD(XFSJ_E_BADCRC, "crc", h.crc);
	if (memcmp(h.uuid, c->uuid, 16))
		return BT_BAD(XFSJ_E_CORRUPT, "uuid", 0);
	if (h.blkno != daddr)
		return BT_BAD(XFSJ_E_CORRUPT, "blkno", h.blkno);
	if (h.owner != c->agno)
		return BT_BAD(XFSJ_E_CORRUPT, "owner", h.owner);
	if (h.level >= 16)
		return BT_BAD(XFSJ_E_CORRUPT, "level", h.level);
	max = xfsj_btree_maxrecs(bt, c->blocksize, h.level == 0);
	if (h.numrecs > max)
		return BT_BAD(XFSJ_E_CORRUPT, "numrecs", h.numrecs);
	if (h.leftsib != XFSJ_NULLAGBLOCK && h.leftsib >= c->agblocks)
		return BT_BAD(XFSJ_E_CORRUPT, "leftsib", h.leftsib);
	if (h.rightsib != XFSJ_NULLAGBLOCK && h.rightsib >= c->agblocks)
		return BT_BAD(XFSJ_E_CORRUPT, "rightsib", h.rightsib);
	return 0;
}

/* ---- records ---- */

static uint8_t *srec(void *block, unsigned int i, unsigned int len)
{
	return (uint8_t *)block + XFSJ_SBLOCK_HDR_SIZE + (size_t)i * len;
}

static const uint8_t *srec_c(const void *block, unsigned int i,
			     unsigned int len)
{
	return (const uint8_t *)block + XFSJ_SBLOCK_HDR_SIZE + (size_t)i * len;
}

void xfsj_alloc_rec_put(void *block, unsigned int i,
			const struct xfsj_alloc_rec *r)
{
	uint8_t *p = srec(block, i, 8);

	xfsj_put_be32(p, r->startblock);
	xfsj_put_be32(p + 4, r->blockcount);
}

void xfsj_alloc_rec_get(const void *block, unsigned int i,
			struct xfsj_alloc_rec *r)
{
	const uint8_t *p = srec_c(block, i, 8);

	r->startblock = xfsj_get_be32(p);
	r->blockcount = xfsj_get_be32(p + 4);
}

void xfsj_inobt_rec_put(void *block, unsigned int i,
			const struct xfsj_inobt_rec *r, bool sparse)
{
	uint8_t *p = srec(block, i, 16);

	xfsj_put_be32(p, r->startino);
	if (sparse) {
		xfsj_put_be16(p + 4, r->holemask);
		p[6] = r->count;
		p[7] = (uint8_t)r->freecount;
	} else {
		xfsj_put_be32(p + 4, r->freecount);
	}
	xfsj_put_be64(p + 8, r->free);
}

void xfsj_inobt_rec_get(const void *block, unsigned int i,
			struct xfsj_inobt_rec *r, bool sparse)
{
	const uint8_t *p = srec_c(block, i, 16);

	r->startino = xfsj_get_be32(p);
	if (sparse) {
		r->holemask = xfsj_get_be16(p + 4);
		r->count = p[6];
		r->freecount = p[7];
	} else {
		r->holemask = 0;
		r->count = 64;
		r->freecount = xfsj_get_be32(p + 4);
	}
	r->free = xfsj_get_be64(p + 8);
}

void xfsj_rmap_rec_put(void *block, unsigned int i,
		       const struct xfsj_rmap_rec *r)
{
	uint8_t *p = srec(block, i, 24);

	xfsj_put_be32(p, r->startblock);
	xfsj_put_be32(p + 4, r->blockcount);
	xfsj_put_be64(p + 8, r->owner);
	xfsj_put_be64(p + 16, r->offset);
}

void xfsj_rmap_rec_get(const void *block, unsigned int i,
		       struct xfsj_rmap_rec *r)
{
	const uint8_t *p = srec_c(block, i, 24);

	r->startblock = xfsj_get_be32(p);
	r->blockcount = xfsj_get_be32(p + 4);
	r->owner = xfsj_get_be64(p + 8);
	r->offset = xfsj_get_be64(p + 16);
}

void xfsj_refc_rec_put(void *block, unsigned int i,
		       const struct xfsj_refc_rec *r)
{
	uint8_t *p = srec(block, i, 12);

	xfsj_put_be32(p, r->startblock);
	xfsj_put_be32(p + 4, r->blockcount);
	xfsj_put_be32(p + 8, r->refcount);
}

void xfsj_refc_rec_get(const void *block, unsigned int i,
		       struct xfsj_refc_rec *r)
{
	const uint8_t *p = srec_c(block, i, 12);

	r->startblock = xfsj_get_be32(p);
	r->blockcount = xfsj_get_be32(p + 4);
	r->refcount = xfsj_get_be32(p + 8);
}
