/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Reference counts (refcount.h), in the order the kernel's xfs_refcount
 * changes the refcount btree, so that the tree we leave has the records
 * (and, as far as the btree engine follows the kernel's, the blocks) the
 * kernel would leave.
 *
 * The btree keys records by their on-disk startblock, bit 31 included:
 * every shared record (count >= 2) sorts before every CoW staging record
 * (count exactly 1).  Blocks in use without a shared record have an
 * implied count of one; we call such a stretch a gap.
 *
 * Adjusting a range by +1 or -1 (and adding or removing a staging extent)
 * goes in three steps, as in the kernel:
 *   1. split any record that crosses either end of the range, so that
 *      records lie wholly inside or wholly outside it;
 *   2. merge at the ends: the first piece inside (a record or a gap) with
 *      the record just left of the range when its new count equals that
 *      record's, the last piece with the record just right of it likewise,
 *      or all three into one when the range is one piece;
 *   3. walk what is left of the range: change each record's count (a
 *      record reaching one is deleted); a gap becomes a record of count
 *      two on increase, and on decrease its blocks are no longer used by
 *      anyone, so they are queued to be freed.
 * The kernel may stop step 3 when its transaction runs short of log space
 * and requeue the rest; with records that are already maximal runs the
 * restart changes nothing, so we do the whole range at once.
 */
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"
#include "fs/alloc.h"
#include "fs/btree.h"
#include "fs/refcount.h"

/* Where refcount_root sits in the AGF, for fault reports. */

enum domain { DOM_SHARED, DOM_COW };

/* Step sizes, as the kernel's adjust values. */
#define ADJ_INCREASE	1
#define ADJ_DECREASE	(-1)
#define ADJ_COW_ALLOC	0
#define ADJ_COW_FREE	(-1)

/* A refcount extent in host form; !real means an implied gap of count 1. */
struct rext {
	uint32_t start, len, refcount;
	enum domain dom;
	bool real;
};

struct rctx {
	struct xfsj_fs *fs;
	const struct xfsj_sb *sb;
	struct xfsj_btree_cur *cur;
	struct xfsj_fault *f;
	uint32_t agno, agblocks, minbno;
};

static uint32_t encode_start(uint32_t bno, enum domain dom)
{
	bno &= ~XFSJ_REFC_COWFLAG;
	return dom == DOM_COW ? bno | XFSJ_REFC_COWFLAG : bno;
}

static uint32_t rext_end(const struct rext *r)
{
	return r->start + r->len;
}

static bool rext_valid(const struct rext *r)
{
	return r->start != XFSJ_NULLAGBLOCK;
}

static void rext_none(struct rext *r)
{
	memset(r, 0, sizeof(*r));
	r->start = XFSJ_NULLAGBLOCK;
}

/*
 * Faults name the AGF's refcount_root: the btree API does not say where
 * the record under a cursor lives on the device.
 */
static uint64_t fault_off(const struct rctx *c)
{
	return (xfsj_agb_to_daddr(c->sb, c->agno, 0) << 9) + c->sb->sectsize +
	       XFSJ_AGF_OFF(refcount_root);
}

static int corrupt(const struct rctx *c, const char *field, uint64_t value)
{
	return xfsj_fault_set(c->f, XFSJ_E_CORRUPT, "refcountbt record", field,
			      fault_off(c), value);
}

/*
 * Is [start, start + len) inside the AG and clear of its headers (the
 * kernel's xfs_verify_agbext: every block above the AGFL block)?
 */
static bool agbext_ok(const struct rctx *c, uint32_t start, uint32_t len)
{
	uint64_t last = (uint64_t)start + len - 1;

	if (!len || start <= c->minbno)
		return false;
	return last < c->agblocks;
}

static int ctx_init(struct rctx *c, struct xfsj_fs *fs, uint32_t agno,
		    bool write, struct xfsj_fault *f)
{
	const struct xfsj_sb *sb = xfsj_fs_sb(fs);

	memset(c, 0, sizeof(*c));
	c->fs = fs;
	c->sb = sb;
	c->f = f;
	c->agno = agno;
	if (agno >= sb->agcount)
		return xfsj_fault_set(f, XFSJ_E_RANGE, "refcount update",
				      "agno", 0, agno);
	c->agblocks = xfsj_fs_ag_blocks(fs, agno);
	/* The AGFL's block: the last one the AG headers occupy. */
	c->minbno = (uint32_t)((3U * sb->sectsize) >> sb->blocklog);
	return xfsj_btree_cur_new(fs, XFSJ_BT_REFC, agno,
				  write ? xfsj_alloc_block_source(XFSJ_BT_REFC)
					: NULL, f, &c->cur);
}

