/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Superblock codec and verifier: a valid v5 superblock (values of the
 * format reference, §2: 1 GiB, 4 KiB blocks, 4 AGs of 65536) passes, and
 * each single corruption is refused with the right error, field name and
 * device byte offset.
 */
#include <stdlib.h>
#include <string.h>

#include "suites.h"
#include "core/crc32c.h"
#include "ondisk/format.h"

/* Where the tested sector pretends to live: the sb of AG 2. */
#define SB_BYTE_OFF ((uint64_t)2 * 65536 * 4096)

static void good_sb(struct xfsj_sb *sb)
{
	static const uint8_t uuid[16] = { 0x5e, 0x1f, 0x3a, 0x77, 0x01, 0x42,
					  0x4b, 0x9c, 0x8d, 0x10, 0xaa, 0xbb,
					  0xcc, 0xdd, 0xee, 0xff };

	memset(sb, 0, sizeof(*sb));
	sb->magicnum = XFSJ_SB_MAGIC;
	sb->blocksize = 4096;
	sb->dblocks = 262144;
	memcpy(sb->uuid, uuid, 16);
	sb->logstart = 131079;
	sb->rootino = 128;
	sb->rbmino = 129;
	sb->rsumino = 130;
	sb->rextsize = 1;
	sb->agblocks = 65536;
	sb->agcount = 4;
	sb->logblocks = 16384;
	sb->versionnum = 0xB4A5;
	sb->sectsize = 512;
	sb->inodesize = 512;
	sb->inopblock = 8;
	memcpy(sb->fname, "unit", 4);
	sb->blocklog = 12;
	sb->sectlog = 9;
	sb->inodelog = 9;
	sb->inopblog = 3;
	sb->agblklog = 16;
	sb->imax_pct = 25;
	sb->icount = 64;
	sb->ifree = 61;
	sb->fdblocks = 245724;
	sb->inoalignmt = 8;
	sb->logsunit = 1;
	sb->features2 = 0x18A;
	sb->bad_features2 = 0x18A;
	sb->features_ro_compat = 0xF;
	sb->features_incompat = 0x2B;
	sb->spino_align = 4;
}

/* What must hold before the AGs are located from a superblock. */
START_TEST(can_locate)
{
	struct xfsj_sb sb;

	good_sb(&sb);
	ck_assert(xfsj_sb_can_locate(&sb));
	sb.blocklog = 13;			/* disagrees with blocksize */
	ck_assert(!xfsj_sb_can_locate(&sb));
	sb.blocksize = 8192;
	ck_assert(xfsj_sb_can_locate(&sb));
	sb.blocksize = 1U << 17;		/* past 64 KiB */
	sb.blocklog = 17;
	ck_assert(!xfsj_sb_can_locate(&sb));
	sb.blocksize = 256;			/* under 512 */
	sb.blocklog = 8;
	ck_assert(!xfsj_sb_can_locate(&sb));
	sb.blocksize = 512;
	sb.blocklog = 9;
	ck_assert(xfsj_sb_can_locate(&sb));
	sb.blocklog = 41;			/* no shift out of range */
	ck_assert(!xfsj_sb_can_locate(&sb));
	good_sb(&sb);
	sb.agblocks = XFSJ_MIN_AG_BLOCKS - 1;
	ck_assert(!xfsj_sb_can_locate(&sb));
	sb.agblocks = XFSJ_MIN_AG_BLOCKS;
	ck_assert(xfsj_sb_can_locate(&sb));
	sb.agcount = 0;
	ck_assert(!xfsj_sb_can_locate(&sb));
}
END_TEST

