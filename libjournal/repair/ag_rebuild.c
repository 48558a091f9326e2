/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The AG stage: AG headers and btrees rebuilt from the scan, as
 * xfs_repair's phase 5 does.  One rebuild answers every problem of an AG
 * whose fix is FIX_AG_HEADER, FIX_REBUILD_BTREE or FIX_FREE_SPACE:
 *
 *   - the free space is the AG minus every use the scan saw (its claims)
 *     but the blocks of the trees written anew (their old blocks become
 *     free; the headers stay claimed);
 *   - the bnobt and cntbt are always written anew, the rmapbt too when
 *     the filesystem has one (it must name the new trees' blocks), the
 *     inobt and finobt when they or the AGI have a problem (from the
 *     kept chunks), the refcountbt when it has one (from the data extents
 *     that overlap; CoW staging leftovers are freed);
 *   - the AGF and the AGFL are written anew (the AGFL empty, then filled
 *     by the allocator to the length the kernel wants), and the AGI when
 *     its trees or fields change.
 *
 * Only when the claims are complete: every inode chunk was scanned and no
 * problem of this round leaves a block's owner unknown (an inode or fork
 * still to be cleared).  Otherwise the AG is left alone, never freeing a
 * block that may belong to a file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fs/alloc.h"
#include "repair/ag_rebuild.h"

/*
 * A problem of the tree @trait marks, or one of the generic AG btree rows
 * (btree.*) naming the tree @name in its field.
 */
static bool is_tree(const struct xfsj_problem *p, unsigned int trait,
		    const char *name)
{
	return (p->def->traits & trait) ||
	       (p->field && strcmp(p->field, name) == 0);
}

static bool mine(const struct xrp *rp, const struct xrp_prob *pr)
{
	enum xfsj_fix f = pr->p.def->fix;

	return !pr->done && (pr->p.has & XFSJ_PF_AG) &&
	       pr->p.agno < rp->sb->agcount &&
	       xrp_stage_of(pr->p.def) == rp->stage &&
	       (f == XFSJ_FIX_AG_HEADER || f == XFSJ_FIX_REBUILD_BTREE ||
		f == XFSJ_FIX_FREE_SPACE);
}

static bool unlinked_row(const struct xrp_prob *pr)
{
	return xrp_has(pr, XFSJ_T_UNLINKED_HEAD);
}

/*
 * An inobt problem that leaves every record read (the record's counts
 * disagree with its masks, or a block's sibling pointer is wrong: the
 * walk goes down from the root and never follows siblings): the chunks
 * are all known all the same.
 */
static bool inobt_records_read(const struct xrp_prob *pr)
{
	return xrp_has(pr, XFSJ_T_INOBT_READ);
}

/*
 * Were every AG's chunks found and their inodes scanned?  As
 * xck_inodes_complete, but an inobt whose only problems are in its
 * records' counts was read whole.
 */
static bool chunks_complete(const struct xrp *rp)
{
	const struct xck *ck = rp->ck;

	for (uint32_t agno = 0; agno < ck->agcount; agno++) {
		const struct xck_ag *ag = &ck->ags[agno];

		if (!ag->agi_ok && !ag->chunks_recovered)
			return false;
		for (size_t i = 0; !ag->tree_ok[XFSJ_BT_INO] &&
		     !ag->chunks_recovered && i < rp->nprobs; i++) {
			const struct xrp_prob *pr = &rp->probs[i];

			if ((pr->p.has & XFSJ_PF_AG) && pr->p.agno == agno &&
			    is_tree(&pr->p, XFSJ_T_INOBT, "inobt") &&
			    !inobt_records_read(pr))
				return false;
		}
		for (size_t i = 0; i < ag->chunks.n; i++)
			if (!((const struct xck_chunk *)
			      xck_vec_at(&ag->chunks, i))->ino)
				return false;
	}
	return true;
}

