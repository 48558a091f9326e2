// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The evidence model of who owns a range claimed twice (evidence.h):
 * the table of evidence and weights, and the decision.  It reads only
 * the facts of the claims (claim_facts.c reads them from the
 * filesystem), so the unit tests drive it row by row.
 *
 * The weights order the evidence:
 * - layout (64): AG header sectors and the internal log are where the
 *   superblock's geometry puts them; nothing else may be there;
 * - header (32): the block says whose it is (magic, owner, block number
 *   and UUID); file data has no header, and data that happens to look
 *   like one names no owner, block and UUID of its own;
 * - written (20) and ftype (20): the kernel shares no unwritten extent
 *   (which reads as zeroes) and never lets a directory or a symlink
 *   share a block with a file: the written data of a regular file keeps
 *   a block an unwritten mapping or a directory's mapping also claims,
 *   whatever the rmapbt says (more than rmapbt's two rows apart); what a
 *   salvaged log leaves when the freeing was lost and a kept transaction
 *   gave the blocks away;
 * - rmapbt (8) and rmapbt_other (-8): the rmapbt, when it was read whole,
 *   records this claim (owner, fork, file offset, unwritten flag), or
 *   only others over the range;
 * - refcount (4): the refcountbt records the range as shared, and the
 *   claim may share (a regular file's written data, reflink);
 * - zeroes (-2): an unwritten extent where another file maps the range
 *   unwritten too: it reads as zeroes, as the hole left by giving it up
 *   does, so with nothing else to go on both give way and no byte a
 *   reader sees changes (a tie left as it is would leave the repair
 *   unfinished);
 * - sound (1, keeper only): no problem named the claiming inode; it
 *   picks which file of a clone keeps the original blocks, never who
 *   loses them.
 */
#include "repair/evidence.h"

#include "xfsj/ondisk.h"

#define FORK_BITS	(XFSJ_RMAP_OFF_ATTR_FORK | XFSJ_RMAP_OFF_BMBT_BLOCK)

static bool is_inode(const struct xrp_claim *c)
{
	return !(c->owner >> 63);
}

/* An inode's mapping of its data fork (not a bmbt block). */
static bool is_data(const struct xrp_claim *c)
{
	return is_inode(c) && !(c->offset & FORK_BITS);
}

static bool unwritten(const struct xrp_claim *c)
{
	return (c->offset & XFSJ_RMAP_OFF_UNWRITTEN) != 0;
}

bool xrp_ev_cloneable(const struct xrp_claim *c)
{
	return is_data(c) && !unwritten(c) && c->ftype == XFSJ_FT_REG;
}

/* May @c share its blocks on a reflink filesystem (as the check says)? */
static bool shareable(const struct xrp_claim *c)
{
	return is_data(c) && !unwritten(c) &&
	       (!c->ftype || c->ftype == XFSJ_FT_REG);
}

/* May @a and @b both keep the range? */
static bool compatible(const struct xrp_claim *a, const struct xrp_claim *b,
		       bool reflink)
{
	if (a->owner == b->owner &&
	    (a->offset & FORK_BITS) == (b->offset & FORK_BITS))
		return true;
	return reflink && shareable(a) && shareable(b);
}

/* Does another owner's data claim over the range satisfy @what? */
static bool other_data(const struct xrp_claim *c, size_t n, size_t i,
		       bool (*what)(const struct xrp_claim *))
{
	for (size_t k = 0; k < n; k++)
		if (k != i && c[k].owner != c[i].owner && is_data(&c[k]) &&
		    what(&c[k]))
			return true;
	return false;
}

static bool dir_or_symlink(const struct xrp_claim *c)
{
	return c->ftype == XFSJ_FT_DIR || c->ftype == XFSJ_FT_SYMLINK;
}

/* ---- the rows ---- */

static bool row_layout(const struct xrp_claim *c, size_t n, size_t i,
		       bool reflink)
{
	(void)n;
	(void)reflink;
	return c[i].layout;
}

static bool row_header(const struct xrp_claim *c, size_t n, size_t i,
		       bool reflink)
{
	(void)n;
	(void)reflink;
	return c[i].header;
}

static bool row_written(const struct xrp_claim *c, size_t n, size_t i,
			bool reflink)
{
	(void)reflink;
	return is_data(&c[i]) && !unwritten(&c[i]) &&
	       other_data(c, n, i, unwritten);
}

static bool row_ftype(const struct xrp_claim *c, size_t n, size_t i,
		      bool reflink)
{
	(void)reflink;
	return is_data(&c[i]) && c[i].ftype == XFSJ_FT_REG &&
	       other_data(c, n, i, dir_or_symlink);
}

static bool row_rmapbt(const struct xrp_claim *c, size_t n, size_t i,
		       bool reflink)
{
	(void)n;
	(void)reflink;
	return c[i].rmap_backs;
}

static bool row_rmapbt_other(const struct xrp_claim *c, size_t n, size_t i,
			     bool reflink)
{
	(void)n;
	(void)reflink;
	return c[i].rmap_other && !c[i].rmap_backs;
}

static bool row_refcount(const struct xrp_claim *c, size_t n, size_t i,
			 bool reflink)
{
	(void)n;
	return reflink && c[i].refcount && shareable(&c[i]);
}

static bool row_zeroes(const struct xrp_claim *c, size_t n, size_t i,
		       bool reflink)
{
	(void)reflink;
	return is_data(&c[i]) && unwritten(&c[i]) &&
	       other_data(c, n, i, unwritten);
}

static bool row_sound(const struct xrp_claim *c, size_t n, size_t i,
		      bool reflink)
{
	(void)n;
	(void)reflink;
	return is_inode(&c[i]) && c[i].sound;
}

static const struct xrp_ev_row_def rows[XRP_EV__N] = {
	[XRP_EV_LAYOUT] = { "layout", 64, false, row_layout },
	[XRP_EV_HEADER] = { "header", 32, false, row_header },
	[XRP_EV_WRITTEN] = { "written", 20, false, row_written },
	[XRP_EV_FTYPE] = { "ftype", 20, false, row_ftype },
	[XRP_EV_RMAPBT] = { "rmapbt", 8, false, row_rmapbt },
	[XRP_EV_RMAPBT_OTHER] = { "rmapbt_other", -8, false,
				  row_rmapbt_other },
	[XRP_EV_REFCOUNT] = { "refcount", 4, false, row_refcount },
	[XRP_EV_ZEROES] = { "zeroes", -2, false, row_zeroes },
	[XRP_EV_SOUND] = { "sound", 1, true, row_sound },
};

const struct xrp_ev_row_def *xrp_ev_rows(void)
{
	return rows;
}

size_t xrp_ev_names(uint32_t why, const char **names, size_t max)
{
	size_t n = 0;

	for (int r = 0; r < XRP_EV__N && n < max; r++)
		if (why & (1U << r))
			names[n++] = rows[r].name;
	return n;
}

const char *xrp_ev_outcome_name(enum xrp_outcome o)
{
	static const char *const name[] = {
		[XRP_D_KEEP] = "keep", [XRP_D_CLONE] = "clone",
		[XRP_D_NONE] = "none", [XRP_D_TIE] = "tie",
	};

	return name[o];
}

/* ---- the decision ---- */

/* The rows of @mask whose weights are positive, negative, keeper-only. */
static uint32_t rows_where(uint32_t mask, int sign, bool keeper_only)
{
	uint32_t out = 0;

	for (int r = 0; r < XRP_EV__N; r++) {
		const struct xrp_ev_row_def *d = &rows[r];

		if (!(mask & (1U << r)) || d->keeper_only != keeper_only)
			continue;
		if (keeper_only || (sign > 0 ? d->weight > 0 : d->weight < 0))
			out |= 1U << r;
	}
	return out;
}

static int tie_score(const struct xrp_claim *c)
{
	int s = 0;

	for (int r = 0; r < XRP_EV__N; r++)
		if (rows[r].keeper_only && (c->rows & (1U << r)))
			s += rows[r].weight;
	return s;
}

/* Of the claims at the best score, the one that keeps: the keeper-only
 * rows, then the lowest owner. */
static size_t pick_keeper(const struct xrp_claim *c, size_t n, int best)
{
	size_t k = n;

	for (size_t i = 0; i < n; i++) {
		if (c[i].score != best)
			continue;
		if (k == n || tie_score(&c[i]) > tie_score(&c[k]) ||
		    (tie_score(&c[i]) == tie_score(&c[k]) &&
		     c[i].owner < c[k].owner))
			k = i;
	}
	return k;
}

/* Do all claims at the best score pass @ok with the keeper? */
static bool all_best(const struct xrp_claim *c, size_t n, int best,
		     size_t keeper, bool reflink, bool clone)
{
	for (size_t i = 0; i < n; i++) {
		if (c[i].score != best ||
		    compatible(&c[i], &c[keeper], reflink))
			continue;
		if (!clone || !xrp_ev_cloneable(&c[i]))
			return false;
	}
	return !clone || xrp_ev_cloneable(&c[keeper]);
}

void xrp_ev_decide(struct xrp_claim *c, size_t n, bool reflink,
		   struct xrp_decision *d)
{
	int best = 0, lost;
	size_t i, top = n;

	*d = (struct xrp_decision){ .outcome = XRP_D_TIE };
	if (!n)
		return;
	for (i = 0; i < n; i++) {
		c[i].score = 0;
		c[i].rows = 0;
		for (int r = 0; r < XRP_EV__N; r++) {
			if (!rows[r].holds(c, n, i, reflink))
				continue;
			c[i].rows |= 1U << r;
			if (!rows[r].keeper_only)
				c[i].score += rows[r].weight;
		}
		if (!i || c[i].score > best)
			best = c[i].score;
	}
	d->kept = best;
	d->keeper = pick_keeper(c, n, best);
	if (best < 0) {
		d->outcome = XRP_D_NONE;
		d->why = rows_where(c[d->keeper].rows, -1, false);
		for (i = 0; i < n; i++)
			c[i].verdict = XRP_V_GIVE_WAY;
		d->gave_way = best;
		return;
	}
	if (all_best(c, n, best, d->keeper, reflink, false))
		d->outcome = XRP_D_KEEP;
	else if (all_best(c, n, best, d->keeper, reflink, true))
		d->outcome = XRP_D_CLONE;
	for (i = 0; i < n; i++) {
		if (c[i].score == best) {
			if (d->outcome == XRP_D_TIE)
				c[i].verdict = XRP_V_LEFT;
			else if (compatible(&c[i], &c[d->keeper], reflink))
				c[i].verdict = XRP_V_KEEP;
			else
				c[i].verdict = XRP_V_CLONE_COPY;
		} else if (c[i].score >= 0 && d->outcome == XRP_D_KEEP &&
			   compatible(&c[i], &c[d->keeper], reflink)) {
			c[i].verdict = XRP_V_KEEP;
		} else {
			c[i].verdict = XRP_V_GIVE_WAY;
			if (top == n || c[i].score > c[top].score)
				top = i;
		}
	}
	lost = top < n ? c[top].score : best;
	d->gave_way = lost;
	switch (d->outcome) {
	case XRP_D_KEEP:
		d->why = rows_where(c[d->keeper].rows, 1, false);
		if (top < n)
			d->why = (d->why & ~c[top].rows) |
				 rows_where(c[top].rows & ~c[d->keeper].rows,
					    -1, false);
		break;
	case XRP_D_CLONE:
		d->why = rows_where(c[d->keeper].rows, 0, true);
		for (i = 0; i < n; i++)
			if (c[i].verdict == XRP_V_CLONE_COPY)
				d->why &= ~c[i].rows;
		break;
	default:
		break;
	}
}
