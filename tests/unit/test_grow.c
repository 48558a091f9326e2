/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Growing a dynamic array by doubling (core/grow.c). */
#include <stdint.h>
#include <stdlib.h>

#include "suites.h"
#include "xfsj/errors.h"
#include "core/grow.h"

START_TEST(first_capacity)
{
	uint32_t *v = NULL;
	size_t cap = 0;

	ck_assert_int_eq(xfsj_grow(&v, &cap, 0, 1, sizeof(*v), 16), 0);
	ck_assert_ptr_nonnull(v);
	ck_assert_uint_eq(cap, 16);
	/* room already: nothing changes */
	ck_assert_int_eq(xfsj_grow(&v, &cap, 15, 1, sizeof(*v), 16), 0);
	ck_assert_uint_eq(cap, 16);
	free(v);
	/* more than the first capacity at once: doubled from it */
	v = NULL;
	cap = 0;
	ck_assert_int_eq(xfsj_grow(&v, &cap, 0, 40, sizeof(*v), 16), 0);
	ck_assert_uint_eq(cap, 64);
	free(v);
	/* a first capacity of 0 counts as 1 */
	v = NULL;
	cap = 0;
	ck_assert_int_eq(xfsj_grow(&v, &cap, 0, 3, sizeof(*v), 0), 0);
	ck_assert_uint_eq(cap, 4);
	free(v);
}
END_TEST

START_TEST(doubles_and_keeps)
{
	uint64_t *v = NULL;
	size_t n = 0, cap = 0, grows = 0;

	for (uint64_t i = 0; i < 1000; i++) {
		size_t old = cap;

		ck_assert_int_eq(xfsj_grow(&v, &cap, n, 1, sizeof(*v), 4), 0);
		if (cap != old) {
			ck_assert_uint_eq(cap, old ? 2 * old : 4);
			grows++;
		}
		ck_assert_uint_gt(cap, n);
		v[n++] = i * 3;
	}
	ck_assert_uint_eq(cap, 1024);
	ck_assert_uint_eq(grows, 9);	/* 4, 8, ..., 1024 */
	for (uint64_t i = 0; i < 1000; i++)
		ck_assert_uint_eq(v[i], i * 3);
	/* n more at once: doubled until they fit */
	ck_assert_int_eq(xfsj_grow(&v, &cap, n, 5000, sizeof(*v), 4), 0);
	ck_assert_uint_eq(cap, 8192);
	ck_assert_uint_eq(v[999], 999 * 3);
	free(v);
}
END_TEST

START_TEST(overflow_refused)
{
	uint8_t *v = malloc(8);
	uint8_t *keep = v;
	size_t cap = 8;

	for (int i = 0; i < 8; i++)
		v[i] = (uint8_t)(i + 1);
	/* n + more overflows */
	ck_assert_int_eq(xfsj_grow(&v, &cap, 8, SIZE_MAX - 4, 1, 8),
			 -XFSJ_E_NOMEM);
	/* doubling the capacity overflows */
	cap = SIZE_MAX / 2 + 1;
	ck_assert_int_eq(xfsj_grow(&v, &cap, cap, 1, 1, 8), -XFSJ_E_NOMEM);
	ck_assert_uint_eq(cap, SIZE_MAX / 2 + 1);
	/* doubling toward n + more overflows */
	cap = 8;
	ck_assert_int_eq(xfsj_grow(&v, &cap, 8, SIZE_MAX / 2 + 8, 1, 8),
			 -XFSJ_E_NOMEM);
	/* the count fits, its bytes do not */
	ck_assert_int_eq(xfsj_grow(&v, &cap, 8, 1, SIZE_MAX / 8, 8),
			 -XFSJ_E_NOMEM);
	/* a first capacity whose bytes do not fit */
	{
		uint32_t *w = NULL;
		size_t wc = 0;

		ck_assert_int_eq(xfsj_grow(&w, &wc, 0, 1, sizeof(*w),
					   SIZE_MAX / 2),
				 -XFSJ_E_NOMEM);
		ck_assert_ptr_null(w);
		ck_assert_uint_eq(wc, 0);
	}
	/* every failure left the array as it was */
	ck_assert_ptr_eq(v, keep);
	ck_assert_uint_eq(cap, 8);
	for (int i = 0; i < 8; i++)
		ck_assert_uint_eq(v[i], i + 1);
	free(v);
}
END_TEST

Suite *grow_suite(void)
{
	Suite *s = suite_create("grow");
	TCase *tc = tcase_create("grow");

	tcase_add_test(tc, first_capacity);
	tcase_add_test(tc, doubles_and_keeps);
	tcase_add_test(tc, overflow_refused);
	suite_add_tcase(s, tc);
	return s;
}
