/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Freeing inodes (fs/ialloc.c) on the in-memory filesystem, against a
 * model: after every xfsj_difree the AGI's count and freecount equal the
 * sums over the inobt's records, the finobt holds exactly the inobt
 * records that have a free inode (same fields), and a chunk whose inodes
 * are all free is gone from both trees with its blocks free again.
 * Sparse chunks free only their allocated parts.  xfsj_ichunk_extents is
 * checked against the blocks the allocated inodes occupy, for several
 * geometries and hole masks; a mask that splits a block between a hole
 * and inodes, and every inconsistency of the trees and the AGI, is
 * refused with a fault naming it.
 */
#include <string.h>

#include "ino_fixture.h"
#include "suites.h"
#include "fs/alloc.h"
#include "fs/defer.h"
#include "fs/ialloc.h"

#define MB	(1ULL << 20)
#define AG	1		/* AG 1 holds no inode before the tests */

/* ---- the model ---- */

struct sums {
	uint64_t count, freecount;
	unsigned int nrec;
	struct xfsj_inobt_rec recs[64];
};

static int sum_fn(struct xfsj_btree_cur *cur, const union xfsj_btree_irec *r,
		  void *arg)
{
	struct sums *s = arg;

	(void)cur;
	s->count += r->i.count ? r->i.count : 64;
	s->freecount += r->i.freecount;
	ck_assert_uint_lt(s->nrec, 64);
	s->recs[s->nrec++] = r->i;
	return 0;
}

static void tree_sums(struct fs_fixture *fx, enum xfsj_btnum bt,
		      struct sums *s)
{
	struct xfsj_btree_cur *cur;

	memset(s, 0, sizeof(*s));
	ck_assert_int_eq(xfsj_btree_cur_new(fx->fs, bt, AG, NULL, &fx->f,
					    &cur), 0);
	ck_assert_int_eq(xfsj_btree_query_all(cur, sum_fn, s), 0);
	xfsj_btree_cur_free(cur);
}

/* The AGI agrees with the inobt, the finobt with both. */
static void check_model(struct fs_fixture *fx)
{
	struct sums ino, fino;
	struct xfsj_agi agi;
	unsigned int k = 0;

	tree_sums(fx, XFSJ_BT_INO, &ino);
	tree_sums(fx, XFSJ_BT_FINO, &fino);
	agi_get(fx, AG, &agi);
	ck_assert_uint_eq(agi.count, ino.count);
	ck_assert_uint_eq(agi.freecount, ino.freecount);
	for (unsigned int i = 0; i < ino.nrec; i++) {
		const struct xfsj_inobt_rec *r = &ino.recs[i];

		if (!r->freecount)
			continue;
		ck_assert_uint_lt(k, fino.nrec);
		ck_assert_uint_eq(fino.recs[k].startino, r->startino);
		ck_assert_uint_eq(fino.recs[k].free, r->free);
		ck_assert_uint_eq(fino.recs[k].freecount, r->freecount);
		ck_assert_uint_eq(fino.recs[k].holemask, r->holemask);
		k++;
	}
	ck_assert_uint_eq(k, fino.nrec);
}

static int difree(struct fs_fixture *fx, uint32_t agino,
		  struct xfsj_difree_res *res)
{
	int err;

	memset(&fx->f, 0, sizeof(fx->f));
	err = xfsj_difree(fx->fs, AG, agino, res, &fx->f);
	if (!err)
		err = xfsj_defer_finish(fx->fs, &fx->f);
	return err;
}

static uint64_t chunk_fsb(struct fs_fixture *fx, uint32_t startino)
{
	return xfsj_agb_to_fsb(&fx->sb, AG, startino >> fx->sb.inopblog);
}

static uint32_t chunk_blocks(struct fs_fixture *fx)
{
	return 64 * fx->sb.inodesize / fx->sb.blocksize;
}

