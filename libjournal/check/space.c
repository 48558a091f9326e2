/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The space of one AG, once every inode of every AG has been scanned: the
 * uses of blocks seen (the claims) against each other, against the free
 * space btrees, the rmapbt and the refcountbt; the blocks nobody owns.
 *
 * One sweep over the claims sorted by start block cuts the AG into
 * segments, each with the set of claims covering it (its depth).  A
 * segment of depth 0 must be free, one of depth 1 or more must not be; a
 * segment of depth 2 or more is either shared data (reflink: only data
 * fork extents of inodes, and the refcountbt must say so) or a block
 * owned twice.  The rmapbt is compared with the claims after both are
 * brought to one canonical form (adjacent mergeable records merged, as
 * the kernel merges them), so that how the records happen to be cut does
 * not matter.
 *
 * The AGF and AGI counters (space_counters.c) are checked in the same
 * phase.
 *
 * The claims are expected as the kernel's rmapbt holds them (a fresh
 * mkfs.xfs AG 0 holds: 0+1 OWN_FS, 1+2 OWN_AG, 3+2 OWN_INOBT, 5+1 OWN_AG,
 * 6+1 OWN_REFC, 7+6 OWN_AG, 16+8 OWN_INODES):
 *   OWN_FS      the sectors of the sb, AGF, AGI and AGFL (whole blocks)
 *   OWN_LOG     an internal log
 *   OWN_AG      the bnobt, cntbt and rmapbt blocks and the AGFL's entries
 *   OWN_INOBT   the inobt and finobt blocks
 *   OWN_INODES  inode chunks, without the holes of sparse ones
 *   OWN_REFC    the refcountbt blocks
 *   inode       fork extents (XFSJ_RMAP_OFF_ATTR_FORK, _UNWRITTEN and the
 *               file offset in the offset) and bmbt blocks (_BMBT_BLOCK,
 *               offset 0)
 *   OWN_COW     claimed here, from the refcountbt's CoW staging records
 * Until the metadata claims are made (no OWN_FS and OWN_INOBT claim in
 * the AG) or bmbt blocks are claimed (none in any AG), those kinds are
 * left out of the comparisons and no block is called leaked.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/check_priv.h"
#include "check/space_priv.h"
#include "core/grow.h"
#include "ondisk/rmap_merge.h"

enum {
	SP_MULTI, SP_FREE_USED, SP_FREE_TWICE, SP_ONE_FREE_TREE, SP_LEAK,
	SP_RMAP_MISSING, SP_RMAP_EXTRA, SP_REFCOUNT, SP_COW_LEFTOVER,
	SP_AGF_COUNTER, SP_AGI_COUNTER, SP_FINOBT, SP__N
};

