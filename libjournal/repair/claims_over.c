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

#include "repair/repair_priv.h"

void xrp_claims_ix_free(struct xrp *rp)
{
	if (rp->claims_ix) {
		for (uint32_t a = 0; a < rp->claims_ix_n; a++)
			free(rp->claims_ix[a].maxend);
		free(rp->claims_ix);
	}
	rp->claims_ix = NULL;
	rp->claims_ix_n = 0;
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
