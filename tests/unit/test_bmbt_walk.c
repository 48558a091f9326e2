/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The one bmbt descent (fs/bmbt_walk.c) on blocks held in memory: a
 * sound two-level tree walked in key order with no finding; then hostile
 * trees, each finding reported through the visitor with its block and
 * values: a block at the wrong level (left, told to bad_block), a record
 * count past the block (the entries bounded by the block's room even when
 * the user goes on), a loop (a block reached again stops; a user that
 * ignores every finding still ends), pointers outside the AGs (never
 * read), keys out of order, broken sibling links, the root's hostile
 * level, count and size, and the bound on blocks reached.
 */
#include <stdlib.h>
#include <string.h>

#include "suites.h"
#include "core/layout.h"
#include "fs/bmbt_walk.h"
#include "fs/btree.h"
#include "xfsj/errors.h"
#include "xfsj/ondisk.h"

#define BS	512
#define NBLK	16		/* one AG of 16 blocks */
#define INO	77
#define MAXF	64
/* Records (or keys) a 512-byte bmbt block holds. */
#define ROOM	((BS - XFSJ_LBLOCK_HDR_SIZE) / 16)

struct dev {
	struct xfsj_sb sb;
	uint8_t blk[NBLK][BS];
	unsigned int nread, nrec, nnode, nbad;
	uint64_t recoff[256];		/* each record's startoff */
	struct xfsj_bmbt_fault f[MAXF];
	unsigned int nf;
	int answer[XFSJ_BMBT_F_KEY + 1];	/* what fault() says per kind */
	bool answer_set;
};

static void dev_init(struct dev *d)
{
	memset(d, 0, sizeof(*d));
	d->sb.blocksize = BS;
	d->sb.blocklog = 9;
	d->sb.agblklog = 4;
	d->sb.agblocks = NBLK;
	d->sb.agcount = 1;
	d->sb.dblocks = NBLK;
}

/* A bmbt block @fsb of the inode, as a sound tree would hold it. */
static uint8_t *mkblk(struct dev *d, uint64_t fsb, unsigned int level,
		      unsigned int numrecs, uint64_t left, uint64_t right)
{
	struct xfsj_lblock h = {
		.magic = XFSJ_BMAP_MAGIC, .level = (uint16_t)level,
		.numrecs = (uint16_t)numrecs, .leftsib = left,
		.rightsib = right, .blkno = fsb << (d->sb.blocklog - 9),
		.owner = INO,
	};

	memset(d->blk[fsb], 0, BS);
	xfsj_lblock_encode(&h, d->blk[fsb]);
	return d->blk[fsb];
}

static void set_rec(uint8_t *b, unsigned int i, uint64_t off, uint64_t fsb)
{
	struct xfsj_bmbt_irec r = { .startoff = off, .startblock = fsb,
				    .blockcount = 1 };

	xfsj_bmbt_rec_encode(&r, b + XFSJ_LBLOCK_HDR_SIZE + i * 16);
}

/* Key @i and pointer @i of a node block (pointers after ROOM keys). */
static void set_ptr(uint8_t *b, unsigned int i, uint64_t key, uint64_t fsb)
{
	xfsj_put_be64(b + XFSJ_LBLOCK_HDR_SIZE + i * 8, key);
	xfsj_put_be64(b + XFSJ_LBLOCK_HDR_SIZE + (ROOM + i) * 8, fsb);
}

/* A root of @size bytes (room for (size - 4) / 16 pairs). */
static void set_root(uint8_t *root, uint32_t size, unsigned int level,
		     unsigned int n, const uint64_t *keys, const uint64_t *ptrs)
{
	unsigned int room = (size - 4) / 16;

	memset(root, 0, size);
	xfsj_put_be16(root, (uint16_t)level);
	xfsj_put_be16(root + 2, (uint16_t)n);
	for (unsigned int i = 0; i < n && i < room; i++) {
		xfsj_put_be64(root + 4 + i * 8, keys[i]);
		xfsj_put_be64(root + 4 + (room + i) * 8, ptrs[i]);
	}
}

