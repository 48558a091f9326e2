/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The AG trust predicate (check/ag_trust.c): which verdicts of the check
 * each kind of trust needs, a tree the filesystem does not have never in
 * doubt, a header in doubt taking its trees with it, AG numbers past the
 * end, and the every-AG form.
 */
#include <string.h>

#include "fs_fixture.h"
#include "suites.h"
#include "check/check_priv.h"

#define MB	(1024 * 1024)
#define ALL	(XCK_TRUST_FREE | XCK_TRUST_AGFL | XCK_TRUST_RMAP | \
		 XCK_TRUST_INODES)

struct t {
	struct fs_fixture fx;
	struct xck ck;
	struct xck_ag ag[2];
};

static void setup(struct t *t, bool rmapbt, bool finobt)
{
	struct xfsj_features feat;

	memset(t, 0, sizeof(*t));
	xfsj_features_default(&feat);
	feat.rmapbt = rmapbt;
	feat.finobt = finobt;
	feat.reflink = rmapbt;
	feat.inobtcount = finobt;
	fs_fixture_make_feat(&t->fx, 64 * MB, 4096, 2, &feat);
	ck_assert_int_eq(xfsj_fs_has(t->fx.fs, XFSJ_RO_COMPAT_RMAPBT), rmapbt);
	ck_assert_int_eq(xfsj_fs_has(t->fx.fs, XFSJ_RO_COMPAT_FINOBT), finobt);
	t->ck.fs = t->fx.fs;
	t->ck.ags = t->ag;
	t->ck.agcount = 2;
	for (unsigned int a = 0; a < 2; a++) {
		t->ag[a].agno = a;
		t->ag[a].agf_ok = t->ag[a].agi_ok = t->ag[a].agfl_ok = true;
		for (unsigned int bt = 0; bt < XFSJ_BT__COUNT; bt++)
			t->ag[a].tree_ok[bt] = true;
	}
}

/* The bits of ALL that AG 1 is trusted for. */
static unsigned int trusted(const struct t *t)
{
	unsigned int bits = 0;

	for (unsigned int b = 1; b <= XCK_TRUST_INODES; b <<= 1)
		if (xck_ag_trusted(&t->ck, 1, b))
			bits |= b;
	/* The bits together ask no more and no less than one by one. */
	ck_assert_int_eq(xck_ag_trusted(&t->ck, 1, ALL), bits == ALL);
	ck_assert_int_eq(xck_ags_trusted(&t->ck, ALL), bits == ALL);
	ck_assert(xck_ag_trusted(&t->ck, 0, ALL));
	return bits;
}

START_TEST(each_verdict_counts)
{
	struct t t;

	setup(&t, true, true);
	ck_assert_uint_eq(trusted(&t), ALL);
	t.ag[1].tree_ok[XFSJ_BT_BNO] = false;
	ck_assert_uint_eq(trusted(&t), ALL & ~XCK_TRUST_FREE);
	t.ag[1].tree_ok[XFSJ_BT_BNO] = true;
	t.ag[1].tree_ok[XFSJ_BT_CNT] = false;
	ck_assert_uint_eq(trusted(&t), ALL & ~XCK_TRUST_FREE);
	t.ag[1].tree_ok[XFSJ_BT_CNT] = true;
	t.ag[1].agfl_ok = false;
	ck_assert_uint_eq(trusted(&t), ALL & ~XCK_TRUST_AGFL);
	t.ag[1].agfl_ok = true;
	t.ag[1].tree_ok[XFSJ_BT_RMAP] = false;
	ck_assert_uint_eq(trusted(&t), ALL & ~XCK_TRUST_RMAP);
	t.ag[1].tree_ok[XFSJ_BT_RMAP] = true;
	t.ag[1].tree_ok[XFSJ_BT_FINO] = false;
	ck_assert_uint_eq(trusted(&t), ALL & ~XCK_TRUST_INODES);
	t.ag[1].tree_ok[XFSJ_BT_FINO] = true;
	t.ag[1].tree_ok[XFSJ_BT_INO] = false;
	ck_assert_uint_eq(trusted(&t), ALL & ~XCK_TRUST_INODES);
	t.ag[1].tree_ok[XFSJ_BT_INO] = true;
	/* Trees the predicate does not ask about. */
	t.ag[1].tree_ok[XFSJ_BT_REFC] = false;
	ck_assert_uint_eq(trusted(&t), ALL);
	fs_fixture_free(&t.fx);
}
END_TEST

START_TEST(header_takes_its_trees)
{
	struct t t;

	setup(&t, true, true);
	t.ag[1].agf_ok = false;
	ck_assert_uint_eq(trusted(&t), XCK_TRUST_AGFL | XCK_TRUST_INODES);
	t.ag[1].agf_ok = true;
	t.ag[1].agi_ok = false;
	ck_assert_uint_eq(trusted(&t), ALL & ~XCK_TRUST_INODES);
	fs_fixture_free(&t.fx);
}
END_TEST

START_TEST(absent_trees_not_doubted)
{
	struct t t;

	setup(&t, false, false);
	t.ag[1].tree_ok[XFSJ_BT_RMAP] = false;
	t.ag[1].tree_ok[XFSJ_BT_FINO] = false;
	ck_assert_uint_eq(trusted(&t), ALL);
	/* ... but the AGF still counts for the free space. */
	t.ag[1].agf_ok = false;
	ck_assert_uint_eq(trusted(&t), ALL & ~XCK_TRUST_FREE);
	fs_fixture_free(&t.fx);
}
END_TEST

START_TEST(out_of_range)
{
	struct t t;

	setup(&t, true, true);
	ck_assert(!xck_ag_trusted(&t.ck, 2, XCK_TRUST_FREE));
	ck_assert(!xck_ag_trusted(&t.ck, UINT32_MAX, 0));
	/* Asking for nothing of an AG that exists: trusted. */
	ck_assert(xck_ag_trusted(&t.ck, 1, 0));
	/* No AGs at all: nothing to doubt. */
	t.ck.agcount = 0;
	ck_assert(xck_ags_trusted(&t.ck, ALL));
	t.ck.agcount = 2;
	t.ag[0].tree_ok[XFSJ_BT_BNO] = false;
	ck_assert(!xck_ags_trusted(&t.ck, XCK_TRUST_FREE));
	ck_assert(xck_ags_trusted(&t.ck, XCK_TRUST_RMAP));
	fs_fixture_free(&t.fx);
}
END_TEST

Suite *ag_trust_suite(void)
{
	Suite *s = suite_create("ag_trust");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, each_verdict_counts);
	tcase_add_test(tc, header_takes_its_trees);
	tcase_add_test(tc, absent_trees_not_doubted);
	tcase_add_test(tc, out_of_range);
	suite_add_tcase(s, tc);
	return s;
}
