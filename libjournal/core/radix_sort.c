/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The sort of radix_sort.h.  By the first key, least significant byte
 * first: each pass a stable counting sort into a scratch copy and back.
 * One counting pass finds the histograms of all eight bytes; a byte that
 * every record holds alike moves nothing and is skipped (the high bytes
 * of inode and block numbers, usually).  Then each run of records equal
 * in the first key is sorted the same way by the keys after it, and a
 * short run by a stable insertion sort.  Every step is stable, so the
 * order is that of a stable sort comparing the keys in turn.
 *
 * On threads (a large table and more than one asked): the records cut in
 * one contiguous share per thread; each pass counts every share's bytes,
 * then each share scatters its records from where the shares before it
 * end in each bucket, which is where one thread would put them.  The
 * runs tied in the first key, cut at run bounds, are sorted a share per
 * thread, each in its own part of the scratch copy.  The same order
 * whatever the number of threads.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/jobs.h"
#include "core/radix_sort.h"
#include "xfsj/errors.h"

#define SHORT_INPUT 64
#define PAR_MIN 8192		/* fewer records: one thread */
#define THREADS_MAX XFSJ_JOBS_THREADS_MAX

static int keys_cmp(const void *a, const void *b, const xfsj_sort_key *keys,
		    size_t nkeys)
{
	for (size_t k = 0; k < nkeys; k++) {
		uint64_t x = keys[k](a), y = keys[k](b);

		if (x != y)
			return x < y ? -1 : 1;
	}
	return 0;
}

static void insertion_sort(char *base, size_t n, size_t esz,
			   const xfsj_sort_key *keys, size_t nkeys, char *tmp)
{
	for (size_t i = 1; i < n; i++) {
		size_t j = i;

		if (keys_cmp(base + (i - 1) * esz, base + i * esz, keys,
			     nkeys) <= 0)
			continue;
		memcpy(tmp, base + i * esz, esz);
		while (j > 0 && keys_cmp(base + (j - 1) * esz, tmp, keys,
					 nkeys) > 0)
			j--;
		memmove(base + (j + 1) * esz, base + j * esz, (i - j) * esz);
		memcpy(base + j * esz, tmp, esz);
	}
}

/* Copy one record: word by word when the size allows (most tables). */
static inline void copy_rec(char *dst, const char *src, size_t esz)
{
	if (esz % 8 == 0) {
		for (size_t w = 0; w < esz; w += 8)
			memcpy(dst + w, src + w, 8);
	} else {
		memcpy(dst, src, esz);
	}
}

/* One stable counting pass of @src into @dst by byte @byte of @key. */
static void scatter(const char *src, char *dst, size_t n, size_t esz,
		    xfsj_sort_key key, unsigned int byte, const size_t *count)
{
	size_t at[256], sum = 0;
	unsigned int shift = byte * 8;

	for (unsigned int b = 0; b < 256; b++) {
		at[b] = sum;
		sum += count[b];
	}
	for (size_t i = 0; i < n; i++) {
		const char *r = src + i * esz;
		unsigned int b = (unsigned int)(key(r) >> shift) & 0xff;

		copy_rec(dst + at[b]++ * esz, r, esz);
	}
}

/*
 * Sort @base by @keys[0] alone, LSD (the records in @base at the end),
 * with @tmp of n * @esz bytes.
 */
static void lsd_by_key(char *base, size_t n, size_t esz, xfsj_sort_key key,
		       char *tmp, size_t (*count)[256])
{
	char *src = base, *dst = tmp, *t;

	memset(count, 0, 8 * sizeof(*count));
	for (size_t i = 0; i < n; i++) {
		uint64_t v = key(src + i * esz);

		for (unsigned int b = 0; b < 8; b++)
			count[b][(v >> (b * 8)) & 0xff]++;
	}
	for (unsigned int b = 0; b < 8; b++) {
		/* Every record holds the same byte: nothing moves. */
		if (count[b][(key(src) >> (b * 8)) & 0xff] == n)
			continue;
		scatter(src, dst, n, esz, key, b, count[b]);
		t = src;
		src = dst;
		dst = t;
	}
	if (src != base)
		memcpy(base, src, n * esz);
}