static void ctx_done(struct rctx *c)
{
	if (c->cur)
		xfsj_btree_cur_free(c->cur);
	c->cur = NULL;
}

/* ---- record access ---- */

static int lookup(struct rctx *c, enum xfsj_lookup dir, enum domain dom,
		  uint32_t bno, int *stat)
{
	union xfsj_btree_irec k = { .c = { encode_start(bno, dom), 0, 0 } };

	return xfsj_btree_lookup(c->cur, dir, &k, stat);
}

/* Decode and check a record the way xfs_refcount_check_irec does. */
static int rext_from_rec(const struct rctx *c, const struct xfsj_refc_rec *in,
			 struct rext *r)
{
	r->dom = (in->startblock & XFSJ_REFC_COWFLAG) ? DOM_COW : DOM_SHARED;
	r->start = in->startblock & ~XFSJ_REFC_COWFLAG;
	r->len = in->blockcount;
	r->refcount = in->refcount;
	r->real = true;
	if (!r->len)
		return corrupt(c, "blockcount", r->len);
	/* Staging extents have exactly one owner; shared ones at least two. */
	if (r->dom == DOM_COW && r->refcount != 1)
		return corrupt(c, "refcount", r->refcount);
	if (r->dom == DOM_SHARED && r->refcount < 2)
		return corrupt(c, "refcount", r->refcount);
	if (!agbext_ok(c, r->start, r->len))
		return corrupt(c, "startblock", in->startblock);
	return 0;
}

static int get(struct rctx *c, struct rext *r, int *stat)
{
	union xfsj_btree_irec rec;
	int err = xfsj_btree_get_rec(c->cur, &rec, stat);

	if (err || !*stat)
		return err;
	return rext_from_rec(c, &rec.c, r);
}

/* Like get(), but the cursor must be on a record. */
static int get_one(struct rctx *c, struct rext *r)
{
	int stat, err = get(c, r, &stat);

	if (err)
		return err;
	return stat ? 0 : corrupt(c, "missing record", 0);
}

static void to_rec(const struct rext *r, union xfsj_btree_irec *rec)
{
	rec->c.startblock = encode_start(r->start, r->dom);
	rec->c.blockcount = r->len;
	rec->c.refcount = r->refcount;
}

static int update(struct rctx *c, const struct rext *r)
{
	union xfsj_btree_irec rec;

	to_rec(r, &rec);
	return xfsj_btree_update(c->cur, &rec);
}

/*
 * Insert @r.  The kernel inserts where its cursor stands, which is always
 * the first record at or after the new key; a GE lookup puts us there.
 */
static int insert(struct rctx *c, const struct rext *r)
{
	union xfsj_btree_irec rec;
	int stat, err;

	err = lookup(c, XFSJ_LOOKUP_GE, r->dom, r->start, &stat);
	if (err)
		return err;
	to_rec(r, &rec);
	err = xfsj_btree_insert(c->cur, &rec, &stat);
	if (err)
		return err;
	return stat == 1 ? 0 : corrupt(c, "insert", r->start);
}

/* Delete the record under the cursor; leave the cursor where it was. */
static int delete(struct rctx *c)
{
	struct rext r;
	int stat, err;

	err = get_one(c, &r);
	if (err)
		return err;
	err = xfsj_btree_delete(c->cur, &stat);
	if (err)
		return err;
	if (stat != 1)
		return corrupt(c, "delete", r.start);
	return lookup(c, XFSJ_LOOKUP_GE, r.dom, r.start, &stat);
}

/* Put the cursor on the record starting at @bno (LE lookup, must hit). */
static int seek(struct rctx *c, enum domain dom, uint32_t bno)
{
	int stat, err = lookup(c, XFSJ_LOOKUP_LE, dom, bno, &stat);

	if (err)
		return err;
	return stat ? 0 : corrupt(c, "missing record", bno);
}

