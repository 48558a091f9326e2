/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Reference counts on the in-memory filesystem (reflink and rmapbt on),
 * finished through the real deferred-work queue, allocator and rmap code.
 * The random test keeps a model of every block's count and checks after
 * each step that the refcountbt holds exactly the maximal runs of equal
 * count >= 2 and that blocks whose count reached zero are free.
 */
#include <stdlib.h>
#include <string.h>

#include "suites.h"
#include "fs_fixture.h"
#include "fs/alloc.h"
#include "fs/btree.h"
#include "fs/defer.h"
#include "fs/refcount.h"

#define COWFLAG		(1U << 31)
#define MAXRECS		4096

struct recs {
	struct xfsj_refc_rec v[MAXRECS];
	unsigned int n;
};

static void make_fs(struct fs_fixture *fx, uint32_t blocksize)
{
	fs_fixture_make(fx, 64ULL << 20, blocksize, 2, true, true);
}

static uint32_t alloc_blocks(struct fs_fixture *fx, uint32_t agno,
			     uint32_t near, uint32_t len)
{
	struct xfsj_owner oi = { .owner = XFSJ_RMAP_OWN_NULL };
	uint32_t agbno = 0;

	ck_assert_int_eq(xfsj_alloc_extent(fx->fs, agno, near, len, &oi,
					   &agbno, &fx->f), 0);
	return agbno;
}

static uint64_t fsb(struct fs_fixture *fx, uint32_t agno, uint32_t agbno)
{
	return xfsj_agb_to_fsb(&fx->sb, agno, agbno);
}

static int run(struct fs_fixture *fx)
{
	return xfsj_defer_finish(fx->fs, &fx->f);
}

static void increase(struct fs_fixture *fx, uint32_t agno, uint32_t bno,
		     uint32_t len)
{
	ck_assert_int_eq(xfsj_refcount_increase_extent(fx->fs,
				fsb(fx, agno, bno), len), 0);
	ck_assert_int_eq(run(fx), 0);
}

static void decrease(struct fs_fixture *fx, uint32_t agno, uint32_t bno,
		     uint32_t len)
{
	ck_assert_int_eq(xfsj_refcount_decrease_extent(fx->fs,
				fsb(fx, agno, bno), len), 0);
	ck_assert_int_eq(run(fx), 0);
}

static int add_rec(struct xfsj_btree_cur *cur,
		   const union xfsj_btree_irec *rec, void *arg)
{
	struct recs *r = arg;

	(void)cur;
	if (r->n == MAXRECS)
		ck_abort_msg("too many refcount records");
	r->v[r->n++] = rec->c;
	return 0;
}

/* Every refcountbt record of @agno; the tree is checked on the way. */
static void refc_records(struct fs_fixture *fx, uint32_t agno, struct recs *r)
{
	struct xfsj_btree_cur *cur;

	r->n = 0;
	ck_assert_int_eq(xfsj_btree_cur_new(fx->fs, XFSJ_BT_REFC, agno, NULL,
					    &fx->f, &cur), 0);
	ck_assert_int_eq(xfsj_btree_check(cur), 0);
	ck_assert_int_eq(xfsj_btree_query_all(cur, add_rec, r), 0);
	xfsj_btree_cur_free(cur);
}

struct free_map {
	uint32_t base, n;
	uint8_t *free;		/* per block of [base, base + n) */
	uint64_t total;		/* blocks in all bnobt records */
};

static int mark_free(struct xfsj_btree_cur *cur,
		     const union xfsj_btree_irec *rec, void *arg)
{
	struct free_map *m = arg;

	(void)cur;
	m->total += rec->a.blockcount;
	for (uint32_t b = rec->a.startblock;
	     b < rec->a.startblock + rec->a.blockcount; b++)
		if (b >= m->base && b - m->base < m->n)
			m->free[b - m->base] = 1;
	return 0;
}

/* Which blocks of [base, base + n) the bnobt holds; AGF freeblks agrees
 * (it does not count the AGFL). */
static void free_blocks(struct fs_fixture *fx, uint32_t agno,
			struct free_map *m)
{
	struct xfsj_btree_cur *cur;
	struct xfsj_buf *bp;
	struct xfsj_agf agf;

