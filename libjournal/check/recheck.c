/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A check again of part of a filesystem, in the state a whole check kept:
 * for a repair whose round changed a few AGs, so that the next round does
 * not scan every inode again.
 *
 * What a per-AG phase found lives in the tables of its AG (the AG phase:
 * headers, free extents, rmaps, refcounts, inode chunks; the inode
 * phase: the inodes' states) and in the shared tables, tagged by owner:
 * a claim by its owner (an inode, or the AG's metadata), a directory
 * entry by its directory, a parent pointer by its child, a lossy
 * directory by itself.  So the AGs to check again are emptied of what
 * their own phases found, everywhere, and scanned again; the space
 * phase, which cross-checks every AG's claims, and the global phases
 * (superblocks, names, counters) run again whole, from their start.
 *
 * A round that wrote a few inodes (their cores, or blocks they own) in an
 * AG has them scanned again alone (xck_rerun's @set): what their own
 * scans found is forgotten the same way, by owner, and the rest of their
 * AG kept.
 *
 * A round that wrote only metadata of an AG that the inode scan does not
 * read (the AGF, the AGFL, the free space, rmap and refcount btrees; a
 * directory's blocks freed, a counter set) has that AG's AG phase run
 * again and its inodes' states kept (XCK_REDO_AG): the chunks the AG
 * phase finds again get the states back.  When they are other chunks, an
 * inode whose free bit changed is not in @set, or the AGI's unlinked
 * lists changed, the AG's inodes are scanned again too (XCK_REDO_ALL,
 * written back into @redo for the caller).
 *
 * The space phase leaves its AG's tables canonical (claims and rmaps
 * merged, free extents folded) and adds the CoW staging claims; running
 * it again on them finds the same, but for overlapping free records
 * (folded the first time): a repair's final whole check sees those.
 */
#include <stdlib.h>
#include <string.h>

#include "check/check_priv.h"

static bool owner_inode(uint64_t owner)
{
	return !(owner >> 63);
}

/*
 * What a local check scans again: AGs (enum xck_redo; an AG asked
 * XCK_REDO_AG is raised to XCK_REDO_ALL when its AG phase finds that the
 * inodes' states cannot be kept), single inodes.
 */
struct scope {
	uint8_t *redo;
	const struct xck_inoset *set;
	/* Per AG asked XCK_REDO_AG: its chunks (with the states), its AGI. */
	struct xck_vec *old_chunks;
	struct xfsj_agi *old_agi;
	bool *old_agi_ok;
};

bool xck_inoset_has(const struct xck_inoset *s, uint64_t ino)
{
	size_t lo = 0, hi = s ? s->n : 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->inos[mid] == ino)
			return true;
		if (s->inos[mid] < ino)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

/* Is what inode @ino's scan found forgotten? */
static bool ino_again(const struct xck *ck, const struct scope *sc,
		      uint64_t ino)
{
	return sc->redo[xfsj_ino_agno(ck->sb, ino) % ck->agcount] ==
	       XCK_REDO_ALL || xck_inoset_has(sc->set, ino);
}

/* Keep the elements of @v that @keep accepts, in order. */
static void vec_filter(struct xck_vec *v,
		       bool (*keep)(const struct xck *ck, const struct scope *sc,
				    uint32_t agno, const void *e),
		       const struct xck *ck, const struct scope *sc,
		       uint32_t agno)
{
	size_t i, n = 0;

	for (i = 0; i < v->n; i++) {
		const void *e = xck_vec_at(v, i);

		if (!keep(ck, sc, agno, e))
			continue;
		if (n != i)
			memcpy(xck_vec_at(v, n), e, v->esz);
		n++;
	}
	v->n = n;
}

/* A metadata claim on AG @agno stays unless its AG phase runs again. */
static bool keep_meta_claim(const struct xck *ck, const struct scope *sc,
			    uint32_t agno, const void *e)
{
	const struct xfsj_rmap_rec *r = e;

	(void)ck;
	if (owner_inode(r->owner))
		return true;
	/* CoW staging claims come from the space phase, made again. */
	return r->owner != XFSJ_RMAP_OWN_COW &&
	       sc->redo[agno] == XCK_REDO_NONE;
}

/* An inode's claim stays unless the inode is scanned again. */
static bool keep_inode_claim(const struct xck *ck, const struct scope *sc,
			     uint32_t agno, const void *e)
{
	const struct xfsj_rmap_rec *r = e;

	(void)agno;
	return !owner_inode(r->owner) || !ino_again(ck, sc, r->owner);
}

static bool keep_dirent(const struct xck *ck, const struct scope *sc,
			uint32_t agno, const void *e)
{
	(void)agno;
	return !ino_again(ck, sc, ((const struct xck_dirent *)e)->dir);
}

static bool keep_pptr(const struct xck *ck, const struct scope *sc,
		      uint32_t agno, const void *e)
{
	(void)agno;
	return !ino_again(ck, sc, ((const struct xck_pptr *)e)->child);
}

static bool keep_lossy(const struct xck *ck, const struct scope *sc,
		       uint32_t agno, const void *e)
{
	(void)agno;
	return !ino_again(ck, sc, ((const struct xck_lossy *)e)->dir);
}

/* AG @ag emptied of what its AG and inode phases found, but the claims. */
static void empty_ag(struct xck *ck, struct xck_ag *ag)
{
	struct xck_vec claims = ag->claims;
	uint32_t agno = ag->agno;

	xck_vec_init(&ag->claims, claims.esz);
	xck_ag_free(ck, ag);
	xck_ag_init(ck, ag, agno);
	ag->claims = claims;
}

/* What the names phase marked in the inodes of a kept AG, undone. */
static void unmark_names(struct xck_ag *ag)
{
	size_t i;
	unsigned int k;

	for (i = 0; i < ag->chunks.n; i++) {
		struct xck_chunk *c = xck_vec_at(&ag->chunks, i);

		for (k = 0; c->ino && k < XFSJ_INODES_PER_CHUNK; k++) {
			c->ino[k].flags &= (uint8_t)~(XCK_I_REACHED |
						      XCK_I_INDIR |
						      XCK_I_WALKED);
			c->ino[k].refs = 0;
		}
	}
}

/*
 * The states of the inodes of @sc's set in kept AGs, as before their
 * scan (but the unlinked mark, which the AGI and other inodes give);
 * false when one cannot be scanned alone (no chunk holds it, or its
 * chunk's free mask was guessed from the scan).
 */
static bool reset_set(struct xck *ck, const struct scope *sc)
{
	size_t i;

	for (i = 0; sc->set && i < sc->set->n; i++) {
		uint64_t ino = sc->set->inos[i];
		struct xck_chunk *c;
		struct xck_inode *st;

		if (sc->redo[xfsj_ino_agno(ck->sb, ino) % ck->agcount] ==
		    XCK_REDO_ALL)
			continue;
		st = xck_inode_find(ck, ino, &c);
		if (!st || c->guessed)
			return false;
		st->flags &= XCK_I_UNLINKED;
		st->parent = XFSJ_NULLFSINO;
		st->nlink = st->refs = st->gen = 0;
		st->ftype = 0;
	}
	return true;
}

/* The inodes in use the kept states hold (xfsj_check_result.inodes). */
static uint64_t kept_inuse(const struct xck *ck, const struct scope *sc)
{
	uint64_t n = 0;
	uint32_t agno;
	size_t i;
	unsigned int k;

	for (agno = 0; agno < ck->agcount; agno++) {
		const struct xck_ag *ag = &ck->ags[agno];

		for (i = 0; sc->redo[agno] != XCK_REDO_ALL && i < ag->chunks.n;
		     i++) {
			const struct xck_chunk *c = xck_vec_at(&ag->chunks, i);

			for (k = 0; c->ino && k < XFSJ_INODES_PER_CHUNK; k++)
				n += c->ino[k].flags & XCK_I_INUSE;
		}
	}
	return n;
}

/*
 * Before the AG phase: the AGs it runs on again emptied of what their AG
 * and inode phases found (the chunks and AGI of those whose inodes may be
 * kept set aside), but the inodes' claims on them; the totals reset.
 */
static void forget_ags(struct xck *ck, const struct scope *sc)
{
	uint32_t agno;

	for (agno = 0; agno < ck->agcount; agno++) {
		struct xck_ag *ag = &ck->ags[agno];

		xck_ag_index_free(ck, ag);
		vec_filter(&ag->claims, keep_meta_claim, ck, sc, agno);
		if (sc->redo[agno] == XCK_REDO_ALL) {
			empty_ag(ck, ag);
			continue;
		}
		unmark_names(ag);
		if (sc->redo[agno] == XCK_REDO_AG) {
			sc->old_chunks[agno] = ag->chunks;
			sc->old_agi[agno] = ag->agi;
			sc->old_agi_ok[agno] = ag->agi_ok;
			xck_vec_init(&ag->chunks, sizeof(struct xck_chunk));
			empty_ag(ck, ag);
		}
	}
	/* Made from the lossy directories and the entries, when asked. */
	xck_vec_free(ck, &ck->holders);
	xck_vec_init(&ck->holders, sizeof(struct xck_lossy_holder));
	ck->holders_made = false;
	ck->icount = ck->ifree = ck->fdblocks = 0;
	ck->totals_unknown = 0;
	ck->bmbt_claims = 0;
	ck->stop = false;
}

/* After it: what the inodes scanned again found, forgotten. */
static void forget_inodes(struct xck *ck, const struct scope *sc)
{
	uint32_t agno;

	for (agno = 0; agno < ck->agcount; agno++)
		vec_filter(&ck->ags[agno].claims, keep_inode_claim, ck, sc,
			   agno);
	vec_filter(&ck->dirents, keep_dirent, ck, sc, 0);
	vec_filter(&ck->pptrs, keep_pptr, ck, sc, 0);
	vec_filter(&ck->lossy, keep_lossy, ck, sc, 0);
}

/*
 * Can the states of old chunk @o go to chunk @c the AG phase found?  The
 * same inodes, and each inode whose free bit changed (allocated or freed
 * by the round, its core written) in the set scanned again alone.
 */
static bool chunk_kept(const struct xck *ck, const struct scope *sc,
		       uint32_t agno, const struct xck_chunk *o,
		       const struct xck_chunk *c)
{
	uint64_t flipped = o->rec.free ^ c->rec.free;
	unsigned int k;

	if (o->guessed || c->guessed || c->ino || !o->ino ||
	    o->rec.startino != c->rec.startino ||
	    o->rec.holemask != c->rec.holemask || o->rec.count != c->rec.count)
		return false;
	for (k = 0; flipped && k < XFSJ_INODES_PER_CHUNK; k++)
		if ((flipped >> k & 1) &&
		    !xck_inoset_has(sc->set, xfsj_agino_to_ino(ck->sb, agno,
						o->rec.startino + k)))
			return false;
	return true;
}

/*
 * After the AG phase: each AG asked XCK_REDO_AG gets the inodes' states
 * back on the chunks it found, or is raised to XCK_REDO_ALL when those
 * are other chunks, or its AGI's unlinked lists changed (the inode scan
 * follows them), or it was not read.
 */
static void settle_ags(struct xck *ck, const struct scope *sc)
{
	uint32_t agno;
	size_t i;

	for (agno = 0; agno < ck->agcount; agno++) {
		struct xck_ag *ag = &ck->ags[agno];
		struct xck_vec *old = &sc->old_chunks[agno];
		bool keep;

		if (sc->redo[agno] != XCK_REDO_AG)
			continue;
		keep = old->n == ag->chunks.n && !ag->chunks_recovered &&
		       ag->agi_ok && sc->old_agi_ok[agno] &&
		       !memcmp(ag->agi.unlinked, sc->old_agi[agno].unlinked,
			       sizeof(ag->agi.unlinked));
		for (i = 0; keep && i < old->n; i++)
			keep = chunk_kept(ck, sc, agno, xck_vec_at(old, i),
					  xck_vec_at(&ag->chunks, i));
		for (i = 0; keep && i < old->n; i++) {
			struct xck_chunk *o = xck_vec_at(old, i);
			struct xck_chunk *c = xck_vec_at(&ag->chunks, i);

			c->ino = o->ino;
			o->ino = NULL;
		}
		if (!keep) {
			/* The old states go with the arena (xck_free). */
			for (i = 0; i < old->n; i++) {
				struct xck_chunk *o = xck_vec_at(old, i);

				if (o->ino)
					xck_account(ck, -(int64_t)
						(XFSJ_INODES_PER_CHUNK *
						 sizeof(struct xck_inode)));
			}
			sc->redo[agno] = XCK_REDO_ALL;
		}
		xck_vec_free(ck, old);
	}
}

/* The inodes of @sc's set in the kept AGs scanned again, AG by AG. */
static int inodes_again(struct xck *ck, const struct scope *sc)
{
	size_t i, k;
	int err = 0;

	ck->phase = ck->ag_ph = XFSJ_CK_INODES;
	for (i = 0; sc->set && i < sc->set->n && !err; i = k) {
		uint32_t agno = xfsj_ino_agno(ck->sb, sc->set->inos[i]);

		for (k = i; k < sc->set->n &&
		     xfsj_ino_agno(ck->sb, sc->set->inos[k]) == agno; k++)
			;
		if (agno >= ck->agcount || sc->redo[agno] == XCK_REDO_ALL)
			continue;
		ck->ag_at = agno;
		err = xck_inodes_again(ck, &ck->ags[agno],
				       sc->set->inos + i, k - i);
	}
	return err;
}

/* Phase @ph on the AGs @redo marks @least or more (every AG: NULL). */
static int ag_phase(struct xck *ck, enum xfsj_check_phase ph,
		    int (*fn)(struct xck *ck, struct xck_ag *ag),
		    const uint8_t *redo, uint8_t least)
{
	uint32_t agno;
	int err;

	ck->phase = ck->ag_ph = ph;
	/* Every AG (the space phase): on the check's threads. */
	if (!redo && ck->threads > 1 && ck->agcount > 1) {
		err = xck_ag_phase_parallel(ck, fn, ck->threads);
		if (err <= 0) {
			if (!err)
				xck_progress(ck, ph, (uint64_t)ck->agcount *
					     XFSJ_CK_AG_STEPS,
					     (uint64_t)ck->agcount *
					     XFSJ_CK_AG_STEPS);
			return err;
		}
		/* 1: no thread to be had; the loop below scans. */
	}
	for (agno = 0; agno < ck->agcount; agno++) {
		if (redo && redo[agno] < least)
			continue;
		ck->ag_at = agno;
		xck_progress_in_ag(ck, 0, 1);
		err = fn(ck, &ck->ags[agno]);
		if (err)
			return err;
		xfsj_fs_release_kept(ck->fs);
	}
	xck_progress(ck, ph, (uint64_t)ck->agcount * XFSJ_CK_AG_STEPS,
		     (uint64_t)ck->agcount * XFSJ_CK_AG_STEPS);
	return 0;
}

int xck_rerun(struct xck *ck, uint8_t *redo, const struct xck_inoset *set,
	      const struct xfsj_check_cb *cb, struct xfsj_check_result *res)
{
	struct scope sc = { redo, set, NULL, NULL, NULL };
	uint32_t agno;
	int err;

	memset(res, 0, sizeof(*res));
	ck->cb = cb;
	ck->res = res;
	res->peak_state_bytes = ck->state_bytes;
	sc.old_chunks = calloc(ck->agcount, sizeof(*sc.old_chunks));
	sc.old_agi = calloc(ck->agcount, sizeof(*sc.old_agi));
	sc.old_agi_ok = calloc(ck->agcount, sizeof(*sc.old_agi_ok));
	if (!sc.old_chunks || !sc.old_agi || !sc.old_agi_ok) {
		err = -XFSJ_E_NOMEM;
		goto out_free;
	}
	for (agno = 0; agno < ck->agcount; agno++)
		xck_vec_init(&sc.old_chunks[agno], sizeof(struct xck_chunk));
	forget_ags(ck, &sc);

	ck->phase = XFSJ_CK_SB;
	xck_progress(ck, XFSJ_CK_SB, 0, 1);
	err = xck_sb(ck);
	if (err)
		goto out;
	if (ck->stop) {
		/* The geometry is wrong now: only a whole check tells. */
		err = 1;
		goto out;
	}
	xck_progress(ck, XFSJ_CK_SB, 1, 1);
	err = ag_phase(ck, XFSJ_CK_AG, xck_ag_phase, redo, XCK_REDO_AG);
	if (err)
		goto out;
	settle_ags(ck, &sc);
	forget_inodes(ck, &sc);
	if (!reset_set(ck, &sc)) {
		err = 1;	/* only a whole check tells */
		goto out;
	}
	res->inodes = kept_inuse(ck, &sc);
	err = ag_phase(ck, XFSJ_CK_INODES, xck_inodes, redo, XCK_REDO_ALL);
	if (!err)
		err = inodes_again(ck, &sc);
	if (!err)
		err = xck_space_prepare(ck);
	if (!err)
		err = ag_phase(ck, XFSJ_CK_SPACE, xck_space, NULL, 0);
	if (!err)
		err = xck_whole_fs_phases(ck);
out:
	for (agno = 0; agno < ck->agcount; agno++)
		xck_vec_free(ck, &sc.old_chunks[agno]);
out_free:
	free(sc.old_chunks);
	free(sc.old_agi);
	free(sc.old_agi_ok);
	if (err < 0 && !res->fault.err)
		res->fault.err = err;
	ck->cb = NULL;
	return err;
}
