/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The checker's superblock and AG header phases (check/sb.c,
 * check/sb_rules.c, check/agheaders.c) on a fresh in-memory filesystem:
 * clean as made, then one field damaged at a time (CRC rewritten unless
 * the test is about the CRC), each found under its problem code.
 */
#include <string.h>

#include "suites.h"
#include "fs_fixture.h"
#include "core/crc32c.h"
#include "xfsj/check.h"

#define MAXSEEN 64

struct seen {
	const char *code[MAXSEEN];
	uint64_t off[MAXSEEN];
	unsigned int has[MAXSEEN];
	unsigned int n;
};

static void on_problem(void *arg, const struct xfsj_problem *p)
{
	struct seen *s = arg;

	if (s->n < MAXSEEN) {
		s->off[s->n] = p->off;
		s->has[s->n] = p->has;
		s->code[s->n++] = p->def->code;
	}
}

/* The index of the first problem under @code, or -1. */
static int find(const struct seen *s, const char *code)
{
	for (unsigned int i = 0; i < s->n; i++)
		if (!strcmp(s->code[i], code))
			return (int)i;
	return -1;
}

static bool saw(const struct seen *s, const char *code)
{
	return find(s, code) >= 0;
}

/* Check the filesystem as the overlay holds it now. */
static int run(struct fs_fixture *fx, struct seen *s,
	       struct xfsj_check_result *res)
{
	const struct xfsj_check_cb cb = { .arg = s, .problem = on_problem };

	memset(s, 0, sizeof(*s));
	fs_fixture_reopen(fx);
	return xfsj_check(fx->fs, NULL, &cb, res);
}

static uint64_t ag_byte(const struct fs_fixture *fx, uint32_t agno)
{
	return (uint64_t)agno * fx->sb.agblocks * fx->sb.blocksize;
}

/*
 * Rewrite a big-endian field of @bytes at @off of sector @sect of AG
 * @agno, then the sector's CRC at @crc_off unless @keep_crc.
 */
static void poke(struct fs_fixture *fx, uint32_t agno, unsigned int sect,
		 size_t off, unsigned int bytes, uint64_t v, size_t crc_off,
		 bool keep_crc)
{
	uint8_t buf[512];
	uint64_t at = ag_byte(fx, agno) + sect * 512;

	ck_assert_int_eq(fx->sb.sectsize, 512);
	ck_assert_int_eq(xfsj_overlay_read(fx->ov, buf, 512, at), 0);
	if (bytes == 8)
		xfsj_put_be64(buf + off, v);
	else if (bytes == 4)
		xfsj_put_be32(buf + off, (uint32_t)v);
	else
		buf[off] = (uint8_t)v;
	if (!keep_crc)
		xfsj_cksum_update(buf, 512, crc_off);
	ck_assert_int_eq(xfsj_overlay_write(fx->ov, buf, 512, at), 0);
}

static void make(struct fs_fixture *fx)
{
	fs_fixture_make(fx, 64ULL << 20, 4096, 4, true, true);
}

START_TEST(test_clean)
{
	struct fs_fixture fx;
	struct xfsj_check_result res;
	struct seen s;

	make(&fx);
	ck_assert_int_eq(run(&fx, &s, &res), 0);
	ck_assert_msg(res.problems == 0, "%u problems, first %s",
		      (unsigned)res.problems, s.n ? s.code[0] : "-");
	fs_fixture_free(&fx);
}
END_TEST

START_TEST(test_secondary_differs)
{
	struct fs_fixture fx;
	struct xfsj_check_result res;
	struct seen s;

	make(&fx);
	poke(&fx, 2, 0, XFSJ_SB_OFF(dblocks), 8, fx.sb.dblocks - 1,
	     XFSJ_SB_CRC_OFF, false);
	ck_assert_int_eq(run(&fx, &s, &res), 0);
	ck_assert(saw(&s, "sb.secondary.differs"));
	ck_assert(!saw(&s, "sb.primary.differs"));
	fs_fixture_free(&fx);
}
END_TEST

/*
 * Quota flags in a secondary mkfs wrote (inprogress set) of a filesystem
 * without the quota feature: xfs_repair's "non-null quota flags"; one
 * growfs rewrote (inprogress clear) may hold the primary's old ones.
 */
