/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The policy of the problem table: every row that names a fix names a
 * handler that carries out that fix kind and has code (the one row whose
 * fix is written elsewhere excepted, and said so), every handler is named
 * by some row, and, row by row on small fixtures, the handler runs: the
 * problem is found, the repair answers it, and the check after it finds
 * neither that row nor any other.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "row_fixture.h"
#include "suites.h"
#include "xfsj/check.h"
#include "xfsj/repair.h"
#include "core/crc32c.h"
#include "core/layout.h"
#include "fs/bmap.h"
#include "fs/bmbt.h"
#include "fs/dir_write.h"
#include "ondisk/dir_block.h"
#include "ondisk/format.h"
#include "fs/alloc.h"
#include "fs/attr.h"
#include "fs/defer.h"

#define MB	(1ULL << 20)

START_TEST(every_fixable_row_has_a_handler)
{
	size_t i, n = xfsj_problem_count();

	ck_assert_uint_gt(n, 200);
	for (i = 0; i < n; i++) {
		const struct xfsj_problem_def *d = xfsj_problem_nth(i);

		ck_assert_str_ne(xfsj_handler_name(d->handler), "?");
		if (d->fix == XFSJ_FIX_NONE) {
			ck_assert_msg(d->handler == XFSJ_H_NONE,
				      "%s: report only, but names handler %s",
				      d->code, xfsj_handler_name(d->handler));
			continue;
		}
		ck_assert_msg(d->handler != XFSJ_H_NONE,
			      "%s: fix %s but no handler", d->code,
			      xfsj_fix_name(d->fix));
		ck_assert_msg(xfsj_handler_fix(d->handler) == d->fix,
			      "%s: fix %s, its handler %s does %s", d->code,
			      xfsj_fix_name(d->fix),
			      xfsj_handler_name(d->handler),
			      xfsj_fix_name(xfsj_handler_fix(d->handler)));
		ck_assert_msg(xfsj_handler_implemented(d->handler),
			      "%s: handler %s has no code", d->code,
			      xfsj_handler_name(d->handler));
	}
}
END_TEST

START_TEST(every_handler_is_named)
{
	size_t n = xfsj_problem_count();

	for (int h = 1; h < XFSJ_H__COUNT; h++) {
		bool named = false;

		ck_assert_str_ne(xfsj_handler_name((enum xfsj_handler)h), "?");
		for (size_t i = 0; i < n && !named; i++)
			named = xfsj_problem_nth(i)->handler ==
				(enum xfsj_handler)h;
		ck_assert_msg(named, "handler %s: no row names it",
			      xfsj_handler_name((enum xfsj_handler)h));
	}
	ck_assert_str_eq(xfsj_handler_name(XFSJ_H__COUNT), "?");
	ck_assert(!xfsj_handler_implemented(XFSJ_H__COUNT));
}
END_TEST

/*
 * The AG stage reads the traits, not the structure column: every row the
 * stage answers has the trait of its structure, and no other row has it.
 */
START_TEST(ag_rows_carry_their_tree)
{
	static const struct {
		const char *structure;
		unsigned int trait;
	} t[] = {
		{ "AGI", XFSJ_T_AGI_HEADER },
		{ "inobt", XFSJ_T_INOBT },
		{ "finobt", XFSJ_T_FINOBT },
		{ "refcountbt", XFSJ_T_REFC_BTREE },
	};
	size_t i, k, n = xfsj_problem_count(), marked = 0;

	for (i = 0; i < n; i++) {
		const struct xfsj_problem_def *d = xfsj_problem_nth(i);
		bool ag = d->fix == XFSJ_FIX_AG_HEADER ||
			  d->fix == XFSJ_FIX_REBUILD_BTREE ||
			  d->fix == XFSJ_FIX_FREE_SPACE;

		for (k = 0; k < sizeof(t) / sizeof(t[0]); k++) {
			bool want = ag && !strcmp(d->structure, t[k].structure);

			ck_assert_msg(want == !!(d->traits & t[k].trait),
				      "%s: trait of %s %s", d->code,
				      t[k].structure, want ? "missing" : "extra");
			marked += want;
		}
	}
	ck_assert_uint_ge(marked, 20);
}
END_TEST

/* ---- the handlers run ---- */

/*
 * One rule per fact: a device node's nblocks is its attribute fork's
 * blocks.  The inode core once had its own rule (a device holds no
 * blocks) and the forks' walk another; the two set the field back and
 * forth.  Now the walk alone decides, the repair keeps the count.
 */