static const struct xfsj_problem_def rows[SP__N] = {
	[SP_MULTI] = { "space.multiply_claimed", 0x070001, XFSJ_SEV_XCORRUPT,
		"space", "AG {ag} blocks {agbno}+{count} multiply claimed: {name}",
		XFSJ_FIX_CLEAR_FORK,
		XFSJ_H_CROSSLINK, XFSJ_T_CROSSLINK },
	[SP_FREE_USED] = { "space.free_and_used", 0x070002, XFSJ_SEV_XCORRUPT,
		"space",
		"AG {ag} blocks {agbno}+{count} are free in the {field} but used by {name}",
		XFSJ_FIX_REBUILD_BTREE,
		XFSJ_H_AG_BTREES, XFSJ_T_DOUBTS_FREE },
	[SP_FREE_TWICE] = { "space.free_twice", 0x070003, XFSJ_SEV_XCORRUPT,
		"space",
		"AG {ag} blocks {agbno}+{count} are in two records of the {field}",
		XFSJ_FIX_REBUILD_BTREE,
		XFSJ_H_AG_BTREES, XFSJ_T_DOUBTS_FREE },
	[SP_ONE_FREE_TREE] = { "space.one_free_tree", 0x070004,
		XFSJ_SEV_XCORRUPT, "space",
		"AG {ag} free extent {agbno}+{count} is only in the {field}",
		XFSJ_FIX_REBUILD_BTREE,
		XFSJ_H_AG_BTREES, XFSJ_T_DOUBTS_FREE },
	/* xfs_repair -n does not look for these (its man page, BUGS). */
	[SP_LEAK] = { "space.leaked", 0x070005, XFSJ_SEV_XCORRUPT, "space",
		"AG {ag} blocks {agbno}+{count} are neither free nor used (leaked)",
		XFSJ_FIX_FREE_SPACE,
		XFSJ_H_FREE_LEAKED, 0 },
	[SP_RMAP_MISSING] = { "rmapbt.missing", 0x070006, XFSJ_SEV_XCORRUPT,
		"rmapbt",
		"AG {ag} blocks {agbno}+{count} of {name} have no rmapbt record",
		XFSJ_FIX_REBUILD_BTREE,
		XFSJ_H_AG_BTREES, 0 },
	[SP_RMAP_EXTRA] = { "rmapbt.extra", 0x070007, XFSJ_SEV_XCORRUPT,
		"rmapbt",
		"AG {ag} rmapbt record {agbno}+{count} of {name} matches no use of the blocks",
		XFSJ_FIX_REBUILD_BTREE,
		XFSJ_H_AG_BTREES, 0 },
	[SP_REFCOUNT] = { "refcount.shared", 0x070008, XFSJ_SEV_XCORRUPT,
		"refcountbt",
		"AG {ag} blocks {agbno}+{count}: the refcountbt says {found} owners, the files share them {expected} times",
		XFSJ_FIX_REBUILD_BTREE,
		XFSJ_H_AG_BTREES, XFSJ_T_REFC_BTREE },
	/* The kernel frees these at mount; xfs_repair -n reports them. */
	[SP_COW_LEFTOVER] = { "refcountbt.cow_leftover", 0x070009,
		XFSJ_SEV_WARN, "refcountbt",
		"AG {ag} blocks {agbno}+{count}: leftover CoW staging extent",
		XFSJ_FIX_FREE_SPACE,
		XFSJ_H_FREE_LEAKED, XFSJ_T_REFC_BTREE },
	[SP_AGF_COUNTER] = { "agf.counter", 0x07000a, XFSJ_SEV_XCORRUPT, "AGF",
		"AGF of AG {ag}: {field} is {found}, counted {expected}",
		XFSJ_FIX_FIELD,
		XFSJ_H_AGF_COUNTER, XFSJ_T_COUNTER },
	[SP_AGI_COUNTER] = { "agi.counter", 0x07000b, XFSJ_SEV_XCORRUPT, "AGI",
		"AGI of AG {ag}: {field} is {found}, counted {expected}",
		XFSJ_FIX_FIELD,
		XFSJ_H_AGI_COUNTER, XFSJ_T_COUNTER },
	[SP_FINOBT] = { "finobt.mismatch", 0x07000c, XFSJ_SEV_XCORRUPT,
		"finobt", "AG {ag} inode chunk at inode {ino}: {field}",
		XFSJ_FIX_REBUILD_BTREE,
		XFSJ_H_AG_BTREES, XFSJ_T_FINOBT },
};
const struct xck_table xck_space_table = { rows, SP__N };

/* ---- describing an owner ---- */

static bool owner_is_inode(uint64_t owner)
{
	return !(owner >> 63);
}

static void xck_owner_desc(const struct xfsj_rmap_rec *r, char *buf, size_t len)
{
	static const char *const special[] = {
		"no owner", "an unknown owner", "the AG headers", "the log",
		"the free space btrees or AGFL", "the inode btrees",
		"an inode chunk", "the refcount btree", "CoW staging",
	};
	uint64_t k = ~r->owner;		/* OWN_NULL 0, OWN_UNKNOWN 1, ... */

	if (owner_is_inode(r->owner))
		snprintf(buf, len, "inode %llu %s%s",
			 (unsigned long long)r->owner,
			 r->offset & XFSJ_RMAP_OFF_ATTR_FORK ? "attr" : "data",
			 r->offset & XFSJ_RMAP_OFF_BMBT_BLOCK ? " bmbt" : "");
	else if (k < sizeof(special) / sizeof(special[0]))
		snprintf(buf, len, "%s", special[k]);
	else
		snprintf(buf, len, "owner 0x%llx",
			 (unsigned long long)r->owner);
}

