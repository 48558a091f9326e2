/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The checker's AG btree walk (check/agbtree.c): a small filesystem whose
 * free space is fragmented (every other block of a run freed) so that the
 * bnobt, cntbt and rmapbt have two levels, checked clean, then damaged
 * one field at a time the way fstests' fuzzers do, each damage found by
 * the rule it breaks.
 */
#include <stdlib.h>
#include <string.h>

#include "fs/alloc.h"
#include "fs_fixture.h"
#include "suites.h"
#include "xfsj/check.h"

#define BS	1024
#define NALLOC	600

struct seen {
	char codes[64][32];
	unsigned int n;
	unsigned int ours;	/* phase 03 problems */
};

static void on_problem(void *arg, const struct xfsj_problem *p)
{
	struct seen *s = arg;

	if (p->def->num >> 16 != 3)
		return;
	s->ours++;
	if (s->n < 64)
		strncpy(s->codes[s->n++], p->def->code, 31);
}

static bool saw(const struct seen *s, const char *code)
{
	for (unsigned int i = 0; i < s->n; i++)
		if (!strcmp(s->codes[i], code))
			return true;
	return false;
}

static void check(struct fs_fixture *fx, struct seen *s,
		  struct xfsj_check_result *res)
{
	struct xfsj_check_cb cb = { .arg = s, .problem = on_problem };

	memset(s, 0, sizeof(*s));
	ck_assert_int_eq(xfsj_check(fx->fs, NULL, &cb, res), 0);
}

/* A filesystem with every other block of a long run allocated. */
static void make_fragmented(struct fs_fixture *fx)
{
	uint64_t ino;
	uint32_t agbno[NALLOC];
	unsigned int i;

	fs_fixture_make(fx, 64ULL << 20, BS, 2, true, true);
	ino = fx->sb.rootino;
	for (i = 0; i < NALLOC; i++) {
		struct xfsj_owner oi = { .owner = ino, .offset = i };

		ck_assert_int_eq(xfsj_alloc_extent(fx->fs, 0, 0, 1, &oi,
						   &agbno[i], &fx->f), 0);
	}
	for (i = 0; i < NALLOC; i += 2) {
		struct xfsj_owner oi = { .owner = ino, .offset = i };

		ck_assert_int_eq(xfsj_free_extent(fx->fs, 0, agbno[i], 1, &oi,
						  &fx->f), 0);
	}
	fs_fixture_reopen(fx);
}

static void agf(struct fs_fixture *fx, struct xfsj_agf *a)
{
	struct xfsj_buf *bp;

	ck_assert_int_eq(xfsj_agf_read(fx->fs, 0, &bp, &fx->f), 0);
	xfsj_agf_decode(bp->data, a);
}

static uint8_t *block(struct fs_fixture *fx, uint32_t agbno,
		      struct xfsj_buf **bp)
{
	ck_assert_int_eq(xfsj_buf_read(fx->fs,
				       xfsj_agb_to_daddr(&fx->sb, 0, agbno),
				       BS, bp), 0);
	return (*bp)->data;
}

/* Write the change back (the flush recomputes the CRC) and reopen. */
static void commit(struct fs_fixture *fx, struct xfsj_buf *bp)
{
	xfsj_buf_dirty(bp);
	fs_fixture_reopen(fx);
}

static uint32_t node_ptr(const uint8_t *b, enum xfsj_btnum bt, unsigned int i)
{
	const struct xfsj_btree_shape *s = xfsj_btree_shape(bt);

	return xfsj_get_be32(b + s->hdrlen +
			     xfsj_btree_maxrecs(bt, BS, false) * s->keylen +
			     4 * i);
}

