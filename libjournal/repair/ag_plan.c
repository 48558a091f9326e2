/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The records and blocks of an AG being rebuilt (ag_rebuild.h): which
 * blocks stay used (the kept claims), the free extents left, the blocks
 * the new trees take, and the records each new tree holds.
 *
 * The new trees' blocks come out of the free space before the free-space
 * records are final, so the counts are settled by iterating: take the
 * blocks the trees need, count the records that leaves, compute the
 * blocks again, until the two agree (xfs_repair does the same).  Blocks
 * are cut from the start of the largest free extent, which leaves the
 * number of free extents the same or one less.
 */
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"
#include "fs/alloc.h"
#include "ondisk/rmap_merge.h"
#include "repair/ag_rebuild.h"

#define PLAN_ROUNDS	24

static bool own_inode(uint64_t owner)
{
	return !(owner & XFSJ_RMAP_OWN_NON_INODE);
}

static int rmap_key_cmp(const struct xfsj_rmap_rec *a,
			const struct xfsj_rmap_rec *b)
{
	if (a->startblock != b->startblock)
		return a->startblock < b->startblock ? -1 : 1;
	if (a->owner != b->owner)
		return a->owner < b->owner ? -1 : 1;
	if (a->offset != b->offset)
		return a->offset < b->offset ? -1 : 1;
	return 0;
}

static int rmap_qcmp(const void *a, const void *b)
{
	return rmap_key_cmp(a, b);
}

/*
 * Sorted by key, then merged: records of one owner that continue each
 * other become one.  Merging needs the neighbour of the same owner, which
 * may not be the record just before in key order (a shared extent), so
 * each record looks back over those that start where it could join.
 */
static size_t rmap_merge(struct xfsj_rmap_rec *r, size_t n)
{
	size_t i, out = 0;

	qsort(r, n, sizeof(*r), rmap_qcmp);
	for (i = 0; i < n; i++) {
		size_t k = out;
		bool joined = false;

		while (k > 0) {
			struct xfsj_rmap_rec *p = &r[k - 1];

			if (xfsj_rmap_continues(p, &r[i])) {
				p->blockcount += r[i].blockcount;
				joined = true;
				break;
			}
			/* Only a record ending exactly here can join. */
			if (out - k > 64)
				break;
			k--;
		}
		if (!joined)
			r[out++] = r[i];
	}
	/* Joining may have made a record end past its successor's start:
	 * sort again (the order of starts is kept, lengths changed). */
	qsort(r, out, sizeof(*r), rmap_qcmp);
	return out;
}

/* ---- the kept claims ---- */

static bool dropped(const struct xrp_agplan *pl, uint64_t owner)
{
	if (owner == XFSJ_RMAP_OWN_AG)
		return true;
	if (owner == XFSJ_RMAP_OWN_INOBT)
		return pl->rebuild[XFSJ_BT_INO];
	if (owner == XFSJ_RMAP_OWN_REFC || owner == XFSJ_RMAP_OWN_COW)
		return pl->rebuild[XFSJ_BT_REFC];
	return false;
}

static int push_rmap(struct xfsj_rmap_rec **v, size_t *n, size_t *cap,
		     const struct xfsj_rmap_rec *r)
{
	if (xfsj_grow(v, cap, *n, 1, sizeof(**v), 64))
		return -XFSJ_E_NOMEM;
	(*v)[(*n)++] = *r;
	return 0;
}

static int keep_claims(struct xrp_agplan *pl)
{
	const struct xck_vec *cl = &pl->ag->claims;
	size_t cap = 0;
	int err;

	for (size_t i = 0; i < cl->n; i++) {
		struct xfsj_rmap_rec r = *(struct xfsj_rmap_rec *)xck_vec_at(cl,
									     i);

		if (dropped(pl, r.owner) || !r.blockcount ||
		    r.startblock >= pl->agblocks)
			continue;
		if (r.blockcount > pl->agblocks - r.startblock)
			r.blockcount = pl->agblocks - r.startblock;
		err = push_rmap(&pl->kept, &pl->nkept, &cap, &r);
		if (err)
			return err;
	}
	qsort(pl->kept, pl->nkept, sizeof(*pl->kept), rmap_qcmp);
	return 0;
}

/* The blocks no kept claim covers, by start. */
static int base_free(struct xrp_agplan *pl)
{
	uint32_t pos = pl->hdrblocks;
	size_t cap = 0;

	for (size_t i = 0; i <= pl->nkept; i++) {
		uint32_t s = i < pl->nkept ? pl->kept[i].startblock :
			     pl->agblocks;
		uint32_t e = i < pl->nkept ? s + pl->kept[i].blockcount :
			     pl->agblocks;

		if (s > pos) {
			if (xfsj_grow(&pl->base, &cap, pl->nbase, 1,
				      sizeof(*pl->base), 64))
				return -XFSJ_E_NOMEM;
			pl->base[pl->nbase++] = (struct xfsj_alloc_rec){
				pos, s - pos };
		}
		if (e > pos)
			pos = e;
	}
	return 0;
}

/* ---- the refcountbt from the data extents that overlap ---- */

