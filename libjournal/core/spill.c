/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Arrays that spill to a scratch file (see core/spill.h and xfsj/spill.h).
 *
 * The scratch file is made with mkstemp in the spill's directory and
 * unlinked at once: killed anywhere, nothing is left.  Its space is handed
 * out as page-aligned regions from a bump offset, each reserved with
 * posix_fallocate before it is mapped (a full or too small filesystem is
 * an error return here, never a SIGBUS at a later store); a freed region's
 * blocks are punched out, and the offset starts again from the first page
 * once no region is live (offset 0 means "in RAM").
 *
 * Bounded residence: pages of a MAP_SHARED file mapping stay in the
 * page cache when the process drops them (MADV_DONTNEED), so a drop never
 * loses data, and a later access faults them back.  The walks of this
 * file (a move, a sort) drop each window behind them; a watch thread
 * drops every region whenever the process's resident size passes the RSS
 * bound, for the walks of the callers (merge-walks, lookups), which hold
 * plain pointers.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "core/grow.h"
#include "core/spill.h"
#include "xfsj/errors.h"

/* Arrays smaller than this stay in RAM whatever the bound. */
#define SPILL_MIN	(64u << 10)
/* An arena's segment. */
#define SEG_BYTES	(1u << 20)
/* How often the watch looks at the resident size. */
#define WATCH_NS	(4 * 1000 * 1000)

struct region {
	char *addr;
	size_t len;
	uint64_t off;
};

struct xfsj_spill_seg {
	void *p;
	size_t cap;
	uint64_t foff;
};

struct xfsj_spill {
	pthread_mutex_t lock;
	char *dir;
	char path[4096];
	int fd;			/* -1 until the first region */
	uint64_t ram_bound, rss_bound;
	uint64_t ram, file;	/* the tables' bytes now, in RAM and file */
	uint64_t fend;		/* the next free offset of the file */
	struct region *reg;
	size_t nreg, capreg;
	size_t window;		/* bytes of a sorted run, a copy step */
	size_t page;
	struct xfsj_spill_stats st;
	pthread_t watch;
	bool watching;
	atomic_bool stop;
};

int xfsj_spill_new(const char *dir, uint64_t ram_bytes, uint64_t rss_bytes,
		   struct xfsj_spill **out)
{
	struct xfsj_spill *sp;
	long pg = sysconf(_SC_PAGESIZE);

	*out = NULL;
	if (!dir || !*dir)
		return -XFSJ_E_INVAL;
	sp = calloc(1, sizeof(*sp));
	if (!sp)
		return -XFSJ_E_NOMEM;
	sp->dir = strdup(dir);
	if (!sp->dir) {
		free(sp);
		return -XFSJ_E_NOMEM;
	}
	pthread_mutex_init(&sp->lock, NULL);
	sp->fd = -1;
	sp->ram_bound = ram_bytes;
	sp->rss_bound = rss_bytes;
	sp->page = pg > 0 ? (size_t)pg : 4096;
	/* Offset 0 is XFSJ_SPILL_RAM: the first page is never handed out. */
	sp->fend = sp->page;
	/* A window: an eighth of the RAM bound, from 1 to 16 MiB. */
	sp->window = (size_t)(ram_bytes / 8);
	if (sp->window < (1u << 20))
		sp->window = 1u << 20;
	if (sp->window > (16u << 20))
		sp->window = 16u << 20;
	snprintf(sp->path, sizeof(sp->path), "%s/xfsj-scratch.XXXXXX", dir);
	*out = sp;
	return 0;
}

const char *xfsj_spill_path(const struct xfsj_spill *sp)
{
	return sp->path;
}

void xfsj_spill_stats(const struct xfsj_spill *sp, struct xfsj_spill_stats *st)
{
	struct xfsj_spill *w = (struct xfsj_spill *)sp;

	pthread_mutex_lock(&w->lock);
	*st = sp->st;
	pthread_mutex_unlock(&w->lock);
}

/* ---- dropping resident pages ---- */

/* Drop the process's pages of [p, p + len) of a file region. */
static void drop(const struct xfsj_spill *sp, const struct region *r,
		 const char *p, size_t len)
{
	uintptr_t s = (uintptr_t)p & ~(uintptr_t)(sp->page - 1);
	uintptr_t e = (uintptr_t)p + len;
	uintptr_t re = (uintptr_t)r->addr + r->len;

	if (s < (uintptr_t)r->addr)
		s = (uintptr_t)r->addr;
	e = (e + sp->page - 1) & ~(uintptr_t)(sp->page - 1);
	if (e > re)
		e = re;
	if (e > s)
		madvise((void *)s, e - s, MADV_DONTNEED);
}