START_TEST(test_clean_two_levels)
{
	struct fs_fixture fx;
	struct xfsj_check_result res;
	struct xfsj_agf a;
	struct seen s;

	make_fragmented(&fx);
	agf(&fx, &a);
	ck_assert_uint_ge(a.bno_level, 2);
	ck_assert_uint_ge(a.cnt_level, 2);
	ck_assert_uint_ge(a.rmap_level, 2);
	check(&fx, &s, &res);
	ck_assert_msg(s.ours == 0, "first: %s", s.n ? s.codes[0] : "");
	ck_assert_uint_gt(res.btree_blocks, 8);
	fs_fixture_free(&fx);
}
END_TEST

/* One damage per run: what it breaks, and the code that must say so. */
enum damage {
	D_ROOT_MAGIC, D_KEY, D_LEAF_RIGHTSIB, D_LEAF_LEFTSIB, D_PTR_TWICE,
	D_PTR_HEADER, D_LEVEL, D_OWNER, D_BLKNO, D_REC_OVERLAP, D_REC_ZERO,
	D_CNT_ORDER, D_RMAP_HIGHKEY, D_RMAP_OWNER, D_RMAP_MERGE,
	D_INO_FREECOUNT, D_UNDERFULL, D_INO_HOLES, D_FINO_DIFFERS, D_FINO_EMPTY,
	D__N
};

static const struct {
	enum xfsj_btnum bt;
	const char *code;
} want[D__N] = {
	[D_ROOT_MAGIC] = { XFSJ_BT_BNO, "btree.magic" },
	[D_KEY] = { XFSJ_BT_BNO, "btree.key" },
	[D_LEAF_RIGHTSIB] = { XFSJ_BT_BNO, "btree.rightsib" },
	[D_LEAF_LEFTSIB] = { XFSJ_BT_CNT, "btree.leftsib" },
	[D_PTR_TWICE] = { XFSJ_BT_BNO, "btree.twice" },
	[D_PTR_HEADER] = { XFSJ_BT_CNT, "btree.ptr" },
	[D_LEVEL] = { XFSJ_BT_BNO, "btree.level" },
	[D_OWNER] = { XFSJ_BT_RMAP, "btree.owner" },
	[D_BLKNO] = { XFSJ_BT_CNT, "btree.blkno" },
	[D_REC_OVERLAP] = { XFSJ_BT_BNO, "btree.rec_order" },
	[D_REC_ZERO] = { XFSJ_BT_BNO, "btree.rec_len" },
	[D_CNT_ORDER] = { XFSJ_BT_CNT, "btree.rec_order" },
	[D_RMAP_HIGHKEY] = { XFSJ_BT_RMAP, "btree.high_key" },
	[D_RMAP_OWNER] = { XFSJ_BT_RMAP, "rmapbt.owner" },
	[D_RMAP_MERGE] = { XFSJ_BT_RMAP, "rmapbt.merge" },
	[D_INO_FREECOUNT] = { XFSJ_BT_INO, "inobt.freecount" },
	[D_UNDERFULL] = { XFSJ_BT_BNO, "btree.numrecs_min" },
	[D_INO_HOLES] = { XFSJ_BT_INO, "inobt.holes" },
	[D_FINO_DIFFERS] = { XFSJ_BT_FINO, "finobt.differs" },
	/* (an empty finobt: nothing to search, under UBSan too) */
	[D_FINO_EMPTY] = { XFSJ_BT_FINO, "finobt.missing" },
};

