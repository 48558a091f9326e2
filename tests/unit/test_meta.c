/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Metadata kinds by magic (ondisk/meta.c): every v5 kind the kernel's
 * buffer LSN rule knows, with the LSN and UUID offsets written out here
 * from the format notes (shared/reference/xfs-log.md §9.1 and
 * xfs-format.md), not taken from the library; the "no LSN" cases; the
 * superblock of a filesystem whose UUID was changed (META_UUID); short
 * and hostile buffers; re-stamping the LSN and the CRC over the right
 * span, checked bit by bit against a CRC-32C written here.
 */
#include <stdlib.h>
#include <string.h>

#include "suites.h"
#include "core/layout.h"
#include "ondisk/meta.h"

#define BS	4096
#define SECT	512

static const uint8_t FS_UUID[16] = {
	1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
};

/* The notes' table: magic, its size and offset, LSN, UUID and CRC. */
static const struct {
	const char *what;
	uint32_t magic;
	unsigned int moff, msize, lsn, uuid, crc;
	bool sector;
} known[] = {
	{ "XFSB", 0x58465342, 0, 4, 240, 32, 224, true },
	{ "XAGF", 0x58414746, 0, 4, 208, 64, 216, true },
	{ "XAGI", 0x58414749, 0, 4, 320, 296, 312, true },
	{ "XAFL", 0x5841464c, 0, 4, 24, 8, 32, true },
	{ "AB3B", 0x41423342, 0, 4, 24, 32, 52, false },
	{ "AB3C", 0x41423343, 0, 4, 24, 32, 52, false },
	{ "IAB3", 0x49414233, 0, 4, 24, 32, 52, false },
	{ "FIB3", 0x46494233, 0, 4, 24, 32, 52, false },
	{ "RMB3", 0x524d4233, 0, 4, 24, 32, 52, false },
	{ "R3FC", 0x52334643, 0, 4, 24, 32, 52, false },
	{ "BMA3", 0x424d4133, 0, 4, 32, 40, 64, false },
	{ "XSLM", 0x58534c4d, 0, 4, 48, 16, 12, false },
	{ "XDB3", 0x58444233, 0, 4, 16, 24, 4, false },
	{ "XDD3", 0x58444433, 0, 4, 16, 24, 4, false },
	{ "XDF3", 0x58444633, 0, 4, 16, 24, 4, false },
	{ "XDL1", 0x3df1, 8, 2, 24, 32, 12, false },
	{ "XDN3", 0x3dff, 8, 2, 24, 32, 12, false },
	{ "XDA3", 0x3ebe, 8, 2, 24, 32, 12, false },
	{ "XAL3", 0x3bee, 8, 2, 24, 32, 12, false },
};
#define NKNOWN	(sizeof(known) / sizeof(known[0]))

/* CRC-32C bit by bit, the CRC field counted as zero, stored LE. */
static bool crc_ok(const uint8_t *p, size_t len, size_t crc_off)
{
	uint32_t crc = ~0U;

	for (size_t i = 0; i < len; i++) {
		crc ^= (i >= crc_off && i < crc_off + 4) ? 0 : p[i];
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0x82f63b78U & (0U - (crc & 1)));
	}
	crc = ~crc;
	return p[crc_off] == (uint8_t)crc && p[crc_off + 1] == (uint8_t)(crc >> 8) &&
	       p[crc_off + 2] == (uint8_t)(crc >> 16) &&
	       p[crc_off + 3] == (uint8_t)(crc >> 24);
}

/* A block of kind @k (by index into known[]), of @fill, LSN @lsn. */
static void make(uint8_t *b, size_t len, unsigned int k, uint64_t lsn,
		 uint8_t fill)
{
	memset(b, fill, len);
	if (known[k].msize == 4)
		xfsj_put_be32(b + known[k].moff, known[k].magic);
	else
		xfsj_put_be16(b + known[k].moff, (uint16_t)known[k].magic);
	xfsj_put_be64(b + known[k].lsn, lsn);
	memcpy(b + known[k].uuid, FS_UUID, 16);
	if (k == 0)		/* no META_UUID in the superblock's features */
		xfsj_put_be32(b + 216, 0);
}