START_TEST(valid_superblock)
{
	struct xfsj_sb sb, back;
	struct xfsj_fault f;
	uint8_t buf[512];

	good_sb(&sb);
	memset(buf, 0xcc, sizeof(buf));
	xfsj_sb_encode(&sb, buf, sizeof(buf));
	memset(&f, 0, sizeof(f));
	ck_assert_int_eq(xfsj_sb_verify(buf, sizeof(buf), SB_BYTE_OFF, &f), 0);
	ck_assert_ptr_null(f.field);
	ck_assert_int_eq(xfsj_sb_verify(buf, sizeof(buf), 0, NULL), 0);
	/* Encode stamps a valid CRC over the whole sector, zeroing the rest. */
	ck_assert(xfsj_cksum_ok(buf, sizeof(buf), XFSJ_SB_CRC_OFF));
	for (size_t i = XFSJ_SB_DISK_SIZE; i < sizeof(buf); i++)
		ck_assert_uint_eq(buf[i], 0);
	ck_assert_mem_eq(buf, "XFSB", 4);
	xfsj_sb_decode(buf, &back);
	ck_assert_uint_eq(back.dblocks, 262144);
	ck_assert_uint_eq(back.versionnum, 0xB4A5);
	ck_assert_uint_eq(back.features_incompat, 0x2B);
	ck_assert_uint_eq(back.crc, xfsj_get_le32(buf + 224));
	ck_assert_mem_eq(back.uuid, sb.uuid, 16);
}
END_TEST

/* Other valid shapes: 4 KiB sectors, a data stripe, 1 KiB and 64 KiB blocks. */
START_TEST(valid_variants)
{
	struct xfsj_sb sb;
	uint8_t *buf = malloc(4096);

	ck_assert_ptr_nonnull(buf);
	good_sb(&sb);
	sb.sectsize = 4096;
	sb.sectlog = 12;
	sb.versionnum = 0xBCA5;
	sb.logsectsize = 4096;
	sb.logsectlog = 12;
	xfsj_sb_encode(&sb, buf, 4096);
	ck_assert_int_eq(xfsj_sb_verify(buf, 4096, 0, NULL), 0);

	good_sb(&sb);
	sb.versionnum = 0xB5A5;
	sb.unit = 16;
	sb.width = 64;
	xfsj_sb_encode(&sb, buf, 512);
	ck_assert_int_eq(xfsj_sb_verify(buf, 512, 0, NULL), 0);

	good_sb(&sb);
	sb.blocksize = 1024;
	sb.blocklog = 10;
	sb.inopblock = 2;
	sb.inopblog = 1;
	sb.agblocks = 262144;
	sb.agblklog = 18;
	sb.dblocks = 4 * 262144;
	sb.fdblocks = 1000000;
	sb.logstart = 2ULL << 18;
	xfsj_sb_encode(&sb, buf, 512);
	ck_assert_int_eq(xfsj_sb_verify(buf, 512, 0, NULL), 0);

	/* A short last AG of exactly 64 blocks, non-power-of-2 agblocks. */
	good_sb(&sb);
	sb.agblocks = 65000;
	sb.agblklog = 16;
	sb.dblocks = 3 * 65000 + 64;
	sb.fdblocks = 1000;
	xfsj_sb_encode(&sb, buf, 512);
	ck_assert_int_eq(xfsj_sb_verify(buf, 512, 0, NULL), 0);
	free(buf);
}
END_TEST

struct sb_corruption {
	const char *what;
	void (*mutate)(struct xfsj_sb *sb);
	int err;		/* positive XFSJ_E_* */
	const char *field;
	int off;		/* expected offset inside the sector */
};

#define MUT(name, body) \
	static void name(struct xfsj_sb *sb) { body; }

