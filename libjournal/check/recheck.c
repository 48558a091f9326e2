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

/* What a local check scans again: whole AGs, and single inodes. */
struct scope {
	const bool *redo;
	const struct xck_inoset *set;
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
	return sc->redo[xfsj_ino_agno(ck->sb, ino) % ck->agcount] ||
	       xck_inoset_has(sc->set, ino);
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

/* A claim on AG @agno stays unless its maker is checked again. */
static bool keep_claim(const struct xck *ck, const struct scope *sc,
		       uint32_t agno, const void *e)
{
	const struct xfsj_rmap_rec *r = e;

	if (owner_inode(r->owner))
		return !ino_again(ck, sc, r->owner);
	/* CoW staging claims come from the space phase, made again. */
	return r->owner != XFSJ_RMAP_OWN_COW && !sc->redo[agno];
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

		if (sc->redo[xfsj_ino_agno(ck->sb, ino) % ck->agcount])
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

		for (i = 0; !sc->redo[agno] && i < ag->chunks.n; i++) {
			const struct xck_chunk *c = xck_vec_at(&ag->chunks, i);

			for (k = 0; c->ino && k < XFSJ_INODES_PER_CHUNK; k++)
				n += c->ino[k].flags & XCK_I_INUSE;
		}
	}
	return n;
}

static void forget(struct xck *ck, const struct scope *sc)
{
	uint32_t agno;

	for (agno = 0; agno < ck->agcount; agno++) {
		struct xck_ag *ag = &ck->ags[agno];

		xck_ag_index_free(ck, ag);
		vec_filter(&ag->claims, keep_claim, ck, sc, agno);
		if (sc->redo[agno])
			empty_ag(ck, ag);
		else
			unmark_names(ag);
	}
	vec_filter(&ck->dirents, keep_dirent, ck, sc, 0);
	vec_filter(&ck->pptrs, keep_pptr, ck, sc, 0);
	vec_filter(&ck->lossy, keep_lossy, ck, sc, 0);
	/* Made from the lossy directories and the entries, when asked. */
	xck_vec_free(ck, &ck->holders);
	xck_vec_init(&ck->holders, sizeof(struct xck_lossy_holder));
	ck->holders_made = false;
	ck->icount = ck->ifree = ck->fdblocks = 0;
	ck->totals_unknown = 0;
	ck->bmbt_claims = 0;
	ck->stop = false;
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
		if (agno >= ck->agcount || sc->redo[agno])
			continue;
		ck->ag_at = agno;
		err = xck_inodes_again(ck, &ck->ags[agno],
				       sc->set->inos + i, k - i);
	}
	return err;
}

/* Phase @ph on the AGs @redo marks (every AG when NULL). */
static int ag_phase(struct xck *ck, enum xfsj_check_phase ph,
		    int (*fn)(struct xck *ck, struct xck_ag *ag),
		    const bool *redo)
{
	uint32_t agno;
	int err;

	ck->phase = ck->ag_ph = ph;
	for (agno = 0; agno < ck->agcount; agno++) {
		if (redo && !redo[agno])
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

int xck_rerun(struct xck *ck, const bool *redo, const struct xck_inoset *set,
	      const struct xfsj_check_cb *cb, struct xfsj_check_result *res)
{
	const struct scope sc = { redo, set };
	int err;

	memset(res, 0, sizeof(*res));
	ck->cb = cb;
	ck->res = res;
	res->peak_state_bytes = ck->state_bytes;
	forget(ck, &sc);
	if (!reset_set(ck, &sc)) {
		err = 1;	/* only a whole check tells */
		goto out;
	}
	res->inodes = kept_inuse(ck, &sc);

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
	err = ag_phase(ck, XFSJ_CK_AG, xck_ag_phase, redo);
	if (!err)
		err = ag_phase(ck, XFSJ_CK_INODES, xck_inodes, redo);
	if (!err)
		err = inodes_again(ck, &sc);
	if (!err)
		err = xck_space_prepare(ck);
	if (!err)
		err = ag_phase(ck, XFSJ_CK_SPACE, xck_space, NULL);
	if (!err)
		err = xck_whole_fs_phases(ck);
out:
	if (err < 0 && !res->fault.err)
		res->fault.err = err;
	ck->cb = NULL;
	return err;
}
