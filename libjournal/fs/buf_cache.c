/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The buffer cache (see buf_cache.h): a chained hash on the disk address,
 * a list of every buffer in the order it entered the cache (a flush writes
 * the oldest first, so that when two cached buffers overlap, which a
 * hostile filesystem can make happen, the later one wins every time) and
 * an LRU list of the idle buffers, least recently released first.
 *
 * A lookup, a release and an eviction are O(1) besides the walk of a hash
 * chain, which the table's growth keeps short.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fs/buf_cache.h"

/* The longest buffer a lookup accepts. */
#define BUF_LEN_MAX	(64U << 20)
/* Readahead reads adjacent buffers with one read of at most this. */
#define RA_RUN_MAX	(1U << 20)
/* A hole up to this many bytes between two hinted runs is read too. */
#define RA_GAP_MAX	(16U << 10)

/* A doubly linked list through a sentinel; an unlisted link points home. */
struct dlink {
	struct dlink *prev, *next;
};

static void dl_init(struct dlink *l)
{
	l->prev = l->next = l;
}

static bool dl_listed(const struct dlink *l)
{
	return l->next != l;
}

static void dl_add_tail(struct dlink *head, struct dlink *l)
{
	l->prev = head->prev;
	l->next = head;
	head->prev->next = l;
	head->prev = l;
}

static void dl_del(struct dlink *l)
{
	l->prev->next = l->next;
	l->next->prev = l->prev;
	dl_init(l);
}

struct bufent {
	struct xfsj_buf b;	/* first: a struct xfsj_buf * is a bufent */
	struct bufent *hnext;	/* hash chain */
	struct bufent **hpprev;	/* what points at it: removed in place */
	struct dlink age;	/* every buffer, oldest first */
	struct dlink lru;	/* listed only while idle */
	uint32_t refs;
	bool kept;
	bool forgotten;		/* out of the hash, freed once unused */
};

#define ENT_OF(link, member) \
	((struct bufent *)((char *)(link) - offsetof(struct bufent, member)))

static struct bufent *ent(struct xfsj_buf *bp)
{
	return (struct bufent *)bp;
}

struct xfsj_bcache {
	struct xfsj_overlay *ov;
	struct bufent **hash;
	size_t nhash, nhashed;
	struct dlink age, lru;
	uint64_t bound, lru_bytes;
	uint64_t pending;	/* made for a run read, not yet in the cache */
	struct xfsj_cache_stats st;
};

int xfsj_bcache_create(struct xfsj_overlay *ov, uint64_t bound,
		       struct xfsj_bcache **out)
{
	struct xfsj_bcache *c = calloc(1, sizeof(*c));

	if (!c)
		return -XFSJ_E_NOMEM;
	c->nhash = 4096;
	c->hash = calloc(c->nhash, sizeof(*c->hash));
	if (!c->hash) {
		free(c);
		return -XFSJ_E_NOMEM;
	}
	c->ov = ov;
	c->bound = bound;
	dl_init(&c->age);
	dl_init(&c->lru);
	*out = c;
	return 0;
}

/* ---- the hash ---- */

static size_t slot(const struct xfsj_bcache *c, uint64_t daddr)
{
	return (size_t)((daddr * 0x9e3779b97f4a7c15ULL) >> 20) % c->nhash;
}

static struct bufent *lookup(const struct xfsj_bcache *c, uint64_t daddr)
{
	for (struct bufent *e = c->hash[slot(c, daddr)]; e; e = e->hnext)
		if (e->b.daddr == daddr)
			return e;
	return NULL;
}

static void hash_add(struct xfsj_bcache *c, struct bufent *e)
{
	size_t s = slot(c, e->b.daddr);

	e->hnext = c->hash[s];
	e->hpprev = &c->hash[s];
	if (e->hnext)
		e->hnext->hpprev = &e->hnext;
	c->hash[s] = e;
	c->nhashed++;
}

static void hash_del(struct xfsj_bcache *c, struct bufent *e)
{
	if (!e->hpprev)
		return;
	*e->hpprev = e->hnext;
	if (e->hnext)
		e->hnext->hpprev = e->hpprev;
	e->hnext = NULL;
	e->hpprev = NULL;
	c->nhashed--;
}

