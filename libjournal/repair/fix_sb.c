/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The superblocks.
 *
 * - The primary, when it disagrees with the secondaries or is damaged
 *   (FIX_SB_FROM_SECONDARY): rewritten from the secondary most of the
 *   others agree with, keeping the primary's own fields that the
 *   secondaries do not follow (the summary counters, the quota inodes and
 *   flags, which the kernel sets on the primary only; the counters stage
 *   recounts the former).
 * - A secondary that is damaged or differs from the primary (its rows name
 *   FIX_AG_HEADER in the superblock stage): rewritten from the primary.
 * - A quota inode that is not an in-use regular file (FIX_FIELD): the
 *   pointer cleared and that quota marked unchecked, so that a mount with
 *   quota makes a new one and recounts.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/crc32c.h"
#include "core/layout.h"
#include "check/sb_rules.h"
#include "repair/repair_priv.h"

#define QF_USER		(XFSJ_QFLAG_UQUOTA_ACCT | XFSJ_QFLAG_UQUOTA_ENFD | \
			 XFSJ_QFLAG_UQUOTA_CHKD)
#define QF_GROUP	(XFSJ_QFLAG_GQUOTA_ACCT | XFSJ_QFLAG_GQUOTA_ENFD | \
			 XFSJ_QFLAG_GQUOTA_CHKD)
#define QF_PROJ		(XFSJ_QFLAG_PQUOTA_ACCT | XFSJ_QFLAG_PQUOTA_ENFD | \
			 XFSJ_QFLAG_PQUOTA_CHKD)

static uint64_t sb_byte(const struct xfsj_sb *sb, uint32_t agno)
{
	return (uint64_t)agno * sb->agblocks << sb->blocklog;
}

static int sb_buf(struct xrp *rp, uint32_t agno, struct xfsj_buf **bp)
{
	return xfsj_buf_read(rp->fs, sb_byte(rp->sb, agno) >> 9,
			     rp->sb->sectsize, bp);
}

int xrp_field_sb(struct xrp *rp, struct xrp_prob *pr)
{
	const struct xfsj_problem *p = &pr->p;
	struct xfsj_buf *bp;
	struct xfsj_sb sb;
	uint16_t clear;
	char what[96];
	int err;

	if (!xrp_names(pr, XFSJ_H_SB_QUOTINO) || !p->field)
		return 0;
	if (!strcmp(p->field, "uquotino"))
		clear = QF_USER;
	else if (!strcmp(p->field, "gquotino"))
		clear = QF_GROUP;
	else if (!strcmp(p->field, "pquotino"))
		clear = QF_PROJ;
	else
		return 0;
	err = sb_buf(rp, 0, &bp);
	if (err)
		return err;
	xfsj_sb_decode(bp->data, &sb);
	xfsj_layout_put(&xfsj_sb_layout, bp->data, p->field, XFSJ_NULLFSINO);
	xfsj_layout_put(&xfsj_sb_layout, bp->data, "qflags",
			sb.qflags & ~clear);
	xfsj_buf_dirty(bp);
	pr->done = true;
	snprintf(what, sizeof(what),
		 "cleared superblock %s (quota to be rebuilt at mount)",
		 p->field);
	xrp_action(rp, &(struct xfsj_repair_action){
		.fix = XFSJ_FIX_FIELD, .problem = p, .what = what });
	return 0;
}

/* ---- the primary from the secondaries ---- */

/* Do two superblocks describe the same filesystem the same way? */
static bool same_geometry(const struct xfsj_sb *a, const struct xfsj_sb *b)
{
	return a->blocksize == b->blocksize && a->blocklog == b->blocklog &&
	       a->dblocks == b->dblocks && a->agblocks == b->agblocks &&
	       a->agblklog == b->agblklog && a->agcount == b->agcount &&
	       a->sectsize == b->sectsize && a->sectlog == b->sectlog &&
	       a->inodesize == b->inodesize && a->inodelog == b->inodelog &&
	       a->inopblock == b->inopblock && a->inopblog == b->inopblog &&
	       a->dirblklog == b->dirblklog && a->logstart == b->logstart &&
	       a->logblocks == b->logblocks && a->rootino == b->rootino &&
	       a->features_compat == b->features_compat &&
	       a->features_ro_compat == b->features_ro_compat &&
	       a->features_incompat == b->features_incompat &&
	       a->features2 == b->features2 &&
	       memcmp(a->uuid, b->uuid, sizeof(a->uuid)) == 0;
}

