/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The read-ahead pool (rapool.h).
 *
 * The arena is RA_PAGES pages of 4 KiB, used as a ring: each hint becomes
 * one or more entries, each a run of whole device pages read into a run
 * of arena pages, allocated at the ring's tail and dropped from its head,
 * oldest first.  Each arena page is on a hash chain keyed by the device
 * page it holds, so a read finds its pages in O(1) each, whichever entry
 * holds them.  The chains, the entries and the counters are under one
 * lock; the copies out of the arena are made under it too, so that an
 * entry cannot be dropped while it is copied (a copy is a few KiB: the
 * lock is held for microseconds).
 *
 * Memory: the arena (RA_PAGES x 4 KiB, touched only as it fills) and
 * 12 bytes per arena page for the chains and the entries.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/rapool.h"
#include "xfsj/io.h"

#define RA_SHIFT	12
#define RA_PG		(1U << RA_SHIFT)
#define RA_PAGES	((uint32_t)(XFSJ_IO_POOL_BYTES >> RA_SHIFT))
#define RA_ENT_MAX	64U		/* pages one request reads at most */
#define RA_HINT_MAX	(RA_PAGES / 4)	/* pages one hint takes at most */
#define RA_GAP_PAGES	4		/* pages read again to join two runs */
#define RA_DEPTH	8		/* reading threads: requests at once */
#define RA_BUCKETS	(2 * RA_PAGES)
#define NONE		UINT32_MAX

enum ra_state { RA_QUEUED, RA_READING, RA_DONE, RA_FAILED };

struct ra_ent {
	uint64_t pg;		/* first device page */
	uint64_t vend;		/* device bytes valid up to here, once read */
	uint32_t apg, npg;	/* first arena page; pages */
	uint8_t state;
	bool hashed;		/* its pages are on the chains */
};

struct xfsj_rapool {
	int dfd;
	uint64_t size;
	uint8_t *arena;
	pthread_mutex_t lock;		/* everything below */
	pthread_cond_t more;		/* an entry queued, or stop */
	pthread_cond_t done;		/* an entry read (or failed) */
	uint32_t bucket[RA_BUCKETS];	/* first arena page of a chain */
	uint32_t next[RA_PAGES];	/* next arena page on its chain */
	uint32_t owner[RA_PAGES];	/* the entry (ring slot) holding it */
	struct ra_ent ent[RA_PAGES];	/* the ring: one page at least each */
	uint64_t head, tail, io;	/* oldest entry; next new; next read */
	uint32_t nhashed;		/* entries whose pages are on chains */
	uint32_t atail;			/* next arena page to allocate */
	bool broken, stop;
	unsigned int nthreads;
	pthread_t thread[RA_DEPTH];
	struct xfsj_rapool_stats st;
};

static struct ra_ent *slot(struct xfsj_rapool *rp, uint64_t seq)
{
	return &rp->ent[seq % RA_PAGES];
}

static uint32_t hash_pg(uint64_t pg)
{
	return (uint32_t)((pg * 0x9e3779b97f4a7c15ULL) >> 40) % RA_BUCKETS;
}

static uint64_t dev_page(const struct xfsj_rapool *rp, uint32_t apg)
{
	const struct ra_ent *e = &rp->ent[rp->owner[apg]];

	return e->pg + (apg - e->apg);
}

/* The arena page holding device page @pg, newest first, or NONE. */
static uint32_t find(const struct xfsj_rapool *rp, uint64_t pg)
{
	uint32_t a = rp->bucket[hash_pg(pg)];

	while (a != NONE && dev_page(rp, a) != pg)
		a = rp->next[a];
	return a;
}

static void hash_in(struct xfsj_rapool *rp, struct ra_ent *e)
{
	for (uint32_t i = 0; i < e->npg; i++) {
		uint32_t b = hash_pg(e->pg + i), a = e->apg + i;

		rp->next[a] = rp->bucket[b];
		rp->bucket[b] = a;
	}
	e->hashed = true;
	rp->nhashed++;
}

static void hash_out(struct xfsj_rapool *rp, struct ra_ent *e)
{
	if (!e->hashed)
		return;
	for (uint32_t i = 0; i < e->npg; i++) {
		uint32_t *pp = &rp->bucket[hash_pg(e->pg + i)];
		uint32_t a = e->apg + i;

		while (*pp != NONE && *pp != a)
			pp = &rp->next[*pp];
		if (*pp == a)
			*pp = rp->next[a];
	}
	e->hashed = false;
	rp->nhashed--;
}

/*
 * Drop the oldest entry, waiting first if a thread is reading into it.
 * False when it had to wait (the caller looks again: the ring may have
 * changed meanwhile).
 */
static bool drop_oldest(struct xfsj_rapool *rp)
{
	struct ra_ent *e = slot(rp, rp->head);

	if (e->state == RA_READING) {
		pthread_cond_wait(&rp->done, &rp->lock);
		return false;
	}
	if (e->state == RA_QUEUED && e->hashed)
		rp->st.dropped++;
	hash_out(rp, e);
	if (rp->io == rp->head)
		rp->io++;
	e->state = RA_DONE;
	rp->head++;
	return true;
}

