/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The records of a fork the rebuild salvages from (fix_fork.c): an
 * extents fork's as they lie; a bmbt of any height walked past its
 * damage.
 */
#include <stdlib.h>
#include <string.h>

#include "fs/bmbt.h"
#include "fs/bmbt_walk.h"
#include "fs/iget.h"
#include "repair/blist.h"
#include "repair/repair_priv.h"

/* A bound on the bmbt blocks one lenient walk reads. */
#define WALK_MAX_BLOCKS	(1U << 16)

/*
 * A bmbt read past its damage: every block the pointers lead to that is
 * a bmbt block of the inode at the level its parent says, then the
 * siblings of those blocks at each level that the pointers did not reach
 * (a damaged node or pointer loses no more than itself).  A block whose
 * record count is impossible gives the entries that look sound, in
 * order, inside the key range its parent gives it.  The records come out
 * in leaf order: the leaves the pointers reached as they lie, one reached
 * through a sibling link next to that sibling.
 */
struct leaf {
	uint64_t fsb;
	uint64_t left, right;	/* its sibling pointers */
	size_t first, n;	/* its records in walk.recs */
	bool placed;
};

struct walk {
	struct xrp *rp;
	uint64_t ino;
	struct xck_vec *recs;
	struct xrp_blist *blocks;
	struct xck_vec leaves;	/* struct leaf, in the order met */
	struct xck_vec sibs;	/* uint64_t pairs: block, level */
	struct xfsj_bmbt_walk bw;	/* the descent (fs/bmbt_walk.h) */
};

/*
 * A block of @max entries whose count is impossible: the entries from
 * the first that look sound (keys rising inside [@lo, @hi); a node's
 * pointers inside the filesystem, a leaf's records of some length not
 * running past @hi).
 */
static unsigned int sound_entries(const struct xrp *rp, const uint8_t *d,
				  unsigned int level, unsigned int max,
				  uint64_t lo, uint64_t hi)
{
	uint64_t prev = lo;
	unsigned int i;

	for (i = 0; i < max; i++) {
		struct xfsj_bmbt_irec r;

		if (level) {
			uint64_t key = xfsj_get_be64(d + (size_t)i * 8);

			if (key < prev || (i && key == prev) || key >= hi ||
			    !xrp_blocks_ok(rp, xfsj_get_be64(d +
					   (size_t)(max + i) * 8), 1))
				break;
			prev = key;
			continue;
		}
		xfsj_bmbt_rec_decode(d + (size_t)i * XFSJ_BMBT_REC_SIZE, &r);
		if (!r.blockcount || r.startoff < prev ||
		    r.startoff + r.blockcount > hi ||
		    r.startoff + r.blockcount < r.startoff)
			break;
		prev = r.startoff + r.blockcount;
	}
	return i;
}

static int push_sib(struct walk *w, uint64_t fsb, unsigned int level)
{
	uint64_t e[2] = { fsb, level };

	if (fsb == XFSJ_NULLFSBLOCK)
		return 0;
	return xck_vec_push(w->rp->ck, &w->sibs, e) ? -XFSJ_E_NOMEM : 0;
}

static bool sv_ptr_ok(void *arg, uint64_t fsb)
{
	struct walk *w = arg;

	return xrp_blocks_ok(w->rp, fsb, 1);
}

/* An unreadable block is passed over. */
static int sv_read(void *arg, struct xfsj_bmbt_wblk *b)
{
	int err = xfsj_bmbt_wblk_read(((struct walk *)arg)->rp->fs, b);

	if (err)
		return err == -XFSJ_E_NOMEM ? err : XFSJ_BMBT_SKIP;
	return 0;
}

static void sv_put(void *arg, struct xfsj_bmbt_wblk *b)
{
	xfsj_bmbt_wblk_put(((struct walk *)arg)->rp->fs, b);
}

