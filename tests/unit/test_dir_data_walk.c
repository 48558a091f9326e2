/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The walk of a directory data area (ondisk/dir_data_walk.c), shared by
 * the check and the repair: where the area of a data block and of a
 * single block ends, the items in order, and hostile blocks (a leaf count
 * past the block, unused regions of length 0 or past the end, a name
 * length 0, an entry that runs into the leaf entries, a block too small,
 * an unknown magic).
 */
#include <stdlib.h>
#include <string.h>

#include "suites.h"
#include "core/layout.h"
#include "ondisk/dir_block.h"
#include "xfsj/errors.h"

#define BS	4096

static void put_entry(uint8_t *b, uint32_t off, uint64_t ino,
		      const char *name, uint8_t ft)
{
	size_t n = strlen(name);
	unsigned int len = xfsj_dir2_data_entsize((unsigned int)n, true);

	xfsj_put_be64(b + off, ino);
	b[off + 8] = (uint8_t)n;
	memcpy(b + off + 9, name, n);
	b[off + 9 + n] = ft;
	xfsj_put_be16(b + off + len - 2, (uint16_t)off);
}

static void put_unused(uint8_t *b, uint32_t off, uint32_t len)
{
	xfsj_put_be16(b + off, XFSJ_DIR2_FREE_TAG);
	xfsj_put_be16(b + off + 2, (uint16_t)len);
	xfsj_put_be16(b + off + len - 2, (uint16_t)off);
}

/* A data block: ".", "..", "file", then one unused region to the end. */
static uint8_t *data_block(void)
{
	uint8_t *b = calloc(1, BS);

	ck_assert_ptr_nonnull(b);
	xfsj_put_be32(b, XFSJ_DIR3_DATA_MAGIC);
	put_entry(b, 64, 128, ".", 2);
	put_entry(b, 80, 128, "..", 2);
	put_entry(b, 96, 131, "file", 1);
	put_unused(b, 112, BS - 112);
	return b;
}

START_TEST(data_block_walks)
{
	static const uint32_t offs[] = { 64, 80, 96, 112 };
	uint8_t *b = data_block();
	struct xfsj_dir2_area a;
	struct xfsj_dir2_walk w;
	struct xfsj_dir2_item it;
	unsigned int n = 0;

	ck_assert_int_eq(xfsj_dir2_data_area(b, BS, &a), 0);
	ck_assert(!a.block);
	ck_assert_uint_eq(a.end, BS);
	xfsj_dir2_walk_init(&w, b, a.end, true);
	while (xfsj_dir2_walk_next(&w, &it)) {
		ck_assert_uint_lt(n, 4);
		ck_assert_uint_eq(it.off, offs[n]);
		ck_assert_uint_eq(it.tag, offs[n]);
		n++;
	}
	ck_assert_uint_eq(n, 4);
	ck_assert_ptr_null(w.field);
	ck_assert_uint_eq(w.off, BS);
	ck_assert(it.unused);
	ck_assert_uint_eq(it.len, BS - 112);
	/* Once stopped, it stays stopped. */
	ck_assert(!xfsj_dir2_walk_next(&w, &it));
	free(b);
}
END_TEST

START_TEST(single_block_area)
{
	uint8_t *b = data_block();
	struct xfsj_dir2_area a;
	struct xfsj_dir2_walk w;
	struct xfsj_dir2_item it;
	unsigned int n = 0;

	xfsj_put_be32(b, XFSJ_DIR3_BLOCK_MAGIC);
	/* 3 leaf entries and the tail: the area ends 32 bytes early. */
	put_unused(b, 112, BS - 112 - 32);
	xfsj_put_be32(b + BS - 8, 3);
	xfsj_put_be32(b + BS - 4, 1);
	ck_assert_int_eq(xfsj_dir2_data_area(b, BS, &a), 0);
	ck_assert(a.block && a.count_ok);
	ck_assert_uint_eq(a.count, 3);
	ck_assert_uint_eq(a.stale, 1);
	ck_assert_uint_eq(a.end, BS - 32);
	xfsj_dir2_walk_init(&w, b, a.end, true);
	while (xfsj_dir2_walk_next(&w, &it))
		n++;
	ck_assert_uint_eq(n, 4);
	ck_assert_ptr_null(w.field);

	/* A count whose entries would reach into the header: flagged, the
	 * area ends at the tail, never inside it. */
	xfsj_put_be32(b + BS - 8, (BS - 64 - 8) / 8 + 1);
	ck_assert_int_eq(xfsj_dir2_data_area(b, BS, &a), 0);
	ck_assert(!a.count_ok);
	ck_assert_uint_eq(a.end, BS - XFSJ_DIR2_BLOCK_TAIL);
	xfsj_put_be32(b + BS - 8, UINT32_MAX);
	ck_assert_int_eq(xfsj_dir2_data_area(b, BS, &a), 0);
	ck_assert(!a.count_ok);
	ck_assert_uint_eq(a.end, BS - XFSJ_DIR2_BLOCK_TAIL);
	/* The most that fits. */
	xfsj_put_be32(b + BS - 8, (BS - 64 - 8) / 8);
	ck_assert_int_eq(xfsj_dir2_data_area(b, BS, &a), 0);
	ck_assert(a.count_ok);
	ck_assert_uint_eq(a.end, 64);
	xfsj_dir2_walk_init(&w, b, a.end, true);
	ck_assert(!xfsj_dir2_walk_next(&w, &it));
	ck_assert_ptr_null(w.field);
	free(b);
}
END_TEST

