/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * AG free space (alloc.h), following the kernel's xfs_alloc rules:
 *
 * - Every record change goes to both the by-block (bnobt) and by-size
 *   (cntbt) trees in the kernel's order of lookups, deletes, updates and
 *   inserts, so the trees split and join where the kernel's would.
 * - The AGFL is a ring of blocks in the AGFL sector between AGF flfirst
 *   and fllast.  bnobt, cntbt and rmapbt blocks come from it and go back
 *   to it (the btree engine counts them in agf_btreeblks).  Before every
 *   allocation or free it is brought to the minimum length of the
 *   kernel's xfs_alloc_min_freelist; blocks taken off a too-long AGFL are
 *   freed after the operation, as the kernel's deferred AGFL frees are.
 * - agf_longest is always the length of the cntbt's last record.
 * - Not modelled: busy extents (the kernel will not reuse blocks freed
 *   earlier in the same checkpoint, except for btree blocks off the AGFL)
 *   and per-AG space reservations, which only matter near ENOSPC.
 */
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"
#include "fs/alloc.h"
#include "fs/defer.h"
#include "fs/rmap.h"
#include "ondisk/trans_resv.h"
#include "fs/btree_priv.h"

/* AGF field offsets, from the checked layout in format.h. */
#define AGF(field)	XFSJ_AGF_OFF(field)

/* AGFL blocks taken off a too-long freelist, to free afterwards. */
struct pending {
	uint32_t *v;
	size_t n, cap;
};

/* One AG's free-space state while an operation runs. */
struct ag {
	struct xfsj_fs *fs;
	const struct xfsj_sb *sb;
	uint32_t agno;
	struct xfsj_buf *agf;
	struct xfsj_fault *f;
	struct pending *pend;
};

static uint64_t agf_byte(const struct ag *a, unsigned int off)
{
	return (xfsj_agb_to_daddr(a->sb, a->agno, 0) << 9) + a->sb->sectsize +
	       off;
}

static uint32_t agf_get(const struct ag *a, unsigned int off)
{
	return xfsj_get_be32(a->agf->data + off);
}

static void agf_set(struct ag *a, unsigned int off, uint32_t v)
{
	xfsj_put_be32(a->agf->data + off, v);
	xfsj_buf_dirty(a->agf);
}

static int corrupt(struct ag *a, const char *structure, const char *field,
		   unsigned int off, uint64_t value)
{
	return xfsj_fault_set(a->f, XFSJ_E_CORRUPT, structure, field,
			      agf_byte(a, off), value);
}

static int ag_open(struct ag *a, struct xfsj_fs *fs, uint32_t agno,
		   struct pending *pend, struct xfsj_fault *f)
{
	memset(a, 0, sizeof(*a));
	a->fs = fs;
	a->sb = xfsj_fs_sb(fs);
	a->agno = agno;
	a->f = f;
	a->pend = pend;
	if (agno >= a->sb->agcount)
		return xfsj_fault_set(f, XFSJ_E_RANGE, "AGF", "agno", 0, agno);
	return xfsj_agf_read(fs, agno, &a->agf, f);
}

static int cur_new(struct ag *a, enum xfsj_btnum bt,
		   struct xfsj_btree_cur **cur)
{
	return xfsj_btree_cur_new(a->fs, bt, a->agno,
				  xfsj_alloc_block_source(bt), a->f, cur);
}

/* ---- the free-space records ---- */

static int alloc_lookup(struct xfsj_btree_cur *cur, enum xfsj_lookup dir,
			uint32_t bno, uint32_t len, int *stat)
{
	union xfsj_btree_irec r;

	memset(&r, 0, sizeof(r));
	r.a.startblock = bno;
	r.a.blockcount = len;
	return xfsj_btree_lookup(cur, dir, &r, stat);
}

/* The record under @cur, which must exist. */
static int alloc_get(struct ag *a, struct xfsj_btree_cur *cur,
		     uint32_t *bno, uint32_t *len)
{
	union xfsj_btree_irec r;
	uint32_t length = agf_get(a, AGF(length));
	int stat, err;

	err = xfsj_btree_get_rec(cur, &r, &stat);
	if (err)
		return err;
	if (!stat)
		return corrupt(a, "free space btree", "cursor", AGF(length), 0);
	/* A record past the AG or empty would poison every later decision. */
	if (!r.a.blockcount || r.a.startblock >= length ||
	    r.a.blockcount > length - r.a.startblock)
		return corrupt(a, "free space btree", "record", AGF(length),
			       r.a.startblock);
	*bno = r.a.startblock;
	*len = r.a.blockcount;
	return 0;
}

static int alloc_update(struct xfsj_btree_cur *cur, uint32_t bno,
			uint32_t len)
{
	union xfsj_btree_irec r;

	memset(&r, 0, sizeof(r));
	r.a.startblock = bno;
	r.a.blockcount = len;
	return xfsj_btree_update(cur, &r);
}

static int alloc_insert(struct ag *a, struct xfsj_btree_cur *cur,
			uint32_t bno, uint32_t len)
{
	union xfsj_btree_irec r;
	int stat, err;

	memset(&r, 0, sizeof(r));
	r.a.startblock = bno;
	r.a.blockcount = len;
	err = xfsj_btree_insert(cur, &r, &stat);
	if (!err && stat != 1)
		err = corrupt(a, "free space btree", "insert", AGF(length),
			      bno);
	return err;
}