static void report_range(struct xck *ck, const struct xck_ag *ag, int row,
			 uint32_t start, uint32_t len, const char *field,
			 const char *name)
{
	xck_report(ck, &(struct xfsj_problem){
		.def = &rows[row],
		.has = XFSJ_PF_AG | XFSJ_PF_AGBNO | XFSJ_PF_COUNT,
		.agno = ag->agno, .agbno = start, .count = len,
		.field = field, .name = name,
		.namelen = name ? strlen(name) : 0 });
}

/*
 * A run of reports that merge while they continue one another: the same
 * row, the same description, the next block.
 */
struct pending {
	int row;		/* -1: none */
	uint32_t start, end;
	const char *field;
	char name[208];
};

static void pending_flush(struct xck *ck, const struct xck_ag *ag,
			  struct pending *p)
{
	if (p->row >= 0)
		report_range(ck, ag, p->row, p->start, p->end - p->start,
			     p->field, p->name[0] ? p->name : NULL);
	p->row = -1;
}

static void pending_add(struct xck *ck, const struct xck_ag *ag,
			struct pending *p, int row, uint32_t start,
			uint32_t end, const char *field, const char *name)
{
	if (!name)
		name = "";
	if (p->row == row && p->end == start && p->field == field &&
	    !strcmp(p->name, name)) {
		p->end = end;
		return;
	}
	pending_flush(ck, ag, p);
	p->row = row;
	p->start = start;
	p->end = end;
	p->field = field;
	snprintf(p->name, sizeof(p->name), "%s", name);
}

/* ---- sorting ---- */

static int cmp_u32(uint32_t a, uint32_t b)
{
	return a < b ? -1 : a > b;
}

static int cmp_u64(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

static int rmap_by_start(const void *pa, const void *pb)
{
	const struct xfsj_rmap_rec *a = pa, *b = pb;

	int c = cmp_u32(a->startblock, b->startblock);

	if (!c)
		c = cmp_u64(a->owner, b->owner);
	if (!c)
		c = cmp_u64(a->offset, b->offset);
	return c ? c : cmp_u32(a->blockcount, b->blockcount);
}

#define RMAP_FLAGS (XFSJ_RMAP_OFF_ATTR_FORK | XFSJ_RMAP_OFF_BMBT_BLOCK | \
		    XFSJ_RMAP_OFF_UNWRITTEN)

static int rmap_by_owner(const void *pa, const void *pb)
{
	const struct xfsj_rmap_rec *a = pa, *b = pb;

	int c = cmp_u64(a->owner, b->owner);

	if (!c)
		c = cmp_u64(a->offset & RMAP_FLAGS, b->offset & RMAP_FLAGS);
	if (!c)
		c = cmp_u32(a->startblock, b->startblock);
	if (!c)
		c = cmp_u64(a->offset, b->offset);
	return c ? c : cmp_u32(a->blockcount, b->blockcount);
}

static int alloc_by_start(const void *pa, const void *pb)
{
	const struct xfsj_alloc_rec *a = pa, *b = pb;

	int c = cmp_u32(a->startblock, b->startblock);

	return c ? c : cmp_u32(a->blockcount, b->blockcount);
}

static int refc_by_start(const void *pa, const void *pb)
{
	const struct xfsj_refc_rec *a = pa, *b = pb;

	int c = cmp_u32(a->startblock, b->startblock);

	return c ? c : cmp_u32(a->blockcount, b->blockcount);
}

/* The same orders as keys of the radix sort. */
static uint64_t rm_start(const void *p)
{
	return ((const struct xfsj_rmap_rec *)p)->startblock;
}

static uint64_t rm_owner(const void *p)
{
	return ((const struct xfsj_rmap_rec *)p)->owner;
}

static uint64_t rm_offset(const void *p)
{
	return ((const struct xfsj_rmap_rec *)p)->offset;
}

static uint64_t rm_flags(const void *p)
{
	return ((const struct xfsj_rmap_rec *)p)->offset & RMAP_FLAGS;
}

static uint64_t rm_count(const void *p)
{
	return ((const struct xfsj_rmap_rec *)p)->blockcount;
}

static const xfsj_sort_key rmap_start_keys[] = {
	rm_start, rm_owner, rm_offset, rm_count,
};
static const xfsj_sort_key rmap_owner_keys[] = {
	rm_owner, rm_flags, rm_start, rm_offset, rm_count,
};

/* ---- the free space, as one sorted list of disjoint extents ---- */