/* ---- step 1: split ---- */

static int split_at(struct rctx *c, enum domain dom, uint32_t bno)
{
	struct rext r, piece;
	int stat, err;

	err = lookup(c, XFSJ_LOOKUP_LE, dom, bno, &stat);
	if (err || !stat)
		return err;
	err = get_one(c, &r);
	if (err)
		return err;
	if (r.dom != dom || r.start == bno || rext_end(&r) <= bno)
		return 0;
	/* The record keeps its place with the right half... */
	piece = r;
	piece.start = bno;
	piece.len = rext_end(&r) - bno;
	err = update(c, &piece);
	if (err)
		return err;
	/* ...and the left half goes in front of it. */
	piece = r;
	piece.len = bno - r.start;
	return insert(c, &piece);
}

/* ---- step 2: merge at the ends ---- */

static struct rext gap(uint32_t start, uint32_t len, enum domain dom)
{
	struct rext g = { start, len, 1, dom, false };

	return g;
}

/*
 * The record ending just at @bno (*left) and the first piece of the range
 * (*cleft: the record starting at @bno, or the gap up to the next one).
 */
static int find_left(struct rctx *c, enum domain dom, uint32_t bno,
		     uint32_t len, struct rext *left, struct rext *cleft)
{
	struct rext t;
	int stat, err;

	rext_none(left);
	rext_none(cleft);
	if (bno == 0)
		return 0;
	err = lookup(c, XFSJ_LOOKUP_LE, dom, bno - 1, &stat);
	if (err || !stat)
		return err;
	err = get_one(c, &t);
	if (err)
		return err;
	if (t.dom != dom || rext_end(&t) != bno)
		return 0;
	*left = t;

	err = xfsj_btree_increment(c->cur, 0, &stat);
	if (err)
		return err;
	if (stat) {
		err = get_one(c, &t);
		if (err)
			return err;
	}
	if (!stat || t.dom != dom)
		*cleft = gap(bno, len, dom);
	else if (t.start == bno)
		*cleft = t;
	else if (t.start < bno)
		return corrupt(c, "startblock", t.start);
	else
		*cleft = gap(bno, t.start - bno < len ? t.start - bno : len,
			     dom);
	return 0;
}

/*
 * The record starting just at @bno + @len (*right) and the last piece of
 * the range (*cright: the record ending there, or the gap before it).
 */
static int find_right(struct rctx *c, enum domain dom, uint32_t bno,
		      uint32_t len, struct rext *right, struct rext *cright)
{
	uint32_t end = bno + len;
	struct rext t;
	int stat, err;

	rext_none(right);
	rext_none(cright);
	err = lookup(c, XFSJ_LOOKUP_GE, dom, end, &stat);
	if (err || !stat)
		return err;
	err = get_one(c, &t);
	if (err)
		return err;
	if (t.dom != dom || t.start != end)
		return 0;
	*right = t;

	err = xfsj_btree_decrement(c->cur, 0, &stat);
	if (err)
		return err;
	if (stat) {
		err = get_one(c, &t);
		if (err)
			return err;
	}
	if (!stat || t.dom != dom) {
		*cright = gap(bno, len, dom);
	} else if (rext_end(&t) == end) {
		*cright = t;
	} else if (rext_end(&t) > end) {
		return corrupt(c, "blockcount", t.len);
	} else {
		uint32_t from = rext_end(&t) > bno ? rext_end(&t) : bno;

		*cright = gap(from, end - from, dom);
	}
	return 0;
}

static uint32_t new_count(const struct rext *r, int adj)
{
	if (r->refcount == XFSJ_REFC_MAX_COUNT)
		return XFSJ_REFC_MAX_COUNT;
	return r->refcount + (uint32_t)adj;
}

static bool want_center(const struct rext *left, const struct rext *cleft,
			const struct rext *cright, const struct rext *right,
			bool one_piece, int adj, uint64_t *total)
{
	uint32_t n;

	if (!rext_valid(left) || !rext_valid(right) || !rext_valid(cleft) ||
	    !rext_valid(cright) || !one_piece)
		return false;
	n = new_count(cleft, adj);
	if (left->refcount != n || right->refcount != n)
		return false;
	*total = (uint64_t)left->len + cleft->len + right->len;
	return *total < XFSJ_REFC_MAX_EXTLEN;
}