static int alloc_delete(struct ag *a, struct xfsj_btree_cur *cur)
{
	int stat, err = xfsj_btree_delete(cur, &stat);

	if (!err && stat != 1)
		err = corrupt(a, "free space btree", "delete", AGF(length), 0);
	return err;
}

/* Position @cur on the record equal to (bno, len), which must exist. */
static int alloc_find(struct ag *a, struct xfsj_btree_cur *cur, uint32_t bno,
		      uint32_t len)
{
	int stat, err = alloc_lookup(cur, XFSJ_LOOKUP_EQ, bno, len, &stat);

	if (!err && stat != 1)
		err = corrupt(a, "free space btree", "missing record",
			      AGF(freeblks), bno);
	return err;
}

/* agf_longest: the length of the last by-size record, 0 when none. */
static int set_longest(struct ag *a)
{
	struct xfsj_btree_cur *cur;
	uint32_t bno, len = 0;
	int stat, err;

	err = cur_new(a, XFSJ_BT_CNT, &cur);
	if (err)
		return err;
	err = alloc_lookup(cur, XFSJ_LOOKUP_LE, UINT32_MAX, UINT32_MAX, &stat);
	if (!err && stat)
		err = alloc_get(a, cur, &bno, &len);
	xfsj_btree_cur_free(cur);
	if (!err)
		agf_set(a, AGF(longest), len);
	return err;
}

static int update_counters(struct ag *a, int64_t delta)
{
	int64_t n = (int64_t)agf_get(a, AGF(freeblks)) + delta;

	if (n < 0 || n > agf_get(a, AGF(length)))
		return corrupt(a, "AGF", "freeblks", AGF(freeblks),
			       (uint64_t)n);
	agf_set(a, AGF(freeblks), (uint32_t)n);
	return 0;
}

/*
 * The kernel's xfs_alloc_fixup_trees: [rbno, rlen) is cut out of the free
 * record [fbno, flen).  @cnt_ok says the cntbt cursor already points at
 * that record.
 */
static int fixup_trees(struct ag *a, struct xfsj_btree_cur *cnt,
		       struct xfsj_btree_cur *bno_cur, uint32_t fbno,
		       uint32_t flen, uint32_t rbno, uint32_t rlen, bool cnt_ok)
{
	uint32_t nb1 = XFSJ_NULLAGBLOCK, nl1 = 0;
	uint32_t nb2 = XFSJ_NULLAGBLOCK, nl2 = 0;
	int stat, err;

	if (rbno < fbno || rlen > flen || rbno - fbno > flen - rlen)
		return corrupt(a, "free space btree", "allocation", AGF(length),
			       rbno);
	if (!cnt_ok && (err = alloc_find(a, cnt, fbno, flen)))
		return err;
	if ((err = alloc_find(a, bno_cur, fbno, flen)))
		return err;

	if (rbno == fbno && rlen == flen) {
		/* the whole record goes */
	} else if (rbno == fbno) {
		nb1 = rbno + rlen;
		nl1 = flen - rlen;
	} else if (rbno + rlen == fbno + flen) {
		nb1 = fbno;
		nl1 = flen - rlen;
	} else {
		nb1 = fbno;
		nl1 = rbno - fbno;
		nb2 = rbno + rlen;
		nl2 = fbno + flen - nb2;
	}

	if ((err = alloc_delete(a, cnt)))
		return err;
	if (nb1 != XFSJ_NULLAGBLOCK) {
		err = alloc_lookup(cnt, XFSJ_LOOKUP_EQ, nb1, nl1, &stat);
		if (!err && stat)
			err = corrupt(a, "cntbt", "duplicate", AGF(length),
				      nb1);
		if (err || (err = alloc_insert(a, cnt, nb1, nl1)))
			return err;
	}
	if (nb2 != XFSJ_NULLAGBLOCK) {
		err = alloc_lookup(cnt, XFSJ_LOOKUP_EQ, nb2, nl2, &stat);
		if (!err && stat)
			err = corrupt(a, "cntbt", "duplicate", AGF(length),
				      nb2);
		if (err || (err = alloc_insert(a, cnt, nb2, nl2)))
			return err;
	}
	if (nb1 == XFSJ_NULLAGBLOCK)
		err = alloc_delete(a, bno_cur);
	else
		err = alloc_update(bno_cur, nb1, nl1);
	if (err)
		return err;
	if (nb2 != XFSJ_NULLAGBLOCK) {
		err = alloc_lookup(bno_cur, XFSJ_LOOKUP_EQ, nb2, nl2, &stat);
		if (!err && stat)
			err = corrupt(a, "bnobt", "duplicate", AGF(length),
				      nb2);
		if (err || (err = alloc_insert(a, bno_cur, nb2, nl2)))
			return err;
	}
	return 0;
}

/* ---- the AGFL ---- */

static unsigned int agfl_slots(const struct ag *a)
{
	return xfsj_agfl_size(a->sb->sectsize);
}

static uint8_t *agfl_slot(struct xfsj_buf *bp, unsigned int i)
{
	return bp->data + XFSJ_AGFL_HDR_SIZE + 4 * i;
}

/*
 * The kernel resets an AGFL whose count disagrees with its first/last
 * indices (the old header padding bug) and leaks its blocks rather than
 * trust them.
 */
