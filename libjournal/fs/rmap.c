/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Reverse mappings (rmap.h), following the kernel's xfs_rmap.c: the same
 * neighbour tests, merges, trims and splits, done with the same sequence
 * of cursor moves, updates, deletes and inserts so that the rmapbt keeps
 * the kernel's shape.
 *
 * Records whose owner is not an inode (the negative OWN_* codes) and
 * bmbt-block records carry no file offset: their offsets never need to
 * be contiguous to merge.
 */
#include <string.h>

#include "fs/rmap.h"
#include "ondisk/rmap_merge.h"


/* A record in host form: the offset without its flag bits. */
struct irec {
	uint32_t start, len;
	uint64_t owner, off;
	bool attr, bmbt, unwritten;
};

struct rctx {
	struct xfsj_fs *fs;
	uint32_t agno;
	struct xfsj_fault *f;
	struct xfsj_btree_cur *cur;
};

static bool non_inode(uint64_t owner)
{
	return (owner >> 63) != 0;
}

static void pack(const struct irec *i, union xfsj_btree_irec *r)
{
	memset(r, 0, sizeof(*r));
	r->r.startblock = i->start;
	r->r.blockcount = i->len;
	r->r.owner = i->owner;
	r->r.offset = (i->off & XFSJ_RMAP_OFF_MASK) |
		      (i->attr ? XFSJ_RMAP_OFF_ATTR_FORK : 0) |
		      (i->bmbt ? XFSJ_RMAP_OFF_BMBT_BLOCK : 0) |
		      (i->unwritten ? XFSJ_RMAP_OFF_UNWRITTEN : 0);
}

static void unpack(const union xfsj_btree_irec *r, struct irec *i)
{
	i->start = r->r.startblock;
	i->len = r->r.blockcount;
	i->owner = r->r.owner;
	i->off = r->r.offset & XFSJ_RMAP_OFF_MASK;
	i->attr = (r->r.offset & XFSJ_RMAP_OFF_ATTR_FORK) != 0;
	i->bmbt = (r->r.offset & XFSJ_RMAP_OFF_BMBT_BLOCK) != 0;
	i->unwritten = (r->r.offset & XFSJ_RMAP_OFF_UNWRITTEN) != 0;
}

static uint64_t agf_off(struct rctx *c)
{
	const struct xfsj_sb *sb = xfsj_fs_sb(c->fs);

	return (xfsj_agb_to_daddr(sb, c->agno, 0) << 9) + sb->sectsize;
}

static int bad(struct rctx *c, const char *field, uint64_t value)
{
	return xfsj_fault_set(c->f, XFSJ_E_CORRUPT, "rmapbt", field,
			      agf_off(c), value);
}

static int get(struct rctx *c, struct irec *i)
{
	union xfsj_btree_irec r;
	int stat, err = xfsj_btree_get_rec(c->cur, &r, &stat);

	if (err)
		return err;
	if (!stat)
		return bad(c, "cursor", 0);
	unpack(&r, i);
	if (!i->len || i->start + (uint64_t)i->len >
	    xfsj_fs_ag_blocks(c->fs, c->agno))
		return bad(c, "record", i->start);
	return 0;
}

/* Look up @key (its length is ignored by the tree's key). */
static int lookup(struct rctx *c, enum xfsj_lookup dir, const struct irec *key,
		  int *stat)
{
	union xfsj_btree_irec r;

	pack(key, &r);
	return xfsj_btree_lookup(c->cur, dir, &r, stat);
}

static int lookup_le(struct rctx *c, uint32_t bno, const struct irec *who,
		     struct irec *out, int *stat)
{
	struct irec k = *who;
	int err;

	k.start = bno;
	k.len = 0;
	err = lookup(c, XFSJ_LOOKUP_LE, &k, stat);
	if (err || !*stat || !out)
		return err;
	return get(c, out);
}

static int update(struct rctx *c, const struct irec *i)
{
	union xfsj_btree_irec r;

	pack(i, &r);
	return xfsj_btree_update(c->cur, &r);
}