static bool t_ptr_ok(void *arg, uint64_t fsb)
{
	struct dev *d = arg;

	return (fsb >> d->sb.agblklog) < d->sb.agcount &&
	       (fsb & (NBLK - 1)) < d->sb.agblocks && fsb > 0;
}

static int t_read(void *arg, struct xfsj_bmbt_wblk *b)
{
	struct dev *d = arg;

	ck_assert_uint_lt(b->fsbno, NBLK);	/* ptr_ok let only these */
	d->nread++;
	b->data = d->blk[b->fsbno];
	return 0;
}

static int t_fault(void *arg, struct xfsj_bmbt_wblk *b,
		   const struct xfsj_bmbt_fault *ft)
{
	struct dev *d = arg;

	(void)b;
	if (d->nf < MAXF)
		d->f[d->nf++] = *ft;
	if (d->answer_set)
		return d->answer[ft->kind];
	/* By default, a strict reader's verdicts: leave what is unsound. */
	switch (ft->kind) {
	case XFSJ_BMBT_F_LEVEL:
	case XFSJ_BMBT_F_NUMRECS:
	case XFSJ_BMBT_F_DUP:
	case XFSJ_BMBT_F_ROOT_LEVEL:
	case XFSJ_BMBT_F_ROOT_NUMRECS:
	case XFSJ_BMBT_F_ROOT_SIZE:
		return XFSJ_BMBT_SKIP;
	default:
		return 0;
	}
}

static int t_node(void *arg, struct xfsj_bmbt_wblk *b)
{
	struct dev *d = arg;

	(void)b;
	d->nnode++;
	return 0;
}

static int t_rec(void *arg, const struct xfsj_bmbt_wblk *b, unsigned int i,
		 const uint8_t *rec, uint64_t where)
{
	struct dev *d = arg;
	struct xfsj_bmbt_irec r;

	/* The record lies inside its block, at its device offset. */
	ck_assert_ptr_eq(rec, b->data + XFSJ_LBLOCK_HDR_SIZE + i * 16);
	ck_assert_uint_eq(where, (b->daddr << 9) + XFSJ_LBLOCK_HDR_SIZE +
			  i * 16);
	ck_assert_uint_lt(i, ROOM);
	xfsj_bmbt_rec_decode(rec, &r);
	if (d->nrec < 256)
		d->recoff[d->nrec] = r.startoff;
	d->nrec++;
	return 0;
}

static int t_bad(void *arg, const struct xfsj_bmbt_wblk *b)
{
	struct dev *d = arg;

	(void)b;
	d->nbad++;
	return 0;
}

static const struct xfsj_bmbt_walk_ops t_ops = {
	.ptr_ok = t_ptr_ok, .read = t_read, .fault = t_fault,
	.node = t_node, .rec = t_rec, .bad_block = t_bad,
};

/* Walk @root (@size bytes) of @d; the descent's result. */
static int walk(struct dev *d, const uint8_t *root, uint32_t size,
		uint64_t max_blocks)
{
	struct xfsj_bmbt_walk w;
	int err;

	xfsj_bmbt_walk_init(&w, &d->sb, INO, &t_ops, d);
	w.max_blocks = max_blocks;
	err = xfsj_bmbt_descend(&w, root, size);
	xfsj_bmbt_walk_free(&w);
	return err;
}

static unsigned int count(const struct dev *d, enum xfsj_bmbt_fault_kind k)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < d->nf; i++)
		n += d->f[i].kind == k;
	return n;
}

static const struct xfsj_bmbt_fault *first(const struct dev *d,
					   enum xfsj_bmbt_fault_kind k)
{
	for (unsigned int i = 0; i < d->nf; i++)
		if (d->f[i].kind == k)
			return &d->f[i];
	ck_abort_msg("no finding of kind %d", (int)k);
	return NULL;
}