MUT(m_magic, sb->magicnum = 0x58465343)
MUT(m_version4, sb->versionnum = 0xB4A4)
MUT(m_sect_odd, sb->sectsize = 1000)
MUT(m_sectlog, sb->sectlog = 10)
MUT(m_sect_big, { sb->sectsize = 65535; })
MUT(m_features2, sb->features2 = 0x08A)
MUT(m_morebits, sb->versionnum = 0x34A5)
MUT(m_incompat_unknown, sb->features_incompat |= 1U << 9)
MUT(m_incompat_high, sb->features_incompat |= 1U << 31)
MUT(m_needsrepair, sb->features_incompat |= XFSJ_INCOMPAT_NEEDSREPAIR)
MUT(m_bs_notpow2, sb->blocksize = 3072)
MUT(m_bs_small, { sb->blocksize = 512; sb->blocklog = 9; })
MUT(m_blocklog, sb->blocklog = 11)
MUT(m_inodesize, sb->inodesize = 384)
MUT(m_inodesize_big, { sb->inodesize = 4096; sb->inodelog = 12; })
MUT(m_inopblock, sb->inopblock = 7)
MUT(m_inopblog, sb->inopblog = 4)
MUT(m_dirblklog, sb->dirblklog = 5)
MUT(m_agblocks_small, { sb->agblocks = 1000; sb->agblklog = 10; })
MUT(m_agblocks_zero, sb->agblocks = 0)
MUT(m_agblklog, sb->agblklog = 17)
MUT(m_agblklog_low, sb->agblklog = 15)
MUT(m_dblocks_big, sb->dblocks = 262145)
MUT(m_dblocks_small, sb->dblocks = 3 * 65536 + 63)
MUT(m_agcount_zero, sb->agcount = 0)
MUT(m_imax_pct, sb->imax_pct = 101)
MUT(m_inprogress, sb->inprogress = 1)
MUT(m_logblocks_zero, sb->logblocks = 0)
MUT(m_logblocks_big, sb->logblocks = (1U << 20) + 1)
MUT(m_logstart, sb->logstart = 4ULL << 16)
MUT(m_unit_nodalign, sb->unit = 16)
MUT(m_dalign_nounit, sb->versionnum |= XFSJ_SB_VERSION_DALIGNBIT)
MUT(m_width, { sb->versionnum |= XFSJ_SB_VERSION_DALIGNBIT; sb->unit = 16;
	       sb->width = 40; })
MUT(m_ifree, sb->ifree = 65)
MUT(m_fdblocks, sb->fdblocks = 262145)
MUT(m_shared_vn, sb->shared_vn = 1)
MUT(m_rextents, sb->rextents = 5)
MUT(m_frextents, sb->frextents = 1)

static const struct sb_corruption corruptions[] = {
	{ "bad magic", m_magic, XFSJ_E_BADMAGIC, "magicnum", 0 },
	{ "version 4", m_version4, XFSJ_E_UNSUPP, "versionnum", 100 },
	{ "sectsize not pow2", m_sect_odd, XFSJ_E_CORRUPT, "sectsize", 102 },
	{ "sectlog wrong", m_sectlog, XFSJ_E_CORRUPT, "sectsize", 102 },
	{ "sectsize too big", m_sect_big, XFSJ_E_CORRUPT, "sectsize", 102 },
	{ "features2 no CRC", m_features2, XFSJ_E_CORRUPT, "features2", 200 },
	{ "no MOREBITS", m_morebits, XFSJ_E_CORRUPT, "features2", 200 },
	{ "unknown incompat", m_incompat_unknown, XFSJ_E_UNSUPP,
	  "features_incompat", 216 },
	{ "unknown incompat 31", m_incompat_high, XFSJ_E_UNSUPP,
	  "features_incompat", 216 },
	{ "NEEDSREPAIR", m_needsrepair, XFSJ_E_UNSUPP, "features_incompat",
	  216 },
	{ "blocksize not pow2", m_bs_notpow2, XFSJ_E_CORRUPT, "blocksize", 4 },
	{ "blocksize 512", m_bs_small, XFSJ_E_CORRUPT, "blocksize", 4 },
	{ "blocklog wrong", m_blocklog, XFSJ_E_CORRUPT, "blocksize", 4 },
	{ "inodesize not pow2", m_inodesize, XFSJ_E_CORRUPT, "inodesize", 104 },
	{ "inodesize 4096", m_inodesize_big, XFSJ_E_CORRUPT, "inodesize", 104 },
	{ "inopblock wrong", m_inopblock, XFSJ_E_CORRUPT, "inopblock", 106 },
	{ "inopblog wrong", m_inopblog, XFSJ_E_CORRUPT, "inopblock", 106 },
	{ "dirblklog too big", m_dirblklog, XFSJ_E_CORRUPT, "dirblklog", 192 },
	{ "AG under 16 MiB", m_agblocks_small, XFSJ_E_CORRUPT, "agblocks", 84 },
	{ "agblocks 0", m_agblocks_zero, XFSJ_E_CORRUPT, "agblocks", 84 },
	{ "agblklog too big", m_agblklog, XFSJ_E_CORRUPT, "agblklog", 124 },
	{ "agblklog too small", m_agblklog_low, XFSJ_E_CORRUPT, "agblklog", 124 },
	{ "dblocks too big", m_dblocks_big, XFSJ_E_CORRUPT, "dblocks", 8 },
	{ "last AG < 64 blocks", m_dblocks_small, XFSJ_E_CORRUPT, "dblocks", 8 },
	{ "agcount 0", m_agcount_zero, XFSJ_E_CORRUPT, "dblocks", 8 },
	{ "imax_pct > 100", m_imax_pct, XFSJ_E_CORRUPT, "imax_pct", 127 },
	{ "inprogress", m_inprogress, XFSJ_E_CORRUPT, "inprogress", 126 },
	{ "logblocks 0", m_logblocks_zero, XFSJ_E_CORRUPT, "logblocks", 96 },
	{ "logblocks > 1Mi", m_logblocks_big, XFSJ_E_CORRUPT, "logblocks", 96 },
	{ "logstart past last AG", m_logstart, XFSJ_E_CORRUPT, "logstart", 48 },
	{ "unit without DALIGN", m_unit_nodalign, XFSJ_E_CORRUPT, "unit", 184 },
	{ "DALIGN without unit", m_dalign_nounit, XFSJ_E_CORRUPT, "unit", 184 },
	{ "width not multiple", m_width, XFSJ_E_CORRUPT, "width", 188 },
	{ "ifree > icount", m_ifree, XFSJ_E_CORRUPT, "ifree", 136 },
	{ "fdblocks > dblocks", m_fdblocks, XFSJ_E_CORRUPT, "fdblocks", 144 },
	{ "shared_vn", m_shared_vn, XFSJ_E_CORRUPT, "shared_vn", 179 },
	{ "rextents without rt", m_rextents, XFSJ_E_CORRUPT, "rextents", 24 },
	{ "frextents without rt", m_frextents, XFSJ_E_CORRUPT, "rextents", 24 },
};
#define NCORRUPTIONS (sizeof(corruptions) / sizeof(corruptions[0]))