START_TEST(test_secondary_qflags)
{
	struct fs_fixture fx;
	struct xfsj_check_result res;
	struct seen s;

	make(&fx);
	ck_assert(!(fx.sb.versionnum & XFSJ_SB_VERSION_QUOTABIT));
	poke(&fx, 1, 0, XFSJ_SB_OFF(inprogress), 1, 1, XFSJ_SB_CRC_OFF, false);
	ck_assert_int_eq(run(&fx, &s, &res), 0);
	ck_assert_msg(res.problems == 0, "first %s", s.n ? s.code[0] : "-");
	/* (qflags 0x0080, GQUOTA_ENFD: its low byte) */
	poke(&fx, 1, 0, XFSJ_SB_OFF(qflags) + 1, 1, 0x80, XFSJ_SB_CRC_OFF,
	     false);
	ck_assert_int_eq(run(&fx, &s, &res), 0);
	ck_assert(saw(&s, "sb.secondary.invalid"));
	poke(&fx, 1, 0, XFSJ_SB_OFF(inprogress), 1, 0, XFSJ_SB_CRC_OFF, false);
	ck_assert_int_eq(run(&fx, &s, &res), 0);
	ck_assert(!saw(&s, "sb.secondary.invalid"));
	fs_fixture_free(&fx);
}
END_TEST

START_TEST(test_primary_outvoted)
{
	struct fs_fixture fx;
	struct xfsj_check_result res;
	struct seen s;

	make(&fx);
	/* Only the primary changes: three secondaries outvote it. */
	poke(&fx, 0, 0, XFSJ_SB_OFF(dirblklog), 1, 1, XFSJ_SB_CRC_OFF, false);
	ck_assert_int_eq(run(&fx, &s, &res), 0);
	ck_assert(saw(&s, "sb.primary.differs"));
	ck_assert(!saw(&s, "sb.secondary.differs"));
	/* Geometry the later phases use: nothing runs after the sb. */
	ck_assert_uint_eq(res.inodes, 0);
	fs_fixture_free(&fx);
}
END_TEST

START_TEST(test_primary_field)
{
	struct fs_fixture fx;
	struct xfsj_check_result res;
	struct seen s;

	make(&fx);
	poke(&fx, 0, 0, XFSJ_SB_OFF(imax_pct), 1, 101, XFSJ_SB_CRC_OFF, false);
	ck_assert_int_eq(run(&fx, &s, &res), 0);
	ck_assert(saw(&s, "sb.primary.invalid"));
	/* The secondary's CRC alone. */
	poke(&fx, 3, 0, XFSJ_SB_OFF(imax_pct), 1, 30, XFSJ_SB_CRC_OFF, true);
	ck_assert_int_eq(run(&fx, &s, &res), 0);
	ck_assert(saw(&s, "sb.secondary.crc"));
	fs_fixture_free(&fx);
}
END_TEST

START_TEST(test_unknown_feature_refused)
{
	struct fs_fixture fx;
	struct xfsj_check_result res;
	struct seen s;
	uint32_t agno;

	make(&fx);
	for (agno = 0; agno < fx.sb.agcount; agno++)
		poke(&fx, agno, 0, XFSJ_SB_OFF(features_ro_compat), 4,
		     fx.sb.features_ro_compat | 0x80000000U, XFSJ_SB_CRC_OFF,
		     false);
	fx.sb.features_ro_compat |= 0x80000000U;
	ck_assert_int_eq(run(&fx, &s, &res), -XFSJ_E_UNSUPP);
	ck_assert_str_eq(res.fault.field, "features_ro_compat");
	fs_fixture_free(&fx);
}
END_TEST

START_TEST(test_agf)
{
	struct fs_fixture fx;
	struct xfsj_check_result res;
	struct seen s;

	make(&fx);
	poke(&fx, 1, 1, XFSJ_AGF_OFF(bno_level), 4, 0, XFSJ_AGF_CRC_OFF, false);
	poke(&fx, 2, 1, XFSJ_AGF_OFF(flcount), 4, 1, XFSJ_AGF_CRC_OFF, false);
	poke(&fx, 3, 1, XFSJ_AGF_OFF(seqno), 4, 7, XFSJ_AGF_CRC_OFF, true);
	ck_assert_int_eq(run(&fx, &s, &res), 0);
	ck_assert(saw(&s, "agf.level"));
	ck_assert(saw(&s, "agf.flcount"));
	ck_assert(saw(&s, "agf.crc"));
	ck_assert(saw(&s, "agf.field"));
	fs_fixture_free(&fx);
}
END_TEST

