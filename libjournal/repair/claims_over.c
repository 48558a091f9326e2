/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Which records of an AG lie over a range of its blocks, in the check's
 * claims (every use of a block the scan saw) or in its copy of the
 * rmapbt: the fixes that ask it once per range, mapping or block (the
 * claims over a range claimed twice, who else holds a block a rebuilt
 * bmbt would reuse, whether the rmapbt gives a mapping's blocks to
 * another owner).  A scan of the AG's whole table per question made a
 * repair of many damaged forks quadratic.  Both tables are sorted by
 * start block (the claims by space.c, the rmapbt by its own key order);
 * over that order the largest end of the records up to each one never
 * decreases, so the records over [s, e) all lie between the first whose
 * running end passes s and the first that starts at e or later: two
 * binary searches, then only the records in between.
 *
 * The first XRP_NAMING_SCANS questions a round asks of a table scan it
 * (a repair of one damaged fork builds nothing: its peak memory does not
 * grow); past them the table's running ends are built, 4 bytes a
 * record, and dropped with the check they were made from
 * (xrp_claims_ix_free).  Either way the records come in table order.  A
 * table found out of order, or no memory for its ends, and it is scanned
 * every time.
 */
#include <stdlib.h>

#include "core/radix_sort.h"
#include "fs/iget.h"
#include "repair/repair_priv.h"

void xrp_claims_ix_free(struct xrp *rp)
{
	if (rp->claims_ix) {
		for (size_t a = 0; a < rp->claims_ix_n; a++)
			free(rp->claims_ix[a].maxend);
		free(rp->claims_ix);
	}
	rp->claims_ix = NULL;
	rp->claims_ix_n = 0;
	for (int t = 0; t < XRP_TAB__N; t++) {
		free(rp->by_owner[t].v);
		rp->by_owner[t] = (struct xrp_by_owner){ 0 };
	}
}

/* A claim's end, clamped (an AG has fewer than 2^31 blocks). */
static uint32_t end_of(const struct xfsj_rmap_rec *c)
{
	uint64_t e = (uint64_t)c->startblock + c->blockcount;

	return e > UINT32_MAX ? UINT32_MAX : (uint32_t)e;
}

static const struct xck_vec *table(const struct xck_ag *ag,
				   enum xrp_rec_table t)
{
	return t == XRP_TAB_RMAPS ? &ag->rmaps : &ag->claims;
}

/* Table @v's running ends, when sorted and there is memory for them
 * (else it is scanned). */
static void build(struct xrp_claims_ix *x, const struct xck_vec *v)
{
	const struct xfsj_rmap_rec *c = v->v;
	uint32_t run = 0;

	x->built = true;
	for (size_t i = 1; i < v->n; i++)
		if (c[i].startblock < c[i - 1].startblock)
			return;
	x->maxend = malloc(v->n ? v->n * sizeof(uint32_t) : 1);
	if (!x->maxend)
		return;
	for (size_t i = 0; i < v->n; i++) {
		uint32_t e = end_of(&c[i]);

		if (e > run)
			run = e;
		x->maxend[i] = run;
	}
	x->n = v->n;
}

/* The index of table @t of @ag when it is worth having (NULL: scan). */
static struct xrp_claims_ix *index_of(struct xrp *rp, const struct xck_ag *ag,
				      enum xrp_rec_table t)
{
	const struct xck_vec *v = table(ag, t);
	struct xrp_claims_ix *x;

	if (!rp->claims_ix) {
		size_t n = (size_t)rp->ck->agcount * XRP_TAB__N;

		rp->claims_ix = calloc(n ? n : 1, sizeof(*rp->claims_ix));
		if (!rp->claims_ix)
			return NULL;
		rp->claims_ix_n = n;
	}
	if ((size_t)ag->agno * XRP_TAB__N + t >= rp->claims_ix_n)
		return NULL;
	x = &rp->claims_ix[(size_t)ag->agno * XRP_TAB__N + t];
	if (!x->built && x->scans < XRP_NAMING_SCANS) {
		x->scans++;
		return NULL;
	}
	if (!x->built)
		build(x, v);
	return x->maxend && x->n == v->n ? x : NULL;
}

int xrp_recs_over(struct xrp *rp, const struct xck_ag *ag,
		  enum xrp_rec_table t, uint64_t s, uint64_t e,
		  const struct xrp_claims_cb *cb)
{
	const struct xck_vec *v = table(ag, t);
	const struct xfsj_rmap_rec *c = v->v;
	struct xrp_claims_ix *x = index_of(rp, ag, t);
	size_t lo = 0, hi = v->n;
	int err;

	if (s >= e)
		return 0;
	if (x) {
		size_t a = 0, b = hi;

		/* the first whose running end passes s */
		while (a < b) {
			size_t mid = a + (b - a) / 2;

			if (x->maxend[mid] <= s)
				a = mid + 1;
			else
				b = mid;
		}
		lo = a;
		/* the first that starts at e or later */
		for (b = hi; a < b; ) {
			size_t mid = a + (b - a) / 2;

			if (c[mid].startblock < e)
				a = mid + 1;
			else
				b = mid;
		}
		hi = a;
	}
	for (size_t i = lo; i < hi; i++) {
		if (!xrp_claim_over(&c[i], s, e))
			continue;
		err = cb->fn(cb->arg, &c[i]);
		if (err)
			return err;
	}
	return 0;
}