static void damage(struct fs_fixture *fx, enum damage d)
{
	const struct xfsj_btree_shape *s = xfsj_btree_shape(want[d].bt);
	struct xfsj_agf a;
	struct xfsj_buf *rbp;
	uint32_t root, leaf, n;
	uint8_t *b, *r;
	struct xfsj_buf *ibp;
	struct xfsj_agi agi;

	agf(fx, &a);
	root = want[d].bt == XFSJ_BT_BNO ? a.bno_root :
	       want[d].bt == XFSJ_BT_CNT ? a.cnt_root : a.rmap_root;
	r = block(fx, root, &rbp);
	leaf = node_ptr(r, want[d].bt, 0);
	b = r + s->hdrlen;	/* the root's keys, or the leaf's records */
	switch (d) {
	case D_ROOT_MAGIC:
		xfsj_put_be32(r, 0x12345678);
		break;
	case D_KEY:
		xfsj_put_be32(b + s->keylen, xfsj_get_be32(b + s->keylen) + 1);
		break;
	case D_LEAF_RIGHTSIB:
	case D_LEAF_LEFTSIB:
		b = block(fx, leaf, &rbp);
		xfsj_put_be32(b + (d == D_LEAF_RIGHTSIB ? 12 : 8), 5000);
		break;
	case D_PTR_TWICE:
		xfsj_put_be32(r + s->hdrlen + xfsj_btree_maxrecs(want[d].bt,
			      BS, false) * s->keylen + 4, leaf);
		break;
	case D_PTR_HEADER:
		xfsj_put_be32(r + s->hdrlen + xfsj_btree_maxrecs(want[d].bt,
			      BS, false) * s->keylen, 1);
		break;
	case D_LEVEL:
		xfsj_put_be16(r + 4, 5);
		break;
	case D_OWNER:
		xfsj_put_be32(r + 48, 1);
		break;
	case D_BLKNO:
		xfsj_put_be64(r + 16, 8);
		break;
	case D_REC_OVERLAP:
	case D_REC_ZERO:
	case D_CNT_ORDER:
		b = block(fx, leaf, &rbp) + s->hdrlen;
		if (d == D_REC_ZERO)
			xfsj_put_be32(b + 12, 0);	/* rec 1 length */
		else if (d == D_CNT_ORDER)		/* rec 1 start */
			xfsj_put_be32(b + 8, xfsj_get_be32(b));
		else					/* rec 0 length */
			xfsj_put_be32(b + 4, 1000);
		break;
	case D_RMAP_HIGHKEY:
		/* The first child's high key. */
		xfsj_put_be32(b + 20, xfsj_get_be32(b + 20) + 1);
		break;
	case D_RMAP_OWNER:
	case D_RMAP_MERGE:
		b = block(fx, leaf, &rbp);
		/* The static metadata comes first: take the last two. */
		n = xfsj_get_be16(b + 6);
		b += s->hdrlen + 24 * (n - 2);
		if (d == D_RMAP_OWNER)
			xfsj_put_be64(b + 24 + 8, 1ULL << 40);
		else	/* reach the next record: they should be one */
			xfsj_put_be32(b + 4, xfsj_get_be32(b + 24) -
					     xfsj_get_be32(b));
		break;
	case D_INO_FREECOUNT:
	case D_INO_HOLES:
	case D_FINO_DIFFERS:
	case D_FINO_EMPTY:
		ck_assert_int_eq(xfsj_agi_read(fx->fs, 0, &ibp, &fx->f), 0);
		xfsj_agi_decode(ibp->data, &agi);
		b = block(fx, d >= D_FINO_DIFFERS ? agi.free_root : agi.root,
			  &rbp) + s->hdrlen;
		if (d == D_FINO_EMPTY)
			xfsj_put_be16(b - s->hdrlen + 6, 0);	/* numrecs */
		else if (d == D_INO_FREECOUNT)
			b[7] ^= 1;	/* the freecount's low byte */
		else if (d == D_INO_HOLES)	/* inodes in use made holes */
			xfsj_put_be16(b + 4, 0x0001);
		else			/* the last inode in use */
			b[15] &= 0x7f;
		break;
	case D_UNDERFULL:
		b = block(fx, leaf, &rbp);
		xfsj_put_be16(b + 6, 3);
		break;
	default:
		break;
	}
	commit(fx, rbp);
}