/*
 * Can the claims be trusted to name every used block?  A block claimed
 * twice keeps both claims, so only an owner that is not known (an inode
 * or fork the scan could not read, to be cleared) stops the rebuild.
 */
static bool claims_trusted(const struct xrp *rp)
{
	if (!chunks_complete(rp))
		return false;
	for (size_t i = 0; i < rp->nprobs; i++) {
		const struct xrp_prob *pr = &rp->probs[i];
		enum xfsj_fix f = pr->p.def->fix;

		if (pr->done || pr->p.def->sev == XFSJ_SEV_INFO ||
		    xrp_has(pr, XFSJ_T_CROSSLINK))
			continue;
		if (f == XFSJ_FIX_CLEAR_INODE || f == XFSJ_FIX_CLEAR_FORK ||
		    f == XFSJ_FIX_REBUILD_BMBT)
			return false;
	}
	return true;
}

/* What AG @agno's problems ask for. */
struct agwant {
	bool any, ino, refc, agi, header;
	uint64_t leaked;
};

static void agwant_of(const struct xrp *rp, uint32_t agno,
		      struct agwant *w)
{
	memset(w, 0, sizeof(*w));
	for (size_t i = 0; i < rp->nprobs; i++) {
		const struct xrp_prob *pr = &rp->probs[i];
		const struct xfsj_problem *p = &pr->p;

		if (!mine(rp, pr) || p->agno != agno)
			continue;
		w->any = true;
		if (p->def->fix == XFSJ_FIX_AG_HEADER)
			w->header = true;
		if (p->def->fix == XFSJ_FIX_FREE_SPACE &&
		    (p->has & XFSJ_PF_COUNT))
			w->leaked += p->count;
		if (is_tree(p, XFSJ_T_INOBT, "inobt") ||
		    is_tree(p, XFSJ_T_FINOBT, "finobt") ||
		    xrp_has(pr, XFSJ_T_INO_TREES))
			w->ino = true;
		if (xrp_has(pr, XFSJ_T_AGI_HEADER)) {
			w->agi = true;
			if (!unlinked_row(pr))
				w->ino = true;
		}
		if (is_tree(p, XFSJ_T_REFC_BTREE, "refcountbt") ||
		    (p->field && strstr(p->field, "refcount")))
			w->refc = true;
	}
}

static void mark_done(struct xrp *rp, uint32_t agno)
{
	for (size_t i = 0; i < rp->nprobs; i++)
		if (mine(rp, &rp->probs[i]) && rp->probs[i].p.agno == agno)
			rp->probs[i].done = true;
}

/* ---- the headers ---- */

static uint32_t root_of(const struct xrp_agplan *pl, const uint32_t *first,
			int bt)
{
	return first[bt] + (uint32_t)pl->geom[bt].blocks - 1 < pl->ntake ?
	       pl->take[first[bt] + pl->geom[bt].blocks - 1] : XFSJ_NULLAGBLOCK;
}

