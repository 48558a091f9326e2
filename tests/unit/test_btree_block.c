/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Btree blocks: tree shapes and maximum record counts (format reference
 * §5.2), record codecs of every tree, the short-format header verifier.
 */
#include <stdlib.h>
#include <string.h>

#include "suites.h"
#include "core/crc32c.h"
#include "xfsj/ondisk.h"

#define AGNO		1
#define AGBLOCKS	65536

static const uint8_t fs_uuid[16] = { 0x10, 0x32, 0x54, 0x76, 0x98, 0xba, 0xdc,
				     0xfe, 0x01, 0x23, 0x45, 0x67, 0x89, 0xab,
				     0xcd, 0xef };

struct maxrecs_row {
	enum xfsj_btnum bt;
	uint32_t blocksize;
	unsigned int leaf, node;
};

static const struct maxrecs_row maxrecs_table[] = {
	/* 4 KiB: the reference table */
	{ XFSJ_BT_BNO, 4096, 505, 336 },
	{ XFSJ_BT_CNT, 4096, 505, 336 },
	{ XFSJ_BT_INO, 4096, 252, 505 },
	{ XFSJ_BT_FINO, 4096, 252, 505 },
	{ XFSJ_BT_RMAP, 4096, 168, 91 },
	{ XFSJ_BT_REFC, 4096, 336, 505 },
	{ XFSJ_BT_BMAP, 4096, 251, 251 },
	/* 1 KiB: (1024 - 56) / size, bmbt (1024 - 72) / 16 */
	{ XFSJ_BT_BNO, 1024, 121, 80 },
	{ XFSJ_BT_CNT, 1024, 121, 80 },
	{ XFSJ_BT_INO, 1024, 60, 121 },
	{ XFSJ_BT_FINO, 1024, 60, 121 },
	{ XFSJ_BT_RMAP, 1024, 40, 22 },
	{ XFSJ_BT_REFC, 1024, 80, 121 },
	{ XFSJ_BT_BMAP, 1024, 59, 59 },
	/* 64 KiB */
	{ XFSJ_BT_BNO, 65536, 8185, 5456 },
	{ XFSJ_BT_CNT, 65536, 8185, 5456 },
	{ XFSJ_BT_INO, 65536, 4092, 8185 },
	{ XFSJ_BT_FINO, 65536, 4092, 8185 },
	{ XFSJ_BT_RMAP, 65536, 2728, 1488 },
	{ XFSJ_BT_REFC, 65536, 5456, 8185 },
	{ XFSJ_BT_BMAP, 65536, 4091, 4091 },
};
#define NMAXRECS (sizeof(maxrecs_table) / sizeof(maxrecs_table[0]))

START_TEST(maxrecs)
{
	const struct maxrecs_row *r = &maxrecs_table[_i];

	ck_assert_msg(xfsj_btree_maxrecs(r->bt, r->blocksize, true) == r->leaf,
		      "%s %u leaf: %u", xfsj_btree_shape(r->bt)->name,
		      r->blocksize, xfsj_btree_maxrecs(r->bt, r->blocksize, true));
	ck_assert_msg(xfsj_btree_maxrecs(r->bt, r->blocksize, false) == r->node,
		      "%s %u node: %u", xfsj_btree_shape(r->bt)->name,
		      r->blocksize,
		      xfsj_btree_maxrecs(r->bt, r->blocksize, false));
}
END_TEST