/*
 * Room for @n arena pages at the tail, dropping the oldest entries in the
 * way; the first of them, or NONE if the pool stopped meanwhile.
 */
static uint32_t alloc_pages(struct xfsj_rapool *rp, uint32_t n)
{
	for (;;) {
		uint32_t a;

		if (rp->stop || rp->broken)
			return NONE;
		if (rp->head == rp->tail)
			rp->atail = 0;
		a = rp->atail + n > RA_PAGES ? 0 : rp->atail;
		if (rp->head != rp->tail) {
			const struct ra_ent *o = slot(rp, rp->head);

			/* Pages skipped at the end of the ring, or in use. */
			bool in_way = a == 0 && rp->atail != 0 ?
				o->apg >= rp->atail || o->apg < n :
				o->apg >= a && o->apg < a + n;

			if (in_way || rp->tail - rp->head == RA_PAGES) {
				drop_oldest(rp);
				continue;
			}
		}
		rp->atail = a + n;
		return a;
	}
}

static int read_direct(struct xfsj_rapool *rp, struct ra_ent *e,
		       uint64_t *got)
{
	uint8_t *p = rp->arena + (size_t)e->apg * RA_PG;
	uint64_t off = e->pg << RA_SHIFT;
	size_t len = (size_t)e->npg * RA_PG;

	*got = 0;
	while (len) {
		ssize_t n = pread(rp->dfd, p, len, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0)
			break;
		p += n;
		off += (uint64_t)n;
		len -= (size_t)n;
		*got += (uint64_t)n;
		/* A short read ends at the end of the file; not page-sized
		 * any more, the next read would be refused. */
		if ((size_t)n % RA_PG)
			break;
	}
	return 0;
}

/*
 * Read queued entry @e (called and returning with the lock held, which is
 * dropped while the device reads).
 */
static void fill(struct xfsj_rapool *rp, struct ra_ent *e)
{
	uint64_t got;
	int err;

	e->state = RA_READING;
	pthread_mutex_unlock(&rp->lock);
	err = read_direct(rp, e, &got);
	pthread_mutex_lock(&rp->lock);
	if (err) {
		/* Not aligned enough for this device, or a bad sector: the
		 * reads themselves will say which. */
		e->state = RA_FAILED;
		hash_out(rp, e);
		rp->broken = true;
	} else {
		e->state = RA_DONE;
		e->vend = (e->pg << RA_SHIFT) + got;
		rp->st.read_bytes += got;
	}
	pthread_cond_broadcast(&rp->done);
}

static void *reader(void *arg)
{
	struct xfsj_rapool *rp = arg;

	pthread_mutex_lock(&rp->lock);
	for (;;) {
		struct ra_ent *e;

		while (rp->io == rp->tail && !rp->stop)
			pthread_cond_wait(&rp->more, &rp->lock);
		if (rp->stop)
			break;
		e = slot(rp, rp->io++);
		/* Taken by a read that needed it first, or forgotten. */
		if (e->state != RA_QUEUED)
			continue;
		if (!e->hashed) {
			e->state = RA_DONE;
			continue;
		}
		fill(rp, e);
	}
	pthread_mutex_unlock(&rp->lock);
	return NULL;
}

struct xfsj_rapool *xfsj_rapool_create(int dfd, uint64_t size)
{
	struct xfsj_rapool *rp = calloc(1, sizeof(*rp));