/* The first finding of kind @k: about @fsbno, with @expected, @found. */
static const struct xfsj_bmbt_fault *expect(const struct dev *d,
					    enum xfsj_bmbt_fault_kind k,
					    uint64_t fsbno, uint64_t expected,
					    uint64_t found)
{
	const struct xfsj_bmbt_fault *ft = first(d, k);

	ck_assert_uint_eq(ft->fsbno, fsbno);
	ck_assert_uint_eq(ft->expected, expected);
	ck_assert_uint_eq(ft->found, found);
	return ft;
}

/*
 * Root (level 2) -> node 4 -> leaves 5 (offsets 0, 10) and 6 (20, 30);
 * the root's second pointer -> node 7 -> leaf 8 (40).
 */
static void sound_tree(struct dev *d, uint8_t *root, uint32_t size)
{
	uint8_t *b;

	b = mkblk(d, 4, 1, 2, XFSJ_NULLFSBLOCK, 7);
	set_ptr(b, 0, 0, 5);
	set_ptr(b, 1, 20, 6);
	b = mkblk(d, 7, 1, 1, 4, XFSJ_NULLFSBLOCK);
	set_ptr(b, 0, 40, 8);
	b = mkblk(d, 5, 0, 2, XFSJ_NULLFSBLOCK, 6);
	set_rec(b, 0, 0, 12);
	set_rec(b, 1, 10, 13);
	b = mkblk(d, 6, 0, 2, 5, 8);
	set_rec(b, 0, 20, 14);
	set_rec(b, 1, 30, 15);
	b = mkblk(d, 8, 0, 1, 6, XFSJ_NULLFSBLOCK);
	set_rec(b, 0, 40, 11);
	set_root(root, size, 2, 2, (uint64_t[]){ 0, 40 },
		 (uint64_t[]){ 4, 7 });
}

/* @d holding the sound tree again, under the 36-byte @root. */
static void fresh(struct dev *d, uint8_t *root)
{
	dev_init(d);
	sound_tree(d, root, 36);
}

START_TEST(sound_tree_in_key_order)
{
	static struct dev d;
	uint8_t root[36];

	fresh(&d, root);
	ck_assert_int_eq(walk(&d, root, sizeof(root), 0), 0);
	ck_assert_uint_eq(d.nf, 0);
	ck_assert_uint_eq(d.nread, 5);
	ck_assert_uint_eq(d.nnode, 5);
	ck_assert_uint_eq(d.nrec, 5);
	for (unsigned int i = 0; i < 5; i++)
		ck_assert_uint_eq(d.recoff[i], i * 10);
}
END_TEST

START_TEST(wrong_level)
{
	static struct dev d;
	uint8_t root[36];
	const struct xfsj_bmbt_fault *ft;

	fresh(&d, root);
	xfsj_put_be16(d.blk[6] + XFSJ_LB_OFF(level), 1);
	ck_assert_int_eq(walk(&d, root, sizeof(root), 0), 0);
	ck_assert_uint_eq(count(&d, XFSJ_BMBT_F_LEVEL), 1);
	ft = expect(&d, XFSJ_BMBT_F_LEVEL, 6, 0, 1);
	ck_assert_uint_eq(ft->where, 6 * BS + XFSJ_LB_OFF(level));
	/* Left whole: its records unread, told to bad_block; the chain
	 * through it is broken (leaf 8's left sibling is 6, not 5). */
	ck_assert_uint_eq(d.nbad, 1);
	ck_assert_uint_eq(d.nrec, 3);
	ck_assert_uint_eq(count(&d, XFSJ_BMBT_F_LEFTSIB), 1);
	ck_assert_uint_eq(count(&d, XFSJ_BMBT_F_RIGHTSIB), 1);
	/* leaf 5 names 6, not 8 */
	expect(&d, XFSJ_BMBT_F_RIGHTSIB, 5, 8, 6);
}
END_TEST

