/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The AG indexes of the check (check/ag_index.c) against the plain walks
 * they replace: on seeded tables with overlapping records (free extents
 * listed twice, an extent shared by many owners as reflink makes it,
 * metadata among inode records), every lookup of many ranges gives what
 * a walk of the whole table gives.  Also: the work counter grows by one
 * per lookup, and the index bytes are counted and given back.
 */
#include <stdlib.h>
#include <string.h>

#include "suites.h"
#include "check/check_priv.h"

#define NREC	3000
#define SPAN	20000	/* AG blocks the records fall in */

struct tix {
	struct xck ck;
	struct xfsj_check_result res;
	struct xck_ag ag;
	uint64_t rnd;
};

static uint32_t rnd(struct tix *t, uint32_t n)
{
	t->rnd = t->rnd * 6364136223846793005ULL + 1442695040888963407ULL;
	return (uint32_t)(t->rnd >> 33) % n;
}

static int rmap_start_cmp(const void *a, const void *b)
{
	const struct xfsj_rmap_rec *x = a, *y = b;

	if (x->startblock != y->startblock)
		return x->startblock < y->startblock ? -1 : 1;
	return x->owner < y->owner ? -1 : x->owner > y->owner;
}

/* An owner: mostly inodes, some metadata (top bit set). */
static uint64_t some_owner(struct tix *t)
{
	return rnd(t, 8) ? 128 + rnd(t, 40) : ~0ULL - rnd(t, 6);
}

static void setup(struct tix *t, uint64_t seed)
{
	struct xfsj_alloc_rec a;
	struct xfsj_rmap_rec r;
	unsigned int i, k;

	memset(t, 0, sizeof(*t));
	t->rnd = seed;
	t->ck.res = &t->res;
	t->ck.ags = &t->ag;
	t->ck.agcount = 1;
	xck_vec_init(&t->ag.cnt_free, sizeof(struct xfsj_alloc_rec));
	xck_vec_init(&t->ag.rmaps, sizeof(struct xfsj_rmap_rec));
	xck_vec_init(&t->ag.claims, sizeof(struct xfsj_rmap_rec));
	for (i = 0; i < NREC; i++) {
		a.startblock = rnd(t, SPAN);
		a.blockcount = 1 + rnd(t, i % 50 ? 8 : 400);
		ck_assert_int_eq(xck_vec_push(&t->ck, &t->ag.cnt_free, &a), 0);
		r.startblock = rnd(t, SPAN);
		r.blockcount = 1 + rnd(t, i % 40 ? 6 : 300);
		r.owner = some_owner(t);
		r.offset = 0;
		ck_assert_int_eq(xck_vec_push(&t->ck, &t->ag.rmaps, &r), 0);
		r.owner = some_owner(t);
		ck_assert_int_eq(xck_vec_push(&t->ck, &t->ag.claims, &r), 0);
	}
	/* One block shared by 500 files (reflink). */
	for (k = 0; k < 500; k++) {
		r = (struct xfsj_rmap_rec){ .startblock = 777, .blockcount = 1,
					    .owner = 1000 + k };
		ck_assert_int_eq(xck_vec_push(&t->ck, &t->ag.rmaps, &r), 0);
	}
	xck_vec_sort(&t->ag.rmaps, rmap_start_cmp);
}

static bool walk_cnt(const struct tix *t, uint32_t s, uint32_t e)
{
	for (size_t i = 0; i < t->ag.cnt_free.n; i++) {
		const struct xfsj_alloc_rec *a = xck_vec_at(&t->ag.cnt_free, i);

		if (a->startblock <= s &&
		    (uint64_t)a->startblock + a->blockcount >= e)
			return true;
	}
	return false;
}

static bool walk_owner(const struct xck_vec *v, uint64_t owner, uint32_t s,
		       uint32_t e)
{
	for (size_t i = 0; i < v->n; i++) {
		const struct xfsj_rmap_rec *r = xck_vec_at(v, i);

		if (r->owner == owner && r->startblock < e &&
		    s < (uint64_t)r->startblock + r->blockcount)
			return true;
	}
	return false;
}

