/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The replay's brief decode (xfsj_item_decode_brief) and reorder class
 * (xfsj_item_order) against the full decode: on seeded random items of
 * every type and many region lengths, the same faults, order and fields,
 * but for what only printing uses.
 */
#include <stdlib.h>
#include <string.h>

#include "suites.h"
#include "xfsj/logread.h"

static uint32_t seed;

static uint8_t rnd(void)
{
	seed = seed * 1103515245u + 12345u;
	return (uint8_t)(seed >> 16);
}

/* What the brief decode leaves out, cleared as it leaves it. */
static void drop_printing(struct xfsj_item_info *in)
{
	if (in->type == XFSJ_LI_BUF) {
		in->u.buf.nbits = 0;
		in->u.buf.data_bytes = 0;
		in->u.buf.map_mismatch = false;
		in->u.buf.content.name = NULL;
		in->u.buf.content.magic = 0;
	} else if (in->type == XFSJ_LI_INODE) {
		struct xfsj_log_dinode c = { 0 };

		c.magic = in->u.ino.core.magic;
		c.v3 = in->u.ino.core.v3;
		in->u.ino.core = c;
	}
	in->brief = true;
}

static void check_same(const struct xfsj_ritem *it)
{
	struct xfsj_item_info full, brief;

	xfsj_item_decode(it, &full);
	ck_assert_int_eq(xfsj_item_decode_brief(it, &brief), brief.err);
	ck_assert(brief.brief);
	ck_assert_int_eq(xfsj_item_order(it), full.order);
	drop_printing(&full);
	ck_assert_int_eq(brief.err, full.err);
	ck_assert_ptr_eq(brief.fault.field, full.fault.field);
	ck_assert_uint_eq(brief.fault.offset, full.fault.offset);
	ck_assert_int_eq(brief.fmt_ok, full.fmt_ok);
	ck_assert_int_eq(brief.order, full.order);
	ck_assert_int_eq(brief.have_id, full.have_id);
	ck_assert_uint_eq(brief.id, full.id);
	ck_assert_ptr_eq(brief.kind, full.kind);
	ck_assert_mem_eq(&brief.u, &full.u, sizeof(full.u));
}

START_TEST(brief_matches_full)
{
	static const uint32_t lens0[] = { 0, 2, 4, 12, 20, 24, 28, 32, 48,
					  52, 56, 64, 88, 128 };
	static const uint32_t lens1[] = { 0, 8, 96, 100, 128, 176, 512 };
	unsigned int nt;
	const struct xfsj_item_type *types = xfsj_item_types(&nt);
	uint8_t *buf[3];
	struct xfsj_region reg[3];
	struct xfsj_ritem it;

	seed = 20261126;
	for (int i = 0; i < 3; i++)
		buf[i] = malloc(512);
	for (unsigned int t = 0; t <= nt; t++) {
		/* the last round: a type no row knows */
		uint16_t type = t < nt ? types[t].type : 0x1299;

		for (size_t a = 0; a < sizeof(lens0) / sizeof(lens0[0]); a++)
		for (size_t b = 0; b < sizeof(lens1) / sizeof(lens1[0]); b++)
		for (int r = 0; r < 8; r++) {
			for (int i = 0; i < 3; i++)
				for (int j = 0; j < 512; j++)
					buf[i][j] = rnd();
			buf[0][0] = (uint8_t)type;
			buf[0][1] = (uint8_t)(type >> 8);
			if (r & 1) {	/* a map size that fits (BUF) */
				memset(buf[0] + 16, 0, 4);
				buf[0][16] = (uint8_t)(r & 2);
			}
			if (r & 4) {	/* a dinode magic, "IN" (INODE) */
				buf[1][0] = 'N';
				buf[1][1] = 'I';
			}
			for (int i = 0; i < 3; i++) {
				reg[i].p = buf[i];
				reg[i].len = i == 0 ? lens0[a] : lens1[b];
			}
			it.type = type;
			it.nreg = (uint16_t)(1 + r % 3);
			it.reg = reg;
			check_same(&it);
		}
	}
	for (int i = 0; i < 3; i++)
		free(buf[i]);
}
END_TEST

Suite *item_brief_suite(void)
{
	Suite *s = suite_create("item_brief");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, brief_matches_full);
	suite_add_tcase(s, tc);
	return s;
}