/* A new filesystem (4 KiB blocks) with a free chunk in AG 1. */
static uint32_t fixture_with_chunk(struct fs_fixture *fx)
{
	fs_fixture_make(fx, 64 * MB, 4096, 2, true, false);
	return make_chunk(fx, AG, 64);
}

/* Inodes taken one by one, freed one by one; the last frees the chunk. */
START_TEST(free_to_chunk_freed)
{
	static const uint32_t used[] = { 0, 5, 63, 17 };
	struct fs_fixture fx;
	struct xfsj_difree_res res;
	struct xfsj_inobt_rec r;
	struct xfsj_agi before;
	uint32_t start;

	fs_fixture_make(&fx, 64 * MB, 4096, 2, true, false);
	agi_get(&fx, AG, &before);
	ck_assert_uint_eq(before.count, 0);
	start = make_chunk(&fx, AG, 64);
	for (unsigned int i = 0; i < 4; i++)
		ino_take(&fx, AG, start + used[i]);
	check_model(&fx);
	ck_assert(!fs_fixture_is_free(&fx, chunk_fsb(&fx, start), 1));

	for (unsigned int i = 0; i < 4; i++) {
		ck_assert_int_eq(difree(&fx, start + used[i], &res), 0);
		check_model(&fx);
		ck_assert_uint_eq(res.startino, start);
		ck_assert(res.chunk_freed == (i == 3));
		if (i == 3)
			break;
		ck_assert(ibt_rec(&fx, XFSJ_BT_INO, AG, start, &r));
		ck_assert_uint_eq(r.freecount, 61 + i);
		ck_assert(r.free & (1ULL << used[i]));
	}
	ck_assert(!ibt_rec(&fx, XFSJ_BT_INO, AG, start, &r));
	ck_assert(!ibt_rec(&fx, XFSJ_BT_FINO, AG, start, &r));
	ck_assert(fs_fixture_is_free(&fx, chunk_fsb(&fx, start),
				     chunk_blocks(&fx)));
	agi_get(&fx, AG, &before);
	ck_assert_uint_eq(before.count, 0);
	ck_assert_uint_eq(before.freecount, 0);
	fs_fixture_free(&fx);
}
END_TEST

/* A chunk with no free inode has no finobt record: freeing makes one. */
START_TEST(finobt_record_appears)
{
	struct fs_fixture fx;
	struct xfsj_difree_res res;
	struct xfsj_inobt_rec r;
	uint32_t start;

	start = fixture_with_chunk(&fx);
	for (uint32_t i = 0; i < 64; i++)
		ino_take(&fx, AG, start + i);
	ck_assert(!ibt_rec(&fx, XFSJ_BT_FINO, AG, start, &r));
	check_model(&fx);
	ck_assert_int_eq(difree(&fx, start + 10, &res), 0);
	ck_assert(!res.chunk_freed);
	ck_assert(ibt_rec(&fx, XFSJ_BT_FINO, AG, start, &r));
	ck_assert_uint_eq(r.freecount, 1);
	ck_assert_uint_eq(r.free, 1ULL << 10);
	check_model(&fx);
	fs_fixture_free(&fx);
}
END_TEST

/*
 * A sparse chunk (inodes 32-63 are a hole: the second half of its
 * blocks was never allocated to it): only the first half is freed.
 */