static void agfl_reset_if_needed(struct ag *a)
{
	uint32_t first = agf_get(a, AGF(flfirst));
	uint32_t last = agf_get(a, AGF(fllast));
	uint32_t count = agf_get(a, AGF(flcount));
	uint32_t size = agfl_slots(a), active;

	if (first < size && last < size && count <= size) {
		if (!count)
			active = 0;
		else if (last >= first)
			active = last - first + 1;
		else
			active = size - first + last + 1;
		if (active == count)
			return;
	}
	agf_set(a, AGF(flfirst), 0);
	agf_set(a, AGF(fllast), size - 1);
	agf_set(a, AGF(flcount), 0);
}

/* xfs_alloc_get_freelist; *bno is NULLAGBLOCK when the AGFL is empty. */
static int get_freelist(struct ag *a, uint32_t *bno)
{
	struct xfsj_buf *agfl;
	uint32_t first = agf_get(a, AGF(flfirst));
	uint32_t size = agfl_slots(a), b;
	int err;

	*bno = XFSJ_NULLAGBLOCK;
	if (!agf_get(a, AGF(flcount)))
		return 0;
	if (first >= size)
		return corrupt(a, "AGF", "flfirst", AGF(flfirst), first);
	err = xfsj_agfl_read(a->fs, a->agno, &agfl, a->f);
	if (err)
		return err;
	b = xfsj_get_be32(agfl_slot(agfl, first));
	/* Never hand out the AG headers or a block past the AG. */
	if (b >= agf_get(a, AGF(length)) ||
	    b <= (uint32_t)((3ULL * a->sb->sectsize) >> a->sb->blocklog))
		return xfsj_fault_set(a->f, XFSJ_E_CORRUPT, "AGFL", "bno",
				      agf_byte(a, 0) + a->sb->sectsize * 2 +
				      XFSJ_AGFL_HDR_SIZE + 4 * first, b);
	agf_set(a, AGF(flfirst), first + 1 == size ? 0 : first + 1);
	agf_set(a, AGF(flcount), agf_get(a, AGF(flcount)) - 1);
	*bno = b;
	return 0;
}

/* xfs_alloc_put_freelist. */
static int put_freelist(struct ag *a, uint32_t bno)
{
	struct xfsj_buf *agfl;
	uint32_t last = agf_get(a, AGF(fllast));
	uint32_t count = agf_get(a, AGF(flcount));
	uint32_t size = agfl_slots(a);
	int err;

	if (count >= size)
		return corrupt(a, "AGF", "flcount", AGF(flcount), count);
	if (last >= size)
		return corrupt(a, "AGF", "fllast", AGF(fllast), last);
	err = xfsj_agfl_read(a->fs, a->agno, &agfl, a->f);
	if (err)
		return err;
	last = last + 1 == size ? 0 : last + 1;
	agf_set(a, AGF(fllast), last);
	agf_set(a, AGF(flcount), count + 1);
	xfsj_put_be32(agfl_slot(agfl, last), bno);
	xfsj_buf_dirty(agfl);
	return 0;
}

/* One tree's share: a full split at the next height, and one more. */
static unsigned int split_blocks(unsigned int level, unsigned int maxlevels)
{
	unsigned int h = level + 1 < maxlevels ? level + 1 : maxlevels;

	/* The AGF verifier keeps levels sane; never go below zero anyway. */
	return h ? h * 2 - 2 : 0;
}

unsigned int xfsj_alloc_freelist_len(struct xfsj_fs *fs, uint32_t bno_level,
				     uint32_t cnt_level, uint32_t rmap_level)
{
	const struct xfsj_sb *sb = xfsj_fs_sb(fs);
	unsigned int amax = xfsj_alloc_maxlevels(sb->blocksize, sb->agblocks);
	unsigned int n, slots = xfsj_agfl_size(sb->sectsize);

	/* Linux 6.7's formula (xfsprogs 6.5 had one split per tree). */
	n = split_blocks(bno_level, amax);
	n += split_blocks(cnt_level, amax);
	if (xfsj_fs_has(fs, XFSJ_RO_COMPAT_RMAPBT))
		n += split_blocks(rmap_level,
				  xfsj_rmap_maxlevels(sb->blocksize,
					sb->agblocks,
					xfsj_fs_has(fs,
						    XFSJ_RO_COMPAT_REFLINK)));
	/* A corrupt height must not ask for more than the AGFL holds. */
	return n < slots ? n : slots;
}

static unsigned int min_freelist(struct ag *a)
{
	return xfsj_alloc_freelist_len(a->fs, agf_get(a, AGF(bno_level)),
				       agf_get(a, AGF(cnt_level)),
				       agf_get(a, AGF(rmap_level)));
}

unsigned int xfsj_alloc_min_freelist(struct xfsj_fs *fs, uint32_t agno,
				     struct xfsj_fault *f)
{
	struct ag a;

	if (ag_open(&a, fs, agno, NULL, f))
		return 0;
	return min_freelist(&a);
}

static int pend_add(struct ag *a, uint32_t bno)
{
	struct pending *p = a->pend;

	if (xfsj_grow(&p->v, &p->cap, p->n, 1, sizeof(*p->v), 16))
		return -XFSJ_E_NOMEM;
	p->v[p->n++] = bno;
	return 0;
}

/* ---- allocation ---- */

static int free_ag_extent(struct ag *a, uint32_t bno, uint32_t len,
			  const struct xfsj_owner *oi);