struct edge {
	uint32_t at;
	int delta;
};

static int edge_cmp(const void *a, const void *b)
{
	const struct edge *x = a, *y = b;

	if (x->at != y->at)
		return x->at < y->at ? -1 : 1;
	return x->delta - y->delta;
}

static int refc_records(struct xrp_agplan *pl)
{
	struct edge *e;
	size_t ne = 0, cap = 0;
	uint32_t depth = 0;

	e = malloc((2 * pl->nkept + 1) * sizeof(*e));
	if (!e)
		return -XFSJ_E_NOMEM;
	for (size_t i = 0; i < pl->nkept; i++) {
		const struct xfsj_rmap_rec *r = &pl->kept[i];

		/* (unwritten blocks are not counted as shared, as the
		 * check counts them) */
		if (!own_inode(r->owner) || (r->offset &
		    (XFSJ_RMAP_OFF_ATTR_FORK | XFSJ_RMAP_OFF_BMBT_BLOCK |
		     XFSJ_RMAP_OFF_UNWRITTEN)))
			continue;
		e[ne++] = (struct edge){ r->startblock, 1 };
		e[ne++] = (struct edge){ r->startblock + r->blockcount, -1 };
	}
	qsort(e, ne, sizeof(*e), edge_cmp);
	for (size_t i = 0; i < ne;) {
		uint32_t at = e[i].at, next;

		while (i < ne && e[i].at == at)
			depth = (uint32_t)((int)depth + e[i++].delta);
		if (i >= ne || depth < 2)
			continue;
		next = e[i].at;
		if (pl->nrefc && pl->refc[pl->nrefc - 1].refcount == depth &&
		    pl->refc[pl->nrefc - 1].startblock +
		    pl->refc[pl->nrefc - 1].blockcount == at) {
			pl->refc[pl->nrefc - 1].blockcount += next - at;
			continue;
		}
		if (xfsj_grow(&pl->refc, &cap, pl->nrefc, 1, sizeof(*pl->refc),
			      32)) {
			free(e);
			return -XFSJ_E_NOMEM;
		}
		pl->refc[pl->nrefc++] = (struct xfsj_refc_rec){ at, next - at,
								depth };
	}
	free(e);
	return 0;
}

/* ---- the inobt and finobt from the kept chunks ---- */

static void chunk_rec(const struct xck_chunk *c, bool sparse,
		      struct xfsj_inobt_rec *out)
{
	struct xfsj_inobt_rec r = c->rec;
	unsigned int holes = 0, nfree = 0;

	if (!sparse)
		r.holemask = 0;
	for (unsigned int i = 0; i < XFSJ_INODES_PER_CHUNK; i++) {
		uint64_t bit = 1ULL << i;

		if (r.holemask & (1U << (i / XFSJ_INODES_PER_HOLEMASK_BIT))) {
			r.free |= bit;
			holes++;
			continue;
		}
		if (c->ino) {
			if (c->ino[i].flags & XCK_I_INUSE)
				r.free &= ~bit;
			else
				r.free |= bit;
		}
		if (r.free & bit)
			nfree++;
	}
	r.count = (uint8_t)(XFSJ_INODES_PER_CHUNK - holes);
	r.freecount = nfree;
	*out = r;
}

static int inobt_records(struct xrp_agplan *pl)
{
	const struct xck_vec *ch = &pl->ag->chunks;
	bool sparse = xfsj_fs_has_incompat(pl->fs, XFSJ_INCOMPAT_SPINODES);

	pl->ino = calloc(ch->n + 1, sizeof(*pl->ino));
	pl->fino = calloc(ch->n + 1, sizeof(*pl->fino));
	if (!pl->ino || !pl->fino)
		return -XFSJ_E_NOMEM;
	for (size_t i = 0; i < ch->n; i++) {
		struct xfsj_inobt_rec *r = &pl->ino[pl->nino++];

		chunk_rec(xck_vec_at(ch, i), sparse, r);
		pl->icount += r->count;
		pl->ifree += r->freecount;
		if (r->freecount)
			pl->fino[pl->nfino++] = *r;
	}
	return 0;
}

/* ---- the blocks of the new trees ---- */

static const uint64_t tree_owner[XFSJ_BT__COUNT] = {
	[XFSJ_BT_BNO] = XFSJ_RMAP_OWN_AG,
	[XFSJ_BT_CNT] = XFSJ_RMAP_OWN_AG,
	[XFSJ_BT_INO] = XFSJ_RMAP_OWN_INOBT,
	[XFSJ_BT_FINO] = XFSJ_RMAP_OWN_INOBT,
	[XFSJ_BT_RMAP] = XFSJ_RMAP_OWN_AG,
	[XFSJ_BT_REFC] = XFSJ_RMAP_OWN_REFC,
};