/* ---- the records of one owner ---- */

/*
 * The fixes that ask once per fork rebuilt for the records of its inode
 * (the rmapbt's mappings of the fork, the blocks of the other fork) ask
 * here: the first XRP_NAMING_SCANS questions of a round to a table scan
 * every AG's; then one copy of (owner, AG, index) for every record,
 * sorted by owner (16 bytes a record), answers by binary search.  Either
 * way the records come by AG, then in table order.
 */
struct owned_at {
	uint64_t owner;
	uint64_t at;		/* agno << 32 | index in the AG's table */
};

static uint64_t key_owner(const void *p)
{
	return ((const struct owned_at *)p)->owner;
}

static uint64_t key_at(const void *p)
{
	return ((const struct owned_at *)p)->at;
}

static void owners_build(struct xrp *rp, enum xrp_rec_table t)
{
	static const xfsj_sort_key keys[] = { key_owner, key_at };
	struct xrp_by_owner *bo = &rp->by_owner[t];
	struct owned_at *v;
	size_t n = 0, k = 0;

	bo->built = true;
	for (uint32_t a = 0; a < rp->ck->agcount; a++)
		n += table(&rp->ck->ags[a], t)->n;
	v = malloc(n ? n * sizeof(*v) : 1);
	if (!v)
		return;		/* scanned every time */
	for (uint32_t a = 0; a < rp->ck->agcount; a++) {
		const struct xck_vec *tv = table(&rp->ck->ags[a], t);
		const struct xfsj_rmap_rec *c = tv->v;

		for (size_t i = 0; i < tv->n; i++)
			v[k++] = (struct owned_at){ c[i].owner,
						    (uint64_t)a << 32 | i };
	}
	if (xfsj_radix_sort(v, n, sizeof(*v), keys, 2)) {
		free(v);
		return;
	}
	bo->v = v;
	bo->n = n;
}

int xrp_recs_of(struct xrp *rp, enum xrp_rec_table t, uint64_t owner,
		const struct xrp_owned_cb *cb)
{
	struct xrp_by_owner *bo = &rp->by_owner[t];
	const struct owned_at *v;
	size_t lo = 0, hi;
	int err;

	if (!bo->built && bo->scans < XRP_NAMING_SCANS) {
		bo->scans++;
	} else if (!bo->built) {
		owners_build(rp, t);
	}
	if (!bo->v) {
		for (uint32_t a = 0; a < rp->ck->agcount; a++) {
			const struct xck_vec *tv = table(&rp->ck->ags[a], t);
			const struct xfsj_rmap_rec *c = tv->v;

			for (size_t i = 0; i < tv->n; i++) {
				if (c[i].owner != owner)
					continue;
				err = cb->fn(cb->arg, a, &c[i]);
				if (err)
					return err;
			}
		}
		return 0;
	}
	v = bo->v;
	for (hi = bo->n; lo < hi; ) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid].owner < owner)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < bo->n && v[lo].owner == owner; lo++) {
		uint32_t a = (uint32_t)(v[lo].at >> 32);
		const struct xck_vec *tv;

		if (a >= rp->ck->agcount)
			break;
		tv = table(&rp->ck->ags[a], t);
		if ((uint32_t)v[lo].at >= tv->n)
			break;
		err = cb->fn(cb->arg, a, (const struct xfsj_rmap_rec *)tv->v +
				 (uint32_t)v[lo].at);
		if (err)
			return err;
	}
	return 0;
}

size_t xrp_refc_from(const struct xck_ag *ag, uint64_t s)
{
	size_t lo = 0, hi = ag->refcs.n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct xfsj_refc_rec *r = xck_vec_at(&ag->refcs, mid);

		if ((uint64_t)r->startblock + r->blockcount <= s)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* ---- a fork that shares a block with another claim ---- */

struct crossed {
	struct xrp *rp;
	uint64_t ino;
	bool attr;
};

static bool fork_is(const struct xfsj_rmap_rec *r, bool attr)
{
	return !(r->offset & XFSJ_RMAP_OFF_ATTR_FORK) == !attr;
}

/* A claim over the fork's record that is not the fork's own. */
static int not_own(void *arg, const struct xfsj_rmap_rec *r)
{
	const struct crossed *x = arg;

	return r->owner != x->ino || !fork_is(r, x->attr);
}

static int own_rec(void *arg, uint32_t agno, const struct xfsj_rmap_rec *r)
{
	struct crossed *x = arg;

	if (!fork_is(r, x->attr) || agno >= x->rp->ck->agcount)
		return 0;
	return xrp_recs_over(x->rp, &x->rp->ck->ags[agno], XRP_TAB_CLAIMS,
			     r->startblock,
			     (uint64_t)r->startblock + r->blockcount,
			     &(struct xrp_claims_cb){ not_own, x }) != 0;
}

bool xrp_fork_crosslinked(struct xrp *rp, uint64_t ino, int whichfork)
{
	struct crossed x = { rp, ino, whichfork == XFSJ_ATTR_FORK };

	return xrp_recs_of(rp, XRP_TAB_CLAIMS, ino,
			   &(struct xrp_owned_cb){ own_rec, &x }) != 0;
}

bool xrp_keep_old_blocks(struct xrp *rp, uint64_t ino, int whichfork)
{
	return !xck_ags_trusted(rp->ck, XCK_TRUST_FREE) ||
	       xrp_fork_crosslinked(rp, ino, whichfork);
}