/*
 * Fold the overlapping records of @v (sorted by start) into one,
 * reporting the blocks two records hold.  Records past the AG are cut at
 * its end (the btree walk reported them).
 */
static void free_normalize(struct xck *ck, const struct xck_ag *ag,
			   struct xck_vec *v, const char *tree)
{
	struct xfsj_alloc_rec *r = v->v;
	size_t i, n = 0;

	for (i = 0; i < v->n; i++) {
		uint32_t s = r[i].startblock;
		uint64_t e = (uint64_t)s + r[i].blockcount;

		if (e > ag->agblocks)
			e = ag->agblocks;
		if (s >= e)
			continue;
		if (n && s < r[n - 1].startblock + r[n - 1].blockcount) {
			uint32_t pe = r[n - 1].startblock +
				      r[n - 1].blockcount;

			report_range(ck, ag, SP_FREE_TWICE, s,
				     (uint32_t)((e < pe ? e : pe) - s), tree,
				     NULL);
			if (e > pe)
				r[n - 1].blockcount = (uint32_t)
					(e - r[n - 1].startblock);
			continue;
		}
		r[n].startblock = s;
		r[n].blockcount = (uint32_t)(e - s);
		n++;
	}
	v->n = n;
}

/* bnobt against cntbt: the same extents, both sorted by start. */
static void free_trees_compare(struct xck *ck, const struct xck_ag *ag,
			       const struct xck_vec *bno,
			       const struct xck_vec *cnt)
{
	const struct xfsj_alloc_rec *a = bno->v, *b = cnt->v;
	size_t i = 0, j = 0;

	while (i < bno->n || j < cnt->n) {
		int c = i >= bno->n ? 1 : j >= cnt->n ? -1 :
			alloc_by_start(&a[i], &b[j]);

		if (c < 0) {
			report_range(ck, ag, SP_ONE_FREE_TREE, a[i].startblock,
				     a[i].blockcount, "bnobt", NULL);
			i++;
		} else if (c > 0) {
			report_range(ck, ag, SP_ONE_FREE_TREE, b[j].startblock,
				     b[j].blockcount, "cntbt", NULL);
			j++;
		} else {
			i++;
			j++;
		}
	}
}

/* ---- the sweep over the claims ---- */

struct sweep {
	struct xck *ck;
	struct xck_ag *ag;
	bool reflink;
	/* The free extents to compare with (disjoint, by start), or NULL. */
	const struct xck_vec *free;
	const char *free_tree;
	size_t fi;
	bool leaks;		/* the claims are complete enough */
	/* The sharing seen: refcount records, by start. */
	struct xck_vec shared;
	struct pending multi, free_used, leak;
};

/*
 * May the blocks be shared with another file (reflink)?  Only a regular
 * file's written data (a directory or a symlink never shares its blocks,
 * and the kernel shares no unwritten extent: a remap leaves a hole where
 * the source is unwritten, and the rmap of an unwritten extent may
 * overlap nothing).
 */
static bool shareable(struct xck *ck, const struct xfsj_rmap_rec *r)
{
	const struct xck_inode *st;

	if (!owner_is_inode(r->owner) ||
	    (r->offset & (XFSJ_RMAP_OFF_ATTR_FORK | XFSJ_RMAP_OFF_BMBT_BLOCK |
			  XFSJ_RMAP_OFF_UNWRITTEN)))
		return false;
	st = xck_inode_find(ck, r->owner, NULL);
	return !st || !st->ftype || st->ftype == XFSJ_FT_REG;
}

static int shared_add(struct sweep *sw, uint32_t s, uint32_t e,
		      uint32_t count)
{
	struct xfsj_refc_rec *last = sw->shared.n ?
		xck_vec_at(&sw->shared, sw->shared.n - 1) : NULL;
	struct xfsj_refc_rec r = { s, e - s, count };

	if (last && last->refcount == count &&
	    last->startblock + last->blockcount == s) {
		last->blockcount += e - s;
		return 0;
	}
	return xck_vec_push(sw->ck, &sw->shared, &r);
}