START_TEST(shapes)
{
	static const struct {
		enum xfsj_btnum bt;
		const char *name;
		uint32_t magic;
		const char *ascii;
		uint16_t reclen, keylen, ptrlen;
		bool long_ptrs;
	} want[] = {
		{ XFSJ_BT_BNO, "bnobt", XFSJ_BNO_MAGIC, "AB3B", 8, 8, 4, false },
		{ XFSJ_BT_CNT, "cntbt", XFSJ_CNT_MAGIC, "AB3C", 8, 8, 4, false },
		{ XFSJ_BT_INO, "inobt", XFSJ_INO_MAGIC, "IAB3", 16, 4, 4, false },
		{ XFSJ_BT_FINO, "finobt", XFSJ_FINO_MAGIC, "FIB3", 16, 4, 4,
		  false },
		{ XFSJ_BT_RMAP, "rmapbt", XFSJ_RMAP_MAGIC, "RMB3", 24, 40, 4,
		  false },
		{ XFSJ_BT_REFC, "refcountbt", XFSJ_REFC_MAGIC, "R3FC", 12, 4, 4,
		  false },
		{ XFSJ_BT_BMAP, "bmbt", XFSJ_BMAP_MAGIC, "BMA3", 16, 8, 8, true },
	};

	for (unsigned int i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct xfsj_btree_shape *s = xfsj_btree_shape(want[i].bt);
		uint8_t m[4];

		ck_assert_ptr_nonnull(s);
		ck_assert_str_eq(s->name, want[i].name);
		ck_assert_uint_eq(s->magic, want[i].magic);
		xfsj_put_be32(m, s->magic);
		ck_assert_mem_eq(m, want[i].ascii, 4);
		ck_assert_uint_eq(s->reclen, want[i].reclen);
		ck_assert_uint_eq(s->keylen, want[i].keylen);
		ck_assert_uint_eq(s->ptrlen, want[i].ptrlen);
		ck_assert_int_eq(s->long_ptrs, want[i].long_ptrs);
	}
	ck_assert_ptr_null(xfsj_btree_shape(XFSJ_BT__COUNT));
}
END_TEST

/* Found again by magic (v5 and v4); the header facts follow the format. */
START_TEST(by_magic)
{
	static const char *const v4[XFSJ_BT__COUNT] = {
		[XFSJ_BT_BNO] = "ABTB", [XFSJ_BT_CNT] = "ABTC",
		[XFSJ_BT_INO] = "IABT", [XFSJ_BT_FINO] = "FIBT",
		[XFSJ_BT_BMAP] = "BMAP",
	};
	bool isv4 = true;

	for (unsigned int bt = 0; bt < XFSJ_BT__COUNT; bt++) {
		const struct xfsj_btree_shape *s = xfsj_btree_shape(bt);
		uint8_t m[4];

		ck_assert_ptr_eq(xfsj_btree_by_magic(s->magic, &isv4), s);
		ck_assert(!isv4);
		ck_assert_uint_eq(s->hdrlen, s->long_ptrs ? 72 : 56);
		ck_assert_uint_eq(s->lsn_off, s->long_ptrs ? 32 : 24);
		ck_assert_uint_eq(s->uuid_off, s->long_ptrs ? 40 : 32);
		ck_assert_uint_eq(s->crc_off, s->long_ptrs ? 64 : 52);
		ck_assert_int_eq(s->overlapping, bt == XFSJ_BT_RMAP);
		if (!v4[bt]) {
			ck_assert_uint_eq(s->magic_v4, 0);
			ck_assert_ptr_null(s->name_v4);
			continue;
		}
		xfsj_put_be32(m, s->magic_v4);
		ck_assert_mem_eq(m, v4[bt], 4);
		ck_assert_ptr_eq(xfsj_btree_by_magic(s->magic_v4, &isv4), s);
		ck_assert(isv4);
		ck_assert_ptr_nonnull(s->name_v4);
	}
	ck_assert_ptr_null(xfsj_btree_by_magic(XFSJ_AGF_MAGIC, NULL));
	ck_assert_ptr_null(xfsj_btree_by_magic(0, NULL));
}
END_TEST

/* ---- records ---- */

START_TEST(alloc_records)
{
	uint8_t *blk = calloc(1, 4096);
	struct xfsj_alloc_rec r = { 13, 3 }, s = { 0xFFFFFFF0, 0x89ABCDEF }, g;

	ck_assert_ptr_nonnull(blk);
	xfsj_alloc_rec_put(blk, 0, &r);
	xfsj_alloc_rec_put(blk, 504, &s);	/* last slot of a 4 KiB leaf */
	ck_assert_mem_eq(blk + 56, "\0\0\0\x0d\0\0\0\x03", 8);
	ck_assert_mem_eq(blk + 56 + 504 * 8, "\xFF\xFF\xFF\xF0\x89\xAB\xCD\xEF",
			 8);
	xfsj_alloc_rec_get(blk, 0, &g);
	ck_assert_uint_eq(g.startblock, 13);
	ck_assert_uint_eq(g.blockcount, 3);
	xfsj_alloc_rec_get(blk, 504, &g);
	ck_assert_uint_eq(g.startblock, 0xFFFFFFF0);
	ck_assert_uint_eq(g.blockcount, 0x89ABCDEF);
	/* Nothing written to the header or between the records. */
	for (int i = 0; i < 56; i++)
		ck_assert_uint_eq(blk[i], 0);
	ck_assert_uint_eq(blk[56 + 8], 0);
	free(blk);
}
END_TEST