static int write_agf(struct xrp *rp, const struct xrp_agplan *pl,
		     const uint32_t *first)
{
	const struct xck_ag *ag = pl->ag;
	struct xfsj_vctx vc;
	struct xfsj_agf agf;
	struct xfsj_buf *bp;
	uint64_t freeblks = 0, longest = 0, btreeblks = 0;
	int err;

	err = xrp_ag_header_buf(rp, ag->agno, 1, &bp);
	if (err)
		return err;
	xfsj_fs_vctx(rp->fs, ag->agno, &vc);
	if (ag->agf_ok)
		agf = ag->agf;
	else
		memset(&agf, 0, sizeof(agf));
	for (size_t i = 0; i < pl->nfree; i++) {
		freeblks += pl->free[i].blockcount;
		if (pl->free[i].blockcount > longest)
			longest = pl->free[i].blockcount;
	}
	agf.magicnum = XFSJ_AGF_MAGIC;
	agf.versionnum = 1;
	agf.seqno = ag->agno;
	agf.length = pl->agblocks;
	memcpy(agf.uuid, vc.uuid, sizeof(agf.uuid));
	agf.bno_root = root_of(pl, first, XFSJ_BT_BNO);
	agf.bno_level = pl->geom[XFSJ_BT_BNO].levels;
	agf.cnt_root = root_of(pl, first, XFSJ_BT_CNT);
	agf.cnt_level = pl->geom[XFSJ_BT_CNT].levels;
	btreeblks = pl->geom[XFSJ_BT_BNO].blocks - 1 +
		    pl->geom[XFSJ_BT_CNT].blocks - 1;
	if (pl->rebuild[XFSJ_BT_RMAP]) {
		agf.rmap_root = root_of(pl, first, XFSJ_BT_RMAP);
		agf.rmap_level = pl->geom[XFSJ_BT_RMAP].levels;
		agf.rmap_blocks = (uint32_t)pl->geom[XFSJ_BT_RMAP].blocks;
		btreeblks += pl->geom[XFSJ_BT_RMAP].blocks - 1;
	}
	if (pl->rebuild[XFSJ_BT_REFC]) {
		agf.refcount_root = root_of(pl, first, XFSJ_BT_REFC);
		agf.refcount_level = pl->geom[XFSJ_BT_REFC].levels;
		agf.refcount_blocks = (uint32_t)pl->geom[XFSJ_BT_REFC].blocks;
	}
	/* The plan's blocks, slots 0 on (none: as the kernel resets it). */
	agf.flfirst = 0;
	agf.fllast = pl->nagfl ? pl->nagfl - 1 :
		     xfsj_agfl_size(rp->sb->sectsize) - 1;
	agf.flcount = pl->nagfl;
	agf.freeblks = (uint32_t)freeblks;
	agf.longest = (uint32_t)longest;
	agf.btreeblks = (uint32_t)btreeblks;
	xfsj_agf_encode(&agf, bp->data, rp->sb->sectsize);
	xfsj_buf_dirty(bp);
	return 0;
}

static int write_agfl(struct xrp *rp, uint32_t agno, const uint32_t *fl,
		      uint32_t nfl)
{
	unsigned int n = xfsj_agfl_size(rp->sb->sectsize);
	struct xfsj_agfl_hdr h;
	struct xfsj_vctx vc;
	struct xfsj_buf *bp;
	uint32_t *bno;
	int err;

	err = xrp_ag_header_buf(rp, agno, 3, &bp);
	if (err)
		return err;
	bno = malloc(n * sizeof(*bno));
	if (!bno)
		return -XFSJ_E_NOMEM;
	for (unsigned int i = 0; i < n; i++)
		bno[i] = i < nfl ? fl[i] : XFSJ_NULLAGBLOCK;
	xfsj_fs_vctx(rp->fs, agno, &vc);
	memset(&h, 0, sizeof(h));
	h.magicnum = XFSJ_AGFL_MAGIC;
	h.seqno = agno;
	memcpy(h.uuid, vc.uuid, sizeof(h.uuid));
	xfsj_agfl_encode(&h, bno, bp->data, rp->sb->sectsize);
	xfsj_buf_dirty(bp);
	free(bno);
	return 0;
}

/* Is @agino the first inode of a chunk of the new inobt? */
static bool chunk_start(const struct xrp_agplan *pl, uint32_t agino)
{
	for (size_t i = 0; i < pl->nino; i++)
		if (pl->ino[i].startino == agino)
			return true;
	return false;
}