static void drop_all(struct xfsj_spill *sp)
{
	size_t i;

	for (i = 0; i < sp->nreg; i++)
		madvise(sp->reg[i].addr, sp->reg[i].len, MADV_DONTNEED);
	sp->st.drops++;
}

/* The process's resident bytes (statm), 0 when unknown. */
static uint64_t resident(int fd, size_t page)
{
	char buf[128];
	unsigned long long size, res;
	ssize_t got = pread(fd, buf, sizeof(buf) - 1, 0);

	if (got <= 0)
		return 0;
	buf[got] = 0;
	if (sscanf(buf, "%llu %llu", &size, &res) != 2)
		return 0;
	return (uint64_t)res * page;
}

static void *watch(void *arg)
{
	struct xfsj_spill *sp = arg;
	const struct timespec ts = { 0, WATCH_NS };
	int fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	while (!atomic_load(&sp->stop)) {
		nanosleep(&ts, NULL);
		if (resident(fd, sp->page) <= sp->rss_bound)
			continue;
		pthread_mutex_lock(&sp->lock);
		drop_all(sp);
		pthread_mutex_unlock(&sp->lock);
	}
	close(fd);
	return NULL;
}

/* ---- the scratch file's regions (the lock held) ---- */

static int fail(struct xfsj_spill *sp, int e, uint64_t bytes)
{
	sp->st.failed_errno = e;
	sp->st.failed_bytes = bytes;
	return -XFSJ_E_SCRATCH;
}

static int open_file(struct xfsj_spill *sp, uint64_t bytes)
{
	int fd = mkstemp(sp->path);

	if (fd < 0) {
		int e = errno;

		/* The pattern again, for the message and a later try. */
		snprintf(sp->path, sizeof(sp->path), "%s/xfsj-scratch.XXXXXX",
			 sp->dir);
		return fail(sp, e, bytes);
	}
	/* Nothing is left behind, even when killed. */
	unlink(sp->path);
	sp->fd = fd;
	if (sp->rss_bound && !sp->watching) {
		atomic_store(&sp->stop, false);
		sp->watching = !pthread_create(&sp->watch, NULL, watch, sp);
	}
	return 0;
}

static int region_new(struct xfsj_spill *sp, size_t bytes, struct region **out)
{
	size_t len = (bytes + sp->page - 1) & ~(sp->page - 1);
	struct region r;
	void *a;
	int e;

	if (sp->fd < 0) {
		e = open_file(sp, bytes);
		if (e)
			return e;
	}
	if (sp->nreg == sp->capreg &&
	    xfsj_grow(&sp->reg, &sp->capreg, sp->nreg, 1, sizeof(*sp->reg), 16))
		return -XFSJ_E_NOMEM;
	if (sp->fend > UINT64_MAX - len || sp->fend + len > (uint64_t)INT64_MAX)
		return fail(sp, EFBIG, bytes);
	e = posix_fallocate(sp->fd, (off_t)sp->fend, (off_t)len);
	if (e)
		return fail(sp, e, bytes);
	a = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, sp->fd,
		 (off_t)sp->fend);
	if (a == MAP_FAILED) {
		fallocate(sp->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
			  (off_t)sp->fend, (off_t)len);
		return -XFSJ_E_NOMEM;
	}
	r.addr = a;
	r.len = len;
	r.off = sp->fend;
	sp->fend += len;
	sp->reg[sp->nreg] = r;
	*out = &sp->reg[sp->nreg++];
	sp->file += len;
	if (sp->file > sp->st.file_peak)
		sp->st.file_peak = sp->file;
	return 0;
}

static struct region *region_of(struct xfsj_spill *sp, uint64_t off)
{
	size_t i;

	for (i = 0; i < sp->nreg; i++)
		if (sp->reg[i].off == off)
			return &sp->reg[i];
	return NULL;
}

static void region_free(struct xfsj_spill *sp, struct region *r)
{
	munmap(r->addr, r->len);
	fallocate(sp->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
		  (off_t)r->off, (off_t)r->len);
	sp->file -= r->len;
	*r = sp->reg[--sp->nreg];
	if (!sp->nreg) {
		/* Nothing live: the file starts again from its beginning. */
		if (ftruncate(sp->fd, 0) == 0)
			sp->fend = sp->page;
	}
}

/* Copy @len bytes into region @to from @from, dropping each window. */
static void copy_out(struct xfsj_spill *sp, struct region *to,
		     struct region *from, const char *src, size_t len)
{
	size_t at, step;