START_TEST(corruption_rejected)
{
	const struct sb_corruption *c = &corruptions[_i];
	struct xfsj_sb sb;
	struct xfsj_fault f;
	uint8_t buf[512];
	int err;

	good_sb(&sb);
	c->mutate(&sb);
	xfsj_sb_encode(&sb, buf, sizeof(buf));
	memset(&f, 0, sizeof(f));
	err = xfsj_sb_verify(buf, sizeof(buf), SB_BYTE_OFF, &f);
	ck_assert_msg(err == -c->err, "%s: got %d (%s), want %d", c->what, err,
		      xfsj_errname(err), -c->err);
	ck_assert_int_eq(f.err, c->err);
	ck_assert_ptr_nonnull(f.structure);
	ck_assert_str_eq(f.structure, "superblock");
	ck_assert_ptr_nonnull(f.field);
	ck_assert_msg(!strcmp(f.field, c->field), "%s: field %s, want %s",
		      c->what, f.field, c->field);
	ck_assert_msg(f.offset == SB_BYTE_OFF + (uint64_t)c->off,
		      "%s: offset %llu", c->what,
		      (unsigned long long)(f.offset - SB_BYTE_OFF));
	/* The named field really is at that offset. */
	ck_assert_int_eq(xfsj_layout_offset(&xfsj_sb_layout, c->field), c->off);
	/* Without a fault pointer the same error comes back. */
	ck_assert_int_eq(xfsj_sb_verify(buf, sizeof(buf), 0, NULL), -c->err);
}
END_TEST