/* The free extents over [s, e): report each piece as @in or @out. */
static void free_overlap(struct sweep *sw, uint32_t s, uint32_t e,
			 const struct xfsj_rmap_rec *owner)
{
	const struct xfsj_alloc_rec *f = sw->free->v;
	char name[96];
	bool named = false;
	uint32_t pos = s;

	while (sw->fi < sw->free->n &&
	       f[sw->fi].startblock + f[sw->fi].blockcount <= s)
		sw->fi++;
	for (size_t i = sw->fi; i < sw->free->n && f[i].startblock < e; i++) {
		uint32_t fs = f[i].startblock > s ? f[i].startblock : s;
		uint32_t fe = f[i].startblock + f[i].blockcount;

		if (fe > e)
			fe = e;
		if (owner) {
			/* Named only when found on free space (rare). */
			if (!named)
				xck_owner_desc(owner, name, sizeof(name));
			named = true;
			pending_add(sw->ck, sw->ag, &sw->free_used,
				    SP_FREE_USED, fs, fe, sw->free_tree, name);
		} else if (sw->leaks && fs > pos) {
			pending_add(sw->ck, sw->ag, &sw->leak, SP_LEAK, pos,
				    fs, NULL, NULL);
		}
		pos = fe;
	}
	if (!owner && sw->leaks && pos < e)
		pending_add(sw->ck, sw->ag, &sw->leak, SP_LEAK, pos, e, NULL,
			    NULL);
}

/* One segment [s, e) of the AG and the @n claims covering it. */
static int segment(struct sweep *sw, uint32_t s, uint32_t e,
		   const struct xfsj_rmap_rec *const *act, size_t n)
{
	size_t i;

	if (sw->free)
		free_overlap(sw, s, e, n ? act[0] : NULL);
	if (n < 2)
		return 0;
	for (i = 0; i < n && sw->reflink && shareable(sw->ck, act[i]); i++)
		;
	if (i == n)
		return shared_add(sw, s, e, (uint32_t)n);
	{
		char a[96], b[96], both[208];
		/* Name a pair that may not share: the first that may not
		 * and another. */
		size_t x = i < n ? i : 0, y = x ? 0 : 1;

		xck_owner_desc(act[x], a, sizeof(a));
		xck_owner_desc(act[y], b, sizeof(b));
		snprintf(both, sizeof(both), "by %s and by %s", b, a);
		pending_add(sw->ck, sw->ag, &sw->multi, SP_MULTI, s, e, NULL,
			    both);
	}
	return 0;
}

static uint32_t rec_end(const struct xfsj_rmap_rec *r, uint32_t agblocks)
{
	uint64_t e = (uint64_t)r->startblock + r->blockcount;

	return e > agblocks ? agblocks : (uint32_t)e;
}

/*
 * Cut [0, agblocks) into segments by the claims (sorted by start) and
 * hand each to segment() with the claims covering it.
 */
static int sweep_claims(struct sweep *sw)
{
	const struct xck_vec *cl = &sw->ag->claims;
	const struct xfsj_rmap_rec *r = cl->v;
	const struct xfsj_rmap_rec **act = NULL;
	size_t nact = 0, cap = 0, i = 0, k;
	uint32_t pos = 0, agblocks = sw->ag->agblocks;
	int err = 0;

	while (!err && pos < agblocks) {
		uint32_t next = agblocks;

		/* Claims starting here join; empty or outside ones drop. */
		while (i < cl->n && r[i].startblock <= pos) {
			if (rec_end(&r[i], agblocks) > pos) {
				err = xfsj_grow(&act, &cap, nact, 1,
						sizeof(*act), 16);
				if (err)
					break;
				act[nact++] = &r[i];
			}
			i++;
		}
		if (err)
			break;
		if (i < cl->n && r[i].startblock < next)
			next = r[i].startblock;
		for (k = 0; k < nact; k++)
			if (rec_end(act[k], agblocks) < next)
				next = rec_end(act[k], agblocks);
		err = segment(sw, pos, next, act, nact);
		for (k = 0; k < nact;) {
			if (rec_end(act[k], agblocks) <= next)
				act[k] = act[--nact];
			else
				k++;
		}
		pos = next;
	}
	free(act);
	return err;
}

/* ---- rmapbt against the claims ---- */

/* Sort by owner and merge what the kernel would hold as one record. */
static void rmap_canonical(struct xck_vec *v)
{
	struct xfsj_rmap_rec *r = v->v;
	size_t i, n = 0;

	xck_vec_sort_keys(v, rmap_owner_keys, 5, rmap_by_owner);
	for (i = 0; i < v->n; i++) {
		if (n && xfsj_rmap_continues(&r[n - 1], &r[i])) {
			r[n - 1].blockcount += r[i].blockcount;
			continue;
		}
		r[n++] = r[i];
	}
	v->n = n;
}