/* Insert at the cursor, where the last lookup or move left it. */
static int insert_here(struct rctx *c, const struct irec *i)
{
	union xfsj_btree_irec r;
	int stat, err;

	pack(i, &r);
	err = xfsj_btree_insert(c->cur, &r, &stat);
	if (!err && stat != 1)
		err = bad(c, "insert", i->start);
	return err;
}

static int delete_here(struct rctx *c)
{
	int stat, err = xfsj_btree_delete(c->cur, &stat);

	if (!err && stat != 1)
		err = bad(c, "delete", 0);
	return err;
}

static int step(struct rctx *c, bool inc, int *stat)
{
	return inc ? xfsj_btree_increment(c->cur, 0, stat) :
		     xfsj_btree_decrement(c->cur, 0, stat);
}

/* xfs_rmap_insert: a lookup that must miss, then the insert. */
static int rinsert(struct rctx *c, const struct irec *i)
{
	int stat, err = lookup(c, XFSJ_LOOKUP_EQ, i, &stat);

	if (!err && stat)
		err = bad(c, "duplicate", i->start);
	return err ? err : insert_here(c, i);
}

/* xfs_rmap_delete / the lookup before an update: must hit. */
static int find_eq(struct rctx *c, const struct irec *i)
{
	int stat, err = lookup(c, XFSJ_LOOKUP_EQ, i, &stat);

	if (!err && !stat)
		err = bad(c, "missing record", i->start);
	return err;
}

static int rdelete(struct rctx *c, const struct irec *i)
{
	int err = find_eq(c, i);

	return err ? err : delete_here(c);
}

static bool mergeable(const struct irec *r, const struct irec *who)
{
	union xfsj_btree_irec a, b;

	pack(r, &a);
	pack(who, &b);
	return xfsj_rmap_same_kind(&a.r, &b.r);
}

static bool ignore_off(const struct irec *who)
{
	return non_inode(who->owner) || who->bmbt;
}

/* ---- map / unmap (xfs_rmap_map, xfs_rmap_unmap) ---- */

static int rmap_map(struct rctx *c, uint32_t bno, uint32_t len,
		    const struct irec *who)
{
	bool io = ignore_off(who);
	struct irec lt, gt;
	int have_lt, have_gt, stat, err;

	err = lookup_le(c, bno, who, &lt, &have_lt);
	if (err)
		return err;
	if (have_lt && !mergeable(&lt, who))
		have_lt = 0;
	if (have_lt && lt.start + (uint64_t)lt.len > bno)
		return bad(c, "overlapping map", bno);

	if ((err = xfsj_btree_increment(c->cur, 0, &have_gt)))
		return err;
	if (have_gt) {
		if ((err = get(c, &gt)))
			return err;
		if (bno + (uint64_t)len > gt.start)
			return bad(c, "overlapping map", bno);
		if (!mergeable(&gt, who))
			have_gt = 0;
	}

	if (have_lt && lt.start + lt.len == bno &&
	    (io || lt.off + lt.len == who->off)) {
		lt.len += len;
		if (have_gt && bno + len == gt.start &&
		    (io || who->off + len == gt.off) &&
		    (uint64_t)lt.len + gt.len <= XFSJ_RMAP_LEN_MAX) {
			lt.len += gt.len;
			if ((err = delete_here(c)))
				return err;
		}
		if ((err = xfsj_btree_decrement(c->cur, 0, &stat)))
			return err;
		return update(c, &lt);
	}
	if (have_gt && bno + len == gt.start &&
	    (io || who->off + len == gt.off)) {
		gt.start = bno;
		gt.len += len;
		if (!io)
			gt.off = who->off;
		return update(c, &gt);
	}
	{
		struct irec n = *who;

		n.start = bno;
		n.len = len;
		if (io)
			n.off = 0;
		return insert_here(c, &n);
	}
}

