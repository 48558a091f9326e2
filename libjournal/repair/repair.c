/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The repair's rounds: check (keeping the scan), pick the earliest stage
 * with something this version can fix, apply that stage's fixes in the
 * order of the fix table, flush, and check again; stop when a check finds
 * nothing more to fix, when a round changes nothing, or after the round
 * limit.  The last check is the verdict: its problems are the ones left.
 *
 * Only the first check and the verdict need to be whole.  After a round
 * that wrote in some AGs, the next check is a local one (check/recheck.c):
 * the AGs whose metadata the round wrote scanned again whole, the inodes
 * whose cores or blocks it wrote scanned again alone, the cross-checks
 * (space, names, counters) whole; the problems the other scans found are
 * kept.  When a local check leaves nothing to fix, a whole one gives the
 * verdict.  A stage that fixed counts only (XFSJ_T_COUNTER rows) leaves
 * the check's counts true: the next stage runs in the same round.
 *
 * The inodes' stage comes before the AG stage, but its writes that need
 * new blocks (the kinds xrp_fix_after_space names) wait while the AG
 * stage has something to mend that an allocation reads: the inode
 * decisions, then the AG's headers and trees rebuilt from the scan, then
 * those writes (names_wait).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "core/grow.h"
#include "core/overlay.h"
#include "repair/repair_priv.h"

#define ROUNDS_DEFAULT	8
#define ROUNDS_CAP	4	/* rounds at most, in units of the limit */
/* Inodes a local check scans again alone at most (more: their AGs). */
#define REINO_MAX	65536

void xrp_action(struct xrp *rp, const struct xfsj_repair_action *a)
{
	struct xfsj_repair_result *r = rp->res;

	r->actions++;
	r->changed = true;
	switch (a->fix) {
	case XFSJ_FIX_FIELD:
	case XFSJ_FIX_NLINK:
	case XFSJ_FIX_UNLINKED:
		r->fields_fixed++;
		break;
	case XFSJ_FIX_CLEAR_INODE:
		r->inodes_cleared++;
		break;
	case XFSJ_FIX_RECONNECT:
		r->entries_moved++;
		break;
	case XFSJ_FIX_CLEAR_ENTRY:
		r->entries_removed++;
		break;
	case XFSJ_FIX_FREE_SPACE:
		r->blocks_reclaimed += a->count;
		break;
	case XFSJ_FIX_REBUILD_BTREE:
		r->btrees_rebuilt++;
		break;
	case XFSJ_FIX_AG_HEADER:
	case XFSJ_FIX_SB_FROM_SECONDARY:
		r->headers_rebuilt++;
		break;
	case XFSJ_FIX_COUNTERS:
		r->counters_fixed++;
		break;
	default:
		break;
	}
	if (rp->cb->action)
		rp->cb->action(rp->cb->arg, a);
}

enum xfsj_repair_stage xrp_stage_of(const struct xfsj_problem_def *d)
{
	const struct xrp_handler *x = xrp_handler_of(d->handler);

	return x ? x->stage : XFSJ_RS_INODES;
}

const char *xfsj_repair_stage_name(enum xfsj_repair_stage s)
{
	static const char *const names[XFSJ_RS__COUNT] = {
		[XFSJ_RS_SB] = "superblocks",
		[XFSJ_RS_INODES] = "inodes",
		[XFSJ_RS_AG] = "AG headers and btrees",
		[XFSJ_RS_COUNTERS] = "counters",
	};

	return s < XFSJ_RS__COUNT ? names[s] : "?";
}

/* ---- one round's check ---- */

/* The strings a kept problem owns (on_problem copied them). */
static void free_strings(struct xrp_prob *pr)
{
	free((char *)pr->p.name);
	free((char *)pr->p.field);
}

static void free_probs(struct xrp *rp)
{
	size_t i;

	for (i = 0; i < rp->nprobs; i++)
		free_strings(&rp->probs[i]);
	rp->nprobs = 0;
}