/*
 * By the first key, then each run of records equal in it by the keys
 * after it: the passes over the later keys touch only the records that
 * tie, which are few in most tables (entries naming one inode).
 */
static void sort_keys(char *base, size_t n, size_t esz,
		      const xfsj_sort_key *keys, size_t nkeys, char *tmp,
		      size_t (*count)[256])
{
	size_t i, j;

	if (n <= SHORT_INPUT) {
		insertion_sort(base, n, esz, keys, nkeys, tmp);
		return;
	}
	lsd_by_key(base, n, esz, keys[0], tmp, count);
	if (nkeys == 1)
		return;
	for (i = 0; i < n; i = j) {
		uint64_t v = keys[0](base + i * esz);

		for (j = i + 1; j < n && keys[0](base + j * esz) == v; j++)
			;
		if (j - i > 1)
			sort_keys(base + i * esz, j - i, esz, keys + 1,
				  nkeys - 1, tmp, count);
	}
}

/* ---- on threads ---- */

enum par_step { STEP_COUNT_ALL, STEP_COUNT, STEP_SCATTER, STEP_COPY,
		STEP_RUNS };

struct par_sort {
	char *base, *tmp, *src, *dst;
	size_t n, esz;
	const xfsj_sort_key *keys;
	size_t nkeys;
	unsigned int byte;
	enum par_step step;
};

struct par_share {
	struct par_sort *ps;
	size_t from, to;
	size_t at[256];
	size_t count[8][256];
};

static void count_bytes(const char *src, size_t from, size_t to, size_t esz,
			xfsj_sort_key key, unsigned int first,
			unsigned int last, size_t (*count)[256])
{
	memset(count[first], 0, (last - first + 1) * sizeof(*count));
	for (size_t i = from; i < to; i++) {
		uint64_t v = key(src + i * esz);

		for (unsigned int b = first; b <= last; b++)
			count[b][(v >> (b * 8)) & 0xff]++;
	}
}

static void step_count_all(struct par_share *sh)
{
	struct par_sort *ps = sh->ps;

	count_bytes(ps->src, sh->from, sh->to, ps->esz, ps->keys[0], 0, 7,
		    sh->count);
}

static void step_count(struct par_share *sh)
{
	struct par_sort *ps = sh->ps;

	count_bytes(ps->src, sh->from, sh->to, ps->esz, ps->keys[0],
		    ps->byte, ps->byte, sh->count);
}

static void step_scatter(struct par_share *sh)
{
	struct par_sort *ps = sh->ps;
	unsigned int shift = ps->byte * 8;
	size_t esz = ps->esz;

	for (size_t i = sh->from; i < sh->to; i++) {
		const char *r = ps->src + i * esz;
		unsigned int b = (unsigned int)(ps->keys[0](r) >> shift) &
				 0xff;

		copy_rec(ps->dst + sh->at[b]++ * esz, r, esz);
	}
}

static void step_copy(struct par_share *sh)
{
	struct par_sort *ps = sh->ps;

	memcpy(ps->base + sh->from * ps->esz, ps->src + sh->from * ps->esz,
	       (sh->to - sh->from) * ps->esz);
}

/* The runs tied in the first key, each in its own part of the scratch. */
static void step_runs(struct par_share *sh)
{
	struct par_sort *ps = sh->ps;
	size_t esz = ps->esz, i, j;

	for (i = sh->from; i < sh->to; i = j) {
		uint64_t v = ps->keys[0](ps->base + i * esz);

		for (j = i + 1; j < sh->to &&
		     ps->keys[0](ps->base + j * esz) == v; j++)
			;
		if (j - i > 1)
			sort_keys(ps->base + i * esz, j - i, esz, ps->keys + 1,
				  ps->nkeys - 1, ps->tmp + i * esz, sh->count);
	}
}

static void (*const steps[])(struct par_share *) = {
	[STEP_COUNT_ALL] = step_count_all,
	[STEP_COUNT] = step_count,
	[STEP_SCATTER] = step_scatter,
	[STEP_COPY] = step_copy,
	[STEP_RUNS] = step_runs,
};

static void *share_run(void *arg)
{
	struct par_share *sh = arg;

	steps[sh->ps->step](sh);
	return NULL;
}