static int check_owner(struct rctx *c, const struct irec *rec, uint32_t len,
		       const struct irec *who)
{
	if (who->owner == XFSJ_RMAP_OWN_UNKNOWN)
		return 0;
	if (rec->unwritten != who->unwritten)
		return bad(c, "unwritten", rec->start);
	if (rec->owner != who->owner)
		return bad(c, "owner", rec->owner);
	if (non_inode(who->owner))
		return 0;
	if (who->bmbt) {
		if (!rec->bmbt)
			return bad(c, "bmbt flag", rec->start);
	} else if (rec->off > who->off ||
		   who->off + len > rec->off + rec->len) {
		return bad(c, "offset", rec->off);
	}
	return 0;
}

static int rmap_unmap(struct rctx *c, uint32_t bno, uint32_t len,
		      const struct irec *who)
{
	bool io = ignore_off(who);
	struct irec lt;
	int stat, err;

	/* The AG headers' record at block 0 is always on the left. */
	err = lookup_le(c, bno, who, &lt, &stat);
	if (err)
		return err;
	if (!stat)
		return bad(c, "no left record", bno);

	if (who->owner == XFSJ_RMAP_OWN_NULL) {
		if (bno < lt.start + (uint64_t)lt.len)
			return bad(c, "unowned space is mapped", bno);
		return 0;
	}
	/*
	 * A recovered EFI does not know the owner: the whole range must be
	 * mapped or nothing of it (an RUI already removed the mapping).
	 */
	if (who->owner == XFSJ_RMAP_OWN_UNKNOWN &&
	    lt.start + (uint64_t)lt.len <= bno) {
		struct irec rt;

		if ((err = xfsj_btree_increment(c->cur, 0, &stat)))
			return err;
		if (!stat)
			return 0;
		if ((err = get(c, &rt)))
			return err;
		if (rt.start >= bno + (uint64_t)len)
			return 0;
	}
	if (lt.start > bno || lt.start + (uint64_t)lt.len < bno + (uint64_t)len)
		return bad(c, "unmapped range", bno);
	if ((err = check_owner(c, &lt, len, who)))
		return err;

	if (lt.start == bno && lt.len == len)
		return delete_here(c);
	if (lt.start == bno) {
		lt.start += len;
		lt.len -= len;
		if (!io)
			lt.off += len;
		return update(c, &lt);
	}
	if (lt.start + lt.len == bno + len) {
		lt.len -= len;
		return update(c, &lt);
	}
	{
		uint32_t orig = lt.len;
		struct irec n = *who;

		lt.len = bno - lt.start;
		if ((err = update(c, &lt)))
			return err;
		if ((err = xfsj_btree_increment(c->cur, 0, &stat)))
			return err;
		n.start = bno + len;
		n.len = orig - len - lt.len;
		n.owner = lt.owner;
		n.off = io ? 0 : who->off + len;
		return insert_here(c, &n);
	}
}

/* ---- the shared (reflink) forms ---- */

struct nb_query {
	const struct irec *want;	/* owner and wanted offset */
	bool adjacent;			/* left neighbour, else overlap */
	struct irec found;
	bool hit;
};

static bool nb_match(const struct nb_query *q, const struct irec *r)
{
	if (r->owner != q->want->owner)
		return false;
	if (non_inode(r->owner) || r->bmbt)
		return true;
	if (q->adjacent)
		return r->off + r->len - 1 == q->want->off;
	return r->off <= q->want->off && r->off + r->len > q->want->off;
}

static int nb_fn(struct xfsj_btree_cur *cur, const union xfsj_btree_irec *rec,
		 void *arg)
{
	struct nb_query *q = arg;
	struct irec r;

	(void)cur;
	unpack(rec, &r);
	if (!nb_match(q, &r))
		return 0;
	q->found = r;
	q->hit = true;
	return 1;
}

/*
 * xfs_rmap_find_left_neighbor (@adjacent) and xfs_rmap_lookup_le_range:
 * a plain lookup first, then every record overlapping the key.
 */
