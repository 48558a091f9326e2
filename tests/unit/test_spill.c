/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Arrays that spill to a scratch file (core/spill.c). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "suites.h"
#include "xfsj/errors.h"
#include "core/spill.h"

/* A record with a key and a payload that tells equal keys apart. */
struct rec {
	uint32_t key;
	uint32_t seq;
	uint64_t payload;
};

static int by_key(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;

	return (x->key > y->key) - (x->key < y->key);
}

struct arr {
	struct rec *v;
	size_t n, cap;
	uint64_t foff;
};

static const char *tmpdir(void)
{
	const char *d = getenv("TMPDIR");

	return d && *d ? d : "/tmp";
}

/* Fill @a with @n records (keys repeat: the sort must be stable). */
static void fill(struct xfsj_spill *sp, struct arr *a, size_t n)
{
	uint32_t x = 12345;

	a->v = NULL;
	a->n = a->cap = 0;
	a->foff = XFSJ_SPILL_RAM;
	for (size_t i = 0; i < n; i++) {
		x = x * 1103515245u + 12345u;
		if (a->n == a->cap)
			ck_assert_int_eq(xfsj_spill_grow(sp, &a->v, &a->cap,
							 &a->foff, a->n, 1,
							 sizeof(*a->v), 64), 0);
		a->v[a->n++] = (struct rec){ .key = (x >> 8) % 5000,
					     .seq = (uint32_t)i,
					     .payload = (uint64_t)i * 7 };
	}
}

/* The same records in RAM and under a tiny bound: in the file. */
START_TEST(same_in_ram_and_spilled)
{
	struct xfsj_spill *sp;
	struct xfsj_spill_stats st;
	struct arr ram, sp_arr;
	const size_t n = 300000;	/* 4.8 MB of records */
	size_t bad;

	ck_assert_int_eq(xfsj_spill_new(tmpdir(), 256 << 10, 0, &sp), 0);
	fill(NULL, &ram, n);
	fill(sp, &sp_arr, n);
	ck_assert_uint_ne(sp_arr.foff, XFSJ_SPILL_RAM);
	ck_assert_uint_eq(sp_arr.n, n);
	ck_assert_int_eq(memcmp(ram.v, sp_arr.v, n * sizeof(*ram.v)), 0);
	xfsj_spill_stats(sp, &st);
	ck_assert_uint_ge(st.spills, 1);
	ck_assert_uint_ge(st.file_peak, n * sizeof(struct rec));
	ck_assert_uint_le(st.ram_peak, 256 << 10);
	/* Sorted: the same order (stable) in RAM and from sorted runs. */
	ck_assert_int_eq(xfsj_spill_sort(NULL, ram.v, ram.foff, ram.n,
					 sizeof(*ram.v), by_key), 0);
	ck_assert_int_eq(xfsj_spill_sort(sp, sp_arr.v, sp_arr.foff, sp_arr.n,
					 sizeof(*sp_arr.v), by_key), 0);
	/* (one assertion for the loop: Check pipes each one) */
	bad = 0;
	for (size_t i = 1; i < n; i++)
		bad += ram.v[i - 1].key > ram.v[i].key ||
		       (ram.v[i - 1].key == ram.v[i].key &&
			ram.v[i - 1].seq >= ram.v[i].seq);
	ck_assert_uint_eq(bad, 0);
	ck_assert_int_eq(memcmp(ram.v, sp_arr.v, n * sizeof(*ram.v)), 0);
	xfsj_spill_release(NULL, &ram.v, &ram.cap, &ram.foff, sizeof(*ram.v));
	xfsj_spill_release(sp, &sp_arr.v, &sp_arr.cap, &sp_arr.foff,
			   sizeof(*sp_arr.v));
	ck_assert_ptr_null(sp_arr.v);
	xfsj_spill_stats(sp, &st);
	ck_assert_uint_eq(st.failed_errno, 0);
	xfsj_spill_free(sp);
}
END_TEST