/* Any flipped byte of the sector, CRC region included, breaks the CRC. */
START_TEST(flipped_byte_badcrc)
{
	static const unsigned int where[] = { 130, 150, 225, 303, 304, 400, 511 };
	struct xfsj_sb sb;
	struct xfsj_fault f;
	uint8_t buf[512];

	good_sb(&sb);
	for (unsigned int k = 0; k < sizeof(where) / sizeof(where[0]); k++) {
		xfsj_sb_encode(&sb, buf, sizeof(buf));
		buf[where[k]] ^= 0x10;
		memset(&f, 0, sizeof(f));
		ck_assert_int_eq(xfsj_sb_verify(buf, sizeof(buf), SB_BYTE_OFF, &f),
				 -XFSJ_E_BADCRC);
		ck_assert_str_eq(f.field, "crc");
		ck_assert_uint_eq(f.offset, SB_BYTE_OFF + 224);
		ck_assert_uint_eq(f.err, XFSJ_E_BADCRC);
	}
}
END_TEST

START_TEST(short_buffer)
{
	struct xfsj_sb sb;
	struct xfsj_fault f;
	uint8_t *buf = malloc(4096);

	ck_assert_ptr_nonnull(buf);
	good_sb(&sb);
	xfsj_sb_encode(&sb, buf, 512);
	/* Shorter than the structure: nothing is read. */
	for (size_t len = 0; len < XFSJ_SB_DISK_SIZE; len += 37) {
		memset(&f, 0, sizeof(f));
		ck_assert_int_eq(xfsj_sb_verify(buf, len, SB_BYTE_OFF, &f),
				 -XFSJ_E_SHORTIO);
		ck_assert_str_eq(f.field, "sector");
		ck_assert_uint_eq(f.offset, SB_BYTE_OFF);
		ck_assert_uint_eq(f.value, len);
	}
	ck_assert_int_eq(xfsj_sb_verify(buf, XFSJ_SB_DISK_SIZE - 1, 0, NULL),
			 -XFSJ_E_SHORTIO);
	/* Holds the structure but not the whole sector the CRC covers. */
	memset(&f, 0, sizeof(f));
	ck_assert_int_eq(xfsj_sb_verify(buf, 511, SB_BYTE_OFF, &f),
			 -XFSJ_E_SHORTIO);
	ck_assert_str_eq(f.field, "sectsize");
	ck_assert_uint_eq(f.offset, SB_BYTE_OFF + 102);

	sb.sectsize = 4096;
	sb.sectlog = 12;
	sb.versionnum = 0xBCA5;
	xfsj_sb_encode(&sb, buf, 4096);
	memset(&f, 0, sizeof(f));
	ck_assert_int_eq(xfsj_sb_verify(buf, 512, SB_BYTE_OFF, &f),
			 -XFSJ_E_SHORTIO);
	ck_assert_str_eq(f.field, "sectsize");
	ck_assert_uint_eq(f.offset, SB_BYTE_OFF + 102);
	ck_assert_uint_eq(f.value, 4096);
	ck_assert_int_eq(xfsj_sb_verify(buf, 4096, SB_BYTE_OFF, &f), 0);
	free(buf);
}
END_TEST

/* The verifier checks the exact buffer: a heap copy of just 512 bytes. */
START_TEST(exact_heap_buffer)
{
	struct xfsj_sb sb;
	uint8_t *buf = malloc(512);

	ck_assert_ptr_nonnull(buf);
	good_sb(&sb);
	xfsj_sb_encode(&sb, buf, 512);
	ck_assert_int_eq(xfsj_sb_verify(buf, 512, 0, NULL), 0);
	/* Claiming a larger sector than the buffer is refused, not read. */
	sb.sectsize = 32768;
	sb.sectlog = 15;
	sb.versionnum = 0xBCA5;
	xfsj_layout_encode(&xfsj_sb_layout, &sb, buf);
	ck_assert_int_eq(xfsj_sb_verify(buf, 512, 0, NULL), -XFSJ_E_SHORTIO);
	free(buf);
}
END_TEST

Suite *sb_suite(void)
{
	Suite *s = suite_create("sb");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, can_locate);
	tcase_add_test(tc, valid_superblock);
	tcase_add_test(tc, valid_variants);
	tcase_add_loop_test(tc, corruption_rejected, 0, NCORRUPTIONS);
	tcase_add_test(tc, flipped_byte_badcrc);
	tcase_add_test(tc, short_buffer);
	tcase_add_test(tc, exact_heap_buffer);
	suite_add_tcase(s, tc);
	return s;
}
