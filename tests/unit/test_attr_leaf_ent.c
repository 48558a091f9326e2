/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * An attribute leaf entry placed against its block (fs/attr_leaf_ent.c),
 * shared by the leaf verifier, the check and the repair's salvage: local
 * and remote entries that fit, and hostile ones (the entry slot past the
 * block, a name structure below the table or past the block, a fixed
 * part that runs over the end, a name that fits only unrounded).
 * Blocks are heap copies of exactly their size, so the sanitizer build
 * catches a read past the end.
 */
#include <stdlib.h>
#include <string.h>

#include "suites.h"
#include "core/layout.h"
#include "fs/attr.h"
#include "ondisk/attr_layout.h"

#define BS	1024
#define HDR	XFSJ_ATTR3_LEAF_HDR_SIZE
#define ENT	XFSJ_ATTR_LEAF_ENTRY_SIZE
#define LOW	(HDR + 2 * ENT)

static uint8_t *leaf(void)
{
	uint8_t *b = calloc(1, BS);

	ck_assert_ptr_nonnull(b);
	return b;
}

static void set_ent(uint8_t *b, uint32_t i, uint32_t hash, uint16_t idx,
		    uint8_t flags)
{
	xfsj_put_be32(b + HDR + i * ENT, hash);
	xfsj_put_be16(b + HDR + i * ENT + 4, idx);
	b[HDR + i * ENT + 6] = flags;
}

static void set_local(uint8_t *b, uint16_t idx, const char *name,
		      uint16_t vlen)
{
	xfsj_put_be16(b + idx, vlen);
	b[idx + 2] = (uint8_t)strlen(name);
	memcpy(b + idx + 3, name, strlen(name));
}

START_TEST(local_and_remote)
{
	uint8_t *b = leaf();
	struct xfsj_attr_lent e;
	uint32_t end;

	set_ent(b, 0, 0x1234, 1000, XFSJ_ATTR_FLAG_LOCAL);
	set_local(b, 1000, "user", 5);
	ck_assert_int_eq(xfsj_attr_leaf_ent_place(b, BS, 0, LOW, &e, &end),
			 XFSJ_ALENT_OK);
	ck_assert_uint_eq(e.hash, 0x1234);
	ck_assert_uint_eq(e.namelen, 4);
	ck_assert_uint_eq(e.valuelen, 5);
	ck_assert_ptr_eq(e.name, b + 1003);
	ck_assert_ptr_eq(e.value, b + 1007);
	ck_assert_uint_eq(end, 1000 + 12);	/* 3 + 4 + 5, rounded */

	set_ent(b, 1, 0x5678, 900, 0);
	xfsj_put_be32(b + 900, 7);
	xfsj_put_be32(b + 904, 70000);
	b[908] = 3;
	memcpy(b + 909, "abc", 3);
	ck_assert_int_eq(xfsj_attr_leaf_ent_place(b, BS, 1, LOW, &e, &end),
			 XFSJ_ALENT_OK);
	ck_assert_ptr_null(e.value);
	ck_assert_uint_eq(e.valueblk, 7);
	ck_assert_uint_eq(e.valuelen, 70000);
	ck_assert_uint_eq(e.namelen, 3);
	ck_assert_uint_eq(end, 900 + e.entsize);
	ck_assert_uint_le(end, BS);
	free(b);
}
END_TEST

START_TEST(nameidx_out_of_range)
{
	uint8_t *b = leaf();
	struct xfsj_attr_lent e;
	uint32_t end;

	/* Inside the entry table, or below the caller's floor. */
	set_ent(b, 0, 1, HDR, XFSJ_ATTR_FLAG_LOCAL);
	ck_assert_int_eq(xfsj_attr_leaf_ent_place(b, BS, 0, LOW, &e, &end),
			 XFSJ_ALENT_NAMEIDX);
	ck_assert_uint_eq(e.hash, 1);
	ck_assert_uint_eq(end, 0);
	set_ent(b, 0, 1, LOW - 1, XFSJ_ATTR_FLAG_LOCAL);
	ck_assert_int_eq(xfsj_attr_leaf_ent_place(b, BS, 0, LOW, &e, &end),
			 XFSJ_ALENT_NAMEIDX);
	/* At the block's end or past it. */
	set_ent(b, 0, 1, BS, XFSJ_ATTR_FLAG_LOCAL);
	ck_assert_int_eq(xfsj_attr_leaf_ent_place(b, BS, 0, LOW, &e, &end),
			 XFSJ_ALENT_NAMEIDX);
	set_ent(b, 0, 1, 0xffff, 0);
	ck_assert_int_eq(xfsj_attr_leaf_ent_place(b, BS, 0, LOW, &e, &end),
			 XFSJ_ALENT_NAMEIDX);
	free(b);
}
END_TEST

