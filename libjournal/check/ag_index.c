/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Lookups into an AG's tables that a check asks once per record (a fork
 * mapping): each answered in logarithmic time from an index built the
 * first time it is asked, never by a walk of the whole table.
 *
 * - Does one cntbt record hold [s, e)?  The cntbt's records sorted by
 *   start, each with the largest end of the records up to it: the last
 *   record starting at or before s tells whether any reaches e.
 * - Has a table of rmap records (the rmapbt's, or the scan's claims of
 *   metadata) one of owner o over [s, e)?  The records sorted by owner
 *   and start, each with the largest end of its owner's records up to
 *   it: the owner's last record starting before e tells whether any ends
 *   past s.  Records may overlap (reflink), the answer is exact anyway.
 * - The next rmapbt record at or after index i whose owner is metadata:
 *   a walk over the records under a mapping skips the files that share
 *   it (a block reflinked a thousand times has a thousand records).
 *
 * The tables an index is built from no longer change when the inode
 * phase asks: the free space and rmapbt records are read with the AG's
 * btrees, and every claim of a metadata owner is made by the AG phase.
 * The indexes count their bytes in the check's state (xck_vec) and go
 * before the space phase reorders the tables (xck_ag_index_free).
 */
#include <stdlib.h>

#include "check/check_priv.h"

/* The built bits of xck_ag.index_built. */
enum {
	IX_CNT		= 1 << 0,
	IX_RMAP_OWNER	= 1 << 1,
	IX_META_CLAIMS	= 1 << 2,
	IX_RMAP_META	= 1 << 3,
};

static int ensure(struct xck *ck, struct xck_ag *ag, unsigned int bit,
		  int (*build)(struct xck *, struct xck_ag *));

static bool is_meta(uint64_t owner)
{
	return owner >> 63;
}

/* ---- spans by start, with the running largest end ---- */