/*
 * The kernel's xfs_alloc_ag_vextent_size for minlen 1: the smallest
 * record of at least @maxlen blocks, or else the largest one; the blocks
 * come from its start.  *rbno is NULLAGBLOCK when the trees are empty.
 */
static int alloc_by_size(struct ag *a, uint32_t maxlen, uint32_t *rbno,
			 uint32_t *rlen)
{
	struct xfsj_btree_cur *cnt = NULL, *bno_cur = NULL;
	uint32_t fbno, flen;
	int stat, err;

	*rbno = XFSJ_NULLAGBLOCK;
	*rlen = 0;
	if ((err = cur_new(a, XFSJ_BT_CNT, &cnt)))
		return err;
	err = alloc_lookup(cnt, XFSJ_LOOKUP_GE, 0, maxlen, &stat);
	/* Nothing that long: settle for the last (largest) record. */
	if (!err && !stat)
		err = alloc_lookup(cnt, XFSJ_LOOKUP_LE, UINT32_MAX, UINT32_MAX,
				   &stat);
	if (err || !stat)
		goto out;
	if ((err = alloc_get(a, cnt, &fbno, &flen)))
		goto out;
	if ((err = cur_new(a, XFSJ_BT_BNO, &bno_cur)))
		goto out;
	*rlen = flen < maxlen ? flen : maxlen;
	err = fixup_trees(a, cnt, bno_cur, fbno, flen, fbno, *rlen, true);
	if (!err)
		*rbno = fbno;
out:
	if (bno_cur)
		xfsj_btree_cur_free(bno_cur);
	xfsj_btree_cur_free(cnt);
	if (!err && *rbno != XFSJ_NULLAGBLOCK)
		err = set_longest(a);
	return err;
}

/*
 * xfs_alloc_fix_freelist.  @minlen 0 means a free (the kernel's FREEING
 * flag): no space check, and a refill may come up short.
 */
static int fix_freelist(struct ag *a, uint32_t minlen)
{
	const struct xfsj_owner own_ag = { .owner = XFSJ_RMAP_OWN_AG };
	unsigned int need;
	uint32_t bno, len;
	int err;

	agfl_reset_if_needed(a);
	need = min_freelist(a);
	if (minlen) {
		uint32_t fl = agf_get(a, AGF(flcount));
		uint32_t longest = agf_get(a, AGF(longest));
		uint32_t delta = need > fl ? need - fl : 0;
		uint32_t usable;
		int64_t avail;

		usable = longest > delta ? longest - delta :
			 (fl > 0 || longest > 0);
		avail = (int64_t)agf_get(a, AGF(freeblks)) +
			(fl < need ? fl : need) - need;
		if (usable < minlen || avail < minlen)
			return xfsj_fault_set(a->f, XFSJ_E_NOSPC, "AGF",
					      "freeblks",
					      agf_byte(a, AGF(freeblks)),
					      agf_get(a, AGF(freeblks)));
	}

	while (agf_get(a, AGF(flcount)) > need) {
		if ((err = get_freelist(a, &bno)))
			return err;
		if ((err = pend_add(a, bno)))
			return err;
	}

	while (agf_get(a, AGF(flcount)) < need) {
		err = alloc_by_size(a, need - agf_get(a, AGF(flcount)), &bno,
				    &len);
		if (err)
			return err;
		if (bno == XFSJ_NULLAGBLOCK) {
			if (!minlen)
				break;
			return xfsj_fault_set(a->f, XFSJ_E_NOSPC, "AGF",
					      "flcount",
					      agf_byte(a, AGF(flcount)),
					      agf_get(a, AGF(flcount)));
		}
		err = xfsj_rmap_alloc(a->fs, a->agno, bno, len, &own_ag, a->f);
		if (!err)
			err = update_counters(a, -(int64_t)len);
		for (uint32_t b = bno; !err && b < bno + len; b++)
			err = put_freelist(a, b);
		if (err)
			return err;
	}
	return 0;
}

/* Free the blocks a shrinking AGFL gave up, as the kernel's deferred
 * AGFL frees do: straight into free space, no freelist fixing. */
static int drain(struct ag *a)
{
	const struct xfsj_owner own_ag = { .owner = XFSJ_RMAP_OWN_AG };
	struct pending *p = a->pend;
	int err = 0;

	for (size_t i = 0; i < p->n && !err; i++)
		err = free_ag_extent(a, p->v[i], 1, &own_ag);
	p->n = 0;
	return err;
}

/* ---- near allocation (xfs_alloc_ag_vextent_near, minlen == maxlen) ---- */

struct near {
	uint32_t want;		/* locality hint */
	uint32_t len;		/* blocks wanted */
	uint32_t rec_bno, rec_len;	/* best free record so far */
	uint32_t bno;		/* where in it */
	uint32_t diff;
	bool found;
};

/* xfs_alloc_compute_diff for alignment 1 and metadata. */
static uint32_t near_diff(const struct near *n, uint32_t fbno, uint32_t flen,
			  uint32_t *nbno)
{
	uint32_t fend = fbno + flen, wend = n->want + n->len;

	if (fbno >= n->want)
		*nbno = fbno;
	else if (fend >= wend)
		*nbno = n->want;
	else
		*nbno = fend - n->len;
	return *nbno > n->want ? *nbno - n->want : n->want - *nbno;
}

/*
 * xfs_alloc_cur_check: consider the record under @cur.  Returns whether it
 * became the candidate; *active is cleared when the kernel would stop
 * walking this cursor.
 */