START_TEST(inobt_records)
{
	uint8_t blk[512];
	struct xfsj_inobt_rec r, g;

	memset(blk, 0, sizeof(blk));
	/* Sparse format: holemask u16, count u8, freecount u8. */
	r.startino = 128;
	r.holemask = 0xFF00;
	r.count = 32;
	r.freecount = 29;
	r.free = 0xFFFFFFFFFFFFFFF8ULL;
	xfsj_inobt_rec_put(blk, 1, &r, true);
	ck_assert_mem_eq(blk + 56 + 16,
			 "\0\0\0\x80\xFF\x00\x20\x1D"
			 "\xFF\xFF\xFF\xFF\xFF\xFF\xFF\xF8", 16);
	memset(&g, 0xAA, sizeof(g));
	xfsj_inobt_rec_get(blk, 1, &g, true);
	ck_assert_uint_eq(g.startino, 128);
	ck_assert_uint_eq(g.holemask, 0xFF00);
	ck_assert_uint_eq(g.count, 32);
	ck_assert_uint_eq(g.freecount, 29);
	ck_assert_uint_eq(g.free, 0xFFFFFFFFFFFFFFF8ULL);

	/* Full format: freecount u32; get reports a full, hole-free chunk. */
	r.startino = 0x00ABCDEF;
	r.holemask = 0x1234;	/* ignored */
	r.count = 7;		/* ignored */
	r.freecount = 0x01020304;
	r.free = 0x0123456789ABCDEFULL;
	xfsj_inobt_rec_put(blk, 0, &r, false);
	ck_assert_mem_eq(blk + 56,
			 "\x00\xAB\xCD\xEF\x01\x02\x03\x04"
			 "\x01\x23\x45\x67\x89\xAB\xCD\xEF", 16);
	memset(&g, 0xAA, sizeof(g));
	xfsj_inobt_rec_get(blk, 0, &g, false);
	ck_assert_uint_eq(g.startino, 0x00ABCDEF);
	ck_assert_uint_eq(g.freecount, 0x01020304);
	ck_assert_uint_eq(g.holemask, 0);
	ck_assert_uint_eq(g.count, 64);
	ck_assert_uint_eq(g.free, 0x0123456789ABCDEFULL);
	/* The first record was not disturbed by the second. */
	xfsj_inobt_rec_get(blk, 1, &g, true);
	ck_assert_uint_eq(g.startino, 128);
	ck_assert_uint_eq(g.count, 32);
}
END_TEST

