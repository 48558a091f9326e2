/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The local check (check/recheck.c) against a whole one on the fixture
 * filesystem: after a change, xck_rerun on the state a whole check kept
 * finds the same problems and the same inodes in use as a whole check of
 * the changed filesystem.
 *
 *   - AG 2 asked XCK_REDO_AG after its free space and AGF changed (blocks
 *     allocated with no owner: a space problem): the AG stays at
 *     XCK_REDO_AG, its inodes' states kept;
 *   - AG 1 asked XCK_REDO_AG after an inode chunk was added there (the
 *     inobt and AGI changed): the AG is raised to XCK_REDO_ALL, its
 *     inodes scanned again;
 *   - AG 0 (the root's) asked XCK_REDO_AG with nothing changed: kept.
 */
#include <stdlib.h>
#include <string.h>

#include "suites.h"
#include "ino_fixture.h"
#include "check/check_priv.h"

static void count_problem(void *arg, const struct xfsj_problem *p)
{
	(void)p;
	(*(uint64_t *)arg)++;
}

/* A whole check of the fixture's handle; its state in *@keep if asked. */
static uint64_t whole(struct fs_fixture *fx, struct xfsj_check_result *res,
		      struct xck **keep)
{
	uint64_t n = 0;
	const struct xfsj_check_cb cb = { .arg = &n, .problem = count_problem };
	const struct xfsj_check_opts o = { .threads = 1 };

	ck_assert_int_eq(xfsj_fs_flush(fx->fs, &fx->f), 0);
	ck_assert_int_eq(xck_run(fx->fs, &o, &cb, res, keep), 0);
	return n;
}

/* The local check of @ck with @redo and no inode alone. */
static uint64_t local(struct fs_fixture *fx, struct xck *ck, uint8_t *redo,
		      struct xfsj_check_result *res)
{
	uint64_t n = 0;
	const struct xfsj_check_cb cb = { .arg = &n, .problem = count_problem };

	ck_assert_int_eq(xfsj_fs_flush(fx->fs, &fx->f), 0);
	ck_assert_int_eq(xck_rerun(ck, redo, NULL, &cb, res), 0);
	return n;
}

START_TEST(rerun_equals_whole)
{
	struct fs_fixture fx;
	struct xfsj_check_result res, wres;
	struct xck *ck = NULL;
	uint8_t redo[4] = { XCK_REDO_AG, XCK_REDO_AG, XCK_REDO_AG,
			    XCK_REDO_NONE };
	uint64_t found, want;

	fs_fixture_make(&fx, 256ULL << 20, 4096, 4, true, false);
	ck_assert_uint_eq(whole(&fx, &res, &ck), 0);
	ck_assert_ptr_nonnull(ck);
	ck_assert_uint_gt(res.inodes, 0);

	/* AG 2: blocks out of the free space, owned by nobody. */
	(void)fs_fixture_alloc(&fx, 2, 8);
	/* AG 1: a new chunk of free inodes. */
	(void)make_chunk(&fx, 1, 64);

	found = local(&fx, ck, redo, &res);
	want = whole(&fx, &wres, NULL);
	ck_assert_uint_gt(want, 0);
	ck_assert_uint_eq(found, want);
	ck_assert_uint_eq(res.inodes, wres.inodes);
	ck_assert_uint_eq(redo[0], XCK_REDO_AG);
	ck_assert_uint_eq(redo[1], XCK_REDO_ALL);
	ck_assert_uint_eq(redo[2], XCK_REDO_AG);
	ck_assert_uint_eq(redo[3], XCK_REDO_NONE);
	xck_free(ck);
	fs_fixture_free(&fx);
}
END_TEST

Suite *recheck_suite(void)
{
	Suite *s = suite_create("recheck");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, rerun_equals_whole);
	suite_add_tcase(s, tc);
	return s;
}