START_TEST(numrecs_past_the_block)
{
	static struct dev d;
	uint8_t root[36];

	fresh(&d, root);
	xfsj_put_be16(d.blk[5] + XFSJ_LB_OFF(numrecs), 0xffff);
	ck_assert_int_eq(walk(&d, root, sizeof(root), 0), 0);
	ck_assert_uint_eq(count(&d, XFSJ_BMBT_F_NUMRECS), 1);
	expect(&d, XFSJ_BMBT_F_NUMRECS, 5, ROOM, 0xffff);
	ck_assert_uint_eq(d.nrec, 3);

	/* A user that goes on anyway gets no more than the block holds. */
	fresh(&d, root);
	xfsj_put_be16(d.blk[5] + XFSJ_LB_OFF(numrecs), 0xffff);
	d.answer_set = true;
	ck_assert_int_eq(walk(&d, root, sizeof(root), 0), 0);
	ck_assert_uint_eq(d.nrec, ROOM + 3);
	/* A count of 0 is a finding too. */
	fresh(&d, root);
	xfsj_put_be16(d.blk[8] + XFSJ_LB_OFF(numrecs), 0);
	ck_assert_int_eq(walk(&d, root, sizeof(root), 0), 0);
	expect(&d, XFSJ_BMBT_F_NUMRECS, 8, 1, 0);
	ck_assert_uint_eq(d.nrec, 4);
}
END_TEST

START_TEST(a_loop)
{
	static struct dev d;
	uint8_t root[36];
	const struct xfsj_bmbt_fault *ft;

	/* Node 7's pointer leads back to leaf 5: reached twice. */
	fresh(&d, root);
	set_ptr(d.blk[7], 0, 40, 5);
	ck_assert_int_eq(walk(&d, root, sizeof(root), 0), 0);
	ck_assert_uint_eq(count(&d, XFSJ_BMBT_F_DUP), 1);
	ft = first(&d, XFSJ_BMBT_F_DUP);
	ck_assert_uint_eq(ft->fsbno, 5);
	ck_assert_uint_eq(ft->where, 5 * BS);
	ck_assert_uint_eq(d.nread, 4);		/* 5 read once */
	ck_assert_uint_eq(d.nrec, 4);

	/* A node that points at itself, walked by a user that ignores
	 * every finding: the depth is the root's, the walk ends. */
	fresh(&d, root);
	set_ptr(d.blk[4], 0, 0, 4);
	set_ptr(d.blk[4], 1, 20, 4);
	d.answer_set = true;
	ck_assert_int_eq(walk(&d, root, sizeof(root), 0), 0);
	ck_assert_uint_ge(count(&d, XFSJ_BMBT_F_DUP), 1);
	ck_assert_uint_le(d.nread, 8);
}
END_TEST

START_TEST(pointers_outside_the_ags)
{
	static struct dev d;
	uint8_t root[36];
	const struct xfsj_bmbt_fault *ft;

	fresh(&d, root);
	set_ptr(d.blk[4], 1, 20, (uint64_t)1 << 4);	/* AG 1: none */
	set_ptr(d.blk[7], 0, 40, UINT64_MAX);
	ck_assert_int_eq(walk(&d, root, sizeof(root), 0), 0);
	ck_assert_uint_eq(count(&d, XFSJ_BMBT_F_PTR), 2);
	ft = first(&d, XFSJ_BMBT_F_PTR);
	ck_assert_uint_eq(ft->found, 16);
	ck_assert_uint_eq(ft->level, 0);
	ck_assert_uint_eq(ft->where, 4 * BS + XFSJ_LBLOCK_HDR_SIZE +
			  (ROOM + 1) * 8);
	ck_assert_uint_eq(d.nread, 3);		/* 4, 5, 7 */
	ck_assert_uint_eq(d.nrec, 2);
}
END_TEST