/* Remember the inode @p names (xrp_ino_suspect); best effort. */
static void note_suspect(struct xrp *rp, const struct xfsj_problem *p)
{
	/* (one problem after another names the same inode: kept once) */
	if (!(p->has & XFSJ_PF_INO) || p->def->sev == XFSJ_SEV_INFO ||
	    (rp->nsuspects && rp->suspects[rp->nsuspects - 1] == p->ino))
		return;
	if (xfsj_grow(&rp->suspects, &rp->capsuspects, rp->nsuspects, 1,
		      sizeof(*rp->suspects), 64))
		return;
	rp->suspects[rp->nsuspects++] = p->ino;
}

static void on_problem(void *arg, const struct xfsj_problem *p)
{
	struct xrp *rp = arg;
	struct xrp_prob *pr;

	if (rp->round == 1 && rp->cb->problem)
		rp->cb->problem(rp->cb->arg, p);
	note_suspect(rp, p);
	if (xfsj_grow(&rp->probs, &rp->capprobs, rp->nprobs, 1,
		      sizeof(*rp->probs), 64))
		return;		/* the round sees fewer problems */
	pr = &rp->probs[rp->nprobs];
	memset(pr, 0, sizeof(*pr));
	pr->p = *p;
	/* inode.used_free is fixed by rebuilding its AG's inode btrees. */
	if (!(p->has & XFSJ_PF_AG) && (p->has & XFSJ_PF_INO) &&
	    (p->def->traits & XFSJ_T_INO_TREES)) {
		pr->p.has |= XFSJ_PF_AG;
		pr->p.agno = xfsj_ino_agno(rp->sb, p->ino);
	}
	/*
	 * A problem's strings live as long as the callback (a check on
	 * threads hands over copies it frees after): the round keeps its own.
	 */
	pr->p.name = NULL;
	pr->p.field = NULL;
	if (p->name) {
		/* (a damaged name may hold a NUL: all namelen bytes) */
		char *nm = malloc(p->namelen + 1);

		if (!nm)
			return;
		memcpy(nm, p->name, p->namelen);
		nm[p->namelen] = '\0';
		pr->p.name = nm;
	}
	if (p->field && !(pr->p.field = strdup(p->field))) {
		free((char *)pr->p.name);
		return;
	}
	rp->nprobs++;
}

static void on_progress(void *arg, enum xfsj_check_phase ph, uint64_t done,
			uint64_t total)
{
	struct xrp *rp = arg;

	if (rp->cb->progress)
		rp->cb->progress(rp->cb->arg, ph, done, total);
}

/* The work of this round's check, added to the repair's. */
static void add_work(struct xrp *rp, bool local)
{
	size_t i;

	for (i = 0; i < XFSJ_WK__N; i++)
		rp->res->work[i] += rp->ckres.work[i];
	if (local)
		rp->res->local_checks++;
	else
		rp->res->full_checks++;
}

/*
 * Before a local check: the problems it will not find again (those of the
 * AG phase of the AGs it keeps, those of the inode phase of the AGs whose
 * inodes it keeps, but those of the inodes @set scans again) stay, as a
 * whole check would have found them.  Returns how many stay.
 */
static size_t keep_unchanged(struct xrp *rp, const struct xck_inoset *set)
{
	size_t i, n = 0;

	for (i = 0; i < rp->nprobs; i++) {
		struct xrp_prob *pr = &rp->probs[i];

		uint8_t redo = pr->p.scan_ag < rp->sb->agcount ?
			       rp->redo[pr->p.scan_ag] : XCK_REDO_ALL;

		if ((pr->p.phase == XFSJ_CK_AG && redo == XCK_REDO_NONE) ||
		    (pr->p.phase == XFSJ_CK_INODES && redo != XCK_REDO_ALL &&
		     !((pr->p.has & XFSJ_PF_INO) &&
		       xck_inoset_has(set, pr->p.ino)))) {
			pr->done = false;
			rp->probs[n++] = *pr;
			continue;
		}
		free_strings(pr);
	}
	rp->nprobs = n;
	return n;
}

/*
 * After the local check: the AGs it raised from XCK_REDO_AG to
 * XCK_REDO_ALL (@asked: what it was asked) had their inodes scanned
 * again, so the inode-phase problems kept for them (the first @kept)
 * were found again: the old ones go.
 */