/* Is record @r of a kind whose claims are made (see xck_space)? */
struct rmap_kinds {
	bool meta;	/* metadata owners */
	bool inodes;	/* inode owners (every inode was scanned) */
	bool bmbt;	/* bmbt blocks */
};

static bool rmap_comparable(const struct xfsj_rmap_rec *r,
			    const struct rmap_kinds *k)
{
	if (!owner_is_inode(r->owner))
		return k->meta;
	if (!k->inodes)
		return false;
	return k->bmbt || !(r->offset & XFSJ_RMAP_OFF_BMBT_BLOCK);
}

/*
 * Records of a kind whose claims are not all made are left out on both
 * sides.
 */
static void rmap_compare(struct xck *ck, struct xck_ag *ag,
			 const struct rmap_kinds *k)
{
	const struct xfsj_rmap_rec *a, *b;
	size_t i = 0, j = 0;
	char name[96];

	rmap_canonical(&ag->claims);
	rmap_canonical(&ag->rmaps);
	a = ag->claims.v;
	b = ag->rmaps.v;
	while (i < ag->claims.n || j < ag->rmaps.n) {
		int c;

		if (i < ag->claims.n && !rmap_comparable(&a[i], k)) {
			i++;
			continue;
		}
		if (j < ag->rmaps.n && !rmap_comparable(&b[j], k)) {
			j++;
			continue;
		}
		c = i >= ag->claims.n ? 1 : j >= ag->rmaps.n ? -1 :
		    rmap_by_owner(&a[i], &b[j]);
		if (c < 0) {
			xck_owner_desc(&a[i], name, sizeof(name));
			report_range(ck, ag, SP_RMAP_MISSING, a[i].startblock,
				     a[i].blockcount, NULL, name);
			i++;
		} else if (c > 0) {
			xck_owner_desc(&b[j], name, sizeof(name));
			report_range(ck, ag, SP_RMAP_EXTRA, b[j].startblock,
				     b[j].blockcount, NULL, name);
			j++;
		} else {
			i++;
			j++;
		}
	}
}

/* ---- refcountbt against the sharing seen ---- */

/*
 * The refcount of block @pos in the sorted, disjoint records @r from
 * index *@i, and in *@next where that value ends.
 */
static uint32_t refc_at(const struct xfsj_refc_rec *r, size_t n, size_t *i,
			uint32_t pos, uint32_t limit, uint32_t *next)
{
	while (*i < n && (uint64_t)r[*i].startblock + r[*i].blockcount <= pos)
		(*i)++;
	if (*i >= n) {
		*next = limit;
		return 1;
	}
	if (r[*i].startblock > pos) {
		*next = r[*i].startblock < limit ? r[*i].startblock : limit;
		return 1;
	}
	*next = r[*i].startblock + r[*i].blockcount;
	if (*next > limit)
		*next = limit;
	return r[*i].refcount;
}

static void refcount_compare(struct xck *ck, struct xck_ag *ag,
			     const struct xck_vec *seen,
			     const struct xck_vec *disk)
{
	const struct xfsj_refc_rec *a = seen->v, *b = disk->v;
	size_t i = 0, j = 0;
	uint32_t pos = 0;

	while (pos < ag->agblocks) {
		uint32_t na, nb, ca, cb;

		ca = refc_at(a, seen->n, &i, pos, ag->agblocks, &na);
		cb = refc_at(b, disk->n, &j, pos, ag->agblocks, &nb);
		if (nb < na)
			na = nb;
		if (na <= pos)
			na = pos + 1;
		if (ca != cb) {
			xck_report(ck, &(struct xfsj_problem){
				.def = &rows[SP_REFCOUNT],
				.has = XFSJ_PF_AG | XFSJ_PF_AGBNO |
				       XFSJ_PF_COUNT | XFSJ_PF_EXPECTED |
				       XFSJ_PF_FOUND,
				.agno = ag->agno, .agbno = pos,
				.count = na - pos, .expected = ca,
				.found = cb });
		}
		pos = na;
	}
}