	memset(m->free, 0, m->n);
	m->total = 0;
	ck_assert_int_eq(xfsj_btree_cur_new(fx->fs, XFSJ_BT_BNO, agno, NULL,
					    &fx->f, &cur), 0);
	ck_assert_int_eq(xfsj_btree_query_all(cur, mark_free, m), 0);
	xfsj_btree_cur_free(cur);
	ck_assert_int_eq(xfsj_agf_read(fx->fs, agno, &bp, &fx->f), 0);
	xfsj_agf_decode(bp->data, &agf);
	ck_assert_uint_eq(agf.freeblks, m->total);
}

/* ---- hand-checked cases ---- */

static void expect(const struct recs *r, unsigned int i, uint32_t start,
		   uint32_t len, uint32_t count)
{
	ck_assert_uint_lt(i, r->n);
	ck_assert_uint_eq(r->v[i].startblock, start);
	ck_assert_uint_eq(r->v[i].blockcount, len);
	ck_assert_uint_eq(r->v[i].refcount, count);
}

START_TEST(test_merges)
{
	struct fs_fixture fx;
	struct recs *r = malloc(sizeof(*r));
	uint32_t b;

	make_fs(&fx, 4096);
	b = alloc_blocks(&fx, 0, 2000, 100);

	increase(&fx, 0, b + 10, 10);
	refc_records(&fx, 0, r);
	ck_assert_uint_eq(r->n, 1);
	expect(r, 0, b + 10, 10, 2);

	/* A gap next to an equal record joins it (left, then right). */
	increase(&fx, 0, b + 20, 5);
	increase(&fx, 0, b + 5, 5);
	refc_records(&fx, 0, r);
	ck_assert_uint_eq(r->n, 1);
	expect(r, 0, b + 5, 20, 2);

	/* Raising the middle splits; lowering it again joins all three. */
	increase(&fx, 0, b + 10, 5);
	refc_records(&fx, 0, r);
	ck_assert_uint_eq(r->n, 3);
	expect(r, 0, b + 5, 5, 2);
	expect(r, 1, b + 10, 5, 3);
	expect(r, 2, b + 15, 10, 2);
	decrease(&fx, 0, b + 10, 5);
	refc_records(&fx, 0, r);
	ck_assert_uint_eq(r->n, 1);
	expect(r, 0, b + 5, 20, 2);

	/* Back to one owner: the record goes, nothing is freed. */
	decrease(&fx, 0, b + 12, 4);
	refc_records(&fx, 0, r);
	ck_assert_uint_eq(r->n, 2);
	expect(r, 0, b + 5, 7, 2);
	expect(r, 1, b + 16, 9, 2);
	free(r);
	fs_fixture_free(&fx);
}
END_TEST

START_TEST(test_decrease_frees)
{
	struct fs_fixture fx;
	struct recs *r = malloc(sizeof(*r));
	uint8_t fm[40];
	struct free_map m = { .n = 40, .free = fm };
	uint32_t b;

	make_fs(&fx, 4096);
	b = alloc_blocks(&fx, 0, 3000, 40);
	m.base = b;
	increase(&fx, 0, b + 10, 10);
	/* [b, b+10) had one owner: freed; [b+10, b+15) drops to one. */
	decrease(&fx, 0, b, 15);
	refc_records(&fx, 0, r);
	ck_assert_uint_eq(r->n, 1);
	expect(r, 0, b + 15, 5, 2);
	free_blocks(&fx, 0, &m);
	for (uint32_t i = 0; i < 40; i++)
		ck_assert_uint_eq(fm[i], i < 10);
	/* Survives a flush and a fresh handle. */
	fs_fixture_reopen(&fx);
	refc_records(&fx, 0, r);
	ck_assert_uint_eq(r->n, 1);
	expect(r, 0, b + 15, 5, 2);
	free(r);
	fs_fixture_free(&fx);
}
END_TEST

static void cow_alloc(struct fs_fixture *fx, uint32_t agno, uint32_t bno,
		      uint32_t len)
{
	ck_assert_int_eq(xfsj_refcount_alloc_cow_extent(fx->fs,
				fsb(fx, agno, bno), len), 0);
	ck_assert_int_eq(run(fx), 0);
}

/* ---- random sequences against a model ---- */

static uint64_t rnd_state;

static uint32_t rnd(uint32_t n)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return (uint32_t)(rnd_state % n);
}

struct owner_of {
	uint32_t bno;
	uint64_t owner;
	unsigned int hits;
};

static int find_owner(struct xfsj_btree_cur *cur,
		      const union xfsj_btree_irec *rec, void *arg)
{
	struct owner_of *o = arg;

	(void)cur;
	if (rec->r.startblock <= o->bno &&
	    o->bno - rec->r.startblock < rec->r.blockcount) {
		o->owner = rec->r.owner;
		o->hits++;
	}
	return 0;
}