static bool want_side(const struct rext *outer, const struct rext *inner,
		      int adj)
{
	if (!rext_valid(outer) || !rext_valid(inner))
		return false;
	if (outer->refcount != new_count(inner, adj))
		return false;
	return (uint64_t)outer->len + inner->len < XFSJ_REFC_MAX_EXTLEN;
}

/* left, the one-piece range and right become one record. */
static int merge_center(struct rctx *c, struct rext *left,
			const struct rext *center, uint64_t total,
			uint32_t *len)
{
	int stat, err;

	/*
	 * The first record at the range's start is the centre if it is a
	 * record, else already the right one: delete one or both.
	 */
	err = lookup(c, XFSJ_LOOKUP_GE, center->dom, center->start, &stat);
	if (err)
		return err;
	if (!stat)
		return corrupt(c, "missing record", center->start);
	err = delete(c);
	if (!err && center->real)
		err = delete(c);
	if (err)
		return err;
	err = seek(c, left->dom, left->start);
	if (err)
		return err;
	left->len = (uint32_t)total;
	err = update(c, left);
	if (!err)
		*len = 0;
	return err;
}

static int merge_left(struct rctx *c, struct rext *left,
		      const struct rext *cleft, uint32_t *bno, uint32_t *len)
{
	int err;

	if (cleft->real) {
		err = seek(c, cleft->dom, cleft->start);
		if (!err)
			err = delete(c);
		if (err)
			return err;
	}
	err = seek(c, left->dom, left->start);
	if (err)
		return err;
	left->len += cleft->len;
	err = update(c, left);
	if (err)
		return err;
	*bno += cleft->len;
	*len -= cleft->len;
	return 0;
}

static int merge_right(struct rctx *c, struct rext *right,
		       const struct rext *cright, uint32_t *len)
{
	int err;

	if (cright->real) {
		err = seek(c, cright->dom, cright->start);
		if (!err)
			err = delete(c);
		if (err)
			return err;
	}
	err = seek(c, right->dom, right->start);
	if (err)
		return err;
	right->start -= cright->len;
	right->len += cright->len;
	err = update(c, right);
	if (!err)
		*len -= cright->len;
	return err;
}

static int merge_ends(struct rctx *c, enum domain dom, uint32_t *bno,
		      uint32_t *len, int adj)
{
	struct rext left, cleft, cright, right;
	uint64_t total;
	bool one_piece;
	int err;

	err = find_left(c, dom, *bno, *len, &left, &cleft);
	if (!err)
		err = find_right(c, dom, *bno, *len, &right, &cright);
	if (err)
		return err;
	if (!rext_valid(&left) && !rext_valid(&right))
		return 0;
	one_piece = cleft.start == cright.start && cleft.len == cright.len;
	if (want_center(&left, &cleft, &cright, &right, one_piece, adj, &total))
		return merge_center(c, &left, &cleft, total, len);
	if (want_side(&left, &cleft, adj)) {
		err = merge_left(c, &left, &cleft, bno, len);
		/* The only piece went left: nothing remains for the right. */
		if (err || one_piece)
			return err;
	}
	if (want_side(&right, &cright, adj))
		return merge_right(c, &right, &cright, len);
	return 0;
}

/* ---- step 3: the middle ---- */

static int queue_free(struct rctx *c, uint32_t start, uint32_t len)
{
	/*
	 * No rmap change: the owner's reverse mapping goes with the unmap
	 * that dropped the last reference, not with the free.
	 */
	struct xfsj_work w = {
		.kind = XFSJ_W_FREE,
		.fsbno = xfsj_agb_to_fsb(c->sb, c->agno, start),
		.len = len,
		.free.oi.owner = XFSJ_RMAP_OWN_NULL,
	};

	return xfsj_defer_add(c->fs, &w);
}