	for (at = 0; at < len; at += step) {
		step = len - at < sp->window ? len - at : sp->window;
		memcpy(to->addr + at, src + at, step);
		drop(sp, to, to->addr + at, step);
		if (from)
			drop(sp, from, src + at, step);
	}
}

/* ---- arrays ---- */

/*
 * Arrays of at least SPILL_MIN bytes in RAM are anonymous mappings of
 * their own (grown by mremap): freed, their pages go back at once, where
 * malloc's heap could keep them (its threshold for mappings grows with
 * what it frees) and hold the RSS above the bound.
 */
static size_t map_len(const struct xfsj_spill *sp, size_t bytes)
{
	return (bytes + sp->page - 1) & ~(sp->page - 1);
}

static void ram_free(const struct xfsj_spill *sp, void *v, size_t bytes)
{
	if (bytes < SPILL_MIN)
		free(v);
	else if (v)
		munmap(v, map_len(sp, bytes));
}

/* Resize the RAM array *@arrp of @ob bytes to @nb (> @ob). */
static int ram_resize(const struct xfsj_spill *sp, void *arrp, size_t ob,
		      size_t nb)
{
	void *v, *nv;

	memcpy(&v, arrp, sizeof(v));
	if (nb < SPILL_MIN) {
		nv = realloc(v, nb);
		if (!nv)
			return -XFSJ_E_NOMEM;
	} else if (ob < SPILL_MIN || !v) {
		nv = mmap(NULL, map_len(sp, nb), PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (nv == MAP_FAILED)
			return -XFSJ_E_NOMEM;
		if (v)
			memcpy(nv, v, ob);
		free(v);
	} else {
		nv = mremap(v, map_len(sp, ob), map_len(sp, nb),
			    MREMAP_MAYMOVE);
		if (nv == MAP_FAILED)
			return -XFSJ_E_NOMEM;
	}
	memcpy(arrp, &nv, sizeof(nv));
	return 0;
}

static void ram_add(struct xfsj_spill *sp, uint64_t add, uint64_t sub)
{
	sp->ram += add;
	sp->ram -= sub;
	if (sp->ram > sp->st.ram_peak)
		sp->st.ram_peak = sp->ram;
}

/* Would @nb bytes in RAM (in place of @ob) pass the bound? */
static bool over(const struct xfsj_spill *sp, size_t ob, size_t nb)
{
	return sp->ram_bound && nb >= SPILL_MIN &&
	       sp->ram - ob + nb > sp->ram_bound;
}

/*
 * Move (or grow) the array of @ocb bytes to a new file region of @nb
 * bytes, the @ob bytes it holds copied.
 */
static int to_file(struct xfsj_spill *sp, void *arrp, uint64_t *foff,
		   size_t ob, size_t ocb, size_t nb)
{
	struct region *r, *old = NULL;
	char *v;
	uint64_t ooff = *foff;
	int err;

	err = region_new(sp, nb, &r);
	if (err)
		return err;
	memcpy(&v, arrp, sizeof(v));
	if (ooff != XFSJ_SPILL_RAM)
		old = region_of(sp, ooff);
	if (v && ob)
		copy_out(sp, r, old, v, ob);
	*foff = r->off;
	memcpy(arrp, &r->addr, sizeof(r->addr));
	if (old) {
		region_free(sp, old);
	} else {
		ram_free(sp, v, ocb);
		ram_add(sp, 0, ocb);
		sp->st.spills++;
	}
	return 0;
}

int xfsj_spill_grow(struct xfsj_spill *sp, void *arrp, size_t *cap,
		    uint64_t *foff, size_t n, size_t more, size_t esz,
		    size_t first)
{
	size_t nc, ob, nb;
	int err = xfsj_grow_cap(*cap, n, more, esz, first, &nc);

	if (err || nc == *cap)
		return err;
	if (!sp)
		return xfsj_grow(arrp, cap, n, more, esz, first);
	ob = *cap * esz;
	nb = nc * esz;
	pthread_mutex_lock(&sp->lock);
	if (*foff == XFSJ_SPILL_RAM && !over(sp, ob, nb))
		err = ram_resize(sp, arrp, ob, nb);
	else
		err = to_file(sp, arrp, foff, n * esz, ob, nb);
	if (!err && *foff == XFSJ_SPILL_RAM)
		ram_add(sp, nb, ob);
	if (!err)
		*cap = nc;
	pthread_mutex_unlock(&sp->lock);
	return err;
}

void xfsj_spill_release(struct xfsj_spill *sp, void *arrp, size_t *cap,
			uint64_t *foff, size_t esz)
{
	void *v;
	struct region *r;

	memcpy(&v, arrp, sizeof(v));
	if (!sp) {
		free(v);
	} else if (*foff == XFSJ_SPILL_RAM) {
		ram_free(sp, v, *cap * esz);
		pthread_mutex_lock(&sp->lock);
		ram_add(sp, 0, *cap * esz);
		pthread_mutex_unlock(&sp->lock);
	} else {
		pthread_mutex_lock(&sp->lock);
		r = region_of(sp, *foff);
		if (r)
			region_free(sp, r);
		pthread_mutex_unlock(&sp->lock);
	}
	v = NULL;
	memcpy(arrp, &v, sizeof(v));
	*cap = 0;
	*foff = XFSJ_SPILL_RAM;
}

/* ---- the sort of a spilled array: runs of a window, then a merge ---- */

struct merge {
	const char *base;
	size_t esz, per, n;
	int (*cmp)(const void *, const void *);
	size_t *at;		/* each run's next element */
	size_t *heap;		/* runs by their next element */
	size_t nheap;
};

static const void *run_head(const struct merge *m, size_t run)
{
	return m->base + m->at[run] * m->esz;
}

/* Does run @a's head come before run @b's (ties: the earlier run)? */
static bool before(const struct merge *m, size_t a, size_t b)
{
	int c = m->cmp(run_head(m, a), run_head(m, b));

	return c < 0 || (c == 0 && a < b);
}

static void sift_down(struct merge *m, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, s = i, t;

		if (l < m->nheap && before(m, m->heap[l], m->heap[s]))
			s = l;
		if (l + 1 < m->nheap && before(m, m->heap[l + 1], m->heap[s]))
			s = l + 1;
		if (s == i)
			return;
		t = m->heap[i];
		m->heap[i] = m->heap[s];
		m->heap[s] = t;
		i = s;
	}
}