/* The secondary most usable secondaries agree with (-1: none). */
static long pick_secondary(uint32_t n, const struct xfsj_sb *sbs,
			   const bool *ok)
{
	uint32_t i, j, votes, best_votes = 0;
	long best = -1;

	for (i = 1; i < n; i++) {
		if (!ok[i])
			continue;
		for (j = 1, votes = 0; j < n; j++)
			votes += ok[j] && same_geometry(&sbs[i], &sbs[j]);
		if (votes > best_votes) {
			best_votes = votes;
			best = i;
		}
	}
	return best;
}

/*
 * Read the secondaries where @loc places them (@n of them, @sbs and @ok
 * indexed by AG) and pick the one most agree with (-1: none).
 */
static long vote(struct xfsj_overlay *ov, const struct xfsj_sb *loc,
		 uint32_t n, uint8_t *buf, struct xfsj_sb *sbs, bool *ok)
{
	for (uint32_t i = 1; i < n; i++)
		ok[i] = xck_sb_read_at(ov, (uint64_t)i * loc->agblocks <<
				       loc->blocklog, buf, XCK_SB_BUFLEN,
				       &sbs[i]);
	return pick_secondary(n, sbs, ok);
}

int xrp_fix_sb_secondary(struct xrp *rp)
{
	struct xfsj_overlay *ov = xfsj_fs_overlay(rp->fs);
	uint64_t dev = xfsj_overlay_dev_size(ov), where;
	struct xfsj_sb *sbs = NULL, old, sb, loc = *rp->sb;
	uint32_t n, ss;
	struct xfsj_buf *bp;
	struct xrp_prob *pr;
	uint8_t *buf = NULL;
	bool *ok = NULL;
	bool scanned = false;
	char what[96];
	long best = -1;
	int err = 0;

	buf = malloc(XCK_SB_BUFLEN);
	if (!buf)
		return -XFSJ_E_NOMEM;
	/*
	 * Where the primary puts the secondaries; when it cannot say, or
	 * none holds up there, where a search of the device finds one.
	 */
	for (;;) {
		if (xfsj_sb_can_locate(&loc)) {
			n = xck_sb_ags_to_read(&loc, dev);
			free(sbs);
			free(ok);
			sbs = calloc(n, sizeof(*sbs));
			ok = calloc(n, sizeof(*ok));
			if (!sbs || !ok) {
				err = -XFSJ_E_NOMEM;
				goto out;
			}
			best = vote(ov, &loc, n, buf, sbs, ok);
		}
		if (best >= 0 || scanned)
			break;
		scanned = true;
		err = xck_sb_find_secondary(ov, &loc, &where);
		if (err <= 0)
			goto out;	/* nothing to trust: left */
		err = 0;
	}
	if (best < 0)
		goto out;		/* nothing to trust: left */
	/* The primary's sector, as long as the sector size to be. */
	ss = xck_sb_sane_sectsize(&sbs[best]);
	err = xfsj_buf_read(rp->fs, 0, ss, &bp);
	if (err)
		goto out;
	xfsj_sb_decode(bp->data, &old);
	sb = sbs[best];
	sb.magicnum = XFSJ_SB_MAGIC;
	sb.icount = old.icount;
	sb.ifree = old.ifree;
	sb.fdblocks = old.fdblocks;
	/* (without a realtime device the count can only be 0) */
	sb.frextents = sb.rblocks ? old.frextents : 0;
	sb.uquotino = old.uquotino;
	sb.gquotino = old.gquotino;
	sb.pquotino = old.pquotino;
	sb.qflags = old.qflags;
	sb.features_log_incompat = 0;
	sb.inprogress = 0;
	/*
	 * The realtime inodes follow the root on a filesystem without a
	 * metadata directory; mkfs leaves them unset in the secondaries,
	 * written before it made them.
	 */
	if (!(sb.features_incompat & XFSJ_INCOMPAT_METADIR) &&
	    sb.rbmino == XFSJ_NULLFSINO && sb.rsumino == XFSJ_NULLFSINO) {
		sb.rbmino = sb.rootino + 1;
		sb.rsumino = sb.rootino + 2;
	}
	memcpy(buf, bp->data, ss);
	xfsj_sb_encode(&sb, buf, ss);
	if (memcmp(buf, bp->data, ss) == 0)
		goto out;		/* as it is: nothing this fix can add */
	memcpy(bp->data, buf, ss);
	xfsj_cksum_update(bp->data, ss, XFSJ_SB_CRC_OFF);
	xfsj_buf_dirty(bp);
	/*
	 * A damaged primary was the superblock the repair started with: the
	 * rest (this stage's secondaries, the next rounds) goes on with the
	 * restored one, and the primary is written with its sector size.
	 * Not only its geometry: the next round's check must not judge the
	 * inodes by a damaged rbmino or rsumino (the realtime bitmap taken
	 * for an orphan and moved to lost+found).
	 */
	err = xfsj_fs_set_sb(rp->fs, &sb, &rp->res->fault);
	if (err)
		goto out;
	snprintf(what, sizeof(what),
		 "rewrote the primary superblock from the one of AG %ld", best);
	xrp_for_each(rp, pr, XFSJ_FIX_SB_FROM_SECONDARY)
		pr->done = true;
	xrp_action(rp, &(struct xfsj_repair_action){
		.fix = XFSJ_FIX_SB_FROM_SECONDARY, .has = XFSJ_PF_AG,
		.agno = (uint32_t)best, .what = what });
out:
	free(sbs);
	free(ok);
	free(buf);
	return err;
}

