/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The bmbt root in an inode fork (ondisk/bmdr.c), placed once for the
 * bmbt reader, the check, the repair's salvage and log recovery: the
 * pointers sit after room for as many keys as the fork holds pairs, not
 * after numrecs keys; forks too small for one pair, no fork, and hostile
 * level and count fields (returned as found, for the caller to judge).
 */
#include <stdlib.h>
#include <string.h>

#include "suites.h"
#include "core/layout.h"
#include "ondisk/bmdr.h"

START_TEST(pointers_after_room)
{
	/* 76 bytes: header 4, room for 4 pairs (72 bytes). */
	uint8_t *f = calloc(1, 76);
	struct xfsj_bmdr r;

	ck_assert_ptr_nonnull(f);
	xfsj_put_be16(f, 1);
	xfsj_put_be16(f + 2, 2);
	xfsj_put_be64(f + 4, 0);		/* key 0 */
	xfsj_put_be64(f + 12, 500);		/* key 1 */
	xfsj_put_be64(f + 4 + 4 * 8, 1234);	/* ptr 0 */
	xfsj_put_be64(f + 4 + 5 * 8, 5678);	/* ptr 1 */
	ck_assert(xfsj_bmdr_decode(f, 76, &r));
	ck_assert_uint_eq(r.level, 1);
	ck_assert_uint_eq(r.numrecs, 2);
	ck_assert_uint_eq(r.maxr, 4);
	ck_assert_ptr_eq(r.keys, f + 4);
	ck_assert_ptr_eq(r.ptrs, f + 36);
	ck_assert_uint_eq(xfsj_get_be64(r.keys + 8), 500);
	ck_assert_uint_eq(xfsj_get_be64(r.ptrs), 1234);
	ck_assert_uint_eq(xfsj_get_be64(r.ptrs + 8), 5678);
	/* The last pointer of the room ends exactly at the fork's end. */
	ck_assert_ptr_eq(r.ptrs + r.maxr * 8, f + 4 + 4 * 16);
	free(f);
}
END_TEST

START_TEST(room)
{
	ck_assert_uint_eq(xfsj_bmdr_room(0), 0);
	ck_assert_uint_eq(xfsj_bmdr_room(4), 0);
	ck_assert_uint_eq(xfsj_bmdr_room(19), 0);
	ck_assert_uint_eq(xfsj_bmdr_room(20), 1);
	ck_assert_uint_eq(xfsj_bmdr_room(35), 1);
	ck_assert_uint_eq(xfsj_bmdr_room(36), 2);
	ck_assert_uint_eq(xfsj_bmdr_room(UINT32_MAX),
			  (UINT32_MAX - 4U) / 16);
}
END_TEST

START_TEST(too_small_or_none)
{
	uint8_t f[19] = { 0, 1, 0, 1 };
	struct xfsj_bmdr r;

	ck_assert(!xfsj_bmdr_decode(f, sizeof(f), &r));
	ck_assert_ptr_null(r.keys);
	ck_assert_uint_eq(r.maxr, 0);
	ck_assert(!xfsj_bmdr_decode(NULL, 100, &r));
	ck_assert(!xfsj_bmdr_decode(f, 0, &r));
}
END_TEST

START_TEST(hostile_fields_as_found)
{
	uint8_t *f = calloc(1, 20);
	struct xfsj_bmdr r;

	ck_assert_ptr_nonnull(f);
	xfsj_put_be16(f, 0xffff);
	xfsj_put_be16(f + 2, 0xffff);
	ck_assert(xfsj_bmdr_decode(f, 20, &r));
	ck_assert_uint_eq(r.level, 0xffff);
	ck_assert_uint_eq(r.numrecs, 0xffff);
	/* The count is far past the room: a walker bounds it by maxr. */
	ck_assert_uint_eq(r.maxr, 1);
	ck_assert_ptr_eq(r.ptrs, f + 12);
	free(f);
}
END_TEST

Suite *bmdr_suite(void)
{
	Suite *s = suite_create("bmdr");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, pointers_after_room);
	tcase_add_test(tc, room);
	tcase_add_test(tc, too_small_or_none);
	tcase_add_test(tc, hostile_fields_as_found);
	suite_add_tcase(s, tc);
	return s;
}
