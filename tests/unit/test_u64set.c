/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The set of blocks a btree walk has reached (core/u64set.c), shared by
 * the bmbt reader and the check's fork walk: a block added twice is
 * known the second time, across growth of the table, and the values a
 * hostile pointer can hold (0, the null block UINT64_MAX, values that
 * hash alike) are kept apart.
 */
#include "suites.h"
#include "core/u64set.h"

START_TEST(twice_is_known)
{
	struct xfsj_u64set s = { 0 };

	ck_assert_int_eq(xfsj_u64set_add(&s, 100), 0);
	ck_assert_int_eq(xfsj_u64set_add(&s, 100), 1);
	ck_assert(!xfsj_u64set_has(&s, 101));
	ck_assert_int_eq(xfsj_u64set_add(&s, 101), 0);
	ck_assert(xfsj_u64set_has(&s, 100) && xfsj_u64set_has(&s, 101));
	ck_assert(!xfsj_u64set_has(&s, 102) &&
		  !xfsj_u64set_has(&s, UINT64_MAX));
	ck_assert_uint_eq(xfsj_u64set_count(&s), 2);
	xfsj_u64set_free(&s);
	ck_assert_uint_eq(xfsj_u64set_count(&s), 0);
	/* Free leaves an empty set that can be used again. */
	ck_assert_int_eq(xfsj_u64set_add(&s, 100), 0);
	xfsj_u64set_free(&s);
}
END_TEST

START_TEST(edge_values)
{
	struct xfsj_u64set s = { 0 };

	/* 0 is stored as 1 and UINT64_MAX apart: none is an empty slot. */
	ck_assert_int_eq(xfsj_u64set_add(&s, 0), 0);
	ck_assert_int_eq(xfsj_u64set_add(&s, UINT64_MAX), 0);
	ck_assert_int_eq(xfsj_u64set_add(&s, UINT64_MAX - 1), 0);
	ck_assert_int_eq(xfsj_u64set_add(&s, 0), 1);
	ck_assert_int_eq(xfsj_u64set_add(&s, UINT64_MAX), 1);
	ck_assert_int_eq(xfsj_u64set_add(&s, UINT64_MAX - 1), 1);
	ck_assert_uint_eq(xfsj_u64set_count(&s), 3);
	xfsj_u64set_free(&s);
}
END_TEST

START_TEST(many_across_growth)
{
	struct xfsj_u64set s = { 0 };
	uint64_t i;

	/* Sequential block numbers and a stride that shares low bits. */
	for (i = 0; i < 5000; i++) {
		ck_assert_int_eq(xfsj_u64set_add(&s, i), 0);
		if (i)
			ck_assert_int_eq(xfsj_u64set_add(&s, (i << 32) | 7),
					 0);
	}
	ck_assert_uint_eq(xfsj_u64set_count(&s), 9999);
	ck_assert_uint_le(s.n * 2, s.cap);
	for (i = 0; i < 5000; i++) {
		ck_assert_int_eq(xfsj_u64set_add(&s, i), 1);
		ck_assert_int_eq(xfsj_u64set_add(&s, (i << 32) | 7), 1);
	}
	ck_assert_int_eq(xfsj_u64set_add(&s, 5000), 0);
	xfsj_u64set_free(&s);
}
END_TEST

Suite *u64set_suite(void)
{
	Suite *s = suite_create("u64set");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, twice_is_known);
	tcase_add_test(tc, edge_values);
	tcase_add_test(tc, many_across_growth);
	suite_add_tcase(s, tc);
	return s;
}