static int near_check(struct ag *a, struct near *n, struct xfsj_btree_cur *cur,
		      bool bnobt, bool *active, bool *taken)
{
	uint32_t bno, len, nbno, diff;
	int err = alloc_get(a, cur, &bno, &len);

	*taken = false;
	if (err)
		return err;
	if (len < n->len) {
		if (!bnobt)
			*active = false;
		return 0;
	}
	diff = near_diff(n, bno, len, &nbno);
	if (n->found && diff > n->diff) {
		if (bnobt)
			*active = false;
		return 0;
	}
	n->rec_bno = bno;
	n->rec_len = len;
	n->bno = nbno;
	n->diff = diff;
	n->found = true;
	*taken = true;
	if (diff == 0)
		*active = false;
	return 0;
}

/* xfs_alloc_walk_iter: @count steps (-1: until inactive), stop at the
 * first candidate when @find_one. */
static int near_walk(struct ag *a, struct near *n, struct xfsj_btree_cur *cur,
		     bool bnobt, bool inc, bool find_one, int count,
		     bool *active, bool *hit)
{
	bool taken;
	int stat, err;

	*hit = false;
	while (*active && count) {
		if ((err = near_check(a, n, cur, bnobt, active, &taken)))
			return err;
		if (taken) {
			*hit = true;
			if (find_one)
				break;
		}
		if (!*active)
			break;
		err = inc ? xfsj_btree_increment(cur, 0, &stat) :
			    xfsj_btree_decrement(cur, 0, &stat);
		if (err)
			return err;
		if (!stat)
			*active = false;
		if (count > 0)
			count--;
	}
	return 0;
}

/* xfs_alloc_cntbt_iter. */
static int near_cnt_iter(struct ag *a, struct near *n,
			 struct xfsj_btree_cur *cnt, uint32_t *cur_len,
			 bool *active)
{
	uint32_t bno, len, want_len = *cur_len;
	bool taken;
	int stat, err;

	if (!*active)
		return 0;
	err = alloc_lookup(cnt, XFSJ_LOOKUP_GE, n->want, want_len, &stat);
	*active = stat == 1;
	if (err || !stat)
		return err;
	if ((err = alloc_get(a, cnt, &bno, &len)))
		return err;
	if ((err = near_check(a, n, cnt, false, active, &taken)))
		return err;
	*cur_len = len;
	/* The record before may have the same length and lie closer. */
	if (bno > n->want) {
		uint32_t pb, pl;

		err = xfsj_btree_decrement(cnt, 0, &stat);
		if (!err && stat) {
			err = alloc_get(a, cnt, &pb, &pl);
			if (!err && pl == *cur_len)
				err = near_check(a, n, cnt, false, active,
						 &taken);
		}
		if (err)
			return err;
	}
	want_len <<= 1;
	if (!n->found || *cur_len >= want_len)
		(*cur_len)++;
	else
		*cur_len = want_len;
	return 0;
}

static int near_search(struct ag *a, struct near *n,
		       struct xfsj_btree_cur *cnt)
{
	struct xfsj_btree_cur *lt = NULL, *gt = NULL, *fb = NULL;
	bool lt_on, gt_on, cnt_on = true, fb_inc = false, hit, *fb_on = NULL;
	uint32_t cur_len = n->len;
	int stat, err;

	if ((err = cur_new(a, XFSJ_BT_BNO, &lt)) ||
	    (err = cur_new(a, XFSJ_BT_BNO, &gt)))
		goto out;
	if ((err = alloc_lookup(cnt, XFSJ_LOOKUP_GE, n->want, cur_len,
				&stat)))
		goto out;
	cnt_on = stat == 1;
	if ((err = alloc_lookup(lt, XFSJ_LOOKUP_LE, n->want, 0, &stat)))
		goto out;
	lt_on = stat == 1;
	if ((err = alloc_lookup(gt, XFSJ_LOOKUP_GE, n->want, 0, &stat)))
		goto out;
	gt_on = stat == 1;

	while (lt_on || gt_on || cnt_on) {
		err = near_walk(a, n, lt, true, false, true, 1, &lt_on, &hit);
		if (err)
			goto out;
		if (hit) {
			fb = gt;
			fb_on = &gt_on;
			fb_inc = true;
			break;
		}
		err = near_walk(a, n, gt, true, true, true, 1, &gt_on, &hit);
		if (err)
			goto out;
		if (hit) {
			fb = lt;
			fb_on = &lt_on;
			fb_inc = false;
			break;
		}
		if ((err = near_cnt_iter(a, n, cnt, &cur_len, &cnt_on)))
			goto out;
		if (!cnt_on)
			break;
	}
	/* No locality at all: walk back from the largest record. */
	if (!cnt_on && !n->found) {
		err = alloc_lookup(cnt, XFSJ_LOOKUP_LE, UINT32_MAX, UINT32_MAX,
				   &stat);
		if (err)
			goto out;
		if (stat) {
			cnt_on = true;
			fb = cnt;
			fb_on = &cnt_on;
			fb_inc = false;
		}
	}
	if (fb)
		err = near_walk(a, n, fb, fb != cnt, fb_inc, true, -1, fb_on,
				&hit);
out:
	if (lt)
		xfsj_btree_cur_free(lt);
	if (gt)
		xfsj_btree_cur_free(gt);
	return err;
}