START_TEST(sparse_chunk)
{
	struct fs_fixture fx;
	struct xfsj_difree_res res;
	uint32_t start, half, got;
	uint64_t fsb;

	fs_fixture_make(&fx, 64 * MB, 4096, 2, true, false);
	start = make_chunk_sparse(&fx, AG, 64, 0xff00);
	half = chunk_blocks(&fx) / 2;
	fsb = chunk_fsb(&fx, start);
	ck_assert(!fs_fixture_is_free(&fx, fsb, 1));
	/* The hole's blocks, busy with something else: a wrong free shows. */
	ck_assert(fs_fixture_is_free(&fx, fsb + half, half));
	ck_assert_int_eq(xfsj_alloc_extent(fx.fs, AG,
					   xfsj_fsb_agbno(&fx.sb, fsb) + half,
					   half, NULL, &got, &fx.f), 0);
	ck_assert_uint_eq(got, xfsj_fsb_agbno(&fx.sb, fsb) + half);
	ino_take(&fx, AG, start + 3);
	ino_take(&fx, AG, start + 31);
	check_model(&fx);
	/* An inode in the hole is no inode. */
	ck_assert_int_eq(difree(&fx, start + 40, &res), -XFSJ_E_CORRUPT);
	ck_assert_str_eq(fx.f.field, "inode in a sparse hole");
	ck_assert_int_eq(difree(&fx, start + 3, &res), 0);
	ck_assert(!res.chunk_freed);
	ck_assert_int_eq(difree(&fx, start + 31, &res), 0);
	ck_assert(res.chunk_freed);
	ck_assert_uint_eq(res.holemask, 0xff00);
	check_model(&fx);
	ck_assert(fs_fixture_is_free(&fx, fsb, half));
	ck_assert(!fs_fixture_is_free(&fx, fsb + half, 1));
	ck_assert(!fs_fixture_is_free(&fx, fsb + 2 * half - 1, 1));
	fs_fixture_free(&fx);
}
END_TEST

/* Replace the record of @bt for the chunk at @startino by @r. */
static void ibt_set(struct fs_fixture *fx, enum xfsj_btnum bt,
		    uint32_t startino, const struct xfsj_inobt_rec *r)
{
	struct xfsj_btree_cur *cur;
	union xfsj_btree_irec k;
	int stat;

	memset(&k, 0, sizeof(k));
	k.i.startino = startino;
	ck_assert_int_eq(xfsj_btree_cur_new(fx->fs, bt, AG, NULL, &fx->f,
					    &cur), 0);
	ck_assert_int_eq(xfsj_btree_lookup(cur, XFSJ_LOOKUP_EQ, &k, &stat), 0);
	ck_assert_int_eq(stat, 1);
	k.i = *r;
	ck_assert_int_eq(xfsj_btree_update(cur, &k), 0);
	xfsj_btree_cur_free(cur);
}

static void ibt_put(struct fs_fixture *fx, enum xfsj_btnum bt,
		    const struct xfsj_inobt_rec *r)
{
	ibt_set(fx, bt, r->startino, r);
}

/* Throw away what the handle changed since the last flush. */
static void discard(struct fs_fixture *fx)
{
	xfsj_fs_close(fx->fs);
	ck_assert_int_eq(xfsj_fs_open(fx->ov, &fx->sb, 1ULL << 32, &fx->fs),
			 0);
}

#define REFUSED(agino, err, fld) do { \
		ck_assert_int_eq(difree(&fx, (agino), &res), (err)); \
		ck_assert_str_eq(fx.f.field, (fld)); \
		discard(&fx); \
	} while (0)

