/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * AGF, AGI and AGFL: encode/decode round trips and the verifiers, with
 * 512-byte and 4 KiB sectors (AGFL of 119 and 1015 slots).  Every rejection
 * checks the error, the field name and the device byte offset.
 */
#include <stdlib.h>
#include <string.h>

#include "suites.h"
#include "core/crc32c.h"
#include "xfsj/ondisk.h"

#define AGNO		2
#define AGBLOCKS	65536
/* Byte address of the AG's first sector (4 KiB blocks). */
#define AG_BYTE		((uint64_t)AGNO * AGBLOCKS * 4096)

static const uint8_t fs_uuid[16] = { 0xa5, 0xa5, 0x01, 0x02, 0x03, 0x04, 0x05,
				     0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c,
				     0x0d, 0x0e };

/* Loop index: 0 = 512-byte sectors, 1 = 4 KiB sectors. */
static uint32_t sect_of(int i)
{
	return i ? 4096 : 512;
}

static void vctx(struct xfsj_vctx *c, uint32_t sectsize)
{
	memset(c, 0, sizeof(*c));
	memcpy(c->uuid, fs_uuid, 16);
	c->sectsize = sectsize;
	c->blocksize = 4096;
	c->inodesize = 512;
	c->agblocks = AGBLOCKS;
	c->agno = AGNO;
	c->features_ro_compat = 0xF;
	c->features_incompat = 0x2B;
}

static void good_agf(struct xfsj_agf *a)
{
	memset(a, 0, sizeof(*a));
	a->magicnum = XFSJ_AGF_MAGIC;
	a->versionnum = 1;
	a->seqno = AGNO;
	a->length = AGBLOCKS;
	a->bno_root = 1;
	a->cnt_root = 2;
	a->rmap_root = 5;
	a->bno_level = 1;
	a->cnt_level = 1;
	a->rmap_level = 1;
	a->flfirst = 1;
	a->fllast = 6;
	a->flcount = 6;
	a->freeblks = 49139;
	a->longest = 49139;
	memcpy(a->uuid, fs_uuid, 16);
	a->rmap_blocks = 1;
	a->refcount_blocks = 1;
	a->refcount_root = 6;
	a->refcount_level = 1;
}

static void good_agi(struct xfsj_agi *a)
{
	memset(a, 0, sizeof(*a));
	a->magicnum = XFSJ_AGI_MAGIC;
	a->versionnum = 1;
	a->seqno = AGNO;
	a->length = AGBLOCKS;
	a->count = 64;
	a->root = 3;
	a->level = 1;
	a->freecount = 61;
	a->newino = 128;
	a->dirino = XFSJ_NULLAGINO;
	for (int i = 0; i < XFSJ_AGI_UNLINKED_BUCKETS; i++)
		a->unlinked[i] = XFSJ_NULLAGINO;
	memcpy(a->uuid, fs_uuid, 16);
	a->free_root = 4;
	a->free_level = 1;
	a->iblocks = 1;
	a->fblocks = 1;
}

static void expect_fault(int err, int want, const struct xfsj_fault *f,
			 const char *structure, const char *field, uint64_t off)
{
	ck_assert_msg(err == -want, "%s.%s: got %d (%s), want %d", structure,
		      field, err, xfsj_errname(err), -want);
	ck_assert_int_eq(f->err, want);
	ck_assert_ptr_nonnull(f->structure);
	ck_assert_str_eq(f->structure, structure);
	ck_assert_ptr_nonnull(f->field);
	ck_assert_msg(!strcmp(f->field, field), "field %s, want %s", f->field,
		      field);
	ck_assert_msg(f->offset == off, "%s: offset %llu, want %llu", field,
		      (unsigned long long)f->offset, (unsigned long long)off);
}

/* ---- AGF ---- */

