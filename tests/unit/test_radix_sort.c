/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The stable radix sort (core/radix_sort.c) against a stable reference:
 * qsort with the keys compared in turn and the original position last.
 * Random keys, keys that differ only in their top byte, every record
 * equal, sorted and reversed input, the extremes 0 and UINT64_MAX, sizes
 * around the short-input cut and record sizes that are no multiple of 8.
 */
#include <stdlib.h>
#include <string.h>

#include "suites.h"
#include "core/radix_sort.h"

struct rec {
	uint64_t a;
	uint32_t b;
	uint32_t pos;		/* the original position: the tie-break */
};

/* 12 bytes: a record size the word copy does not take. */
struct rec12 {
	uint32_t hi, lo;
	uint32_t pos;
};

static uint64_t key_a(const void *r)
{
	return ((const struct rec *)r)->a;
}

static uint64_t key_b(const void *r)
{
	return ((const struct rec *)r)->b;
}

static uint64_t key_12(const void *p)
{
	const struct rec12 *r = p;

	return (uint64_t)r->hi << 32 | r->lo;
}

static int ref_cmp(const void *pa, const void *pb)
{
	const struct rec *x = pa, *y = pb;

	if (x->a != y->a)
		return x->a < y->a ? -1 : 1;
	if (x->b != y->b)
		return x->b < y->b ? -1 : 1;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* By the first key alone, ties in their first order. */
static int ref_a_cmp(const void *pa, const void *pb)
{
	const struct rec *x = pa, *y = pb;

	if (x->a != y->a)
		return x->a < y->a ? -1 : 1;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

static int ref12_cmp(const void *pa, const void *pb)
{
	const struct rec12 *x = pa, *y = pb;
	uint64_t kx = key_12(x), ky = key_12(y);

	if (kx != ky)
		return kx < ky ? -1 : 1;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Fill by @kind, sort both ways, compare record by record. */
enum { K_RANDOM, K_TOP_BYTE, K_EQUAL, K_SORTED, K_REVERSED, K_EXTREMES,
       K_FEW_VALUES, K__N };

static void fill(struct rec *r, size_t n, int kind, uint64_t seed)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t x = rnd(&seed);

		r[i].pos = (uint32_t)i;
		switch (kind) {
		case K_RANDOM:
			r[i].a = x;
			r[i].b = (uint32_t)rnd(&seed);
			break;
		case K_TOP_BYTE:
			r[i].a = (x & 0xff00000000000000ULL) | 0x1234;
			r[i].b = 7;
			break;
		case K_EQUAL:
			r[i].a = 42;
			r[i].b = 42;
			break;
		case K_SORTED:
			r[i].a = i / 3;
			r[i].b = (uint32_t)(n - i);
			break;
		case K_REVERSED:
			r[i].a = UINT64_MAX - i;
			r[i].b = (uint32_t)i;
			break;
		case K_EXTREMES:
			r[i].a = x & 1 ? UINT64_MAX : 0;
			r[i].b = x & 2 ? UINT32_MAX : 0;
			break;
		default:	/* many ties in both keys */
			r[i].a = (x % 5) << 40;
			r[i].b = (uint32_t)(x >> 20) % 3;
			break;
		}
	}
}

static void sort_and_compare_on(size_t n, int kind, uint64_t seed,
				unsigned int threads, size_t nkeys)
{
	static const xfsj_sort_key keys[] = { key_a, key_b };
	struct rec *got = calloc(n ? n : 1, sizeof(*got));
	struct rec *want = calloc(n ? n : 1, sizeof(*want));

	ck_assert_ptr_nonnull(got);
	ck_assert_ptr_nonnull(want);
	fill(got, n, kind, seed);
	memcpy(want, got, n * sizeof(*got));
	qsort(want, n, sizeof(*want), nkeys == 1 ? ref_a_cmp : ref_cmp);
	ck_assert_int_eq(xfsj_radix_sort_threads(got, n, sizeof(*got), keys,
						 nkeys, threads), 0);
	for (size_t i = 0; i < n; i++) {
		ck_assert_uint_eq(got[i].a, want[i].a);
		ck_assert_uint_eq(got[i].b, want[i].b);
		ck_assert_uint_eq(got[i].pos, want[i].pos);
	}
	free(got);
	free(want);
}

static void sort_and_compare(size_t n, int kind, uint64_t seed)
{
	sort_and_compare_on(n, kind, seed, 1, 2);
}

START_TEST(every_kind_every_size)
{
	static const size_t sizes[] = { 0, 1, 2, 3, 63, 64, 65, 128, 257,
					1000, 4099 };

	for (int kind = 0; kind < K__N; kind++)
		for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
			sort_and_compare(sizes[s], kind, 0x9e3779b97f4a7c15ULL +
					 (uint64_t)kind * 31 + s);
}
END_TEST

START_TEST(large_random)
{
	/* Every byte of both keys varies: sixteen passes and more. */
	sort_and_compare(200000, K_RANDOM, 12345);
	sort_and_compare(200000, K_FEW_VALUES, 777);
}
END_TEST

START_TEST(threads_same_order)
{
	/*
	 * Past the cut where threads are used (8k records): every kind of
	 * keys, one key and two, on 2, 3 and 8 threads (shares of unequal
	 * size, runs of ties across the cuts); what one thread gives.
	 */
	static const unsigned int threads[] = { 2, 3, 8 };

	for (int kind = 0; kind < K__N; kind++)
		for (size_t t = 0; t < 3; t++) {
			sort_and_compare_on(9001, kind, 17 + kind,
					    threads[t], 2);
			sort_and_compare_on(20011, kind, 99 + kind,
					    threads[t], 1);
		}
}
END_TEST

START_TEST(odd_record_size)
{
	static const xfsj_sort_key keys[] = { key_12 };
	size_t n = 5000;
	struct rec12 *got = calloc(n, sizeof(*got));
	struct rec12 *want = calloc(n, sizeof(*want));
	uint64_t seed = 99;

	ck_assert_uint_eq(sizeof(struct rec12), 12);
	ck_assert_ptr_nonnull(got);
	ck_assert_ptr_nonnull(want);
	for (size_t i = 0; i < n; i++) {
		got[i].hi = (uint32_t)rnd(&seed) % 4;
		got[i].lo = (uint32_t)rnd(&seed) % 1000;
		got[i].pos = (uint32_t)i;
	}
	memcpy(want, got, n * sizeof(*got));
	qsort(want, n, sizeof(*want), ref12_cmp);
	ck_assert_int_eq(xfsj_radix_sort(got, n, sizeof(*got), keys, 1), 0);
	ck_assert_mem_eq(got, want, n * sizeof(*got));
	free(got);
	free(want);
}
END_TEST

START_TEST(no_keys_no_change)
{
	struct rec r[40], copy[40];

	fill(r, 40, K_RANDOM, 5);
	memcpy(copy, r, sizeof(r));
	ck_assert_int_eq(xfsj_radix_sort(r, 40, sizeof(r[0]), NULL, 0), 0);
	ck_assert_mem_eq(r, copy, sizeof(r));
}
END_TEST

Suite *radix_sort_suite(void)
{
	Suite *s = suite_create("radix_sort");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, every_kind_every_size);
	tcase_add_test(tc, large_random);
	tcase_add_test(tc, threads_same_order);
	tcase_add_test(tc, odd_record_size);
	tcase_add_test(tc, no_keys_no_change);
	suite_add_tcase(s, tc);
	return s;
}