static int find_shared(struct rctx *c, uint32_t bno, const struct irec *who,
		       bool adjacent, struct irec *out, int *stat)
{
	struct irec key = *who, le;
	struct nb_query q = { .want = &key, .adjacent = adjacent };
	union xfsj_btree_irec k;
	int found, err;

	*stat = 0;
	key.len = 0;
	if (adjacent) {
		if (!bno)
			return 0;
		key.start = bno - 1;
		if (!non_inode(who->owner) && !who->bmbt) {
			if (!who->off)
				return 0;
			key.off = who->off - 1;
		} else {
			key.off = 0;
		}
	} else {
		key.start = bno;
		if (non_inode(who->owner) || who->bmbt)
			key.off = 0;
	}
	err = lookup_le(c, bno, who, &le, &found);
	if (err)
		return err;
	if (found && nb_match(&q, &le)) {
		*out = le;
		*stat = 1;
		return 0;
	}
	pack(&key, &k);
	err = xfsj_btree_query_range(c->cur, &k, &k, nb_fn, &q);
	if (err < 0)
		return err;
	if (q.hit) {
		*out = q.found;
		*stat = 1;
	}
	return 0;
}

static int rmap_unmap_shared(struct rctx *c, uint32_t bno, uint32_t len,
			     const struct irec *who)
{
	struct irec lt;
	int stat, err;

	err = find_shared(c, bno, who, false, &lt, &stat);
	if (err)
		return err;
	if (!stat)
		return bad(c, "no mapping", bno);
	if (lt.start > bno || lt.start + (uint64_t)lt.len < bno + (uint64_t)len)
		return bad(c, "unmapped range", bno);
	if (lt.owner != who->owner)
		return bad(c, "owner", lt.owner);
	if (lt.unwritten != who->unwritten)
		return bad(c, "unwritten", bno);
	if (lt.off > who->off || who->off > lt.off + lt.len)
		return bad(c, "offset", lt.off);

	if (lt.start == bno && lt.len == len)
		return rdelete(c, &lt);
	if (lt.start == bno) {
		if ((err = rdelete(c, &lt)))
			return err;
		lt.start += len;
		lt.len -= len;
		lt.off += len;
		return rinsert(c, &lt);
	}
	if (lt.start + lt.len == bno + len) {
		if ((err = find_eq(c, &lt)))
			return err;
		lt.len -= len;
		return update(c, &lt);
	}
	{
		uint32_t orig = lt.len;
		struct irec n = lt;

		if ((err = find_eq(c, &lt)))
			return err;
		lt.len = bno - lt.start;
		if ((err = update(c, &lt)))
			return err;
		n.start = bno + len;
		n.len = orig - len - lt.len;
		n.off = who->off + len;
		return rinsert(c, &n);
	}
}

static int rmap_map_shared(struct rctx *c, uint32_t bno, uint32_t len,
			   const struct irec *who)
{
	struct irec lt, gt, key = *who;
	int have_lt, have_gt, err;

	err = find_shared(c, bno, who, true, &lt, &have_lt);
	if (err)
		return err;
	if (have_lt && !mergeable(&lt, who))
		have_lt = 0;

	key.start = bno + len;
	key.len = len;
	key.off = who->off + len;
	if ((err = lookup(c, XFSJ_LOOKUP_EQ, &key, &have_gt)))
		return err;
	if (have_gt) {
		if ((err = get(c, &gt)))
			return err;
		if (!mergeable(&gt, who))
			have_gt = 0;
	}

	if (have_lt && lt.start + lt.len == bno &&
	    lt.off + lt.len == who->off) {
		lt.len += len;
		if (have_gt && bno + len == gt.start &&
		    who->off + len == gt.off) {
			lt.len += gt.len;
			if ((err = rdelete(c, &gt)))
				return err;
		}
		if ((err = find_eq(c, &lt)))
			return err;
		return update(c, &lt);
	}
	if (have_gt && bno + len == gt.start && who->off + len == gt.off) {
		if ((err = rdelete(c, &gt)))
			return err;
		gt.start = bno;
		gt.len += len;
		gt.off = who->off;
		return rinsert(c, &gt);
	}
	key = *who;
	key.start = bno;
	key.len = len;
	return rinsert(c, &key);
}

/* ---- convert (xfs_rmap_convert, xfs_rmap_convert_shared) ---- */