/*
 * A block is left unless it is a bmbt block of the inode at the level
 * its parent says; an impossible record count gives the entries that
 * look sound; one reached again is read again unless it was kept (it
 * may have been left at another level).  The rest is not the salvage's
 * concern.
 */
static int sv_fault(void *arg, struct xfsj_bmbt_wblk *b,
		    const struct xfsj_bmbt_fault *ft)
{
	struct walk *w = arg;
	unsigned int max = xfsj_btree_maxrecs(XFSJ_BT_BMAP,
					      w->rp->sb->blocksize, true);

	switch (ft->kind) {
	case XFSJ_BMBT_F_ROOT_NUMRECS:	/* walk what the room holds */
		return 0;
	case XFSJ_BMBT_F_DUP:
		return xrp_bknown(w->blocks, ft->fsbno) ? XFSJ_BMBT_SKIP : 0;
	case XFSJ_BMBT_F_NUMRECS:
		b->nrecs = sound_entries(w->rp, b->data + XFSJ_LBLOCK_HDR_SIZE,
					 b->level, max, b->lo, b->hi);
		return b->nrecs ? 0 : XFSJ_BMBT_SKIP;
	case XFSJ_BMBT_F_MAGIC:
	case XFSJ_BMBT_F_LEVEL:
	case XFSJ_BMBT_F_OWNER:
	case XFSJ_BMBT_F_LIMIT:
		return XFSJ_BMBT_SKIP;
	default:
		return 0;
	}
}

/* A block kept: its siblings to read later, a leaf's place. */
static int sv_node(void *arg, struct xfsj_bmbt_wblk *b)
{
	struct walk *w = arg;
	int err = xrp_bpush(w->rp, w->blocks, b->fsbno);

	if (err)
		return err < 0 ? err : XFSJ_BMBT_SKIP;	/* once */
	err = push_sib(w, b->hdr.leftsib, b->level);
	if (!err)
		err = push_sib(w, b->hdr.rightsib, b->level);
	if (!err && b->level == 0) {
		struct leaf lf = { b->fsbno, b->hdr.leftsib, b->hdr.rightsib,
				   w->recs->n, b->nrecs, false };

		err = xck_vec_push(w->rp->ck, &w->leaves, &lf);
	}
	return err;
}

static int sv_rec(void *arg, const struct xfsj_bmbt_wblk *b, unsigned int i,
		  const uint8_t *rec, uint64_t where)
{
	struct walk *w = arg;
	struct xfsj_bmbt_irec r;

	(void)b;
	(void)i;
	(void)where;
	xfsj_bmbt_rec_decode(rec, &r);
	return xck_vec_push(w->rp->ck, w->recs, &r);
}

static const struct xfsj_bmbt_walk_ops salvage_ops = {
	.ptr_ok = sv_ptr_ok,
	.read = sv_read,
	.put = sv_put,
	.fault = sv_fault,
	.node = sv_node,
	.rec = sv_rec,
};

/* The siblings the pointers did not reach (and theirs, and so on). */
static int walk_sibs(struct walk *w)
{
	size_t i;
	int err;

	for (i = 0; i < w->sibs.n; i++) {
		const uint64_t *e = xck_vec_at(&w->sibs, i);

		if (xrp_bknown(w->blocks, e[0]))
			continue;
		err = xfsj_bmbt_descend_block(&w->bw, e[0], (unsigned int)e[1],
					      0, UINT64_MAX);
		if (err)
			return err;
	}
	return 0;
}

static struct leaf *lv_at(const struct walk *w, size_t i)
{
	return xck_vec_at(&w->leaves, i);
}

/*
 * Put each leaf met through a sibling link next to its sibling in
 * @order (the first @n entries placed), as long as that places one.
 */