START_TEST(test_damage)
{
	struct fs_fixture fx;
	struct xfsj_check_result res;
	struct seen s;

	make_fragmented(&fx);
	damage(&fx, (enum damage)_i);
	check(&fx, &s, &res);
	ck_assert_msg(saw(&s, want[_i].code), "damage %d: want %s, saw %u%s%s",
		      _i, want[_i].code, s.n, s.n ? ", first " : "",
		      s.n ? s.codes[0] : "");
	fs_fixture_free(&fx);
}
END_TEST

static unsigned int count_code(const struct seen *s, const char *code)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < s->n; i++)
		n += !strcmp(s->codes[i], code);
	return n;
}

/*
 * An inobt leaf of five chunks (the root's, then four free ones further
 * on) where one record's start has a high bit flipped: that record alone
 * is out of order, not every record after it (@at: which one; 0 has no
 * record before it, so the two after it decide).
 */
START_TEST(test_ino_outlier)
{
	struct fs_fixture fx;
	struct xfsj_check_result res;
	struct xfsj_inobt_rec r;
	struct xfsj_buf *ibp, *bp;
	struct xfsj_agi agi;
	struct seen s;
	uint32_t first;
	unsigned int at = (unsigned int)_i;
	bool sparse;
	uint8_t *b;

	make_fragmented(&fx);
	sparse = fx.sb.features_incompat & XFSJ_INCOMPAT_SPINODES;
	ck_assert_int_eq(xfsj_agi_read(fx.fs, 0, &ibp, &fx.f), 0);
	xfsj_agi_decode(ibp->data, &agi);
	ck_assert_uint_eq(agi.level, 1);
	b = block(&fx, agi.root, &bp);
	ck_assert_uint_eq(xfsj_get_be16(b + 6), 1);
	xfsj_inobt_rec_get(b, 0, &r, sparse);
	first = r.startino;
	for (unsigned int i = 1; i < 5; i++) {
		struct xfsj_inobt_rec f = {
			.startino = first + 64 * 40 * i, .count = 64,
			.freecount = 64, .free = ~0ULL,
		};

		xfsj_inobt_rec_put(b, i, &f, sparse);
	}
	xfsj_put_be16(b + 6, 5);
	if (at == 0) {
		/* The root's chunk moved past the others. */
		xfsj_inobt_rec_get(b, 0, &r, sparse);
		r.startino = first | (1U << 14);
		xfsj_inobt_rec_put(b, 0, &r, sparse);
	} else {
		xfsj_inobt_rec_get(b, at, &r, sparse);
		r.startino |= 1U << 14;
		xfsj_inobt_rec_put(b, at, &r, sparse);
	}
	commit(&fx, bp);
	check(&fx, &s, &res);
	ck_assert_msg(count_code(&s, "btree.rec_order") == 1,
		      "record %u flipped: %u out of order", at,
		      count_code(&s, "btree.rec_order"));
	fs_fixture_free(&fx);
}
END_TEST

/* The start of record @i of @bt's leaf @b, and setting it. */
static uint32_t rec_start(const uint8_t *b, enum xfsj_btnum bt, unsigned int i)
{
	struct xfsj_alloc_rec a;
	struct xfsj_rmap_rec r;
	struct xfsj_refc_rec c;

	if (bt == XFSJ_BT_RMAP) {
		xfsj_rmap_rec_get(b, i, &r);
		return r.startblock;
	}
	if (bt == XFSJ_BT_REFC) {
		xfsj_refc_rec_get(b, i, &c);
		return c.startblock;
	}
	xfsj_alloc_rec_get(b, i, &a);
	return a.startblock;
}

static void rec_set_start(uint8_t *b, enum xfsj_btnum bt, unsigned int i,
			  uint32_t start)
{
	struct xfsj_alloc_rec a;
	struct xfsj_rmap_rec r;
	struct xfsj_refc_rec c;

	if (bt == XFSJ_BT_RMAP) {
		xfsj_rmap_rec_get(b, i, &r);
		r.startblock = start;
		xfsj_rmap_rec_put(b, i, &r);
	} else if (bt == XFSJ_BT_REFC) {
		xfsj_refc_rec_get(b, i, &c);
		c.startblock = start;
		xfsj_refc_rec_put(b, i, &c);
	} else {
		xfsj_alloc_rec_get(b, i, &a);
		a.startblock = start;
		xfsj_alloc_rec_put(b, i, &a);
	}
}