static int adjust_middle(struct rctx *c, uint32_t bno, uint32_t len, int adj)
{
	struct rext ext;
	int stat, err;

	if (!len)
		return 0;
	err = lookup(c, XFSJ_LOOKUP_GE, DOM_SHARED, bno, &stat);
	if (err)
		return err;
	while (len) {
		err = get(c, &ext, &stat);
		if (err)
			return err;
		if (!stat || ext.dom != DOM_SHARED) {
			/* Nothing further: a gap up to the end of the AG. */
			ext = gap(c->agblocks, 0, DOM_SHARED);
			ext.refcount = 0;
		}
		if (ext.start < bno)
			return corrupt(c, "startblock", ext.start);
		if (ext.start != bno) {
			struct rext g = gap(bno, ext.start - bno < len ?
					    ext.start - bno : len, DOM_SHARED);

			if (adj > 0) {
				g.refcount = 2;
				err = insert(c, &g);
			} else {
				err = queue_free(c, g.start, g.len);
			}
			if (err)
				return err;
			bno += g.len;
			len -= g.len;
			if (!len)
				break;
			err = lookup(c, XFSJ_LOOKUP_GE, DOM_SHARED, bno, &stat);
			if (err)
				return err;
		}
		/* The splits left no record reaching past the range. */
		if (!ext.len || ext.len > len)
			return corrupt(c, "blockcount", ext.len);
		if (ext.refcount != XFSJ_REFC_MAX_COUNT) {
			ext.refcount += (uint32_t)adj;
			if (ext.refcount == 1) {
				/* One owner left: no record at all. */
				err = delete(c);
				if (err)
					return err;
				bno += ext.len;
				len -= ext.len;
				continue;
			}
			/*
			 * A count of zero needs a record of count one, which
			 * get() refuses; the kernel frees such blocks too.
			 */
			if (ext.refcount > 1)
				err = update(c, &ext);
			else
				err = queue_free(c, ext.start, ext.len);
			if (err)
				return err;
		}
		err = xfsj_btree_increment(c->cur, 0, &stat);
		if (err)
			return err;
		bno += ext.len;
		len -= ext.len;
	}
	return 0;
}

static int adjust_shared(struct rctx *c, uint32_t bno, uint32_t len, int adj)
{
	int err;

	err = split_at(c, DOM_SHARED, bno);
	if (!err)
		err = split_at(c, DOM_SHARED, bno + len);
	if (!err)
		err = merge_ends(c, DOM_SHARED, &bno, &len, adj);
	if (!err)
		err = adjust_middle(c, bno, len, adj);
	return err;
}

/* ---- CoW staging extents ---- */

/* The first staging record at or after @bno, or a stand-in past the AG. */
static int next_cow(struct rctx *c, uint32_t bno, struct rext *r)
{
	int stat, err;

	err = lookup(c, XFSJ_LOOKUP_GE, DOM_COW, bno, &stat);
	if (!err && stat)
		err = get(c, r, &stat);
	if (err)
		return err;
	if (!stat) {
		*r = gap(c->agblocks, 0, DOM_COW);
		r->refcount = 0;
	} else if (r->dom != DOM_COW) {
		return corrupt(c, "startblock", r->start);
	}
	return 0;
}

/* Refuse a new staging extent over an old one, before changing anything. */
static int cow_clear(struct rctx *c, uint32_t bno, uint32_t len)
{
	struct rext r;
	int stat, err;

	err = lookup(c, XFSJ_LOOKUP_LE, DOM_COW, bno, &stat);
	if (!err && stat)
		err = get(c, &r, &stat);
	if (err)
		return err;
	if (stat && r.dom == DOM_COW && rext_end(&r) > bno)
		return corrupt(c, "startblock", r.start);
	err = next_cow(c, bno, &r);
	if (err)
		return err;
	if ((uint64_t)bno + len > r.start)
		return corrupt(c, "startblock", r.start);
	return 0;
}

