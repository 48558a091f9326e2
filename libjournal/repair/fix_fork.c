/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * FIX_REBUILD_BMBT and FIX_CLEAR_FORK: a fork whose mappings or bmbt
 * blocks are damaged is written afresh (fix_bmbt.c) from the mappings
 * that can be trusted:
 *
 * - with an rmapbt read whole in every AG: the inode's records there
 *   (owner, fork, file offset, unwritten), when they are consistent
 *   (inside the AGs past their headers, no two over one file offset, no
 *   block another owner's record holds unless both are shareable data);
 *   the fork's own sane records are added where the rmapbt names nothing
 *   at their file offsets and no other owner holds their blocks (a
 *   record the rmapbt lost);
 * - else (no rmapbt, or one that disagrees) the fork's records salvaged:
 *   an unwritten flag where none may be is cleared (the blocks hold what
 *   was written); a start block whose AG number does not fit 32 bits
 *   loses the bits above them (the kernel and xfs_repair read the AG
 *   number as 32 bits and so the blocks where those bits are not: the
 *   bits are the damage, the data is there); a record out of place whose
 *   neighbours leave a gap of
 *   just its length is put back there; records of length 0, past the
 *   largest offset, outside an AG or over its headers, still out of
 *   offset order (of two that overlap, the one the next record agrees
 *   with stays), or over blocks the evidence model (evidence.h) gives
 *   to another claim are dropped; a bmbt
 *   of any height is walked past its damage (a block that is not a bmbt
 *   block of the inode at its level is left, the blocks its siblings'
 *   links name at each level are read too, and a block with an
 *   impossible record count gives its entries that look sound).
 *
 * A mapping into blocks both free space btrees hold as free that the
 * rmapbt has no record of for the inode (fork.ext_free), or into
 * metadata's blocks by the rmapbt and the scan (fork.ext_meta): those
 * blocks are given up as below (the rmapbt, when usable, gives the
 * mapping back).
 *
 * A block claimed twice (space.multiply_claimed): the evidence model
 * (evidence.h) decides who keeps it; each inode that maps it and gives
 * way loses those blocks only (its fork rebuilt without the records over
 * them); a tie of regular files' written data is cloned: one file keeps
 * the range and each other one's fork is rebuilt onto fresh blocks
 * holding a copy of it (fix_clone.c); when the free space is too short
 * for the copy, or nothing settles the tie, it is left.  The fix record
 * says why (struct xfsj_repair_why).  A range one fork maps twice (every
 * claim its own) has no other owner to weigh: its first mapping by file
 * offset keeps the blocks and the later one is trimmed (with a usable
 * rmapbt, the mappings come back from it, as above).
 *
 * An attribute fork of a format no attribute fork has (inode.aformat)
 * is cleared, the inode kept.
 *
 * The extent count and the block count follow the new fork (the other
 * fork's blocks as the check claimed them); a regular file keeps its
 * size (holes are fine).  The fork is written by the fs layer's fork
 * builder (a bmbt of as many levels as it needs); the bmbt blocks of a
 * rebuilt tree are old blocks of the same fork; those left over, and the blocks of dropped
 * mappings, are left for the AG stage's free space rebuild.  A directory
 * that lost blocks is salvaged in a later round (the check says so).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/layout.h"
#include "fs/alloc.h"
#include "fs/bmbt.h"
#include "fs/iget.h"
#include "ondisk/attr_layout.h"
#include "ondisk/dir_block.h"
#include "repair/blist.h"
#include "repair/repair_priv.h"

/* The fresh blocks a rebuilt bmbt may take when its old ones run out. */
#define MORE_BLOCKS	8

/*
 * Lists of mappings (struct xfsj_bmbt_irec) and of block numbers
 * (uint64_t) are vectors of the check's state (their bytes counted
 * with the rest of it).
 */
static int mpush(struct xrp *rp, struct xck_vec *l,
		 const struct xfsj_bmbt_irec *r)
{
	return xck_vec_push(rp->ck, l, r);
}

static struct xfsj_bmbt_irec *mv(const struct xck_vec *l)
{
	return l->v;
}

/*
 * One fork to rebuild, the blocks (fsb ranges) it must give up, and
 * those it gets a copy of.
 */
struct job {
	uint64_t ino;
	int whichfork;
	struct xck_vec drops;	/* xfsj_bmbt_irec: startblock, blockcount */
	struct xck_vec clones;	/* struct xrp_clone */
	/* Ranges the fork maps twice (xfsj_bmbt_irec: startblock,
	 * blockcount), and the pieces of them a mapping kept so far. */
	struct xck_vec selfs, self_kept;
	bool reflink_prob;	/* the check wanted the reflink flag set */
	bool has_why;		/* an ownership decision asked for it */
	struct xfsj_repair_why why;	/* ... and why */
};

bool xrp_blocks_ok(const struct xrp *rp, uint64_t fsb, uint64_t len)
{
	uint32_t hdr = xfsj_ag_hdr_blocks(rp->sb->sectsize, rp->sb->blocklog);

	return xfsj_fsbext_ok(rp->fs, fsb, len) &&
	       xfsj_fsb_agbno(rp->sb, fsb) >= hdr;
}

/*
 * May written data of fork @whichfork share blocks with @r?  Only with
 * another file's written data on a reflink filesystem (the kernel shares
 * no unwritten extent).
 */
static bool may_share(const struct xrp *rp, int whichfork,
		      const struct xfsj_rmap_rec *r)
{
	return xfsj_fs_has(rp->fs, XFSJ_RO_COMPAT_REFLINK) &&
	       whichfork == XFSJ_DATA_FORK && xrp_owner_inode(r->owner) &&
	       !(r->offset & (XRP_RMAP_FORK_FLAGS | XFSJ_RMAP_OFF_UNWRITTEN));
}

/*
 * Does another owner hold some of [fsb, fsb + len) (mapped @unwritten or
 * not) in @v, the rmapbt records of its AG (is the rmapbt consistent
 * with the fork)?  Another fork of the inode, and its bmbt blocks, count
 * as another owner; the same fork's own mappings do not; nor does
 * written data another file may share.
 */
struct held {
	const struct xrp *rp;
	uint64_t ino;
	int whichfork;
	bool unwritten;
};

static int held_one(void *arg, const struct xfsj_rmap_rec *r)
{
	const struct held *h = arg;

	if (r->owner == h->ino &&
	    !!(r->offset & XFSJ_RMAP_OFF_ATTR_FORK) == h->whichfork &&
	    !(r->offset & XFSJ_RMAP_OFF_BMBT_BLOCK))
		return 0;
	return h->unwritten || !may_share(h->rp, h->whichfork, r);
}

static bool held_by_other(struct xrp *rp, enum xrp_rec_table t,
			  uint64_t ino, int whichfork, uint64_t fsb,
			  uint64_t len, bool unwritten)
{
	struct held h = { rp, ino, whichfork, unwritten };
	uint32_t agno = xfsj_fsb_agno(rp->sb, fsb);
	uint32_t agbno = xfsj_fsb_agbno(rp->sb, fsb);

	if (agno >= rp->ck->agcount)
		return true;
	return xrp_recs_over(rp, &rp->ck->ags[agno], t, agbno,
			     (uint64_t)agbno + len,
			     &(struct xrp_claims_cb){ held_one, &h }) != 0;
}

static bool rec_allowed(const struct xrp *rp, uint16_t mode, int whichfork,
			const struct xfsj_bmbt_irec *r)
{
	if (!r->blockcount || !xfsj_fileext_ok(r->startoff, r->blockcount) ||
	    !xrp_blocks_ok(rp, r->startblock, r->blockcount))
		return false;
	return !r->unwritten ||
	       (whichfork == XFSJ_DATA_FORK && (mode & S_IFMT) == S_IFREG);
}

static int by_off(const void *pa, const void *pb)
{
	const struct xfsj_bmbt_irec *a = pa, *b = pb;

	return a->startoff < b->startoff ? -1 : a->startoff > b->startoff;
}

/* ---- the rmapbt's word ---- */

/*
 * The fork's mappings and bmbt blocks as the rmapbt records them.
 * Returns 0 (consistent), 1 (no rmapbt, or it disagrees), or a negative
 * XFSJ_E_*.
 */
struct from_rm {
	struct xrp *rp;
	uint16_t mode;
	const struct job *j;
	struct xck_vec *out;
	struct xrp_blist *bmbt;
};

/* One rmapbt record of the inode: 0, 1 (it disagrees), or -XFSJ_E_*. */
static int from_rm_one(void *arg, uint32_t agno, const struct xfsj_rmap_rec *r)
{
	struct from_rm *x = arg;
	struct xrp *rp = x->rp;
	uint64_t fsb = xfsj_agb_to_fsb(rp->sb, agno, r->startblock);
	struct xfsj_bmbt_irec m = {
		.startoff = r->offset & XFSJ_RMAP_OFF_MASK,
		.startblock = fsb,
		.blockcount = r->blockcount,
		.unwritten = !!(r->offset & XFSJ_RMAP_OFF_UNWRITTEN),
	};

	if (!!(r->offset & XFSJ_RMAP_OFF_ATTR_FORK) != x->j->whichfork)
		return 0;
	if (r->offset & XFSJ_RMAP_OFF_BMBT_BLOCK) {
		for (uint32_t b = 0; b < r->blockcount; b++)
			if (xrp_blocks_ok(rp, fsb + b, 1) &&
			    xrp_bpush(rp, x->bmbt, fsb + b) < 0)
				return -XFSJ_E_NOMEM;
		return 0;
	}
	if (!rec_allowed(rp, x->mode, x->j->whichfork, &m) ||
	    held_by_other(rp, XRP_TAB_RMAPS, x->j->ino, x->j->whichfork, fsb,
			  m.blockcount, m.unwritten))
		return 1;
	return mpush(rp, x->out, &m);
}

static int from_rmapbt(struct xrp *rp, uint16_t mode, const struct job *j,
		       struct xck_vec *out, struct xrp_blist *bmbt)
{
	struct from_rm x = { rp, mode, j, out, bmbt };
	int err;

	if (!xrp_rmapbt_whole(rp))
		return 1;
	err = xrp_recs_of(rp, XRP_TAB_RMAPS, j->ino,
			  &(struct xrp_owned_cb){ from_rm_one, &x });
	if (err)
		return err;
	xck_vec_sort(out, by_off);
	for (size_t i = 1; i < out->n; i++)
		if (mv(out)[i].startoff < mv(out)[i - 1].startoff +
					 mv(out)[i - 1].blockcount)
			return 1;
	return 0;
}

/*
 * The first piece of @c (from its start) clear of the ranges the job
 * must give up, into @c; false when none is left.  @c's start moves past
 * a range that covers it; a range further in cuts @c short there (the
 * caller asks again for what follows the range).
 */
static void cut_by(const struct xck_vec *ranges, struct xfsj_bmbt_irec *c)
{
	size_t i;
	bool moved = true;

	while (moved && c->blockcount) {
		moved = false;
		for (i = 0; i < ranges->n; i++) {
			const struct xfsj_bmbt_irec *d = &mv(ranges)[i];
			uint64_t de = d->startblock + d->blockcount;
			uint64_t skip;

			if (d->startblock >= c->startblock + c->blockcount ||
			    de <= c->startblock)
				continue;
			if (d->startblock > c->startblock) {
				c->blockcount = d->startblock - c->startblock;
				continue;
			}
			skip = de - c->startblock;
			if (skip >= c->blockcount)
				skip = c->blockcount;
			c->startblock += skip;
			c->startoff += skip;
			c->blockcount -= skip;
			moved = true;
		}
	}
}

/*
 * ... also clear of the blocks the fork maps twice that an earlier
 * mapping (by file offset) kept: the later one is trimmed.
 */
static bool next_piece(const struct job *j, struct xfsj_bmbt_irec *c)
{
	struct xfsj_bmbt_irec was;

	do {
		was = *c;
		cut_by(&j->drops, c);
		cut_by(&j->self_kept, c);
	} while (c->blockcount && memcmp(&was, c, sizeof(was)));
	return c->blockcount != 0;
}

/* Piece @p kept: what it holds of the ranges mapped twice is taken. */
static int self_take(struct xrp *rp, struct job *j,
		     const struct xfsj_bmbt_irec *p)
{
	uint64_t pe = p->startblock + p->blockcount;

	for (size_t i = 0; i < j->selfs.n; i++) {
		const struct xfsj_bmbt_irec *d = &mv(&j->selfs)[i];
		uint64_t s = d->startblock > p->startblock ? d->startblock :
							     p->startblock;
		uint64_t e = d->startblock + d->blockcount < pe ?
			     d->startblock + d->blockcount : pe;
		struct xfsj_bmbt_irec t = { .startblock = s,
					    .blockcount = e - s };

		if (s < e && mpush(rp, &j->self_kept, &t))
			return -XFSJ_E_NOMEM;
	}
	return 0;
}

/*
 * The most claims over one range the model weighs (more: left).  A
 * block a reflink workload cloned into many files has one claim per
 * file: 16, as it was, left such a range alone and took it from a fork
 * being rebuilt.
 */
#define CLAIMS_MAX	1024

/* The scratch arrays of CLAIMS_MAX + 1 claims (made once a repair). */
static int claims_scratch(struct xrp *rp, struct xrp_claim **f,
			  const struct xfsj_rmap_rec ***rec)
{
	if (!rp->ev_f) {
		rp->ev_f = malloc((CLAIMS_MAX + 1) * sizeof(*rp->ev_f));
		rp->ev_rec = malloc((CLAIMS_MAX + 1) * sizeof(*rp->ev_rec));
		if (!rp->ev_f || !rp->ev_rec) {
			free(rp->ev_f);
			free(rp->ev_rec);
			rp->ev_f = NULL;
			rp->ev_rec = NULL;
			return -XFSJ_E_NOMEM;
		}
	}
	*f = rp->ev_f;
	*rec = rp->ev_rec;
	return 0;
}

/*
 * Does the evidence model give the blocks of mapping @r of the job's fork
 * to another claim?  (The fork's own claim joins those the check made,
 * when the check did not see it.)  More claims than the model weighs,
 * or no memory to weigh them: no, the mapping is kept (a range that
 * many files share is data, and taking it would lose it).
 */
static bool gives_way(struct xrp *rp, const struct job *j,
		      const struct xfsj_bmbt_irec *r)
{
	const struct xfsj_sb *sb = rp->sb;
	const struct xck_ag *ag = &rp->ck->ags[xfsj_fsb_agno(sb,
							     r->startblock)];
	uint64_t s = xfsj_fsb_agbno(sb, r->startblock), e = s + r->blockcount;
	uint64_t fork = j->whichfork ? XFSJ_RMAP_OFF_ATTR_FORK : 0;
	struct xrp_claim *f;
	const struct xfsj_rmap_rec **rec;
	struct xrp_decision d;
	size_t n, i, self = CLAIMS_MAX + 1;
	bool others = false;

	if (claims_scratch(rp, &f, &rec) ||
	    xrp_claims_gather(rp, ag, s, e, f, rec, CLAIMS_MAX, &n))
		return false;
	for (i = 0; i < n; i++) {
		if (f[i].owner == j->ino &&
		    (f[i].offset & XRP_RMAP_FORK_FLAGS) == fork) {
			if (self > n)
				self = i;
		} else {
			others = true;
		}
	}
	if (!others)
		return false;
	if (self > n) {
		struct xfsj_rmap_rec mine = {
			.startblock = (uint32_t)s,
			.blockcount = (uint32_t)r->blockcount,
			.owner = j->ino,
			.offset = r->startoff | fork |
				  (r->unwritten ? XFSJ_RMAP_OFF_UNWRITTEN : 0),
		};

		self = n;
		xrp_claim_fill(rp, ag, &mine, s, e, &f[n++]);
	}
	xrp_ev_decide(f, n, xfsj_fs_has(rp->fs, XFSJ_RO_COMPAT_REFLINK), &d);
	return f[self].verdict == XRP_V_GIVE_WAY ||
	       f[self].verdict == XRP_V_CLONE_COPY;
}

/*
 * Does another owner hold the blocks?  With @rmaps, by the rmapbt's
 * records; else by the evidence model over the claims.
 */
static bool claimed_elsewhere(struct xrp *rp, const struct job *j,
			      const struct xfsj_bmbt_irec *r, bool rmaps)
{
	if (!rmaps)
		return gives_way(rp, j, r);
	return held_by_other(rp, XRP_TAB_RMAPS, j->ino, j->whichfork,
			     r->startblock, r->blockcount, r->unwritten);
}

/*
 * Keep the pieces of record @c clear of the job's ranges and of other
 * owners' blocks (@c itself is left as it was); one none of whose
 * pieces is kept counts as dropped.
 */
static int keep_pieces(struct xrp *rp, struct job *j,
		       const struct xfsj_bmbt_irec *c, bool rmaps,
		       struct xck_vec *kept, size_t *dropped)
{
	uint64_t end = c->startoff + c->blockcount;
	struct xfsj_bmbt_irec p = *c;
	bool any = false;
	int err;

	while (p.blockcount && next_piece(j, &p)) {
		uint64_t pend = p.startoff + p.blockcount;

		if (!claimed_elsewhere(rp, j, &p, rmaps)) {
			err = mpush(rp, kept, &p);
			if (!err)
				err = self_take(rp, j, &p);
			if (err)
				return err;
			any = true;
		}
		/* What follows the piece, up to the record's end. */
		p.startblock += pend - p.startoff;
		p.startoff = pend;
		p.blockcount = end - pend;
	}
	*dropped += !any;
	return 0;
}

/*
 * The records worth keeping, in order (see the head of the file):
 * @kept gets them, *@dropped counts the others.
 */
static int salvage(struct xrp *rp, uint16_t mode, struct job *j,
		   const struct xck_vec *recs, bool rmaps, struct xck_vec *kept,
		   size_t *dropped, size_t *mended)
{
	uint64_t end = 0;	/* the last kept record's end */
	size_t i;
	int err;

	for (i = 0; i < recs->n; i++) {
		struct xfsj_bmbt_irec c = mv(recs)[i];
		const struct xfsj_bmbt_irec *nx = i + 1 < recs->n ?
						  &mv(recs)[i + 1] : NULL;
		bool mend = false;
		uint64_t canon;

		/* An unwritten flag where none may be: the flag is the
		 * damage, the blocks hold what was written. */
		if (c.unwritten && (j->whichfork == XFSJ_ATTR_FORK ||
				    (mode & S_IFMT) != S_IFREG)) {
			c.unwritten = false;
			mend = true;
		}
		/* An AG number past 32 bits: where the kernel reads it. */
		canon = xfsj_agb_to_fsb(rp->sb,
					xfsj_fsb_agno(rp->sb, c.startblock),
					xfsj_fsb_agbno(rp->sb, c.startblock));
		if (canon != c.startblock) {
			c.startblock = canon;
			mend = true;
		}
		/* Out of place, and the gap its neighbours leave is just
		 * its length: the offset is the damage. */
		if (c.blockcount && nx && nx->startoff >= end &&
		    nx->startoff - end == c.blockcount &&
		    (!xfsj_fileext_ok(c.startoff, c.blockcount) ||
		     c.startoff < end ||
		     c.startoff + c.blockcount > nx->startoff)) {
			c.startoff = end;
			mend = true;
		}
		if (!rec_allowed(rp, mode, j->whichfork, &c) ||
		    c.startoff < end ||
		    (nx && c.startoff + c.blockcount > nx->startoff &&
		     nx->startoff >= end)) {
			(*dropped)++;
			continue;
		}
		err = keep_pieces(rp, j, &c, rmaps, kept, dropped);
		if (err)
			return err;
		*mended += mend;
		end = c.startoff + c.blockcount;
	}
	return 0;
}

/*
 * The rmapbt's mappings, and the salvaged fork records at offsets it
 * names nothing at (sorted again after).
 */
static int add_unnamed(struct xrp *rp, struct xck_vec *out,
		       const struct xck_vec *salv,
		       size_t *added)
{
	size_t i, k, n = out->n;
	int err;

	for (i = 0; i < salv->n; i++) {
		const struct xfsj_bmbt_irec *r = &mv(salv)[i];
		bool over = false;

		for (k = 0; k < n && !over; k++)
			over = r->startoff < mv(out)[k].startoff +
					     mv(out)[k].blockcount &&
			       mv(out)[k].startoff < r->startoff + r->blockcount;
		if (over)
			continue;
		err = mpush(rp, out, r);
		if (err)
			return err;
		(*added)++;
	}
	xck_vec_sort(out, by_off);
	return 0;
}

/* The blocks the inode's other fork takes, as the check claimed them. */
struct other_fork {
	int whichfork;
	uint64_t total;
};

static int other_fork_one(void *arg, uint32_t agno,
			  const struct xfsj_rmap_rec *r)
{
	struct other_fork *o = arg;

	(void)agno;
	if (!!(r->offset & XFSJ_RMAP_OFF_ATTR_FORK) != o->whichfork)
		o->total += r->blockcount;
	return 0;
}

static uint64_t other_fork_blocks(struct xrp *rp, const struct job *j)
{
	struct other_fork o = { j->whichfork, 0 };

	xrp_recs_of(rp, XRP_TAB_CLAIMS, j->ino,
		    &(struct xrp_owned_cb){ other_fork_one, &o });
	return o.total;
}

/* Do any of the fork's new data blocks lie where the refcountbt counts
 * more than one owner? */
static bool any_shared(const struct xrp *rp, const struct xck_vec *l)
{
	size_t i, k;

	for (i = 0; i < l->n; i++) {
		const struct xck_ag *ag = &rp->ck->ags[xfsj_fsb_agno(
						rp->sb, mv(l)[i].startblock)];
		uint32_t s = xfsj_fsb_agbno(rp->sb, mv(l)[i].startblock);
		uint64_t e = (uint64_t)s + mv(l)[i].blockcount;

		/* A tree read in order: the records over [s, e) alone. */
		k = ag->tree_ok[XFSJ_BT_REFC] ? xrp_refc_from(ag, s) : 0;
		for (; k < ag->refcs.n; k++) {
			const struct xfsj_refc_rec *c = xck_vec_at(&ag->refcs,
								   k);

			if (ag->tree_ok[XFSJ_BT_REFC] && c->startblock >= e)
				break;
			if (!(c->startblock & XFSJ_REFC_COWFLAG) &&
			    c->refcount > 1 && c->startblock < e &&
			    s < (uint64_t)c->startblock + c->blockcount)
				return true;
		}
	}
	return false;
}

static uint64_t mapped_blocks(const struct xck_vec *l)
{
	uint64_t t = 0;
	size_t i;

	for (i = 0; i < l->n; i++)
		t += mv(l)[i].blockcount;
	return t;
}

/* The bmbt blocks a new tree may use: not mapped as data by @l. */
static int other_owner(void *arg, const struct xfsj_rmap_rec *r)
{
	return r->owner != *(const uint64_t *)arg;
}

/* Does an inode other than @ino claim block @fsb? */
static bool other_inode_claims(struct xrp *rp, uint64_t ino, uint64_t fsb)
{
	uint32_t agno = xfsj_fsb_agno(rp->sb, fsb);
	uint32_t agbno = xfsj_fsb_agbno(rp->sb, fsb);

	if (agno >= rp->ck->agcount)
		return true;
	return xrp_recs_over(rp, &rp->ck->ags[agno], XRP_TAB_CLAIMS, agbno,
			     (uint64_t)agbno + 1,
			     &(struct xrp_claims_cb){ other_owner, &ino }) != 0;
}

/* A mapping's blocks, and the largest end of those sorted up to it. */
struct span {
	uint64_t start, maxend;
};

static int span_cmp(const void *pa, const void *pb)
{
	const struct span *a = pa, *b = pb;

	return a->start < b->start ? -1 : a->start > b->start;
}

/* Is @fsb among the blocks of the @n spans @sp (sorted, maxend set)? */
static bool span_holds(const struct span *sp, size_t n, uint64_t fsb)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {	/* the first starting past fsb */
		size_t mid = lo + (hi - lo) / 2;

		if (sp[mid].start <= fsb)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && sp[lo - 1].maxend > fsb;
}

static int usable_blocks(struct xrp *rp, const struct job *j,
			 struct xrp_blist *b, const struct xck_vec *l)
{
	struct span *sp = malloc(l->n ? l->n * sizeof(*sp) : 1);
	size_t i, n = 0;

	if (!sp)
		return -XFSJ_E_NOMEM;
	for (i = 0; i < l->n; i++)
		sp[i] = (struct span){ mv(l)[i].startblock,
				       mv(l)[i].startblock +
				       mv(l)[i].blockcount };
	qsort(sp, l->n, sizeof(*sp), span_cmp);
	for (i = 1; i < l->n; i++)
		if (sp[i].maxend < sp[i - 1].maxend)
			sp[i].maxend = sp[i - 1].maxend;
	xfsj_u64set_free(&b->set);
	for (i = 0; i < b->v.n; i++) {
		/* (an old bmbt block another file's data now holds) */
		if (span_holds(sp, l->n, xrp_bv(b)[i]) ||
		    other_inode_claims(rp, j->ino, xrp_bv(b)[i]))
			continue;
		if (xfsj_u64set_add(&b->set, xrp_bv(b)[i]) < 0) {
			free(sp);
			return -XFSJ_E_NOMEM;
		}
		xrp_bv(b)[n++] = xrp_bv(b)[i];
	}
	b->v.n = n;
	free(sp);
	return 0;
}

/*
 * One more block for the fork's bmbt, from the free space of the
 * inode's AG when its headers and free space and rmap btrees are sound
 * (the rmap added for the inode's bmbt): 0, 1 when there is none to
 * take, or a negative XFSJ_E_*.
 */
static int more_blocks(struct xrp *rp, const struct job *j,
		       struct xrp_blist *blocks)
{
	uint32_t agno = xfsj_ino_agno(rp->sb, j->ino), agbno;
	struct xfsj_owner oi = { .owner = j->ino, .bmbt_block = true,
				 .attr_fork = j->whichfork == XFSJ_ATTR_FORK };
	struct xfsj_fault f = { 0 };

	if (!xrp_ag_alloc_ok(rp, agno))
		return 1;
	if (xfsj_alloc_extent(rp->fs, agno, 0, 1, &oi, &agbno, &f))
		return 1;
	return xrp_bpush(rp, blocks, xfsj_agb_to_fsb(rp->sb, agno, agbno)) < 0 ?
	       -XFSJ_E_NOMEM : 0;
}

/*
 * Is the fork one of mappings (extents or btree) of an inode in use, on
 * the data device?
 */
static bool fork_rebuildable(const struct xfsj_dinode *di, int whichfork)
{
	uint8_t fmt = whichfork ? di->aformat : di->format;

	if (!di->mode || (whichfork && !di->forkoff))
		return false;
	if (!whichfork && (di->flags & XFSJ_DIFLAG_REALTIME))
		return false;
	return fmt == XFSJ_DINODE_FMT_EXTENTS || fmt == XFSJ_DINODE_FMT_BTREE;
}

/* @dst freed, then given what @src held (@src left empty). */
static void vec_move(struct xrp *rp, struct xck_vec *dst,
		     struct xck_vec *src)
{
	xck_vec_free(rp->ck, dst);
	*dst = *src;
	xck_vec_init(src, dst->esz);
}

/*
 * The job's ranges taken out of the rmapbt's mappings @out too (a
 * directory's block the rmapbt still gives it, over a file's data).
 */
static int cut_drops(struct xrp *rp, struct job *j,
		     struct xck_vec *out)
{
	struct xck_vec cut;
	size_t i, dropped = 0;
	int err = 0;

	if (!j->drops.n)
		return 0;
	xck_vec_init(&cut, sizeof(struct xfsj_bmbt_irec));
	for (i = 0; i < out->n && !err; i++)
		err = keep_pieces(rp, j, &mv(out)[i], true, &cut, &dropped);
	if (!err)
		vec_move(rp, out, &cut);
	xck_vec_free(rp->ck, &cut);
	return err;
}

/*
 * The records again, their pieces over the job's clone ranges mapped to
 * fresh copies of the blocks (*@ncloned counts them, @taken gets the
 * fresh extents).  Returns 0, 1 when the free space is short (@recs as
 * it was), or a negative XFSJ_E_*.
 */
static int clone_recs(struct xrp *rp, uint16_t mode, const struct job *j,
		      struct xck_vec *recs, struct xck_vec *taken,
		      uint64_t *ncloned)
{
	struct xck_vec out;
	size_t i;
	int err = 0;

	xck_vec_init(&out, sizeof(struct xfsj_bmbt_irec));
	for (i = 0; i < recs->n && !err; i++) {
		struct xfsj_bmbt_irec p = mv(recs)[i];

		if (!rec_allowed(rp, mode, j->whichfork, &p)) {
			err = mpush(rp, &out, &p);	/* the salvage's */
			continue;
		}
		err = xrp_clone_rec(rp, j->ino, &j->clones, &p, &out, taken,
				    ncloned);
	}
	if (!err)
		vec_move(rp, recs, &out);
	xck_vec_free(rp->ck, &out);
	return err;
}

/* Rebuild one fork; @pr: the problem the report names (may be NULL). */
static int rebuild(struct xrp *rp, struct job *j, struct xrp_prob *pr,
		   enum xfsj_fix fix)
{
	struct xck_vec recs, kept, out, taken;
	struct xrp_blist blocks, rblocks;
	struct xfsj_iref ip;
	size_t dropped = 0, added = 0, used = 0, mended = 0;
	uint64_t ncloned = 0;
	const char *src = "salvage";
	int err, rm;

	err = xrp_iget(rp, j->ino, &ip);
	if (err)
		return err < 0 ? err : 0;
	if (!fork_rebuildable(&ip.di, j->whichfork))
		return 0;
	xck_vec_init(&recs, sizeof(struct xfsj_bmbt_irec));
	xck_vec_init(&kept, sizeof(struct xfsj_bmbt_irec));
	xck_vec_init(&out, sizeof(struct xfsj_bmbt_irec));
	xrp_blist_init(&blocks);
	xrp_blist_init(&rblocks);
	xck_vec_init(&taken, sizeof(struct xfsj_bmbt_irec));
	err = xrp_fork_records(rp, &ip, j->whichfork, &recs, &blocks);
	if (err)
		goto out;
	if (j->clones.n) {
		err = clone_recs(rp, ip.di.mode, j, &recs, &taken, &ncloned);
		if (err < 0)
			goto out;
		if (err) {
			/* No room for the copy: the range is left as it was
			 * (the fork rebuilt only when something else asks,
			 * as before). */
			rp->res->clones_short += j->clones.n;
			xrp_clone_undo(rp, j->ino, &taken);
			err = 0;
			if (!pr && !j->drops.n)
				goto out;
		}
	}
	rm = from_rmapbt(rp, ip.di.mode, j, &out, &rblocks);
	if (rm < 0) {
		err = rm;
		goto out;
	}
	err = salvage(rp, ip.di.mode, j, &recs, rm == 0, &kept, &dropped,
		      &mended);
	if (err)
		goto out;
	if (rm == 0) {
		src = "rmapbt";
		/* (the rmapbt maps no block twice) */
		j->self_kept.n = 0;
		err = cut_drops(rp, j, &out);
		if (!err)
			err = add_unnamed(rp, &out, &kept, &added);
		if (err)
			goto out;
		/* The tree's blocks the rmapbt names come first. */
		for (size_t i = 0; i < blocks.v.n; i++)
			if (xrp_bpush(rp, &rblocks, xrp_bv(&blocks)[i]) < 0) {
				err = -XFSJ_E_NOMEM;
				goto out;
			}
		xrp_blist_move(rp, &blocks, &rblocks);
	} else {
		vec_move(rp, &out, &kept);
	}
	err = usable_blocks(rp, j, &blocks, &out);
	if (err)
		goto out;
	for (int more = 0; ; more++) {
		err = xrp_fork_write(rp, &ip, j->whichfork, mv(&out), out.n,
				     xrp_bv(&blocks), blocks.v.n, &used);
		if (err != 1 || more == MORE_BLOCKS)
			break;
		err = more_blocks(rp, j, &blocks);
		if (err)
			break;
	}
	if (err) {
		err = err < 0 ? err : 0;	/* does not fit: left */
		goto out;
	}
	taken.n = 0;		/* the fork holds them now */
	ip.di.nblocks = mapped_blocks(&out) + used + other_fork_blocks(rp, j);
	if (j->reflink_prob && j->whichfork == XFSJ_DATA_FORK &&
	    !any_shared(rp, &out))
		ip.di.flags2 &= ~XFSJ_DIFLAG2_REFLINK;
	xfsj_iput(rp->fs, &ip, false);
	rp->recheck = true;
	if (!pr && ncloned)
		pr = ((const struct xrp_clone *)xck_vec_at(&j->clones, 0))->pr;
	xrp_ino_action_why(rp, pr, fix, j->ino, j->has_why ? &j->why : NULL,
		       "rebuilt the %s fork of inode %llu from the %s: %zu "
		       "extents (%zu from the fork alone); of its %zu "
		       "records %zu dropped, %zu mended%s%s",
		       j->whichfork ? "attr" : "data",
		       (unsigned long long)j->ino, src, out.n,
		       rm == 0 ? added : out.n, recs.n, dropped, mended,
		       used ? "; a bmbt" : "",
		       j->selfs.n ? "; blocks it mapped twice kept by the "
				    "first mapping" : "");
	if (ncloned) {
		const struct xrp_clone *c = xck_vec_at(&j->clones, 0);

		rp->res->blocks_cloned += ncloned;
		xrp_ino_action_why(rp, c->pr, fix, j->ino,
			       j->has_why ? &j->why : NULL,
			       "inode %llu got a copy of the %llu blocks it "
			       "shared (inode %llu keeps them)",
			       (unsigned long long)j->ino,
			       (unsigned long long)ncloned,
			       (unsigned long long)c->keeper);
	}
out:
	if (taken.n)
		xrp_clone_undo(rp, j->ino, &taken);
	xck_vec_free(rp->ck, &taken);
	xck_vec_free(rp->ck, &recs);
	xck_vec_free(rp->ck, &kept);
	xck_vec_free(rp->ck, &out);
	xrp_blist_free(rp, &blocks);
	xrp_blist_free(rp, &rblocks);
	return err;
}

/* ---- the problems, gathered into jobs ---- */

/* The jobs: a vector of struct job. */
static struct job *job_get(struct xrp *rp, struct xck_vec *js, uint64_t ino,
			   int whichfork)
{
	struct job *j = js->v, nj = { .ino = ino, .whichfork = whichfork };
	size_t i;

	for (i = 0; i < js->n; i++)
		if (j[i].ino == ino && j[i].whichfork == whichfork)
			return &j[i];
	xck_vec_init(&nj.drops, sizeof(struct xfsj_bmbt_irec));
	xck_vec_init(&nj.clones, sizeof(struct xrp_clone));
	xck_vec_init(&nj.selfs, sizeof(struct xfsj_bmbt_irec));
	xck_vec_init(&nj.self_kept, sizeof(struct xfsj_bmbt_irec));
	if (xck_vec_push(rp->ck, js, &nj))
		return NULL;
	return xck_vec_at(js, js->n - 1);
}

static void jobs_free(struct xrp *rp, struct xck_vec *js)
{
	struct job *j = js->v;
	size_t i;

	for (i = 0; i < js->n; i++) {
		xck_vec_free(rp->ck, &j[i].drops);
		xck_vec_free(rp->ck, &j[i].clones);
		xck_vec_free(rp->ck, &j[i].selfs);
		xck_vec_free(rp->ck, &j[i].self_kept);
	}
	xck_vec_free(rp->ck, js);
}

/* The fork a problem of the fork walk names ("data", "attr"), or -1
 * (a bmbt block's header field: either btree fork). */
static int prob_fork(const struct xrp_prob *pr)
{
	if (!pr->p.field)
		return -1;
	if (!strcmp(pr->p.field, "data"))
		return XFSJ_DATA_FORK;
	if (!strcmp(pr->p.field, "attr"))
		return XFSJ_ATTR_FORK;
	return -1;
}

static bool is_fork_code(const struct xrp_prob *pr)
{
	return xrp_has(pr, XFSJ_T_FORK_MAP);
}

/* A fork problem: a job for the fork it names, or each btree fork. */
static int add_fork_prob(struct xrp *rp, struct xck_vec *js,
			 const struct xrp_prob *pr)
{
	struct xfsj_iref ip;
	int f = prob_fork(pr), k, err;

	if (f >= 0) {
		struct job *j = job_get(rp, js, pr->p.ino, f);
		/* fork.ext_free, fork.ext_meta: the blocks the mapping
		 * names that are not the inode's. */
		struct xfsj_bmbt_irec d = { .startblock = pr->p.fsbno,
					    .blockcount = pr->p.found };

		if (!j)
			return -XFSJ_E_NOMEM;
		if (xrp_has(pr, XFSJ_T_FOREIGN_BLOCKS) &&
		    (pr->p.has & XFSJ_PF_FSBNO) && mpush(rp, &j->drops, &d))
			return -XFSJ_E_NOMEM;
		return 0;
	}
	err = xrp_iget(rp, pr->p.ino, &ip);
	if (err)
		return err < 0 ? err : 0;
	for (k = XFSJ_DATA_FORK; k <= XFSJ_ATTR_FORK; k++) {
		uint8_t fmt = k ? ip.di.aformat : ip.di.format;

		if ((k && !ip.di.forkoff) || fmt != XFSJ_DINODE_FMT_BTREE)
			continue;
		if (!job_get(rp, js, pr->p.ino, k))
			return -XFSJ_E_NOMEM;
	}
	return 0;
}

/* Push @r onto @l unless a range of the same start is there. */
static int push_once(struct xrp *rp, struct xck_vec *l, const void *r,
		     uint64_t start, uint64_t (*start_of)(const void *))
{
	for (size_t i = 0; i < l->n; i++)
		if (start_of(xck_vec_at(l, i)) == start)
			return 0;
	return xck_vec_push(rp->ck, l, r);
}

static uint64_t drop_start(const void *v)
{
	return ((const struct xfsj_bmbt_irec *)v)->startblock;
}

static uint64_t clone_start(const void *v)
{
	return ((const struct xrp_clone *)v)->fsb;
}

/* The decision @d as the fix record says it. */
static void why_of(const struct xrp_decision *d, struct xfsj_repair_why *w)
{
	*w = (struct xfsj_repair_why){
		.outcome = xrp_ev_outcome_name(d->outcome),
		.kept = d->kept, .gave_way = d->gave_way };
	w->nrows = (unsigned int)xrp_ev_names(d->why, w->rows,
					      XFSJ_WHY_MAX);
}

/*
 * Are all @n claims one inode fork's mappings (not bmbt blocks)?  Then
 * there is no other owner to weigh: the fork maps the blocks twice.
 */
static bool one_fork_twice(const struct xrp_claim *f, size_t n)
{
	const uint64_t flags = XRP_RMAP_FORK_FLAGS;

	if (n < 2 || !xrp_owner_inode(f[0].owner) ||
	    (f[0].offset & XFSJ_RMAP_OFF_BMBT_BLOCK))
		return false;
	for (size_t i = 1; i < n; i++)
		if (f[i].owner != f[0].owner ||
		    (f[i].offset & flags) != (f[0].offset & flags))
			return false;
	return true;
}

/* The fork of claim @c maps [@fsb, @fsb + @len) twice: its rebuild keeps
 * the blocks for its first mapping and trims the later one. */
static int add_self(struct xrp *rp, struct xck_vec *js,
		    const struct xrp_claim *c, uint64_t fsb, uint64_t len)
{
	struct xfsj_bmbt_irec r = { .startblock = fsb, .blockcount = len };
	struct job *j = job_get(rp, js, c->owner,
				!!(c->offset & XFSJ_RMAP_OFF_ATTR_FORK));

	if (!j || push_once(rp, &j->selfs, &r, fsb, drop_start))
		return -XFSJ_E_NOMEM;
	return 0;
}

/*
 * A block range claimed twice: the evidence model (evidence.h) decides.
 * Each inode fork mapping that gives way loses the range (its fork
 * rebuilt without it); each one that gets a copy gets a job to copy it
 * (fix_clone.c).  Metadata and bmbt blocks that give way are left to
 * the AG stage's rebuild and the bmbt's own fix.
 */
static int add_multi_prob(struct xrp *rp, struct xck_vec *js,
			  struct xrp_prob *pr)
{
	struct xrp_claim *f;
	const struct xfsj_rmap_rec **rec;
	struct xrp_decision d;
	struct xfsj_repair_why why;
	uint64_t s = pr->p.agbno, e = s + pr->p.count, fsb;
	size_t n, i;
	int err;

	if (!(pr->p.has & XFSJ_PF_AG) || pr->p.agno >= rp->ck->agcount)
		return 0;
	err = claims_scratch(rp, &f, &rec);
	if (err)
		return err;
	err = xrp_claims_gather(rp, &rp->ck->ags[pr->p.agno], s, e, f, rec,
				CLAIMS_MAX, &n);
	if (err)
		return 0;		/* too many claims: left */
	fsb = xfsj_agb_to_fsb(rp->sb, pr->p.agno, (uint32_t)s);
	if (one_fork_twice(f, n))
		return add_self(rp, js, &f[0], fsb, e - s);
	xrp_ev_decide(f, n, xfsj_fs_has(rp->fs, XFSJ_RO_COMPAT_REFLINK), &d);
	why_of(&d, &why);
	for (i = 0; i < n; i++) {
		struct xfsj_bmbt_irec drop = { .startblock = fsb,
					       .blockcount = e - s };
		struct xrp_clone cl = { .fsb = fsb, .len = e - s,
					.keeper = f[d.keeper].owner,
					.pr = pr };
		struct job *j;

		if ((f[i].verdict != XRP_V_GIVE_WAY &&
		     f[i].verdict != XRP_V_CLONE_COPY) ||
		    !xrp_owner_inode(f[i].owner) ||
		    (f[i].offset & XFSJ_RMAP_OFF_BMBT_BLOCK))
			continue;
		j = job_get(rp, js, f[i].owner,
			    !!(f[i].offset & XFSJ_RMAP_OFF_ATTR_FORK));
		if (!j)
			return -XFSJ_E_NOMEM;
		if (f[i].verdict == XRP_V_CLONE_COPY)
			err = push_once(rp, &j->clones, &cl, fsb, clone_start);
		else
			err = push_once(rp, &j->drops, &drop, fsb, drop_start);
		if (err)
			return -XFSJ_E_NOMEM;
		j->why = why;
		j->has_why = true;
	}
	return 0;
}

/* The first problem of @fix this round names for the job's inode. */
static struct xrp_prob *first_prob(struct xrp *rp, enum xfsj_fix fix,
				   const struct job *j)
{
	struct xrp_prob *pr;

	xrp_for_each(rp, pr, fix)
		if ((pr->p.has & XFSJ_PF_INO) && pr->p.ino == j->ino)
			return pr;
	return NULL;
}

/* Mark every problem of @fix naming the inode (or the range) answered. */
static void mark_done(struct xrp *rp, enum xfsj_fix fix, const struct job *j)
{
	struct xrp_prob *pr;

	xrp_for_each(rp, pr, fix)
		if ((pr->p.has & XFSJ_PF_INO) && pr->p.ino == j->ino)
			pr->done = true;
}

/*
 * inode.aformat: an attribute fork of a format no attribute fork has
 * cannot be read at all; it goes (empty, in extents format, its room
 * kept), its blocks left for the free space rebuild, and the parent
 * pointers it held are put back by their fix in a later round.
 */
static int clear_attr_fork(struct xrp *rp, struct xrp_prob *pr)
{
	struct xfsj_iref ip;
	uint32_t size;
	uint8_t *f;
	int err;

	err = xrp_iget(rp, pr->p.ino, &ip);
	if (err)
		return err < 0 ? err : 0;
	f = xfsj_ifork(rp->fs, &ip, XFSJ_ATTR_FORK, &size);
	if (!f)
		return 0;
	memset(f, 0, size);
	ip.di.aformat = XFSJ_DINODE_FMT_EXTENTS;
	if (ip.di.flags2 & XFSJ_DIFLAG2_NREXT64)
		ip.di.nextents = 0;
	else
		ip.di.anextents = 0;
	xfsj_iput(rp->fs, &ip, false);
	rp->recheck = true;
	xrp_ino_action(rp, pr, XFSJ_FIX_CLEAR_FORK, pr->p.ino,
		       "cleared the attr fork of inode %llu (format %llu)",
		       (unsigned long long)pr->p.ino,
		       (unsigned long long)pr->p.found);
	return 0;
}

static int apply(struct xrp *rp, enum xfsj_fix fix)
{
	struct xck_vec js;
	struct xrp_prob *pr;
	size_t i;
	int err = 0;

	xck_vec_init(&js, sizeof(struct job));
	xrp_for_each(rp, pr, fix)
		if (xrp_has(pr, XFSJ_T_CROSSLINK) && !pr->done)
			rp->res->clones_short = 0;	/* counted again */
	xrp_for_each(rp, pr, fix) {
		if (pr->done)
			continue;
		if (xrp_has(pr, XFSJ_T_CROSSLINK))
			err = add_multi_prob(rp, &js, pr);
		else if (xrp_names(pr, XFSJ_H_ATTR_FORK_CLEAR) &&
			 (pr->p.has & XFSJ_PF_INO))
			err = clear_attr_fork(rp, pr);
		else if ((pr->p.has & XFSJ_PF_INO) && is_fork_code(pr))
			err = add_fork_prob(rp, &js, pr);
		if (err)
			goto out;
	}
	for (i = 0; i < js.n; i++) {
		struct job *j = xck_vec_at(&js, i);
		uint64_t before = rp->res->actions;
		struct xrp_prob *q;

		for (q = rp->probs; q < rp->probs + rp->nprobs; q++)
			if (xrp_names(q, XFSJ_H_INODE_REFLINK) &&
			    q->p.ino == j->ino)
				j->reflink_prob = true;
		pr = first_prob(rp, fix, j);
		err = rebuild(rp, j, pr, fix);
		if (err)
			goto out;
		if (rp->res->actions != before)
			mark_done(rp, fix, j);
	}
	/* The ranges answered: the next round's check says what is left. */
	if (js.n)
		xrp_for_each(rp, pr, fix)
			if (xrp_has(pr, XFSJ_T_CROSSLINK))
				pr->done = true;
out:
	jobs_free(rp, &js);
	return err;
}

int xrp_fix_rebuild_bmbt(struct xrp *rp)
{
	return apply(rp, XFSJ_FIX_REBUILD_BMBT);
}

int xrp_fix_clear_fork(struct xrp *rp)
{
	return apply(rp, XFSJ_FIX_CLEAR_FORK);
}