/* Run @step on every share, side by side (jobs.h). */
static void run_shares(struct par_sort *ps, struct par_share *sh,
		       unsigned int t, enum par_step step)
{
	ps->step = step;
	xfsj_run_jobs(share_run, sh, sizeof(*sh), t);
}

static void cut_even(struct par_share *sh, unsigned int t, size_t n)
{
	for (unsigned int k = 0; k < t; k++) {
		sh[k].from = n / t * k;
		sh[k].to = k + 1 == t ? n : n / t * (k + 1);
	}
}

/* Cut at the bounds of the runs of records equal in the first key. */
static void cut_runs(struct par_sort *ps, struct par_share *sh,
		     unsigned int t)
{
	size_t at = 0, esz = ps->esz;

	for (unsigned int k = 0; k < t; k++) {
		size_t end = k + 1 == t ? ps->n : ps->n / t * (k + 1);

		if (end < at)
			end = at;
		while (end < ps->n && end > 0 &&
		       ps->keys[0](ps->base + end * esz) ==
		       ps->keys[0](ps->base + (end - 1) * esz))
			end++;
		sh[k].from = at;
		sh[k].to = end;
		at = end;
	}
}

static void sort_threads(struct par_sort *ps, struct par_share *sh,
			 unsigned int t)
{
	size_t n = ps->n;
	bool counted = true;
	char *swap;

	ps->src = ps->base;
	ps->dst = ps->tmp;
	cut_even(sh, t, n);
	run_shares(ps, sh, t, STEP_COUNT_ALL);
	for (unsigned int b = 0; b < 8; b++) {
		unsigned int first = (unsigned int)(ps->keys[0](ps->src) >>
						    (b * 8)) & 0xff;
		size_t total = 0, sum = 0;

		for (unsigned int k = 0; k < t; k++)
			total += sh[k].count[b][first];
		/* Every record holds the same byte: nothing moves. */
		if (total == n)
			continue;
		ps->byte = b;
		if (!counted)
			run_shares(ps, sh, t, STEP_COUNT);
		counted = false;
		for (unsigned int v = 0; v < 256; v++)
			for (unsigned int k = 0; k < t; k++) {
				sh[k].at[v] = sum;
				sum += sh[k].count[b][v];
			}
		run_shares(ps, sh, t, STEP_SCATTER);
		swap = ps->src;
		ps->src = ps->dst;
		ps->dst = swap;
	}
	if (ps->src != ps->base)
		run_shares(ps, sh, t, STEP_COPY);
	if (ps->nkeys == 1)
		return;
	cut_runs(ps, sh, t);
	run_shares(ps, sh, t, STEP_RUNS);
}

int xfsj_radix_sort_threads(void *base, size_t n, size_t esz,
			    const xfsj_sort_key *keys, size_t nkeys,
			    unsigned int threads)
{
	struct par_sort ps = { .base = base, .n = n, .esz = esz,
			       .keys = keys, .nkeys = nkeys };
	struct par_share *sh = NULL;
	size_t (*count)[256] = NULL;
	unsigned int t = threads > THREADS_MAX ? THREADS_MAX : threads;
	char *tmp;

	if (n < 2 || !nkeys || !esz)
		return 0;
	if (n > SIZE_MAX / esz)
		return -XFSJ_E_NOMEM;
	if (n < PAR_MIN)
		t = 1;
	tmp = malloc(n * esz);
	if (t > 1)
		sh = calloc(t, sizeof(*sh));
	else
		count = malloc(8 * sizeof(*count));
	if (!tmp || (t > 1 ? !sh : !count)) {
		free(tmp);
		free(sh);
		free(count);
		return -XFSJ_E_NOMEM;
	}
	if (t > 1) {
		ps.tmp = tmp;
		for (unsigned int k = 0; k < t; k++)
			sh[k].ps = &ps;
		sort_threads(&ps, sh, t);
	} else {
		sort_keys(base, n, esz, keys, nkeys, tmp, count);
	}
	free(tmp);
	free(sh);
	free(count);
	return 0;
}

int xfsj_radix_sort(void *base, size_t n, size_t esz,
		    const xfsj_sort_key *keys, size_t nkeys)
{
	return xfsj_radix_sort_threads(base, n, esz, keys, nkeys, 1);
}