/*
 * The refcountbt's shared records (sorted, disjoint, adjacent equal
 * counts merged) into @shared; its CoW staging records are claimed by
 * OWN_COW (the rmapbt holds them so) and reported as left over.
 */
static int refc_split(struct xck *ck, struct xck_ag *ag,
		      struct xck_vec *shared)
{
	const struct xfsj_refc_rec *r = ag->refcs.v;
	size_t i;
	int err = 0;

	for (i = 0; i < ag->refcs.n && !err; i++) {
		uint32_t s = r[i].startblock & ~XFSJ_REFC_COWFLAG;
		uint64_t e = (uint64_t)s + r[i].blockcount;

		if (e > ag->agblocks || !r[i].blockcount)
			continue;	/* the btree walk reported it */
		if (r[i].startblock & XFSJ_REFC_COWFLAG) {
			report_range(ck, ag, SP_COW_LEFTOVER, s,
				     r[i].blockcount, NULL, NULL);
			/* The AG's own list (not a worker's job: the sweep
			 * below reads it). */
			err = xck_vec_push(ck, &ag->claims,
				&(struct xfsj_rmap_rec){
					.startblock = s,
					.blockcount = r[i].blockcount,
					.owner = XFSJ_RMAP_OWN_COW });
			continue;
		}
		err = xck_vec_push(ck, shared, &r[i]);
	}
	if (err)
		return err;
	xck_vec_sort(shared, refc_by_start);
	{
		struct xfsj_refc_rec *v = shared->v;
		size_t n = 0;

		for (i = 0; i < shared->n; i++) {
			if (n && v[n - 1].refcount == v[i].refcount &&
			    v[n - 1].startblock + v[n - 1].blockcount ==
			    v[i].startblock) {
				v[n - 1].blockcount += v[i].blockcount;
				continue;
			}
			v[n++] = v[i];
		}
		shared->n = n;
	}
	return 0;
}

/* ---- the phase ---- */

bool xck_inodes_complete(const struct xck *ck)
{
	uint32_t agno;

	for (agno = 0; agno < ck->agcount; agno++)
		if (!ck->ags[agno].agi_ok || !ck->ags[agno].tree_ok[XFSJ_BT_INO])
			return false;
	return true;
}

/*
 * Are the claims of the AG's metadata made?  The AG headers (OWN_FS) and
 * the inode btree roots (OWN_INOBT) are in every AG, so a build whose
 * header and btree checks do not claim blocks has neither; then only the
 * inodes' claims can be compared, and nothing is known to be leaked.
 */
static bool metadata_claimed(const struct xck_ag *ag)
{
	const struct xfsj_rmap_rec *r = ag->claims.v;
	bool fs = false, inobt = false;
	size_t i;

	for (i = 0; i < ag->claims.n && !(fs && inobt); i++) {
		fs |= r[i].owner == XFSJ_RMAP_OWN_FS;
		inobt |= r[i].owner == XFSJ_RMAP_OWN_INOBT;
	}
	return fs && inobt;
}

/*
 * Does any AG hold a claim of a bmbt block (are they claimed at all)?
 * Asked before the first AG's claims are changed, once: before the phase
 * (xck_space_prepare), as the AGs' runs may go on at once.
 */
static bool bmbt_claimed(struct xck *ck)
{
	uint32_t agno;
	size_t i;

	for (agno = 0; agno < ck->agcount && !ck->bmbt_claims; agno++) {
		const struct xck_vec *v = &ck->ags[agno].claims;
		const struct xfsj_rmap_rec *r = v->v;

		for (i = 0; i < v->n; i++)
			if (owner_is_inode(r[i].owner) &&
			    (r[i].offset & XFSJ_RMAP_OFF_BMBT_BLOCK)) {
				ck->bmbt_claims = 2;
				break;
			}
	}
	if (!ck->bmbt_claims)
		ck->bmbt_claims = 1;
	return ck->bmbt_claims == 2;
}

/*
 * Are the claims of this AG complete, so that a block nobody claims is
 * leaked?  Not when a header or tree whose blocks (or whose records'
 * blocks) would be claimed could not be read whole.
 */