/* The refcountbt's root leaf given five shared one-block extents. */
static uint8_t *refc_leaf(struct fs_fixture *fx, const struct xfsj_agf *a,
			  struct xfsj_buf **bp)
{
	uint8_t *b = block(fx, a->refcount_root, bp);

	ck_assert_uint_eq(a->refcount_level, 1);
	for (unsigned int i = 0; i < 5; i++) {
		struct xfsj_refc_rec c = { .startblock = 3000 + 100 * i,
					   .blockcount = 1, .refcount = 2 };

		xfsj_refc_rec_put(b, i, &c);
	}
	xfsj_put_be16(b + 6, 5);
	return b;
}

static const struct {
	enum xfsj_btnum bt;
	bool last;		/* the last record of the first leaf */
} outlier_cases[] = {
	{ XFSJ_BT_BNO, false }, { XFSJ_BT_BNO, true },
	{ XFSJ_BT_CNT, false }, { XFSJ_BT_CNT, true },
	{ XFSJ_BT_RMAP, false }, { XFSJ_BT_RMAP, true },
	{ XFSJ_BT_REFC, false },
};

/*
 * The other AG btrees: one record of the first leaf (in the middle, or
 * its last, whose successor is the first record of the next leaf) gets
 * a high bit of its start flipped; that record alone is out of order,
 * not every record after it.  (The refcountbt is one leaf of five
 * records written by hand.)
 */
START_TEST(test_rec_outlier)
{
	enum xfsj_btnum bt = outlier_cases[_i].bt;
	struct fs_fixture fx;
	struct xfsj_check_result res;
	struct xfsj_agf a;
	struct xfsj_buf *bp;
	struct seen s;
	unsigned int n, at;
	uint8_t *b;

	make_fragmented(&fx);
	agf(&fx, &a);
	if (bt == XFSJ_BT_REFC) {
		b = refc_leaf(&fx, &a, &bp);
	} else {
		uint32_t root = bt == XFSJ_BT_BNO ? a.bno_root :
				bt == XFSJ_BT_CNT ? a.cnt_root : a.rmap_root;

		b = block(&fx, root, &bp);
		ck_assert_uint_eq(xfsj_get_be16(b + 4), 1);
		b = block(&fx, node_ptr(b, bt, 0), &bp);
	}
	ck_assert_uint_eq(xfsj_get_be16(b + 4), 0);
	n = xfsj_get_be16(b + 6);
	ck_assert_uint_ge(n, 5);
	at = outlier_cases[_i].last ? n - 1 : n / 2;
	ck_assert_uint_lt(rec_start(b, bt, at), 1U << 14);
	rec_set_start(b, bt, at, rec_start(b, bt, at) | 1U << 14);
	commit(&fx, bp);
	check(&fx, &s, &res);
	ck_assert_msg(count_code(&s, "btree.rec_order") == 1,
		      "case %d (record %u of %u): %u out of order", _i, at, n,
		      count_code(&s, "btree.rec_order"));
	fs_fixture_free(&fx);
}
END_TEST

Suite *check_agbt_suite(void)
{
	Suite *s = suite_create("check_agbt");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_clean_two_levels);
	tcase_add_loop_test(tc, test_damage, 0, D__N);
	tcase_add_loop_test(tc, test_ino_outlier, 0, 3);
	tcase_add_loop_test(tc, test_rec_outlier, 0,
			    sizeof(outlier_cases) / sizeof(outlier_cases[0]));
	suite_add_tcase(s, tc);
	return s;
}