START_TEST(rmap_records)
{
	uint8_t blk[1024];
	struct xfsj_rmap_rec r, g;
	const uint64_t flags = XFSJ_RMAP_OFF_ATTR_FORK |
			       XFSJ_RMAP_OFF_BMBT_BLOCK |
			       XFSJ_RMAP_OFF_UNWRITTEN;

	ck_assert_uint_eq(XFSJ_RMAP_OFF_ATTR_FORK, 1ULL << 63);
	ck_assert_uint_eq(XFSJ_RMAP_OFF_BMBT_BLOCK, 1ULL << 62);
	ck_assert_uint_eq(XFSJ_RMAP_OFF_UNWRITTEN, 1ULL << 61);
	memset(blk, 0, sizeof(blk));
	r.startblock = 7;
	r.blockcount = 6;
	r.owner = XFSJ_RMAP_OWN_AG;
	r.offset = 0;
	xfsj_rmap_rec_put(blk, 0, &r);
	ck_assert_mem_eq(blk + 56, "\0\0\0\x07\0\0\0\x06"
			 "\xFF\xFF\xFF\xFF\xFF\xFF\xFF\xFB"
			 "\0\0\0\0\0\0\0\0", 24);
	r.startblock = 1000;
	r.blockcount = 1;
	r.owner = 131;
	r.offset = flags | 0x123456ULL;
	xfsj_rmap_rec_put(blk, 2, &r);
	/* bits 63..61 set in the first byte of the offset */
	ck_assert_uint_eq(blk[56 + 48 + 16], 0xE0);
	ck_assert_mem_eq(blk + 56 + 48 + 16, "\xE0\0\0\0\0\x12\x34\x56", 8);
	xfsj_rmap_rec_get(blk, 2, &g);
	ck_assert_uint_eq(g.startblock, 1000);
	ck_assert_uint_eq(g.blockcount, 1);
	ck_assert_uint_eq(g.owner, 131);
	ck_assert_uint_eq(g.offset, flags | 0x123456ULL);
	ck_assert(g.offset & XFSJ_RMAP_OFF_ATTR_FORK);
	ck_assert(g.offset & XFSJ_RMAP_OFF_BMBT_BLOCK);
	ck_assert(g.offset & XFSJ_RMAP_OFF_UNWRITTEN);
	/* One flag at a time lands on its own bit. */
	r.offset = XFSJ_RMAP_OFF_BMBT_BLOCK;
	xfsj_rmap_rec_put(blk, 1, &r);
	ck_assert_uint_eq(blk[56 + 24 + 16], 0x40);
	r.offset = XFSJ_RMAP_OFF_UNWRITTEN | 5;
	xfsj_rmap_rec_put(blk, 1, &r);
	ck_assert_uint_eq(blk[56 + 24 + 16], 0x20);
	ck_assert_uint_eq(blk[56 + 24 + 23], 5);
	xfsj_rmap_rec_get(blk, 0, &g);
	ck_assert_uint_eq(g.owner, XFSJ_RMAP_OWN_AG);
	ck_assert_uint_eq((int64_t)g.owner, -5);
}
END_TEST

START_TEST(refc_records)
{
	uint8_t blk[1024];
	struct xfsj_refc_rec r = { 0x80000010U, 4, 2 }, g;

	memset(blk, 0, sizeof(blk));
	xfsj_refc_rec_put(blk, 3, &r);
	ck_assert_mem_eq(blk + 56 + 36, "\x80\0\0\x10\0\0\0\x04\0\0\0\x02", 12);
	xfsj_refc_rec_get(blk, 3, &g);
	ck_assert_uint_eq(g.startblock, 0x80000010U);
	ck_assert_uint_eq(g.blockcount, 4);
	ck_assert_uint_eq(g.refcount, 2);
	xfsj_refc_rec_get(blk, 2, &g);
	ck_assert_uint_eq(g.startblock, 0);
	ck_assert_uint_eq(g.refcount, 0);
}
END_TEST

/* Random records round-trip through every codec. */
START_TEST(records_random_round_trip)
{
	uint8_t *blk = calloc(1, 4096);
	uint64_t x = 0x243F6A8885A308D3ULL;

	ck_assert_ptr_nonnull(blk);
	for (unsigned int i = 0; i < 500; i++) {
		struct xfsj_alloc_rec a, ag;
		struct xfsj_rmap_rec m, mg;
		struct xfsj_refc_rec c, cg;
		struct xfsj_inobt_rec n, ng;

		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		a.startblock = (uint32_t)(x >> 32);
		a.blockcount = (uint32_t)x;
		xfsj_alloc_rec_put(blk, i % 505, &a);
		xfsj_alloc_rec_get(blk, i % 505, &ag);
		ck_assert_mem_eq(&a, &ag, sizeof(a));

		m.startblock = (uint32_t)x;
		m.blockcount = (uint32_t)(x >> 17);
		m.owner = x;
		m.offset = ~x;
		xfsj_rmap_rec_put(blk, i % 168, &m);
		xfsj_rmap_rec_get(blk, i % 168, &mg);
		ck_assert_uint_eq(mg.startblock, m.startblock);
		ck_assert_uint_eq(mg.blockcount, m.blockcount);
		ck_assert_uint_eq(mg.owner, m.owner);
		ck_assert_uint_eq(mg.offset, m.offset);

		c.startblock = (uint32_t)(x >> 3);
		c.blockcount = (uint32_t)(x >> 29);
		c.refcount = (uint32_t)(x >> 40);
		xfsj_refc_rec_put(blk, i % 336, &c);
		xfsj_refc_rec_get(blk, i % 336, &cg);
		ck_assert_mem_eq(&c, &cg, sizeof(c));

		n.startino = (uint32_t)(x >> 5);
		n.holemask = (uint16_t)x;
		n.count = (uint8_t)(x >> 16);
		n.freecount = (uint8_t)(x >> 24);
		n.free = x ^ 0x5555555555555555ULL;
		xfsj_inobt_rec_put(blk, i % 252, &n, true);
		xfsj_inobt_rec_get(blk, i % 252, &ng, true);
		ck_assert_uint_eq(ng.startino, n.startino);
		ck_assert_uint_eq(ng.holemask, n.holemask);
		ck_assert_uint_eq(ng.count, n.count);
		ck_assert_uint_eq(ng.freecount, n.freecount);
		ck_assert_uint_eq(ng.free, n.free);
	}
	free(blk);
}
END_TEST