START_TEST(index_lookups_match_walks)
{
	struct tix *t = malloc(sizeof(*t));
	unsigned int q, hits[3] = { 0 };
	uint64_t meta = 0;

	ck_assert_ptr_nonnull(t);
	setup(t, 42 + (uint64_t)_i);
	for (q = 0; q < 20000; q++) {
		uint32_t s = rnd(t, SPAN + 50), e = s + 1 + rnd(t, 30);
		uint64_t owner = q % 7 == 0 ? 1000 + rnd(t, 520) : some_owner(t);
		int got, want;

		want = walk_cnt(t, s, e);
		got = xck_ix_cnt_holds(&t->ck, &t->ag, s, e);
		ck_assert_int_eq(got, want);
		hits[0] += want;
		want = walk_owner(&t->ag.rmaps, owner, s, e);
		got = xck_ix_rmap_owner_over(&t->ck, &t->ag, owner, s, e);
		ck_assert_int_eq(got, want);
		hits[1] += want;
		want = (owner >> 63) && walk_owner(&t->ag.claims, owner, s, e);
		got = xck_ix_meta_claim_over(&t->ck, &t->ag, owner, s, e);
		ck_assert_int_eq(got, want);
		hits[2] += want;
	}
	/* Both answers came up often enough to mean something. */
	for (q = 0; q < 3; q++) {
		ck_assert_uint_gt(hits[q], 100);
		ck_assert_uint_lt(hits[q], 19900);
	}
	/*
	 * Three lookups per query, and each table read once to build (of
	 * the claims, the metadata ones only: the count must not depend on
	 * the inode claims made before the index is first asked for).
	 */
	for (size_t i = 0; i < t->ag.claims.n; i++) {
		const struct xfsj_rmap_rec *r = xck_vec_at(&t->ag.claims, i);

		meta += r->owner >> 63;
	}
	ck_assert_uint_eq(t->res.work[XFSJ_WK_LOOKUPS],
			  3 * 20000 + t->ag.cnt_free.n + t->ag.rmaps.n + meta);
	xck_ag_index_free(&t->ck, &t->ag);
	xck_vec_free(&t->ck, &t->ag.cnt_free);
	xck_vec_free(&t->ck, &t->ag.rmaps);
	xck_vec_free(&t->ck, &t->ag.claims);
	ck_assert_uint_eq(t->ck.state_bytes, 0);
	ck_assert_uint_gt(t->res.peak_state_bytes, 0);
	free(t);
}
END_TEST

START_TEST(index_next_meta)
{
	struct tix *t = malloc(sizeof(*t));
	const uint32_t *next;
	size_t i, j;

	ck_assert_ptr_nonnull(t);
	setup(t, 7);
	ck_assert_int_eq(xck_ix_rmap_next_meta(&t->ck, &t->ag, &next), 0);
	for (i = 0; i <= t->ag.rmaps.n; i++) {
		for (j = i; j < t->ag.rmaps.n; j++) {
			const struct xfsj_rmap_rec *r =
				xck_vec_at(&t->ag.rmaps, j);

			if (r->owner >> 63)
				break;
		}
		ck_assert_uint_eq(next[i], j);
	}
	xck_ag_index_free(&t->ck, &t->ag);
	xck_vec_free(&t->ck, &t->ag.cnt_free);
	xck_vec_free(&t->ck, &t->ag.rmaps);
	xck_vec_free(&t->ck, &t->ag.claims);
	ck_assert_uint_eq(t->ck.state_bytes, 0);
	free(t);
}
END_TEST

/*
 * A worker's table handed over at once (xck_vec_append): the same
 * elements in the same order as pushing them one by one, into an empty
 * table and after what it holds, and the bytes counted and given back.
 */
START_TEST(vec_append_as_pushes)
{
	struct xck ck;
	struct xfsj_check_result res;
	struct xck_vec a, b, src;
	uint64_t x;

	memset(&ck, 0, sizeof(ck));
	memset(&res, 0, sizeof(res));
	ck.res = &res;
	xck_vec_init(&a, sizeof(uint64_t));
	xck_vec_init(&b, sizeof(uint64_t));
	xck_vec_init(&src, sizeof(uint64_t));
	ck_assert_int_eq(xck_vec_append(&ck, &b, &src), 0);
	ck_assert_uint_eq(b.n, 0);
	for (int round = 0; round < 3; round++) {
		src.n = 0;
		for (x = 0; x < 1000u + 777u * (uint64_t)round; x++) {
			uint64_t v = x * 2654435761u + (uint64_t)round;

			ck_assert_int_eq(xck_vec_push(&ck, &src, &v), 0);
			ck_assert_int_eq(xck_vec_push(&ck, &a, &v), 0);
		}
		ck_assert_int_eq(xck_vec_append(&ck, &b, &src), 0);
		ck_assert_uint_eq(b.n, a.n);
		ck_assert_int_eq(memcmp(a.v, b.v, a.n * a.esz), 0);
	}
	xck_vec_free(&ck, &a);
	xck_vec_free(&ck, &b);
	xck_vec_free(&ck, &src);
	ck_assert_uint_eq(ck.state_bytes, 0);
}
END_TEST

Suite *check_index_suite(void)
{
	Suite *s = suite_create("check_index");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, index_lookups_match_walks, 0, 3);
	tcase_add_test(tc, index_next_meta);
	tcase_add_test(tc, vec_append_as_pushes);
	suite_add_tcase(s, tc);
	return s;
}
