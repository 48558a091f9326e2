/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Deferred work: free work returns space; a refcount decrease of an
 * unshared extent queues its free, which recovery's capture mode hands
 * back as a chain instead of running it; resuming the chain runs it.
 */
#include "fs_fixture.h"
#include "suites.h"
#include "fs/alloc.h"
#include "fs/defer.h"

static uint32_t agf_free(struct fs_fixture *fx, uint32_t agno)
{
	struct xfsj_buf *bp;
	struct xfsj_agf agf;

	ck_assert_int_eq(xfsj_agf_read(fx->fs, agno, &bp, &fx->f), 0);
	xfsj_agf_decode(bp->data, &agf);
	return agf.freeblks + agf.flcount;
}

static uint64_t grab(struct fs_fixture *fx, uint32_t agno, uint32_t near,
		     uint32_t len, uint64_t owner)
{
	struct xfsj_owner oi = { .owner = owner };
	uint32_t agbno = 0;

	ck_assert_int_eq(xfsj_alloc_extent(fx->fs, agno, near, len, &oi,
					   &agbno, &fx->f), 0);
	return xfsj_agb_to_fsb(&fx->sb, agno, agbno);
}

START_TEST(test_free_work)
{
	struct fs_fixture fx;
	uint64_t a, b, c;
	uint32_t before;

	fs_fixture_make(&fx, 256ULL << 20, 4096, 4, true, true);
	before = agf_free(&fx, 1);
	a = grab(&fx, 1, 100, 8, 1000);
	b = grab(&fx, 1, 200, 1, 1001);
	c = grab(&fx, 1, 300, 30, 1002);
	ck_assert_uint_eq(agf_free(&fx, 1), before - 39);
	struct xfsj_work w = { .kind = XFSJ_W_FREE };

	w.free.oi.owner = XFSJ_RMAP_OWN_UNKNOWN;
	w.fsbno = a; w.len = 8;
	ck_assert_int_eq(xfsj_defer_add(fx.fs, &w), 0);
	w.fsbno = b; w.len = 1;
	ck_assert_int_eq(xfsj_defer_add(fx.fs, &w), 0);
	w.fsbno = c; w.len = 30;
	ck_assert_int_eq(xfsj_defer_add(fx.fs, &w), 0);
	ck_assert_int_eq(xfsj_defer_finish(fx.fs, &fx.f), 0);
	ck_assert_uint_eq(agf_free(&fx, 1), before);
	ck_assert_uint_eq(xfsj_defer_done(fx.fs), 3);
	/* Freeing it again is corruption, and says so. */
	ck_assert_int_eq(xfsj_defer_add(fx.fs, &w), 0);
	ck_assert_int_lt(xfsj_defer_finish(fx.fs, &fx.f), 0);
	ck_assert_ptr_nonnull(fx.f.structure);
	fs_fixture_free(&fx);
}
END_TEST

START_TEST(test_capture_chain)
{
	struct fs_fixture fx;
	struct xfsj_defer_chain *chain = NULL;
	struct xfsj_work w = { .kind = XFSJ_W_REFC };
	uint32_t before;
	uint64_t a;

	fs_fixture_make(&fx, 256ULL << 20, 4096, 4, true, true);
	before = agf_free(&fx, 2);
	a = grab(&fx, 2, 50, 16, 2000);
	/* A data extent that is not shared: a decrease frees it. */
	w.fsbno = a;
	w.len = 16;
	w.refc.op = XFSJ_REFC_DECREASE;
	ck_assert_int_eq(xfsj_defer_add(fx.fs, &w), 0);
	ck_assert_int_eq(xfsj_defer_finish_capture(fx.fs, &chain, &fx.f), 0);
	ck_assert_ptr_nonnull(chain);
	ck_assert_uint_eq(agf_free(&fx, 2), before - 16);
	ck_assert_int_eq(xfsj_defer_resume(fx.fs, chain, &fx.f), 0);
	/*
	 * Free space is back; the extent's reverse mapping is the bmap
	 * layer's business (an RUI), which this free does not touch.
	 */
	ck_assert_uint_eq(agf_free(&fx, 2), before);
	fs_fixture_free(&fx);
}
END_TEST

START_TEST(test_bad_work)
{
	struct fs_fixture fx;
	struct xfsj_work w = { .kind = XFSJ_W_FREE, .len = 0 };

	fs_fixture_make(&fx, 64ULL << 20, 4096, 2, true, true);
	ck_assert_int_eq(xfsj_defer_add(fx.fs, &w), -XFSJ_E_INVAL);
	w.kind = (enum xfsj_work_kind)7;
	w.len = 1;
	ck_assert_int_eq(xfsj_defer_add(fx.fs, &w), -XFSJ_E_INVAL);
	/* An empty queue finishes at once. */
	ck_assert_int_eq(xfsj_defer_finish(fx.fs, &fx.f), 0);
	fs_fixture_free(&fx);
}
END_TEST

Suite *defer_suite(void)
{
	Suite *s = suite_create("defer");
	TCase *tc = tcase_create("defer");

	tcase_add_test(tc, test_free_work);
	tcase_add_test(tc, test_capture_chain);
	tcase_add_test(tc, test_bad_work);
	suite_add_tcase(s, tc);
	return s;
}
