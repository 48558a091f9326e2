/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The AG stage of the repair: the bulk loader (fs/btree_load.c) builds
 * trees the cursor reads back and xfsj_btree_check accepts, and damaged
 * AG btrees and headers of a fresh filesystem are rebuilt so that the
 * check finds nothing.
 */
#include <string.h>

#include <check.h>

#include "suites.h"
#include "fs_fixture.h"
#include "core/layout.h"
#include "fs/alloc.h"
#include "fs/btree_load.h"
#include "ondisk/format.h"
#include "xfsj/check.h"
#include "xfsj/repair.h"

#define MB	(1024ULL * 1024)

/* Records of the test trees: spaced so that keys are distinct. */
static void test_rec(void *arg, uint64_t i, union xfsj_btree_irec *rec)
{
	enum xfsj_btnum bt = *(enum xfsj_btnum *)arg;

	if (bt == XFSJ_BT_RMAP) {
		rec->r.startblock = (uint32_t)(100 + 2 * i);
		rec->r.blockcount = 1;
		rec->r.owner = 1000 + i;
		rec->r.offset = i;
	} else {
		rec->a.startblock = (uint32_t)(100 + 2 * i);
		rec->a.blockcount = 1;
	}
}

static int count_rec(struct xfsj_btree_cur *cur,
		     const union xfsj_btree_irec *rec, void *arg)
{
	uint64_t *n = arg;
	union xfsj_btree_irec want;
	enum xfsj_btnum bt = xfsj_btree_cur_btnum(cur);

	memset(&want, 0, sizeof(want));
	test_rec(&bt, *n, &want);
	if (bt == XFSJ_BT_RMAP) {
		if (rec->r.startblock != want.r.startblock ||
		    rec->r.owner != want.r.owner ||
		    rec->r.offset != want.r.offset)
			return 1;
	} else if (rec->a.startblock != want.a.startblock) {
		return 1;
	}
	(*n)++;
	return 0;
}

/* Load tree @bt of AG 1 with @nrecs records and read it back. */
static void load_and_check(enum xfsj_btnum bt, uint64_t nrecs)
{
	struct fs_fixture fx;
	struct xfsj_btree_geom g;
	struct xfsj_btree_cur *cur;
	struct xfsj_buf *agf;
	uint32_t blocks[64];
	uint64_t n = 0;
	const char *root = bt == XFSJ_BT_RMAP ? "rmap_root" : "bno_root";
	const char *level = bt == XFSJ_BT_RMAP ? "rmap_level" : "bno_level";

	fs_fixture_make(&fx, 64 * MB, 4096, 2, true, true);
	ck_assert_int_eq(xfsj_btree_load_geom(bt, 4096, nrecs, &g), 0);
	ck_assert_uint_le(g.blocks, 64);
	for (uint64_t i = 0; i < g.blocks; i++)
		blocks[i] = (uint32_t)(5000 + 3 * i);
	ck_assert_int_eq(xfsj_agf_read(fx.fs, 1, &agf, &fx.f), 0);
	ck_assert_int_eq(xfsj_layout_put(&xfsj_agf_layout, agf->data, root,
					 blocks[g.blocks - 1]), 0);
	ck_assert_int_eq(xfsj_layout_put(&xfsj_agf_layout, agf->data, level,
					 g.levels), 0);
	xfsj_buf_dirty(agf);
	ck_assert_int_eq(xfsj_btree_load(fx.fs, bt, 1, &g, blocks, test_rec,
					 &bt, &fx.f), 0);
	ck_assert_int_eq(xfsj_btree_cur_new(fx.fs, bt, 1, NULL, &fx.f, &cur),
			 0);
	ck_assert_uint_eq(xfsj_btree_height(cur), g.levels);
	ck_assert_int_eq(xfsj_btree_check(cur), 0);
	ck_assert_int_eq(xfsj_btree_query_all(cur, count_rec, &n), 0);
	ck_assert_uint_eq(n, nrecs);
	xfsj_btree_cur_free(cur);
	/* Again after a flush: the full verifiers, CRCs included. */
	fs_fixture_reopen(&fx);
	ck_assert_int_eq(xfsj_btree_cur_new(fx.fs, bt, 1, NULL, &fx.f, &cur),
			 0);
	ck_assert_int_eq(xfsj_btree_check(cur), 0);
	xfsj_btree_cur_free(cur);
	fs_fixture_free(&fx);
}