#define LF	1	/* the range starts where PREV starts */
#define RF	2	/* ... and ends where PREV ends */
#define LC	4	/* the left neighbour merges with the new state */
#define RC	8	/* the right neighbour merges */

/*
 * Flip the unwritten state of [bno, bno + len) inside one record (PREV),
 * merging with neighbours of the new state.  @who carries the old state.
 */
static int rmap_convert(struct rctx *c, uint32_t bno, uint32_t len,
			const struct irec *who)
{
	struct irec prev, left, right, n, newwho = *who;
	uint64_t endoff = who->off + len;
	int state = 0, stat, err;

	newwho.unwritten = !who->unwritten;
	if (non_inode(who->owner) || who->attr || who->bmbt)
		return bad(c, "convert owner", who->owner);
	err = lookup_le(c, bno, who, &prev, &stat);
	if (err)
		return err;
	if (!stat || prev.owner != who->owner ||
	    prev.unwritten != who->unwritten || prev.off > who->off ||
	    prev.off + prev.len < endoff ||
	    prev.start + (uint64_t)(who->off - prev.off) != bno)
		return bad(c, "convert range", bno);
	if (prev.off == who->off)
		state |= LF;
	if (prev.off + prev.len == endoff)
		state |= RF;

	if ((err = xfsj_btree_decrement(c->cur, 0, &stat)))
		return err;
	if (stat) {
		if ((err = get(c, &left)))
			return err;
		if (left.start + (uint64_t)left.len > bno)
			return bad(c, "left overlap", left.start);
		if (left.start + left.len == bno &&
		    left.off + left.len == who->off &&
		    mergeable(&left, &newwho))
			state |= LC;
	}
	if ((err = xfsj_btree_increment(c->cur, 0, &stat)))
		return err;
	if (!stat)
		return bad(c, "convert cursor", bno);
	if ((err = xfsj_btree_increment(c->cur, 0, &stat)))
		return err;
	if (stat) {
		if ((err = get(c, &right)))
			return err;
		if (bno + (uint64_t)len > right.start)
			return bad(c, "right overlap", right.start);
		if (bno + len == right.start && endoff == right.off &&
		    mergeable(&right, &newwho))
			state |= RC;
	}
	if ((state & (LF | LC | RF | RC)) == (LF | LC | RF | RC) &&
	    (uint64_t)left.len + len + right.len > XFSJ_RMAP_LEN_MAX)
		state &= ~RC;
	/* Only neighbours of a filled end can touch the range. */
	if (!(state & LF))
		state &= ~LC;
	if (!(state & RF))
		state &= ~RC;

	if ((err = lookup_le(c, bno, who, NULL, &stat)))
		return err;
	if (!stat)
		return bad(c, "convert cursor", bno);

	switch (state) {
	case LF | LC | RF | RC:
		if ((err = step(c, true, &stat)) || (err = delete_here(c)) ||
		    (err = step(c, false, &stat)) || (err = delete_here(c)) ||
		    (err = step(c, false, &stat)))
			return err;
		n = left;
		n.len += prev.len + right.len;
		return update(c, &n);
	case LF | LC | RF:
		if ((err = delete_here(c)) || (err = step(c, false, &stat)))
			return err;
		n = left;
		n.len += prev.len;
		return update(c, &n);
	case LF | RF | RC:
		if ((err = step(c, true, &stat)) || (err = delete_here(c)) ||
		    (err = step(c, false, &stat)))
			return err;
		n = prev;
		n.len = len + right.len;
		n.unwritten = newwho.unwritten;
		return update(c, &n);
	case LF | RF:
		n = prev;
		n.unwritten = newwho.unwritten;
		return update(c, &n);
	case LF | LC:
		n = prev;
		n.off += len;
		n.start += len;
		n.len -= len;
		if ((err = update(c, &n)) || (err = step(c, false, &stat)))
			return err;
		n = left;
		n.len += len;
		return update(c, &n);
	case LF:
		n = prev;
		n.start += len;
		n.off += len;
		n.len -= len;
		if ((err = update(c, &n)))
			return err;
		n = newwho;
		n.start = bno;
		n.len = len;
		return insert_here(c, &n);
	case RF | RC:
		n = prev;
		n.len -= len;
		if ((err = update(c, &n)) || (err = step(c, true, &stat)))
			return err;
		n = right;
		n.off = who->off;
		n.start = bno;
		n.len += len;
		return update(c, &n);
	case RF:
		n = prev;
		n.len -= len;
		if ((err = update(c, &n)))
			return err;
		n = *who;
		n.start = bno;
		n.len = len;
		if ((err = lookup(c, XFSJ_LOOKUP_EQ, &n, &stat)))
			return err;
		if (stat)
			return bad(c, "duplicate", bno);
		n.unwritten = newwho.unwritten;
		return insert_here(c, &n);
	default:	/* the middle: one record becomes three */
		n = prev;
		n.start = bno + len;
		n.off = endoff;
		n.len = prev.off + prev.len - endoff;
		if ((err = update(c, &n)))
			return err;
		n = prev;
		n.len = (uint32_t)(who->off - prev.off);
		if ((err = insert_here(c, &n)))
			return err;
		n = *who;
		n.start = bno;
		n.len = len;
		if ((err = lookup(c, XFSJ_LOOKUP_EQ, &n, &stat)))
			return err;
		if (stat)
			return bad(c, "duplicate", bno);
		n.unwritten = newwho.unwritten;
		return insert_here(c, &n);
	}
}