static int grow(struct xfsj_bcache *c)
{
	struct bufent **old = c->hash;
	size_t nold = c->nhash;

	c->hash = calloc(nold * 4, sizeof(*c->hash));
	if (!c->hash) {
		c->hash = old;
		return -XFSJ_E_NOMEM;
	}
	c->nhash = nold * 4;
	c->nhashed = 0;
	for (size_t i = 0; i < nold; i++) {
		for (struct bufent *e = old[i], *n; e; e = n) {
			n = e->hnext;
			hash_add(c, e);
		}
	}
	free(old);
	return 0;
}

/* ---- the LRU and eviction ---- */

static void lru_add(struct xfsj_bcache *c, struct bufent *e)
{
	if (dl_listed(&e->lru))
		dl_del(&e->lru);
	else
		c->lru_bytes += e->b.len;
	dl_add_tail(&c->lru, &e->lru);
}

static void lru_del(struct xfsj_bcache *c, struct bufent *e)
{
	if (!dl_listed(&e->lru))
		return;
	dl_del(&e->lru);
	c->lru_bytes -= e->b.len;
}

/* Listed when nothing but the cache has a use for it. */
static void maybe_idle(struct xfsj_bcache *c, struct bufent *e)
{
	if (!e->refs && !e->kept && !e->forgotten && !e->b.dirty)
		lru_add(c, e);
}

static void free_ent(struct xfsj_bcache *c, struct bufent *e)
{
	lru_del(c, e);
	dl_del(&e->age);
	c->st.bytes -= e->b.len;
	c->st.buffers--;
	free(e->b.data);
	free(e);
}

/*
 * Evict idle buffers until @want more bytes fit, or none is left.  With
 * @reuse, the first evicted buffer of exactly @want bytes is not freed
 * but handed back in *@reuse, out of every list, for the new buffer to
 * take: a full cache (the steady state of a scan) then allocates, faults
 * in and frees no memory per block read.
 */
static void shrink_reuse(struct xfsj_bcache *c, uint64_t want,
			 struct bufent **reuse)
{
	while (c->st.bytes + c->pending + want > c->bound &&
	       dl_listed(&c->lru)) {
		struct bufent *e = ENT_OF(c->lru.next, lru);

		lru_del(c, e);
		/* Dirtied without being held: kept until the flush. */
		if (e->b.dirty)
			continue;
		hash_del(c, e);
		c->st.evictions++;
		if (reuse && !*reuse && e->b.len == want) {
			dl_del(&e->age);
			c->st.bytes -= e->b.len;
			c->st.buffers--;
			*reuse = e;
			continue;
		}
		free_ent(c, e);
	}
}

static void shrink(struct xfsj_bcache *c, uint64_t want)
{
	shrink_reuse(c, want, NULL);
}

/* A new buffer, not yet in the cache: room is made for it first. */
static int new_ent(struct xfsj_bcache *c, uint64_t daddr, uint32_t len,
		   bool zero, struct bufent **out)
{
	struct bufent *e;
	int err;

	if (!len || len > BUF_LEN_MAX)
		return -XFSJ_E_INVAL;
	if (c->nhashed >= c->nhash * 2 && (err = grow(c)))
		return err;
	e = NULL;
	shrink_reuse(c, len, &e);
	if (e) {
		uint8_t *data = e->b.data;

		memset(e, 0, sizeof(*e));
		e->b.data = data;
		if (zero)
			memset(data, 0, len);
	} else {
		e = calloc(1, sizeof(*e));
		if (!e)
			return -XFSJ_E_NOMEM;
		e->b.data = zero ? calloc(1, len) : malloc(len);
		if (!e->b.data) {
			free(e);
			return -XFSJ_E_NOMEM;
		}
	}
	e->b.daddr = daddr;
	e->b.len = len;
	e->b.dirty = zero;
	dl_init(&e->age);
	dl_init(&e->lru);
	*out = e;
	return 0;
}

static void drop_new(struct bufent *e)
{
	free(e->b.data);
	free(e);
}