START_TEST(load_geometry)
{
	struct xfsj_btree_geom g;
	unsigned int leaf = xfsj_btree_maxrecs(XFSJ_BT_BNO, 4096, true);

	ck_assert_int_eq(xfsj_btree_load_geom(XFSJ_BT_BNO, 4096, 0, &g), 0);
	ck_assert_uint_eq(g.levels, 1);
	ck_assert_uint_eq(g.blocks, 1);
	ck_assert_int_eq(xfsj_btree_load_geom(XFSJ_BT_BNO, 4096, leaf, &g), 0);
	ck_assert_uint_eq(g.levels, 1);
	ck_assert_int_eq(xfsj_btree_load_geom(XFSJ_BT_BNO, 4096, leaf + 1,
					      &g), 0);
	ck_assert_uint_eq(g.levels, 2);
	ck_assert_uint_eq(g.per_level[0], 2);
	ck_assert_uint_eq(g.blocks, 3);
}
END_TEST

START_TEST(load_bnobt_one_leaf)
{
	load_and_check(XFSJ_BT_BNO, 37);
}
END_TEST

START_TEST(load_bnobt_empty)
{
	load_and_check(XFSJ_BT_BNO, 0);
}
END_TEST

START_TEST(load_bnobt_two_levels)
{
	load_and_check(XFSJ_BT_BNO, 2000);
}
END_TEST

START_TEST(load_rmapbt_overlapping)
{
	load_and_check(XFSJ_BT_RMAP, 1500);
}
END_TEST

static void on_left(void *arg, const struct xfsj_problem *p)
{
	(void)p;
	(*(unsigned int *)arg)++;
}

/* Repair, then check: nothing left, nothing found. */
static void repair_clean(struct fs_fixture *fx, uint64_t *rebuilt)
{
	unsigned int left = 0;
	struct xfsj_repair_cb cb = { .arg = &left, .left = on_left };
	struct xfsj_repair_result res;
	struct xfsj_check_result cres;

	ck_assert_int_eq(xfsj_repair(fx->fs, NULL, &cb, &res), 0);
	ck_assert_uint_eq(left, 0);
	ck_assert_uint_gt(res.actions, 0);
	*rebuilt = res.btrees_rebuilt;
	fs_fixture_reopen(fx);
	ck_assert_int_eq(xfsj_check(fx->fs, NULL, NULL, &cres), 0);
	ck_assert_uint_eq(cres.problems, 0);
}

/* A new filesystem whose AG 1 bnobt root is zeroed, repaired. */
static void repair_zeroed_bnobt_of(struct fs_fixture *fx, uint64_t *rebuilt)
{
	struct xfsj_buf *agf, *bp;
	uint32_t root;

	fs_fixture_make(fx, 64 * MB, 4096, 2, true, true);
	ck_assert_int_eq(xfsj_agf_read(fx->fs, 1, &agf, &fx->f), 0);
	root = xfsj_get_be32(agf->data + XFSJ_AGF_OFF(bno_root));
	ck_assert_int_eq(xfsj_buf_get_zero(fx->fs,
					   xfsj_agb_to_daddr(&fx->sb, 1, root),
					   4096, &bp), 0);
	xfsj_buf_dirty(bp);
	fs_fixture_reopen(fx);
	repair_clean(fx, rebuilt);
}

/* A bnobt root block zeroed: the free space trees come back. */
START_TEST(repair_zeroed_bnobt)
{
	struct fs_fixture fx;
	uint64_t rebuilt;

	repair_zeroed_bnobt_of(&fx, &rebuilt);
	ck_assert_uint_ge(rebuilt, 3);	/* bnobt, cntbt, rmapbt */
	fs_fixture_free(&fx);
}
END_TEST

/* AGF roots and counters wrong: the AGF is written anew. */
START_TEST(repair_bad_agf_fields)
{
	struct fs_fixture fx;
	struct xfsj_buf *agf;
	uint64_t rebuilt;

	fs_fixture_make(&fx, 64 * MB, 4096, 2, true, true);
	ck_assert_int_eq(xfsj_agf_read(fx.fs, 0, &agf, &fx.f), 0);
	xfsj_put_be32(agf->data + XFSJ_AGF_OFF(cnt_root), 0);
	xfsj_put_be32(agf->data + XFSJ_AGF_OFF(freeblks), 3);
	xfsj_buf_dirty(agf);
	fs_fixture_reopen(&fx);
	repair_clean(&fx, &rebuilt);
	ck_assert_uint_ge(rebuilt, 2);
	fs_fixture_free(&fx);
}
END_TEST