START_TEST(keys_and_links)
{
	static struct dev d;
	uint8_t root[36];

	fresh(&d, root);
	/* Node 4's second key below its first; leaf 6's first offset
	 * then disagrees with it; leaf 8 names a right sibling. */
	set_ptr(d.blk[4], 1, 0, 6);
	xfsj_put_be64(d.blk[8] + XFSJ_LB_OFF(rightsib), 3);
	ck_assert_int_eq(walk(&d, root, sizeof(root), 0), 0);
	expect(&d, XFSJ_BMBT_F_KEY_ORDER, 4, 1, 0);
	expect(&d, XFSJ_BMBT_F_KEY, 6, 0, 20);
	/* the chain's end */
	expect(&d, XFSJ_BMBT_F_RIGHTSIB, 8, XFSJ_NULLFSBLOCK, 3);
	ck_assert_uint_eq(d.nrec, 5);		/* findings only */
}
END_TEST

START_TEST(hostile_root)
{
	static struct dev d;
	uint8_t root[36], small[19];

	fresh(&d, root);
	xfsj_put_be16(root, 0);
	ck_assert_int_eq(walk(&d, root, sizeof(root), 0), 0);
	ck_assert_uint_eq(count(&d, XFSJ_BMBT_F_ROOT_LEVEL), 1);
	ck_assert_uint_eq(d.nread, 0);
	dev_init(&d);
	xfsj_put_be16(root, 0xffff);
	ck_assert_int_eq(walk(&d, root, sizeof(root), 0), 0);
	ck_assert_uint_eq(first(&d, XFSJ_BMBT_F_ROOT_LEVEL)->expected,
			  XFSJ_BTREE_MAXLEVELS - 1);
	ck_assert_uint_eq(d.nread, 0);
	/* A count past the room: left, or walked only as far as the room
	 * holds (the root has room for 2 pairs). */
	fresh(&d, root);
	xfsj_put_be16(root + 2, 0xffff);
	ck_assert_int_eq(walk(&d, root, sizeof(root), 0), 0);
	ck_assert_uint_eq(first(&d, XFSJ_BMBT_F_ROOT_NUMRECS)->expected, 2);
	ck_assert_uint_eq(d.nread, 0);
	fresh(&d, root);
	xfsj_put_be16(root + 2, 0xffff);
	d.answer_set = true;
	ck_assert_int_eq(walk(&d, root, sizeof(root), 0), 0);
	ck_assert_uint_eq(d.nrec, 5);
	dev_init(&d);
	memset(small, 0, sizeof(small));
	ck_assert_int_eq(walk(&d, small, sizeof(small), 0), 0);
	ck_assert_uint_eq(first(&d, XFSJ_BMBT_F_ROOT_SIZE)->found, 19);
}
END_TEST

START_TEST(bound_on_blocks)
{
	static struct dev d;
	uint8_t root[36];

	fresh(&d, root);
	ck_assert_int_eq(walk(&d, root, sizeof(root), 3), 0);
	ck_assert_uint_eq(d.nread, 3);
	ck_assert_uint_eq(count(&d, XFSJ_BMBT_F_LIMIT), 1);
	/* A negative answer stops the walk with that error. */
	fresh(&d, root);
	d.answer_set = true;
	d.answer[XFSJ_BMBT_F_LIMIT] = -XFSJ_E_CORRUPT;
	ck_assert_int_eq(walk(&d, root, sizeof(root), 3), -XFSJ_E_CORRUPT);
	ck_assert_uint_eq(count(&d, XFSJ_BMBT_F_LIMIT), 1);
}
END_TEST

Suite *bmbt_walk_suite(void)
{
	Suite *s = suite_create("bmbt_walk");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, sound_tree_in_key_order);
	tcase_add_test(tc, wrong_level);
	tcase_add_test(tc, numrecs_past_the_block);
	tcase_add_test(tc, a_loop);
	tcase_add_test(tc, pointers_outside_the_ags);
	tcase_add_test(tc, keys_and_links);
	tcase_add_test(tc, hostile_root);
	tcase_add_test(tc, bound_on_blocks);
	suite_add_tcase(s, tc);
	return s;
}