static int adjust_cow(struct rctx *c, uint32_t bno, uint32_t len, int adj)
{
	struct rext ext;
	int err;

	/*
	 * The kernel notices an overlap only after merging, and its merge
	 * would already have stretched a neighbour over the old record.
	 */
	if (adj == ADJ_COW_ALLOC) {
		err = cow_clear(c, bno, len);
		if (err)
			return err;
	}
	err = split_at(c, DOM_COW, bno);
	if (!err)
		err = split_at(c, DOM_COW, bno + len);
	if (err)
		return err;
	err = merge_ends(c, DOM_COW, &bno, &len, adj);
	if (err || !len)
		return err;
	if (adj == ADJ_COW_ALLOC) {
		/* cow_clear saw to it that nothing lies in the way. */
		ext = gap(bno, len, DOM_COW);
		ext.real = true;
		return insert(c, &ext);
	}
	/* Removing: exactly one staging record must cover the range. */
	err = next_cow(c, bno, &ext);
	if (err)
		return err;
	if (ext.start != bno)
		return corrupt(c, "startblock", ext.start);
	if (ext.len != len)
		return corrupt(c, "blockcount", ext.len);
	return delete(c);
}

/* ---- deferred work ---- */

int xfsj_refcount_finish(struct xfsj_fs *fs, const struct xfsj_work *w,
			 struct xfsj_fault *f)
{
	const struct xfsj_sb *sb = xfsj_fs_sb(fs);
	uint32_t agno = xfsj_fsb_agno(sb, w->fsbno);
	uint32_t bno = xfsj_fsb_agbno(sb, w->fsbno);
	struct rctx c;
	int err;

	if (w->kind != XFSJ_W_REFC)
		return xfsj_fault_set(f, XFSJ_E_INVAL, "refcount update",
				      "kind", 0, w->kind);
	if (!xfsj_fs_has(fs, XFSJ_RO_COMPAT_REFLINK))
		return xfsj_fault_set(f, XFSJ_E_CORRUPT, "refcount update",
				      "reflink feature", 0, 0);
	if (w->fsbno >> sb->agblklog >= sb->agcount)
		return xfsj_fault_set(f, XFSJ_E_CORRUPT, "refcount update",
				      "startblock", 0, w->fsbno);
	err = ctx_init(&c, fs, agno, true, f);
	if (err)
		return err;
	if (!agbext_ok(&c, bno, w->len)) {
		ctx_done(&c);
		return xfsj_fault_set(f, XFSJ_E_CORRUPT, "refcount update",
				      "startblock", 0, w->fsbno);
	}
	switch (w->refc.op) {
	case XFSJ_REFC_INCREASE:
		err = adjust_shared(&c, bno, w->len, ADJ_INCREASE);
		break;
	case XFSJ_REFC_DECREASE:
		err = adjust_shared(&c, bno, w->len, ADJ_DECREASE);
		break;
	case XFSJ_REFC_ALLOC_COW:
		err = adjust_cow(&c, bno, w->len, ADJ_COW_ALLOC);
		break;
	case XFSJ_REFC_FREE_COW:
		err = adjust_cow(&c, bno, w->len, ADJ_COW_FREE);
		break;
	default:
		err = xfsj_fault_set(f, XFSJ_E_CORRUPT, "refcount update",
				     "type", 0, w->refc.op);
		break;
	}
	ctx_done(&c);
	return err;
}

static int queue_refc(struct xfsj_fs *fs, enum xfsj_refc_op op,
		      uint64_t fsbno, uint32_t len)
{
	struct xfsj_work w = {
		.kind = XFSJ_W_REFC, .fsbno = fsbno, .len = len,
		.refc.op = op,
	};

	return xfsj_defer_add(fs, &w);
}

/* The reverse mapping of a staging extent: owner OWN_COW, no file offset. */
static int queue_cow_rmap(struct xfsj_fs *fs, enum xfsj_rmap_op op,
			  uint64_t fsbno, uint32_t len)
{
	struct xfsj_work w = {
		.kind = XFSJ_W_RMAP, .fsbno = fsbno, .len = len,
		.rmap.op = op, .rmap.owner = XFSJ_RMAP_OWN_COW,
	};

	if (!xfsj_fs_has(fs, XFSJ_RO_COMPAT_RMAPBT))
		return 0;
	return xfsj_defer_add(fs, &w);
}

int xfsj_refcount_increase_extent(struct xfsj_fs *fs, uint64_t fsbno,
				  uint32_t len)
{
	if (!xfsj_fs_has(fs, XFSJ_RO_COMPAT_REFLINK))
		return 0;
	return queue_refc(fs, XFSJ_REFC_INCREASE, fsbno, len);
}

