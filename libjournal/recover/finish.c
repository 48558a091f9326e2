/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Finishing a crash's work after the replay (finish.h).
 *
 * Each pending intent is decoded by the log layer's decoder (its entries:
 * log/item_intent.c) and finished by the finish column of its type's row
 * in the replay table (replay_ops.c): the functions below for EFI, RUI,
 * CUI and BUI, fs/attri.c and fs/xmi.c for ATTRI and XMI.  An intent
 * whose extents do not fit the filesystem is corruption: the kernel
 * refuses to mount then, and so do we.
 */
#include <stdlib.h>
#include <string.h>

#include "fs/attri.h"
#include "fs/defer.h"
#include "xfsj/finish.h"
#include "core/layout.h"
#include "fs/refcount.h"
#include "recover/recover_priv.h"

static bool finishable(uint16_t type)
{
	const struct xrec_ops *ops = xrec_ops(type);

	return ops && ops->finish;
}

struct first_bad {
	uint16_t type;
	bool found;
};

static int find_unsupported(void *arg, const struct xfsj_pending_intent *pi)
{
	struct first_bad *b = arg;

	if (finishable(pi->type))
		return 0;
	b->type = pi->type;
	b->found = true;
	return 1;
}

int xfsj_finish_supported(struct xfsj_recover *rc, uint16_t *type)
{
	struct first_bad b = { 0 };
	int err = xfsj_recover_each_intent(rc, find_unsupported, &b);

	if (err < 0)
		return err;
	if (b.found)
		*type = b.type;
	return b.found ? 1 : 0;
}

/* Is [fsbno, fsbno + len) inside one AG of the data device? */
static bool valid_fsbext(const struct xrec_finish *c, uint64_t fsbno,
			 uint64_t len)
{
	uint32_t agno = xfsj_fsb_agno(c->sb, fsbno);
	uint32_t agbno = xfsj_fsb_agbno(c->sb, fsbno);

	if (!len || len > UINT32_MAX || agno >= c->sb->agcount)
		return false;
	return agbno < xfsj_fs_ag_blocks(c->fs, agno) &&
	       len <= xfsj_fs_ag_blocks(c->fs, agno) - agbno;
}

/* @st: "EFI log item", ... */
static int bad(struct xrec_finish *c, const char *st,
	       const struct xfsj_pending_intent *pi, const char *field,
	       uint64_t val)
{
	return xfsj_fault_set(c->f, XFSJ_E_CORRUPT, st, field, pi->lsn, val);
}

/*
 * The owner (an inode, unless @special allows the special owners, whose
 * top bit is set) and the file range of a mapping, checked in the
 * kernel's order.
 */
static int valid_owner(struct xrec_finish *c, const char *st,
		       const struct xfsj_pending_intent *pi,
		       const struct xfsj_item_ext *e, bool special)
{
	if (!(special && e->owner >> 63) &&
	    !xfsj_intent_ino_ok(c->fs, e->owner))
		return bad(c, st, pi, "owner", e->owner);
	if (!xfsj_fileext_ok(e->offset, e->len))
		return bad(c, st, pi, "startoff", e->offset);
	return 0;
}

/*
 * The checks every extent intent passes first, in this order: a format
 * header; a count of at least one that the region could hold; the
 * feature the type needs (@feature: an ro_compat bit named @fname, or 0);
 * the size the count implies (the decoder's check).  The count in *@n.
 */
static int ext_intent_begin(struct xrec_finish *c, const char *st,
			    const struct xfsj_pending_intent *pi,
			    const struct xfsj_item_info *in, uint32_t feature,
			    const char *fname, uint32_t *n)
{
	if (!in->have_id)
		return bad(c, st, pi, "size", pi->len);
	*n = in->u.ext.logged;
	/* The kernel logs at least one extent per intent. */
	if (!*n || *n > pi->len)
		return bad(c, st, pi, "nextents", *n);
	c->st->extents += *n;
	if (feature && !xfsj_fs_has(c->fs, feature))
		return bad(c, st, pi, fname, 0);
	if (in->err || in->u.ext.nextents != *n)
		return bad(c, st, pi, "size", pi->len);
	return 0;
}