START_TEST(not_a_data_block)
{
	uint8_t *b = data_block();
	struct xfsj_dir2_area a;

	xfsj_put_be32(b, XFSJ_DIR3_FREE_MAGIC);
	ck_assert_int_eq(xfsj_dir2_data_area(b, BS, &a), -XFSJ_E_CORRUPT);
	xfsj_put_be32(b, XFSJ_DIR_DATA_MAGIC_V4);
	ck_assert_int_eq(xfsj_dir2_data_area(b, BS, &a), -XFSJ_E_CORRUPT);
	/* Too small to hold a header and a tail. */
	xfsj_put_be32(b, XFSJ_DIR3_BLOCK_MAGIC);
	ck_assert_int_eq(xfsj_dir2_data_area(b, 64, &a), -XFSJ_E_CORRUPT);
	free(b);
}
END_TEST

/* Walk @b to its first bad item: its offset and field. */
static uint32_t bad_at(const uint8_t *b, uint32_t end, const char **field)
{
	struct xfsj_dir2_walk w;
	struct xfsj_dir2_item it;
	unsigned int n = 0;

	xfsj_dir2_walk_init(&w, b, end, true);
	while (xfsj_dir2_walk_next(&w, &it))
		ck_assert_uint_lt(++n, BS / 8);
	*field = w.field;
	return w.off;
}

START_TEST(hostile_items)
{
	uint8_t *b = data_block();
	const char *field;

	/* An unused region of length 0 would never end: stopped there. */
	xfsj_put_be16(b + 112 + 2, 0);
	ck_assert_uint_eq(bad_at(b, BS, &field), 112);
	ck_assert_str_eq(field, "length");
	/* ... past the end, and not a multiple of 8. */
	xfsj_put_be16(b + 112 + 2, BS - 112 + 8);
	ck_assert_uint_eq(bad_at(b, BS, &field), 112);
	ck_assert_str_eq(field, "length");
	xfsj_put_be16(b + 112 + 2, 20);
	ck_assert_uint_eq(bad_at(b, BS, &field), 112);
	ck_assert_str_eq(field, "length");
	put_unused(b, 112, BS - 112);
	/* A name length 0. */
	b[96 + 8] = 0;
	ck_assert_uint_eq(bad_at(b, BS, &field), 96);
	ck_assert_str_eq(field, "namelen");
	/* An entry that runs past the area's end. */
	b[96 + 8] = 255;
	ck_assert_uint_eq(bad_at(b, 200, &field), 96);
	ck_assert_str_eq(field, "namelen");
	/* An area ending inside an item's first 8 bytes, or unaligned. */
	b[96 + 8] = 4;
	ck_assert_uint_eq(bad_at(b, 100, &field), 96);
	ck_assert_str_eq(field, "offset");
	ck_assert_uint_eq(bad_at(b, 116, &field), 112);
	ck_assert_str_eq(field, "offset");
	free(b);
}
END_TEST

/* The bestfree rule: three largest, largest first, a tie after; put
 * and get agree on the header's table. */
START_TEST(bestfree_rule)
{
	struct xfsj_dir2_bestfree bf[XFSJ_DIR2_BEST_FREE] = { { 0, 0 } };
	struct xfsj_dir2_bestfree back[XFSJ_DIR2_BEST_FREE];
	static const uint32_t r[][2] = {
		{ 64, 16 }, { 96, 40 }, { 200, 8 }, { 300, 40 }, { 400, 24 },
	};
	uint8_t b[64] = { 0 };

	for (size_t i = 0; i < sizeof(r) / sizeof(r[0]); i++)
		xfsj_dir2_bestfree_add(bf, r[i][0], r[i][1]);
	ck_assert_uint_eq(bf[0].offset, 96);
	ck_assert_uint_eq(bf[0].length, 40);
	ck_assert_uint_eq(bf[1].offset, 300);
	ck_assert_uint_eq(bf[1].length, 40);
	ck_assert_uint_eq(bf[2].offset, 400);
	ck_assert_uint_eq(bf[2].length, 24);
	xfsj_dir3_bestfree_put(b, bf);
	ck_assert_uint_eq(b[48], 0);
	ck_assert_uint_eq(b[49], 96);
	xfsj_dir3_bestfree_get(b, back);
	ck_assert_mem_eq(back, bf, sizeof(bf));
}
END_TEST

Suite *dir_data_walk_suite(void)
{
	Suite *s = suite_create("dir_data_walk");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, data_block_walks);
	tcase_add_test(tc, single_block_area);
	tcase_add_test(tc, not_a_data_block);
	tcase_add_test(tc, hostile_items);
	tcase_add_test(tc, bestfree_rule);
	suite_add_tcase(s, tc);
	return s;
}