/* Every inconsistency refused, naming it. */
START_TEST(hostile_refused)
{
	struct fs_fixture fx;
	struct xfsj_difree_res res;
	struct xfsj_inobt_rec r;
	uint32_t start;

	start = fixture_with_chunk(&fx);
	ino_take(&fx, AG, start + 1);
	ino_take(&fx, AG, start + 2);
	fs_fixture_reopen(&fx);

	REFUSED(start + 9, -XFSJ_E_CORRUPT, "inode already free");
	REFUSED(start - 64, -XFSJ_E_CORRUPT, "no record for inode");
	REFUSED(start + 64, -XFSJ_E_CORRUPT, "no record for inode");
	REFUSED(xfsj_fs_ag_blocks(fx.fs, AG) << fx.sb.inopblog,
		-XFSJ_E_RANGE, "agino");
	memset(&fx.f, 0, sizeof(fx.f));
	ck_assert_int_eq(xfsj_difree(fx.fs, fx.sb.agcount, start, &res,
				     &fx.f), -XFSJ_E_RANGE);
	ck_assert_str_eq(fx.f.field, "agino");

	/* The finobt out of step with the inobt. */
	ck_assert(ibt_rec(&fx, XFSJ_BT_FINO, AG, start, &r));
	r.free &= ~(1ULL << 40);
	r.freecount--;
	ibt_put(&fx, XFSJ_BT_FINO, &r);
	REFUSED(start + 1, -XFSJ_E_CORRUPT, "record differs from inobt");
	/* A chunk with free inodes but no finobt record. */
	ck_assert(ibt_rec(&fx, XFSJ_BT_FINO, AG, start, &r));
	r.startino += 64;
	ibt_set(&fx, XFSJ_BT_FINO, start, &r);
	REFUSED(start + 1, -XFSJ_E_CORRUPT, "missing record");

	/* A freecount that says every inode is free already. */
	ck_assert(ibt_rec(&fx, XFSJ_BT_INO, AG, start, &r));
	r.freecount = 64;
	ibt_put(&fx, XFSJ_BT_INO, &r);
	REFUSED(start + 1, -XFSJ_E_CORRUPT, "freecount");

	/* The AGI counting fewer inodes than the chunk frees. */
	ck_assert_int_eq(difree(&fx, start + 1, &res), 0);
	agi_add(&fx, AG, -60, 0);
	REFUSED(start + 2, -XFSJ_E_CORRUPT, "count");
	fs_fixture_free(&fx);
}
END_TEST

/*
 * A sparse record whose holes split a block between inodes and a hole
 * (512-byte inodes in 4 KiB blocks: 2 holemask bits a block): freeing
 * its chunk cannot say which blocks to free, so it is refused (it freed
 * the first block only, leaking half of the inodes' second block).
 */
START_TEST(misaligned_holemask_refused)
{
	struct fs_fixture fx;
	struct xfsj_difree_res res;
	struct xfsj_inobt_rec r;
	uint32_t start;

	start = fixture_with_chunk(&fx);
	ck_assert_uint_eq(fx.sb.inopblock, 8);
	ino_take(&fx, AG, start + 5);
	/* Inodes 4-11 only: half of block 0 and half of block 1. */
	ck_assert(ibt_rec(&fx, XFSJ_BT_INO, AG, start, &r));
	r.holemask = 0xfff9;
	r.count = 8;
	r.freecount = 7;
	r.free = ~(1ULL << 5);
	ibt_put(&fx, XFSJ_BT_INO, &r);
	ibt_put(&fx, XFSJ_BT_FINO, &r);
	agi_add(&fx, AG, -56, -56);
	check_model(&fx);
	fs_fixture_reopen(&fx);
	REFUSED(start + 5, -XFSJ_E_CORRUPT, "holemask");
	ck_assert(!fs_fixture_is_free(&fx, chunk_fsb(&fx, start), 1));
	fs_fixture_free(&fx);
}
END_TEST

/* ---- xfsj_ichunk_extents against the blocks the inodes occupy ---- */

struct ext_list {
	unsigned int n;
	uint32_t agbno[16], len[16];
};

static int ext_fn(void *arg, uint32_t agbno, uint32_t len)
{
	struct ext_list *l = arg;

	ck_assert_uint_lt(l->n, 16);
	l->agbno[l->n] = agbno;
	l->len[l->n++] = len;
	return 0;
}

static void geometry(struct xfsj_sb *sb, uint32_t bs, uint32_t isize)
{
	memset(sb, 0, sizeof(*sb));
	sb->blocksize = bs;
	sb->inodesize = (uint16_t)isize;
	sb->inopblock = (uint16_t)(bs / isize);
	while ((1U << sb->inopblog) < sb->inopblock)
		sb->inopblog++;
}

/* Does every run boundary of @mask fall on a block boundary? */
static bool mask_aligned(uint16_t mask, uint32_t inopblock)
{
	for (unsigned int b = 1; b < 16; b++)
		if (((mask >> b) & 1) != ((mask >> (b - 1)) & 1) &&
		    (b * 4) % inopblock)
			return false;
	/* A chunk inside one block has no holes of its own. */
	return !mask || inopblock <= 64;
}