/* xfs_btree_islastblock at the leaves (btree.h has no such call). */
static bool in_last_leaf(const struct xfsj_btree_cur *cur)
{
	const struct xfsj_buf *bp = cur->lev[0].bp;

	return bp && bb_rightsib(bp->data) == NULLBLK;
}

/*
 * Allocate @len blocks near @want.  *bno is NULLAGBLOCK when nothing is
 * long enough; *from_fl says the block came straight off the AGFL.
 */
static int alloc_near(struct ag *a, uint32_t want, uint32_t len,
		      uint32_t *bno, bool *from_fl)
{
	struct xfsj_btree_cur *cnt = NULL, *bno_cur = NULL;
	struct near n = { .len = len };
	uint32_t agblocks = a->sb->agblocks;
	int stat, err;

	*bno = XFSJ_NULLAGBLOCK;
	*from_fl = false;
	n.want = want < agblocks ? want : agblocks - 1;
	if ((err = cur_new(a, XFSJ_BT_CNT, &cnt)))
		return err;
	if ((err = alloc_lookup(cnt, XFSJ_LOOKUP_GE, 0, len, &stat)))
		goto out;
	if (!stat) {
		/*
		 * xfs_alloc_ag_vextent_small: with the trees empty a single
		 * block may come off the AGFL, losing its OWN_AG rmap.
		 */
		const struct xfsj_owner own_ag = { .owner = XFSJ_RMAP_OWN_AG };

		err = alloc_lookup(cnt, XFSJ_LOOKUP_LE, UINT32_MAX, UINT32_MAX,
				   &stat);
		if (err || stat || len != 1 || !agf_get(a, AGF(flcount)))
			goto out;
		if ((err = get_freelist(a, bno)))
			goto out;
		if (*bno != XFSJ_NULLAGBLOCK) {
			*from_fl = true;
			err = xfsj_rmap_free(a->fs, a->agno, *bno, 1, &own_ag,
					     a->f);
		}
		goto out;
	}

	if (in_last_leaf(cnt)) {
		/*
		 * The cursor is in the cntbt's last leaf: the kernel checks
		 * every record from there on and keeps the closest.
		 */
		bool on = true, hit;

		err = near_walk(a, &n, cnt, false, true, false, -1, &on, &hit);
	} else {
		err = near_search(a, &n, cnt);
	}
	if (err || !n.found)
		goto out;
	if ((err = cur_new(a, XFSJ_BT_BNO, &bno_cur)))
		goto out;
	err = fixup_trees(a, cnt, bno_cur, n.rec_bno, n.rec_len, n.bno, len,
			  false);
	if (!err)
		*bno = n.bno;
out:
	if (bno_cur)
		xfsj_btree_cur_free(bno_cur);
	xfsj_btree_cur_free(cnt);
	if (!err && *bno != XFSJ_NULLAGBLOCK && !*from_fl)
		err = set_longest(a);
	return err;
}

/* ---- freeing ---- */

/* xfs_free_ag_extent. */
static int free_ag_extent(struct ag *a, uint32_t bno, uint32_t len,
			  const struct xfsj_owner *oi)
{
	struct xfsj_btree_cur *bc = NULL, *cc = NULL;
	uint32_t ltbno = 0, ltlen = 0, gtbno = 0, gtlen = 0, nbno, nlen;
	int haveleft, haveright, stat, err;

	if (oi->owner != XFSJ_RMAP_OWN_NULL) {
		err = xfsj_rmap_free(a->fs, a->agno, bno, len, oi, a->f);
		if (err)
			return err;
	}
	if ((err = cur_new(a, XFSJ_BT_BNO, &bc)))
		return err;
	if ((err = alloc_lookup(bc, XFSJ_LOOKUP_LE, bno, len, &haveleft)))
		goto out;
	if (haveleft) {
		if ((err = alloc_get(a, bc, &ltbno, &ltlen)))
			goto out;
		if (ltbno + ltlen < bno) {
			haveleft = 0;
		} else if (ltbno + ltlen > bno) {
			err = corrupt(a, "bnobt", "freeing free space",
				      AGF(freeblks), bno);
			goto out;
		}
	}
	if ((err = xfsj_btree_increment(bc, 0, &haveright)))
		goto out;
	if (haveright) {
		if ((err = alloc_get(a, bc, &gtbno, &gtlen)))
			goto out;
		if (bno + len < gtbno) {
			haveright = 0;
		} else if (bno + len > gtbno) {
			err = corrupt(a, "bnobt", "freeing free space",
				      AGF(freeblks), bno);
			goto out;
		}
	}
	if ((err = cur_new(a, XFSJ_BT_CNT, &cc)))
		goto out;

	if (haveleft && haveright) {
		if ((err = alloc_find(a, cc, ltbno, ltlen)) ||
		    (err = alloc_delete(a, cc)) ||
		    (err = alloc_find(a, cc, gtbno, gtlen)) ||
		    (err = alloc_delete(a, cc)) ||
		    (err = alloc_delete(a, bc)))
			goto out;
		if ((err = xfsj_btree_decrement(bc, 0, &stat)))
			goto out;
		if (!stat) {
			err = corrupt(a, "bnobt", "left neighbour",
				      AGF(freeblks), ltbno);
			goto out;
		}
		nbno = ltbno;
		nlen = len + ltlen + gtlen;
		err = alloc_update(bc, nbno, nlen);
	} else if (haveleft) {
		if ((err = alloc_find(a, cc, ltbno, ltlen)) ||
		    (err = alloc_delete(a, cc)))
			goto out;
		if ((err = xfsj_btree_decrement(bc, 0, &stat)))
			goto out;
		if (!stat) {
			err = corrupt(a, "bnobt", "left neighbour",
				      AGF(freeblks), ltbno);
			goto out;
		}
		nbno = ltbno;
		nlen = len + ltlen;
		err = alloc_update(bc, nbno, nlen);
	} else if (haveright) {
		if ((err = alloc_find(a, cc, gtbno, gtlen)) ||
		    (err = alloc_delete(a, cc)))
			goto out;
		nbno = bno;
		nlen = len + gtlen;
		err = alloc_update(bc, nbno, nlen);
	} else {
		nbno = bno;
		nlen = len;
		err = alloc_insert(a, bc, nbno, nlen);
	}
	if (err)
		goto out;
	xfsj_btree_cur_free(bc);
	bc = NULL;

	if ((err = alloc_lookup(cc, XFSJ_LOOKUP_EQ, nbno, nlen, &stat)))
		goto out;
	if (stat) {
		err = corrupt(a, "cntbt", "duplicate", AGF(freeblks), nbno);
		goto out;
	}
	if ((err = alloc_insert(a, cc, nbno, nlen)))
		goto out;
	xfsj_btree_cur_free(cc);
	cc = NULL;
	err = set_longest(a);
	if (!err)
		err = update_counters(a, len);
out:
	if (bc)
		xfsj_btree_cur_free(bc);
	if (cc)
		xfsj_btree_cur_free(cc);
	return err;
}