START_TEST(past_the_end)
{
	uint8_t *b = leaf();
	struct xfsj_attr_lent e;
	uint32_t end;

	/* The fixed part of a local (3 bytes) or remote (9) name. */
	set_ent(b, 0, 1, BS - 2, XFSJ_ATTR_FLAG_LOCAL);
	ck_assert_int_eq(xfsj_attr_leaf_ent_place(b, BS, 0, LOW, &e, &end),
			 XFSJ_ALENT_FIXED);
	ck_assert_uint_eq(end, BS + 1);
	set_ent(b, 0, 1, BS - 8, 0);
	ck_assert_int_eq(xfsj_attr_leaf_ent_place(b, BS, 0, LOW, &e, &end),
			 XFSJ_ALENT_FIXED);
	ck_assert_uint_eq(end, BS + 1);
	/* A value that runs past the end. */
	set_ent(b, 0, 1, BS - 16, XFSJ_ATTR_FLAG_LOCAL);
	set_local(b, BS - 16, "ab", 0xffff);
	ck_assert_int_eq(xfsj_attr_leaf_ent_place(b, BS, 0, LOW, &e, &end),
			 XFSJ_ALENT_PAST);
	ck_assert_uint_eq(e.valuelen, 0xffff);
	ck_assert_uint_gt(end, BS);
	/* 10 bytes from an unaligned start fit, rounded to 12 they do not:
	 * the kernel counts the rounded size. */
	set_ent(b, 0, 1, BS - 10, XFSJ_ATTR_FLAG_LOCAL);
	set_local(b, BS - 10, "abcde", 2);
	ck_assert_int_eq(xfsj_attr_leaf_ent_place(b, BS, 0, LOW, &e, &end),
			 XFSJ_ALENT_PAST);
	ck_assert_uint_eq(end, BS + 2);
	/* Exactly to the end. */
	set_ent(b, 0, 1, BS - 12, XFSJ_ATTR_FLAG_LOCAL);
	set_local(b, BS - 12, "abcde", 4);
	ck_assert_int_eq(xfsj_attr_leaf_ent_place(b, BS, 0, LOW, &e, &end),
			 XFSJ_ALENT_OK);
	ck_assert_uint_eq(end, BS);
	free(b);
}
END_TEST

START_TEST(slot_past_block)
{
	uint8_t *b = leaf();
	struct xfsj_attr_lent e;
	uint32_t end;
	uint32_t last = (BS - HDR) / ENT - 1;

	set_ent(b, last, 9, 1000, XFSJ_ATTR_FLAG_LOCAL);
	set_local(b, 1000, "x", 1);
	ck_assert_int_eq(xfsj_attr_leaf_ent_place(b, BS, last, HDR, &e, &end),
			 XFSJ_ALENT_OK);
	ck_assert_int_eq(xfsj_attr_leaf_ent_place(b, BS, last + 1, HDR, &e,
						  &end), XFSJ_ALENT_SLOT);
	ck_assert_int_eq(xfsj_attr_leaf_ent_place(b, BS, UINT32_MAX, HDR, &e,
						  &end), XFSJ_ALENT_SLOT);
	ck_assert_uint_eq(end, 0);
	free(b);
}
END_TEST

Suite *attr_leaf_ent_suite(void)
{
	Suite *s = suite_create("attr_leaf_ent");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, local_and_remote);
	tcase_add_test(tc, nameidx_out_of_range);
	tcase_add_test(tc, past_the_end);
	tcase_add_test(tc, slot_past_block);
	suite_add_tcase(s, tc);
	return s;
}