/*
 * A freed block may since have gone to the AGFL or become a btree block
 * (the AGFL refill takes the best-fitting free extent, as the kernel's
 * does): then its reverse mapping names the AG or the refcountbt.
 */
static bool reused_by_metadata(struct fs_fixture *fx, uint32_t agno,
			       uint32_t bno)
{
	struct owner_of o = { .bno = bno };
	struct xfsj_btree_cur *cur;

	ck_assert_int_eq(xfsj_btree_cur_new(fx->fs, XFSJ_BT_RMAP, agno, NULL,
					    &fx->f, &cur), 0);
	ck_assert_int_eq(xfsj_btree_query_all(cur, find_owner, &o), 0);
	xfsj_btree_cur_free(cur);
	return o.hits == 1 && (o.owner == XFSJ_RMAP_OWN_AG ||
			       o.owner == XFSJ_RMAP_OWN_REFC);
}

/* Plain tests in the loops: every ck_assert costs Check a write(). */
static void check_model(struct fs_fixture *fx, uint32_t agno, uint32_t base,
			const uint32_t *cnt, uint32_t n, struct recs *r,
			struct free_map *m, unsigned int ncow)
{
	unsigned int k = 0;

	refc_records(fx, agno, r);
	for (uint32_t i = 0; i < n;) {
		uint32_t j = i + 1;

		while (j < n && cnt[j] == cnt[i])
			j++;
		if (cnt[i] >= 2) {
			if (k >= r->n)
				ck_abort_msg("missing record at %u", base + i);
			if (r->v[k].startblock != base + i ||
			    r->v[k].blockcount != j - i ||
			    r->v[k].refcount != cnt[i])
				ck_abort_msg("record %u is [%u,+%u)x%u, "
					     "model [%u,+%u)x%u",
					     k, r->v[k].startblock,
					     r->v[k].blockcount,
					     r->v[k].refcount, base + i, j - i,
					     cnt[i]);
			k++;
		}
		i = j;
	}
	/* The staging records sort after every shared one. */
	ck_assert_uint_eq(k + ncow, r->n);
	for (; k < r->n; k++)
		if (!(r->v[k].startblock & COWFLAG))
			ck_abort_msg("record %u is not a staging one", k);
	free_blocks(fx, agno, m);
	for (uint32_t i = 0; i < n; i++) {
		if (m->free[i] == (cnt[i] == 0))
			continue;
		if (!cnt[i] && reused_by_metadata(fx, agno, base + i))
			continue;
		ck_abort_msg("block %u count %u free %u", base + i, cnt[i],
			     m->free[i]);
	}
}

static void random_run(uint32_t blocksize, uint64_t seed, unsigned int steps)
{
	const uint32_t n = 4000, agno = 1;
	struct fs_fixture fx;
	struct recs *r = malloc(sizeof(*r));
	uint32_t *cnt = calloc(n, sizeof(*cnt));
	struct free_map m = { .n = n, .free = malloc(n) };
	struct xfsj_btree_cur *cur;
	uint64_t freed;
	uint32_t base;

	rnd_state = seed;
	make_fs(&fx, blocksize);
	base = alloc_blocks(&fx, agno, xfsj_fs_ag_blocks(fx.fs, agno) / 2, n);
	m.base = base;
	for (uint32_t i = 0; i < n; i++)
		cnt[i] = 1;
	/* Staging extents in the same tree, past every shared record. */
	for (unsigned int i = 0; i < 3; i++) {
		uint32_t near = xfsj_fs_ag_blocks(fx.fs, agno) / 8 + 100 * i;

		cow_alloc(&fx, agno, alloc_blocks(&fx, agno, near, 5), 5);
	}
	for (unsigned int s = 0; s < steps; s++) {
		uint32_t start = rnd(n), len = 1 + rnd(48), i;
		bool up = rnd(100) < 64;

		/* Only blocks still in use can change count. */
		if (!cnt[start])
			continue;
		for (i = 0; i < len && start + i < n && cnt[start + i]; i++)
			if (cnt[start + i] >= 9)
				up = false;
		len = i;
		if (up) {
			increase(&fx, agno, base + start, len);
			for (i = 0; i < len; i++)
				cnt[start + i]++;
		} else {
			decrease(&fx, agno, base + start, len);
			for (i = 0; i < len; i++)
				cnt[start + i]--;
		}
		check_model(&fx, agno, base, cnt, n, r, &m, 3);
	}
	/* The run must have split the tree's root leaf. */
	ck_assert_int_eq(xfsj_btree_cur_new(fx.fs, XFSJ_BT_REFC, agno, NULL,
					    &fx.f, &cur), 0);
	ck_assert_uint_ge(xfsj_btree_height(cur), 2);
	xfsj_btree_cur_free(cur);
	fs_fixture_reopen(&fx);
	check_model(&fx, agno, base, cnt, n, r, &m, 3);
	ck_assert_int_eq(xfsj_refcount_recover_cow(fx.fs, agno, &freed, &fx.f),
			 0);
	ck_assert_uint_eq(freed, 3);
	check_model(&fx, agno, base, cnt, n, r, &m, 0);
	free(m.free);
	free(cnt);
	free(r);
	fs_fixture_free(&fx);
}

