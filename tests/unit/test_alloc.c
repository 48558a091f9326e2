/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * AG free space: random allocations and frees against a model of who owns
 * which block.  After every step the bnobt and cntbt must hold the same
 * maximal free runs, the AGF counters must agree with them, the AGFL must
 * stay in range and (with rmapbt) the reverse mappings must cover exactly
 * the used blocks, with the right owners.
 */
#include <stdlib.h>
#include <string.h>

#include "fs_fixture.h"
#include "suites.h"
#include "fs/alloc.h"
#include "fs/btree.h"
#include "fs/defer.h"
#include "fs/rmap.h"

/* ck_assert logs every pass, far too slow for per-block checks. */
#define REQUIRE(c)							\
	do {								\
		if (!(c))						\
			ck_abort_msg("%s:%d: %s", __FILE__, __LINE__, #c); \
	} while (0)

#define AGNO	1
/* Our owners are the inodes OWNER0, OWNER0 + 1 and OWNER0 + 2. */
#define OWNER0	1000ULL

struct model {
	struct fs_fixture fx;
	bool rmapbt;
	uint32_t agblocks;
	uint64_t *own;		/* per block: our owner, or 0 */
	uint8_t *free;		/* per block: in the bnobt */
	uint64_t *rmap;		/* per block: rmap owner, 0 when none */
	uint64_t mine;		/* blocks we own */
	uint64_t total;		/* AGF blocks + ours, constant */
	unsigned int seed;
	unsigned int height[XFSJ_BT__COUNT];	/* the tallest seen */
	bool wrapped;		/* the AGFL ring wrapped around */
	unsigned int min_seen, max_seen;	/* AGFL minimum lengths */
};

static unsigned int rnd(struct model *m, unsigned int n)
{
	m->seed = m->seed * 1103515245u + 12345u;
	return (m->seed >> 8) % n;
}

static void read_agf(struct model *m, struct xfsj_agf *agf)
{
	struct xfsj_buf *bp;

	REQUIRE(xfsj_agf_read(m->fx.fs, AGNO, &bp, &m->fx.f) == 0);
	xfsj_agf_decode(bp->data, agf);
}

struct collect {
	struct model *m;
	struct xfsj_alloc_rec v[4096];
	unsigned int n;
};

static int collect_fn(struct xfsj_btree_cur *cur,
		      const union xfsj_btree_irec *rec, void *arg)
{
	struct collect *c = arg;

	(void)cur;
	REQUIRE(c->n < 4096);
	c->v[c->n++] = rec->a;
	return 0;
}

static void walk(struct model *m, enum xfsj_btnum bt, xfsj_btree_rec_fn fn,
		 void *arg, uint64_t *blocks)
{
	struct xfsj_btree_cur *cur;

	REQUIRE(xfsj_btree_cur_new(m->fx.fs, bt, AGNO, NULL,
		&m->fx.f, &cur) == 0);
	REQUIRE(xfsj_btree_check(cur) == 0);
	if (fn)
		REQUIRE(xfsj_btree_query_all(cur, fn, arg) == 0);
	if (blocks)
		REQUIRE(xfsj_btree_count_blocks(cur, blocks) == 0);
	if (xfsj_btree_height(cur) > m->height[bt])
		m->height[bt] = xfsj_btree_height(cur);
	xfsj_btree_cur_free(cur);
}

static int cmp_cnt(const void *a, const void *b)
{
	const struct xfsj_alloc_rec *x = a, *y = b;

	if (x->blockcount != y->blockcount)
		return x->blockcount < y->blockcount ? -1 : 1;
	return x->startblock < y->startblock ? -1 :
	       x->startblock > y->startblock;
}

static int rmap_fn(struct xfsj_btree_cur *cur,
		   const union xfsj_btree_irec *rec, void *arg)
{
	struct model *m = arg;
	const struct xfsj_rmap_rec *r = &rec->r;

	(void)cur;
	REQUIRE((uint64_t)r->startblock + r->blockcount <= m->agblocks);
	for (uint32_t b = r->startblock; b < r->startblock + r->blockcount;
	     b++) {
		if (m->rmap[b])
			ck_abort_msg("block %u mapped twice", b);
		m->rmap[b] = r->owner;
		if (m->own[b] >= OWNER0 && m->own[b] < OWNER0 + 3) {
			/* Our offsets are the block numbers. */
			REQUIRE(r->offset + (b - r->startblock) == b);
		}
	}
	return 0;
}

static void check(struct model *m)
{
	static struct collect bno, cnt;
	struct xfsj_agf agf;
	struct xfsj_buf *bp;
	uint64_t nbno, ncnt, nrmap = 0, sum = 0, own_ag = 0;
	uint32_t longest = 0, agfl[1024];
	struct xfsj_agfl_hdr hdr;
	unsigned int size = xfsj_agfl_size(m->fx.sb.sectsize);

	bno.n = cnt.n = 0;
	read_agf(m, &agf);
	walk(m, XFSJ_BT_BNO, collect_fn, &bno, &nbno);
	walk(m, XFSJ_BT_CNT, collect_fn, &cnt, &ncnt);
	REQUIRE(bno.n == cnt.n);
	memset(m->free, 0, m->agblocks);
	for (unsigned int i = 0; i < bno.n; i++) {
		const struct xfsj_alloc_rec *r = &bno.v[i];

		REQUIRE(r->blockcount > 0);
		if (i)	/* sorted, and maximal: never touching */
			REQUIRE(r->startblock > bno.v[i - 1].startblock +
				bno.v[i - 1].blockcount);
		for (uint32_t b = r->startblock; b < r->startblock +
		     r->blockcount; b++) {
			m->free[b] = 1;
			if (m->own[b])
				ck_abort_msg("our block %u is free", b);
		}
		sum += r->blockcount;
		if (r->blockcount > longest)
			longest = r->blockcount;
	}
	qsort(bno.v, bno.n, sizeof(bno.v[0]), cmp_cnt);
	ck_assert_mem_eq(bno.v, cnt.v, bno.n * sizeof(bno.v[0]));
	REQUIRE(agf.freeblks == sum);
	REQUIRE(agf.longest == longest);
	REQUIRE(agf.flcount <= size);
	if (agf.flcount && agf.fllast < agf.flfirst)
		m->wrapped = true;
	REQUIRE(agf.freeblks + agf.flcount + agf.btreeblks + m->mine ==
		m->total);

	REQUIRE(xfsj_agfl_read(m->fx.fs, AGNO, &bp, &m->fx.f) == 0);
	xfsj_agfl_decode(bp->data, m->fx.sb.sectsize, &hdr, agfl);
	for (uint32_t i = 0, s = agf.flfirst; i < agf.flcount;
	     i++, s = (s + 1) % size) {
		REQUIRE(agfl[s] < m->agblocks);
		REQUIRE(!m->free[agfl[s]] && !m->own[agfl[s]]);
	}

	if (!m->rmapbt) {
		REQUIRE(agf.btreeblks == nbno - 1 + ncnt - 1);
		return;
	}
	memset(m->rmap, 0, m->agblocks * sizeof(*m->rmap));
	walk(m, XFSJ_BT_RMAP, rmap_fn, m, &nrmap);
	REQUIRE(agf.btreeblks == nbno - 1 + ncnt - 1 + nrmap - 1);
	REQUIRE(agf.rmap_blocks == nrmap);
	for (uint32_t b = 0; b < m->agblocks; b++) {
		/* Every block is free or mapped, never both. */
		if (!m->free[b] == !m->rmap[b])
			ck_abort_msg("block %u free %d rmap %llx", b,
				     m->free[b],
				     (unsigned long long)m->rmap[b]);
		if (m->own[b])
			REQUIRE(m->rmap[b] == m->own[b]);
		else if (m->rmap[b] >= OWNER0 && m->rmap[b] < OWNER0 + 3)
			ck_abort_msg("block %u mapped to us", b);
		if (m->rmap[b] == XFSJ_RMAP_OWN_AG)
			own_ag++;
	}
	for (uint32_t i = 0, s = agf.flfirst; i < agf.flcount;
	     i++, s = (s + 1) % size)
		REQUIRE(m->rmap[agfl[s]] == XFSJ_RMAP_OWN_AG);
	REQUIRE(own_ag == agf.flcount + nbno + ncnt + nrmap);
}

static void model_make_rl(struct model *m, uint32_t blocksize, bool rmapbt,
			  bool reflink, unsigned int seed)
{
	struct xfsj_agf agf;

	memset(m, 0, sizeof(*m));
	fs_fixture_make(&m->fx, 64ULL << 20, blocksize, 4, rmapbt, reflink);
	m->rmapbt = rmapbt;
	m->seed = seed;
	m->agblocks = xfsj_fs_ag_blocks(m->fx.fs, AGNO);
	m->own = calloc(m->agblocks, sizeof(*m->own));
	m->free = calloc(m->agblocks, 1);
	m->rmap = calloc(m->agblocks, sizeof(*m->rmap));
	REQUIRE(m->own && m->free && m->rmap);
	read_agf(m, &agf);
	m->total = (uint64_t)agf.freeblks + agf.flcount + agf.btreeblks;
	/* mkfs filled the AGFL to the kernel's minimum. */
	REQUIRE(xfsj_alloc_min_freelist(m->fx.fs, AGNO, &m->fx.f) ==
		agf.flcount);
	m->min_seen = m->max_seen = agf.flcount;
	check(m);
}

/* Rotate the AGFL ring so that its live part straddles the array end. */
static void agfl_rotate(struct model *m)
{
	unsigned int size = xfsj_agfl_size(m->fx.sb.sectsize);
	struct xfsj_buf *agfbp, *bp;
	struct xfsj_agfl_hdr hdr;
	struct xfsj_agf agf;
	uint32_t v[1024], live[1024], first;

	REQUIRE(xfsj_agf_read(m->fx.fs, AGNO, &agfbp, &m->fx.f) == 0);
	REQUIRE(xfsj_agfl_read(m->fx.fs, AGNO, &bp, &m->fx.f) == 0);
	xfsj_agf_decode(agfbp->data, &agf);
	xfsj_agfl_decode(bp->data, m->fx.sb.sectsize, &hdr, v);
	for (uint32_t i = 0; i < agf.flcount; i++)
		live[i] = v[(agf.flfirst + i) % size];
	first = size - agf.flcount / 2 - 1;
	for (uint32_t i = 0; i < size; i++)
		v[i] = XFSJ_NULLAGBLOCK;
	for (uint32_t i = 0; i < agf.flcount; i++)
		v[(first + i) % size] = live[i];
	agf.flfirst = first;
	agf.fllast = (first + agf.flcount - 1) % size;
	xfsj_agfl_encode(&hdr, v, bp->data, m->fx.sb.sectsize);
	xfsj_agf_encode(&agf, agfbp->data, agfbp->len);
	xfsj_buf_dirty(bp);
	xfsj_buf_dirty(agfbp);
}

static void model_make(struct model *m, uint32_t blocksize, bool rmapbt,
		       unsigned int seed)
{
	model_make_rl(m, blocksize, rmapbt, false, seed);
}

static void model_free(struct model *m)
{
	free(m->own);
	free(m->free);
	free(m->rmap);
	fs_fixture_free(&m->fx);
}

static void do_alloc(struct model *m)
{
	uint32_t len = 1 + rnd(m, rnd(m, 4) ? 4 : 40);
	uint32_t near = rnd(m, m->agblocks), bno;
	struct xfsj_owner oi = { .owner = OWNER0 + rnd(m, 3) };
	int err;

	/* Offsets equal block numbers, so neighbours of one owner merge. */
	err = xfsj_alloc_extent(m->fx.fs, AGNO, near, len, &oi, &bno,
				&m->fx.f);
	if (err == -XFSJ_E_NOSPC)
		return;
	REQUIRE(err == 0);
	REQUIRE((uint64_t)bno + len <= m->agblocks);
	for (uint32_t b = bno; b < bno + len; b++) {
		if (!m->free[b])
			ck_abort_msg("block %u was not free", b);
		REQUIRE(!m->own[b]);
	}
	/* The inode owner's offset must be the first block's. */
	if (m->rmapbt) {
		/* xfsj_alloc_extent maps at oi.offset: redo with the block. */
		struct xfsj_owner fix = oi;

		fix.offset = bno;
		REQUIRE(xfsj_rmap_free(m->fx.fs, AGNO, bno, len, &oi,
			&m->fx.f) == 0);
		REQUIRE(xfsj_rmap_alloc(m->fx.fs, AGNO, bno, len,
			&fix, &m->fx.f) == 0);
	}
	for (uint32_t b = bno; b < bno + len; b++)
		m->own[b] = oi.owner;
	m->mine += len;
}

static void do_free(struct model *m)
{
	uint32_t start = rnd(m, m->agblocks), b, e;
	struct xfsj_owner oi;

	for (b = start; b < m->agblocks && !m->own[b]; b++)
		;
	if (b == m->agblocks)
		return;
	for (e = b; e < m->agblocks && m->own[e] == m->own[b]; e++)
		;
	/* A piece of the run: the rmap record is trimmed or split. */
	start = b + rnd(m, e - b);
	e = start + 1 + rnd(m, e - start);
	memset(&oi, 0, sizeof(oi));
	oi.owner = m->own[start];
	oi.offset = start;
	REQUIRE(xfsj_free_extent(m->fx.fs, AGNO, start, e - start, &oi,
		&m->fx.f) == 0);
	for (b = start; b < e; b++)
		m->own[b] = 0;
	m->mine -= e - start;
}

static void random_run(uint32_t blocksize, bool rmapbt, unsigned int seed,
		       unsigned int steps)
{
	struct model m;
	unsigned int min;
	struct xfsj_agf agf;

	model_make(&m, blocksize, rmapbt, seed);
	if (blocksize == 1024)
		agfl_rotate(&m);
	for (unsigned int i = 0; i < steps; i++) {
		/* Grow for a while, then churn, then mostly shrink. */
		unsigned int p = i < steps / 3 ? 80 :
				 i < 2 * steps / 3 ? 50 : 20;

		if (rnd(&m, 100) < p)
			do_alloc(&m);
		else
			do_free(&m);
		if (i % 16 == 15) {
			REQUIRE(xfsj_alloc_fix_freelist(m.fx.fs, AGNO,
				&m.fx.f) == 0);
			min = xfsj_alloc_min_freelist(m.fx.fs, AGNO, &m.fx.f);
			read_agf(&m, &agf);
			REQUIRE(agf.flcount == min);
			if (min > m.max_seen)
				m.max_seen = min;
		}
		check(&m);
	}
	/* Free everything: the free space is whole again. */
	for (uint32_t b = 0; b < m.agblocks; b++) {
		if (m.own[b]) {
			struct xfsj_owner oi = { .owner = m.own[b],
						 .offset = b };

			REQUIRE(xfsj_free_extent(m.fx.fs, AGNO, b, 1,
				&oi, &m.fx.f) == 0);
			m.own[b] = 0;
			m.mine--;
		}
	}
	check(&m);
	/* The trees shrank back: the AGFL gives its extra blocks back. */
	REQUIRE(xfsj_alloc_fix_freelist(m.fx.fs, AGNO, &m.fx.f) == 0);
	min = xfsj_alloc_min_freelist(m.fx.fs, AGNO, &m.fx.f);
	read_agf(&m, &agf);
	REQUIRE(agf.flcount == min);
	check(&m);
	fs_fixture_reopen(&m.fx);
	check(&m);
	if (blocksize == 1024)
		ck_assert_msg(m.wrapped && m.max_seen > m.min_seen &&
			      min == m.min_seen, "w %d max %u min %u now %u",
			      m.wrapped, m.max_seen, m.min_seen, min);
	/* Small blocks: the trees grew a level (near allocation's
	 * locality search, splits and joins were all exercised). */
	if (blocksize == 1024)
		REQUIRE(m.height[XFSJ_BT_BNO] >= 2 &&
			m.height[XFSJ_BT_CNT] >= 2 &&
			(!rmapbt || m.height[XFSJ_BT_RMAP] >= 2));
	model_free(&m);
}

START_TEST(test_random_4k_rmap)
{
	random_run(4096, true, 1, 400);
}
END_TEST

START_TEST(test_random_4k_normap)
{
	random_run(4096, false, 2, 400);
}
END_TEST

START_TEST(test_random_1k_rmap)
{
	random_run(1024, true, 3, 600);
}
END_TEST

START_TEST(test_random_1k_normap)
{
	random_run(1024, false, 4, 600);
}
END_TEST

/* Find a free block of AG AGNO from the bnobt. */
static uint32_t some_free_block(struct model *m)
{
	for (uint32_t b = m->agblocks / 2; b < m->agblocks; b++)
		if (m->free[b])
			return b;
	ck_abort_msg("no free block");
	return 0;
}

START_TEST(test_free_free_block)
{
	struct model m;
	struct xfsj_owner none = { .owner = XFSJ_RMAP_OWN_NULL };
	uint32_t b;

	model_make(&m, 4096, _i, 5);
	b = some_free_block(&m);
	memset(&m.fx.f, 0, sizeof(m.fx.f));
	REQUIRE(xfsj_free_extent(m.fx.fs, AGNO, b, 1, &none,
		&m.fx.f) == -XFSJ_E_CORRUPT);
	REQUIRE(m.fx.f.err == XFSJ_E_CORRUPT);
	ck_assert_ptr_nonnull(m.fx.f.structure);
	model_free(&m);
}
END_TEST

START_TEST(test_free_overlapping)
{
	struct model m;
	struct xfsj_owner none = { .owner = XFSJ_RMAP_OWN_NULL };
	struct xfsj_owner oi = { .owner = OWNER0 };
	uint32_t b;

	/* A range half used, half free: still refused. */
	model_make(&m, 4096, false, 6);
	REQUIRE(xfsj_alloc_extent(m.fx.fs, AGNO, m.agblocks / 2, 4,
		&oi, &b, &m.fx.f) == 0);
	REQUIRE(xfsj_free_extent(m.fx.fs, AGNO, b + 2, 4, &none,
		&m.fx.f) == -XFSJ_E_CORRUPT);
	model_free(&m);
}
END_TEST

START_TEST(test_free_bad_range)
{
	struct model m;
	struct xfsj_owner none = { .owner = XFSJ_RMAP_OWN_NULL };

	model_make(&m, 4096, false, 7);
	REQUIRE(xfsj_free_extent(m.fx.fs, AGNO, m.agblocks - 1, 2,
		&none, &m.fx.f) == -XFSJ_E_CORRUPT);
	REQUIRE(xfsj_free_extent(m.fx.fs, AGNO, 10, 0, &none,
		&m.fx.f) == -XFSJ_E_CORRUPT);
	REQUIRE(xfsj_free_extent(m.fx.fs, 99, 10, 1, &none,
		&m.fx.f) == -XFSJ_E_RANGE);
	model_free(&m);
}
END_TEST

/* Near allocation takes the block at the hint when it is free. */
START_TEST(test_alloc_near_exact)
{
	struct model m;
	struct xfsj_owner oi = { .owner = XFSJ_RMAP_OWN_INOBT };
	uint32_t want, b;

	model_make(&m, 4096, true, 8);
	want = some_free_block(&m) + 10;
	REQUIRE(m.free[want] && m.free[want + 1]);
	REQUIRE(xfsj_alloc_extent(m.fx.fs, AGNO, want, 2, &oi, &b,
		&m.fx.f) == 0);
	REQUIRE(b == want);
	m.own[b] = m.own[b + 1] = XFSJ_RMAP_OWN_INOBT;
	m.mine += 2;
	check(&m);
	model_free(&m);
}
END_TEST

/* A recovered EFI (owner unknown) removes whatever rmap covers it. */
START_TEST(test_free_finish_unknown_owner)
{
	struct model m;
	struct xfsj_owner oi = { .owner = OWNER0 + 1, .offset = 77 };
	struct xfsj_work w;
	uint32_t b;

	model_make(&m, 4096, true, 9);
	REQUIRE(xfsj_alloc_extent(m.fx.fs, AGNO, 100, 3, &oi, &b,
		&m.fx.f) == 0);
	memset(&w, 0, sizeof(w));
	w.kind = XFSJ_W_FREE;
	w.fsbno = xfsj_agb_to_fsb(&m.fx.sb, AGNO, b);
	w.len = 3;
	w.free.oi.owner = XFSJ_RMAP_OWN_UNKNOWN;
	REQUIRE(xfsj_free_finish(m.fx.fs, &w, &m.fx.f) == 0);
	check(&m);
	/* Freed already: corruption, whatever the owner. */
	REQUIRE(xfsj_free_finish(m.fx.fs, &w, &m.fx.f) == -XFSJ_E_CORRUPT);
	model_free(&m);
}
END_TEST

/* An AGFL whose count disagrees with its indices is reset, then refilled. */
START_TEST(test_agfl_reset)
{
	struct model m;
	struct xfsj_buf *bp;
	struct xfsj_agf agf;
	unsigned int min;

	model_make(&m, 4096, true, 10);
	REQUIRE(xfsj_agf_read(m.fx.fs, AGNO, &bp, &m.fx.f) == 0);
	xfsj_agf_decode(bp->data, &agf);
	agf.flcount++;
	xfsj_agf_encode(&agf, bp->data, bp->len);
	xfsj_buf_dirty(bp);
	REQUIRE(xfsj_alloc_fix_freelist(m.fx.fs, AGNO, &m.fx.f) == 0);
	min = xfsj_alloc_min_freelist(m.fx.fs, AGNO, &m.fx.f);
	read_agf(&m, &agf);
	REQUIRE(agf.flcount == min && agf.flfirst == 0 &&
		agf.fllast == min - 1);
	model_free(&m);
}
END_TEST

/*
 * A refill takes its blocks from the start of the smallest free extent
 * that holds them all (the by-size tree's best fit), like mkfs's and the
 * kernel's AGFL fill.
 */
START_TEST(test_agfl_refill_best_fit)
{
	struct model m;
	struct xfsj_owner oi = { .owner = OWNER0 };
	struct xfsj_buf *bp;
	struct xfsj_agfl_hdr hdr;
	struct xfsj_agf agf;
	uint32_t x, v[1024], want;

	model_make(&m, 4096, _i, 12);
	REQUIRE(xfsj_alloc_extent(m.fx.fs, AGNO, m.agblocks / 2, 100, &oi, &x,
		&m.fx.f) == 0);
	REQUIRE(x == m.agblocks / 2);
	/* holes of 3, 10 and 5 blocks inside our extent */
	oi.offset = 10;
	REQUIRE(xfsj_free_extent(m.fx.fs, AGNO, x + 10, 3, &oi,
		&m.fx.f) == 0);
	oi.offset = 20;
	REQUIRE(xfsj_free_extent(m.fx.fs, AGNO, x + 20, 10, &oi,
		&m.fx.f) == 0);
	oi.offset = 40;
	REQUIRE(xfsj_free_extent(m.fx.fs, AGNO, x + 40, 5, &oi,
		&m.fx.f) == 0);
	/* empty the AGFL (a reset) and refill it */
	REQUIRE(xfsj_agf_read(m.fx.fs, AGNO, &bp, &m.fx.f) == 0);
	xfsj_agf_decode(bp->data, &agf);
	agf.flcount = 0;
	agf.fllast = agf.flfirst ? agf.flfirst - 1 :
		     xfsj_agfl_size(m.fx.sb.sectsize) - 1;
	xfsj_agf_encode(&agf, bp->data, bp->len);
	xfsj_buf_dirty(bp);
	REQUIRE(xfsj_alloc_fix_freelist(m.fx.fs, AGNO, &m.fx.f) == 0);
	read_agf(&m, &agf);
	REQUIRE(agf.flcount == (_i ? 6u : 4u));
	want = _i ? x + 20 : x + 40;
	REQUIRE(xfsj_agfl_read(m.fx.fs, AGNO, &bp, &m.fx.f) == 0);
	xfsj_agfl_decode(bp->data, m.fx.sb.sectsize, &hdr, v);
	for (uint32_t i = 0; i < agf.flcount; i++)
		REQUIRE(v[(agf.flfirst + i) %
			xfsj_agfl_size(m.fx.sb.sectsize)] == want + i);
	model_free(&m);
}
END_TEST

/*
 * The inobt and refcountbt block sources allocate near their hint with
 * their own owner, and queue the frees as deferred work.
 */
START_TEST(test_block_sources)
{
	struct model m;
	const struct xfsj_btree_blocks *src;
	struct xfsj_btree_cur *cur;
	uint32_t b1, b2;

	model_make_rl(&m, 4096, true, true, 11);
	ck_assert_ptr_null(xfsj_alloc_block_source(XFSJ_BT_BMAP));
	src = xfsj_alloc_block_source(XFSJ_BT_REFC);
	REQUIRE(xfsj_btree_cur_new(m.fx.fs, XFSJ_BT_REFC, AGNO, src, &m.fx.f,
		&cur) == 0);
	REQUIRE(src->alloc(src->arg, cur, 3000, &b1, &m.fx.f) == 0);
	/* not near 3000: near the refcount root, at the low end */
	REQUIRE(b1 < 100);
	m.own[b1] = XFSJ_RMAP_OWN_REFC;
	m.mine++;
	check(&m);
	REQUIRE(src->free(src->arg, cur, b1, &m.fx.f) == 0);
	xfsj_btree_cur_free(cur);
	REQUIRE(xfsj_defer_finish(m.fx.fs, &m.fx.f) == 0);
	m.own[b1] = 0;
	m.mine--;
	check(&m);

	src = xfsj_alloc_block_source(XFSJ_BT_INO);
	REQUIRE(xfsj_btree_cur_new(m.fx.fs, XFSJ_BT_INO, AGNO, src, &m.fx.f,
		&cur) == 0);
	REQUIRE(src->alloc(src->arg, cur, 3000, &b2, &m.fx.f) == 0);
	REQUIRE(b2 == 3000);
	m.own[b2] = XFSJ_RMAP_OWN_INOBT;
	m.mine++;
	check(&m);
	REQUIRE(src->free(src->arg, cur, b2, &m.fx.f) == 0);
	xfsj_btree_cur_free(cur);
	REQUIRE(xfsj_defer_finish(m.fx.fs, &m.fx.f) == 0);
	m.own[b2] = 0;
	m.mine--;
	check(&m);
	model_free(&m);
}
END_TEST

/* The last AG may be short: its end is the AGF's length, not agblocks. */
START_TEST(test_short_last_ag)
{
	struct fs_fixture fx;
	struct xfsj_owner oi = { .owner = OWNER0 };
	uint32_t last, len, b;
	struct xfsj_buf *bp;
	struct xfsj_agf agf;

	/* 20001 blocks in 4 AGs: the last one is a little short. */
	fs_fixture_make(&fx, 20001ULL * 4096, 4096, 4, true, false);
	last = fx.sb.agcount - 1;
	len = xfsj_fs_ag_blocks(fx.fs, last);
	ck_assert_msg(len < fx.sb.agblocks, "agcount %u agblocks %u last %u",
		      fx.sb.agcount, fx.sb.agblocks, len);
	REQUIRE(xfsj_alloc_extent(fx.fs, last, len - 1, 1, &oi, &b,
				  &fx.f) == 0);
	REQUIRE(b == len - 1);
	oi.offset = 0;
	REQUIRE(xfsj_free_extent(fx.fs, last, len - 1, 2, &oi, &fx.f) ==
		-XFSJ_E_CORRUPT);
	REQUIRE(xfsj_free_extent(fx.fs, last, len - 1, 1, &oi, &fx.f) == 0);
	REQUIRE(xfsj_agf_read(fx.fs, last, &bp, &fx.f) == 0);
	xfsj_agf_decode(bp->data, &agf);
	REQUIRE(agf.longest == agf.freeblks);
	fs_fixture_free(&fx);
}
END_TEST

Suite *alloc_suite(void)
{
	Suite *s = suite_create("alloc");
	TCase *tc = tcase_create("alloc");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_random_4k_rmap);
	tcase_add_test(tc, test_random_4k_normap);
	tcase_add_test(tc, test_random_1k_rmap);
	tcase_add_test(tc, test_random_1k_normap);
	tcase_add_loop_test(tc, test_free_free_block, 0, 2);
	tcase_add_test(tc, test_free_overlapping);
	tcase_add_test(tc, test_free_bad_range);
	tcase_add_test(tc, test_alloc_near_exact);
	tcase_add_test(tc, test_free_finish_unknown_owner);
	tcase_add_test(tc, test_agfl_reset);
	tcase_add_loop_test(tc, test_agfl_refill_best_fit, 0, 2);
	tcase_add_test(tc, test_block_sources);
	tcase_add_test(tc, test_short_last_ag);
	suite_add_tcase(s, tc);
	return s;
}
