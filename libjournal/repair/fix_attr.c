/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * FIX_SALVAGE_ATTR: an attribute fork whose structure is damaged (a short
 * form's sizes, a leaf's header or entries, a remote value, a bad or
 * repeated name) is rewritten from the attributes that survive
 * (fix_attr_collect.c), where xfs_repair 6.13 clears the whole fork for
 * one bad field.
 *
 * The old fork's mappings leave it first, their blocks kept aside (not
 * freed, so nothing set next can take them); the fork then starts empty
 * (removed, or kept at its offset when the data fork is a btree whose
 * root is laid out for it) and the survivors are set one by one through
 * the fs layer's attribute code, which picks short form, leaf or node as
 * the kernel would.  When every survivor is in, the old blocks are freed
 * (or left to the AG stage's rebuild when some AG's free space cannot be
 * trusted).  When a set fails on the way for want of space or on damage
 * it meets (an allocation through a damaged btree, or falling over into
 * a damaged AG), the new fork goes and the old one is mapped back as it
 * was, for a later round: the attributes, parent pointers among them,
 * are not lost to a write that could not finish.  A survivor the new
 * fork refuses by itself (an invalid value) is dropped and named, as
 * before.  A fork that cannot be read at all is cleared, unless
 * the check doubts the inode's mappings (then the fix of those rows has
 * it first; its old blocks are let go, not unmapped, whenever the
 * mappings are doubted: the AG stage takes them back).  The round
 * ends after the salvage so that the parent pointers and blocks are
 * checked again from the new fork.  The FIELD rows of the attribute
 * structures (fix_field.c sends them here) get the same rewrite: it
 * keeps every attribute a field fix would.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fs/attr.h"
#include "fs/bmap.h"
#include "fs/defer.h"
#include "fs/iget.h"
#include "repair/repair_priv.h"

static bool io_err(int err)
{
	return err == -XFSJ_E_NOMEM || err == -XFSJ_E_IO;
}

/*
 * Does the check doubt inode @ino's block mappings (an extent or bmbt
 * row of either fork; its block count aside)?  Then the old fork's
 * blocks are let go instead of unmapped one by one (the unmap's rmap and
 * free work would trip over what is wrong), and a mapping that does not
 * read is left for the fix of those rows.
 */
static bool map_doubted(const struct xrp *rp, uint64_t ino)
{
	for (size_t i = 0; i < rp->nprobs; i++) {
		const struct xfsj_problem *p = &rp->probs[i].p;

		if ((p->has & XFSJ_PF_INO) && p->ino == ino &&
		    (p->def->traits & XFSJ_T_FORK_MAP))
			return true;
	}
	return false;
}

/*
 * The old fork's blocks unmapped (@readable; freed unless @aside or the
 * free space is doubted), the fork emptied.
 */
static int empty_fork(struct xrp *rp, struct xfsj_iref *ip, bool readable,
		      bool aside, struct xfsj_fault *f)
{
	struct xfsj_bmbt_irec *ext = NULL;
	size_t n = 0;
	uint64_t done;
	uint32_t asize;
	uint8_t *fork;
	int err = 0;

	if (readable && ip->di.aformat != XFSJ_DINODE_FMT_LOCAL) {
		bool keep = aside ||
			    xrp_keep_old_blocks(rp, ip->ino, XFSJ_ATTR_FORK);

		err = xfsj_bmap_read(rp->fs, ip, XFSJ_ATTR_FORK, &ext, &n, f);
		for (size_t i = n; !err && i-- > 0;)
			err = xfsj_bmap_unmap(rp->fs, ip, XFSJ_ATTR_FORK,
					      ext[i].startoff,
					      ext[i].blockcount, keep, &done,
					      f);
		free(ext);
		if (err)
			return err;
	}
	/* Whatever was not unmapped (an unreadable mapping) is let go. */
	fork = xfsj_ifork(rp->fs, ip, XFSJ_ATTR_FORK, &asize);
	memset(fork, 0, asize);
	xfsj_buf_dirty(ip->bp);
	if (ip->di.flags2 & XFSJ_DIFLAG2_NREXT64)
		ip->di.nextents = 0;
	else
		ip->di.anextents = 0;
	ip->di.aformat = XFSJ_DINODE_FMT_EXTENTS;
	if (ip->di.format != XFSJ_DINODE_FMT_BTREE)
		ip->di.forkoff = 0;
	return 0;
}

/* A set refused for the attribute itself, not for the fork's space or
 * a structure on the way: the attribute is dropped, the rest go on. */
static bool own_refusal(int err)
{
	return err == -XFSJ_E_INVAL || err == -XFSJ_E_RANGE ||
	       err == -XFSJ_E_UNSUPP;
}

/*
 * Set the survivors; *kept counts those the new fork holds.  With @whole,
 * the first failure that is not the attribute's own ends it (returned as
 * 1, its error in *@why, the fault in @f): the caller puts the old fork
 * back.
 */