/*
 * Every hole mask on several geometries: the maximal runs of blocks the
 * allocated inodes occupy, or, when a block would hold both inodes and
 * a hole, a refusal (freeing such a chunk freed part of a block's
 * neighbour and leaked the rest).
 */
START_TEST(chunk_extents_model)
{
	static const uint32_t geo[][2] = {
		{ 4096, 512 }, { 4096, 256 }, { 1024, 512 }, { 2048, 256 },
		{ 65536, 1024 }, { 65536, 512 }, { 1024, 1024 },
	};
	unsigned int refused = 0, checked = 0;

	for (unsigned int g = 0; g < 7; g++) {
		struct xfsj_sb sb;
		uint32_t start, nblk;

		geometry(&sb, geo[g][0], geo[g][1]);
		start = 40U << sb.inopblog;	/* block 40 */
		nblk = 64 * sb.inodesize / sb.blocksize;
		if (!nblk)
			nblk = 1;
		for (uint32_t mask = 0; mask < 0xffff; mask += 0x0b) {
			bool used[64] = { false };
			struct ext_list l = { 0 };
			unsigned int k = 0;
			int err = xfsj_ichunk_extents(&sb, start,
						      (uint16_t)mask, ext_fn,
						      &l);

			if (!mask_aligned((uint16_t)mask, sb.inopblock)) {
				ck_assert_int_eq(err, -XFSJ_E_CORRUPT);
				refused++;
				continue;
			}
			ck_assert_int_eq(err, 0);
			checked++;
			for (unsigned int i = 0; i < 64; i++)
				if (!(mask >> (i / 4) & 1))
					used[(uint64_t)i * sb.inodesize /
					     sb.blocksize] = true;
			/* The extents are the maximal runs of used blocks. */
			for (uint32_t b = 0; b < nblk; b++) {
				if (!used[b] || (b && used[b - 1]))
					continue;
				ck_assert_uint_lt(k, l.n);
				ck_assert_uint_eq(l.agbno[k], 40 + b);
				while (b < nblk && used[b])
					b++;
				ck_assert_uint_eq(l.agbno[k] + l.len[k], 40 + b);
				k++;
			}
			ck_assert_uint_eq(k, l.n);
		}
	}
	/* Both kinds were seen, many times. */
	ck_assert_uint_gt(refused, 1000);
	ck_assert_uint_gt(checked, 1000);
}
END_TEST

/* Holes sharing a block with inodes, as the format notes' geometry has. */
START_TEST(chunk_extents_misaligned)
{
	static const uint16_t masks[] = { 0xfffe, 0xfff3, 0xffc3, 0x0003 };
	struct ext_list l = { 0 };
	struct xfsj_sb sb;

	geometry(&sb, 4096, 256);		/* 4 holemask bits a block */
	for (unsigned int m = 0; m < 4; m++)
		ck_assert_int_eq(xfsj_ichunk_extents(&sb, 0, masks[m], ext_fn,
						     &l), -XFSJ_E_CORRUPT);
	ck_assert_uint_eq(l.n, 0);
	/* Aligned: 0xff0f is inodes 16-31, block 1 of 4 blocks. */
	ck_assert_int_eq(xfsj_ichunk_extents(&sb, 0, 0xff0f, ext_fn, &l), 0);
	ck_assert_uint_eq(l.n, 1);
	ck_assert_uint_eq(l.agbno[0], 1);
	ck_assert_uint_eq(l.len[0], 1);
}
END_TEST

Suite *ialloc_suite(void)
{
	Suite *s = suite_create("ialloc");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, free_to_chunk_freed);
	tcase_add_test(tc, finobt_record_appears);
	tcase_add_test(tc, sparse_chunk);
	tcase_add_test(tc, hostile_refused);
	tcase_add_test(tc, misaligned_holemask_refused);
	tcase_add_test(tc, chunk_extents_model);
	tcase_add_test(tc, chunk_extents_misaligned);
	suite_add_tcase(s, tc);
	return s;
}