START_TEST(test_random_4k)
{
	random_run(4096, 0x9e3779b97f4a7c15ULL, 3000);
}
END_TEST

/* Small blocks give a refcountbt of several levels. */
START_TEST(test_random_1k)
{
	random_run(1024, 0x243f6a8885a308d3ULL, 3000);
}
END_TEST

/* ---- CoW staging extents ---- */

struct rmap_find {
	uint32_t start, len;
	uint64_t owner;
	unsigned int hits;
	unsigned int cow;	/* OWN_COW records anywhere */
};

static int find_rmap(struct xfsj_btree_cur *cur,
		     const union xfsj_btree_irec *rec, void *arg)
{
	struct rmap_find *q = arg;

	(void)cur;
	if (rec->r.owner == XFSJ_RMAP_OWN_COW)
		q->cow++;
	if (rec->r.startblock == q->start && rec->r.blockcount == q->len &&
	    rec->r.owner == q->owner)
		q->hits++;
	return 0;
}

static void rmaps(struct fs_fixture *fx, uint32_t agno, struct rmap_find *q)
{
	struct xfsj_btree_cur *cur;

	q->hits = q->cow = 0;
	ck_assert_int_eq(xfsj_btree_cur_new(fx->fs, XFSJ_BT_RMAP, agno, NULL,
					    &fx->f, &cur), 0);
	ck_assert_int_eq(xfsj_btree_query_all(cur, find_rmap, q), 0);
	xfsj_btree_cur_free(cur);
}

START_TEST(test_cow)
{
	struct fs_fixture fx;
	struct recs *r = malloc(sizeof(*r));
	struct rmap_find q = { .owner = XFSJ_RMAP_OWN_COW };
	struct xfsj_work w = { .kind = XFSJ_W_REFC, .len = 4,
			       .refc.op = XFSJ_REFC_FREE_COW };
	uint32_t b;

	make_fs(&fx, 4096);
	b = alloc_blocks(&fx, 0, 4000, 30);
	increase(&fx, 0, b + 20, 10);

	cow_alloc(&fx, 0, b, 8);
	refc_records(&fx, 0, r);
	ck_assert_uint_eq(r->n, 2);
	expect(r, 0, b + 20, 10, 2);
	expect(r, 1, (b | COWFLAG), 8, 1);
	q.start = b;
	q.len = 8;
	rmaps(&fx, 0, &q);
	ck_assert_uint_eq(q.hits, 1);

	/* A staging extent right after another joins its record. */
	cow_alloc(&fx, 0, b + 8, 4);
	refc_records(&fx, 0, r);
	ck_assert_uint_eq(r->n, 2);
	expect(r, 1, (b | COWFLAG), 12, 1);

	/* Overlapping an existing staging extent is corruption. */
	ck_assert_int_eq(xfsj_refcount_alloc_cow_extent(fx.fs,
				fsb(&fx, 0, b + 10), 4), 0);
	ck_assert_int_eq(run(&fx), -XFSJ_E_CORRUPT);
	fs_fixture_free(&fx);

	/* Again, then give back the middle: the record splits. */
	make_fs(&fx, 4096);
	b = alloc_blocks(&fx, 0, 4000, 30);
	cow_alloc(&fx, 0, b, 12);
	ck_assert_int_eq(xfsj_refcount_free_cow_extent(fx.fs,
				fsb(&fx, 0, b + 4), 4), 0);
	ck_assert_int_eq(run(&fx), 0);
	refc_records(&fx, 0, r);
	ck_assert_uint_eq(r->n, 2);
	expect(r, 0, (b | COWFLAG), 4, 1);
	expect(r, 1, ((b + 8) | COWFLAG), 4, 1);
	rmaps(&fx, 0, &q);
	ck_assert_uint_eq(q.cow, 2);

	/* Freeing a range that is not exactly one record is corruption. */
	w.fsbno = fsb(&fx, 0, b + 2);
	ck_assert_int_eq(xfsj_defer_add(fx.fs, &w), 0);
	ck_assert_int_eq(run(&fx), -XFSJ_E_CORRUPT);
	free(r);
	fs_fixture_free(&fx);
}
END_TEST

