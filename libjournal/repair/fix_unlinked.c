/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * FIX_UNLINKED: the AGI unlinked lists and the inodes' pointers along
 * them.
 *
 * - An inode's next_unlinked that names no inode of its AG, or that an
 *   inode on no list holds: set to NULL.
 * - An inode on a list that still has links: taken off the list (the
 *   bucket head or the previous inode's pointer skips it), its own
 *   pointer set to NULL.
 * - A list that cannot be walked (a pointer to no inode, to a free one,
 *   into another bucket, or a loop): cut before the first bad step, so
 *   what came before stays on the list.
 * - A list of inodes waiting to be freed (agi.unlinked_pending, a
 *   warning): the inodes are freed as the kernel's mount would
 *   (fs/iunlink.h: forks truncated, inodes freed), once nothing else of
 *   the lists and no AG structure is in doubt (the frees go through the
 *   free space and inode btrees); otherwise left for a later round.
 */
#include <string.h>

#include "core/layout.h"
#include "fs/iget.h"
#include "fs/iunlink.h"
#include "repair/repair_priv.h"

static int clear_pointer(struct xrp *rp, struct xrp_prob *pr, uint64_t ino)
{
	struct xfsj_iref ip;
	int err = xrp_iget(rp, ino, &ip);

	if (err)
		return err < 0 ? err : 0;
	if (ip.di.next_unlinked == XFSJ_NULLAGINO) {
		pr->done = true;
		return 0;
	}
	ip.di.next_unlinked = XFSJ_NULLAGINO;
	xfsj_iput(rp->fs, &ip, false);
	xrp_ino_action(rp, pr, XFSJ_FIX_UNLINKED, ino,
		       "cleared next_unlinked of inode %llu",
		       (unsigned long long)ino);
	return 0;
}

/*
 * Take inode @ino (which has links) off its unlinked list; @pr, when not
 * NULL, is the problem it answers.
 */
static int take_off(struct xrp *rp, struct xrp_prob *pr, uint64_t ino)
{
	const struct xfsj_sb *sb = rp->sb;
	struct xfsj_fault f = { 0 };
	struct xfsj_iref ip;
	bool found;
	int err = xrp_iget(rp, ino, &ip);

	if (err)
		return err < 0 ? err : 0;
	err = xfsj_iunlink_remove(rp->fs, xfsj_ino_agno(sb, ino),
				  xfsj_ino_agino(sb, ino),
				  ip.di.next_unlinked, &found, &f);
	if (err == -XFSJ_E_IO || err == -XFSJ_E_NOMEM)
		return err;
	if (err || !found)
		return 0;	/* the list itself is bad: cut, next round */
	err = xrp_iget(rp, ino, &ip);
	if (err)
		return err < 0 ? err : 0;
	ip.di.next_unlinked = XFSJ_NULLAGINO;
	xfsj_iput(rp->fs, &ip, false);
	xrp_ino_action(rp, pr, XFSJ_FIX_UNLINKED, ino,
		       "took inode %llu (%u links) off its unlinked list",
		       (unsigned long long)ino, ip.di.nlink);
	return 0;
}

/* Inodes in use in AG @agno's chunks: no list is longer. */
static uint64_t ag_inuse(const struct xrp *rp, uint32_t agno)
{
	const struct xck_ag *ag = &rp->ck->ags[agno];
	uint64_t n = 0;
	size_t i;
	unsigned int k;

	for (i = 0; i < ag->chunks.n; i++) {
		const struct xck_chunk *c = xck_vec_at(&ag->chunks, i);

		for (k = 0; c->ino && k < XFSJ_INODES_PER_CHUNK; k++)
			n += !!(c->ino[k].flags & XCK_I_INUSE);
	}
	return n;
}

/* May the list go on to @agino (of bucket @bucket)? */
static bool step_ok(struct xrp *rp, uint32_t agno, uint32_t bucket,
		    uint32_t agino)
{
	uint64_t ino = xfsj_agino_to_ino(rp->sb, agno, agino);
	const struct xck_inode *st;

	if (agino % XFSJ_AGI_UNLINKED_BUCKETS != bucket ||
	    !xck_ino_valid(rp->ck, ino))
		return false;
	st = xck_inode_find(rp->ck, ino, NULL);
	return st && (st->flags & XCK_I_SCANNED) &&
	       (st->flags & XCK_I_INUSE) && !(st->flags & XCK_I_BAD);
}

/*
 * The inodes with links on bucket @bucket's list (sound, at most @limit
 * long) taken off it.  (The check stops at the first inode of a list it
 * finds twice, and does not say which of the others have links.)
 */
static int linked_off(struct xrp *rp, uint32_t agno, uint32_t bucket,
		      uint64_t limit)
{
	struct xfsj_iref ip;
	struct xfsj_buf *agi;
	uint64_t steps = 0;
	uint32_t cur, next;
	int err;

	err = xrp_ag_header_buf(rp, agno, 2, &agi);
	if (err)
		return err;
	cur = xfsj_get_be32(agi->data + XFSJ_AGI_OFF(unlinked) + 4 * bucket);
	while (cur != XFSJ_NULLAGINO && steps++ <= limit) {
		uint64_t ino = xfsj_agino_to_ino(rp->sb, agno, cur);

		err = xrp_iget(rp, ino, &ip);
		if (err)
			return err < 0 ? err : 0;
		next = ip.di.next_unlinked;
		if (ip.di.nlink) {
			err = take_off(rp, NULL, ino);
			if (err)
				return err;
		}
		cur = next;
	}
	return 0;
}

/*
 * agi.unlinked_list: cut bucket @bucket's list before its first bad step.
 * A loop is cut where the walk has taken more steps than the AG has
 * inodes: the inode reached then is on the loop, so cutting its pointer
 * leaves one list of every inode.
 */
static int cut_list(struct xrp *rp, struct xrp_prob *pr, bool *sound)
{
	uint32_t agno = pr->p.agno, bucket = (uint32_t)pr->p.off;
	uint32_t prev = XFSJ_NULLAGINO, cur;
	uint64_t steps = 0, limit;
	struct xfsj_buf *agi;
	struct xfsj_iref ip;
	int err;

	if (!(pr->p.has & XFSJ_PF_AG) || agno >= rp->sb->agcount ||
	    bucket >= XFSJ_AGI_UNLINKED_BUCKETS)
		return 0;
	limit = ag_inuse(rp, agno);
	err = xrp_ag_header_buf(rp, agno, 2, &agi);
	if (err)
		return err;
	cur = xfsj_get_be32(agi->data + XFSJ_AGI_OFF(unlinked) + 4 * bucket);
	while (cur != XFSJ_NULLAGINO) {
		if (!step_ok(rp, agno, bucket, cur) || steps++ > limit)
			break;
		err = xrp_iget(rp, xfsj_agino_to_ino(rp->sb, agno, cur), &ip);
		if (err)
			return err < 0 ? err : 0;
		prev = cur;
		cur = ip.di.next_unlinked;
	}
	if (cur == XFSJ_NULLAGINO) {
		/* Sound after all (or mended by a fix before this one):
		 * what is left on it waits to be freed. */
		pr->done = true;
		*sound = true;
		return linked_off(rp, agno, bucket, limit);
	}
	if (prev == XFSJ_NULLAGINO) {
		xfsj_put_be32(agi->data + XFSJ_AGI_OFF(unlinked) + 4 * bucket,
			      XFSJ_NULLAGINO);
		xfsj_buf_dirty(agi);
	} else {
		err = xrp_iget(rp, xfsj_agino_to_ino(rp->sb, agno, prev), &ip);
		if (err)
			return err < 0 ? err : 0;
		ip.di.next_unlinked = XFSJ_NULLAGINO;
		xfsj_iput(rp->fs, &ip, false);
	}
	pr->done = true;
	xrp_action(rp, &(struct xfsj_repair_action){
		.fix = XFSJ_FIX_UNLINKED, .problem = &pr->p,
		.has = XFSJ_PF_AG | XFSJ_PF_INO, .agno = agno,
		.ino = xfsj_agino_to_ino(rp->sb, agno, cur),
		.what = "cut an AGI unlinked list before a bad inode" });
	return 0;
}

/* Is anything the frees would go through in doubt? */
static bool frees_safe(const struct xrp *rp)
{
	size_t i;

	for (i = 0; i < rp->nprobs; i++) {
		const struct xrp_prob *pr = &rp->probs[i];
		const struct xfsj_problem_def *d = pr->p.def;

		if (d->sev == XFSJ_SEV_INFO || pr->done ||
		    d->handler == XFSJ_H_UNLINKED_FREE ||
		    xrp_stage_of(d) == XFSJ_RS_COUNTERS)
			continue;
		return false;
	}
	return true;
}

/*
 * agi.unlinked_pending (or a list found sound, @any): free the inodes as
 * a mount would.
 */
static int free_pending(struct xrp *rp, bool any)
{
	struct xfsj_iunlink_stats st = { 0 };
	struct xfsj_fault f = { 0 };
	struct xrp_prob *pr;
	int err;

	xrp_for_each(rp, pr, XFSJ_FIX_UNLINKED)
		any |= !pr->done && xrp_names(pr, XFSJ_H_UNLINKED_FREE);
	if (!any || !frees_safe(rp))
		return 0;
	err = xfsj_iunlink_process(rp->fs, &st, &f);
	if (err == -XFSJ_E_IO || err == -XFSJ_E_NOMEM)
		return err;
	if (err || !st.inodes)
		return 0;
	xrp_for_each(rp, pr, XFSJ_FIX_UNLINKED)
		if (xrp_names(pr, XFSJ_H_UNLINKED_FREE))
			pr->done = true;
	xrp_action(rp, &(struct xfsj_repair_action){
		.fix = XFSJ_FIX_UNLINKED, .has = XFSJ_PF_COUNT,
		.count = st.freed,
		.what = "freed the inodes of the AGI unlinked lists, as a "
			"mount would" });
	return 0;
}

int xrp_fix_unlinked(struct xrp *rp)
{
	struct xrp_prob *pr;
	bool sound = false;
	int err = 0;

	xrp_for_each(rp, pr, XFSJ_FIX_UNLINKED) {
		if (pr->done)
			continue;
		if (xrp_names(pr, XFSJ_H_UNLINKED_NEXT))
			err = (pr->p.has & XFSJ_PF_INO) ?
			      clear_pointer(rp, pr, pr->p.ino) : 0;
		else if (xrp_names(pr, XFSJ_H_UNLINKED_TAKE_OFF))
			err = (pr->p.has & XFSJ_PF_INO) ?
			      take_off(rp, pr, pr->p.ino) : 0;
		else if (xrp_names(pr, XFSJ_H_UNLINKED_CUT))
			err = cut_list(rp, pr, &sound);
		if (err)
			return err;
	}
	return free_pending(rp, sound);
}