START_TEST(agf_round_trip)
{
	uint32_t ss = sect_of(_i);
	uint8_t *buf = malloc(ss);
	struct xfsj_agf a, b;
	struct xfsj_vctx c;
	struct xfsj_fault f;

	ck_assert_ptr_nonnull(buf);
	vctx(&c, ss);
	good_agf(&a);
	memset(buf, 0x77, ss);
	xfsj_agf_encode(&a, buf, ss);
	ck_assert_mem_eq(buf, "XAGF", 4);
	ck_assert(xfsj_cksum_ok(buf, ss, XFSJ_AGF_CRC_OFF));
	for (uint32_t i = XFSJ_AGF_DISK_SIZE; i < ss; i++)
		ck_assert_uint_eq(buf[i], 0);
	ck_assert_uint_eq(xfsj_get_be32(buf + 52), 49139);
	memset(&f, 0, sizeof(f));
	ck_assert_int_eq(xfsj_agf_verify(buf, &c, AG_BYTE + ss, &f), 0);
	ck_assert_ptr_null(f.field);
	xfsj_agf_decode(buf, &b);
	ck_assert_uint_eq(b.freeblks, a.freeblks);
	ck_assert_uint_eq(b.refcount_root, 6);
	ck_assert_uint_eq(b.crc, xfsj_get_le32(buf + 216));
	ck_assert_mem_eq(b.uuid, fs_uuid, 16);
	/* Re-encoding the decoded header gives the same sector. */
	{
		uint8_t *again = malloc(ss);

		ck_assert_ptr_nonnull(again);
		xfsj_agf_encode(&b, again, ss);
		ck_assert_mem_eq(again, buf, ss);
		free(again);
	}
	/* Edge values that are still valid. */
	a.flfirst = xfsj_agfl_size(ss) - 1;
	a.fllast = xfsj_agfl_size(ss) - 1;
	a.flcount = xfsj_agfl_size(ss);
	a.longest = a.freeblks = AGBLOCKS;
	a.btreeblks = AGBLOCKS;
	xfsj_agf_encode(&a, buf, ss);
	ck_assert_int_eq(xfsj_agf_verify(buf, &c, 0, NULL), 0);
	/* Without rmapbt/reflink their levels are not looked at. */
	good_agf(&a);
	a.rmap_level = a.refcount_level = 0;
	a.rmap_root = a.refcount_root = 0;
	a.rmap_blocks = a.refcount_blocks = 0;
	xfsj_agf_encode(&a, buf, ss);
	c.features_ro_compat = XFSJ_RO_COMPAT_FINOBT;
	ck_assert_int_eq(xfsj_agf_verify(buf, &c, 0, NULL), 0);
	free(buf);
}
END_TEST

struct agf_bad {
	const char *field;
	int err;
	void (*mutate)(struct xfsj_agf *a, uint32_t flsize);
};

#define AGF_MUT(name, body) \
	static void name(struct xfsj_agf *a, uint32_t flsize) \
	{ (void)flsize; body; }

AGF_MUT(agf_magic, a->magicnum = XFSJ_AGI_MAGIC)
AGF_MUT(agf_uuid, a->uuid[15] ^= 1)
AGF_MUT(agf_version, a->versionnum = 2)
AGF_MUT(agf_seqno, a->seqno = AGNO + 1)
AGF_MUT(agf_length, a->length = AGBLOCKS - 1)
AGF_MUT(agf_flfirst, a->flfirst = flsize)
AGF_MUT(agf_fllast, a->fllast = flsize)
AGF_MUT(agf_flcount, a->flcount = flsize + 1)
AGF_MUT(agf_freeblks, { a->freeblks = AGBLOCKS + 1; a->longest = 10; })
AGF_MUT(agf_longest, { a->freeblks = 100; a->longest = 101; })
AGF_MUT(agf_bno_level, a->bno_level = 0)
AGF_MUT(agf_cnt_level, a->cnt_level = 17)
AGF_MUT(agf_bno_root, a->bno_root = 0)
AGF_MUT(agf_cnt_root, a->cnt_root = AGBLOCKS)
AGF_MUT(agf_rmap_level, a->rmap_level = 0)
AGF_MUT(agf_rmap_blocks, a->rmap_blocks = AGBLOCKS + 1)
AGF_MUT(agf_refc_level, a->refcount_level = 0)
AGF_MUT(agf_refc_blocks, a->refcount_blocks = AGBLOCKS + 1)
AGF_MUT(agf_btreeblks, a->btreeblks = AGBLOCKS + 1)