START_TEST(every_kind_by_magic)
{
	static uint8_t b[BS];

	for (unsigned int k = 0; k < NKNOWN; k++) {
		struct xfsj_meta_kind kind, *mk = &kind;

		make(b, BS, k, 0x0000000500000123ULL, 0);
		ck_assert_msg(xfsj_meta_identify(b, BS, mk),
			      "%s not identified", known[k].what);
		ck_assert_int_eq(mk->lsn_off, known[k].lsn);
		ck_assert_int_eq(mk->uuid_off, known[k].uuid);
		ck_assert_int_eq(mk->crc_off, known[k].crc);
		ck_assert(!mk->per_block);
		ck_assert_uint_eq(xfsj_meta_lsn(b, BS, FS_UUID),
				  0x0000000500000123ULL);
		/* A block of another filesystem: its LSN means nothing. */
		b[known[k].uuid + 15] ^= 1;
		ck_assert_uint_eq(xfsj_meta_lsn(b, BS, FS_UUID), 0);
	}
}
END_TEST

/* Kinds without the LSN rule, and contents that are no metadata. */
START_TEST(no_lsn)
{
	static uint8_t b[BS];
	static const uint32_t others[] = {
		0x494e0000,	/* "IN" inode cluster */
		0x44510000,	/* "DQ" dquot */
		0x41425442,	/* ABTB: the v4 bnobt has no LSN */
		0x424d4150,	/* BMAP: nor the v4 bmbt */
		0,
	};
	struct xfsj_meta_kind kind, *mk = &kind;

	/* Remote attribute values: a header per block, always replayed. */
	memset(b, 0, BS);
	xfsj_put_be32(b, 0x5841524d);
	memcpy(b + 16, FS_UUID, 16);
	xfsj_put_be64(b + 48, 77);
	ck_assert(xfsj_meta_identify(b, BS, mk));
	ck_assert(mk->per_block);
	ck_assert_uint_eq(xfsj_meta_lsn(b, BS, FS_UUID), 0);

	for (unsigned int i = 0; i < sizeof(others) / sizeof(others[0]); i++) {
		memset(b, 0x11, BS);
		xfsj_put_be32(b, others[i]);
		xfsj_put_be16(b + 8, 0);
		memcpy(b + 32, FS_UUID, 16);
		ck_assert(!xfsj_meta_identify(b, BS, mk));
		ck_assert_uint_eq(xfsj_meta_lsn(b, BS, FS_UUID), 0);
	}
}
END_TEST

/*
 * A filesystem whose UUID was changed (incompat META_UUID, bit 2): its
 * metadata keeps the original UUID, which the superblock holds in
 * sb_meta_uuid (248), while sb_uuid (32) is the new one.  The kernel
 * compares the superblock's sb_meta_uuid then.
 */
START_TEST(superblock_meta_uuid)
{
	static uint8_t b[SECT];

	make(b, SECT, 0, 0x0000000700000040ULL, 0);
	memset(b + 32, 0xee, 16);		/* the new, user-visible one */
	memcpy(b + 248, FS_UUID, 16);
	xfsj_put_be32(b + 216, 1U << 2);
	ck_assert_uint_eq(xfsj_meta_lsn(b, SECT, FS_UUID),
			  0x0000000700000040ULL);
	/* Without the feature bit sb_uuid is what counts. */
	xfsj_put_be32(b + 216, 0);
	ck_assert_uint_eq(xfsj_meta_lsn(b, SECT, FS_UUID), 0);
	memcpy(b + 32, FS_UUID, 16);
	ck_assert_uint_eq(xfsj_meta_lsn(b, SECT, FS_UUID),
			  0x0000000700000040ULL);
}
END_TEST

/* Buffers too short for the fields their magic promises: no overread. */
START_TEST(short_buffers)
{
	for (unsigned int k = 0; k < NKNOWN; k++) {
		size_t need = known[k].uuid + 16 > known[k].lsn + 8 ?
			      known[k].uuid + 16 : known[k].lsn + 8;
		uint8_t *b = malloc(need);
		uint8_t *copy = malloc(need - 1);

		ck_assert_ptr_nonnull(b);
		ck_assert_ptr_nonnull(copy);
		make(b, need, k, 99, 0);
		ck_assert_uint_eq(xfsj_meta_lsn(b, need, FS_UUID), 99);
		/* One byte short: "no LSN" rather than a read past it. */
		memcpy(copy, b, need - 1);
		ck_assert_uint_eq(xfsj_meta_lsn(copy, need - 1, FS_UUID), 0);
		free(b);
		free(copy);
	}
	/* A 16-bit da magic needs 10 bytes; a 4-byte buffer has none. */
	uint8_t *tiny = malloc(9);
	struct xfsj_meta_kind kind;

	ck_assert_ptr_nonnull(tiny);
	memset(tiny, 0, 9);
	xfsj_put_be16(tiny + 7, 0x3bee);
	ck_assert(!xfsj_meta_identify(tiny, 9, &kind));
	ck_assert(!xfsj_meta_identify(tiny, 0, &kind));
	free(tiny);
}
END_TEST