int xfsj_refcount_decrease_extent(struct xfsj_fs *fs, uint64_t fsbno,
				  uint32_t len)
{
	if (!xfsj_fs_has(fs, XFSJ_RO_COMPAT_REFLINK))
		return 0;
	return queue_refc(fs, XFSJ_REFC_DECREASE, fsbno, len);
}

int xfsj_refcount_alloc_cow_extent(struct xfsj_fs *fs, uint64_t fsbno,
				   uint32_t len)
{
	int err;

	if (!xfsj_fs_has(fs, XFSJ_RO_COMPAT_REFLINK))
		return 0;
	err = queue_refc(fs, XFSJ_REFC_ALLOC_COW, fsbno, len);
	if (!err)
		err = queue_cow_rmap(fs, XFSJ_RMAP_ALLOC, fsbno, len);
	return err;
}

int xfsj_refcount_free_cow_extent(struct xfsj_fs *fs, uint64_t fsbno,
				  uint32_t len)
{
	int err;

	if (!xfsj_fs_has(fs, XFSJ_RO_COMPAT_REFLINK))
		return 0;
	/* The kernel queues the rmap removal first, then the record's. */
	err = queue_cow_rmap(fs, XFSJ_RMAP_FREE, fsbno, len);
	if (!err)
		err = queue_refc(fs, XFSJ_REFC_FREE_COW, fsbno, len);
	return err;
}

/* ---- CoW leftovers at mount ---- */

struct cow_list {
	struct rctx *c;
	struct rext *v;
	size_t n, cap;
};

static int collect_cow(struct xfsj_btree_cur *cur,
		       const union xfsj_btree_irec *rec, void *arg)
{
	struct cow_list *l = arg;
	struct rext r;
	int err;

	(void)cur;
	if (rec->c.refcount != 1)
		return corrupt(l->c, "refcount", rec->c.refcount);
	err = rext_from_rec(l->c, &rec->c, &r);
	if (err)
		return err;
	if (r.dom != DOM_COW)
		return corrupt(l->c, "startblock", rec->c.startblock);
	if (xfsj_grow(&l->v, &l->cap, l->n, 1, sizeof(*l->v), 16))
		return -XFSJ_E_NOMEM;
	l->v[l->n++] = r;
	return 0;
}

int xfsj_refcount_recover_cow(struct xfsj_fs *fs, uint32_t agno,
			      uint64_t *freed, struct xfsj_fault *f)
{
	const struct xfsj_sb *sb = xfsj_fs_sb(fs);
	union xfsj_btree_irec lo = { .c = { XFSJ_REFC_COWFLAG, 0, 0 } };
	union xfsj_btree_irec hi = { .c = { UINT32_MAX, 0, 0 } };
	struct cow_list l = { 0 };
	struct rctx c;
	int err;

	*freed = 0;
	if (!xfsj_fs_has(fs, XFSJ_RO_COMPAT_REFLINK))
		return 0;
	if (sb->agblocks > XFSJ_REFC_MAX_AG_BLOCKS)
		return xfsj_fault_set(f, XFSJ_E_UNSUPP, "superblock",
				      "agblocks", 84, sb->agblocks);
	/* Gather first: nothing may change the tree under the query. */
	err = ctx_init(&c, fs, agno, false, f);
	if (err)
		return err;
	l.c = &c;
	err = xfsj_btree_query_range(c.cur, &lo, &hi, collect_cow, &l);
	ctx_done(&c);

	/* One transaction per extent in the kernel: finish each in turn. */
	for (size_t i = 0; !err && i < l.n; i++) {
		uint64_t fsbno = xfsj_agb_to_fsb(sb, agno, l.v[i].start);
		struct xfsj_work w = {
			.kind = XFSJ_W_FREE, .fsbno = fsbno, .len = l.v[i].len,
			.free.oi.owner = XFSJ_RMAP_OWN_NULL,
		};

		err = xfsj_refcount_free_cow_extent(fs, fsbno, l.v[i].len);
		if (!err)
			err = xfsj_defer_add(fs, &w);
		if (!err)
			err = xfsj_defer_finish(fs, f);
		if (!err)
			(*freed)++;
	}
	free(l.v);
	return err;
}