static const struct agf_bad agf_bads[] = {
	{ "magicnum", XFSJ_E_BADMAGIC, agf_magic },
	{ "uuid", XFSJ_E_CORRUPT, agf_uuid },
	{ "versionnum", XFSJ_E_CORRUPT, agf_version },
	{ "seqno", XFSJ_E_CORRUPT, agf_seqno },
	{ "length", XFSJ_E_CORRUPT, agf_length },
	{ "flfirst", XFSJ_E_CORRUPT, agf_flfirst },
	{ "fllast", XFSJ_E_CORRUPT, agf_fllast },
	{ "flcount", XFSJ_E_CORRUPT, agf_flcount },
	{ "freeblks", XFSJ_E_CORRUPT, agf_freeblks },
	{ "longest", XFSJ_E_CORRUPT, agf_longest },
	{ "bno_level", XFSJ_E_CORRUPT, agf_bno_level },
	{ "cnt_level", XFSJ_E_CORRUPT, agf_cnt_level },
	{ "bno_root", XFSJ_E_CORRUPT, agf_bno_root },
	{ "cnt_root", XFSJ_E_CORRUPT, agf_cnt_root },
	{ "rmap_level", XFSJ_E_CORRUPT, agf_rmap_level },
	{ "rmap_blocks", XFSJ_E_CORRUPT, agf_rmap_blocks },
	{ "refcount_level", XFSJ_E_CORRUPT, agf_refc_level },
	{ "refcount_blocks", XFSJ_E_CORRUPT, agf_refc_blocks },
	{ "btreeblks", XFSJ_E_CORRUPT, agf_btreeblks },
};
#define NAGF_BADS (sizeof(agf_bads) / sizeof(agf_bads[0]))

START_TEST(agf_rejections)
{
	for (int s = 0; s < 2; s++) {
		uint32_t ss = sect_of(s);
		uint8_t *buf = malloc(ss);
		uint64_t where = AG_BYTE + ss;	/* sector 1 of the AG */
		struct xfsj_vctx c;

		ck_assert_ptr_nonnull(buf);
		vctx(&c, ss);
		for (unsigned int k = 0; k < NAGF_BADS; k++) {
			const struct agf_bad *b = &agf_bads[k];
			struct xfsj_fault f;
			struct xfsj_agf a;
			int off;

			good_agf(&a);
			b->mutate(&a, xfsj_agfl_size(ss));
			xfsj_agf_encode(&a, buf, ss);
			memset(&f, 0, sizeof(f));
			off = xfsj_layout_offset(&xfsj_agf_layout, b->field);
			ck_assert_int_ge(off, 0);
			expect_fault(xfsj_agf_verify(buf, &c, where, &f), b->err,
				     &f, "AGF", b->field, where + (uint64_t)off);
		}
		free(buf);
	}
}
END_TEST

/* A flipped byte anywhere in the sector, or the wrong UUID, is caught. */
START_TEST(agf_crc_and_uuid)
{
	uint32_t ss = sect_of(_i);
	uint8_t *buf = malloc(ss);
	struct xfsj_vctx c;
	struct xfsj_fault f;
	struct xfsj_agf a;

	ck_assert_ptr_nonnull(buf);
	vctx(&c, ss);
	good_agf(&a);
	xfsj_agf_encode(&a, buf, ss);
	buf[ss - 1] ^= 0x01;
	memset(&f, 0, sizeof(f));
	expect_fault(xfsj_agf_verify(buf, &c, AG_BYTE + ss, &f), XFSJ_E_BADCRC,
		     &f, "AGF", "crc", AG_BYTE + ss + 216);
	buf[ss - 1] ^= 0x01;
	ck_assert_int_eq(xfsj_agf_verify(buf, &c, 0, NULL), 0);
	buf[60] ^= 0x80;
	ck_assert_int_eq(xfsj_agf_verify(buf, &c, 0, NULL), -XFSJ_E_BADCRC);
	buf[60] ^= 0x80;
	/* The verifier compares with the filesystem's uuid. */
	c.uuid[0] ^= 0xff;
	memset(&f, 0, sizeof(f));
	expect_fault(xfsj_agf_verify(buf, &c, AG_BYTE + ss, &f), XFSJ_E_CORRUPT,
		     &f, "AGF", "uuid", AG_BYTE + ss + 64);
	free(buf);
}
END_TEST

/* ---- AGI ---- */