/*
 * A rebuilt AG starts with the AGFL the kernel wants for its new trees
 * (not empty: the first refill's rmapbt insert must have blocks to split
 * with), its blocks owned by the AG in the rebuilt rmapbt (the check
 * after the repair says so).
 */
START_TEST(repair_rebuilt_agfl_full)
{
	struct fs_fixture fx;
	struct xfsj_buf *agf;
	uint64_t rebuilt;
	uint32_t flcount;

	repair_zeroed_bnobt_of(&fx, &rebuilt);
	ck_assert_int_eq(xfsj_agf_read(fx.fs, 1, &agf, &fx.f), 0);
	flcount = xfsj_get_be32(agf->data + XFSJ_AGF_OFF(flcount));
	ck_assert_uint_gt(flcount, 0);
	ck_assert_uint_eq(flcount, xfsj_alloc_freelist_len(fx.fs,
		xfsj_get_be32(agf->data + XFSJ_AGF_OFF(bno_level)),
		xfsj_get_be32(agf->data + XFSJ_AGF_OFF(cnt_level)),
		xfsj_get_be32(agf->data + XFSJ_AGF_OFF(rmap_level))));
	fs_fixture_free(&fx);
}
/* The inobt root of AG 0 as a buffer (the root chunk is there). */
static struct xfsj_buf *inobt_root(struct fs_fixture *fx)
{
	struct xfsj_buf *agi, *bp;
	uint32_t root;

	ck_assert_int_eq(xfsj_agi_read(fx->fs, 0, &agi, &fx->f), 0);
	root = xfsj_get_be32(agi->data + XFSJ_AGI_OFF(root));
	ck_assert_int_eq(xfsj_buf_read(fx->fs,
				       xfsj_agb_to_daddr(&fx->sb, 0, root),
				       4096, &bp), 0);
	return bp;
}

static uint64_t inodes_in_use(struct fs_fixture *fx)
{
	struct xfsj_check_result cres;

	ck_assert_int_eq(xfsj_check(fx->fs, NULL, NULL, &cres), 0);
	return cres.inodes;
}

/*
 * AG 0's inode btrees or AGI damaged by @damage: the repair rebuilds the
 * inode btrees with every inode in use kept.
 */
static void repair_keeps_inodes(void (*damage)(struct fs_fixture *),
				bool rmapbt)
{
	struct fs_fixture fx;
	uint64_t rebuilt, inodes;

	fs_fixture_make(&fx, 64 * MB, 4096, 2, rmapbt, rmapbt);
	inodes = inodes_in_use(&fx);
	damage(&fx);
	fs_fixture_reopen(&fx);
	repair_clean(&fx, &rebuilt);
	ck_assert_uint_ge(rebuilt, 2);	/* inobt, finobt */
	ck_assert_uint_eq(inodes_in_use(&fx), inodes);
	fs_fixture_free(&fx);
}

/* The inobt root zeroed (repair-fuzz: agi root): the chunks come back
 * from the rmapbt's inode chunk records. */
static void zero_inobt(struct fs_fixture *fx)
{
	struct xfsj_buf *bp = inobt_root(fx);

	memset(bp->data, 0, 4096);
	xfsj_buf_dirty(bp);
}

START_TEST(repair_zeroed_inobt)
{
	repair_keeps_inodes(zero_inobt, true);
}
END_TEST

/* ... and without an rmapbt: from the used blocks that hold inodes. */
START_TEST(repair_zeroed_inobt_normap)
{
	repair_keeps_inodes(zero_inobt, false);
}
END_TEST

/* A sound inobt that lost its record (repair-fuzz: inobt numrecs): the
 * chunk the rmapbt holds is put back, its inodes not dropped. */
static void inobt_root_put16(struct fs_fixture *fx, size_t off, uint16_t v)
{
	struct xfsj_buf *bp = inobt_root(fx);

	xfsj_put_be16(bp->data + off, v);
	xfsj_buf_dirty(bp);
}

static void empty_inobt(struct fs_fixture *fx)
{
	inobt_root_put16(fx, 6, 0);		/* numrecs */
}

START_TEST(repair_inobt_lacks_chunk)
{
	repair_keeps_inodes(empty_inobt, true);
}
END_TEST

/* ... and without an rmapbt: the finobt's chunk is not in the inobt, so
 * the used blocks are read. */
START_TEST(repair_inobt_lacks_chunk_normap)
{
	repair_keeps_inodes(empty_inobt, false);
}
END_TEST

/* An AGI that cannot be used (repair-fuzz: agi seqno): written anew,
 * with the chunks the rmapbt holds. */