/*
 * The reflink form: neighbours are found by owner and offset (other
 * owners' records may sit between), and any key change is a delete and
 * an insert.  The resulting records are the kernel's.
 */
static int rmap_convert_shared(struct rctx *c, uint32_t bno, uint32_t len,
			       const struct irec *who)
{
	struct irec prev, left, right, n, newwho = *who, key;
	uint64_t endoff = who->off + len;
	int state = 0, stat, err;

	newwho.unwritten = !who->unwritten;
	if (non_inode(who->owner) || who->attr || who->bmbt)
		return bad(c, "convert owner", who->owner);
	err = find_shared(c, bno, who, false, &prev, &stat);
	if (err)
		return err;
	if (!stat || prev.unwritten != who->unwritten ||
	    prev.off > who->off || prev.off + prev.len < endoff ||
	    prev.start + (uint64_t)(who->off - prev.off) != bno)
		return bad(c, "convert range", bno);
	if (prev.off == who->off)
		state |= LF;
	if (prev.off + prev.len == endoff)
		state |= RF;

	if ((err = find_shared(c, bno, &newwho, true, &left, &stat)))
		return err;
	if (stat && left.start + left.len == bno &&
	    left.off + left.len == who->off && mergeable(&left, &newwho))
		state |= LC;
	key = newwho;
	key.start = bno + len;
	key.len = len;
	key.off = endoff;
	if ((err = lookup(c, XFSJ_LOOKUP_EQ, &key, &stat)))
		return err;
	if (stat) {
		if ((err = get(c, &right)))
			return err;
		if (bno + len == right.start && endoff == right.off &&
		    mergeable(&right, &newwho))
			state |= RC;
	}
	if ((state & (LF | LC | RF | RC)) == (LF | LC | RF | RC) &&
	    (uint64_t)left.len + len + right.len > XFSJ_RMAP_LEN_MAX)
		state &= ~RC;
	if (!(state & LF))
		state &= ~LC;
	if (!(state & RF))
		state &= ~RC;

	switch (state) {
	case LF | LC | RF | RC:
		if ((err = rdelete(c, &right)) || (err = rdelete(c, &prev)) ||
		    (err = find_eq(c, &left)))
			return err;
		left.len += prev.len + right.len;
		return update(c, &left);
	case LF | LC | RF:
		if ((err = rdelete(c, &prev)) || (err = find_eq(c, &left)))
			return err;
		left.len += prev.len;
		return update(c, &left);
	case LF | RF | RC:
		/* The state bit is not part of the key: update in place. */
		if ((err = rdelete(c, &right)) || (err = find_eq(c, &prev)))
			return err;
		n = prev;
		n.len += right.len;
		n.unwritten = right.unwritten;
		return update(c, &n);
	case LF | RF:
		if ((err = find_eq(c, &prev)))
			return err;
		n = prev;
		n.unwritten = newwho.unwritten;
		return update(c, &n);
	case LF | LC:
		if ((err = rdelete(c, &prev)))
			return err;
		n = prev;
		n.off += len;
		n.start += len;
		n.len -= len;
		if ((err = rinsert(c, &n)) || (err = find_eq(c, &left)))
			return err;
		left.len += len;
		return update(c, &left);
	case LF:
		if ((err = rdelete(c, &prev)))
			return err;
		n = prev;
		n.off += len;
		n.start += len;
		n.len -= len;
		if ((err = rinsert(c, &n)))
			return err;
		n = newwho;
		n.start = bno;
		n.len = len;
		return rinsert(c, &n);
	case RF | RC:
		if ((err = find_eq(c, &prev)))
			return err;
		n = prev;
		n.len -= len;
		if ((err = update(c, &n)) || (err = rdelete(c, &right)))
			return err;
		right.off = who->off;
		right.start = bno;
		right.len += len;
		return rinsert(c, &right);
	case RF:
		if ((err = find_eq(c, &prev)))
			return err;
		n = prev;
		n.len -= len;
		if ((err = update(c, &n)))
			return err;
		n = newwho;
		n.start = bno;
		n.len = len;
		return rinsert(c, &n);
	default:
		n = prev;
		n.start = bno + len;
		n.off = endoff;
		n.len = (uint32_t)(prev.off + prev.len - endoff);
		if ((err = rinsert(c, &n)) || (err = find_eq(c, &prev)))
			return err;
		n = prev;
		n.len = (uint32_t)(who->off - prev.off);
		if ((err = update(c, &n)))
			return err;
		n = newwho;
		n.start = bno;
		n.len = len;
		return rinsert(c, &n);
	}
}