/* ---- headers and the verifier ---- */

static void vctx(struct xfsj_vctx *c, uint32_t blocksize)
{
	memset(c, 0, sizeof(*c));
	memcpy(c->uuid, fs_uuid, 16);
	c->sectsize = 512;
	c->blocksize = blocksize;
	c->inodesize = 512;
	c->agblocks = AGBLOCKS;
	c->agno = AGNO;
	c->features_ro_compat = 0xF;
	c->features_incompat = 0x2B;
}

/* daddr of AG block @agbno (4 KiB blocks: 8 sectors per block). */
static uint64_t daddr_of(uint32_t agbno, uint32_t blocksize)
{
	return ((uint64_t)AGNO * AGBLOCKS + agbno) * (blocksize / 512);
}

static void good_hdr(struct xfsj_sblock *h, enum xfsj_btnum bt, uint64_t daddr)
{
	memset(h, 0, sizeof(*h));
	h->magic = xfsj_btree_shape(bt)->magic;
	h->level = 0;
	h->numrecs = 2;
	h->leftsib = XFSJ_NULLAGBLOCK;
	h->rightsib = XFSJ_NULLAGBLOCK;
	h->blkno = daddr;
	memcpy(h->uuid, fs_uuid, 16);
	h->owner = AGNO;
}

static void build(uint8_t *blk, uint32_t bs, const struct xfsj_sblock *h)
{
	struct xfsj_alloc_rec r1 = { 13, 3 }, r2 = { 24, 65512 };

	memset(blk, 0, bs);
	xfsj_sblock_encode(h, blk);
	xfsj_alloc_rec_put(blk, 0, &r1);
	xfsj_alloc_rec_put(blk, 1, &r2);
	xfsj_btree_block_finish(blk, bs, false);
}

START_TEST(sblock_valid)
{
	static const uint32_t sizes[] = { 1024, 4096, 65536 };

	for (unsigned int k = 0; k < 3; k++) {
		uint32_t bs = sizes[k];
		uint8_t *blk = malloc(bs);
		uint64_t daddr = daddr_of(1, bs);
		struct xfsj_sblock h, back;
		struct xfsj_vctx c;
		struct xfsj_fault f;

		ck_assert_ptr_nonnull(blk);
		vctx(&c, bs);
		for (int bt = XFSJ_BT_BNO; bt <= XFSJ_BT_REFC; bt++) {
			good_hdr(&h, bt, daddr);
			build(blk, bs, &h);
			ck_assert(xfsj_cksum_ok(blk, bs, XFSJ_SBLOCK_CRC_OFF));
			memset(&f, 0, sizeof(f));
			ck_assert_int_eq(xfsj_sblock_verify(blk, bt, &c, daddr,
							    &f), 0);
			ck_assert_ptr_null(f.field);
			xfsj_sblock_decode(blk, &back);
			ck_assert_uint_eq(back.magic, h.magic);
			ck_assert_uint_eq(back.blkno, daddr);
			ck_assert_uint_eq(back.numrecs, 2);
			ck_assert_uint_eq(back.leftsib, XFSJ_NULLAGBLOCK);
			ck_assert_uint_eq(back.crc, xfsj_get_le32(blk + 52));
		}
		/* Full leaf and full node, siblings at the AG's edge. */
		good_hdr(&h, XFSJ_BT_RMAP, daddr);
		h.numrecs = xfsj_btree_maxrecs(XFSJ_BT_RMAP, bs, true);
		h.leftsib = 0;
		h.rightsib = AGBLOCKS - 1;
		build(blk, bs, &h);
		ck_assert_int_eq(xfsj_sblock_verify(blk, XFSJ_BT_RMAP, &c, daddr,
						    NULL), 0);
		h.level = 1;
		h.numrecs = xfsj_btree_maxrecs(XFSJ_BT_RMAP, bs, false);
		build(blk, bs, &h);
		ck_assert_int_eq(xfsj_sblock_verify(blk, XFSJ_BT_RMAP, &c, daddr,
						    NULL), 0);
		h.level = 15;
		build(blk, bs, &h);
		ck_assert_int_eq(xfsj_sblock_verify(blk, XFSJ_BT_RMAP, &c, daddr,
						    NULL), 0);
		free(blk);
	}
}
END_TEST