static bool claims_complete(struct xck *ck, const struct xck_ag *ag)
{
	static const struct { enum xfsj_btnum bt; uint32_t feat; } t[] = {
		{ XFSJ_BT_BNO, 0 }, { XFSJ_BT_CNT, 0 }, { XFSJ_BT_INO, 0 },
		{ XFSJ_BT_FINO, XFSJ_RO_COMPAT_FINOBT },
		{ XFSJ_BT_RMAP, XFSJ_RO_COMPAT_RMAPBT },
		{ XFSJ_BT_REFC, XFSJ_RO_COMPAT_REFLINK },
	};
	size_t i;

	if (!ag->agf_ok || !ag->agfl_ok || !xck_inodes_complete(ck))
		return false;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if ((!t[i].feat || xfsj_fs_has(ck->fs, t[i].feat)) &&
		    !ag->tree_ok[t[i].bt])
			return false;
	return true;
}

int xck_space_prepare(struct xck *ck)
{
	bmbt_claimed(ck);
	return 0;
}

int xck_space(struct xck *ck, struct xck_ag *ag)
{
	struct sweep sw = {
		.ck = ck, .ag = ag,
		.reflink = xfsj_fs_has(ck->fs, XFSJ_RO_COMPAT_REFLINK),
		.multi = { .row = -1 }, .free_used = { .row = -1 },
		.leak = { .row = -1 },
	};
	struct xck_vec disk_shared;
	bool refc = sw.reflink && ag->agf_ok && ag->tree_ok[XFSJ_BT_REFC];
	bool meta;
	int err = 0;

	/* The inode phase's lookups are done; the tables get reordered. */
	xck_ag_index_free(ck, ag);
	ck->res->work[XFSJ_WK_SPACE] += ag->claims.n + ag->bno_free.n +
		ag->cnt_free.n + ag->rmaps.n + ag->refcs.n;
	xck_vec_init(&sw.shared, sizeof(struct xfsj_refc_rec));
	xck_vec_init(&disk_shared, sizeof(struct xfsj_refc_rec));

	/* Counters first: they read the trees as the btree walk left them. */
	xck_space_counters(ck, ag, &rows[SP_AGF_COUNTER],
			   &rows[SP_AGI_COUNTER], &rows[SP_FINOBT]);

	if (refc)
		err = refc_split(ck, ag, &disk_shared);
	if (err)
		goto out;

	/* The two trees' records as they are, then cut to the AG. */
	xck_vec_sort(&ag->bno_free, alloc_by_start);
	xck_vec_sort(&ag->cnt_free, alloc_by_start);
	if (ag->agf_ok && ag->tree_ok[XFSJ_BT_BNO] && ag->tree_ok[XFSJ_BT_CNT])
		free_trees_compare(ck, ag, &ag->bno_free, &ag->cnt_free);
	if (ag->agf_ok && ag->tree_ok[XFSJ_BT_BNO]) {
		free_normalize(ck, ag, &ag->bno_free, "bnobt");
		sw.free = &ag->bno_free;
		sw.free_tree = "bnobt";
	} else if (ag->agf_ok && ag->tree_ok[XFSJ_BT_CNT]) {
		free_normalize(ck, ag, &ag->cnt_free, "cntbt");
		sw.free = &ag->cnt_free;
		sw.free_tree = "cntbt";
	}
	meta = metadata_claimed(ag);
	sw.leaks = sw.free && meta && claims_complete(ck, ag);

	xck_vec_sort_keys(&ag->claims, rmap_start_keys, 4, rmap_by_start);
	err = sweep_claims(&sw);
	pending_flush(ck, ag, &sw.multi);
	pending_flush(ck, ag, &sw.free_used);
	pending_flush(ck, ag, &sw.leak);
	if (err)
		goto out;

	/* Sharing and owners are only known when every inode was seen. */
	if (refc && xck_inodes_complete(ck))
		refcount_compare(ck, ag, &sw.shared, &disk_shared);
	if (xfsj_fs_has(ck->fs, XFSJ_RO_COMPAT_RMAPBT) && ag->agf_ok &&
	    ag->tree_ok[XFSJ_BT_RMAP]) {
		struct rmap_kinds k = {
			.meta = meta, .inodes = xck_inodes_complete(ck),
			.bmbt = ck->bmbt_claims == 2,
		};

		rmap_compare(ck, ag, &k);
	}
out:
	xck_vec_free(ck, &sw.shared);
	xck_vec_free(ck, &disk_shared);
	return err;
}