/* ---- the secondaries from the primary ---- */

int xrp_fix_sb_copies(struct xrp *rp)
{
	struct xfsj_buf *pbp, *bp;
	struct xrp_prob *pr;
	char what[96];
	int err;

	err = sb_buf(rp, 0, &pbp);
	if (err)
		return err;
	xrp_for_each(rp, pr, XFSJ_FIX_AG_HEADER) {
		uint32_t agno = pr->p.agno;

		if (!(pr->p.has & XFSJ_PF_AG) || agno == 0 ||
		    agno >= rp->sb->agcount ||
		    sb_byte(rp->sb, agno) + rp->sb->sectsize >
		    xfsj_overlay_dev_size(xfsj_fs_overlay(rp->fs)))
			continue;
		err = sb_buf(rp, agno, &bp);
		if (err)
			return err;
		pr->done = true;
		if (!memcmp(bp->data, pbp->data, rp->sb->sectsize) &&
		    bp->dirty)
			continue;	/* another problem of this AG did it */
		memcpy(bp->data, pbp->data, rp->sb->sectsize);
		xfsj_buf_dirty(bp);
		snprintf(what, sizeof(what),
			 "rewrote the superblock of AG %u from the primary",
			 agno);
		xrp_action(rp, &(struct xfsj_repair_action){
			.fix = XFSJ_FIX_AG_HEADER, .problem = &pr->p,
			.has = XFSJ_PF_AG, .agno = agno, .what = what });
	}
	return 0;
}

/* ---- a repair that did not finish ---- */

int xrp_clear_needsrepair(struct xrp *rp)
{
	bool was_on = false, mkfs = rp->sb->inprogress != 0;
	int err;

	/*
	 * Into the overlay as the commit's own flag write does (no LSN
	 * stamp), so that a rerun ends with the bytes of a run that was
	 * never interrupted; nothing is written when the flag is not set.
	 * With sb_inprogress, an unfinished mkfs -p set it: preen leaves it
	 * (the check names it, and preen stops there), a repair says so.
	 */
	if (mkfs && rp->o->preen)
		return 0;
	err = xrp_sb_needsrepair(xfsj_fs_overlay(rp->fs), rp->sb->sectsize,
				 false, false, &was_on);
	if (!err && was_on)
		xrp_action(rp, &(struct xfsj_repair_action){
			.fix = XFSJ_FIX_FIELD,
			.what = mkfs ? "cleared the needs-repair flag an unfinished mkfs -p left (sb_inprogress set): files may be missing or half copied" :
			"cleared the needs-repair flag of a repair that did not finish" });
	return err;
}