struct sblock_bad {
	const char *field;
	int err;
	void (*mutate)(struct xfsj_sblock *h);
	int64_t daddr_delta;	/* verify as if read from elsewhere */
};

#define SB_MUT(name, body) \
	static void name(struct xfsj_sblock *h) { body; }

SB_MUT(h_none, (void)h)
SB_MUT(h_magic, h->magic = XFSJ_CNT_MAGIC)
SB_MUT(h_magic_v4, h->magic = 0x41425442)	/* ABTB */
SB_MUT(h_uuid, h->uuid[7] ^= 0x20)
SB_MUT(h_blkno, h->blkno += 8)
SB_MUT(h_owner, h->owner = AGNO + 1)
SB_MUT(h_level, h->level = 16)
SB_MUT(h_numrecs_leaf, h->numrecs = 506)
SB_MUT(h_numrecs_node, { h->level = 1; h->numrecs = 337; })
SB_MUT(h_leftsib, h->leftsib = AGBLOCKS)
SB_MUT(h_rightsib, h->rightsib = AGBLOCKS + 100)

static const struct sblock_bad sblock_bads[] = {
	{ "magic", XFSJ_E_BADMAGIC, h_magic, 0 },
	{ "magic", XFSJ_E_BADMAGIC, h_magic_v4, 0 },
	{ "uuid", XFSJ_E_CORRUPT, h_uuid, 0 },
	{ "blkno", XFSJ_E_CORRUPT, h_blkno, 0 },
	{ "blkno", XFSJ_E_CORRUPT, h_none, 8 },	/* read from another block */
	{ "owner", XFSJ_E_CORRUPT, h_owner, 0 },
	{ "level", XFSJ_E_CORRUPT, h_level, 0 },
	{ "numrecs", XFSJ_E_CORRUPT, h_numrecs_leaf, 0 },
	{ "numrecs", XFSJ_E_CORRUPT, h_numrecs_node, 0 },
	{ "leftsib", XFSJ_E_CORRUPT, h_leftsib, 0 },
	{ "rightsib", XFSJ_E_CORRUPT, h_rightsib, 0 },
};
#define NSBLOCK_BADS (sizeof(sblock_bads) / sizeof(sblock_bads[0]))

START_TEST(sblock_rejections)
{
	const struct sblock_bad *b = &sblock_bads[_i];
	uint8_t *blk = malloc(4096);
	uint64_t daddr = daddr_of(1, 4096), at = daddr + b->daddr_delta;
	struct xfsj_sblock h;
	struct xfsj_vctx c;
	struct xfsj_fault f;
	int err, off;

	ck_assert_ptr_nonnull(blk);
	vctx(&c, 4096);
	good_hdr(&h, XFSJ_BT_BNO, daddr);
	b->mutate(&h);
	build(blk, 4096, &h);
	memset(&f, 0, sizeof(f));
	err = xfsj_sblock_verify(blk, XFSJ_BT_BNO, &c, at, &f);
	ck_assert_msg(err == -b->err, "%s: got %d (%s)", b->field, err,
		      xfsj_errname(err));
	ck_assert_int_eq(f.err, b->err);
	ck_assert_str_eq(f.structure, "bnobt");
	ck_assert_str_eq(f.field, b->field);
	off = xfsj_layout_offset(&xfsj_sblock_layout, b->field);
	ck_assert_int_ge(off, 0);
	ck_assert_uint_eq(f.offset, at * 512 + (uint64_t)off);
	free(blk);
}
END_TEST