static void drop_raised(struct xrp *rp, const uint8_t *asked, size_t kept)
{
	size_t i, n = 0;

	for (i = 0; i < rp->nprobs; i++) {
		struct xrp_prob *pr = &rp->probs[i];

		if (i < kept && pr->p.phase == XFSJ_CK_INODES &&
		    pr->p.scan_ag < rp->sb->agcount &&
		    asked[pr->p.scan_ag] != XCK_REDO_ALL &&
		    rp->redo[pr->p.scan_ag] == XCK_REDO_ALL) {
			free_strings(pr);
			continue;
		}
		rp->probs[n++] = *pr;
	}
	rp->nprobs = n;
}

/* The order of a whole check: by phase, per-AG phases by AG, then found. */
static int prob_order(const void *a, const void *b)
{
	const struct xfsj_problem *x = &((const struct xrp_prob *)a)->p;
	const struct xfsj_problem *y = &((const struct xrp_prob *)b)->p;
	bool per_ag = x->phase == XFSJ_CK_AG || x->phase == XFSJ_CK_INODES ||
		      x->phase == XFSJ_CK_SPACE;

	if (x->phase != y->phase)
		return x->phase < y->phase ? -1 : 1;
	if (per_ag && x->scan_ag != y->scan_ag)
		return x->scan_ag < y->scan_ag ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* A local check reads a few AGs and inodes: a share of the cache's bound. */
#define LOCAL_CACHE_SHARE	4

/*
 * The buffer cache emptied (every change is in the overlay) and bounded
 * to @bound, the memory freed handed back to the system: before a check,
 * so that its peak is its own, not the sum of its and what came before;
 * after one, so that the fixes do not add theirs to the scan's buffers.
 */
static void empty_cache(struct xrp *rp, uint64_t bound)
{
	xfsj_fs_set_cache_bound(rp->fs, 0);
	xfsj_fs_set_cache_bound(rp->fs, bound);
#ifdef __GLIBC__
	malloc_trim(0);
#endif
}

/*
 * This round's check: a whole one, or with @local the AGs rp->redo marks
 * scanned again in the state the last check kept (and the cross-checks
 * whole); a local check that cannot run falls back to a whole one.
 */
static int check_round(struct xrp *rp, bool local)
{
	const struct xfsj_check_opts co = { .cache_bytes = rp->o->cache_bytes,
					    .spill = rp->o->spill,
					    .threads = rp->o->threads,
					    .ag_stride = rp->o->ag_stride,
					    .sb_only = rp->o->sb_only };
	const struct xfsj_check_cb ccb = {
		.arg = rp,
		.problem = on_problem,
		.progress = on_progress,
	};
	struct xfsj_cache_stats st;
	int err;

	xfsj_fs_cache_stats(rp->fs, &st);
	xrp_naming_free(rp);	/* made from the check run again now */
	xrp_claims_ix_free(rp);
	if (local && rp->ck) {
		const struct xck_inoset set = { rp->reino, rp->nreino };
		uint8_t *asked = malloc(rp->sb->agcount);
		size_t kept;

		if (!asked)
			return -XFSJ_E_NOMEM;
		memcpy(asked, rp->redo, rp->sb->agcount);
		kept = keep_unchanged(rp, &set);
		empty_cache(rp, st.bound / LOCAL_CACHE_SHARE);
		err = xck_rerun(rp->ck, rp->redo, &set, &ccb, &rp->ckres);
		empty_cache(rp, st.bound);
		if (!err)
			drop_raised(rp, asked, kept);
		free(asked);
		if (!err) {
			if (rp->nprobs > 1)
				qsort(rp->probs, rp->nprobs,
				      sizeof(*rp->probs), prob_order);
			add_work(rp, true);
			return 0;
		}
	}
	/* What the last check kept is of no use to a whole one. */
	xck_free(rp->ck);
	rp->ck = NULL;
	free_probs(rp);
	empty_cache(rp, st.bound);
	err = xck_run(rp->fs, &co, &ccb, &rp->ckres, &rp->ck);
	/* The fixes read what they change: not the scan's buffers. */
	empty_cache(rp, st.bound);
	add_work(rp, false);
	return err;
}

/* ---- what a round changed: the scope of the next check ---- */

static void redo_at_least(struct xrp *rp, uint32_t agno, uint8_t level)
{
	if (rp->redo[agno] < level)
		rp->redo[agno] = level;
}

struct written {
	struct xrp *rp;
	uint64_t *blk;		/* agno << 32 | agbno, of blocks written */
	size_t n, cap;
	bool whole;		/* something only a whole check sees */
};

static int on_written(void *arg, uint64_t off, unsigned int sectors)
{
	struct written *w = arg;
	const struct xfsj_sb *sb = w->rp->sb;
	uint64_t agbytes = (uint64_t)sb->agblocks * sb->blocksize;
	unsigned int i;

	for (i = 0; i < XFSJ_OVL_PAGE / XFSJ_OVL_SECTOR; i++) {
		uint64_t at = off + (uint64_t)i * XFSJ_OVL_SECTOR, in;
		uint32_t agno, agbno;

		if (!(sectors >> i & 1))
			continue;
		agno = (uint32_t)(at / agbytes);
		in = at % agbytes;
		if (agno >= sb->agcount) {
			w->whole = true;	/* not in an AG */
			return 0;
		}
		if (in < sb->sectsize)
			continue;	/* a superblock: always checked */
		if (in < 4ULL * sb->sectsize) {
			/* AGF, AGI, AGFL (a changed unlinked list in the
			 * AGI has the local check scan the AG's inodes) */
			redo_at_least(w->rp, agno, XCK_REDO_AG);
			continue;
		}
		agbno = (uint32_t)(in / sb->blocksize);
		if (w->n && w->blk[w->n - 1] == ((uint64_t)agno << 32 | agbno))
			continue;
		if (xfsj_grow(&w->blk, &w->cap, w->n, 1, sizeof(*w->blk), 64))
			return -XFSJ_E_NOMEM;
		w->blk[w->n++] = (uint64_t)agno << 32 | agbno;
	}
	return 0;
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The first of the sorted @n @v at or above @key. */
static size_t lower_bound(const uint64_t *v, size_t n, uint64_t key)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid] < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int add_reino(struct xrp *rp, uint64_t ino)
{
	if (rp->nreino && rp->reino[rp->nreino - 1] == ino)
		return 0;
	if (xfsj_grow(&rp->reino, &rp->capreino, rp->nreino, 1,
		      sizeof(*rp->reino), 64))
		return -XFSJ_E_NOMEM;
	rp->reino[rp->nreino++] = ino;
	return 0;
}

/* The inodes of inode block @agbno of AG @agno, to scan again. */
static int add_block_inodes(struct xrp *rp, uint32_t agno, uint32_t agbno)
{
	const struct xfsj_sb *sb = rp->sb;
	uint32_t agino = agbno << sb->inopblog;
	unsigned int k;
	int err = 0;

	for (k = 0; k < sb->inopblock && !err; k++)
		err = add_reino(rp, xfsj_agino_to_ino(sb, agno, agino + k));
	return err;
}

/*
 * Mark what owns the blocks written (@w, sorted), by the last check's
 * claims: an inode's block names the inode, an inode block its inodes
 * (rp->reino), other metadata marks its own AG; a block nobody claimed
 * (taken from the free space, whose btrees changed with it) marks its AG.
 */
static int mark_owners(struct xrp *rp, struct written *w)
{
	uint8_t *seen = calloc(w->n ? w->n : 1, 1);
	const struct xck_ag *ag;
	size_t i, k;
	int err = 0;

	if (!seen)
		return -XFSJ_E_NOMEM;
	for (i = 0; i < w->n && !err; i = k) {
		uint32_t agno = (uint32_t)(w->blk[i] >> 32);
		const struct xfsj_rmap_rec *r;
		size_t c;

		for (k = i; k < w->n && w->blk[k] >> 32 == agno; k++)
			;
		ag = &rp->ck->ags[agno];
		r = ag->claims.v;
		for (c = 0; c < ag->claims.n; c++) {
			uint64_t base = (uint64_t)agno << 32;
			uint64_t end = base + r[c].startblock + r[c].blockcount;
			size_t j = lower_bound(w->blk + i, k - i,
					       base + r[c].startblock) + i;

			for (; j < k && w->blk[j] < end && !err; j++) {
				seen[j] = 1;
				if (r[c].owner == XFSJ_RMAP_OWN_INODES)
					err = add_block_inodes(rp, agno,
							(uint32_t)w->blk[j]);
				else if (r[c].owner >> 63)
					redo_at_least(rp, agno, XCK_REDO_AG);
				else
					err = add_reino(rp, r[c].owner);
			}
		}
		/*
		 * Taken from the free space: the free space btrees changed;
		 * an inode that maps it had its core or bmbt written, a new
		 * inode chunk the inobt (the local check then finds other
		 * chunks and scans the AG's inodes).
		 */
		for (c = i; c < k; c++)
			if (!seen[c])
				redo_at_least(rp, agno, XCK_REDO_AG);
	}
	free(seen);
	return err;
}

/*
 * The inodes to scan again alone, sorted and once each, but those of the
 * AGs scanned again whole; past REINO_MAX, their AGs are scanned again.
 */
static void settle_reino(struct xrp *rp)
{
	size_t i, n = 0;

	if (rp->nreino > REINO_MAX) {
		for (i = 0; i < rp->nreino; i++)
			rp->redo[xfsj_ino_agno(rp->sb, rp->reino[i]) %
				 rp->sb->agcount] = XCK_REDO_ALL;
		rp->nreino = 0;
		return;
	}
	if (rp->nreino > 1)
		qsort(rp->reino, rp->nreino, sizeof(*rp->reino), u64_cmp);
	for (i = 0; i < rp->nreino; i++) {
		uint64_t ino = rp->reino[i];

		if ((n && rp->reino[n - 1] == ino) ||
		    rp->redo[xfsj_ino_agno(rp->sb, ino) % rp->sb->agcount] ==
		    XCK_REDO_ALL)
			continue;
		rp->reino[n++] = ino;
	}
	rp->nreino = n;
}

/*
 * Is more to be done after this round's stage: a problem of a later stage
 * to fix, or the round cut short (rp->recheck)?  If not, the next check is
 * most likely the verdict, and a whole one.
 */
static bool wants_fix(const struct xrp *rp, const struct xrp_prob *pr);

static bool more_to_do(const struct xrp *rp)
{
	size_t i;

	if (rp->recheck || rp->waited)
		return true;
	for (i = 0; i < rp->nprobs; i++)
		if (wants_fix(rp, &rp->probs[i]) &&
		    xrp_stage_of(rp->probs[i].p.def) > rp->stage)
			return true;
	return false;
}

/*
 * Can the next check be a local one, after a round that wrote since
 * @epoch?  rp->redo gets what it does again in each AG; false when the
 * round fixed superblocks or must have every AG's inodes scanned again
 * (a whole check is no dearer).
 */
static bool local_scope(struct xrp *rp, uint32_t epoch)
{
	struct written w = { .rp = rp };
	uint32_t agno, marked = 0;
	int err;

	if (!rp->ck || rp->stage == XFSJ_RS_SB)
		return false;
	if (!rp->redo) {
		rp->redo = calloc(rp->sb->agcount, sizeof(*rp->redo));
		if (!rp->redo)
			return false;
	}
	memset(rp->redo, 0, rp->sb->agcount * sizeof(*rp->redo));
	rp->nreino = 0;
	err = xfsj_overlay_each_written(xfsj_fs_overlay(rp->fs), epoch,
					on_written, &w);
	if (!err && !w.whole && w.n) {
		qsort(w.blk, w.n, sizeof(*w.blk), u64_cmp);
		err = mark_owners(rp, &w);
	}
	free(w.blk);
	if (err || w.whole)
		return false;
	settle_reino(rp);
	for (agno = 0; agno < rp->sb->agcount; agno++)
		marked += rp->redo[agno] == XCK_REDO_ALL;
	return marked < rp->sb->agcount;
}

/* Is problem @pr one the repair should act on? */
static bool wants_fix(const struct xrp *rp, const struct xrp_prob *pr)
{
	if (rp->o->preen && !xfsj_row_preen_safe(pr->p.def))
		return false;
	return pr->p.def->sev != XFSJ_SEV_INFO &&
	       pr->p.def->fix != XFSJ_FIX_NONE &&
	       xfsj_handler_implemented(pr->p.def->handler);
}

/*
 * The earliest stage with a problem this version fixes, among those not
 * @stuck (tried on this state without changing anything); __COUNT: none.
 */
static enum xfsj_repair_stage next_stage(const struct xrp *rp,
					 const bool *stuck)
{
	enum xfsj_repair_stage best = XFSJ_RS__COUNT, s;
	size_t i;

	for (i = 0; i < rp->nprobs; i++) {
		if (!wants_fix(rp, &rp->probs[i]))
			continue;
		s = xrp_stage_of(rp->probs[i].p.def);
		if (s < best && !stuck[s])
			best = s;
	}
	return best;
}

/*
 * Did this round's stage fix counters only (every problem of the stage it
 * acts on a count the scan made)?  Then what the check counted still
 * holds, and the next stage runs in the same round.
 */
static bool counters_only(const struct xrp *rp)
{
	for (size_t i = 0; i < rp->nprobs; i++) {
		const struct xrp_prob *pr = &rp->probs[i];

		if (wants_fix(rp, pr) && xrp_stage_of(pr->p.def) == rp->stage &&
		    !xrp_has(pr, XFSJ_T_COUNTER))
			return false;
	}
	return true;
}

/*
 * An AGF bound broken only because the AGF's own free-block counter is
 * wrong (longest above a freeblks that is too low): the counter's fix
 * answers it.
 */
static bool implied_by_counters(const struct xrp *rp,
				const struct xrp_prob *pr)
{
	size_t i;

	if (!xrp_has(pr, XFSJ_T_COUNTER_BOUND))
		return false;
	for (i = 0; i < rp->nprobs; i++)
		if (xrp_names(&rp->probs[i], XFSJ_H_AGF_COUNTER) &&
		    rp->probs[i].p.agno == pr->p.agno)
			return true;
	return false;
}

/*
 * Preen: the first problem a person must decide on (NULL: none).  Asked
 * of the first check, so that preen writes nothing when it stops.
 */
static const struct xfsj_problem_def *preen_refusal(const struct xrp *rp)
{
	size_t i;

	for (i = 0; i < rp->nprobs; i++) {
		const struct xfsj_problem_def *d = rp->probs[i].p.def;

		if (d->sev == XFSJ_SEV_INFO)
			continue;
		if (d->fix == XFSJ_FIX_NONE && d->sev == XFSJ_SEV_WARN)
			continue;
		if (!xfsj_row_preen_safe(d) &&
		    !implied_by_counters(rp, &rp->probs[i]))
			return d;
	}
	return NULL;
}

/* Has this stage a problem of kind @fix whose handler has code? */
static bool stage_has(const struct xrp *rp, enum xfsj_fix fix,
		      enum xfsj_handler only)
{
	for (size_t i = 0; i < rp->nprobs; i++) {
		const struct xfsj_problem_def *d = rp->probs[i].p.def;

		if (d->fix == fix && xrp_stage_of(d) == rp->stage &&
		    (only == XFSJ_H__COUNT || d->handler == only) &&
		    xfsj_handler_implemented(d->handler))
			return true;
	}
	return false;
}

/*
 * The handlers of kind @fix: first each problem's own (@one, in the order
 * reported), then each pass once.
 */
static int apply_kind(struct xrp *rp, enum xfsj_fix fix)
{
	int (*called[XFSJ_H__COUNT])(struct xrp *rp);
	size_t ncalled = 0, i;
	struct xrp_prob *pr;
	enum xfsj_handler h;
	int err;

	xrp_for_each(rp, pr, fix) {
		enum xfsj_handler ph = pr->p.def->handler;
		const struct xrp_handler *x = xrp_handler_of(ph);

		if (!x || !x->one || !xfsj_handler_implemented(ph))
			continue;
		err = x->one(rp, pr);
		if (err)
			return err;
	}
	for (h = 0; h < XFSJ_H__COUNT && !rp->recheck; h++) {
		const struct xrp_handler *x = xrp_handler_of(h);

		if (x->fix != fix || !x->pass || x->todo ||
		    !stage_has(rp, fix, h))
			continue;
		for (i = 0; i < ncalled && called[i] != x->pass; i++)
			;
		if (i < ncalled)
			continue;
		called[ncalled++] = x->pass;
		err = x->pass(rp);
		if (err)
			return err;
	}
	return 0;
}

/*
 * Do the kinds writing names wait for the AG stage?  While it has a
 * problem to fix, in an AG those writes allocate from, whose handler
 * mends what an allocation reads (an AG header or its counters, a free
 * space, inode, rmap or refcount btree): a directory written now would
 * take its blocks, or lost+found its inode, through that damage (a block
 * called free that is a file's, a tree that fails verification half way
 * through a rewrite).  The AGs they allocate from: the root's
 * (lost+found), and the AGs of the inodes named by the problems of the
 * kinds that allocate beside them (xrp_fix_allocs_here); an AG problem
 * that names no AG counts for all.  Not once the AG stage has been tried
 * on this state without changing anything (@nowait): then the names are
 * written as before rather than never.
 */
static bool names_wait(const struct xrp *rp)
{
	const struct xfsj_sb *sb = rp->sb;
	uint8_t *bad;
	bool any = false, wait = false;
	size_t i;

	if (rp->stage != XFSJ_RS_INODES || rp->nowait)
		return false;
	bad = calloc(sb->agcount, 1);
	if (!bad)
		return true;	/* (the safe answer) */
	for (i = 0; i < rp->nprobs && !wait; i++) {
		const struct xrp_prob *pr = &rp->probs[i];
		const struct xrp_handler *x = xrp_handler_of(pr->p.def->handler);

		if (pr->done || !x || !x->alloc_reads || !wants_fix(rp, pr))
			continue;
		any = true;
		if ((pr->p.has & XFSJ_PF_AG) && pr->p.agno < sb->agcount)
			bad[pr->p.agno] = 1;
		else
			wait = true;
	}
	if (any && !wait)
		wait = bad[xfsj_ino_agno(sb, sb->rootino) % sb->agcount];
	for (i = 0; any && i < rp->nprobs && !wait; i++) {
		const struct xrp_prob *pr = &rp->probs[i];

		if (pr->done || !(pr->p.has & XFSJ_PF_INO) ||
		    !xrp_fix_allocs_here(pr->p.def->fix) || !wants_fix(rp, pr))
			continue;
		wait = bad[xfsj_ino_agno(sb, pr->p.ino) % sb->agcount];
	}
	free(bad);
	return wait;
}

static int apply_stage(struct xrp *rp)
{
	const enum xfsj_fix *order;
	size_t n = xrp_fix_order(&order), k;
	bool wait = names_wait(rp);
	int err;

	rp->recheck = false;
	rp->nrenamed = 0;
	for (k = 0; k < n && !rp->recheck; k++) {
		if (!stage_has(rp, order[k], XFSJ_H__COUNT))
			continue;
		if (wait && xrp_fix_after_space(order[k])) {
			rp->waited = true;
			continue;
		}
		err = apply_kind(rp, order[k]);
		if (err)
			return err;
	}
	return xfsj_fs_flush(rp->fs, &rp->res->fault);
}

uint64_t xfsj_check_weight(const struct xfsj_check_result *r)
{
	static const uint64_t w[XFSJ_SEV_INFO + 1] = {
		[XFSJ_SEV_CORRUPT] = 16,
		[XFSJ_SEV_XCORRUPT] = 16,
		[XFSJ_SEV_WARN] = 1,
	};
	uint64_t sum = 0;
	int s;

	for (s = 0; s <= XFSJ_SEV_INFO; s++)
		sum += w[s] * r->by_sev[s];
	return sum;
}

static void count_left(struct xrp *rp)
{
	struct xfsj_repair_result *r = rp->res;
	size_t i;

	r->left = 0;
	r->left_corrupt = 0;
	r->left_nofix = 0;
	for (i = 0; i < rp->nprobs; i++) {
		const struct xfsj_problem_def *d = rp->probs[i].p.def;

		if (d->sev == XFSJ_SEV_INFO)
			continue;
		r->left++;
		if (d->sev == XFSJ_SEV_CORRUPT || d->sev == XFSJ_SEV_XCORRUPT)
			r->left_corrupt++;
		if (d->fix == XFSJ_FIX_NONE ||
		    !xfsj_handler_implemented(d->handler))
			r->left_nofix++;
		if (rp->cb->left)
			rp->cb->left(rp->cb->arg, &rp->probs[i].p);
	}
}

int xfsj_repair(struct xfsj_fs *fs, const struct xfsj_repair_opts *o,
		const struct xfsj_repair_cb *cb,
		struct xfsj_repair_result *res)
{
	static const struct xfsj_repair_opts noopts;
	static const struct xfsj_repair_cb nocb;
	struct xrp rp = {
		.fs = fs,
		.sb = xfsj_fs_sb(fs),
		.o = o ? o : &noopts,
		.cb = cb ? cb : &nocb,
		.res = res,
	};
	unsigned int max = rp.o->max_rounds ? rp.o->max_rounds :
			   ROUNDS_DEFAULT;
	unsigned int counted = 0;
	size_t fewest = SIZE_MAX;
	bool local = false, verdict = false;
	enum xfsj_repair_stage last;
	uint64_t before;
	uint32_t epoch;
	int err;

	memset(res, 0, sizeof(*res));
	err = xrp_clear_needsrepair(&rp);
	if (err)
		return xfsj_fault_set(&res->fault, err, "superblock", "read",
				      0, 0);
	for (rp.round = 1;; rp.round++) {
		bool stuck[XFSJ_RS__COUNT] = { false };

		err = check_round(&rp, local);
		if (rp.round == 1)
			res->first = rp.ckres;
		res->last = rp.ckres;
		res->rounds = rp.round;
		if (err) {
			res->fault = rp.ckres.fault;
			break;
		}
		if (verdict)
			break;		/* the whole check after the last round */
		if (rp.round == 1 && rp.o->preen) {
			res->preen_refused = preen_refusal(&rp);
			if (res->preen_refused)
				break;
		}
		/*
		 * The limit counts the rounds that made no progress: a
		 * check that finds fewer problems than every one before is
		 * free (they cannot shrink forever), up to a bound.
		 */
		if (rp.nprobs < fewest)
			fewest = rp.nprobs;
		else
			counted++;
		if (counted >= max || rp.round > ROUNDS_CAP * max) {
			/* The verdict is a whole check's. */
			verdict = local;
			local = false;
			if (verdict)
				continue;
			break;
		}
		/* A stage that changes nothing leaves the scan valid for the
		 * next one. */
		before = res->actions;
		last = XFSJ_RS__COUNT;
		rp.waited = false;
		epoch = xfsj_overlay_new_epoch(xfsj_fs_overlay(rp.fs));
again:
		while ((rp.stage = next_stage(&rp, stuck)) != XFSJ_RS__COUNT) {
			uint64_t had = res->actions;

			if (rp.cb->round)
				rp.cb->round(rp.cb->arg, rp.round, rp.stage);
			err = apply_stage(&rp);
			if (!err && rp.o->after_stage)
				err = rp.o->after_stage(rp.o->after_stage_arg,
							rp.fs);
			if (err)
				break;
			stuck[rp.stage] = true;
			if (res->actions == had)
				continue;
			last = rp.stage;
			if (rp.recheck || !counters_only(&rp))
				break;
			/*
			 * The names waited for an AG stage that fixed counts
			 * only: the scan still holds, they go in this round.
			 */
			if (rp.waited && rp.stage == XFSJ_RS_AG) {
				rp.waited = false;
				stuck[XFSJ_RS_INODES] = false;
			}
		}
		if (err) {
			if (!res->fault.err)
				xfsj_fault_set(&res->fault, err, NULL, NULL,
					       0, 0);
			break;
		}
		if (res->actions == before && rp.waited && !rp.nowait) {
			/*
			 * The names waited for an AG stage that changed
			 * nothing: this state, once more, writing them.
			 */
			rp.nowait = true;
			rp.waited = false;
			memset(stuck, 0, sizeof(stuck));
			goto again;
		}
		rp.stage = last;
		if (res->actions == before) {
			/*
			 * Nothing more this version can do: after a local
			 * check, a whole one gives the verdict (and may find
			 * more to do).
			 */
			if (!local)
				break;
			local = false;
			continue;
		}
		local = more_to_do(&rp) && local_scope(&rp, epoch);
	}
	if (!err) {
		count_left(&rp);
		res->worse = res->changed &&
			     xfsj_check_weight(&res->last) >
			     xfsj_check_weight(&res->first);
	}
	xrp_naming_free(&rp);
	xrp_claims_ix_free(&rp);
	free(rp.ev_f);
	free(rp.ev_rec);
	xck_free(rp.ck);
	free_probs(&rp);
	free(rp.probs);
	free(rp.suspects);
	free(rp.redo);
	free(rp.reino);
	free(rp.renamed);
	return err;
}