static void link_ent(struct xfsj_bcache *c, struct bufent *e)
{
	hash_add(c, e);
	dl_add_tail(&c->age, &e->age);
	c->st.buffers++;
	c->st.bytes += e->b.len;
	if (c->st.bytes > c->st.peak_bytes)
		c->st.peak_bytes = c->st.bytes;
	if (c->st.bytes > c->bound)
		c->st.over_bound++;
}

/* ---- lookups and references ---- */

int xfsj_bcache_get(struct xfsj_bcache *c, uint64_t daddr, uint32_t len,
		    bool zero, bool keep, struct xfsj_buf **bp, bool *cached)
{
	struct bufent *e = lookup(c, daddr);
	int err;

	if (cached)
		*cached = e != NULL;
	if (e) {
		if (e->b.len != len)
			return -XFSJ_E_INVAL;
		if (zero) {
			memset(e->b.data, 0, len);
			e->b.dirty = true;
		}
		c->st.hits++;
	} else {
		err = new_ent(c, daddr, len, zero, &e);
		if (err)
			return err;
		if (!zero) {
			err = xfsj_overlay_read(c->ov, e->b.data, len,
						daddr << 9);
			if (err) {
				drop_new(e);
				return err;
			}
		}
		link_ent(c, e);
		c->st.misses++;
	}
	lru_del(c, e);
	if (keep)
		e->kept = true;
	else
		e->refs++;
	*bp = &e->b;
	return 0;
}

int xfsj_bcache_copy(struct xfsj_bcache *c, uint64_t daddr, uint32_t len,
		     void *dst)
{
	const struct bufent *e = lookup(c, daddr);

	if (!len || len > BUF_LEN_MAX || daddr > (UINT64_MAX >> 9))
		return -XFSJ_E_INVAL;
	if (!e) {
		c->st.misses++;
		return xfsj_overlay_read(c->ov, dst, len, daddr << 9);
	}
	if (e->b.len != len)
		return -XFSJ_E_INVAL;
	memcpy(dst, e->b.data, len);
	c->st.hits++;
	return 0;
}

void xfsj_bcache_hold(struct xfsj_bcache *c, struct xfsj_buf *bp)
{
	struct bufent *e = ent(bp);

	lru_del(c, e);
	e->refs++;
}

void xfsj_bcache_rele(struct xfsj_bcache *c, struct xfsj_buf *bp)
{
	struct bufent *e;

	if (!bp)
		return;
	e = ent(bp);
	if (!e->refs || --e->refs || e->kept)
		return;
	if (e->forgotten) {
		free_ent(c, e);
		return;
	}
	maybe_idle(c, e);
	shrink(c, 0);
}

void xfsj_bcache_forget(struct xfsj_bcache *c, struct xfsj_buf *bp)
{
	struct bufent *e = ent(bp);

	if (e->forgotten)
		return;
	hash_del(c, e);
	lru_del(c, e);
	e->forgotten = true;
	e->b.dirty = false;
	if (!e->refs && !e->kept)
		free_ent(c, e);
}

void xfsj_bcache_release_kept(struct xfsj_bcache *c)
{
	for (struct dlink *l = c->age.next, *n; l != &c->age; l = n) {
		struct bufent *e = ENT_OF(l, age);

		n = l->next;
		if (!e->kept)
			continue;
		e->kept = false;
		if (e->forgotten && !e->refs)
			free_ent(c, e);
		else
			maybe_idle(c, e);
	}
	shrink(c, 0);
}

void xfsj_bcache_set_bound(struct xfsj_bcache *c, uint64_t bytes)
{
	c->bound = bytes;
	shrink(c, 0);
}

/* ---- readahead ---- */

static int ra_cmp(const void *a, const void *b)
{
	const struct xfsj_buf_ra *x = a, *y = b;

	return x->daddr < y->daddr ? -1 : x->daddr > y->daddr;
}

static bool ra_adjacent(const struct xfsj_buf_ra *a,
			const struct xfsj_buf_ra *b)
{
	return b->daddr == a->daddr + (a->len >> 9) && !(a->len & 511);
}