START_TEST(test_recover_cow)
{
	struct fs_fixture fx;
	struct recs *r = malloc(sizeof(*r));
	struct rmap_find q = { .owner = XFSJ_RMAP_OWN_COW };
	uint8_t fm[200];
	struct free_map m = { .n = 200, .free = fm };
	uint64_t freed = 99;
	uint32_t b;

	make_fs(&fx, 4096);
	b = alloc_blocks(&fx, 1, 3000, 200);
	m.base = b;
	increase(&fx, 1, b, 20);
	increase(&fx, 1, b + 5, 5);
	cow_alloc(&fx, 1, b + 40, 10);
	cow_alloc(&fx, 1, b + 60, 3);
	cow_alloc(&fx, 1, b + 63, 7);	/* joins the one before */
	cow_alloc(&fx, 1, b + 100, 1);
	cow_alloc(&fx, 1, b + 150, 50);
	refc_records(&fx, 1, r);
	ck_assert_uint_eq(r->n, 7);

	/* Nothing staged in AG 0. */
	ck_assert_int_eq(xfsj_refcount_recover_cow(fx.fs, 0, &freed, &fx.f), 0);
	ck_assert_uint_eq(freed, 0);

	ck_assert_int_eq(xfsj_refcount_recover_cow(fx.fs, 1, &freed, &fx.f), 0);
	ck_assert_uint_eq(freed, 4);
	refc_records(&fx, 1, r);
	ck_assert_uint_eq(r->n, 3);
	expect(r, 0, b, 5, 2);
	expect(r, 1, b + 5, 5, 3);
	expect(r, 2, b + 10, 10, 2);
	rmaps(&fx, 1, &q);
	ck_assert_uint_eq(q.cow, 0);
	free_blocks(&fx, 1, &m);
	for (uint32_t i = 0; i < 200; i++) {
		bool staged = (i >= 40 && i < 50) || (i >= 60 && i < 70) ||
			      i == 100 || i >= 150;

		ck_assert_msg(fm[i] == staged, "block %u", b + i);
	}
	/* A second pass finds nothing. */
	ck_assert_int_eq(xfsj_refcount_recover_cow(fx.fs, 1, &freed, &fx.f), 0);
	ck_assert_uint_eq(freed, 0);
	fs_fixture_reopen(&fx);
	refc_records(&fx, 1, r);
	ck_assert_uint_eq(r->n, 3);
	free(r);
	fs_fixture_free(&fx);
}
END_TEST

/* Put a record straight into the tree, bypassing every rule. */
static void raw_insert(struct fs_fixture *fx, uint32_t agno, uint32_t start,
		       uint32_t len, uint32_t count)
{
	const struct xfsj_btree_blocks *src =
		xfsj_alloc_block_source(XFSJ_BT_REFC);
	union xfsj_btree_irec rec = { .c = { start, len, count } };
	struct xfsj_btree_cur *cur;
	int stat;

	ck_assert_int_eq(xfsj_btree_cur_new(fx->fs, XFSJ_BT_REFC, agno, src,
					    &fx->f, &cur), 0);
	ck_assert_int_eq(xfsj_btree_lookup(cur, XFSJ_LOOKUP_GE, &rec, &stat),
			 0);
	ck_assert_int_eq(xfsj_btree_insert(cur, &rec, &stat), 0);
	ck_assert_int_eq(stat, 1);
	xfsj_btree_cur_free(cur);
}