/* ---- the public operations ---- */

/* A NULL owner means no rmap update, as the kernel's NULL oinfo. */
static const struct xfsj_owner own_null = { .owner = XFSJ_RMAP_OWN_NULL };

static int range_ok(struct ag *a, uint32_t agbno, uint32_t len)
{
	uint32_t length = agf_get(a, AGF(length));

	if (!len || agbno >= a->sb->agblocks || agbno >= length ||
	    len > length - agbno)
		return xfsj_fault_set(a->f, XFSJ_E_CORRUPT, "extent", "agbno",
				      agf_byte(a, AGF(length)), agbno);
	return 0;
}

int xfsj_free_extent(struct xfsj_fs *fs, uint32_t agno, uint32_t agbno,
		     uint32_t len, const struct xfsj_owner *oi,
		     struct xfsj_fault *f)
{
	struct pending pend = { 0 };
	struct ag a;
	int err;

	if (!oi)
		oi = &own_null;
	err = ag_open(&a, fs, agno, &pend, f);
	if (!err)
		err = fix_freelist(&a, 0);
	if (!err)
		err = range_ok(&a, agbno, len);
	if (!err)
		err = free_ag_extent(&a, agbno, len, oi);
	if (!err)
		err = drain(&a);
	free(pend.v);
	return err;
}

int xfsj_alloc_extent(struct xfsj_fs *fs, uint32_t agno, uint32_t near,
		      uint32_t len, const struct xfsj_owner *oi,
		      uint32_t *agbno, struct xfsj_fault *f)
{
	struct pending pend = { 0 };
	struct ag a;
	bool from_fl = false;
	int err;

	*agbno = XFSJ_NULLAGBLOCK;
	if (!oi)
		oi = &own_null;
	err = ag_open(&a, fs, agno, &pend, f);
	if (!err && !len)
		err = xfsj_fault_set(f, XFSJ_E_INVAL, "allocation", "len", 0,
				     0);
	if (!err)
		err = fix_freelist(&a, len);
	if (!err)
		err = alloc_near(&a, near, len, agbno, &from_fl);
	if (!err && *agbno == XFSJ_NULLAGBLOCK)
		err = xfsj_fault_set(f, XFSJ_E_NOSPC, "AGF", "longest",
				     agf_byte(&a, AGF(longest)),
				     agf_get(&a, AGF(longest)));
	/* As xfs_alloc_vextent_finish: the rmap, then the counters. */
	if (!err && oi->owner != XFSJ_RMAP_OWN_NULL)
		err = xfsj_rmap_alloc(fs, agno, *agbno, len, oi, f);
	if (!err && !from_fl)
		err = update_counters(&a, -(int64_t)len);
	if (!err)
		err = drain(&a);
	free(pend.v);
	if (err)
		*agbno = XFSJ_NULLAGBLOCK;
	return err;
}

int xfsj_alloc_fix_freelist(struct xfsj_fs *fs, uint32_t agno,
			    struct xfsj_fault *f)
{
	struct pending pend = { 0 };
	struct ag a;
	int err;

	err = ag_open(&a, fs, agno, &pend, f);
	if (!err)
		err = fix_freelist(&a, 0);
	if (!err)
		err = drain(&a);
	free(pend.v);
	return err;
}

int xfsj_alloc_with_freelist(struct xfsj_fs *fs, uint32_t agno,
			     int (*op)(void *arg, struct xfsj_fault *f),
			     void *arg, struct xfsj_fault *f)
{
	struct pending pend = { 0 };
	struct ag a;
	int err;

	err = ag_open(&a, fs, agno, &pend, f);
	if (!err)
		err = fix_freelist(&a, 0);
	if (!err)
		err = op(arg, f);
	if (!err)
		err = drain(&a);
	free(pend.v);
	return err;
}

