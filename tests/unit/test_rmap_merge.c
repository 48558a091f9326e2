/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The rmapbt merge rule (ondisk/rmap_merge.c), shared by the rmapbt code,
 * the check's "should be merged" and canonical form, and the repair's
 * rebuild: which pairs of records are one, and the hostile edges (block
 * or length sums that wrap, the null owner, flags on metadata owners,
 * file offsets at the top of their field).
 */
#include "suites.h"
#include "ondisk/format.h"
#include "ondisk/rmap_merge.h"

#define INO	131ULL
#define A	XFSJ_RMAP_OFF_ATTR_FORK
#define B	XFSJ_RMAP_OFF_BMBT_BLOCK
#define U	XFSJ_RMAP_OFF_UNWRITTEN

static struct xfsj_rmap_rec rec(uint32_t start, uint32_t len, uint64_t owner,
				uint64_t off)
{
	return (struct xfsj_rmap_rec){ .startblock = start, .blockcount = len,
				       .owner = owner, .offset = off };
}

START_TEST(file_data_runs_on)
{
	struct xfsj_rmap_rec a = rec(100, 8, INO, 40), b = rec(108, 4, INO, 48);

	ck_assert(xfsj_rmap_continues(&a, &b));
	/* Not the other way round: @b must start where @a ends. */
	ck_assert(!xfsj_rmap_continues(&b, &a));
	/* A gap in blocks, or in the file offset. */
	b = rec(109, 4, INO, 49);
	ck_assert(!xfsj_rmap_continues(&a, &b));
	b = rec(108, 4, INO, 49);
	ck_assert(!xfsj_rmap_continues(&a, &b));
	ck_assert(xfsj_rmap_same_kind(&a, &b));
	/* An overlap is not a continuation. */
	b = rec(104, 4, INO, 44);
	ck_assert(!xfsj_rmap_continues(&a, &b));
	/* Another owner. */
	b = rec(108, 4, INO + 1, 48);
	ck_assert(!xfsj_rmap_same_kind(&a, &b));
	ck_assert(!xfsj_rmap_continues(&a, &b));
}
END_TEST

START_TEST(flags_must_match)
{
	static const uint64_t fl[] = { 0, A, U, A | U, B, A | B };
	unsigned int i, j;

	for (i = 0; i < sizeof(fl) / sizeof(fl[0]); i++)
		for (j = 0; j < sizeof(fl) / sizeof(fl[0]); j++) {
			struct xfsj_rmap_rec a = rec(10, 2, INO, 6 | fl[i]);
			struct xfsj_rmap_rec b = rec(12, 2, INO, 8 | fl[j]);

			ck_assert_int_eq(xfsj_rmap_same_kind(&a, &b), i == j);
			ck_assert_int_eq(xfsj_rmap_continues(&a, &b), i == j);
		}
}
END_TEST

START_TEST(no_offset_to_run_on)
{
	/* bmbt blocks: offsets are 0 and need not run on. */
	struct xfsj_rmap_rec a = rec(10, 1, INO, B), b = rec(11, 1, INO, B);

	ck_assert(xfsj_rmap_continues(&a, &b));
	/* Metadata owners: the same. */
	a = rec(10, 3, XFSJ_RMAP_OWN_INOBT, 0);
	b = rec(13, 5, XFSJ_RMAP_OWN_INOBT, 0);
	ck_assert(xfsj_rmap_continues(&a, &b));
	b.owner = XFSJ_RMAP_OWN_AG;
	ck_assert(!xfsj_rmap_continues(&a, &b));
	/* A metadata owner with flags (hostile) joins only the same flags. */
	b = rec(13, 5, XFSJ_RMAP_OWN_INOBT, U);
	ck_assert(!xfsj_rmap_continues(&a, &b));
}
END_TEST

START_TEST(null_owner_never)
{
	struct xfsj_rmap_rec a = rec(10, 3, XFSJ_RMAP_OWN_NULL, 0);
	struct xfsj_rmap_rec b = rec(13, 3, XFSJ_RMAP_OWN_NULL, 0);

	ck_assert(!xfsj_rmap_same_kind(&a, &b));
	ck_assert(!xfsj_rmap_continues(&a, &b));
}
END_TEST

START_TEST(sums_do_not_wrap)
{
	/* The lengths of the two would not fit one record. */
	struct xfsj_rmap_rec a = rec(0, XFSJ_RMAP_LEN_MAX, XFSJ_RMAP_OWN_FS, 0);
	struct xfsj_rmap_rec b = rec(XFSJ_RMAP_LEN_MAX, 1, XFSJ_RMAP_OWN_FS, 0);

	ck_assert(!xfsj_rmap_continues(&a, &b));
	b.blockcount = 0;
	ck_assert(xfsj_rmap_continues(&a, &b));
	/* The end block wraps 32 bits: no continuation at block 0. */
	a = rec(UINT32_MAX - 1, 4, INO, 0);
	b = rec(2, 1, INO, 4);
	ck_assert(!xfsj_rmap_continues(&a, &b));
	/* The file offset at the top of its field does not wrap to 0. */
	a = rec(10, 2, INO, XFSJ_RMAP_OFF_MASK - 1);
	b = rec(12, 2, INO, 0);
	ck_assert(!xfsj_rmap_continues(&a, &b));
	/* ... but runs on to the field's last value. */
	a.blockcount = 1;
	b = rec(11, 1, INO, XFSJ_RMAP_OFF_MASK);
	ck_assert(xfsj_rmap_continues(&a, &b));
}
END_TEST

Suite *rmap_merge_suite(void)
{
	Suite *s = suite_create("rmap_merge");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, file_data_runs_on);
	tcase_add_test(tc, flags_must_match);
	tcase_add_test(tc, no_offset_to_run_on);
	tcase_add_test(tc, null_owner_never);
	tcase_add_test(tc, sums_do_not_wrap);
	suite_add_tcase(s, tc);
	return s;
}