static int refill(struct xrp *rp, uint64_t ino, struct xrp_attrlist *l,
		  bool whole, int *why, size_t *kept, struct xfsj_fault *f)
{
	struct xfsj_iref ip;
	int err;

	*kept = 0;
	err = xfsj_iget(rp->fs, ino, true, &ip, f);
	if (err)
		return err;
	for (size_t i = 0; i < l->n; i++) {
		const struct xrp_attrent *e = &l->v[i];

		err = xfsj_attr_set(rp->fs, &ip, &(struct xfsj_attr_arg){
			.ns = e->ns, .name = e->name, .namelen = e->namelen,
			.value = e->value, .valuelen = e->valuelen },
			XFSJ_ATTR_CREATE, f);
		if (io_err(err))
			break;
		if (err && whole && !own_refusal(err)) {
			xfsj_iput(rp->fs, &ip, true);
			*why = err;
			return 1;
		}
		if (err) {
			l->ndropped++;
			err = 0;
			continue;
		}
		(*kept)++;
	}
	xfsj_iput(rp->fs, &ip, true);
	if (err)
		return err;
	return xfsj_defer_finish(rp->fs, f);
}

/*
 * The inode as it was before its fork was emptied, to put back when the
 * survivors cannot all be set: the core, the literal area (both forks'
 * bytes) and the attribute fork's mappings (their blocks kept aside).
 * Only a short form or an extent list: a btree's blocks go with the unmap.
 */
struct attr_old {
	struct xfsj_dinode di;
	uint8_t *lit;
	uint32_t litsize;
	struct xfsj_bmbt_irec *ext;
	size_t n;
};

static int old_take(struct xrp *rp, struct xfsj_iref *ip,
		    struct attr_old *o, struct xfsj_fault *f)
{
	memset(o, 0, sizeof(*o));
	if (ip->di.aformat != XFSJ_DINODE_FMT_LOCAL &&
	    ip->di.aformat != XFSJ_DINODE_FMT_EXTENTS)
		return 1;
	o->di = ip->di;
	o->litsize = rp->sb->inodesize - XFSJ_DINODE_CORE_SIZE;
	o->lit = malloc(o->litsize);
	if (!o->lit)
		return -XFSJ_E_NOMEM;
	memcpy(o->lit, ip->dip + XFSJ_DINODE_CORE_SIZE, o->litsize);
	if (ip->di.aformat == XFSJ_DINODE_FMT_EXTENTS)
		return xfsj_bmap_read(rp->fs, ip, XFSJ_ATTR_FORK, &o->ext,
				      &o->n, f);
	return 0;
}

static void old_free(struct attr_old *o)
{
	free(o->lit);
	free(o->ext);
	memset(o, 0, sizeof(*o));
}

/* Every survivor is in: the old blocks kept aside are freed (left to the
 * AG stage's rebuild when the free space is doubted). */
static int old_release(struct xrp *rp, uint64_t ino, const struct attr_old *o)
{
	struct xfsj_fault f = { 0 };
	int err = 0;

	if (!o->n || xrp_keep_old_blocks(rp, ino, XFSJ_ATTR_FORK))
		return 0;
	for (size_t i = 0; i < o->n && !err; i++)
		err = xfsj_defer_add(rp->fs, &(struct xfsj_work){
			.kind = XFSJ_W_FREE, .fsbno = o->ext[i].startblock,
			.len = (uint32_t)o->ext[i].blockcount,
			.free.oi.owner = XFSJ_RMAP_OWN_NULL });
	if (!err)
		err = xfsj_defer_finish(rp->fs, &f);
	/* (blocks not freed are leaked, which the next check finds) */
	return io_err(err) ? err : 0;
}

/*
 * A rewrite that could not finish: the new fork's blocks unmapped and
 * freed (or let go when that fails too), the inode's core and literal
 * area as they were, and the old mappings' reverse mappings queued again.
 * What the deferred work cannot finish (it meets the same damage) the
 * next check finds in the AG's trees, which the AG stage rebuilds.
 */
static int put_back(struct xrp *rp, uint64_t ino, const struct attr_old *o)
{
	struct xfsj_fault f = { 0 };
	struct xfsj_bmbt_irec *ext = NULL;
	struct xfsj_iref ip;
	size_t n = 0;
	uint64_t done;
	int err;

	err = xfsj_iget(rp->fs, ino, true, &ip, &f);
	if (err)
		return err;
	if ((ip.di.aformat == XFSJ_DINODE_FMT_EXTENTS ||
	     ip.di.aformat == XFSJ_DINODE_FMT_BTREE) &&
	    !xfsj_bmap_read(rp->fs, &ip, XFSJ_ATTR_FORK, &ext, &n, &f))
		for (size_t i = n; i-- > 0;)
			if (xfsj_bmap_unmap(rp->fs, &ip, XFSJ_ATTR_FORK,
					    ext[i].startoff,
					    ext[i].blockcount, false, &done,
					    &f))
				break;
	free(ext);
	memcpy(ip.dip + XFSJ_DINODE_CORE_SIZE, o->lit, o->litsize);
	xfsj_buf_dirty(ip.bp);
	ip.di = o->di;
	for (size_t i = 0; i < o->n && !err &&
	     xfsj_fs_has(rp->fs, XFSJ_RO_COMPAT_RMAPBT); i++)
		err = xfsj_defer_add(rp->fs, &(struct xfsj_work){
			.kind = XFSJ_W_RMAP, .fsbno = o->ext[i].startblock,
			.len = (uint32_t)o->ext[i].blockcount,
			.rmap = { .op = XFSJ_RMAP_MAP, .owner = ino,
				  .offset = o->ext[i].startoff,
				  .attr_fork = true } });
	xfsj_iput(rp->fs, &ip, true);
	if (!err)
		err = xfsj_defer_finish(rp->fs, &f);
	return io_err(err) ? err : 0;
}