/*
 * Hint the device to read what sorted @v names, in ascending order:
 * entries closer than RA_GAP_MAX to the run before join it (one request
 * serves both; not where the device reads hints exactly, ra_exact), each
 * run at most RA_RUN_MAX bytes.  The reads go on in the background while
 * the caller works or reads the first of them.
 */
static void ra_advise(struct xfsj_bcache *c, const struct xfsj_buf_ra *v,
		      size_t n)
{
	uint64_t gap = xfsj_overlay_device(c->ov)->ra_exact ? 0 : RA_GAP_MAX;
	size_t i, j;

	for (i = 0; i < n; i = j) {
		uint64_t start = v[i].daddr << 9, end = start + v[i].len;

		for (j = i + 1; j < n; j++) {
			uint64_t s = v[j].daddr << 9, e = s + v[j].len;

			if (s > end + gap || e - start > RA_RUN_MAX)
				break;
			if (e > end)
				end = e;
		}
		xfsj_overlay_advise(c->ov, start, end - start);
	}
}

/* Which entries of @v a request takes into @pick (*@m of them). */
typedef void (*ra_choose)(struct xfsj_bcache *c, const struct xfsj_buf_ra *v,
			  size_t n, uint64_t room, struct xfsj_buf_ra *pick,
			  size_t *m);

/*
 * The one run of both requests: the entries of @v @choose takes, sorted
 * by address, into *@pick (the caller frees it), *@m of them.
 */
static int ra_sorted(struct xfsj_bcache *c, const struct xfsj_buf_ra *v,
		     size_t n, ra_choose choose, uint64_t room,
		     struct xfsj_buf_ra **pick, size_t *m)
{
	if (n > SIZE_MAX / sizeof(**pick))
		return -XFSJ_E_NOMEM;
	*pick = malloc(n * sizeof(**pick));
	if (!*pick)
		return -XFSJ_E_NOMEM;
	choose(c, v, n, room, *pick, m);
	/* Most requests come in disk order already (a chunk's blocks). */
	for (size_t i = 1; i < *m; i++) {
		if ((*pick)[i - 1].daddr > (*pick)[i].daddr) {
			qsort(*pick, *m, sizeof(**pick), ra_cmp);
			break;
		}
	}
	return 0;
}

/* A prefetch: what is not cached yet and one request can read. */
static void pf_choose(struct xfsj_bcache *c, const struct xfsj_buf_ra *v,
		      size_t n, uint64_t room, struct xfsj_buf_ra *pick,
		      size_t *m)
{
	(void)room;
	*m = 0;
	for (size_t i = 0; i < n; i++)
		if (v[i].len && v[i].len <= RA_RUN_MAX &&
		    v[i].daddr < (UINT64_MAX >> 9) && !lookup(c, v[i].daddr))
			pick[(*m)++] = v[i];
}

int xfsj_bcache_prefetch(struct xfsj_bcache *c, const struct xfsj_buf_ra *v,
			 size_t n)
{
	struct xfsj_buf_ra *pick;
	size_t m;
	int err;

	if (!n)
		return 0;
	err = ra_sorted(c, v, n, pf_choose, 0, &pick, &m);
	if (err)
		return err;
	ra_advise(c, pick, m);
	free(pick);
	return 0;
}

/* Add the buffers of @v, read one by one. */
static int ra_each(struct xfsj_bcache *c, const struct xfsj_buf_ra *v,
		   size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct bufent *e;
		int err;

		if (lookup(c, v[i].daddr))
			continue;	/* repeated in the request */
		err = new_ent(c, v[i].daddr, v[i].len, false, &e);
		if (err)
			return err;
		err = xfsj_overlay_read(c->ov, e->b.data, v[i].len,
					v[i].daddr << 9);
		if (err) {
			drop_new(e);
			return err;
		}
		link_ent(c, e);
		lru_add(c, e);
		c->st.readahead++;
	}
	return 0;
}

/*
 * Add the buffers of @v (adjacent on the device, at most XFSJ_IOV_MAX),
 * read by one request straight into their own memory.  A buffer the
 * cache holds already (a request naming a block twice) sends the run to
 * ra_each.
 */