START_TEST(test_agi_agfl)
{
	struct fs_fixture fx;
	struct xfsj_check_result res;
	struct seen s;
	uint8_t agf[512];
	uint32_t dup_slot = 0;

	make(&fx);
	/* Bucket 3 naming an inode in the header block. */
	poke(&fx, 1, 2, XFSJ_AGI_OFF(unlinked) + 4 * 3, 4, 3,
	     XFSJ_AGI_CRC_OFF, false);
	/* Bucket 4 naming a valid inode of bucket 5. */
	poke(&fx, 1, 2, XFSJ_AGI_OFF(unlinked) + 4 * 4, 4,
	     (64 << fx.sb.inopblog) + 5, XFSJ_AGI_CRC_OFF, false);
	/* The second live AGFL entry made a copy of the first. */
	ck_assert_int_eq(xfsj_overlay_read(fx.ov, agf, 512,
					   ag_byte(&fx, 2) + 512), 0);
	{
		uint32_t first = xfsj_get_be32(agf + XFSJ_AGF_OFF(flfirst));
		uint8_t fl[512];

		ck_assert_uint_ge(xfsj_get_be32(agf + XFSJ_AGF_OFF(flcount)),
				  2);
		ck_assert_int_eq(xfsj_overlay_read(fx.ov, fl, 512,
				 ag_byte(&fx, 2) + 3 * 512), 0);
		poke(&fx, 2, 3, XFSJ_AGFL_HDR_SIZE + 4 * (first + 1), 4,
		     xfsj_get_be32(fl + XFSJ_AGFL_HDR_SIZE + 4 * first),
		     XFSJ_AGFL_CRC_OFF, false);
		dup_slot = first + 1;
	}
	ck_assert_int_eq(run(&fx, &s, &res), 0);
	ck_assert(saw(&s, "agi.unlinked"));
	ck_assert(saw(&s, "agi.unlinked_hash"));
	ck_assert(saw(&s, "agfl.dup"));
	/* (the slot of the second listing named) */
	{
		int k = find(&s, "agfl.dup");

		ck_assert(s.has[k] & XFSJ_PF_OFF);
		ck_assert_uint_eq(s.off[k], dup_slot);
	}
	fs_fixture_free(&fx);
}
END_TEST

/* A primary the replay could not open: the superblocks checked alone. */
START_TEST(test_superblocks_alone)
{
	struct seen s = { 0 };
	const struct xfsj_check_cb cb = { .arg = &s, .problem = on_problem };
	struct fs_fixture fx;
	struct xfsj_check_result res;
	struct xfsj_io *io;

	make(&fx);
	ck_assert_int_eq(xfsj_overlay_io(fx.ov, &io), 0);
	ck_assert_int_eq(xfsj_check_superblocks(io, &cb, &res), 0);
	ck_assert_uint_eq(res.problems, 0);

	poke(&fx, 0, 0, XFSJ_SB_OFF(magicnum), 4, 0, XFSJ_SB_CRC_OFF, false);
	ck_assert_int_eq(xfsj_check_superblocks(io, &cb, &res), 0);
	ck_assert(saw(&s, "sb.primary.magic"));

	memset(&s, 0, sizeof(s));
	poke(&fx, 0, 0, XFSJ_SB_OFF(magicnum), 4, XFSJ_SB_MAGIC,
	     XFSJ_SB_CRC_OFF, false);
	poke(&fx, 0, 0, XFSJ_SB_OFF(agblocks), 4, fx.sb.agblocks + 8,
	     XFSJ_SB_CRC_OFF, false);
	ck_assert_int_eq(xfsj_check_superblocks(io, &cb, &res), 0);
	ck_assert_uint_gt(res.problems, 0);
	xfsj_io_close(io);
	fs_fixture_free(&fx);
}
END_TEST

Suite *check_headers_suite(void)
{
	Suite *s = suite_create("check_headers");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_clean);
	tcase_add_test(tc, test_secondary_differs);
	tcase_add_test(tc, test_secondary_qflags);
	tcase_add_test(tc, test_primary_outvoted);
	tcase_add_test(tc, test_primary_field);
	tcase_add_test(tc, test_unknown_feature_refused);
	tcase_add_test(tc, test_agf);
	tcase_add_test(tc, test_agi_agfl);
	tcase_add_test(tc, test_superblocks_alone);
	suite_add_tcase(s, tc);
	return s;
}