/* A problem of inode @ino's attribute fork that the rewrite answers. */
static bool answered(const struct xrp_prob *pr, uint64_t ino)
{
	const struct xfsj_problem_def *d = pr->p.def;

	if (!(pr->p.has & XFSJ_PF_INO) || pr->p.ino != ino)
		return false;
	return d->fix == XFSJ_FIX_SALVAGE_ATTR ||
	       d->handler == XFSJ_H_ATTR_FIELD;
}

static int salvage_one(struct xrp *rp, struct xrp_prob *pr)
{
	uint64_t ino = pr->p.ino;
	struct xrp_attrlist l;
	struct xfsj_fault f = { 0 };
	struct xfsj_iref ip;
	struct attr_old old = { 0 };
	size_t kept = 0, dropped;
	bool doubted, staged, tried = false;
	int err, why = 0;

	err = xrp_iget(rp, ino, &ip);
	if (err)
		return err < 0 ? err : 0;
	err = xrp_attr_collect(rp, &ip, &l);
	if (err)
		return err;
	dropped = l.ndropped;
	doubted = map_doubted(rp, ino);
	if (l.unreadable && doubted)
		goto out;
	staged = !l.unreadable && !doubted;
again:
	if (staged) {
		err = old_take(rp, &ip, &old, &f);
		if (io_err(err))
			goto out;
		staged = !err;
	}
	err = empty_fork(rp, &ip, !l.unreadable && !doubted, staged, &f);
	if (err) {
		/* A mapping that reads but does not unmap: let it go. */
		if (io_err(err))
			goto out;
		staged = false;
		err = empty_fork(rp, &ip, false, false, &f);
	}
	xfsj_iput(rp->fs, &ip, true);
	err = xfsj_defer_finish(rp->fs, &f);
	if (!err && l.n)
		err = refill(rp, ino, &l, staged, &why, &kept, &f);
	if (staged && !err)
		err = old_release(rp, ino, &old);
	else if (staged && !io_err(err)) {
		/* Left as it was for a later round; nothing done. */
		err = put_back(rp, ino, &old);
		if (err || why != -XFSJ_E_NOSPC || tried)
			goto out;
		/*
		 * No room beside the old blocks: as before, the old blocks
		 * freed first and the survivors set in their space.
		 */
		old_free(&old);
		l.ndropped = dropped;
		memset(&f, 0, sizeof(f));
		tried = true;
		staged = false;
		err = xrp_iget(rp, ino, &ip);
		if (err) {
			err = err < 0 ? err : 0;
			goto out;
		}
		goto again;
	}
	if (err && !io_err(err)) {
		/* The fork could not take them back: left as it is now. */
		l.ndropped += l.n - kept;
		err = 0;
	}
	if (err)
		goto out;
	if (l.unreadable)
		xrp_ino_action(rp, pr, XFSJ_FIX_SALVAGE_ATTR, ino,
			       "cleared attribute fork (unreadable): "
			       "attributes lost");
	else
		xrp_ino_action(rp, pr, XFSJ_FIX_SALVAGE_ATTR, ino,
			       "rebuilt attribute fork: %zu kept, %zu dropped"
			       "%s%s%s", kept, l.ndropped,
			       l.badblocks ? " (unreadable blocks lost)" : "",
			       l.ndropped ? ": " : "",
			       l.ndropped ? l.dropped : "");
	for (size_t i = 0; i < rp->nprobs; i++)
		if (answered(&rp->probs[i], ino))
			rp->probs[i].done = true;
	rp->recheck = true;
out:
	old_free(&old);
	xrp_attrlist_free(&l);
	return err;
}

/*
 * The FIELD rows of the short form, leaf, node and block headers (a
 * count, a size, a CRC, an owner): the rewrite sets them all.
 */
int xrp_field_attr(struct xrp *rp, struct xrp_prob *pr)
{
	if (pr->done || !(pr->p.has & XFSJ_PF_INO))
		return 0;
	return salvage_one(rp, pr);
}

int xrp_fix_salvage_attr(struct xrp *rp)
{
	struct xrp_prob *pr;
	int err;

	xrp_for_each(rp, pr, XFSJ_FIX_SALVAGE_ATTR) {
		if (pr->done || !(pr->p.has & XFSJ_PF_INO))
			continue;
		err = salvage_one(rp, pr);
		if (err)
			return err;
	}
	return 0;
}