static size_t run_end(const struct merge *m, size_t run)
{
	size_t e = (run + 1) * m->per;

	return e < m->n ? e : m->n;
}

/*
 * Sort @n elements at @base by runs of a window, merged into a scratch
 * region and copied back.  @in: the array's region when it is in the file
 * (its windows dropped as they are done), NULL in RAM.
 */
static int sort_runs(struct xfsj_spill *sp, char *base, const struct region *in,
		     size_t n, size_t esz,
		     int (*cmp)(const void *, const void *))
{
	struct merge m = { .base = base, .esz = esz, .n = n, .cmp = cmp };
	struct region out, *rp;
	size_t runs, r, done = 0, since = 0;
	int err;

	m.per = sp->window / esz ? sp->window / esz : 1;
	runs = (n + m.per - 1) / m.per;
	for (r = 0; r < runs; r++) {
		char *s = base + r * m.per * esz;
		size_t k = run_end(&m, r) - r * m.per;

		qsort(s, k, esz, cmp);
		if (in)
			drop(sp, in, s, k * esz);
	}
	if (runs < 2)
		return 0;
	m.at = malloc(runs * sizeof(*m.at));
	m.heap = malloc(runs * sizeof(*m.heap));
	if (!m.at || !m.heap) {
		free(m.at);
		free(m.heap);
		return -XFSJ_E_NOMEM;
	}
	/* A copy: other threads' regions may move the list meanwhile. */
	pthread_mutex_lock(&sp->lock);
	err = region_new(sp, n * esz, &rp);
	if (!err)
		out = *rp;
	pthread_mutex_unlock(&sp->lock);
	if (err) {
		free(m.at);
		free(m.heap);
		return err;
	}
	for (r = 0; r < runs; r++) {
		m.at[r] = r * m.per;
		m.heap[r] = r;
	}
	m.nheap = runs;
	for (r = runs / 2; r-- > 0;)
		sift_down(&m, r);
	while (m.nheap) {
		size_t h = m.heap[0];

		memcpy(out.addr + done * esz, run_head(&m, h), esz);
		done++;
		if (++m.at[h] == run_end(&m, h))
			m.heap[0] = m.heap[--m.nheap];
		sift_down(&m, 0);
		if (++since * esz >= sp->window) {
			/* What was read and written stays in the file. */
			if (in)
				drop(sp, in, in->addr, in->len);
			drop(sp, &out, out.addr, done * esz);
			since = 0;
		}
	}
	free(m.at);
	free(m.heap);
	/*
	 * Back into the array's own place: a sort does not move the array
	 * (callers hold its pointer across a sort, as across qsort).
	 */
	for (r = 0; r < done * esz; r += since) {
		since = done * esz - r < sp->window ? done * esz - r :
			sp->window;
		memcpy(base + r, out.addr + r, since);
		drop(sp, &out, out.addr + r, since);
		if (in)
			drop(sp, in, base + r, since);
	}
	pthread_mutex_lock(&sp->lock);
	rp = region_of(sp, out.off);
	if (rp)
		region_free(sp, rp);
	pthread_mutex_unlock(&sp->lock);
	return 0;
}