/* Across the switch: the records pushed before and after the move. */
START_TEST(across_the_switch)
{
	struct xfsj_spill *sp;
	struct arr a, small;
	uint64_t foff_before;
	size_t bad;

	ck_assert_int_eq(xfsj_spill_new(tmpdir(), 1 << 20, 0, &sp), 0);
	/* A small array keeps RAM; a big one passes the bound and moves. */
	fill(sp, &small, 1000);
	ck_assert_uint_eq(small.foff, XFSJ_SPILL_RAM);
	fill(sp, &a, 20000);		/* 512 KiB of capacity: in RAM */
	ck_assert_uint_eq(a.foff, XFSJ_SPILL_RAM);
	foff_before = a.foff;
	for (size_t i = 20000; i < 100000; i++) {
		if (a.n == a.cap)
			ck_assert_int_eq(xfsj_spill_grow(sp, &a.v, &a.cap,
							 &a.foff, a.n, 1,
							 sizeof(*a.v), 64), 0);
		a.v[a.n++] = (struct rec){ .key = (uint32_t)i,
					   .seq = (uint32_t)i,
					   .payload = i * 7 };
	}
	ck_assert_uint_ne(a.foff, foff_before);
	ck_assert_uint_ne(a.foff, XFSJ_SPILL_RAM);
	bad = 0;
	for (size_t i = 20000; i < 100000; i++)
		bad += a.v[i].payload != i * 7;
	ck_assert_uint_eq(bad, 0);
	/* The first part, made in RAM, came along. */
	{
		struct arr ref;

		fill(NULL, &ref, 20000);
		ck_assert_int_eq(memcmp(ref.v, a.v, 20000 * sizeof(*a.v)), 0);
		xfsj_spill_release(NULL, &ref.v, &ref.cap, &ref.foff,
				   sizeof(*ref.v));
	}
	xfsj_spill_release(sp, &a.v, &a.cap, &a.foff, sizeof(*a.v));
	xfsj_spill_release(sp, &small.v, &small.cap, &small.foff,
			   sizeof(*small.v));
	xfsj_spill_free(sp);
}
END_TEST

/* An arena's blocks: zeroed, never moving, spilled past the bound. */
START_TEST(arena_blocks_stay)
{
	struct xfsj_spill *sp;
	struct xfsj_spill_arena ar;
	struct xfsj_spill_stats st;
	static const uint32_t zero[384];
	uint32_t *p[3000];
	size_t bad;
	int err;

	ck_assert_int_eq(xfsj_spill_new(tmpdir(), 1 << 20, 0, &sp), 0);
	xfsj_spill_arena_init(&ar);
	bad = 0;
	for (uint32_t i = 0; i < 3000; i++) {
		p[i] = xfsj_spill_zalloc(sp, &ar, 1536, &err);
		if (!p[i] || err || memcmp(p[i], zero, sizeof(zero))) {
			bad++;
			break;
		}
		p[i][0] = i;
		p[i][383] = ~i;
	}
	ck_assert_uint_eq(bad, 0);
	bad = 0;
	for (uint32_t i = 0; i < 3000; i++)
		bad += p[i][0] != i || p[i][383] != ~i;
	ck_assert_uint_eq(bad, 0);
	ck_assert_uint_ge(xfsj_spill_arena_bytes(&ar), 3000 * 1536);
	xfsj_spill_stats(sp, &st);
	ck_assert_uint_ge(st.file_peak, 1 << 20);
	ck_assert_ptr_null(xfsj_spill_zalloc(sp, &ar, 2 << 20, &err));
	ck_assert_int_eq(err, -XFSJ_E_INVAL);
	xfsj_spill_arena_free(sp, &ar);
	xfsj_spill_free(sp);
}
END_TEST

/* A directory where no file can be made: -XFSJ_E_SCRATCH, and why. */
START_TEST(no_scratch_space)
{
	struct xfsj_spill *sp;
	struct xfsj_spill_stats st;
	struct arr a = { .foff = XFSJ_SPILL_RAM };
	size_t bad;
	int err = 0;

	ck_assert_int_eq(xfsj_spill_new("/nonexistent-xfsj-dir", 64 << 10, 0,
					 &sp), 0);
	for (size_t i = 0; i < 100000 && !err; i++) {
		if (a.n == a.cap)
			err = xfsj_spill_grow(sp, &a.v, &a.cap, &a.foff, a.n,
					      1, sizeof(*a.v), 64);
		if (!err)
			a.v[a.n++] = (struct rec){ .key = (uint32_t)i };
	}
	ck_assert_int_eq(err, -XFSJ_E_SCRATCH);
	/* The array as it was before the refused growth. */
	ck_assert_uint_eq(a.foff, XFSJ_SPILL_RAM);
	ck_assert_uint_eq(a.n, a.cap);
	bad = 0;
	for (size_t i = 0; i < a.n; i++)
		bad += a.v[i].key != i;
	ck_assert_uint_eq(bad, 0);
	xfsj_spill_stats(sp, &st);
	ck_assert_int_eq(st.failed_errno, ENOENT);
	ck_assert_uint_gt(st.failed_bytes, 64 << 10);
	ck_assert_str_eq(xfsj_spill_path(sp),
			 "/nonexistent-xfsj-dir/xfsj-scratch.XXXXXX");
	xfsj_spill_release(sp, &a.v, &a.cap, &a.foff, sizeof(*a.v));
	xfsj_spill_free(sp);
	ck_assert_int_eq(xfsj_spill_new("", 1, 0, &sp), -XFSJ_E_INVAL);
}
END_TEST

Suite *spill_suite(void)
{
	Suite *s = suite_create("spill");
	TCase *tc = tcase_create("spill");

	tcase_add_test(tc, same_in_ram_and_spilled);
	tcase_add_test(tc, across_the_switch);
	tcase_add_test(tc, arena_blocks_stay);
	tcase_add_test(tc, no_scratch_space);
	suite_add_tcase(s, tc);
	return s;
}
