/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The table-driven codecs: every layout round-trips, fields sit big-endian
 * (CRCs little-endian) at the offsets of the format reference, names map
 * to offsets, and the field tables tile the structures without overlap.
 */
#include <stdlib.h>
#include <string.h>

#include "suites.h"
#include "ondisk/format.h"
#include "xfsj/ondisk.h"

struct layout_case {
	const struct xfsj_layout *l;
	size_t host_size;
};

static const struct layout_case layouts[] = {
	{ &xfsj_sb_layout, sizeof(struct xfsj_sb) },
	{ &xfsj_agf_layout, sizeof(struct xfsj_agf) },
	{ &xfsj_agi_layout, sizeof(struct xfsj_agi) },
	{ &xfsj_agfl_layout, sizeof(struct xfsj_agfl_hdr) },
	{ &xfsj_sblock_layout, sizeof(struct xfsj_sblock) },
	{ &xfsj_lblock_layout, sizeof(struct xfsj_lblock) },
	{ &xfsj_dinode_layout, sizeof(struct xfsj_dinode) },
	{ &xfsj_logrec_layout, sizeof(struct xfsj_logrec) },
};
#define NLAYOUTS (sizeof(layouts) / sizeof(layouts[0]))

static unsigned int kind_size(uint8_t kind)
{
	switch (kind) {
	case XFSJ_K_U8:		return XFSJ_KSZ_U8;
	case XFSJ_K_U16:	return XFSJ_KSZ_U16;
	case XFSJ_K_U32:	return XFSJ_KSZ_U32;
	case XFSJ_K_U64:	return XFSJ_KSZ_U64;
	case XFSJ_K_UUID:	return XFSJ_KSZ_UUID;
	case XFSJ_K_NAME12:	return XFSJ_KSZ_NAME12;
	case XFSJ_K_CRC:	return XFSJ_KSZ_CRC;
	case XFSJ_K_U32A64:	return XFSJ_KSZ_U32A64;
	}
	return 0;
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint8_t rnd8(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (uint8_t)(rng_state >> 24);
}

static void fill_random(void *p, size_t n)
{
	uint8_t *b = p;

	for (size_t i = 0; i < n; i++)
		b[i] = rnd8();
}

/* Random host values -> encode -> decode gives the same values and bytes. */
START_TEST(host_round_trip)
{
	const struct layout_case *lc = &layouts[_i];
	const struct xfsj_layout *l = lc->l;

	for (int iter = 0; iter < 50; iter++) {
		uint8_t *h1 = malloc(lc->host_size);
		uint8_t *h2 = malloc(lc->host_size);
		uint8_t *d1 = calloc(1, l->size);
		uint8_t *d2 = calloc(1, l->size);

		ck_assert_ptr_nonnull(h1);
		ck_assert_ptr_nonnull(h2);
		ck_assert_ptr_nonnull(d1);
		ck_assert_ptr_nonnull(d2);
		fill_random(h1, lc->host_size);
		memset(h2, 0, lc->host_size);
		xfsj_layout_encode(l, h1, d1);
		xfsj_layout_decode(l, d1, h2);
		for (unsigned int i = 0; i < l->nfields; i++) {
			const struct xfsj_field *f = &l->fields[i];

			ck_assert_msg(!memcmp(h1 + f->host_off, h2 + f->host_off,
					      kind_size(f->kind)),
				      "%s.%s does not round-trip", l->name,
				      f->name);
		}
		xfsj_layout_encode(l, h2, d2);
		ck_assert_mem_eq(d1, d2, l->size);
		free(h1);
		free(h2);
		free(d1);
		free(d2);
	}
}
END_TEST

/* Random disk bytes -> decode -> encode gives the field bytes back. */
START_TEST(disk_round_trip)
{
	const struct layout_case *lc = &layouts[_i];
	const struct xfsj_layout *l = lc->l;
	uint8_t *d1 = malloc(l->size), *d2 = malloc(l->size);
	uint8_t *h = malloc(lc->host_size);
	uint8_t *covered = calloc(1, l->size);

	ck_assert_ptr_nonnull(d1);
	ck_assert_ptr_nonnull(d2);
	ck_assert_ptr_nonnull(h);
	ck_assert_ptr_nonnull(covered);
	for (unsigned int i = 0; i < l->nfields; i++)
		memset(covered + l->fields[i].disk_off, 1,
		       kind_size(l->fields[i].kind));
	for (int iter = 0; iter < 50; iter++) {
		fill_random(d1, l->size);
		memset(d2, 0xEE, l->size);
		xfsj_layout_decode(l, d1, h);
		xfsj_layout_encode(l, h, d2);
		for (unsigned int b = 0; b < l->size; b++) {
			if (covered[b])
				ck_assert_msg(d1[b] == d2[b],
					      "%s byte %u changed", l->name, b);
			else	/* padding is left alone */
				ck_assert_msg(d2[b] == 0xEE,
					      "%s pad byte %u written", l->name,
					      b);
		}
	}
	free(d1);
	free(d2);
	free(h);
	free(covered);
}
END_TEST

/* Fields inside the structure, no overlap, host members inside the host. */
START_TEST(fields_cover_without_overlap)
{
	const struct layout_case *lc = &layouts[_i];
	const struct xfsj_layout *l = lc->l;
	uint8_t *used = calloc(1, l->size);
	unsigned int sum = 0;

	ck_assert_ptr_nonnull(used);
	ck_assert_uint_gt(l->nfields, 0);
	ck_assert_ptr_nonnull(l->name);
	for (unsigned int i = 0; i < l->nfields; i++) {
		const struct xfsj_field *f = &l->fields[i];
		unsigned int sz = kind_size(f->kind);

		ck_assert_uint_gt(sz, 0);
		ck_assert_uint_le(f->disk_off + sz, l->size);
		ck_assert_uint_le(f->host_off + sz, lc->host_size);
		for (unsigned int b = f->disk_off; b < f->disk_off + sz; b++) {
			ck_assert_msg(!used[b], "%s.%s overlaps at %u", l->name,
				      f->name, b);
			used[b] = 1;
		}
		sum += sz;
		/* Names are unique, so the name lookup finds this field. */
		ck_assert_int_eq(xfsj_layout_offset(l, f->name), f->disk_off);
	}
	ck_assert_uint_le(sum, l->size);
	free(used);
}
END_TEST

START_TEST(known_sizes)
{
	ck_assert_uint_eq(xfsj_sb_layout.size, 304);
	ck_assert_uint_eq(xfsj_agf_layout.size, 224);
	ck_assert_uint_eq(xfsj_agi_layout.size, 344);
	ck_assert_uint_eq(xfsj_agfl_layout.size, 36);
	ck_assert_uint_eq(xfsj_sblock_layout.size, 56);
	ck_assert_uint_eq(xfsj_lblock_layout.size, 72);
	ck_assert_uint_eq(xfsj_dinode_layout.size, 176);
	ck_assert_uint_eq(xfsj_logrec_layout.size, 324);
	/* Every layout but the AGF (spare64) and the superblock (pad0)
	 * and the inode (pad2) is tiled completely by its fields. */
	for (unsigned int k = 0; k < NLAYOUTS; k++) {
		const struct xfsj_layout *l = layouts[k].l;
		unsigned int sum = 0;

		for (unsigned int i = 0; i < l->nfields; i++)
			sum += kind_size(l->fields[i].kind);
		if (l == &xfsj_agf_layout)
			ck_assert_uint_eq(sum, 224 - 112);
		else if (l == &xfsj_sb_layout)
			ck_assert_uint_eq(sum, 304 - 7);
		else if (l == &xfsj_dinode_layout)
			ck_assert_uint_eq(sum, 176 - 12);
		else
			ck_assert_uint_eq(sum, l->size);
	}
}
END_TEST

START_TEST(offset_names)
{
	ck_assert_int_eq(xfsj_layout_offset(&xfsj_sb_layout, "magicnum"), 0);
	ck_assert_int_eq(xfsj_layout_offset(&xfsj_sb_layout, "blocksize"), 4);
	ck_assert_int_eq(xfsj_layout_offset(&xfsj_sb_layout, "versionnum"), 100);
	ck_assert_int_eq(xfsj_layout_offset(&xfsj_sb_layout, "agblklog"), 124);
	ck_assert_int_eq(xfsj_layout_offset(&xfsj_sb_layout, "crc"), 224);
	ck_assert_int_eq(xfsj_layout_offset(&xfsj_sb_layout, "rtreserved"), 296);
	ck_assert_int_eq(xfsj_layout_offset(&xfsj_agf_layout, "freeblks"), 52);
	ck_assert_int_eq(xfsj_layout_offset(&xfsj_agf_layout, "lsn"), 208);
	ck_assert_int_eq(xfsj_layout_offset(&xfsj_agf_layout, "crc"), 216);
	ck_assert_int_eq(xfsj_layout_offset(&xfsj_agi_layout, "unlinked"), 40);
	ck_assert_int_eq(xfsj_layout_offset(&xfsj_agi_layout, "uuid"), 296);
	ck_assert_int_eq(xfsj_layout_offset(&xfsj_agi_layout, "fblocks"), 340);
	ck_assert_int_eq(xfsj_layout_offset(&xfsj_agfl_layout, "crc"), 32);
	ck_assert_int_eq(xfsj_layout_offset(&xfsj_sblock_layout, "owner"), 48);
	ck_assert_int_eq(xfsj_layout_offset(&xfsj_lblock_layout, "owner"), 56);
	ck_assert_int_eq(xfsj_layout_offset(&xfsj_lblock_layout, "crc"), 64);
	ck_assert_int_eq(xfsj_layout_offset(&xfsj_dinode_layout, "gen"), 92);
	ck_assert_int_eq(xfsj_layout_offset(&xfsj_dinode_layout, "ino"), 152);
	ck_assert_int_eq(xfsj_layout_offset(&xfsj_logrec_layout, "size"), 320);
	ck_assert_int_eq(xfsj_layout_offset(&xfsj_logrec_layout, "fs_uuid"), 304);
	/* Unknown names, padding and prefixed names are not fields. */
	ck_assert_int_eq(xfsj_layout_offset(&xfsj_sb_layout, "nosuch"), -1);
	ck_assert_int_eq(xfsj_layout_offset(&xfsj_sb_layout, "pad0"), -1);
	ck_assert_int_eq(xfsj_layout_offset(&xfsj_agf_layout, "spare64"), -1);
	ck_assert_int_eq(xfsj_layout_offset(&xfsj_sb_layout, "sb_blocksize"), -1);
	ck_assert_int_eq(xfsj_layout_offset(&xfsj_sb_layout, ""), -1);
}
END_TEST

START_TEST(big_endian_at_offsets)
{
	struct xfsj_sb sb;
	struct xfsj_agf agf;
	struct xfsj_agi agi;
	struct xfsj_dinode di;
	struct xfsj_sblock sbk;
	struct xfsj_lblock lbk;
	uint8_t d[512];
	static const uint8_t uuid[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11,
					  12, 13, 14, 15, 16 };

	memset(&sb, 0, sizeof(sb));
	sb.magicnum = XFSJ_SB_MAGIC;
	sb.blocksize = 4096;
	sb.dblocks = 0x0102030405060708ULL;
	sb.versionnum = 0xB4A5;
	sb.blocklog = 12;
	sb.crc = 0x11223344;
	memcpy(sb.uuid, uuid, 16);
	memcpy(sb.fname, "label-12char", 12);
	memset(d, 0, sizeof(d));
	xfsj_layout_encode(&xfsj_sb_layout, &sb, d);
	ck_assert_mem_eq(d, "XFSB", 4);
	ck_assert_mem_eq(d + 4, "\x00\x00\x10\x00", 4);
	ck_assert_mem_eq(d + 8, "\x01\x02\x03\x04\x05\x06\x07\x08", 8);
	ck_assert_mem_eq(d + 32, uuid, 16);
	ck_assert_mem_eq(d + 100, "\xB4\xA5", 2);
	ck_assert_mem_eq(d + 108, "label-12char", 12);
	ck_assert_uint_eq(d[120], 12);
	/* The CRC is little-endian. */
	ck_assert_mem_eq(d + 224, "\x44\x33\x22\x11", 4);

	memset(&agf, 0, sizeof(agf));
	agf.freeblks = 0xA1B2C3D4;
	agf.crc = 0xDEADBEEF;
	memset(d, 0, sizeof(d));
	xfsj_layout_encode(&xfsj_agf_layout, &agf, d);
	ck_assert_mem_eq(d + 52, "\xA1\xB2\xC3\xD4", 4);
	ck_assert_mem_eq(d + 216, "\xEF\xBE\xAD\xDE", 4);

	memset(&agi, 0, sizeof(agi));
	agi.unlinked[3] = 0x00012345;
	agi.unlinked[63] = 0xFFFFFFFE;
	memset(d, 0, sizeof(d));
	xfsj_layout_encode(&xfsj_agi_layout, &agi, d);
	ck_assert_mem_eq(d + 52, "\x00\x01\x23\x45", 4);
	ck_assert_mem_eq(d + 40 + 63 * 4, "\xFF\xFF\xFF\xFE", 4);
	ck_assert_mem_eq(d + 48, "\x00\x00\x00\x00", 4);

	memset(&di, 0, sizeof(di));
	di.magic = XFSJ_DINODE_MAGIC;
	di.gen = 0x0A0B0C0D;
	di.crc = 0x01020304;
	di.ino = 128;
	memset(d, 0, sizeof(d));
	xfsj_layout_encode(&xfsj_dinode_layout, &di, d);
	ck_assert_mem_eq(d, "IN", 2);
	ck_assert_mem_eq(d + 92, "\x0A\x0B\x0C\x0D", 4);
	ck_assert_mem_eq(d + 100, "\x04\x03\x02\x01", 4);
	ck_assert_mem_eq(d + 152, "\x00\x00\x00\x00\x00\x00\x00\x80", 8);

	memset(&sbk, 0, sizeof(sbk));
	sbk.level = 0x0102;
	sbk.numrecs = 0x0304;
	sbk.owner = 7;
	memset(d, 0, sizeof(d));
	xfsj_layout_encode(&xfsj_sblock_layout, &sbk, d);
	ck_assert_mem_eq(d + 4, "\x01\x02\x03\x04", 4);
	ck_assert_mem_eq(d + 48, "\x00\x00\x00\x07", 4);

	memset(&lbk, 0, sizeof(lbk));
	lbk.owner = 0x1122334455667788ULL;
	lbk.crc = 0xCAFEBABE;
	memset(d, 0, sizeof(d));
	xfsj_layout_encode(&xfsj_lblock_layout, &lbk, d);
	ck_assert_mem_eq(d + 56, "\x11\x22\x33\x44\x55\x66\x77\x88", 8);
	ck_assert_mem_eq(d + 64, "\xBE\xBA\xFE\xCA", 4);

	/* Decoding reads the same positions back. */
	memset(d, 0, sizeof(d));
	d[4] = 0x00; d[5] = 0x01; d[6] = 0x00; d[7] = 0x00;
	d[224] = 0x78; d[225] = 0x56; d[226] = 0x34; d[227] = 0x12;
	xfsj_layout_decode(&xfsj_sb_layout, d, &sb);
	ck_assert_uint_eq(sb.blocksize, 65536);
	ck_assert_uint_eq(sb.crc, 0x12345678);
}
END_TEST

/* The little-endian decoder (log structures) swaps integers, not CRCs. */
START_TEST(decode_little_endian)
{
	struct xfsj_dinode be, le;
	uint8_t d[176];

	fill_random(d, sizeof(d));
	xfsj_layout_decode(&xfsj_dinode_layout, d, &be);
	xfsj_layout_decode_le(&xfsj_dinode_layout, d, &le);
	ck_assert_uint_eq(le.magic, __builtin_bswap16(be.magic));
	ck_assert_uint_eq(le.gen, __builtin_bswap32(be.gen));
	ck_assert_uint_eq(le.ino, __builtin_bswap64(be.ino));
	ck_assert_uint_eq(le.version, be.version);
	ck_assert_uint_eq(le.crc, be.crc);
	ck_assert_mem_eq(le.uuid, be.uuid, 16);

	memset(d, 0, sizeof(d));
	d[0] = 0x4e; d[1] = 0x49;	/* "IN" stored little-endian */
	d[152] = 0x80;
	xfsj_layout_decode_le(&xfsj_dinode_layout, d, &le);
	ck_assert_uint_eq(le.magic, XFSJ_DINODE_MAGIC);
	ck_assert_uint_eq(le.ino, 128);
}
END_TEST

/* The straight-line decoders (XFSJ_DEFINE_DECODER) write what the table
 * decoder writes, on random bytes; host padding compared too (both start
 * from the same fill). */
START_TEST(generated_decoders)
{
	uint8_t disk[512], a[512], b[512];

	for (int round = 0; round < 64; round++) {
		fill_random(disk, sizeof(disk));
		memset(a, 0x5a, sizeof(a));
		memset(b, 0x5a, sizeof(b));
		xfsj_layout_decode(&xfsj_dinode_layout, disk, a);
		xfsj_dinode_decode(disk, (struct xfsj_dinode *)b);
		ck_assert_mem_eq(a, b, sizeof(struct xfsj_dinode));
		xfsj_layout_decode(&xfsj_sblock_layout, disk, a);
		xfsj_sblock_decode(disk, (struct xfsj_sblock *)b);
		ck_assert_mem_eq(a, b, sizeof(struct xfsj_sblock));
		xfsj_layout_decode(&xfsj_lblock_layout, disk, a);
		xfsj_lblock_decode(disk, (struct xfsj_lblock *)b);
		ck_assert_mem_eq(a, b, sizeof(struct xfsj_lblock));
	}
}
END_TEST

Suite *layout_suite(void)
{
	Suite *s = suite_create("layout");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(tc, host_round_trip, 0, NLAYOUTS);
	tcase_add_loop_test(tc, disk_round_trip, 0, NLAYOUTS);
	tcase_add_loop_test(tc, fields_cover_without_overlap, 0, NLAYOUTS);
	tcase_add_test(tc, known_sizes);
	tcase_add_test(tc, offset_names);
	tcase_add_test(tc, big_endian_at_offsets);
	tcase_add_test(tc, decode_little_endian);
	tcase_add_test(tc, generated_decoders);
	suite_add_tcase(s, tc);
	return s;
}