int xfsj_spill_sort(struct xfsj_spill *sp, void *base, uint64_t foff,
		    size_t n, size_t esz,
		    int (*cmp)(const void *, const void *))
{
	struct region in, *rp = NULL;
	char *v = base;
	bool big;

	if (n < 2)
		return 0;
	if (!sp) {
		qsort(v, n, esz, cmp);
		return 0;
	}
	pthread_mutex_lock(&sp->lock);
	if (foff != XFSJ_SPILL_RAM) {
		rp = region_of(sp, foff);
		if (rp)
			in = *rp;
	}
	/* In RAM, qsort's own copy of the array counts against the bound. */
	big = rp || over(sp, 0, n * esz);
	pthread_mutex_unlock(&sp->lock);
	if (!big) {
		qsort(v, n, esz, cmp);
		return 0;
	}
	return sort_runs(sp, v, rp ? &in : NULL, n, esz, cmp);
}

bool xfsj_spill_copy_fits(struct xfsj_spill *sp, uint64_t foff,
			  uint64_t bytes)
{
	bool fits;

	if (!sp)
		return true;
	if (foff != XFSJ_SPILL_RAM)
		return false;
	pthread_mutex_lock(&sp->lock);
	fits = !over(sp, 0, bytes);
	pthread_mutex_unlock(&sp->lock);
	return fits;
}

/* ---- the arena ---- */

void xfsj_spill_arena_init(struct xfsj_spill_arena *a)
{
	memset(a, 0, sizeof(*a));
	pthread_mutex_init(&a->lock, NULL);
}

void *xfsj_spill_zalloc(struct xfsj_spill *sp, struct xfsj_spill_arena *a,
			size_t bytes, int *err)
{
	struct xfsj_spill_seg *s;
	char *p = NULL;

	*err = 0;
	bytes = (bytes + 15) & ~(size_t)15;
	if (!bytes || bytes > SEG_BYTES) {
		*err = -XFSJ_E_INVAL;
		return NULL;
	}
	pthread_mutex_lock(&a->lock);
	if (!a->nseg || a->used + bytes > SEG_BYTES) {
		*err = xfsj_grow(&a->seg, &a->capseg, a->nseg, 1,
				 sizeof(*a->seg), 16);
		if (*err)
			goto out;
		s = &a->seg[a->nseg];
		s->p = NULL;
		s->cap = 0;
		s->foff = XFSJ_SPILL_RAM;
		*err = xfsj_spill_grow(sp, &s->p, &s->cap, &s->foff, 0,
				       SEG_BYTES, 1, SEG_BYTES);
		if (*err)
			goto out;
		a->nseg++;
		a->used = 0;
	}
	p = (char *)a->seg[a->nseg - 1].p + a->used;
	a->used += bytes;
	memset(p, 0, bytes);
out:
	pthread_mutex_unlock(&a->lock);
	return p;
}

uint64_t xfsj_spill_arena_bytes(const struct xfsj_spill_arena *a)
{
	return (uint64_t)a->nseg * SEG_BYTES;
}

void xfsj_spill_arena_free(struct xfsj_spill *sp, struct xfsj_spill_arena *a)
{
	size_t i;

	for (i = 0; i < a->nseg; i++)
		xfsj_spill_release(sp, &a->seg[i].p, &a->seg[i].cap,
				   &a->seg[i].foff, 1);
	free(a->seg);
	a->seg = NULL;
	a->nseg = a->capseg = a->used = 0;
	pthread_mutex_destroy(&a->lock);
}

void xfsj_spill_free(struct xfsj_spill *sp)
{
	if (!sp)
		return;
	if (sp->watching) {
		atomic_store(&sp->stop, true);
		pthread_join(sp->watch, NULL);
	}
	while (sp->nreg)
		region_free(sp, &sp->reg[0]);
	if (sp->fd >= 0)
		close(sp->fd);
	free(sp->reg);
	free(sp->dir);
	pthread_mutex_destroy(&sp->lock);
	free(sp);
}