/* Entry @i of a decoded intent, checked against the filesystem. */
static int ext_entry(struct xrec_finish *c, const char *st,
		     const struct xfsj_pending_intent *pi,
		     const struct xfsj_item_info *in, uint32_t i,
		     struct xfsj_item_ext *e)
{
	xfsj_item_extent(in, i, e);
	if (!valid_fsbext(c, e->startblock, e->len))
		return bad(c, st, pi, "extent", e->startblock);
	return 0;
}

int xrec_finish_efi(struct xrec_finish *c, const struct xfsj_pending_intent *pi,
		    const struct xfsj_item_info *in)
{
	static const char st[] = "EFI log item";
	uint32_t n;
	int err = ext_intent_begin(c, st, pi, in, 0, NULL, &n);

	for (uint32_t i = 0; !err && i < n; i++) {
		struct xfsj_work w = { .kind = XFSJ_W_FREE };
		struct xfsj_item_ext e;

		err = ext_entry(c, st, pi, in, i, &e);
		if (err)
			break;
		w.fsbno = e.startblock;
		w.len = e.len;
		/* A recovered EFI no longer knows the owner. */
		w.free.oi.owner = XFSJ_RMAP_OWN_UNKNOWN;
		err = xfsj_defer_add(c->fs, &w);
	}
	if (!err)
		c->st->efi++;
	return err;
}

int xrec_finish_rui(struct xrec_finish *c, const struct xfsj_pending_intent *pi,
		    const struct xfsj_item_info *in)
{
	static const char st[] = "RUI log item";
	uint32_t n;
	int err = ext_intent_begin(c, st, pi, in, XFSJ_RO_COMPAT_RMAPBT,
				   "rmapbt feature", &n);

	for (uint32_t i = 0; !err && i < n; i++) {
		struct xfsj_work w = { .kind = XFSJ_W_RMAP };
		struct xfsj_item_ext e;
		uint32_t op;

		xfsj_item_extent(in, i, &e);
		op = e.flags & XFSJ_RUI_TYPE_MASK;
		if ((e.flags & ~XFSJ_RUI_FLAGS) || op < 1 || op > 8)
			return bad(c, st, pi, "flags", e.flags);
		err = ext_entry(c, st, pi, in, i, &e);
		if (!err)
			err = valid_owner(c, st, pi, &e, true);
		if (err)
			break;
		w.fsbno = e.startblock;
		w.len = e.len;
		w.rmap.op = (enum xfsj_rmap_op)(op - 1);
		w.rmap.owner = e.owner;
		w.rmap.offset = e.offset;
		w.rmap.attr_fork = e.flags & XFSJ_RUI_ATTR_FORK;
		w.rmap.bmbt_block = e.flags & XFSJ_RUI_BMBT_BLOCK;
		w.rmap.unwritten = e.flags & XFSJ_RUI_UNWRITTEN;
		err = xfsj_defer_add(c->fs, &w);
	}
	if (!err)
		c->st->rui++;
	return err;
}

int xrec_finish_cui(struct xrec_finish *c, const struct xfsj_pending_intent *pi,
		    const struct xfsj_item_info *in)
{
	static const char st[] = "CUI log item";
	uint32_t n;
	int err = ext_intent_begin(c, st, pi, in, XFSJ_RO_COMPAT_REFLINK,
				   "reflink feature", &n);

	for (uint32_t i = 0; !err && i < n; i++) {
		struct xfsj_work w = { .kind = XFSJ_W_REFC };
		struct xfsj_item_ext e;

		xfsj_item_extent(in, i, &e);
		if (e.flags < XFSJ_REFC_INCREASE || e.flags > XFSJ_REFC_FREE_COW)
			return bad(c, st, pi, "flags", e.flags);
		err = ext_entry(c, st, pi, in, i, &e);
		if (err)
			break;
		w.fsbno = e.startblock;
		w.len = e.len;
		w.refc.op = (enum xfsj_refc_op)e.flags;
		err = xfsj_defer_add(c->fs, &w);
	}
	if (!err)
		c->st->cui++;
	return err;
}