int xfsj_free_finish(struct xfsj_fs *fs, const struct xfsj_work *w,
		     struct xfsj_fault *f)
{
	const struct xfsj_sb *sb = xfsj_fs_sb(fs);
	uint32_t agno = xfsj_fsb_agno(sb, w->fsbno);
	uint32_t agbno = xfsj_fsb_agbno(sb, w->fsbno);

	if (w->kind != XFSJ_W_FREE)
		return xfsj_fault_set(f, XFSJ_E_INVAL, "EFI", "kind", 0,
				      w->kind);
	if (agno >= sb->agcount || agbno >= sb->agblocks || !w->len ||
	    w->len > sb->agblocks - agbno)
		return xfsj_fault_set(f, XFSJ_E_CORRUPT, "EFI", "extent", 0,
				      w->fsbno);
	return xfsj_free_extent(fs, agno, agbno, w->len, &w->free.oi, f);
}

/* ---- block sources for the btree engine ---- */

/*
 * The btree engine keeps the header counters of the trees it grows and
 * shrinks (agf_btreeblks, agf_rmap_blocks, agf_refcount_blocks, the AGI
 * iblocks/fblocks); the sources only find and release the blocks.
 */
static int agfl_block_alloc(void *arg, struct xfsj_btree_cur *cur,
			    uint32_t near, uint32_t *agbno,
			    struct xfsj_fault *f)
{
	struct ag a;
	int err;

	(void)arg;
	(void)near;
	err = ag_open(&a, xfsj_btree_cur_fs(cur), xfsj_btree_cur_agno(cur),
		      NULL, f);
	if (!err)
		err = get_freelist(&a, agbno);
	if (err)
		return err;
	if (*agbno == XFSJ_NULLAGBLOCK)
		return xfsj_fault_set(f, XFSJ_E_NOSPC, "AGF", "flcount",
				      agf_byte(&a, AGF(flcount)), 0);
	return 0;
}

static int agfl_block_free(void *arg, struct xfsj_btree_cur *cur,
			   uint32_t agbno, struct xfsj_fault *f)
{
	struct ag a;
	int err;

	(void)arg;
	err = ag_open(&a, xfsj_btree_cur_fs(cur), xfsj_btree_cur_agno(cur),
		      NULL, f);
	if (!err)
		err = put_freelist(&a, agbno);
	return err;
}

static unsigned int refc_root_block(const struct xfsj_fs *fs)
{
	const struct xfsj_sb *sb = xfsj_fs_sb(fs);
	unsigned int b = (unsigned int)((3ULL * sb->sectsize) >> sb->blocklog);

	/* AGFL, bnobt, cntbt, inobt roots, then finobt and rmapbt roots. */
	b += 4;
	if (xfsj_fs_has(fs, XFSJ_RO_COMPAT_FINOBT))
		b++;
	if (xfsj_fs_has(fs, XFSJ_RO_COMPAT_RMAPBT))
		b++;
	return b;
}

static int space_block_alloc(void *arg, struct xfsj_btree_cur *cur,
			     uint32_t near, uint32_t *agbno,
			     struct xfsj_fault *f)
{
	struct xfsj_fs *fs = xfsj_btree_cur_fs(cur);
	struct xfsj_owner oi = { .owner = XFSJ_RMAP_OWN_INOBT };

	(void)arg;
	if (xfsj_btree_cur_btnum(cur) == XFSJ_BT_REFC) {
		/* The kernel asks for refcountbt blocks near the root's
		 * mkfs position, whatever block is being split. */
		oi.owner = XFSJ_RMAP_OWN_REFC;
		near = refc_root_block(fs);
	}
	return xfsj_alloc_extent(fs, xfsj_btree_cur_agno(cur), near, 1, &oi,
				 agbno, f);
}

/* The kernel defers these frees (xfs_free_extent_later). */
static int space_block_free(void *arg, struct xfsj_btree_cur *cur,
			    uint32_t agbno, struct xfsj_fault *f)
{
	struct xfsj_fs *fs = xfsj_btree_cur_fs(cur);
	struct xfsj_work w;
	int err;

	(void)arg;
	memset(&w, 0, sizeof(w));
	w.kind = XFSJ_W_FREE;
	w.fsbno = xfsj_agb_to_fsb(xfsj_fs_sb(fs), xfsj_btree_cur_agno(cur),
				  agbno);
	w.len = 1;
	w.free.oi.owner = xfsj_btree_cur_btnum(cur) == XFSJ_BT_REFC ?
			  XFSJ_RMAP_OWN_REFC : XFSJ_RMAP_OWN_INOBT;
	err = xfsj_defer_add(fs, &w);
	if (err)
		return xfsj_fault_set(f, err, "deferred free", "queue", 0,
				      w.fsbno);
	return 0;
}

static const struct xfsj_btree_blocks agfl_source = {
	.alloc = agfl_block_alloc,
	.free = agfl_block_free,
};

static const struct xfsj_btree_blocks space_source = {
	.alloc = space_block_alloc,
	.free = space_block_free,
};

const struct xfsj_btree_blocks *xfsj_alloc_block_source(enum xfsj_btnum bt)
{
	switch (bt) {
	case XFSJ_BT_BNO:
	case XFSJ_BT_CNT:
	case XFSJ_BT_RMAP:
		return &agfl_source;
	case XFSJ_BT_INO:
	case XFSJ_BT_FINO:
	case XFSJ_BT_REFC:
		return &space_source;
	default:
		return NULL;
	}
}