static int write_agi(struct xrp *rp, const struct xrp_agplan *pl,
		     const uint32_t *first)
{
	const struct xck_ag *ag = pl->ag;
	struct xfsj_agi agi = ag->agi;
	struct xfsj_buf *bp;
	int err;

	err = xrp_ag_header_buf(rp, ag->agno, 2, &bp);
	if (err)
		return err;
	if (!ag->agi_ok) {
		/* One that could not be used (its chunks came from the
		 * rmapbt): made from the AG, its unlinked lists empty. */
		struct xfsj_vctx vc;

		xfsj_fs_vctx(rp->fs, ag->agno, &vc);
		memset(&agi, 0, sizeof(agi));
		agi.magicnum = XFSJ_AGI_MAGIC;
		agi.versionnum = 1;
		agi.seqno = ag->agno;
		agi.length = pl->agblocks;
		memcpy(agi.uuid, vc.uuid, sizeof(agi.uuid));
		for (unsigned int k = 0; k < XFSJ_AGI_UNLINKED_BUCKETS; k++)
			agi.unlinked[k] = XFSJ_NULLAGINO;
		agi.newino = XFSJ_NULLAGINO;
	}
	/* A bucket a row names as bad is emptied; the others are kept. */
	for (size_t i = 0; i < rp->nprobs; i++) {
		const struct xrp_prob *pr = &rp->probs[i];

		if (mine(rp, pr) && pr->p.agno == ag->agno &&
		    unlinked_row(pr) && pr->p.off < XFSJ_AGI_UNLINKED_BUCKETS)
			agi.unlinked[pr->p.off] = XFSJ_NULLAGINO;
	}
	if (pl->rebuild[XFSJ_BT_INO]) {
		agi.count = (uint32_t)pl->icount;
		agi.freecount = (uint32_t)pl->ifree;
		agi.root = root_of(pl, first, XFSJ_BT_INO);
		agi.level = pl->geom[XFSJ_BT_INO].levels;
		agi.iblocks = 0;
		agi.fblocks = 0;
		if (xfsj_fs_has(rp->fs, XFSJ_RO_COMPAT_INOBTCNT))
			agi.iblocks = (uint32_t)pl->geom[XFSJ_BT_INO].blocks;
		if (pl->rebuild[XFSJ_BT_FINO]) {
			agi.free_root = root_of(pl, first, XFSJ_BT_FINO);
			agi.free_level = pl->geom[XFSJ_BT_FINO].levels;
			if (xfsj_fs_has(rp->fs, XFSJ_RO_COMPAT_INOBTCNT))
				agi.fblocks = (uint32_t)
					pl->geom[XFSJ_BT_FINO].blocks;
		}
		if (!chunk_start(pl, agi.newino))
			agi.newino = pl->nino ? pl->ino[pl->nino - 1].startino :
				     XFSJ_NULLAGINO;
		agi.dirino = XFSJ_NULLAGINO;
	}
	xfsj_agi_encode(&agi, bp->data, rp->sb->sectsize);
	xfsj_buf_dirty(bp);
	return 0;
}

/* ---- the trees ---- */

struct load_arg {
	const struct xrp_agplan *pl;
	int bt;
	struct xfsj_alloc_rec *bycnt;
};

static void rec_of(void *arg, uint64_t i, union xfsj_btree_irec *rec)
{
	const struct load_arg *la = arg;
	const struct xrp_agplan *pl = la->pl;

	switch (la->bt) {
	case XFSJ_BT_BNO:
		rec->a = pl->free[i];
		break;
	case XFSJ_BT_CNT:
		rec->a = la->bycnt[i];
		break;
	case XFSJ_BT_INO:
		rec->i = pl->ino[i];
		break;
	case XFSJ_BT_FINO:
		rec->i = pl->fino[i];
		break;
	case XFSJ_BT_RMAP:
		rec->r = pl->rmap[i];
		break;
	default:
		rec->c = pl->refc[i];
		break;
	}
}

static int by_count(const void *a, const void *b)
{
	const struct xfsj_alloc_rec *x = a, *y = b;

	if (x->blockcount != y->blockcount)
		return x->blockcount < y->blockcount ? -1 : 1;
	if (x->startblock != y->startblock)
		return x->startblock < y->startblock ? -1 : 1;
	return 0;
}

