/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * io_concat.c: a data device and an external log device as one, for the
 * replay's overlay and redo file.  Memory devices with known bytes; reads
 * and writes across both boundaries, the gap between them, the bounds.
 */
#include <string.h>

#include "suites.h"
#include "xfsj/errors.h"
#include "xfsj/io.h"

#define A_SIZE	10000	/* not a multiple of anything the gap aligns to */
#define B_OFF	12288
#define B_SIZE	5000

static struct xfsj_io *a, *b, *c;

static void setup(void)
{
	uint8_t *pa, *pb;

	ck_assert_int_eq(xfsj_io_open_mem(A_SIZE, &a), 0);
	ck_assert_int_eq(xfsj_io_open_mem(B_SIZE, &b), 0);
	pa = xfsj_io_mem_buffer(a);
	pb = xfsj_io_mem_buffer(b);
	for (size_t i = 0; i < A_SIZE; i++)
		pa[i] = (uint8_t)(i * 7 + 1);
	for (size_t i = 0; i < B_SIZE; i++)
		pb[i] = (uint8_t)(i * 13 + 5);
	ck_assert_int_eq(xfsj_io_concat(a, b, B_OFF, &c), 0);
}

static void teardown(void)
{
	xfsj_io_close(c);
	xfsj_io_close(b);
	xfsj_io_close(a);
}

START_TEST(size_and_reads)
{
	uint8_t buf[B_OFF + B_SIZE];

	ck_assert_uint_eq(c->size, B_OFF + B_SIZE);
	/* One read over a, the gap and b. */
	ck_assert_int_eq(xfsj_pread(c, buf, sizeof(buf), 0), 0);
	for (size_t i = 0; i < A_SIZE; i++)
		ck_assert_uint_eq(buf[i], (uint8_t)(i * 7 + 1));
	for (size_t i = A_SIZE; i < B_OFF; i++)
		ck_assert_uint_eq(buf[i], 0);
	for (size_t i = 0; i < B_SIZE; i++)
		ck_assert_uint_eq(buf[B_OFF + i], (uint8_t)(i * 13 + 5));
	/* Past the end, and a length that wraps. */
	ck_assert_int_ne(xfsj_pread(c, buf, 2, c->size - 1), 0);
	ck_assert_int_ne(xfsj_pread(c, buf, 1, c->size), 0);
	ck_assert_int_ne(xfsj_pread(c, buf, SIZE_MAX, 1), 0);
}
END_TEST

START_TEST(writes)
{
	uint8_t w[200], r[200];
	uint8_t *pa = xfsj_io_mem_buffer(a), *pb = xfsj_io_mem_buffer(b);

	memset(w, 0xee, sizeof(w));
	/* The log device's first bytes, through the concatenation. */
	ck_assert_int_eq(xfsj_pwrite(c, w, 100, B_OFF), 0);
	ck_assert_uint_eq(pb[0], 0xee);
	ck_assert_uint_eq(pb[99], 0xee);
	ck_assert_uint_eq(pb[100], (uint8_t)(100 * 13 + 5));
	/* The data device's last bytes. */
	ck_assert_int_eq(xfsj_pwrite(c, w, 50, A_SIZE - 50), 0);
	ck_assert_uint_eq(pa[A_SIZE - 1], 0xee);
	ck_assert_uint_eq(pa[A_SIZE - 51], (uint8_t)((A_SIZE - 51) * 7 + 1));
	/* Into the gap: refused. */
	ck_assert_int_ne(xfsj_pwrite(c, w, 100, A_SIZE - 50), 0);
	ck_assert_int_ne(xfsj_pwrite(c, w, 1, A_SIZE), 0);
	/* Zeroing over the gap is fine and leaves it zero. */
	ck_assert_int_eq(xfsj_io_zero(c, A_SIZE - 10, B_OFF - A_SIZE + 20), 0);
	ck_assert_int_eq(xfsj_pread(c, r, 20, B_OFF - 10), 0);
	for (int i = 0; i < 20; i++)
		ck_assert_uint_eq(r[i], 0);
	ck_assert_uint_eq(pa[A_SIZE - 11], 0xee);
	ck_assert_uint_eq(pb[10], 0xee);
	ck_assert_int_eq(xfsj_io_sync(c), 0);
}
END_TEST

START_TEST(refused_layouts)
{
	struct xfsj_io *x = NULL;

	/* The second device may not start inside the first. */
	ck_assert_int_ne(xfsj_io_concat(a, b, A_SIZE - 1, &x), 0);
	ck_assert_ptr_null(x);
	ck_assert_int_eq(xfsj_io_concat(a, b, A_SIZE, &x), 0);
	ck_assert_uint_eq(x->size, A_SIZE + B_SIZE);
	xfsj_io_close(x);
	/* a and b are still open and readable. */
	ck_assert_int_eq(xfsj_pread(b, (uint8_t[4]){ 0 }, 4, 0), 0);
}
END_TEST

Suite *io_concat_suite(void)
{
	Suite *s = suite_create("io_concat");
	TCase *tc = tcase_create("concat");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, size_and_reads);
	tcase_add_test(tc, writes);
	tcase_add_test(tc, refused_layouts);
	suite_add_tcase(s, tc);
	return s;
}