/* A BUI names one mapping of one inode (the kernel logs one per BUI). */
int xrec_finish_bui(struct xrec_finish *c, const struct xfsj_pending_intent *pi,
		    const struct xfsj_item_info *in)
{
	static const char st[] = "BUI log item";
	struct xfsj_work w = { .kind = XFSJ_W_BMAP };
	struct xfsj_item_ext e;
	uint32_t n, op;
	int err = ext_intent_begin(c, st, pi, in, 0, NULL, &n);

	if (err)
		return err;
	xfsj_item_extent(in, 0, &e);
	op = e.flags & XFSJ_BUI_TYPE_MASK;
	if ((e.flags & ~(XFSJ_BUI_TYPE_MASK | XFSJ_BUI_ATTR_FORK |
			 XFSJ_BUI_UNWRITTEN)) ||
	    (op != XFSJ_BMAP_MAP && op != XFSJ_BMAP_UNMAP))
		return bad(c, st, pi, "flags", e.flags);
	err = ext_entry(c, st, pi, in, 0, &e);
	if (!err)
		err = valid_owner(c, st, pi, &e, false);
	if (err)
		return err;
	w.fsbno = e.startblock;
	w.len = e.len;
	w.bmap.op = (enum xfsj_bmap_op)op;
	w.bmap.ino = e.owner;
	w.bmap.startoff = e.offset;
	w.bmap.attr_fork = e.flags & XFSJ_BUI_ATTR_FORK;
	w.bmap.unwritten = e.flags & XFSJ_BUI_UNWRITTEN;
	c->st->bui++;
	return xfsj_defer_add(c->fs, &w);
}

/* ATTRI and XMI do their first step themselves, queuing the rest. */
int xrec_finish_attri(struct xrec_finish *c,
		      const struct xfsj_pending_intent *pi,
		      const struct xfsj_item_info *in)
{
	(void)in;
	c->st->attri++;
	return xfsj_attri_recover(c->fs, pi, c->f);
}

int xrec_finish_xmi(struct xrec_finish *c, const struct xfsj_pending_intent *pi,
		    const struct xfsj_item_info *in)
{
	(void)in;
	c->st->xmi++;
	return xfsj_xmi_recover(c->fs, pi, c->f);
}

/* One recovered intent: its own work now, the rest captured. */
static int queue_intent(void *arg, const struct xfsj_pending_intent *pi)
{
	struct xrec_finish *c = arg;
	struct xfsj_defer_chain *chain = NULL, **n;
	const struct xrec_ops *ops = xrec_ops(pi->type);
	struct xfsj_ritem it = { pi->type, pi->nreg, pi->regs };
	struct xfsj_item_info in;
	int err;

	if (!ops || !ops->finish)
		return xfsj_fault_set(c->f, XFSJ_E_UNSUPP, "intent log item",
				      "type", pi->lsn, pi->type);
	xfsj_item_decode(&it, &in);
	err = ops->finish(c, pi, &in);
	if (!err)
		err = xfsj_defer_finish_capture(c->fs, &chain, c->f);
	if (err || !chain)
		return err;
	n = realloc(c->chains, (c->nchain + 1) * sizeof(*n));
	if (!n) {
		xfsj_defer_chain_free(chain);
		return -XFSJ_E_NOMEM;
	}
	c->chains = n;
	c->chains[c->nchain++] = chain;
	return 0;
}

int xfsj_finish_all(struct xfsj_recover *rc, struct xfsj_fs *fs,
		    struct xfsj_finish_stats *st, struct xfsj_fault *f)
{
	const struct xfsj_sb *sb = xfsj_fs_sb(fs);
	struct xrec_finish c = { fs, sb, st, f, NULL, 0 };
	uint64_t done0 = xfsj_defer_done(fs);
	int err;

	memset(st, 0, sizeof(*st));
	/*
	 * Each intent's own work is one step, in log order; what a step
	 * queues is captured and run, chain by chain, once every intent has
	 * had its step, as the kernel's recovery does.
	 */
	c.chains = NULL;
	c.nchain = 0;
	err = xfsj_recover_each_intent(rc, queue_intent, &c);
	for (size_t i = 0; i < c.nchain; i++) {
		if (!err)
			err = xfsj_defer_resume(fs, c.chains[i], f);
		else
			xfsj_defer_chain_free(c.chains[i]);
	}
	free(c.chains);
	if (err)
		return err;
	err = xfsj_iunlink_process(fs, &st->iul, f);
	if (err)
		return err;
	if (xfsj_fs_has(fs, XFSJ_RO_COMPAT_REFLINK)) {
		for (uint32_t a = 0; a < sb->agcount; a++) {
			uint64_t n = 0;

			err = xfsj_refcount_recover_cow(fs, a, &n, f);
			if (err)
				return err;
			st->cow += n;
		}
	}
	st->deferred = xfsj_defer_done(fs) - done0;
	return xfsj_fs_flush(fs, f);
}