/* ---- entry points ---- */

static int with_cursor(struct xfsj_fs *fs, uint32_t agno, struct xfsj_fault *f,
		       struct rctx *c)
{
	memset(c, 0, sizeof(*c));
	c->fs = fs;
	c->agno = agno;
	c->f = f;
	return xfsj_btree_cur_new(fs, XFSJ_BT_RMAP, agno,
				  xfsj_alloc_block_source(XFSJ_BT_RMAP), f,
				  &c->cur);
}

static void who_from_owner(const struct xfsj_owner *oi, struct irec *who)
{
	memset(who, 0, sizeof(*who));
	who->owner = oi->owner;
	who->off = non_inode(oi->owner) || oi->bmbt_block ? 0 : oi->offset;
	who->attr = oi->attr_fork;
	who->bmbt = oi->bmbt_block;
}

static int range_ok(struct xfsj_fs *fs, uint32_t agno, uint32_t agbno,
		    uint32_t len, struct xfsj_fault *f)
{
	if (agno >= xfsj_fs_sb(fs)->agcount || !len ||
	    agbno >= xfsj_fs_ag_blocks(fs, agno) ||
	    len > xfsj_fs_ag_blocks(fs, agno) - agbno)
		return xfsj_fault_set(f, XFSJ_E_CORRUPT, "rmap", "extent", 0,
				      agbno);
	return 0;
}

int xfsj_rmap_alloc(struct xfsj_fs *fs, uint32_t agno, uint32_t agbno,
		    uint32_t len, const struct xfsj_owner *oi,
		    struct xfsj_fault *f)
{
	struct irec who;
	struct rctx c;
	int err;

	/* OWN_NULL asks for no reverse mapping at all. */
	if (!xfsj_fs_has(fs, XFSJ_RO_COMPAT_RMAPBT) ||
	    oi->owner == XFSJ_RMAP_OWN_NULL)
		return 0;
	if ((err = range_ok(fs, agno, agbno, len, f)))
		return err;
	if ((err = with_cursor(fs, agno, f, &c)))
		return err;
	who_from_owner(oi, &who);
	err = rmap_map(&c, agbno, len, &who);
	xfsj_btree_cur_free(c.cur);
	return err;
}