static const char *const tree_name[XFSJ_BT__COUNT] = {
	[XFSJ_BT_BNO] = "bnobt", [XFSJ_BT_CNT] = "cntbt",
	[XFSJ_BT_INO] = "inobt", [XFSJ_BT_FINO] = "finobt",
	[XFSJ_BT_RMAP] = "rmapbt", [XFSJ_BT_REFC] = "refcountbt",
	[XFSJ_BT_BMAP] = "bmbt",
};

static int load_trees(struct xrp *rp, const struct xrp_agplan *pl,
		      const uint32_t *first)
{
	struct load_arg la = { .pl = pl };
	int err = 0;

	la.bycnt = malloc((pl->nfree + 1) * sizeof(*la.bycnt));
	if (!la.bycnt)
		return -XFSJ_E_NOMEM;
	memcpy(la.bycnt, pl->free, pl->nfree * sizeof(*la.bycnt));
	qsort(la.bycnt, pl->nfree, sizeof(*la.bycnt), by_count);
	for (int bt = 0; !err && bt < XFSJ_BT__COUNT; bt++) {
		if (!pl->rebuild[bt])
			continue;
		la.bt = bt;
		err = xfsj_btree_load(rp->fs, bt, pl->ag->agno, &pl->geom[bt],
				      pl->take + first[bt], rec_of, &la,
				      &rp->res->fault);
	}
	free(la.bycnt);
	return err;
}

/* Every rebuilt tree read back whole through a cursor. */
static int verify_trees(struct xrp *rp, const struct xrp_agplan *pl)
{
	for (int bt = 0; bt < XFSJ_BT__COUNT; bt++) {
		struct xfsj_btree_cur *cur;
		int err;

		if (!pl->rebuild[bt])
			continue;
		err = xfsj_btree_cur_new(rp->fs, bt, pl->ag->agno, NULL,
					 &rp->res->fault, &cur);
		if (err)
			return err;
		err = xfsj_btree_check(cur);
		xfsj_btree_cur_free(cur);
		if (err)
			return err;
	}
	return 0;
}

static void report(struct xrp *rp, const struct xrp_agplan *pl,
		   const struct agwant *w)
{
	uint32_t agno = pl->ag->agno;
	char what[128];

	if (w->header) {
		snprintf(what, sizeof(what), "rebuilt the AGF%s and AGFL of AG %u",
			 w->agi ? ", AGI" : "", agno);
		xrp_action(rp, &(struct xfsj_repair_action){
			.fix = XFSJ_FIX_AG_HEADER, .has = XFSJ_PF_AG,
			.agno = agno, .what = what });
	}
	for (int bt = 0; bt < XFSJ_BT__COUNT; bt++) {
		uint64_t n = pl->geom[bt].nrecs, b = pl->geom[bt].blocks;

		if (!pl->rebuild[bt])
			continue;
		snprintf(what, sizeof(what),
			 "rebuilt the %s of AG %u (%llu record%s, %llu block%s)",
			 tree_name[bt], agno, (unsigned long long)n,
			 n == 1 ? "" : "s", (unsigned long long)b,
			 b == 1 ? "" : "s");
		xrp_action(rp, &(struct xfsj_repair_action){
			.fix = XFSJ_FIX_REBUILD_BTREE,
			.has = XFSJ_PF_AG | XFSJ_PF_COUNT, .agno = agno,
			.count = n, .what = what });
	}
	if (w->leaked) {
		snprintf(what, sizeof(what),
			 "gave %llu leaked block%s of AG %u back to free space",
			 (unsigned long long)w->leaked,
			 w->leaked == 1 ? "" : "s", agno);
		xrp_action(rp, &(struct xfsj_repair_action){
			.fix = XFSJ_FIX_FREE_SPACE,
			.has = XFSJ_PF_AG | XFSJ_PF_COUNT, .agno = agno,
			.count = w->leaked, .what = what });
	}
}

