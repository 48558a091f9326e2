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

	if (!xrp_is(pr, "sb.primary.quotino") || !p->field)
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
	return a->blocksize == b->blocksize && a->dblocks == b->dblocks &&
	       a->agblocks == b->agblocks && a->agcount == b->agcount &&
	       a->logstart == b->logstart && a->logblocks == b->logblocks &&
	       a->sectsize == b->sectsize && a->inodesize == b->inodesize &&
	       a->rootino == b->rootino &&
	       a->features_compat == b->features_compat &&
	       a->features_ro_compat == b->features_ro_compat &&
	       a->features_incompat == b->features_incompat &&
	       a->features2 == b->features2 &&
	       memcmp(a->uuid, b->uuid, sizeof(a->uuid)) == 0;
}

/* A secondary as on disk: decoded if its magic, CRC and rules hold. */
static bool read_secondary(struct xrp *rp, uint32_t agno, uint8_t *buf,
			   struct xfsj_sb *out)
{
	const struct xfsj_sb *g = rp->sb;
	uint64_t off = sb_byte(g, agno);
	struct xfsj_overlay *ov = xfsj_fs_overlay(rp->fs);

	if (off + g->sectsize > xfsj_overlay_dev_size(ov) ||
	    xfsj_overlay_read(ov, buf, g->sectsize, off))
		return false;
	/* mkfs leaves the secondaries "in progress": not a fault. */
	buf[XFSJ_SB_OFF(inprogress)] = 0;
	xfsj_cksum_update(buf, g->sectsize, XFSJ_SB_CRC_OFF);
	if (xfsj_sb_verify(buf, g->sectsize, off, NULL))
		return false;
	xfsj_sb_decode(buf, out);
	return true;
}

/* The secondary most usable secondaries agree with (-1: none). */
static long pick_secondary(struct xrp *rp, struct xfsj_sb *sbs, bool *ok)
{
	uint32_t n = rp->sb->agcount, i, j, votes, best_votes = 0;
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

int xrp_fix_sb_secondary(struct xrp *rp)
{
	uint32_t n = rp->sb->agcount, i;
	struct xfsj_sb *sbs = NULL, old, sb;
	struct xfsj_buf *bp;
	struct xrp_prob *pr;
	uint8_t *buf = NULL;
	bool *ok = NULL;
	char what[96];
	long best;
	int err = 0;

	if (n < 2)
		return 0;
	sbs = calloc(n, sizeof(*sbs));
	ok = calloc(n, sizeof(*ok));
	buf = malloc(rp->sb->sectsize);
	if (!sbs || !ok || !buf) {
		err = -XFSJ_E_NOMEM;
		goto out;
	}
	for (i = 1; i < n; i++)
		ok[i] = read_secondary(rp, i, buf, &sbs[i]);
	best = pick_secondary(rp, sbs, ok);
	if (best < 0)
		goto out;		/* nothing to trust: left */
	err = sb_buf(rp, 0, &bp);
	if (err)
		goto out;
	xfsj_sb_decode(bp->data, &old);
	sb = sbs[best];
	sb.magicnum = XFSJ_SB_MAGIC;
	sb.icount = old.icount;
	sb.ifree = old.ifree;
	sb.fdblocks = old.fdblocks;
	sb.frextents = old.frextents;
	sb.uquotino = old.uquotino;
	sb.gquotino = old.gquotino;
	sb.pquotino = old.pquotino;
	sb.qflags = old.qflags;
	sb.features_log_incompat = 0;
	sb.inprogress = 0;
	xfsj_sb_encode(&sb, bp->data, rp->sb->sectsize);
	xfsj_buf_dirty(bp);
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
	bool was_on = false;
	int err;

	/*
	 * Into the overlay as the commit's own flag write does (no LSN
	 * stamp), so that a rerun ends with the bytes of a run that was
	 * never interrupted; nothing is written when the flag is not set.
	 */
	err = xrp_sb_needsrepair(xfsj_fs_overlay(rp->fs), rp->sb->sectsize,
				 false, false, &was_on);
	if (!err && was_on)
		xrp_action(rp, &(struct xfsj_repair_action){
			.fix = XFSJ_FIX_FIELD,
			.what = "cleared the needs-repair flag of a repair that did not finish" });
	return err;
}