/*
 * Stamping: the LSN big-endian at the kind's offset, the CRC over the
 * sector for AG headers and superblocks and over the whole buffer for
 * blocks; nothing else changes.
 */
START_TEST(stamp_spans)
{
	static uint8_t b[BS], before[BS];

	for (unsigned int k = 0; k < NKNOWN; k++) {
		size_t span = known[k].sector ? SECT : BS;

		make(b, BS, k, 5, 0x3c);
		memcpy(before, b, BS);
		xfsj_meta_stamp(b, BS, 0x0000000900000200ULL, SECT, BS, 512);
		ck_assert_uint_eq(xfsj_get_be64(b + known[k].lsn),
				  0x0000000900000200ULL);
		ck_assert_msg(crc_ok(b, span, known[k].crc), "%s crc",
			      known[k].what);
		for (size_t i = 0; i < BS; i++) {
			if (i >= known[k].lsn && i < known[k].lsn + 8)
				continue;
			if (i >= known[k].crc && i < known[k].crc + 4)
				continue;
			ck_assert_msg(b[i] == before[i], "%s: byte %zu changed",
				      known[k].what, i);
		}
	}
}
END_TEST

/* Remote value blocks: every block's CRC, the all-ones LSN kept. */
START_TEST(stamp_remote_blocks)
{
	size_t bs = 1024;
	uint8_t *b = malloc(4 * bs);

	ck_assert_ptr_nonnull(b);
	memset(b, 0x5a, 4 * bs);
	for (unsigned int i = 0; i < 3; i++) {
		xfsj_put_be32(b + i * bs, 0x5841524d);
		xfsj_put_be64(b + i * bs + 48, UINT64_MAX);
	}
	/* The fourth is not a remote block: the walk stops before it. */
	xfsj_meta_stamp(b, 4 * bs, 0x0000000200000010ULL, SECT, (uint32_t)bs,
			512);
	for (unsigned int i = 0; i < 3; i++) {
		ck_assert(crc_ok(b + i * bs, bs, 12));
		ck_assert_uint_eq(xfsj_get_be64(b + i * bs + 48), UINT64_MAX);
	}
	ck_assert_uint_eq(xfsj_get_be32(b + 3 * bs + 12), 0x5a5a5a5a);
	free(b);
}
END_TEST

/* Unknown contents and spans past the buffer: left alone. */
START_TEST(stamp_leaves_alone)
{
	static uint8_t b[BS], before[BS];

	memset(b, 0x21, BS);
	memcpy(before, b, BS);
	xfsj_meta_stamp(b, BS, 1, SECT, BS, 512);
	ck_assert(memcmp(b, before, BS) == 0);
	/* An AGI in a 512-byte buffer with 4096-byte sectors. */
	make(b, SECT, 2, 5, 0);
	memcpy(before, b, SECT);
	xfsj_meta_stamp(b, SECT, 1, BS, BS, 512);
	ck_assert(memcmp(b, before, SECT) == 0);
	/* An AGI whose LSN lies past the 256-byte buffer it came in. */
	memset(b, 0, 256);
	xfsj_put_be32(b, 0x58414749);
	memcpy(before, b, 256);
	xfsj_meta_stamp(b, 256, 1, 256, BS, 512);
	ck_assert(memcmp(b, before, 256) == 0);
}
END_TEST

Suite *meta_suite(void)
{
	Suite *s = suite_create("meta");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, every_kind_by_magic);
	tcase_add_test(tc, no_lsn);
	tcase_add_test(tc, superblock_meta_uuid);
	tcase_add_test(tc, short_buffers);
	tcase_add_test(tc, stamp_spans);
	tcase_add_test(tc, stamp_remote_blocks);
	tcase_add_test(tc, stamp_leaves_alone);
	suite_add_tcase(s, tc);
	return s;
}