START_TEST(agi_round_trip)
{
	uint32_t ss = sect_of(_i);
	uint8_t *buf = malloc(ss);
	struct xfsj_agi a, b;
	struct xfsj_vctx c;
	struct xfsj_fault f;

	ck_assert_ptr_nonnull(buf);
	vctx(&c, ss);
	good_agi(&a);
	a.unlinked[3] = 130;
	memset(buf, 0x55, ss);
	xfsj_agi_encode(&a, buf, ss);
	ck_assert_mem_eq(buf, "XAGI", 4);
	ck_assert(xfsj_cksum_ok(buf, ss, XFSJ_AGI_CRC_OFF));
	for (uint32_t i = XFSJ_AGI_DISK_SIZE; i < ss; i++)
		ck_assert_uint_eq(buf[i], 0);
	ck_assert_uint_eq(xfsj_get_be32(buf + 52), 130);
	ck_assert_uint_eq(xfsj_get_be32(buf + 40), XFSJ_NULLAGINO);
	memset(&f, 0, sizeof(f));
	ck_assert_int_eq(xfsj_agi_verify(buf, &c, AG_BYTE + 2 * ss, &f), 0);
	xfsj_agi_decode(buf, &b);
	ck_assert_uint_eq(b.unlinked[3], 130);
	ck_assert_uint_eq(b.unlinked[63], XFSJ_NULLAGINO);
	ck_assert_uint_eq(b.freecount, 61);
	ck_assert_uint_eq(b.fblocks, 1);
	/* The last agino of the AG is a valid bucket head. */
	a.unlinked[63] = AGBLOCKS * 8 - 1;
	xfsj_agi_encode(&a, buf, ss);
	ck_assert_int_eq(xfsj_agi_verify(buf, &c, 0, NULL), 0);
	/* Without finobt the free_* fields are not looked at. */
	good_agi(&a);
	a.free_root = a.free_level = 0;
	xfsj_agi_encode(&a, buf, ss);
	c.features_ro_compat = 0;
	ck_assert_int_eq(xfsj_agi_verify(buf, &c, 0, NULL), 0);
	free(buf);
}
END_TEST

struct agi_bad {
	const char *field;
	int err;
	void (*mutate)(struct xfsj_agi *a);
	int off;		/* -1: the field's own offset */
};

#define AGI_MUT(name, body) \
	static void name(struct xfsj_agi *a) { body; }

AGI_MUT(agi_magic, a->magicnum = XFSJ_AGF_MAGIC)
AGI_MUT(agi_uuid, a->uuid[3] ^= 4)
AGI_MUT(agi_version, a->versionnum = 0)
AGI_MUT(agi_seqno, a->seqno = 0)
AGI_MUT(agi_length, a->length = 1)
AGI_MUT(agi_level, a->level = 0)
AGI_MUT(agi_level_big, a->level = 17)
AGI_MUT(agi_root, a->root = 0)
AGI_MUT(agi_root_big, a->root = AGBLOCKS)
AGI_MUT(agi_freecount, a->freecount = 65)
AGI_MUT(agi_free_level, a->free_level = 0)
AGI_MUT(agi_free_root, a->free_root = AGBLOCKS + 7)
AGI_MUT(agi_bucket0_zero, a->unlinked[0] = 0)
AGI_MUT(agi_bucket3_zero, a->unlinked[3] = 0)
AGI_MUT(agi_bucket_beyond, a->unlinked[5] = AGBLOCKS * 8)
AGI_MUT(agi_bucket63_beyond, a->unlinked[63] = 0xFFFFFFFE)

static const struct agi_bad agi_bads[] = {
	{ "magicnum", XFSJ_E_BADMAGIC, agi_magic, -1 },
	{ "uuid", XFSJ_E_CORRUPT, agi_uuid, -1 },
	{ "versionnum", XFSJ_E_CORRUPT, agi_version, -1 },
	{ "seqno", XFSJ_E_CORRUPT, agi_seqno, -1 },
	{ "length", XFSJ_E_CORRUPT, agi_length, -1 },
	{ "level", XFSJ_E_CORRUPT, agi_level, -1 },
	{ "level", XFSJ_E_CORRUPT, agi_level_big, -1 },
	{ "root", XFSJ_E_CORRUPT, agi_root, -1 },
	{ "root", XFSJ_E_CORRUPT, agi_root_big, -1 },
	{ "freecount", XFSJ_E_CORRUPT, agi_freecount, -1 },
	{ "free_level", XFSJ_E_CORRUPT, agi_free_level, -1 },
	{ "free_root", XFSJ_E_CORRUPT, agi_free_root, -1 },
	{ "unlinked", XFSJ_E_CORRUPT, agi_bucket0_zero, 40 },
	{ "unlinked", XFSJ_E_CORRUPT, agi_bucket3_zero, 52 },
	{ "unlinked", XFSJ_E_CORRUPT, agi_bucket_beyond, 60 },
	{ "unlinked", XFSJ_E_CORRUPT, agi_bucket63_beyond, 40 + 63 * 4 },
};
#define NAGI_BADS (sizeof(agi_bads) / sizeof(agi_bads[0]))