static size_t place_leaves(const struct walk *w, size_t *order, size_t n)
{
	size_t i, p;
	bool moved = true;

	while (moved) {
		moved = false;
		for (i = 0; i < w->leaves.n; i++) {
			struct leaf *lf = lv_at(w, i);

			if (lf->placed)
				continue;
			for (p = 0; p < n; p++) {
				const struct leaf *o = lv_at(w, order[p]);

				if (o->fsb == lf->left || o->fsb == lf->right)
					break;
			}
			if (p == n)
				continue;
			if (lv_at(w, order[p])->fsb == lf->left)
				p++;
			memmove(order + p + 1, order + p,
				(n - p) * sizeof(*order));
			order[p] = i;
			lf->placed = true;
			n++;
			moved = true;
		}
	}
	return n;
}

/* The records again, in leaf order (see struct walk). */
static int leaf_order(struct walk *w, size_t nwalked)
{
	struct xck_vec out;
	size_t *order, i, n;
	int err = 0;

	if (w->leaves.n == nwalked)
		return 0;
	order = calloc(w->leaves.n, sizeof(*order));
	if (!order)
		return -XFSJ_E_NOMEM;
	for (i = 0; i < nwalked; i++) {
		order[i] = i;
		lv_at(w, i)->placed = true;
	}
	n = place_leaves(w, order, nwalked);
	for (i = 0; i < w->leaves.n; i++)
		if (!lv_at(w, i)->placed)
			order[n++] = i;		/* the salvage judges them */
	xck_vec_init(&out, sizeof(struct xfsj_bmbt_irec));
	for (i = 0; i < n && !err; i++) {
		const struct leaf *lf = lv_at(w, order[i]);

		for (size_t k = 0; k < lf->n && !err; k++)
			err = xck_vec_push(w->rp->ck, &out,
					   (const struct xfsj_bmbt_irec *)
					   w->recs->v + lf->first + k);
	}
	free(order);
	if (err) {
		xck_vec_free(w->rp->ck, &out);
		return err;
	}
	xck_vec_free(w->rp->ck, w->recs);
	*w->recs = out;
	return 0;
}

int xrp_fork_records(struct xrp *rp, struct xfsj_iref *ip, int whichfork,
		     struct xck_vec *recs, struct xrp_blist *blocks)
{
	struct walk w = { .rp = rp, .ino = ip->ino, .recs = recs,
			  .blocks = blocks };
	uint8_t fmt = whichfork ? ip->di.aformat : ip->di.format;
	uint32_t size;
	const uint8_t *f = xfsj_ifork(rp->fs, ip, whichfork, &size);
	size_t nwalked;
	uint64_t n, i;
	int err;

	if (!f)
		return 0;
	if (fmt == XFSJ_DINODE_FMT_EXTENTS) {
		n = whichfork ? xfsj_dinode_anextents(&ip->di) :
				xfsj_dinode_nextents(&ip->di);
		if (n > size / XFSJ_BMBT_REC_SIZE)
			n = size / XFSJ_BMBT_REC_SIZE;
		for (i = 0; i < n; i++) {
			struct xfsj_bmbt_irec r;

			xfsj_bmbt_rec_decode(f + i * XFSJ_BMBT_REC_SIZE, &r);
			err = xck_vec_push(rp->ck, recs, &r);
			if (err)
				return err;
		}
		return 0;
	}
	if (fmt != XFSJ_DINODE_FMT_BTREE)
		return 0;
	xck_vec_init(&w.leaves, sizeof(struct leaf));
	xck_vec_init(&w.sibs, 2 * sizeof(uint64_t));
	xfsj_bmbt_walk_init(&w.bw, rp->sb, ip->ino, &salvage_ops, &w);
	w.bw.max_blocks = WALK_MAX_BLOCKS;
	err = xfsj_bmbt_descend(&w.bw, f, size);
	nwalked = w.leaves.n;
	if (!err)
		err = walk_sibs(&w);
	if (!err)
		err = leaf_order(&w, nwalked);
	xfsj_bmbt_walk_free(&w.bw);
	xck_vec_free(rp->ck, &w.leaves);
	xck_vec_free(rp->ck, &w.sibs);
	return err;
}