int xfsj_rmap_free(struct xfsj_fs *fs, uint32_t agno, uint32_t agbno,
		   uint32_t len, const struct xfsj_owner *oi,
		   struct xfsj_fault *f)
{
	struct irec who;
	struct rctx c;
	int err;

	if (!xfsj_fs_has(fs, XFSJ_RO_COMPAT_RMAPBT))
		return 0;
	if ((err = range_ok(fs, agno, agbno, len, f)))
		return err;
	if ((err = with_cursor(fs, agno, f, &c)))
		return err;
	who_from_owner(oi, &who);
	err = rmap_unmap(&c, agbno, len, &who);
	xfsj_btree_cur_free(c.cur);
	return err;
}

struct finish_arg {
	struct rctx *c;
	const struct xfsj_work *w;
	uint32_t agbno;
};

static int finish_op(void *arg, struct xfsj_fault *f)
{
	struct finish_arg *fa = arg;
	const struct xfsj_work *w = fa->w;
	struct rctx *c = fa->c;
	uint32_t agbno = fa->agbno;
	struct irec who;
	int err;

	if ((err = with_cursor(c->fs, c->agno, f, c)))
		return err;
	memset(&who, 0, sizeof(who));
	who.owner = w->rmap.owner;
	who.attr = w->rmap.attr_fork;
	who.bmbt = w->rmap.bmbt_block;
	who.off = non_inode(who.owner) || who.bmbt ? 0 :
		  (w->rmap.offset & XFSJ_RMAP_OFF_MASK);
	who.unwritten = w->rmap.unwritten;

	switch (w->rmap.op) {
	case XFSJ_RMAP_MAP:
	case XFSJ_RMAP_ALLOC:
		err = rmap_map(c, agbno, w->len, &who);
		break;
	case XFSJ_RMAP_MAP_SHARED:
		err = rmap_map_shared(c, agbno, w->len, &who);
		break;
	case XFSJ_RMAP_UNMAP:
	case XFSJ_RMAP_FREE:
		err = rmap_unmap(c, agbno, w->len, &who);
		break;
	case XFSJ_RMAP_UNMAP_SHARED:
		err = rmap_unmap_shared(c, agbno, w->len, &who);
		break;
	case XFSJ_RMAP_CONVERT:
		/* The item names the new state; the tree holds the old. */
		who.unwritten = !who.unwritten;
		err = rmap_convert(c, agbno, w->len, &who);
		break;
	case XFSJ_RMAP_CONVERT_SHARED:
		who.unwritten = !who.unwritten;
		err = rmap_convert_shared(c, agbno, w->len, &who);
		break;
	default:
		err = xfsj_fault_set(f, XFSJ_E_CORRUPT, "RUI", "type", 0,
				     w->rmap.op);
	}
	xfsj_btree_cur_free(c->cur);
	c->cur = NULL;
	return err;
}

int xfsj_rmap_finish(struct xfsj_fs *fs, const struct xfsj_work *w,
		     struct xfsj_fault *f)
{
	const struct xfsj_sb *sb = xfsj_fs_sb(fs);
	uint32_t agno = xfsj_fsb_agno(sb, w->fsbno);
	uint32_t agbno = xfsj_fsb_agbno(sb, w->fsbno);
	struct rctx c = { .fs = fs, .agno = agno, .f = f };
	struct finish_arg fa = { .c = &c, .w = w, .agbno = agbno };
	int err;

	if (w->kind != XFSJ_W_RMAP)
		return xfsj_fault_set(f, XFSJ_E_INVAL, "RUI", "kind", 0,
				      w->kind);
	if (!xfsj_fs_has(fs, XFSJ_RO_COMPAT_RMAPBT))
		return 0;
	if ((err = range_ok(fs, agno, agbno, w->len, f)))
		return err;
	/* The kernel refreshes the freelist before touching the rmapbt. */
	return xfsj_alloc_with_freelist(fs, agno, finish_op, &fa, f);
}
