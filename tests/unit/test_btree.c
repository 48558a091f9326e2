/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The generic btree against a sorted-array model: random inserts,
 * deletes, updates and lookups on every per-AG tree of a fresh in-memory
 * filesystem, with blocks from a test pool, checking after each batch
 * that the tree holds what the model holds, that lookups land where the
 * kernel's would, and that the whole tree passes the checker.  Small
 * fanouts (set on the cursor) make deep trees with few records so that
 * splits, borrows, joins and root changes all happen many times.
 */
#include <stdlib.h>
#include <string.h>

#include "fs/btree_priv.h"
#include "fs_fixture.h"
#include "suites.h"
#include "fs/btree.h"

/*
 * Check's assertions report every passing check to the parent process;
 * at a few hundred thousand checks that is most of the run time, so
 * only failures go through Check here.
 */
#define T(expr)								\
	do {								\
		if (!(expr))						\
			ck_abort_msg("%s:%d: %s", __FILE__, __LINE__,	\
				     #expr);				\
	} while (0)

/* ---- a block pool ---- */

struct pool {
	uint32_t next, end;
	uint32_t freed[4096];
	unsigned int nfreed;
	uint8_t *used;		/* per block of the AG */
	int64_t outstanding;
	bool fail;
	bool lenient;		/* fuzzing: refuse bad frees, don't assert */
};

static int pool_alloc(void *arg, struct xfsj_btree_cur *cur, uint32_t near,
		      uint32_t *agbno, struct xfsj_fault *f)
{
	struct pool *p = arg;

	(void)cur;
	(void)near;
	(void)f;
	if (p->fail)
		return -XFSJ_E_NOSPC;
	if (p->nfreed)
		*agbno = p->freed[--p->nfreed];
	else if (p->next < p->end)
		*agbno = p->next++;
	else
		return -XFSJ_E_NOSPC;
	T(!p->used[*agbno]);
	p->used[*agbno] = 1;
	p->outstanding++;
	return 0;
}

static int pool_free(void *arg, struct xfsj_btree_cur *cur, uint32_t agbno,
		     struct xfsj_fault *f)
{
	struct pool *p = arg;

	(void)cur;
	(void)f;
	if (p->lenient && (agbno >= p->end || !p->used[agbno]))
		return -XFSJ_E_CORRUPT;
	T(p->used[agbno]);
	T(p->nfreed < 4096);
	p->used[agbno] = 0;
	p->freed[p->nfreed++] = agbno;
	p->outstanding--;
	return 0;
}

/* ---- the model: raw records kept sorted by the tree's key ---- */

/* Records live in a slab; the sorted order is an array of slab indexes,
 * which keeps the model's insert and delete cheap under the sanitizer. */
struct model {
	enum xfsj_btnum bt;
	uint8_t (*slab)[24];
	uint32_t *ord;
	uint32_t *spare;	/* free slab slots */
	size_t n, cap, nspare, used;
	unsigned int reclen;
};

static uint8_t *mrec(const struct model *m, size_t i)
{
	return m->slab[m->ord[i]];
}

static void model_free(struct model *m)
{
	free(m->slab);
	free(m->ord);
	free(m->spare);
}

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static uint64_t be64(const uint8_t *p)
{
	return (uint64_t)be32(p) << 32 | be32(p + 4);
}

static int ucmp(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

/* Written independently of btree_ag.c: the kernel's key orders. */
static int model_cmp(enum xfsj_btnum bt, const uint8_t *a, const uint8_t *b)
{
	int d;

	switch (bt) {
	case XFSJ_BT_CNT:
		d = ucmp(be32(a + 4), be32(b + 4));
		return d ? d : ucmp(be32(a), be32(b));
	case XFSJ_BT_RMAP:
		d = ucmp(be32(a), be32(b));
		if (!d)
			d = ucmp(be64(a + 8), be64(b + 8));
		if (!d)
			d = ucmp(be64(a + 16) & ~XFSJ_RMAP_OFF_UNWRITTEN,
				 be64(b + 16) & ~XFSJ_RMAP_OFF_UNWRITTEN);
		return d;
	default:
		return ucmp(be32(a), be32(b));
	}
}

/* Index of the first record not below @r; *eq if it has @r's key. */
static size_t model_find(const struct model *m, const uint8_t *r, bool *eq)
{
	size_t lo = 0, hi = m->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (model_cmp(m->bt, mrec(m, mid), r) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*eq = lo < m->n && model_cmp(m->bt, mrec(m, lo), r) == 0;
	return lo;
}

static void model_insert(struct model *m, size_t at, const uint8_t *r)
{
	uint32_t slot;

	if (m->n == m->cap) {
		m->cap = m->cap ? m->cap * 2 : 256;
		m->slab = realloc(m->slab, m->cap * sizeof(*m->slab));
		m->ord = realloc(m->ord, m->cap * sizeof(*m->ord));
		m->spare = realloc(m->spare, m->cap * sizeof(*m->spare));
		T(m->slab && m->ord && m->spare);
	}
	slot = m->nspare ? m->spare[--m->nspare] : (uint32_t)m->used++;
	memmove(&m->ord[at + 1], &m->ord[at], (m->n - at) * sizeof(*m->ord));
	m->ord[at] = slot;
	memset(m->slab[slot], 0, sizeof(*m->slab));
	memcpy(m->slab[slot], r, m->reclen);
	m->n++;
}

static void model_delete(struct model *m, size_t at)
{
	m->spare[m->nspare++] = m->ord[at];
	memmove(&m->ord[at], &m->ord[at + 1],
		(m->n - at - 1) * sizeof(*m->ord));
	m->n--;
}

/* ---- records ---- */

static uint32_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return (uint32_t)(*s >> 11);
}

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static void put64(uint8_t *p, uint64_t v)
{
	put32(p, (uint32_t)(v >> 32));
	put32(p + 4, (uint32_t)v);
}

/*
 * A random record whose key is on a grid wide enough that records never
 * overlap where the tree forbids it.  @agino_max bounds inode numbers.
 */
static void random_rec(enum xfsj_btnum bt, uint64_t *s, uint32_t space,
		       uint8_t *r)
{
	memset(r, 0, 24);
	switch (bt) {
	case XFSJ_BT_BNO:
	case XFSJ_BT_REFC:
		put32(r, (rnd(s) % space) * 4 + 16);
		put32(r + 4, rnd(s) % 3 + 1);
		if (bt == XFSJ_BT_REFC)
			put32(r + 8, rnd(s) % 5 + 2);
		break;
	case XFSJ_BT_CNT:
		put32(r, rnd(s) % (space * 4) + 16);
		put32(r + 4, rnd(s) % 64 + 1);
		break;
	case XFSJ_BT_INO:
	case XFSJ_BT_FINO:
		put32(r, (rnd(s) % space) * 64 + 128);
		r[4] = 0;
		r[5] = 0;
		r[6] = 64;
		r[7] = (uint8_t)(rnd(s) % 64);
		put64(r + 8, (uint64_t)rnd(s) << 32 | rnd(s));
		break;
	default: {
		uint64_t off = rnd(s) % 1000;

		put32(r, rnd(s) % (space * 4) + 16);
		put32(r + 4, rnd(s) % 8 + 1);
		put64(r + 8, 128 + rnd(s) % 16);
		if (rnd(s) % 4 == 0)
			off |= XFSJ_RMAP_OFF_UNWRITTEN;
		if (rnd(s) % 8 == 0)
			off |= XFSJ_RMAP_OFF_ATTR_FORK;
		put64(r + 16, off);
		break;
	}
	}
}

static void to_irec(const struct xfsj_btree_cur *cur, const uint8_t *r,
		    union xfsj_btree_irec *irec)
{
	cur->ops->rec_decode(cur, r, irec);
}

static void from_irec(const struct xfsj_btree_cur *cur,
		      const union xfsj_btree_irec *irec, uint8_t *r)
{
	memset(r, 0, 24);
	cur->ops->rec_encode(cur, irec, r);
}

/* ---- the harness ---- */

struct harness {
	struct fs_fixture fx;
	struct pool pool;
	struct xfsj_btree_blocks src;
	struct xfsj_btree_cur *cur;
	struct model m;
	enum xfsj_btnum bt;
	uint64_t blocks0;	/* tree blocks at the start */
	uint8_t hdr0[512];	/* AGF or AGI at the start */
};

static void do_delete(struct harness *h, size_t at);

static int collect(struct xfsj_btree_cur *cur,
		   const union xfsj_btree_irec *irec, void *arg)
{
	struct model *m = arg;
	uint8_t r[24];

	from_irec(cur, irec, r);
	model_insert(m, m->n, r);
	return 0;
}

static void harness_init(struct harness *h, enum xfsj_btnum bt,
			 uint32_t blocksize, int leaf_fan, int node_fan)
{
	uint32_t agblocks;

	memset(h, 0, sizeof(*h));
	h->bt = bt;
	fs_fixture_make(&h->fx, 64ULL << 20, blocksize, 2, true, true);
	agblocks = xfsj_fs_ag_blocks(h->fx.fs, 0);
	h->pool.used = calloc(agblocks, 1);
	T(h->pool.used != NULL);
	/* The top half of AG 0 is free space in a fresh filesystem. */
	h->pool.next = agblocks / 2;
	h->pool.end = agblocks;
	h->src.alloc = pool_alloc;
	h->src.free = pool_free;
	h->src.arg = &h->pool;
	T(xfsj_btree_cur_new(h->fx.fs, bt, 0, &h->src, &h->fx.f, &h->cur) == 0);
	h->m.bt = bt;
	h->m.reclen = h->cur->shape->reclen;
	/* What mkfs wrote reads back in order and passes the checker. */
	T(xfsj_btree_query_all(h->cur, collect, &h->m) == 0);
	if (bt == XFSJ_BT_BNO || bt == XFSJ_BT_CNT || bt == XFSJ_BT_INO ||
	    bt == XFSJ_BT_RMAP)
		T(h->m.n > 0);
	T(xfsj_btree_check_tree(h->cur, true) == 0);
	/* The tests start from an empty root leaf. */
	while (h->m.n)
		do_delete(h, h->m.n / 2);
	T(xfsj_btree_check_tree(h->cur, true) == 0);
	T(xfsj_btree_count_blocks(h->cur, &h->blocks0) == 0);
	T(h->blocks0 == 1);
	if (leaf_fan) {
		h->cur->maxrecs[0] = leaf_fan;
		h->cur->minrecs[0] = leaf_fan / 2;
		h->cur->maxrecs[1] = node_fan;
		h->cur->minrecs[1] = node_fan / 2;
	}
	memcpy(h->hdr0, h->cur->hdr->data, sizeof(h->hdr0));
}

static void harness_free(struct harness *h)
{
	xfsj_btree_cur_free(h->cur);
	model_free(&h->m);
	free(h->pool.used);
	fs_fixture_free(&h->fx);
}

struct cmp_walk {
	const struct model *m;
	size_t i;
};

static int compare_rec(struct xfsj_btree_cur *cur,
		       const union xfsj_btree_irec *irec, void *arg)
{
	struct cmp_walk *w = arg;
	uint8_t r[24];

	from_irec(cur, irec, r);
	T(w->i < w->m->n);
	T(memcmp(r, mrec(w->m, w->i), w->m->reclen) == 0);
	w->i++;
	return 0;
}

/* How far a header counter moved since the start. */
static int64_t hdr_delta(const struct harness *h, unsigned int off)
{
	return (int64_t)be32(h->cur->hdr->data + off) -
	       (int64_t)be32(h->hdr0 + off);
}

/* The AGF/AGI block counters follow the tree's blocks. */
static void check_counters(const struct harness *h)
{
	int64_t n = h->pool.outstanding;

	switch (h->bt) {
	case XFSJ_BT_BNO:
	case XFSJ_BT_CNT:
		T(hdr_delta(h, 60) == n);		/* btreeblks */
		break;
	case XFSJ_BT_RMAP:
		T(hdr_delta(h, 60) == n);
		T(hdr_delta(h, 80) == n);		/* rmap_blocks */
		break;
	case XFSJ_BT_REFC:
		T(hdr_delta(h, 84) == n);
		break;
	case XFSJ_BT_INO:
		T(hdr_delta(h, 336) == n);	/* iblocks */
		break;
	default:
		T(hdr_delta(h, 340) == n);	/* fblocks */
		break;
	}
}

/* Tree contents, checker, block count and the header counters. */
static void verify_all(struct harness *h)
{
	struct cmp_walk w = { &h->m, 0 };
	uint64_t blocks;
	int err;

	err = xfsj_btree_check_tree(h->cur, true);
	if (err)
		ck_abort_msg("check: %s %s at %llu (%llu)",
		      h->fx.f.structure, h->fx.f.field,
		      (unsigned long long)h->fx.f.offset,
		      (unsigned long long)h->fx.f.value);
	T(xfsj_btree_query_all(h->cur, compare_rec, &w) == 0);
	T(w.i == h->m.n);
	T(xfsj_btree_count_blocks(h->cur, &blocks) == 0);
	T((int64_t)blocks == (int64_t)h->blocks0 + h->pool.outstanding);
	check_counters(h);
}

/* Lookups of @r in each direction land where the model says they do. */
static void check_lookups(struct harness *h, const uint8_t *r)
{
	union xfsj_btree_irec irec, got;
	uint8_t g[24];
	bool eq;
	size_t at = model_find(&h->m, r, &eq);
	int stat;

	to_irec(h->cur, r, &irec);
	T(xfsj_btree_lookup(h->cur, XFSJ_LOOKUP_EQ, &irec, &stat) == 0);
	T(stat == eq);
	T(xfsj_btree_lookup(h->cur, XFSJ_LOOKUP_GE, &irec, &stat) == 0);
	T(stat == (at < h->m.n));
	if (stat) {
		T(xfsj_btree_get_rec(h->cur, &got, &stat) == 0);
		T(stat == 1);
		from_irec(h->cur, &got, g);
		T(memcmp(g, mrec(&h->m, at), h->m.reclen) == 0);
	}
	T(xfsj_btree_lookup(h->cur, XFSJ_LOOKUP_LE, &irec, &stat) == 0);
	{
		size_t le = eq ? at + 1 : at;	/* records at or below */

		T(stat == (le > 0));
		if (!stat)
			return;
		T(xfsj_btree_get_rec(h->cur, &got, &stat) == 0);
		T(stat == 1);
		from_irec(h->cur, &got, g);
		T(memcmp(g, mrec(&h->m, le - 1), h->m.reclen) == 0);
		/* One step back and forth walks the model too. */
		T(xfsj_btree_decrement(h->cur, 0, &stat) == 0);
		T(stat == (le > 1));
		if (stat) {
			T(xfsj_btree_get_rec(h->cur, &got, &stat) == 0);
			from_irec(h->cur, &got, g);
			T(memcmp(g, mrec(&h->m, le - 2), h->m.reclen) == 0);
		} else {
			/* Off the left edge: no record under the cursor. */
			T(xfsj_btree_get_rec(h->cur, &got, &stat) == 0);
			T(stat == 0);
		}
		/* Back onto the LE record from either place. */
		T(xfsj_btree_increment(h->cur, 0, &stat) == 0);
		T(stat == 1);
		T(xfsj_btree_get_rec(h->cur, &got, &stat) == 0);
		from_irec(h->cur, &got, g);
		T(memcmp(g, mrec(&h->m, le - 1), h->m.reclen) == 0);
		T(xfsj_btree_increment(h->cur, 0, &stat) == 0);
		T(stat == (le < h->m.n));
		if (stat) {
			T(xfsj_btree_get_rec(h->cur, &got, &stat) == 0);
			from_irec(h->cur, &got, g);
			T(memcmp(g, mrec(&h->m, le), h->m.reclen) == 0);
		}
	}
}

static void do_insert(struct harness *h, const uint8_t *r)
{
	union xfsj_btree_irec irec, got;
	uint8_t g[24];
	bool eq;
	size_t at = model_find(&h->m, r, &eq);
	int stat, err;

	if (eq)
		return;
	to_irec(h->cur, r, &irec);
	T(xfsj_btree_lookup(h->cur, XFSJ_LOOKUP_EQ, &irec, &stat) == 0);
	T(stat == 0);
	err = xfsj_btree_insert(h->cur, &irec, &stat);
	if (err)
		ck_abort_msg("insert: %d %s %s", err, h->fx.f.structure,
			     h->fx.f.field);
	T(stat == 1);
	/* The cursor is left at the new record. */
	T(xfsj_btree_get_rec(h->cur, &got, &stat) == 0);
	T(stat == 1);
	from_irec(h->cur, &got, g);
	T(memcmp(g, r, h->m.reclen) == 0);
	model_insert(&h->m, at, r);
}

static void do_delete(struct harness *h, size_t at)
{
	union xfsj_btree_irec irec;
	int stat, err;

	to_irec(h->cur, mrec(&h->m, at), &irec);
	T(xfsj_btree_lookup(h->cur, XFSJ_LOOKUP_EQ, &irec, &stat) == 0);
	T(stat == 1);
	err = xfsj_btree_delete(h->cur, &stat);
	if (err)
		ck_abort_msg("delete: %d %s %s", err, h->fx.f.structure,
			     h->fx.f.field);
	T(stat == 1);
	model_delete(&h->m, at);
}

/*
 * The highest key a record covers, in record layout so model_cmp orders
 * it: the kernel's init_high_key_from_rec of each tree.
 */
static void model_high_key(enum xfsj_btnum bt, const uint8_t *r, uint8_t *k)
{
	uint32_t adj = be32(r + 4) - 1;

	memcpy(k, r, 24);
	switch (bt) {
	case XFSJ_BT_BNO:
	case XFSJ_BT_REFC:
		put32(k, be32(r) + adj);
		put32(k + 4, 0);
		break;
	case XFSJ_BT_CNT:
		put32(k, 0);
		break;
	case XFSJ_BT_INO:
	case XFSJ_BT_FINO:
		put32(k, be32(r) + 63);
		break;
	default: {
		uint64_t off = be64(r + 16) & ~XFSJ_RMAP_OFF_UNWRITTEN;
		uint64_t mask = (1ULL << 54) - 1;

		put32(k, be32(r) + adj);
		if (!(be64(r + 8) >> 63) && !(off & XFSJ_RMAP_OFF_BMBT_BLOCK))
			off = ((off & mask) + adj) | (off & ~mask);
		put64(k + 16, off);
		break;
	}
	}
}

struct qlist {
	uint8_t (*r)[24];
	size_t n, cap;
};

static int qcollect(struct xfsj_btree_cur *cur,
		    const union xfsj_btree_irec *irec, void *arg)
{
	struct qlist *q = arg;

	if (q->n == q->cap) {
		q->cap = q->cap ? q->cap * 2 : 64;
		q->r = realloc(q->r, q->cap * sizeof(*q->r));
		T(q->r != NULL);
	}
	from_irec(cur, irec, q->r[q->n++]);
	return 0;
}

/*
 * query_range against a brute force over the model.  Overlapping trees:
 * every record whose [key, high key] meets [low, high].  The others, as
 * the kernel walks them: from the last record at or before @low (skipped
 * if it ends before @low) while keys stay at or below @high.
 */
static void check_range(struct harness *h, const uint8_t *lo,
			const uint8_t *hi)
{
	struct qlist q = { 0 };
	union xfsj_btree_irec l, u;
	uint8_t hk[24];
	size_t k = 0, i;
	bool eq;

	to_irec(h->cur, lo, &l);
	to_irec(h->cur, hi, &u);
	T(xfsj_btree_query_range(h->cur, &l, &u, qcollect, &q) == 0);
	if (h->bt == XFSJ_BT_RMAP) {
		for (i = 0; i < h->m.n; i++) {
			model_high_key(h->bt, mrec(&h->m, i), hk);
			if (model_cmp(h->bt, hk, lo) < 0 ||
			    model_cmp(h->bt, mrec(&h->m, i), hi) > 0)
				continue;
			T(k < q.n);
			T(memcmp(q.r[k], mrec(&h->m, i), h->m.reclen) == 0);
			k++;
		}
	} else {
		i = model_find(&h->m, lo, &eq);
		if (!eq && i > 0)
			i--;
		if (i < h->m.n) {
			model_high_key(h->bt, mrec(&h->m, i), hk);
			if (model_cmp(h->bt, lo, hk) > 0)
				i++;
		}
		for (; i < h->m.n; i++) {
			if (model_cmp(h->bt, mrec(&h->m, i), hi) > 0)
				break;
			T(k < q.n);
			T(memcmp(q.r[k], mrec(&h->m, i), h->m.reclen) == 0);
			k++;
		}
	}
	T(k == q.n);
	free(q.r);
}

static void check_ranges(struct harness *h, uint64_t *s, uint32_t space)
{
	for (int i = 0; i < 4; i++) {
		uint8_t a[24], b[24];

		random_rec(h->bt, s, space, a);
		random_rec(h->bt, s, space, b);
		if (model_cmp(h->bt, a, b) > 0) {
			uint8_t t[24];

			memcpy(t, a, 24);
			memcpy(a, b, 24);
			memcpy(b, t, 24);
		}
		if (h->bt == XFSJ_BT_RMAP && i & 1) {
			/* Any owner, any offset: a physical range. */
			put64(a + 8, 0);
			put64(a + 16, 0);
			put64(b + 8, ~0ULL);
			put64(b + 16, ~0ULL);
		}
		check_range(h, a, b);
	}
}

/* Change a record's non-key fields in place. */
static void do_update(struct harness *h, size_t at, uint64_t *s)
{
	union xfsj_btree_irec irec;
	uint8_t *r = mrec(&h->m, at);
	int stat;

	switch (h->bt) {
	case XFSJ_BT_BNO:
	case XFSJ_BT_REFC:
		/* Shorter keeps the records apart. */
		if (be32(r + 4) > 1)
			put32(r + 4, be32(r + 4) - 1);
		if (h->bt == XFSJ_BT_REFC)
			put32(r + 8, rnd(s) % 7 + 2);
		break;
	case XFSJ_BT_INO:
	case XFSJ_BT_FINO:
		r[7] = (uint8_t)(rnd(s) % 64);
		put64(r + 8, rnd(s));
		break;
	case XFSJ_BT_RMAP:
		/* Length and the unwritten flag are not part of the key. */
		put32(r + 4, rnd(s) % 40 + 1);
		put64(r + 16, be64(r + 16) ^ XFSJ_RMAP_OFF_UNWRITTEN);
		break;
	default:
		return;		/* cntbt: the length is the key */
	}
	to_irec(h->cur, r, &irec);
	T(xfsj_btree_lookup(h->cur, XFSJ_LOOKUP_EQ, &irec, &stat) == 0);
	T(stat == 1);
	T(xfsj_btree_update(h->cur, &irec) == 0);
}

/*
 * Flush everything into the overlay and read it back through a new
 * handle: every block must now pass the full verifier (CRC, uuid, blkno,
 * owner) and the tree must still be what the model holds.
 */
static void reopen(struct harness *h)
{
	xfsj_btree_cur_free(h->cur);
	fs_fixture_reopen(&h->fx);
	T(xfsj_btree_cur_new(h->fx.fs, h->bt, 0, &h->src, &h->fx.f,
			     &h->cur) == 0);
	verify_all(h);
}

/*
 * Grow the tree to @n records, churn, shrink it back to a handful, and
 * check along the way.
 */
static void run_model(enum xfsj_btnum bt, uint32_t blocksize, int leaf_fan,
		      int node_fan, unsigned int n, unsigned int every,
		      unsigned int min_height, uint64_t seed)
{
	struct harness h;
	uint64_t s = seed;
	uint32_t space = n * 4;
	unsigned int steps = 0, max_height = 0;
	uint8_t r[24];

	harness_init(&h, bt, blocksize, leaf_fan, node_fan);
	while (h.m.n < n) {
		random_rec(bt, &s, space, r);
		do_insert(&h, r);
		if (xfsj_btree_height(h.cur) > max_height)
			max_height = xfsj_btree_height(h.cur);
		if (++steps % every == 0) {
			verify_all(&h);
			check_lookups(&h, r);
			check_ranges(&h, &s, space);
		}
	}
	verify_all(&h);
	T(max_height >= min_height);
	if (!leaf_fan)
		reopen(&h);
	for (unsigned int i = 0; i < n; i++) {
		unsigned int op = rnd(&s) % 8;

		if (op < 3) {
			random_rec(bt, &s, space, r);
			do_insert(&h, r);
		} else if (op < 6 && h.m.n) {
			do_delete(&h, rnd(&s) % h.m.n);
		} else if (op == 6 && h.m.n) {
			do_update(&h, rnd(&s) % h.m.n, &s);
		} else {
			random_rec(bt, &s, space, r);
			check_lookups(&h, r);
		}
		if (++steps % every == 0) {
			verify_all(&h);
			check_ranges(&h, &s, space);
		}
	}
	verify_all(&h);
	while (h.m.n > 3) {
		/* Deleting from the ends and the middle hits all joins. */
		unsigned int k = rnd(&s) % 3;
		size_t at = k == 0 ? 0 : k == 1 ? h.m.n - 1 :
			    rnd(&s) % h.m.n;

		do_delete(&h, at);
		if (++steps % every == 0) {
			verify_all(&h);
			random_rec(bt, &s, space, r);
			check_lookups(&h, r);
		}
	}
	verify_all(&h);
	T(xfsj_btree_height(h.cur) <= 2);
	harness_free(&h);
}

static const enum xfsj_btnum all_trees_fuzz[] = {
	XFSJ_BT_BNO, XFSJ_BT_CNT, XFSJ_BT_INO, XFSJ_BT_FINO, XFSJ_BT_RMAP,
	XFSJ_BT_REFC,
};

/* ---- shapes the kernel's rules give ---- */

/* Record counts of the leaves, left to right. */
static int leaf_counts(struct harness *h, int *counts, int max)
{
	union xfsj_btree_irec irec;
	int n = 0, stat;

	memset(&irec, 0, sizeof(irec));
	T(xfsj_btree_lookup(h->cur, XFSJ_LOOKUP_GE, &irec, &stat) == 0);
	while (stat && n < max) {
		struct xfsj_buf *bp = h->cur->lev[0].bp;

		counts[n++] = xfsj_get_be16(bp->data + 6);
		h->cur->lev[0].ptr = counts[n - 1];
		T(xfsj_btree_increment(h->cur, 0, &stat) == 0);
	}
	return n;
}

static void bno_rec(uint32_t start, uint32_t len, uint8_t *r)
{
	memset(r, 0, 24);
	put32(r, start);
	put32(r + 4, len);
}

/*
 * bnobt with 1 KiB blocks: 121 records a leaf, at least 60.  Records
 * start every 8 blocks so that others fit between them.
 */
START_TEST(test_shapes)
{
	struct harness h;
	int c[8];
	uint8_t r[24];
	size_t at;
	bool eq;

	harness_init(&h, XFSJ_BT_BNO, 1024, 0, 0);
	T(h.cur->maxrecs[0] == 121);
	for (int i = 0; i < 121; i++) {
		bno_rec(16 + 8 * (uint32_t)i, 1, r);
		do_insert(&h, r);
	}
	T(xfsj_btree_height(h.cur) == 1);
	/* A full root leaf splits in half and gets a new root above. */
	bno_rec(16 + 8 * 121, 1, r);
	do_insert(&h, r);
	T(xfsj_btree_height(h.cur) == 2);
	T(leaf_counts(&h, c, 8) == 2 && c[0] == 61 && c[1] == 61);
	T(h.pool.outstanding == 2);
	verify_all(&h);

	/* Fill the right leaf: inserting into it then shifts left. */
	for (int i = 61; i < 121; i++) {
		bno_rec(16 + 8 * (uint32_t)i + 4, 1, r);
		do_insert(&h, r);
	}
	T(leaf_counts(&h, c, 8) == 2 && c[0] == 61 && c[1] == 121);
	bno_rec(16 + 8 * 100 + 2, 1, r);
	do_insert(&h, r);
	T(leaf_counts(&h, c, 8) == 2 && c[0] == 62 && c[1] == 121);
	verify_all(&h);

	/* Fill the left leaf: inserting into it now shifts right first. */
	for (int i = 0; i < 59; i++) {
		bno_rec(16 + 8 * (uint32_t)i + 4, 1, r);
		do_insert(&h, r);
	}
	T(leaf_counts(&h, c, 8) == 2 && c[0] == 121 && c[1] == 121);
	/* Both full: the left one splits (the new record stays left). */
	bno_rec(16 + 8 * 10 + 2, 1, r);
	do_insert(&h, r);
	T(leaf_counts(&h, c, 8) == 3);
	T(c[0] == 61 && c[1] == 61 && c[2] == 121);
	T(h.pool.outstanding == 3);
	verify_all(&h);

	/* Emptying the first leaf: borrow from the right, then join. */
	while (1) {
		int n = leaf_counts(&h, c, 8);

		if (n == 2)
			break;
		T(c[0] >= 60 || c[0] == 59);
		bno_rec(0, 0, r);
		at = model_find(&h.m, r, &eq);
		do_delete(&h, at);
		verify_all(&h);
	}
	/*
	 * 59 borrowed one from its right neighbour (61 -> 60); the next
	 * time neither could spare one and 59 + 60 were joined.
	 */
	if (!(c[0] == 119 && c[1] == 121))
		ck_abort_msg("leaves %d %d", c[0], c[1]);
	T(h.pool.outstanding == 2);
	/*
	 * Deleting from the right leaf borrows from the left until both
	 * are at the minimum; then they join, and the root left with one
	 * child goes away.
	 */
	while (xfsj_btree_height(h.cur) > 1)
		do_delete(&h, h.m.n - 1);
	T(h.m.n == 119);
	T(h.pool.outstanding == 0);
	verify_all(&h);
	harness_free(&h);
}
END_TEST

/* cntbt keeps agf_longest equal to its last record's length. */
START_TEST(test_cnt_longest)
{
	static const uint32_t lens[] = { 5, 3, 9, 9, 1, 64, 2 };
	struct harness h;
	uint8_t r[24];

	harness_init(&h, XFSJ_BT_CNT, 4096, 0, 0);
	T(be32(h.cur->hdr->data + 56) == 0);
	for (unsigned int i = 0; i < 7; i++) {
		bno_rec(100 + 200 * i, lens[i], r);
		do_insert(&h, r);
	}
	T(be32(h.cur->hdr->data + 56) == 64);
	do_delete(&h, h.m.n - 1);
	T(be32(h.cur->hdr->data + 56) == 9);
	do_delete(&h, 0);
	T(be32(h.cur->hdr->data + 56) == 9);
	while (h.m.n)
		do_delete(&h, h.m.n - 1);
	T(be32(h.cur->hdr->data + 56) == 0);
	harness_free(&h);
}
END_TEST

/* Lookups in an empty tree, and inserts at a cursor left elsewhere. */
START_TEST(test_empty_and_misplaced)
{
	struct harness h;
	union xfsj_btree_irec irec;
	uint8_t r[24];
	int stat;

	harness_init(&h, XFSJ_BT_BNO, 4096, 0, 0);
	memset(&irec, 0, sizeof(irec));
	irec.a.startblock = 50;
	for (int d = 0; d < 3; d++) {
		T(xfsj_btree_lookup(h.cur, (enum xfsj_lookup)d, &irec,
				    &stat) == 0);
		T(stat == 0);
		T(xfsj_btree_get_rec(h.cur, &irec, &stat) == 0 && stat == 0);
	}
	/* LE found nothing: the cursor is before the first record. */
	T(xfsj_btree_lookup(h.cur, XFSJ_LOOKUP_LE, &irec, &stat) == 0);
	T(stat == 0 && h.cur->lev[0].ptr == 0);
	for (uint32_t i = 0; i < 10; i++) {
		bno_rec(1000 - 10 * i, 2, r);
		to_irec(h.cur, r, &irec);
		T(xfsj_btree_insert(h.cur, &irec, &stat) == 0 && stat == 1);
		model_insert(&h.m, 0, r);
	}
	verify_all(&h);
	/* The same key again is refused. */
	T(xfsj_btree_insert(h.cur, &irec, &stat) == -XFSJ_E_INVAL);
	harness_free(&h);
}
END_TEST

static int stop_after_three(struct xfsj_btree_cur *cur,
			    const union xfsj_btree_irec *irec, void *arg)
{
	int *n = arg;

	(void)cur;
	(void)irec;
	return ++*n == 3 ? 7 : 0;
}

/* A walk stops at the callback's first non-zero return, and passes it on;
 * a range whose low end is above its high end is refused. */
START_TEST(test_query_stop)
{
	struct harness h;
	union xfsj_btree_irec lo, hi;
	uint8_t r[24];
	int n = 0;

	harness_init(&h, XFSJ_BT_RMAP, 4096, 0, 0);
	for (uint32_t i = 0; i < 400; i++) {
		memset(r, 0, 24);
		put32(r, 16 + 2 * i);
		put32(r + 4, 4);
		put64(r + 8, 200 + i % 3);
		put64(r + 16, i);
		do_insert(&h, r);
	}
	T(xfsj_btree_height(h.cur) == 2);
	T(xfsj_btree_query_all(h.cur, stop_after_three, &n) == 7 && n == 3);
	memset(&lo, 0, sizeof(lo));
	memset(&hi, 0, sizeof(hi));
	lo.r.startblock = 300;
	hi.r.startblock = 400;
	hi.r.owner = ~0ULL;
	n = 0;
	T(xfsj_btree_query_range(h.cur, &lo, &hi, stop_after_three, &n) == 7);
	T(n == 3);
	T(xfsj_btree_query_range(h.cur, &hi, &lo, stop_after_three,
				 &n) == -XFSJ_E_INVAL);
	check_range(&h, (const uint8_t[24]){ 0, 0, 1, 44 },
		    (const uint8_t[24]){ 0, 0, 1, 60, 0, 0, 0, 0,
					 0xff, 0xff, 0xff, 0xff,
					 0xff, 0xff, 0xff, 0xff });
	harness_free(&h);
}
END_TEST

/*
 * Hostile data in blocks the engine already trusts: flip bytes of cached
 * tree blocks between operations.  Every operation may fail, but none
 * may crash, hang or touch memory outside its buffers (the sanitizer
 * build checks the last).
 */
static void fuzz_tree(enum xfsj_btnum bt, uint64_t seed)
{
	struct harness h;
	uint64_t s = seed;
	uint8_t r[24];
	int stat;

	harness_init(&h, bt, 1024, 0, 0);
	for (int i = 0; i < 1500; i++) {
		random_rec(bt, &s, 6000, r);
		do_insert(&h, r);
	}
	T(xfsj_btree_height(h.cur) >= 2);
	h.pool.lenient = true;
	for (int i = 0; i < 3000; i++) {
		union xfsj_btree_irec irec;
		unsigned int op = rnd(&s) % 6;

		if (i % 25 == 0) {
			uint32_t agbno = h.pool.next - 1 - rnd(&s) % 64;
			uint64_t daddr = xfsj_agb_to_daddr(&h.fx.sb, 0, agbno);
			struct xfsj_buf *bp;

			if (h.pool.used[agbno] &&
			    !xfsj_buf_read(h.fx.fs, daddr, 1024, &bp)) {
				for (int k = 0; k < 3; k++)
					bp->data[rnd(&s) % 1024] ^=
						(uint8_t)(1 + rnd(&s) % 255);
			}
		}
		random_rec(bt, &s, 6000, r);
		to_irec(h.cur, r, &irec);
		switch (op) {
		case 0:
			(void)xfsj_btree_insert(h.cur, &irec, &stat);
			break;
		case 1:
			if (!xfsj_btree_lookup(h.cur, XFSJ_LOOKUP_LE, &irec,
					       &stat) && stat)
				(void)xfsj_btree_delete(h.cur, &stat);
			break;
		case 2:
			if (!xfsj_btree_lookup(h.cur, XFSJ_LOOKUP_GE, &irec,
					       &stat) && stat) {
				(void)xfsj_btree_increment(h.cur, 0, &stat);
				(void)xfsj_btree_decrement(h.cur, 0, &stat);
				if (!xfsj_btree_get_rec(h.cur, &irec, &stat) &&
				    stat)
					(void)xfsj_btree_update(h.cur, &irec);
			}
			break;
		case 3: {
			union xfsj_btree_irec hi = irec;
			struct qlist q = { 0 };

			/* Same place in every record type: startblock. */
			hi.a.startblock += 50;
			hi.r.startblock = irec.r.startblock + 50;
			hi.i.startino = irec.i.startino + 3200;
			if (bt == XFSJ_BT_CNT)
				hi.a.blockcount += 10;
			(void)xfsj_btree_query_range(h.cur, &irec, &hi,
						     qcollect, &q);
			free(q.r);
			break;
		}
		case 4: {
			uint64_t n;

			(void)xfsj_btree_count_blocks(h.cur, &n);
			break;
		}
		default:
			(void)xfsj_btree_check(h.cur);
			break;
		}
	}
	harness_free(&h);
}

START_TEST(test_fuzz)
{
	fuzz_tree(all_trees_fuzz[_i], 0x5eed0000ULL + (uint64_t)_i);
}
END_TEST

/* No block to split into, or no block source at all. */
START_TEST(test_nospc)
{
	struct harness h;
	struct xfsj_btree_cur *ro;
	union xfsj_btree_irec irec;
	uint8_t r[24];
	int stat;

	harness_init(&h, XFSJ_BT_REFC, 1024, 0, 0);
	for (int i = 0; i < h.cur->maxrecs[0]; i++) {
		bno_rec(16 + 8 * (uint32_t)i, 1, r);
		put32(r + 8, 2);
		do_insert(&h, r);
	}
	bno_rec(4000, 1, r);
	put32(r + 8, 2);
	to_irec(h.cur, r, &irec);
	T(xfsj_btree_cur_new(h.fx.fs, XFSJ_BT_REFC, 0, NULL, &h.fx.f,
			     &ro) == 0);
	T(xfsj_btree_lookup(ro, XFSJ_LOOKUP_EQ, &irec, &stat) == 0);
	T(xfsj_btree_insert(ro, &irec, &stat) == -XFSJ_E_INVAL);
	xfsj_btree_cur_free(ro);
	h.pool.fail = true;
	T(xfsj_btree_lookup(h.cur, XFSJ_LOOKUP_EQ, &irec, &stat) == 0);
	T(xfsj_btree_insert(h.cur, &irec, &stat) == -XFSJ_E_NOSPC);
	verify_all(&h);
	harness_free(&h);
}
END_TEST

/* Hostile blocks give faults that name the field, never a crash. */
START_TEST(test_hostile)
{
	struct harness h;
	union xfsj_btree_irec irec;
	struct xfsj_buf *root, *leaf;
	uint8_t r[24], save[4];
	uint32_t root_bno;
	int stat;

	harness_init(&h, XFSJ_BT_BNO, 1024, 0, 0);
	for (int i = 0; i < 300; i++) {
		bno_rec(16 + 8 * (uint32_t)i, 1, r);
		do_insert(&h, r);
	}
	T(xfsj_btree_height(h.cur) == 2);
	root = h.cur->lev[1].bp;
	leaf = h.cur->lev[0].bp;
	root_bno = h.cur->lev[1].agbno;
	memset(&irec, 0, sizeof(irec));

	/* A pointer outside the AG. */
	memcpy(save, root->data + 56 + h.cur->maxrecs[1] * 8, 4);
	put32(root->data + 56 + h.cur->maxrecs[1] * 8, 0xfffffff0U);
	T(xfsj_btree_lookup(h.cur, XFSJ_LOOKUP_GE, &irec,
			    &stat) == -XFSJ_E_CORRUPT);
	T(!strcmp(h.fx.f.field, "ptr") && !strcmp(h.fx.f.structure, "bnobt"));
	/* The fault points at the pointer itself. */
	T(h.fx.f.offset == (root->daddr << 9) + 56 + h.cur->maxrecs[1] * 8);
	T(h.fx.f.value == 0xfffffff0U);
	/* A pointer back at the root: wrong level. */
	put32(root->data + 56 + h.cur->maxrecs[1] * 8, root_bno);
	T(xfsj_btree_lookup(h.cur, XFSJ_LOOKUP_GE, &irec,
			    &stat) == -XFSJ_E_CORRUPT);
	T(!strcmp(h.fx.f.field, "level"));
	memcpy(root->data + 56 + h.cur->maxrecs[1] * 8, save, 4);

	/* A leaf with a bad magic or too many records. */
	irec.a.startblock = 16 + 8 * 299;
	leaf->data[0] ^= 1;
	T(xfsj_btree_lookup(h.cur, XFSJ_LOOKUP_EQ, &irec,
			    &stat) == -XFSJ_E_BADMAGIC);
	leaf->data[0] ^= 1;
	put32(save, xfsj_get_be16(leaf->data + 6));
	xfsj_put_be16(leaf->data + 6, 500);
	T(xfsj_btree_lookup(h.cur, XFSJ_LOOKUP_EQ, &irec,
			    &stat) == -XFSJ_E_CORRUPT);
	T(!strcmp(h.fx.f.field, "numrecs"));
	xfsj_put_be16(leaf->data + 6, (uint16_t)be32(save));
	T(xfsj_btree_lookup(h.cur, XFSJ_LOOKUP_EQ, &irec, &stat) == 0);
	T(stat == 1);
	verify_all(&h);

	/* Out of order keys and broken sibling links fail the check. */
	memcpy(save, leaf->data + 56, 4);
	put32(leaf->data + 56, 0xfffff);
	T(xfsj_btree_check(h.cur) == -XFSJ_E_CORRUPT);
	memcpy(leaf->data + 56, save, 4);
	memcpy(save, leaf->data + 8, 4);
	put32(leaf->data + 8, 77);
	T(xfsj_btree_check(h.cur) == -XFSJ_E_CORRUPT);
	T(!strcmp(h.fx.f.field, "leftsib"));
	memcpy(leaf->data + 8, save, 4);
	T(xfsj_btree_check(h.cur) == 0);

	/* On disk: a block whose CRC no longer matches. */
	reopen(&h);
	{
		uint64_t daddr = xfsj_agb_to_daddr(&h.fx.sb, 0, root_bno);
		uint8_t blk[1024];

		T(xfsj_overlay_read(h.fx.ov, blk, 1024, daddr << 9) == 0);
		blk[100] ^= 0x40;
		T(xfsj_overlay_write(h.fx.ov, blk, 1024, daddr << 9) == 0);
		xfsj_btree_cur_free(h.cur);
		fs_fixture_reopen(&h.fx);
		T(xfsj_btree_cur_new(h.fx.fs, XFSJ_BT_BNO, 0, &h.src, &h.fx.f,
				     &h.cur) == 0);
		T(xfsj_btree_lookup(h.cur, XFSJ_LOOKUP_EQ, &irec,
				    &stat) == -XFSJ_E_BADCRC);
	}
	harness_free(&h);
}
END_TEST

static const enum xfsj_btnum all_trees[] = {
	XFSJ_BT_BNO, XFSJ_BT_CNT, XFSJ_BT_INO, XFSJ_BT_FINO, XFSJ_BT_RMAP,
	XFSJ_BT_REFC,
};

/* Deep trees from small fanouts: even and odd block capacities. */
START_TEST(test_model_small_fanout)
{
	enum xfsj_btnum bt = all_trees[_i % 6];
	bool odd = _i >= 6;

	run_model(bt, 1024, odd ? 7 : 6, odd ? 5 : 4, 1000, 97, 4,
		  0x9e3779b97f4a7c15ULL + (uint64_t)_i);
}
END_TEST

/* Real fanouts of 1 KiB blocks: three levels. */
START_TEST(test_model_1k)
{
	enum xfsj_btnum bt = all_trees[_i];
	unsigned int n = bt == XFSJ_BT_RMAP ? 3000 : 12000;

	run_model(bt, 1024, 0, 0, n, 1000, 3,
		  0x1234567ULL + (uint64_t)_i);
}
END_TEST

/* 4 KiB blocks: two levels, three for the rmapbt. */
START_TEST(test_model_4k)
{
	enum xfsj_btnum bt = all_trees[_i];
	unsigned int n = bt == XFSJ_BT_RMAP ? 14000 : 2500;

	run_model(bt, 4096, 0, 0, n, 1500, bt == XFSJ_BT_RMAP ? 3 : 2,
		  0xabcdefULL + (uint64_t)_i);
}
END_TEST

Suite *btree_suite(void)
{
	Suite *s = suite_create("btree");
	TCase *tc = tcase_create("rules");

	tcase_add_test(tc, test_shapes);
	tcase_add_test(tc, test_cnt_longest);
	tcase_add_test(tc, test_empty_and_misplaced);
	tcase_add_test(tc, test_query_stop);
	tcase_add_test(tc, test_nospc);
	tcase_add_loop_test(tc, test_fuzz, 0, 6);
	tcase_add_test(tc, test_hostile);
	suite_add_tcase(s, tc);
	tc = tcase_create("small");

	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_model_small_fanout, 0, 12);
	suite_add_tcase(s, tc);
	tc = tcase_create("1k");
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_model_1k, 0, 6);
	suite_add_tcase(s, tc);
	tc = tcase_create("4k");
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_model_4k, 0, 6);
	suite_add_tcase(s, tc);
	return s;
}