static int rebuild_ag(struct xrp *rp, uint32_t agno, const struct agwant *w)
{
	struct xrp_agplan pl = {
		.fs = rp->fs,
		.sb = rp->sb,
		.ag = &rp->ck->ags[agno],
	};
	uint32_t first[XFSJ_BT__COUNT] = { 0 }, t = 0;
	int err;

	pl.agblocks = pl.ag->agblocks;
	pl.hdrblocks = (uint32_t)((3ULL * rp->sb->sectsize) >>
				  rp->sb->blocklog) + 1;
	pl.rebuild[XFSJ_BT_BNO] = pl.rebuild[XFSJ_BT_CNT] = true;
	pl.rebuild[XFSJ_BT_RMAP] = xfsj_fs_has(rp->fs, XFSJ_RO_COMPAT_RMAPBT);
	pl.rebuild[XFSJ_BT_INO] = w->ino;
	pl.rebuild[XFSJ_BT_FINO] = w->ino &&
		xfsj_fs_has(rp->fs, XFSJ_RO_COMPAT_FINOBT);
	pl.rebuild[XFSJ_BT_REFC] = xfsj_fs_has(rp->fs, XFSJ_RO_COMPAT_REFLINK)
		&& (w->refc || !pl.ag->agf_ok || !pl.ag->tree_ok[XFSJ_BT_REFC]);
	/* The AGI is rewritten only from a header that was read whole, or
	 * with the chunks the rmapbt named. */
	if ((w->ino || w->agi) && !pl.ag->agi_ok && !pl.ag->chunks_recovered)
		return 0;
	err = xrp_agplan_make(&pl);
	if (err == -XFSJ_E_NOSPC || err == -XFSJ_E_RANGE) {
		err = 0;		/* left for the final check */
		goto out;
	}
	if (err)
		goto out;
	for (int bt = 0; bt < XFSJ_BT__COUNT; bt++) {
		first[bt] = t;
		if (pl.rebuild[bt])
			t += (uint32_t)pl.geom[bt].blocks;
	}
	err = write_agf(rp, &pl, first);
	if (!err)
		err = write_agfl(rp, agno, pl.take + t, pl.nagfl);
	if (!err && (w->ino || w->agi))
		err = write_agi(rp, &pl, first);
	if (!err)
		err = load_trees(rp, &pl, first);
	if (!err)
		err = xfsj_alloc_fix_freelist(rp->fs, agno, &rp->res->fault);
	if (!err)
		err = verify_trees(rp, &pl);
	if (err)
		goto out;
	/* An inode the rebuilt inobt now calls free is written as one. */
	for (size_t i = 0; !err && i < rp->nprobs; i++)
		if (xrp_has(&rp->probs[i], XFSJ_T_WRITE_FREE) &&
		    (rp->probs[i].p.has & XFSJ_PF_INO) &&
		    xfsj_ino_agno(rp->sb, rp->probs[i].p.ino) == agno)
			err = xrp_inode_make_free(rp, rp->probs[i].p.ino);
	if (err)
		goto out;
	mark_done(rp, agno);
	report(rp, &pl, w);
out:
	xrp_agplan_free(&pl);
	return err;
}

/* Every AG with a problem of the three kinds, rebuilt once a round. */
static int rebuild_all(struct xrp *rp)
{
	bool trusted = claims_trusted(rp);
	struct agwant w;
	int err;

	for (uint32_t agno = 0; agno < rp->sb->agcount; agno++) {
		agwant_of(rp, agno, &w);
		if (!w.any || !trusted || agno >= rp->ck->agcount)
			continue;
		err = rebuild_ag(rp, agno, &w);
		if (err)
			return err;
	}
	return 0;
}

int xrp_fix_ag_headers(struct xrp *rp)
{
	return rebuild_all(rp);
}

int xrp_fix_rebuild_btrees(struct xrp *rp)
{
	return rebuild_all(rp);
}

int xrp_fix_free_space(struct xrp *rp)
{
	return rebuild_all(rp);
}