START_TEST(sblock_crc_and_args)
{
	uint8_t *blk = malloc(4096);
	uint64_t daddr = daddr_of(5, 4096);
	struct xfsj_sblock h;
	struct xfsj_vctx c;
	struct xfsj_fault f;

	ck_assert_ptr_nonnull(blk);
	vctx(&c, 4096);
	good_hdr(&h, XFSJ_BT_INO, daddr);
	build(blk, 4096, &h);
	ck_assert_int_eq(xfsj_sblock_verify(blk, XFSJ_BT_INO, &c, daddr, NULL), 0);
	/* The CRC covers the whole block, its last byte included. */
	blk[4095] ^= 1;
	memset(&f, 0, sizeof(f));
	ck_assert_int_eq(xfsj_sblock_verify(blk, XFSJ_BT_INO, &c, daddr, &f),
			 -XFSJ_E_BADCRC);
	ck_assert_str_eq(f.field, "crc");
	ck_assert_str_eq(f.structure, "inobt");
	ck_assert_uint_eq(f.offset, daddr * 512 + 52);
	blk[4095] ^= 1;
	/* The right magic for another tree is still a bad magic. */
	ck_assert_int_eq(xfsj_sblock_verify(blk, XFSJ_BT_FINO, &c, daddr, NULL),
			 -XFSJ_E_BADMAGIC);
	/* Long-format trees and unknown trees are not short blocks. */
	ck_assert_int_eq(xfsj_sblock_verify(blk, XFSJ_BT_BMAP, &c, daddr, NULL),
			 -XFSJ_E_INVAL);
	ck_assert_int_eq(xfsj_sblock_verify(blk, XFSJ_BT__COUNT, &c, daddr,
					    NULL), -XFSJ_E_INVAL);
	free(blk);
}
END_TEST

START_TEST(lblock_codec)
{
	uint8_t *blk = calloc(1, 4096);
	struct xfsj_lblock h, g;

	ck_assert_ptr_nonnull(blk);
	memset(&h, 0, sizeof(h));
	h.magic = XFSJ_BMAP_MAGIC;
	h.level = 1;
	h.numrecs = 251;
	h.leftsib = XFSJ_NULLFSBLOCK;
	h.rightsib = 0x0000000100000020ULL;
	h.blkno = 123456;
	memcpy(h.uuid, fs_uuid, 16);
	h.owner = 131;
	xfsj_lblock_encode(&h, blk);
	ck_assert_mem_eq(blk, "BMA3", 4);
	ck_assert_mem_eq(blk + 8, "\xFF\xFF\xFF\xFF\xFF\xFF\xFF\xFF", 8);
	ck_assert_mem_eq(blk + 16, "\0\0\0\x01\0\0\0\x20", 8);
	ck_assert_mem_eq(blk + 56, "\0\0\0\0\0\0\0\x83", 8);
	xfsj_btree_block_finish(blk, 4096, true);
	ck_assert(xfsj_cksum_ok(blk, 4096, XFSJ_LBLOCK_CRC_OFF));
	ck_assert(!xfsj_cksum_ok(blk, 4096, XFSJ_SBLOCK_CRC_OFF));
	xfsj_lblock_decode(blk, &g);
	ck_assert_uint_eq(g.numrecs, 251);
	ck_assert_uint_eq(g.rightsib, h.rightsib);
	ck_assert_uint_eq(g.owner, 131);
	ck_assert_uint_eq(g.crc, xfsj_get_le32(blk + 64));
	ck_assert_uint_ne(g.crc, 0);
	free(blk);
}
END_TEST

Suite *btree_block_suite(void)
{
	Suite *s = suite_create("btree_block");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(tc, maxrecs, 0, NMAXRECS);
	tcase_add_test(tc, shapes);
	tcase_add_test(tc, by_magic);
	tcase_add_test(tc, alloc_records);
	tcase_add_test(tc, inobt_records);
	tcase_add_test(tc, rmap_records);
	tcase_add_test(tc, refc_records);
	tcase_add_test(tc, records_random_round_trip);
	tcase_add_test(tc, sblock_valid);
	tcase_add_loop_test(tc, sblock_rejections, 0, NSBLOCK_BADS);
	tcase_add_test(tc, sblock_crc_and_args);
	tcase_add_test(tc, lblock_codec);
	suite_add_tcase(s, tc);
	return s;
}