/* Cut @want blocks from the free extents; the blocks go to pl->take. */
static void carve(struct xrp_agplan *pl, uint64_t want)
{
	memcpy(pl->free, pl->base, pl->nbase * sizeof(*pl->free));
	pl->nfree = pl->nbase;
	pl->ntake = 0;
	while (want) {
		size_t best = pl->nfree;
		uint32_t n;

		for (size_t i = 0; i < pl->nfree; i++)
			if (pl->free[i].blockcount && (best == pl->nfree ||
			    pl->free[i].blockcount > pl->free[best].blockcount))
				best = i;
		if (best == pl->nfree)
			return;
		n = pl->free[best].blockcount < want ?
		    pl->free[best].blockcount : (uint32_t)want;
		for (uint32_t k = 0; k < n; k++)
			pl->take[pl->ntake++] = pl->free[best].startblock + k;
		pl->free[best].startblock += n;
		pl->free[best].blockcount -= n;
		want -= n;
	}
}

static void drop_empty_free(struct xrp_agplan *pl)
{
	size_t out = 0;

	for (size_t i = 0; i < pl->nfree; i++)
		if (pl->free[i].blockcount)
			pl->free[out++] = pl->free[i];
	pl->nfree = out;
}

/* The rmap records: the kept claims and the new trees' blocks. */
static int rmap_records(struct xrp_agplan *pl)
{
	size_t n = 0, t = 0;

	free(pl->rmap);
	pl->rmap = malloc((pl->nkept + pl->ntake + 1) * sizeof(*pl->rmap));
	if (!pl->rmap)
		return -XFSJ_E_NOMEM;
	memcpy(pl->rmap, pl->kept, pl->nkept * sizeof(*pl->rmap));
	n = pl->nkept;
	for (int bt = 0; bt < XFSJ_BT__COUNT; bt++) {
		if (!pl->rebuild[bt])
			continue;
		for (uint64_t k = 0; k < pl->geom[bt].blocks && t < pl->ntake;
		     k++, t++)
			pl->rmap[n++] = (struct xfsj_rmap_rec){
				pl->take[t], 1, tree_owner[bt], 0 };
	}
	/* The rest is the AGFL's. */
	for (; t < pl->ntake; t++)
		pl->rmap[n++] = (struct xfsj_rmap_rec){
			pl->take[t], 1, XFSJ_RMAP_OWN_AG, 0 };
	pl->nrmap = rmap_merge(pl->rmap, n);
	return 0;
}

static uint64_t tree_recs(const struct xrp_agplan *pl, int bt)
{
	switch (bt) {
	case XFSJ_BT_BNO:
	case XFSJ_BT_CNT:
		return pl->nfree;
	case XFSJ_BT_INO:
		return pl->nino;
	case XFSJ_BT_FINO:
		return pl->nfino;
	case XFSJ_BT_RMAP:
		return pl->nrmap;
	default:
		return pl->nrefc;
	}
}

/* The AGFL length the kernel keeps for the new trees' heights. */
static uint32_t agfl_want(const struct xrp_agplan *pl)
{
	return xfsj_alloc_freelist_len(pl->fs, pl->geom[XFSJ_BT_BNO].levels,
				       pl->geom[XFSJ_BT_CNT].levels,
				       pl->geom[XFSJ_BT_RMAP].levels);
}

static int settle(struct xrp_agplan *pl)
{
	uint64_t want = 0, got;
	int err;

	for (unsigned int round = 0; round < PLAN_ROUNDS; round++) {
		carve(pl, want);
		if (pl->ntake < want)
			return -XFSJ_E_NOSPC;
		drop_empty_free(pl);
		if (pl->rebuild[XFSJ_BT_RMAP]) {
			err = rmap_records(pl);
			if (err)
				return err;
		}
		got = 0;
		for (int bt = 0; bt < XFSJ_BT__COUNT; bt++) {
			if (!pl->rebuild[bt])
				continue;
			err = xfsj_btree_load_geom(bt, pl->sb->blocksize,
						   tree_recs(pl, bt),
						   &pl->geom[bt]);
			if (err)
				return err;
			got += pl->geom[bt].blocks;
		}
		got += agfl_want(pl);
		if (got == want) {
			pl->nagfl = agfl_want(pl);
			return 0;
		}
		want = got;
	}
	return -XFSJ_E_RANGE;
}

int xrp_agplan_make(struct xrp_agplan *pl)
{
	uint64_t most = 0;
	int err;

	err = keep_claims(pl);
	if (!err)
		err = base_free(pl);
	if (!err && pl->rebuild[XFSJ_BT_REFC])
		err = refc_records(pl);
	if (!err && pl->rebuild[XFSJ_BT_INO])
		err = inobt_records(pl);
	if (err)
		return err;
	/* Room for every block of every tree, however the rounds go. */
	for (size_t i = 0; i < pl->nbase; i++)
		most += pl->base[i].blockcount;
	pl->free = malloc((pl->nbase + 1) * sizeof(*pl->free));
	pl->take = malloc((size_t)(most + 1) * sizeof(*pl->take));
	if (!pl->free || !pl->take)
		return -XFSJ_E_NOMEM;
	return settle(pl);
}

void xrp_agplan_free(struct xrp_agplan *pl)
{
	free(pl->kept);
	free(pl->base);
	free(pl->free);
	free(pl->take);
	free(pl->rmap);
	free(pl->refc);
	free(pl->ino);
	free(pl->fino);
}