START_TEST(nblocks_one_rule)
{
	static uint8_t v[2000];
	/* a user attribute (namespace 0) too big for the inode */
	struct xfsj_attr_arg a = { 0, (const uint8_t *)"big",
				   3, v, sizeof(v), false };
	struct xfsj_repair_result res;
	struct fs_fixture fx;
	struct xfsj_iref ip;
	uint64_t ino, nblocks;
	struct seen s;

	fs_fixture_make(&fx, 64 * MB, 4096, 2, true, false);
	ino = fs_fixture_make_file(&fx, 10, 5,
				   (fx.sb.features_incompat &
				    XFSJ_INCOMPAT_NREXT64) ?
				   XFSJ_DIFLAG2_NREXT64 : 0, 0, &ip);
	ip.di.mode = 020644;		/* a character device */
	ip.di.format = XFSJ_DINODE_FMT_DEV;
	xfsj_iput(fx.fs, &ip, false);
	ck_assert_int_eq(xfsj_iget(fx.fs, ino, true, &ip, &fx.f), 0);
	ck_assert_int_eq(xfsj_attr_set(fx.fs, &ip, &a, XFSJ_ATTR_UPSERT,
				       &fx.f), 0);
	xfsj_iput(fx.fs, &ip, false);
	ck_assert_int_eq(xfsj_defer_finish(fx.fs, &fx.f), 0);
	ck_assert_int_eq(xfsj_iget(fx.fs, ino, true, &ip, &fx.f), 0);
	nblocks = ip.di.nblocks;
	ck_assert_uint_ge(nblocks, 1);
	check_into(&fx, &s);
	for (size_t i = 0; i < s.n; i++)
		ck_assert_msg(!strstr(s.codes[i], "nblocks"), "%s",
			      s.codes[i]);
	/* (named by no directory: the repair moves it to lost+found) */
	fs_fixture_reopen(&fx);
	ck_assert_int_eq(xfsj_repair(fx.fs, NULL, NULL, &res), 0);
	check_into(&fx, &s);
	ck_assert_msg(s.n == 0, "%zu left, first %s", s.n, s.codes[0]);
	ck_assert_int_eq(xfsj_iget(fx.fs, ino, true, &ip, &fx.f), 0);
	ck_assert_uint_eq(ip.di.nblocks, nblocks);
	fs_fixture_free(&fx);
}
END_TEST

/*
 * One rule per fact: an entry's file type is decided by its child's mode
 * alone (dirent.ftype), also when the byte names no type at all (there
 * was a second row, dir.entry.ftype, for that): one row found, the
 * repair sets the child's type, and the check finds nothing more.
 */
START_TEST(ftype_one_rule)
{
	struct xfsj_repair_result res;
	struct fs_fixture fx;
	struct xfsj_buf *bp;
	uint32_t bsize;
	uint8_t *at;
	struct seen s;

	fs_fixture_make(&fx, 64 * MB, 4096, 2, true, false);
	bp = root_block_dir(&fx);
	/* Entry 7's file type byte (after its name) made 9: no type. */
	bsize = fx.sb.blocksize;
	at = root_dir_ftype7(&fx, bp);
	*at = 9;
	xfsj_cksum_update(bp->data, bsize, XFSJ_DIR3_OFF_CRC);
	xfsj_buf_dirty(bp);
	check_into(&fx, &s);
	ck_assert_msg(s.n == 1 && has(&s, "dirent.ftype"), "%zu rows, %s",
		      s.n, s.n ? s.codes[0] : "-");
	fs_fixture_reopen(&fx);
	ck_assert_int_eq(xfsj_repair(fx.fs, NULL, NULL, &res), 0);
	check_into(&fx, &s);
	ck_assert_msg(s.n == 0, "%zu left, first %s", s.n, s.codes[0]);
	fs_fixture_free(&fx);
}
END_TEST

/*
 * One rule per fact: an extent count is the number of mappings its fork
 * holds (fork.nextents), also when the core's count is one the fork's
 * format cannot hold (there was a second row, inode.nextents, with its
 * own rule for that).  Each wrong count: one row, one fix setting what
 * the fork holds, and the check finds nothing more.
 */
static const struct {
	int which;		/* 0 the file, 1 the device */
	bool attr;
	uint64_t count, holds;
} counts[] = {
	{ 0, false, 100, 2 },	/* over an extents fork's room */
	{ 0, false, 3, 2 },	/* within it, more than it maps */
	{ 1, false, 3, 0 },	/* a device fork */
	{ 0, true, 2, 0 },	/* no attribute fork */
};