static int span_by_start(const void *a, const void *b)
{
	const struct xck_span *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static int build_cnt(struct xck *ck, struct xck_ag *ag)
{
	struct xck_span *sp;
	uint64_t max = 0;
	size_t i;
	int err;

	xck_vec_init(&ag->ix_cnt, sizeof(struct xck_span));
	ck->res->work[XFSJ_WK_LOOKUPS] += ag->cnt_free.n;
	for (i = 0; i < ag->cnt_free.n; i++) {
		const struct xfsj_alloc_rec *a = xck_vec_at(&ag->cnt_free, i);
		struct xck_span s = {
			.start = a->startblock,
			.maxend = (uint64_t)a->startblock + a->blockcount,
		};

		err = xck_vec_push(ck, &ag->ix_cnt, &s);
		if (err)
			return err;
	}
	xck_vec_sort(&ag->ix_cnt, span_by_start);
	sp = ag->ix_cnt.v;
	for (i = 0; i < ag->ix_cnt.n; i++) {
		if (sp[i].maxend < max)
			sp[i].maxend = max;
		max = sp[i].maxend;
	}
	return 0;
}

int xck_ix_cnt_holds(struct xck *ck, struct xck_ag *ag, uint32_t s,
		     uint32_t e)
{
	const struct xck_span *sp;
	size_t lo = 0, hi;
	int err;

	ck->res->work[XFSJ_WK_LOOKUPS]++;
	err = ensure(ck, ag, IX_CNT, build_cnt);
	if (err)
		return err;
	sp = ag->ix_cnt.v;
	hi = ag->ix_cnt.n;
	/* The first span starting past s. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (sp[mid].start <= s)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && sp[lo - 1].maxend >= e;
}

/* ---- rmap records by owner and start ---- */

static int owned_cmp(const void *a, const void *b)
{
	const struct xck_owned *x = a, *y = b;

	if (x->owner != y->owner)
		return x->owner < y->owner ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

/* The records of @src (all, or only metadata owners) into @ix. */
static int build_owned(struct xck *ck, struct xck_vec *ix,
		       const struct xck_vec *src, bool meta_only)
{
	struct xck_owned *o;
	size_t i;
	int err;

	xck_vec_init(ix, sizeof(struct xck_owned));
	/*
	 * The claims of metadata are all made before the inode phase asks
	 * (inode claims, which the scan adds meanwhile, are left out): only
	 * those count, so the count is the same whenever it is built.
	 */
	if (!meta_only)
		ck->res->work[XFSJ_WK_LOOKUPS] += src->n;
	for (i = 0; i < src->n; i++) {
		const struct xfsj_rmap_rec *r = xck_vec_at(src, i);
		struct xck_owned x = {
			.owner = r->owner, .start = r->startblock,
			.maxend = (uint64_t)r->startblock + r->blockcount,
		};

		if (meta_only && !is_meta(r->owner))
			continue;
		if (meta_only)
			ck->res->work[XFSJ_WK_LOOKUPS]++;
		err = xck_vec_push(ck, ix, &x);
		if (err)
			return err;
	}
	xck_vec_sort(ix, owned_cmp);
	o = ix->v;
	for (i = 1; i < ix->n; i++)
		if (o[i].owner == o[i - 1].owner &&
		    o[i].maxend < o[i - 1].maxend)
			o[i].maxend = o[i - 1].maxend;
	return 0;
}

static bool owned_over(const struct xck_vec *ix, uint64_t owner, uint32_t s,
		       uint32_t e)
{
	const struct xck_owned *o = ix->v;
	size_t lo = 0, hi = ix->n;

	/* The first record past (owner, start < e). */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (o[mid].owner < owner ||
		    (o[mid].owner == owner && o[mid].start < e))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && o[lo - 1].owner == owner && o[lo - 1].maxend > s;
}

static int build_rmap_owner(struct xck *ck, struct xck_ag *ag)
{
	return build_owned(ck, &ag->ix_rmap_owner, &ag->rmaps, false);
}

static int build_meta_claims(struct xck *ck, struct xck_ag *ag)
{
	return build_owned(ck, &ag->ix_meta_claims, &ag->claims, true);
}

static int build_rmap_meta(struct xck *ck, struct xck_ag *ag)
{
	uint32_t *nx, at;
	size_t i;
	int err;

	xck_vec_init(&ag->ix_rmap_meta, sizeof(uint32_t));
	ck->res->work[XFSJ_WK_LOOKUPS] += ag->rmaps.n;
	/* One more than the records: the end's own entry. */
	for (i = 0; i <= ag->rmaps.n; i++) {
		at = (uint32_t)ag->rmaps.n;
		err = xck_vec_push(ck, &ag->ix_rmap_meta, &at);
		if (err)
			return err;
	}
	nx = ag->ix_rmap_meta.v;
	for (i = ag->rmaps.n; i-- > 0;) {
		const struct xfsj_rmap_rec *r = xck_vec_at(&ag->rmaps, i);

		nx[i] = is_meta(r->owner) ? (uint32_t)i : nx[i + 1];
	}
	return 0;
}

/*
 * Build index @bit of @ag with @build unless it is built.  While the
 * inode phase runs on several threads (parallel.c), one builds it under
 * the check's lock and the others find it built; the bit is set once
 * the index is whole (or its build failed, so that it is freed).
 */
static int ensure(struct xck *ck, struct xck_ag *ag, unsigned int bit,
		  int (*build)(struct xck *, struct xck_ag *))
{
	int err = 0;

	if (__atomic_load_n(&ag->index_built, __ATOMIC_ACQUIRE) & bit)
		return 0;
	if (ck->ix_lock)
		pthread_mutex_lock(ck->ix_lock);
	if (!(ag->index_built & bit)) {
		err = build(ck, ag);
		__atomic_fetch_or(&ag->index_built, bit, __ATOMIC_RELEASE);
	}
	if (ck->ix_lock)
		pthread_mutex_unlock(ck->ix_lock);
	return err;
}

int xck_ix_rmap_owner_over(struct xck *ck, struct xck_ag *ag, uint64_t owner,
			   uint32_t s, uint32_t e)
{
	int err;

	ck->res->work[XFSJ_WK_LOOKUPS]++;
	err = ensure(ck, ag, IX_RMAP_OWNER, build_rmap_owner);
	if (err)
		return err;
	return owned_over(&ag->ix_rmap_owner, owner, s, e);
}

int xck_ix_meta_claim_over(struct xck *ck, struct xck_ag *ag, uint64_t owner,
			   uint32_t s, uint32_t e)
{
	int err;

	ck->res->work[XFSJ_WK_LOOKUPS]++;
	if (!is_meta(owner))
		return 0;
	err = ensure(ck, ag, IX_META_CLAIMS, build_meta_claims);
	if (err)
		return err;
	return owned_over(&ag->ix_meta_claims, owner, s, e);
}

/* ---- the next metadata record of the rmapbt ---- */

int xck_ix_rmap_next_meta(struct xck *ck, struct xck_ag *ag,
			  const uint32_t **next)
{
	int err = ensure(ck, ag, IX_RMAP_META, build_rmap_meta);

	if (err)
		return err;
	*next = ag->ix_rmap_meta.v;
	return 0;
}

void xck_ag_index_free(struct xck *ck, struct xck_ag *ag)
{
	if (ag->index_built & IX_CNT)
		xck_vec_free(ck, &ag->ix_cnt);
	if (ag->index_built & IX_RMAP_OWNER)
		xck_vec_free(ck, &ag->ix_rmap_owner);
	if (ag->index_built & IX_META_CLAIMS)
		xck_vec_free(ck, &ag->ix_meta_claims);
	if (ag->index_built & IX_RMAP_META)
		xck_vec_free(ck, &ag->ix_rmap_meta);
	ag->index_built = 0;
}