START_TEST(agi_rejections)
{
	for (int s = 0; s < 2; s++) {
		uint32_t ss = sect_of(s);
		uint8_t *buf = malloc(ss);
		uint64_t where = AG_BYTE + 2 * ss;	/* sector 2 */
		struct xfsj_vctx c;

		ck_assert_ptr_nonnull(buf);
		vctx(&c, ss);
		for (unsigned int k = 0; k < NAGI_BADS; k++) {
			const struct agi_bad *b = &agi_bads[k];
			struct xfsj_fault f;
			struct xfsj_agi a;
			int off = b->off;

			good_agi(&a);
			b->mutate(&a);
			xfsj_agi_encode(&a, buf, ss);
			if (off < 0)
				off = xfsj_layout_offset(&xfsj_agi_layout,
							 b->field);
			ck_assert_int_ge(off, 0);
			memset(&f, 0, sizeof(f));
			expect_fault(xfsj_agi_verify(buf, &c, where, &f), b->err,
				     &f, "AGI", b->field, where + (uint64_t)off);
		}
		free(buf);
	}
}
END_TEST

START_TEST(agi_crc_and_uuid)
{
	uint32_t ss = sect_of(_i);
	uint8_t *buf = malloc(ss);
	struct xfsj_vctx c;
	struct xfsj_fault f;
	struct xfsj_agi a;

	ck_assert_ptr_nonnull(buf);
	vctx(&c, ss);
	good_agi(&a);
	xfsj_agi_encode(&a, buf, ss);
	buf[ss - 2] ^= 0x40;
	memset(&f, 0, sizeof(f));
	expect_fault(xfsj_agi_verify(buf, &c, 1024, &f), XFSJ_E_BADCRC, &f,
		     "AGI", "crc", 1024 + 312);
	buf[ss - 2] ^= 0x40;
	ck_assert_int_eq(xfsj_agi_verify(buf, &c, 0, NULL), 0);
	c.uuid[8] ^= 1;
	memset(&f, 0, sizeof(f));
	expect_fault(xfsj_agi_verify(buf, &c, 1024, &f), XFSJ_E_CORRUPT, &f,
		     "AGI", "uuid", 1024 + 296);
	free(buf);
}
END_TEST

/* ---- AGFL ---- */

static void good_agfl(struct xfsj_agfl_hdr *h, uint32_t *bno, uint32_t n)
{
	memset(h, 0, sizeof(*h));
	h->magicnum = XFSJ_AGFL_MAGIC;
	h->seqno = AGNO;
	memcpy(h->uuid, fs_uuid, 16);
	for (uint32_t i = 0; i < n; i++)
		bno[i] = XFSJ_NULLAGBLOCK;
	for (uint32_t i = 1; i <= 6; i++)
		bno[i] = 16390 + i;
}

START_TEST(agfl_sizes)
{
	ck_assert_uint_eq(xfsj_agfl_size(512), 119);
	ck_assert_uint_eq(xfsj_agfl_size(4096), 1015);
	ck_assert_uint_eq(xfsj_agfl_size(1024), 247);
	ck_assert_uint_eq(XFSJ_AGFL_HDR_SIZE, 36);
}
END_TEST

START_TEST(agfl_round_trip)
{
	uint32_t ss = sect_of(_i);
	uint32_t n = xfsj_agfl_size(ss);
	uint8_t *buf = malloc(ss);
	uint32_t *bno = malloc(n * sizeof(*bno));
	uint32_t *back = malloc(n * sizeof(*back));
	struct xfsj_agfl_hdr h, hb;
	struct xfsj_vctx c;
	struct xfsj_fault f;

	ck_assert_ptr_nonnull(buf);
	ck_assert_ptr_nonnull(bno);
	ck_assert_ptr_nonnull(back);
	vctx(&c, ss);
	good_agfl(&h, bno, n);
	bno[n - 1] = AGBLOCKS - 1;	/* the last slot is used and valid */
	xfsj_agfl_encode(&h, bno, buf, ss);
	ck_assert_mem_eq(buf, "XAFL", 4);
	ck_assert(xfsj_cksum_ok(buf, ss, XFSJ_AGFL_CRC_OFF));
	ck_assert_uint_eq(xfsj_get_be32(buf + 36), XFSJ_NULLAGBLOCK);
	ck_assert_uint_eq(xfsj_get_be32(buf + 40), 16391);
	ck_assert_uint_eq(xfsj_get_be32(buf + ss - 4), AGBLOCKS - 1);
	memset(&f, 0, sizeof(f));
	ck_assert_int_eq(xfsj_agfl_verify(buf, &c, AG_BYTE + 3 * ss, &f), 0);
	memset(back, 0, n * sizeof(*back));
	xfsj_agfl_decode(buf, ss, &hb, back);
	ck_assert_uint_eq(hb.magicnum, XFSJ_AGFL_MAGIC);
	ck_assert_uint_eq(hb.seqno, AGNO);
	ck_assert_mem_eq(hb.uuid, fs_uuid, 16);
	ck_assert_mem_eq(back, bno, n * sizeof(*bno));
	free(buf);
	free(bno);
	free(back);
}
END_TEST

