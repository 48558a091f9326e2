/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Reverse mappings: random map, unmap and convert work items on a window
 * of free blocks, against a model of each owner's mappings.  The rmapbt
 * must always hold exactly the maximal runs of the model (same owner,
 * contiguous blocks and offsets, same state), so every merge, trim and
 * split is checked.  With reflink the _SHARED forms let two owners map
 * the same blocks.
 */
#include <stdlib.h>
#include <string.h>

#include "fs_fixture.h"
#include "suites.h"
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
#define NOWN	2
#define WIN	192

struct rmodel {
	struct fs_fixture fx;
	bool shared;
	uint32_t base;		/* first block of the window */
	bool mapped[NOWN][WIN];
	uint64_t off[NOWN][WIN];
	bool unw[NOWN][WIN];
	unsigned int seed;
	unsigned int maps, unmaps, converts, most;	/* coverage */
};

static const uint64_t owners[NOWN] = { 2000, 2001 };

static unsigned int rnd(struct rmodel *m, unsigned int n)
{
	m->seed = m->seed * 1103515245u + 12345u;
	return (m->seed >> 8) % n;
}

struct recs {
	struct xfsj_rmap_rec v[WIN * NOWN];
	unsigned int n;
	uint32_t lo, hi;
};

static int cmp_rec(const void *a, const void *b)
{
	const struct xfsj_rmap_rec *x = a, *y = b;

	if (x->startblock != y->startblock)
		return x->startblock < y->startblock ? -1 : 1;
	if (x->owner != y->owner)
		return x->owner < y->owner ? -1 : 1;
	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

static int rec_fn(struct xfsj_btree_cur *cur,
		  const union xfsj_btree_irec *rec, void *arg)
{
	struct recs *r = arg;

	(void)cur;
	if (rec->r.startblock + rec->r.blockcount <= r->lo ||
	    rec->r.startblock > r->hi)
		return 0;
	REQUIRE(r->n < WIN * NOWN);
	r->v[r->n++] = rec->r;
	return 0;
}

static void expected(struct rmodel *m, struct recs *e)
{
	e->n = 0;
	for (int o = 0; o < NOWN; o++) {
		for (uint32_t i = 0; i < WIN;) {
			uint32_t j = i + 1;

			if (!m->mapped[o][i]) {
				i++;
				continue;
			}
			while (j < WIN && m->mapped[o][j] &&
			       m->unw[o][j] == m->unw[o][i] &&
			       m->off[o][j] == m->off[o][i] + (j - i))
				j++;
			e->v[e->n].startblock = m->base + i;
			e->v[e->n].blockcount = j - i;
			e->v[e->n].owner = owners[o];
			e->v[e->n].offset = m->off[o][i] |
				(m->unw[o][i] ? XFSJ_RMAP_OFF_UNWRITTEN : 0);
			e->n++;
			i = j;
		}
	}
	qsort(e->v, e->n, sizeof(e->v[0]), cmp_rec);
}

static void check(struct rmodel *m)
{
	static struct recs got, want;
	struct xfsj_btree_cur *cur;

	got.n = 0;
	got.lo = m->base;
	got.hi = m->base + WIN - 1;
	REQUIRE(xfsj_btree_cur_new(m->fx.fs, XFSJ_BT_RMAP, AGNO, NULL,
		&m->fx.f, &cur) == 0);
	REQUIRE(xfsj_btree_check(cur) == 0);
	REQUIRE(xfsj_btree_query_all(cur, rec_fn, &got) == 0);
	xfsj_btree_cur_free(cur);
	qsort(got.v, got.n, sizeof(got.v[0]), cmp_rec);
	expected(m, &want);
	REQUIRE(got.n == want.n);
	if (got.n > m->most)
		m->most = got.n;
	for (unsigned int i = 0; i < got.n; i++) {
		REQUIRE(got.v[i].startblock == want.v[i].startblock);
		REQUIRE(got.v[i].blockcount == want.v[i].blockcount);
		REQUIRE(got.v[i].owner == want.v[i].owner);
		REQUIRE(got.v[i].offset == want.v[i].offset);
	}
}

static void rmodel_make(struct rmodel *m, bool reflink, unsigned int seed)
{
	struct xfsj_btree_cur *cur;
	union xfsj_btree_irec r;
	int stat;

	memset(m, 0, sizeof(*m));
	fs_fixture_make(&m->fx, 64ULL << 20, 4096, 4, true, reflink);
	m->shared = reflink;
	m->seed = seed;
	/* A window in the middle of the AG's free space. */
	m->base = xfsj_fs_ag_blocks(m->fx.fs, AGNO) / 2;
	REQUIRE(xfsj_btree_cur_new(m->fx.fs, XFSJ_BT_BNO, AGNO, NULL,
		&m->fx.f, &cur) == 0);
	memset(&r, 0, sizeof(r));
	r.a.startblock = m->base;
	REQUIRE(xfsj_btree_lookup(cur, XFSJ_LOOKUP_LE, &r, &stat) == 0);
	REQUIRE(stat == 1);
	REQUIRE(xfsj_btree_get_rec(cur, &r, &stat) == 0);
	REQUIRE(r.a.startblock + r.a.blockcount >= m->base + WIN);
	xfsj_btree_cur_free(cur);
	check(m);
}

static int run(struct rmodel *m, enum xfsj_rmap_op op, int o, uint32_t i,
	       uint32_t len, uint64_t off, bool unwritten)
{
	struct xfsj_work w;

	memset(&w, 0, sizeof(w));
	w.kind = XFSJ_W_RMAP;
	w.fsbno = xfsj_agb_to_fsb(&m->fx.sb, AGNO, m->base + i);
	w.len = len;
	w.rmap.op = op;
	w.rmap.owner = owners[o];
	w.rmap.offset = off;
	w.rmap.unwritten = unwritten;
	return xfsj_rmap_finish(m->fx.fs, &w, &m->fx.f);
}

/* Blocks of owner @o usable by a map: free of @o, and of everyone
 * without reflink. */
static bool can_map(struct rmodel *m, int o, uint32_t i)
{
	for (int p = 0; p < NOWN; p++)
		if (m->mapped[p][i] && (p == o || !m->shared))
			return false;
	return true;
}

static void do_map(struct rmodel *m)
{
	int o = (int)rnd(m, NOWN);
	uint32_t i = rnd(m, WIN), j, len;
	uint64_t off;
	bool unw = rnd(m, 4) == 0;

	while (i < WIN && !can_map(m, o, i))
		i++;
	if (i == WIN)
		return;
	for (j = i; j < WIN && can_map(m, o, j) && j - i < 12; j++)
		;
	len = 1 + rnd(m, j - i);
	/* Often continue the left neighbour's offsets, so they merge. */
	if (i && m->mapped[o][i - 1] && rnd(m, 3))
		off = m->off[o][i - 1] + 1;
	else if (i + len < WIN && m->mapped[o][i + len] &&
		 m->off[o][i + len] >= len && rnd(m, 2))
		off = m->off[o][i + len] - len;
	else
		off = 1000 + rnd(m, 100000);
	if (rnd(m, 2) && i && m->mapped[o][i - 1])
		unw = m->unw[o][i - 1];
	REQUIRE(run(m, m->shared ? XFSJ_RMAP_MAP_SHARED :
		XFSJ_RMAP_MAP, o, i, len, off, unw) == 0);
	m->maps++;
	for (uint32_t k = 0; k < len; k++) {
		m->mapped[o][i + k] = true;
		m->off[o][i + k] = off + k;
		m->unw[o][i + k] = unw;
	}
}

/* A random piece of one record of owner @o: [*s, *e). */
static bool pick_piece(struct rmodel *m, int o, uint32_t *s, uint32_t *e)
{
	uint32_t i = rnd(m, WIN), a, b;

	while (i < WIN && !m->mapped[o][i])
		i++;
	if (i == WIN)
		return false;
	for (a = i; a > 0 && m->mapped[o][a - 1] &&
	     m->unw[o][a - 1] == m->unw[o][i] &&
	     m->off[o][a - 1] + 1 == m->off[o][a]; a--)
		;
	for (b = i + 1; b < WIN && m->mapped[o][b] &&
	     m->unw[o][b] == m->unw[o][i] &&
	     m->off[o][b] == m->off[o][b - 1] + 1; b++)
		;
	*s = a + rnd(m, b - a);
	*e = *s + 1 + rnd(m, b - *s);
	return true;
}

static void do_unmap(struct rmodel *m)
{
	int o = (int)rnd(m, NOWN);
	uint32_t s, e;

	if (!pick_piece(m, o, &s, &e))
		return;
	REQUIRE(run(m, m->shared ? XFSJ_RMAP_UNMAP_SHARED :
		XFSJ_RMAP_UNMAP, o, s, e - s, m->off[o][s],
		m->unw[o][s]) == 0);
	m->unmaps++;
	for (uint32_t k = s; k < e; k++)
		m->mapped[o][k] = false;
}

static void do_convert(struct rmodel *m)
{
	int o = (int)rnd(m, NOWN);
	uint32_t s, e;
	bool to = false;

	if (!pick_piece(m, o, &s, &e))
		return;
	to = !m->unw[o][s];
	/* The item names the state the blocks end up in. */
	REQUIRE(run(m, m->shared ? XFSJ_RMAP_CONVERT_SHARED :
		XFSJ_RMAP_CONVERT, o, s, e - s, m->off[o][s], to) == 0);
	m->converts++;
	for (uint32_t k = s; k < e; k++)
		m->unw[o][k] = to;
}

static void random_rmap(bool reflink, unsigned int seed, unsigned int steps)
{
	struct rmodel m;

	rmodel_make(&m, reflink, seed);
	for (unsigned int i = 0; i < steps; i++) {
		unsigned int p = rnd(&m, 100);

		if (p < (i < steps / 2 ? 55 : 30))
			do_map(&m);
		else if (p < 75)
			do_convert(&m);
		else
			do_unmap(&m);
		check(&m);
	}
	fs_fixture_reopen(&m.fx);
	check(&m);
	/* The run did reach every case and a tree of some size. */
	REQUIRE(m.maps > steps / 8 && m.unmaps > steps / 8 &&
		m.converts > steps / 8);
	REQUIRE(m.most > 40);
	fs_fixture_free(&m.fx);
}

START_TEST(test_random_plain)
{
	random_rmap(false, 11, 500);
}
END_TEST

START_TEST(test_random_shared)
{
	random_rmap(true, 12, 500);
}
END_TEST

/* The merge cases of one map, spelled out. */
START_TEST(test_map_merges)
{
	struct rmodel m;

	rmodel_make(&m, false, 13);
	REQUIRE(run(&m, XFSJ_RMAP_MAP, 0, 10, 5, 100, false) == 0);
	REQUIRE(run(&m, XFSJ_RMAP_MAP, 0, 20, 5, 110, false) == 0);
	/* fills the hole with matching offsets: one record */
	REQUIRE(run(&m, XFSJ_RMAP_MAP, 0, 15, 5, 105, false) == 0);
	for (uint32_t k = 10; k < 25; k++) {
		m.mapped[0][k] = true;
		m.off[0][k] = 100 + k - 10;
	}
	check(&m);
	/* wrong offset on the right: no merge there */
	REQUIRE(run(&m, XFSJ_RMAP_MAP, 0, 25, 2, 500, false) == 0);
	m.mapped[0][25] = m.mapped[0][26] = true;
	m.off[0][25] = 500;
	m.off[0][26] = 501;
	check(&m);
	/* middle unmap splits, then a convert in the middle makes three */
	REQUIRE(run(&m, XFSJ_RMAP_UNMAP, 0, 12, 2, 102, false) == 0);
	m.mapped[0][12] = m.mapped[0][13] = false;
	check(&m);
	REQUIRE(run(&m, XFSJ_RMAP_CONVERT, 0, 17, 3, 107, true) == 0);
	m.unw[0][17] = m.unw[0][18] = m.unw[0][19] = true;
	check(&m);
	/* converting back merges all three again */
	REQUIRE(run(&m, XFSJ_RMAP_CONVERT, 0, 17, 3, 107, false) == 0);
	m.unw[0][17] = m.unw[0][18] = m.unw[0][19] = false;
	check(&m);
	fs_fixture_free(&m.fx);
}
END_TEST

static unsigned int window_records(struct rmodel *m, struct recs *got)
{
	struct xfsj_btree_cur *cur;

	got->n = 0;
	got->lo = m->base;
	got->hi = m->base + WIN - 1;
	REQUIRE(xfsj_btree_cur_new(m->fx.fs, XFSJ_BT_RMAP, AGNO, NULL,
				   &m->fx.f, &cur) == 0);
	REQUIRE(xfsj_btree_query_all(cur, rec_fn, got) == 0);
	xfsj_btree_cur_free(cur);
	qsort(got->v, got->n, sizeof(got->v[0]), cmp_rec);
	return got->n;
}

/* Attribute-fork and bmbt-block mappings never merge with data ones. */
START_TEST(test_fork_flags)
{
	static struct recs got;
	struct rmodel m;
	struct xfsj_work w;

	rmodel_make(&m, false, 15);
	REQUIRE(run(&m, XFSJ_RMAP_ALLOC, 0, 0, 4, 100, false) == 0);
	memset(&w, 0, sizeof(w));
	w.kind = XFSJ_W_RMAP;
	w.fsbno = xfsj_agb_to_fsb(&m.fx.sb, AGNO, m.base + 4);
	w.len = 4;
	w.rmap.op = XFSJ_RMAP_MAP;
	w.rmap.owner = owners[0];
	w.rmap.offset = 104;
	w.rmap.attr_fork = true;
	REQUIRE(xfsj_rmap_finish(m.fx.fs, &w, &m.fx.f) == 0);
	w.fsbno += 4;
	w.rmap.attr_fork = false;
	w.rmap.bmbt_block = true;
	REQUIRE(xfsj_rmap_finish(m.fx.fs, &w, &m.fx.f) == 0);
	REQUIRE(window_records(&m, &got) == 3);
	REQUIRE(got.v[1].offset == (104 | XFSJ_RMAP_OFF_ATTR_FORK));
	/* bmbt blocks carry no offset */
	REQUIRE(got.v[2].offset == XFSJ_RMAP_OFF_BMBT_BLOCK);
	/* a second bmbt block merges, whatever its offset */
	w.fsbno += 4;
	w.len = 1;
	w.rmap.offset = 5;
	REQUIRE(xfsj_rmap_finish(m.fx.fs, &w, &m.fx.f) == 0);
	REQUIRE(window_records(&m, &got) == 3);
	REQUIRE(got.v[2].blockcount == 5);
	REQUIRE(run(&m, XFSJ_RMAP_FREE, 0, 0, 4, 100, false) == 0);
	REQUIRE(window_records(&m, &got) == 2);
	fs_fixture_free(&m.fx);
}
END_TEST

/* Owner-unknown frees (recovered EFIs) and non-inode owners. */
START_TEST(test_unknown_owner)
{
	struct rmodel m;
	struct xfsj_owner refc = { .owner = XFSJ_RMAP_OWN_REFC };
	struct xfsj_owner unknown = { .owner = XFSJ_RMAP_OWN_UNKNOWN };
	struct xfsj_owner inobt = { .owner = XFSJ_RMAP_OWN_INOBT };
	uint32_t b;

	rmodel_make(&m, false, 14);
	b = m.base;
	REQUIRE(xfsj_rmap_alloc(m.fx.fs, AGNO, b, 4, &refc, &m.fx.f) == 0);
	/* adjacent, same non-inode owner: merged whatever the offset */
	REQUIRE(xfsj_rmap_alloc(m.fx.fs, AGNO, b + 4, 2, &refc,
		&m.fx.f) == 0);
	/* wrong owner: refused */
	REQUIRE(xfsj_rmap_free(m.fx.fs, AGNO, b, 1, &inobt, &m.fx.f) ==
		-XFSJ_E_CORRUPT);
	/* unknown owner: the middle goes, the record splits */
	REQUIRE(xfsj_rmap_free(m.fx.fs, AGNO, b + 2, 2, &unknown,
		&m.fx.f) == 0);
	REQUIRE(xfsj_rmap_free(m.fx.fs, AGNO, b, 2, &refc, &m.fx.f) == 0);
	REQUIRE(xfsj_rmap_free(m.fx.fs, AGNO, b + 4, 2, &refc,
		&m.fx.f) == 0);
	check(&m);
	/* nothing mapped there any more: an unknown-owner free is a no-op */
	REQUIRE(xfsj_rmap_free(m.fx.fs, AGNO, b, 6, &unknown,
		&m.fx.f) == 0);
	/* but a named owner finds nothing: corruption */
	REQUIRE(xfsj_rmap_free(m.fx.fs, AGNO, b, 1, &refc, &m.fx.f) ==
		-XFSJ_E_CORRUPT);
	check(&m);
	fs_fixture_free(&m.fx);
}
END_TEST

START_TEST(test_no_rmapbt)
{
	struct fs_fixture fx;
	struct xfsj_owner oi = { .owner = 5000 };
	struct xfsj_work w;

	fs_fixture_make(&fx, 64ULL << 20, 4096, 4, false, false);
	REQUIRE(xfsj_rmap_alloc(fx.fs, 1, 1000, 4, &oi, &fx.f) == 0);
	REQUIRE(xfsj_rmap_free(fx.fs, 1, 2000, 4, &oi, &fx.f) == 0);
	memset(&w, 0, sizeof(w));
	w.kind = XFSJ_W_RMAP;
	w.fsbno = xfsj_agb_to_fsb(&fx.sb, 1, 1000);
	w.len = 3;
	w.rmap.op = XFSJ_RMAP_UNMAP;
	w.rmap.owner = 5000;
	REQUIRE(xfsj_rmap_finish(fx.fs, &w, &fx.f) == 0);
	fs_fixture_free(&fx);
}
END_TEST

Suite *rmap_suite(void)
{
	Suite *s = suite_create("rmap");
	TCase *tc = tcase_create("rmap");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_random_plain);
	tcase_add_test(tc, test_random_shared);
	tcase_add_test(tc, test_map_merges);
	tcase_add_test(tc, test_unknown_owner);
	tcase_add_test(tc, test_fork_flags);
	tcase_add_test(tc, test_no_rmapbt);
	suite_add_tcase(s, tc);
	return s;
}