START_TEST(nextents_one_rule)
{
	struct xfsj_repair_result res;
	struct fs_fixture fx;
	struct xfsj_iref ip;
	uint64_t ino[2];
	struct seen s;

	fs_fixture_make(&fx, 64 * MB, 4096, 2, true, false);
	two_named_files(&fx, ino);
	ck_assert_int_eq(xfsj_iget(fx.fs, ino[counts[_i].which], true, &ip,
				   &fx.f), 0);
	xfsj_dinode_set_nextents(&ip.di, counts[_i].attr, counts[_i].count);
	xfsj_iput(fx.fs, &ip, false);
	check_into(&fx, &s);
	ck_assert_msg(s.n == 1 && has(&s, "fork.nextents"), "%zu rows, %s",
		      s.n, s.n ? s.codes[0] : "-");
	fs_fixture_reopen(&fx);
	ck_assert_int_eq(xfsj_repair(fx.fs, NULL, NULL, &res), 0);
	ck_assert_uint_eq(res.actions, 1);
	check_into(&fx, &s);
	ck_assert_msg(s.n == 0, "%zu left, first %s", s.n, s.codes[0]);
	ck_assert_int_eq(xfsj_iget(fx.fs, ino[counts[_i].which], true, &ip,
				   &fx.f), 0);
	ck_assert_uint_eq(counts[_i].attr ? xfsj_dinode_anextents(&ip.di)
					  : xfsj_dinode_nextents(&ip.di),
			  counts[_i].holds);
	fs_fixture_free(&fx);
}
END_TEST

/* The inode numbers the target rows name, and how many of each. */
struct targets {
	uint64_t bad[8], freed[8];
	size_t nbad, nfreed, other;
};

static void on_target(void *arg, const struct xfsj_problem *p)
{
	struct targets *t = arg;

	if (!strcmp(p->def->code, "dir.entry.ino") && t->nbad < 8)
		t->bad[t->nbad++] = p->found;
	else if (!strcmp(p->def->code, "dirent.target") && t->nfreed < 8)
		t->freed[t->nfreed++] = p->expected;
	else if (p->def->sev != XFSJ_SEV_INFO)
		t->other++;
}

/*
 * dir.entry.ino (a number no inode can have) and dirent.target (a valid
 * number whose inode is not in use) are two facts, decided apart by one
 * predicate: a directory naming one of each reports each once, and no
 * entry both.
 */
START_TEST(entry_target_disjoint)
{
	struct fs_fixture fx;
	struct xfsj_iref ip;
	struct xfsj_dirent d[3];
	struct targets t = { 0 };
	struct xfsj_check_cb cb = { .arg = &t, .problem = on_target };
	struct xfsj_check_result res;
	uint64_t file, invalid, unused;

	fs_fixture_make(&fx, 64 * MB, 4096, 2, true, false);
	file = fs_fixture_make_file(&fx, 10, 1, 0, 0, &ip);
	/* AG 5 of a 2-AG filesystem; a slot of the root's chunk never used */
	invalid = xfsj_agino_to_ino(&fx.sb, 5, 200);
	unused = fx.sb.rootino + 20;
	d[0] = (struct xfsj_dirent){ "file", 4, XFSJ_FT_REG, file };
	d[1] = (struct xfsj_dirent){ "invalid", 7, XFSJ_FT_REG, invalid };
	d[2] = (struct xfsj_dirent){ "unused", 6, XFSJ_FT_REG, unused };
	ck_assert_int_eq(xfsj_dir_write(fx.fs, fx.sb.rootino, fx.sb.rootino,
					d, 3, false, &fx.f), 0);
	fs_fixture_reopen(&fx);
	ck_assert_int_eq(xfsj_check(fx.fs, NULL, &cb, &res), 0);
	ck_assert_uint_eq(t.nbad, 1);
	ck_assert_uint_eq(t.bad[0], invalid);
	ck_assert_uint_eq(t.nfreed, 1);
	ck_assert_uint_eq(t.freed[0], unused);
	fs_fixture_free(&fx);
}
END_TEST

Suite *repair_policy_suite(void)
{
	Suite *s = suite_create("repair_policy");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, every_fixable_row_has_a_handler);
	tcase_add_test(tc, every_handler_is_named);
	tcase_add_test(tc, ag_rows_carry_their_tree);
	tcase_add_test(tc, nblocks_one_rule);
	tcase_add_test(tc, entry_target_disjoint);
	tcase_add_loop_test(tc, nextents_one_rule, 0,
			    sizeof(counts) / sizeof(counts[0]));
	tcase_add_test(tc, ftype_one_rule);
	suite_add_tcase(s, tc);
	return s;
}