START_TEST(agfl_rejections)
{
	uint32_t ss = sect_of(_i);
	uint32_t n = xfsj_agfl_size(ss);
	uint8_t *buf = malloc(ss);
	uint32_t *bno = malloc(n * sizeof(*bno));
	uint64_t where = AG_BYTE + 3 * ss;
	struct xfsj_agfl_hdr h;
	struct xfsj_vctx c;
	struct xfsj_fault f;

	ck_assert_ptr_nonnull(buf);
	ck_assert_ptr_nonnull(bno);
	vctx(&c, ss);

	/* An entry beyond the AG, in the first and in the last slot. */
	good_agfl(&h, bno, n);
	bno[0] = AGBLOCKS;
	xfsj_agfl_encode(&h, bno, buf, ss);
	memset(&f, 0, sizeof(f));
	expect_fault(xfsj_agfl_verify(buf, &c, where, &f), XFSJ_E_CORRUPT, &f,
		     "AGFL", "bno", where + 36);
	ck_assert_uint_eq(f.value, AGBLOCKS);
	good_agfl(&h, bno, n);
	bno[n - 1] = 0xFFFFFFFE;
	xfsj_agfl_encode(&h, bno, buf, ss);
	memset(&f, 0, sizeof(f));
	expect_fault(xfsj_agfl_verify(buf, &c, where, &f), XFSJ_E_CORRUPT, &f,
		     "AGFL", "bno", where + 36 + 4 * (n - 1));
	/* The same block is fine in a bigger AG. */
	c.agblocks = 0xFFFFFFFF;
	ck_assert_int_eq(xfsj_agfl_verify(buf, &c, where, NULL), 0);
	vctx(&c, ss);

	good_agfl(&h, bno, n);
	h.seqno = AGNO + 1;
	xfsj_agfl_encode(&h, bno, buf, ss);
	memset(&f, 0, sizeof(f));
	expect_fault(xfsj_agfl_verify(buf, &c, where, &f), XFSJ_E_CORRUPT, &f,
		     "AGFL", "seqno", where + 4);

	good_agfl(&h, bno, n);
	h.magicnum = XFSJ_AGF_MAGIC;
	xfsj_agfl_encode(&h, bno, buf, ss);
	memset(&f, 0, sizeof(f));
	expect_fault(xfsj_agfl_verify(buf, &c, where, &f), XFSJ_E_BADMAGIC, &f,
		     "AGFL", "magicnum", where);

	good_agfl(&h, bno, n);
	h.uuid[0] = 0;
	xfsj_agfl_encode(&h, bno, buf, ss);
	memset(&f, 0, sizeof(f));
	expect_fault(xfsj_agfl_verify(buf, &c, where, &f), XFSJ_E_CORRUPT, &f,
		     "AGFL", "uuid", where + 8);

	good_agfl(&h, bno, n);
	xfsj_agfl_encode(&h, bno, buf, ss);
	buf[ss - 1] ^= 0x02;	/* inside the last slot: CRC must cover it */
	memset(&f, 0, sizeof(f));
	expect_fault(xfsj_agfl_verify(buf, &c, where, &f), XFSJ_E_BADCRC, &f,
		     "AGFL", "crc", where + 32);
	free(buf);
	free(bno);
}
END_TEST

Suite *ag_headers_suite(void)
{
	Suite *s = suite_create("ag_headers");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(tc, agf_round_trip, 0, 2);
	tcase_add_test(tc, agf_rejections);
	tcase_add_loop_test(tc, agf_crc_and_uuid, 0, 2);
	tcase_add_loop_test(tc, agi_round_trip, 0, 2);
	tcase_add_test(tc, agi_rejections);
	tcase_add_loop_test(tc, agi_crc_and_uuid, 0, 2);
	tcase_add_test(tc, agfl_sizes);
	tcase_add_loop_test(tc, agfl_round_trip, 0, 2);
	tcase_add_loop_test(tc, agfl_rejections, 0, 2);
	suite_add_tcase(s, tc);
	return s;
}