static int ra_run(struct xfsj_bcache *c, const struct xfsj_buf_ra *v,
		  size_t n)
{
	struct bufent *ent[XFSJ_IOV_MAX];
	struct iovec iov[XFSJ_IOV_MAX];
	size_t i, k;
	int err = 0;

	if (n < 2 || n > XFSJ_IOV_MAX)
		return ra_each(c, v, n);
	for (i = 0; i < n; i++)
		if (lookup(c, v[i].daddr))
			return ra_each(c, v, n);
	for (k = 0; k < n; k++) {
		err = new_ent(c, v[k].daddr, v[k].len, false, &ent[k]);
		if (err)
			break;
		c->pending += v[k].len;
		iov[k].iov_base = ent[k]->b.data;
		iov[k].iov_len = v[k].len;
	}
	if (!err)
		err = xfsj_overlay_readv(c->ov, iov, (int)n, v[0].daddr << 9);
	for (i = 0; i < k; i++)
		c->pending -= v[i].len;
	if (err) {
		while (k-- > 0)
			drop_new(ent[k]);
		return err;
	}
	for (i = 0; i < n; i++) {
		link_ent(c, ent[i]);
		lru_add(c, ent[i]);
		c->st.readahead++;
	}
	return 0;
}

/* Keep the first entries of @v that fit in @room; *@m of them. */
static void ra_pick(struct xfsj_bcache *c, const struct xfsj_buf_ra *v,
		    size_t n, uint64_t room, struct xfsj_buf_ra *pick,
		    size_t *m)
{
	uint64_t used = 0;

	*m = 0;
	for (size_t i = 0; i < n; i++) {
		struct bufent *e = lookup(c, v[i].daddr);

		if (!v[i].len || v[i].len > BUF_LEN_MAX)
			continue;
		if (e && !dl_listed(&e->lru))
			continue;	/* held, kept or dirty: it stays */
		if (used + v[i].len > room)
			break;
		used += v[i].len;
		if (e)
			lru_add(c, e);	/* wanted soon: not the next to go */
		else
			pick[(*m)++] = v[i];
	}
}

int xfsj_bcache_readahead(struct xfsj_bcache *c, const struct xfsj_buf_ra *v,
			  size_t n)
{
	uint64_t pinned = c->st.bytes - c->lru_bytes;
	struct xfsj_buf_ra *pick;
	size_t m, i, j;
	int err;

	if (!n || pinned >= c->bound)
		return 0;
	err = ra_sorted(c, v, n, ra_pick, c->bound - pinned, &pick, &m);
	if (err)
		return err;
	/* All in flight first, then read in order. */
	if (m > 1)
		ra_advise(c, pick, m);
	for (i = 0; i < m && !err; i = j) {
		size_t len = pick[i].len;

		for (j = i + 1; j < m && ra_adjacent(&pick[j - 1], &pick[j]) &&
		     len + pick[j].len <= RA_RUN_MAX &&
		     j - i < XFSJ_IOV_MAX; j++)
			len += pick[j].len;
		err = ra_run(c, &pick[i], j - i);
	}
	free(pick);
	return err;
}

/* ---- flush, statistics, the end ---- */

int xfsj_bcache_flush(struct xfsj_bcache *c, xfsj_bcache_write_fn write,
		      void *arg, struct xfsj_buf **failed)
{
	for (struct dlink *l = c->age.next; l != &c->age; l = l->next) {
		struct bufent *e = ENT_OF(l, age);
		int err;

		if (!e->b.dirty || e->forgotten)
			continue;
		err = write(arg, &e->b);
		if (err) {
			*failed = &e->b;
			return err;
		}
		e->b.dirty = false;
		maybe_idle(c, e);
	}
	shrink(c, 0);
	return 0;
}

void xfsj_bcache_stats(const struct xfsj_bcache *c,
		       struct xfsj_cache_stats *st)
{
	*st = c->st;
	st->bound = c->bound;
}

void xfsj_bcache_free(struct xfsj_bcache *c)
{
	if (!c)
		return;
	while (dl_listed(&c->age))
		free_ent(c, ENT_OF(c->age.next, age));
	free(c->hash);
	free(c);
}