static void bad_agi_seqno(struct fs_fixture *fx)
{
	struct xfsj_buf *agi;

	ck_assert_int_eq(xfsj_agi_read(fx->fs, 0, &agi, &fx->f), 0);
	xfsj_put_be32(agi->data + XFSJ_AGI_OFF(seqno), 1U << 31);
	xfsj_buf_dirty(agi);
}

START_TEST(repair_unusable_agi)
{
	repair_keeps_inodes(bad_agi_seqno, true);
}
END_TEST

/* A record's holemask with holes the rmapbt does not have (repair-fuzz:
 * inobt recs[n].holemask): the rmapbt's, nothing claimed twice. */
static void holes_in_inobt(struct fs_fixture *fx)
{
	/* record 0: startino, then the holemask */
	inobt_root_put16(fx, XFSJ_SBLOCK_HDR_SIZE + 4, 0x00f0);
}

START_TEST(repair_inobt_holemask)
{
	repair_keeps_inodes(holes_in_inobt, true);
}
END_TEST

/* A fix that damages: every AG's AGI zeroed after every stage. */
static int zero_agis(void *arg, struct xfsj_fs *fs)
{
	const struct xfsj_sb *sb = xfsj_fs_sb(fs);
	struct xfsj_buf *bp;
	uint32_t agno;
	int err;

	(*(unsigned int *)arg)++;
	for (agno = 0; agno < sb->agcount; agno++) {
		err = xfsj_buf_get_zero(fs, xfsj_agb_to_daddr(sb, agno, 0) +
					2 * (sb->sectsize >> 9),
					sb->sectsize, &bp);
		if (err)
			return err;
		xfsj_buf_dirty(bp);
	}
	return xfsj_fs_flush(fs, NULL);
}

/* A bnobt root zeroed, repaired by fixes that also damage: the gate says
 * worse; the same damage repaired soundly passes the gate. */
START_TEST(gate_worse)
{
	struct fs_fixture fx;
	struct xfsj_buf *agf, *bp;
	struct xfsj_repair_result res;
	unsigned int calls = 0;
	struct xfsj_repair_opts o = { .after_stage = zero_agis,
				      .after_stage_arg = &calls };
	int pass;

	for (pass = 0; pass < 2; pass++) {
		uint32_t root;

		fs_fixture_make(&fx, 64 * MB, 4096, 2, true, true);
		ck_assert_int_eq(xfsj_agf_read(fx.fs, 1, &agf, &fx.f), 0);
		root = xfsj_get_be32(agf->data + XFSJ_AGF_OFF(bno_root));
		ck_assert_int_eq(xfsj_buf_get_zero(fx.fs,
				 xfsj_agb_to_daddr(&fx.sb, 1, root), 4096,
				 &bp), 0);
		xfsj_buf_dirty(bp);
		fs_fixture_reopen(&fx);
		ck_assert_int_eq(xfsj_repair(fx.fs, pass ? NULL : &o, NULL,
					     &res), 0);
		ck_assert(res.changed);
		ck_assert_uint_gt(xfsj_check_weight(&res.first), 0);
		if (pass == 0) {
			ck_assert_uint_gt(calls, 0);
			ck_assert(res.worse);
			ck_assert_uint_gt(xfsj_check_weight(&res.last),
					  xfsj_check_weight(&res.first));
		} else {
			ck_assert(!res.worse);
			ck_assert_uint_eq(xfsj_check_weight(&res.last), 0);
		}
		fs_fixture_free(&fx);
	}
}
END_TEST

Suite *repair_ag_suite(void)
{
	Suite *s = suite_create("repair_ag");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, load_geometry);
	tcase_add_test(tc, load_bnobt_one_leaf);
	tcase_add_test(tc, load_bnobt_empty);
	tcase_add_test(tc, load_bnobt_two_levels);
	tcase_add_test(tc, load_rmapbt_overlapping);
	tcase_add_test(tc, repair_zeroed_bnobt);
	tcase_add_test(tc, repair_bad_agf_fields);
	tcase_add_test(tc, repair_rebuilt_agfl_full);
	tcase_add_test(tc, repair_zeroed_inobt);
	tcase_add_test(tc, repair_inobt_lacks_chunk);
	tcase_add_test(tc, repair_unusable_agi);
	tcase_add_test(tc, repair_inobt_holemask);
	tcase_add_test(tc, repair_zeroed_inobt_normap);
	tcase_add_test(tc, repair_inobt_lacks_chunk_normap);
	tcase_add_test(tc, gate_worse);
	suite_add_tcase(s, tc);
	return s;
}