	if (!rp)
		return NULL;
	rp->arena = mmap(NULL, (size_t)RA_PAGES * RA_PG, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (rp->arena == MAP_FAILED) {
		free(rp);
		return NULL;
	}
	rp->dfd = dfd;
	rp->size = size;
	memset(rp->bucket, 0xff, sizeof(rp->bucket));
	pthread_mutex_init(&rp->lock, NULL);
	pthread_cond_init(&rp->more, NULL);
	pthread_cond_init(&rp->done, NULL);
	return rp;
}

void xfsj_rapool_free(struct xfsj_rapool *rp)
{
	if (!rp)
		return;
	pthread_mutex_lock(&rp->lock);
	rp->stop = true;
	pthread_cond_broadcast(&rp->more);
	pthread_cond_broadcast(&rp->done);
	pthread_mutex_unlock(&rp->lock);
	for (unsigned int i = 0; i < rp->nthreads; i++)
		pthread_join(rp->thread[i], NULL);
	pthread_mutex_destroy(&rp->lock);
	pthread_cond_destroy(&rp->more);
	pthread_cond_destroy(&rp->done);
	munmap(rp->arena, (size_t)RA_PAGES * RA_PG);
	close(rp->dfd);
	free(rp);
}

static void start_threads(struct xfsj_rapool *rp)
{
	while (rp->nthreads < RA_DEPTH &&
	       !pthread_create(&rp->thread[rp->nthreads], NULL, reader, rp))
		rp->nthreads++;
	if (!rp->nthreads)
		rp->broken = true;
}

uint64_t xfsj_rapool_hint(struct xfsj_rapool *rp, uint64_t off, uint64_t len)
{
	uint64_t pg, end, taken;

	if (!len || off >= rp->size)
		return len;
	if (len > rp->size - off)
		len = rp->size - off;
	pg = off >> RA_SHIFT;
	end = (off + len + RA_PG - 1) >> RA_SHIFT;
	if (end - pg > RA_HINT_MAX)
		end = pg + RA_HINT_MAX;
	taken = (end << RA_SHIFT) - off;
	if (taken > len)
		taken = len;
	pthread_mutex_lock(&rp->lock);
	if (!rp->nthreads && !rp->broken)
		start_threads(rp);
	if (rp->broken) {
		pthread_mutex_unlock(&rp->lock);
		return 0;
	}
	rp->st.hinted++;
	/*
	 * Only pages not in the pool yet are read, in runs; a few pages in
	 * the pool between two runs are read again rather than split the
	 * request.
	 */
	while (pg < end) {
		uint64_t q, last;
		uint32_t n, a;
		struct ra_ent *e;

		while (pg < end && find(rp, pg) != NONE)
			pg++;
		if (pg == end)
			break;
		last = pg;
		for (q = pg + 1; q < end && q - pg < RA_ENT_MAX; q++) {
			if (find(rp, q) != NONE)
				continue;
			if (q - last > RA_GAP_PAGES)
				break;
			last = q;
		}
		n = (uint32_t)(last + 1 - pg);
		a = alloc_pages(rp, n);
		if (a == NONE)
			break;
		e = slot(rp, rp->tail);
		*e = (struct ra_ent){ .pg = pg, .apg = a, .npg = n,
				      .state = RA_QUEUED };
		for (uint32_t i = 0; i < n; i++)
			rp->owner[a + i] = (uint32_t)(rp->tail % RA_PAGES);
		hash_in(rp, e);
		rp->tail++;
		pg += n;
		pthread_cond_signal(&rp->more);
	}
	pthread_mutex_unlock(&rp->lock);
	return taken;
}

/* Where the next copied bytes go: piece @i of @iov, @at bytes into it. */
struct iov_cursor {
	const struct iovec *iov;
	int n, i;
	size_t at;
};

static void copy_out(struct iov_cursor *c, const uint8_t *src, size_t len)
{
	while (len && c->i < c->n) {
		size_t room = c->iov[c->i].iov_len - c->at;

		if (!room) {
			c->i++;
			c->at = 0;
			continue;
		}
		if (room > len)
			room = len;
		memcpy((uint8_t *)c->iov[c->i].iov_base + c->at, src, room);
		c->at += room;
		src += room;
		len -= room;
	}
}

int xfsj_rapool_read(struct xfsj_rapool *rp, const struct iovec *iov, int n,
		     uint64_t off, size_t total)
{
	struct iov_cursor cur = { .iov = iov, .n = n };
	uint64_t pg, end, p;

	if (!total || off > rp->size || total > rp->size - off)
		return 1;
	pg = off >> RA_SHIFT;
	end = (off + total + RA_PG - 1) >> RA_SHIFT;
	pthread_mutex_lock(&rp->lock);
again:
	for (p = pg; p < end; p++) {
		uint32_t a = find(rp, p);
		const struct ra_ent *e;
		uint64_t need;

		if (a == NONE)
			goto miss;
		e = &rp->ent[rp->owner[a]];
		if (e->state == RA_QUEUED) {
			/* Needed now: read it here, ahead of its turn. */
			rp->st.taken++;
			fill(rp, &rp->ent[rp->owner[a]]);
			goto again;
		}
		if (e->state == RA_READING) {
			rp->st.waited++;
			pthread_cond_wait(&rp->done, &rp->lock);
			goto again;
		}
		need = (p + 1) << RA_SHIFT;
		if (need > off + total)
			need = off + total;
		if (e->state != RA_DONE || e->vend < need)
			goto miss;
	}
	for (p = pg; p < end; p++) {
		uint64_t from = p == pg ? off : p << RA_SHIFT;
		uint64_t to = (p + 1) << RA_SHIFT;

		if (to > off + total)
			to = off + total;
		copy_out(&cur, rp->arena + (size_t)find(rp, p) * RA_PG +
			 (from & (RA_PG - 1)), (size_t)(to - from));
	}
	rp->st.served++;
	pthread_mutex_unlock(&rp->lock);
	return 0;
miss:
	rp->st.missed++;
	pthread_mutex_unlock(&rp->lock);
	return 1;
}

void xfsj_rapool_forget(struct xfsj_rapool *rp)
{
	pthread_mutex_lock(&rp->lock);
	for (uint64_t s = rp->head; s < rp->tail && rp->nhashed; s++)
		hash_out(rp, slot(rp, s));
	pthread_mutex_unlock(&rp->lock);
}

void xfsj_rapool_stats(struct xfsj_rapool *rp, struct xfsj_rapool_stats *st)
{
	pthread_mutex_lock(&rp->lock);
	*st = rp->st;
	pthread_mutex_unlock(&rp->lock);
}