START_TEST(test_corrupt_records)
{
	struct fs_fixture fx;
	uint64_t freed;
	uint32_t b;

	/* A staging record with two owners. */
	make_fs(&fx, 4096);
	b = alloc_blocks(&fx, 0, 3000, 20);
	raw_insert(&fx, 0, b | COWFLAG, 4, 2);
	memset(&fx.f, 0, sizeof(fx.f));
	ck_assert_int_eq(xfsj_refcount_recover_cow(fx.fs, 0, &freed, &fx.f),
			 -XFSJ_E_CORRUPT);
	ck_assert_str_eq(fx.f.field, "refcount");
	ck_assert_uint_eq(fx.f.value, 2);
	fs_fixture_free(&fx);

	/* A shared record with one owner. */
	make_fs(&fx, 4096);
	b = alloc_blocks(&fx, 0, 3000, 20);
	raw_insert(&fx, 0, b, 4, 1);
	ck_assert_int_eq(xfsj_refcount_increase_extent(fx.fs,
				fsb(&fx, 0, b), 8), 0);
	ck_assert_int_eq(run(&fx), -XFSJ_E_CORRUPT);
	fs_fixture_free(&fx);

	/* A staging record past the end of the AG. */
	make_fs(&fx, 4096);
	raw_insert(&fx, 0, (xfsj_fs_ag_blocks(fx.fs, 0) - 2) | COWFLAG, 4, 1);
	ck_assert_int_eq(xfsj_refcount_recover_cow(fx.fs, 0, &freed, &fx.f),
			 -XFSJ_E_CORRUPT);
	fs_fixture_free(&fx);
}
END_TEST

START_TEST(test_bad_work)
{
	struct fs_fixture fx;
	struct xfsj_work w = { .kind = XFSJ_W_REFC, .len = 4,
			       .refc.op = XFSJ_REFC_INCREASE };
	uint64_t freed = 7;

	make_fs(&fx, 4096);
	/* Over the AG headers. */
	w.fsbno = fsb(&fx, 0, 0);
	ck_assert_int_eq(xfsj_refcount_finish(fx.fs, &w, &fx.f),
			 -XFSJ_E_CORRUPT);
	/* Past the end of the AG. */
	w.fsbno = fsb(&fx, 0, xfsj_fs_ag_blocks(fx.fs, 0) - 2);
	ck_assert_int_eq(xfsj_refcount_finish(fx.fs, &w, &fx.f),
			 -XFSJ_E_CORRUPT);
	/* No such AG. */
	w.fsbno = fsb(&fx, 5, 100);
	ck_assert_int_eq(xfsj_refcount_finish(fx.fs, &w, &fx.f),
			 -XFSJ_E_CORRUPT);
	/* An AG number that would wrap to a valid one in 32 bits. */
	w.fsbno = (1ULL << 32 << fx.sb.agblklog) | 3000;
	ck_assert_int_eq(xfsj_refcount_finish(fx.fs, &w, &fx.f),
			 -XFSJ_E_CORRUPT);
	/* No such operation. */
	w.fsbno = fsb(&fx, 0, 3000);
	w.refc.op = (enum xfsj_refc_op)9;
	ck_assert_int_eq(xfsj_refcount_finish(fx.fs, &w, &fx.f),
			 -XFSJ_E_CORRUPT);
	fs_fixture_free(&fx);

	/* Without reflink: no work is queued, a CUI is corruption. */
	fs_fixture_make(&fx, 64ULL << 20, 4096, 2, true, false);
	ck_assert_int_eq(xfsj_refcount_increase_extent(fx.fs,
				fsb(&fx, 0, 3000), 4), 0);
	ck_assert_uint_eq(xfsj_defer_done(fx.fs), 0);
	ck_assert_int_eq(run(&fx), 0);
	ck_assert_uint_eq(xfsj_defer_done(fx.fs), 0);
	w.refc.op = XFSJ_REFC_INCREASE;
	ck_assert_int_eq(xfsj_refcount_finish(fx.fs, &w, &fx.f),
			 -XFSJ_E_CORRUPT);
	ck_assert_int_eq(xfsj_refcount_recover_cow(fx.fs, 0, &freed, &fx.f), 0);
	ck_assert_uint_eq(freed, 0);
	fs_fixture_free(&fx);
}
END_TEST

Suite *refcount_suite(void)
{
	Suite *s = suite_create("refcount");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_merges);
	tcase_add_test(tc, test_decrease_frees);
	tcase_add_test(tc, test_random_4k);
	tcase_add_test(tc, test_random_1k);
	tcase_add_test(tc, test_cow);
	tcase_add_test(tc, test_recover_cow);
	tcase_add_test(tc, test_corrupt_records);
	tcase_add_test(tc, test_bad_work);
	suite_add_tcase(s, tc);
	return s;
}
