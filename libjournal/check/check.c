/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The checker's driver: the phases in order, the shared tables, reporting.
 */
#include <stdlib.h>
#include <string.h>

#include "check/check_priv.h"
#include "core/grow.h"
#include "core/radix_sort.h"

void xck_vec_init(struct xck_vec *v, size_t esz)
{
	v->v = NULL;
	v->n = 0;
	v->cap = 0;
	v->esz = esz;
	v->foff = XFSJ_SPILL_RAM;
	v->sp = NULL;
}

void xck_account(struct xck *ck, int64_t delta)
{
	ck->state_bytes += delta;
	if (ck->state_bytes > ck->res->peak_state_bytes)
		ck->res->peak_state_bytes = ck->state_bytes;
}

int xck_vec_push(struct xck *ck, struct xck_vec *v, const void *e)
{
	if (v->n == v->cap) {
		size_t ocap = v->cap;
		int err;

		if (!v->v)
			v->sp = ck->spill;
		err = xfsj_spill_grow(v->sp, &v->v, &v->cap, &v->foff, v->n,
				      1, v->esz, 64);
		if (err)
			return err;
		xck_account(ck, (int64_t)((v->cap - ocap) * v->esz));
	}
	memcpy((char *)v->v + v->n * v->esz, e, v->esz);
	v->n++;
	return 0;
}

int xck_vec_append(struct xck *ck, struct xck_vec *dst,
		   const struct xck_vec *src)
{
	if (!src->n)
		return 0;
	if (dst->n + src->n > dst->cap) {
		size_t ocap = dst->cap;
		int err;

		if (!dst->v)
			dst->sp = ck->spill;
		err = xfsj_spill_grow(dst->sp, &dst->v, &dst->cap, &dst->foff,
				      dst->n, src->n, dst->esz, 64);
		if (err)
			return err;
		xck_account(ck, (int64_t)((dst->cap - ocap) * dst->esz));
	}
	memcpy((char *)dst->v + dst->n * dst->esz, src->v, src->n * src->esz);
	dst->n += src->n;
	return 0;
}

void xck_vec_free(struct xck *ck, struct xck_vec *v)
{
	xck_account(ck, -(int64_t)(v->cap * v->esz));
	xck_vec_release(v);
}

void xck_vec_release(struct xck_vec *v)
{
	xfsj_spill_release(v->sp, &v->v, &v->cap, &v->foff, v->esz);
	v->n = 0;
	v->sp = NULL;
}

void xck_vec_sort(struct xck_vec *v, int (*cmp)(const void *, const void *))
{
	if (v->n < 2)
		return;
	/* No room for sorted runs: sorted in place, past the bound. */
	if (xfsj_spill_sort(v->sp, v->v, v->foff, v->n, v->esz, cmp))
		qsort(v->v, v->n, v->esz, cmp);
}

void xck_vec_sort_keys(struct xck_vec *v, const xfsj_sort_key *keys,
		       size_t nkeys, int (*cmp)(const void *, const void *))
{
	xck_vec_sort_keys_threads(v, keys, nkeys, cmp, 1);
}

void xck_vec_sort_keys_threads(struct xck_vec *v, const xfsj_sort_key *keys,
			       size_t nkeys,
			       int (*cmp)(const void *, const void *),
			       unsigned int threads)
{
	/*
	 * The radix sort's scratch copy is plain RAM: under the bound only
	 * when it fits there.  Otherwise (or without the copy) the spill's
	 * sort: the same order, in more time.
	 */
	if (!xfsj_spill_copy_fits(v->sp, v->foff, (uint64_t)v->n * v->esz) ||
	    xfsj_radix_sort_threads(v->v, v->n, v->esz, keys, nkeys,
				    threads ? threads : 1))
		xck_vec_sort(v, cmp);
}

void *xck_vec_find(const struct xck_vec *v, const void *key,
		   int (*cmp)(const void *, const void *))
{
	return v->n ? bsearch(key, v->v, v->n, v->esz, cmp) : NULL;
}

uint64_t xck_report(struct xck *ck, const struct xfsj_problem *p)
{
	struct xfsj_problem q = *p;
	enum xfsj_sev s = p->def->sev;

	q.id = ck->next_id++;
	q.phase = ck->phase;
	q.scan_ag = ck->phase == XFSJ_CK_AG || ck->phase == XFSJ_CK_INODES ||
		    ck->phase == XFSJ_CK_SPACE ? ck->ag_at : 0;
	if (ck->job) {
		/* A worker's number is its job's own: hand_over renumbers. */
		xck_job_report(ck, &q);
		return q.id;
	}
	ck->res->by_sev[s]++;
	if (s != XFSJ_SEV_INFO)
		ck->res->problems++;
	if (ck->cb && ck->cb->problem)
		ck->cb->problem(ck->cb->arg, &q);
	return q.id;
}

void xck_progress(struct xck *ck, enum xfsj_check_phase ph, uint64_t done,
		  uint64_t total)
{
	if (!ck->job && ck->cb && ck->cb->progress)
		ck->cb->progress(ck->cb->arg, ph, done, total);
}

void xck_progress_in_ag(struct xck *ck, uint64_t done, uint64_t total)
{
	if (total && done <= total)
		xck_progress(ck, ck->ag_ph, (uint64_t)ck->ag_at *
			     XFSJ_CK_AG_STEPS + done * XFSJ_CK_AG_STEPS / total,
			     (uint64_t)ck->agcount * XFSJ_CK_AG_STEPS);
}

int xck_claim(struct xck *ck, uint32_t agno, uint32_t agbno, uint32_t len,
	      uint64_t owner, uint64_t offset)
{
	struct xfsj_rmap_rec r = {
		.startblock = agbno,
		.blockcount = len,
		.owner = owner,
		.offset = offset,
	};

	if (agno >= ck->agcount)
		return 0;
	if (ck->job)
		return xck_job_claim(ck, agno, &r);
	return xck_vec_push(ck, &ck->ags[agno].claims, &r);
}

bool xck_ino_valid(const struct xck *ck, uint64_t ino)
{
	const struct xfsj_sb *sb = ck->sb;
	uint32_t agno = xfsj_ino_agno(sb, ino);
	uint32_t agino = xfsj_ino_agino(sb, ino);
	uint32_t agbno;

	if (agno >= ck->agcount || ino == 0 || ino == XFSJ_NULLFSINO)
		return false;
	if (xfsj_agino_to_ino(sb, agno, agino) != ino)
		return false;
	agbno = agino >> sb->inopblog;
	/* The headers fill the first blocks; none holds inodes. */
	if (agbno == 0 || agbno >= ck->ags[agno].agblocks)
		return false;
	return true;
}

void xck_release_buffers(struct xck *ck)
{
	struct xfsj_cache_stats st;

	xfsj_fs_cache_stats(ck->fs, &st);
	/* A quarter over the bound: each walk of the cache frees as much. */
	if (st.bytes > st.bound && st.bytes - st.bound > st.bound / 4)
		xfsj_fs_release_kept(ck->fs);
}

static int chunk_cmp_key(const void *key, const void *elt)
{
	uint32_t agino = *(const uint32_t *)key;
	const struct xck_chunk *c = elt;

	if (agino < c->rec.startino)
		return -1;
	if (agino >= c->rec.startino + XFSJ_INODES_PER_CHUNK)
		return 1;
	return 0;
}

struct xck_inode *xck_inode_find(struct xck *ck, uint64_t ino,
				 struct xck_chunk **chunk)
{
	uint32_t agno = xfsj_ino_agno(ck->sb, ino);
	uint32_t agino = xfsj_ino_agino(ck->sb, ino);
	struct xck_chunk *c;

	if (chunk)
		*chunk = NULL;
	if (agno >= ck->agcount)
		return NULL;
	c = xck_vec_find(&ck->ags[agno].chunks, &agino, chunk_cmp_key);
	if (!c)
		return NULL;
	if (chunk)
		*chunk = c;
	if (!c->ino)
		return NULL;
	return &c->ino[agino - c->rec.startino];
}

void xck_ag_free(struct xck *ck, struct xck_ag *ag)
{
	size_t i;

	/* The inode records go with the arena (xck_free). */
	for (i = 0; i < ag->chunks.n; i++) {
		struct xck_chunk *c = xck_vec_at(&ag->chunks, i);

		if (c->ino) {
			c->ino = NULL;
			xck_account(ck, -(int64_t)(XFSJ_INODES_PER_CHUNK *
					sizeof(struct xck_inode)));
		}
	}
	xck_ag_index_free(ck, ag);
	xck_vec_free(ck, &ag->claims);
	xck_vec_free(ck, &ag->bno_free);
	xck_vec_free(ck, &ag->cnt_free);
	xck_vec_free(ck, &ag->rmaps);
	xck_vec_free(ck, &ag->refcs);
	xck_vec_free(ck, &ag->chunks);
	xck_vec_free(ck, &ag->fino);
	free(ag->agfl);
}

void xck_ag_init(struct xck *ck, struct xck_ag *ag, uint32_t agno)
{
	memset(ag, 0, sizeof(*ag));
	ag->agno = agno;
	ag->agblocks = xfsj_fs_ag_blocks(ck->fs, agno);
	xck_vec_init(&ag->claims, sizeof(struct xfsj_rmap_rec));
	xck_vec_init(&ag->bno_free, sizeof(struct xfsj_alloc_rec));
	xck_vec_init(&ag->cnt_free, sizeof(struct xfsj_alloc_rec));
	xck_vec_init(&ag->rmaps, sizeof(struct xfsj_rmap_rec));
	xck_vec_init(&ag->refcs, sizeof(struct xfsj_refc_rec));
	xck_vec_init(&ag->chunks, sizeof(struct xck_chunk));
	xck_vec_init(&ag->fino, sizeof(struct xfsj_inobt_rec));
}

/*
 * The per-AG phases, run for every AG before the next phase starts;
 * @prepare (or NULL) once before the first AG; @parallel: the phase
 * looks at its own AG's tables only and may run on threads (parallel.c).
 */
struct ag_phase {
	enum xfsj_check_phase ph;
	int (*prepare)(struct xck *ck);
	int (*fn)(struct xck *ck, struct xck_ag *ag);
	bool parallel;
};

int xck_ag_phase(struct xck *ck, struct xck_ag *ag)
{
	int err = xck_ag_headers(ck, ag);

	return err ? err : xck_ag_btrees(ck, ag);
}

static const struct ag_phase ag_phases[] = {
	{ XFSJ_CK_AG, NULL, xck_ag_phase, true },
	{ XFSJ_CK_INODES, NULL, xck_inodes, true },
	{ XFSJ_CK_SPACE, xck_space_prepare, xck_space, true },
};

/*
 * The phases over the whole filesystem, after the per-AG ones: names
 * (link counts, parent pointers, reachability), then the counters.
 */
int xck_whole_fs_phases(struct xck *ck)
{
	int err;

	ck->phase = XFSJ_CK_NAMES;
	xck_progress(ck, XFSJ_CK_NAMES, 0, 1);
	err = xck_names(ck);
	if (err)
		return err;
	xck_progress(ck, XFSJ_CK_NAMES, 1, 1);
	ck->phase = XFSJ_CK_COUNTERS;
	xck_progress(ck, XFSJ_CK_COUNTERS, 0, 1);
	err = xck_counters(ck);
	if (!err)
		xck_progress(ck, XFSJ_CK_COUNTERS, 1, 1);
	return err;
}

/* Free what a check kept (xck_run with @keep). */
void xck_free(struct xck *ck)
{
	struct xfsj_check_result scratch;
	uint32_t agno;

	if (!ck)
		return;
	/* The run's result may be gone: count the freeing elsewhere. */
	memset(&scratch, 0, sizeof(scratch));
	ck->res = &scratch;
	xck_dir_scratch_free(ck);
	for (agno = 0; ck->ags && agno < ck->agcount; agno++)
		xck_ag_free(ck, &ck->ags[agno]);
	free(ck->ags);
	xck_vec_free(ck, &ck->dirents);
	xck_vec_free(ck, &ck->pptrs);
	xck_vec_free(ck, &ck->lossy);
	xck_vec_free(ck, &ck->holders);
	if (ck->ino_arena) {
		xfsj_spill_arena_free(ck->spill, ck->ino_arena);
		free(ck->ino_arena);
	}
	free(ck);
}

int xck_run(struct xfsj_fs *fs, const struct xfsj_check_opts *o,
	    const struct xfsj_check_cb *cb, struct xfsj_check_result *res,
	    struct xck **keep)
{
	struct xck *ck;
	size_t p;
	uint32_t agno;
	int err;

	memset(res, 0, sizeof(*res));
	if (keep)
		*keep = NULL;
	ck = calloc(1, sizeof(*ck));
	if (!ck)
		return xfsj_fault_set(&res->fault, XFSJ_E_NOMEM, NULL, NULL,
				      0, 0);
	ck->fs = fs;
	ck->sb = xfsj_fs_sb(fs);
	ck->cb = cb;
	ck->res = res;
	if (o && o->cache_bytes)
		xfsj_fs_set_cache_bound(fs, o->cache_bytes);
	if (o) {
		ck->threads = o->threads;
		ck->spill = o->spill;
	}
	ck->ino_arena = malloc(sizeof(*ck->ino_arena));
	if (!ck->ino_arena) {
		free(ck);
		return xfsj_fault_set(&res->fault, XFSJ_E_NOMEM, NULL, NULL,
				      0, 0);
	}
	xfsj_spill_arena_init(ck->ino_arena);
	xck_vec_init(&ck->dirents, sizeof(struct xck_dirent));
	xck_vec_init(&ck->pptrs, sizeof(struct xck_pptr));
	xck_vec_init(&ck->lossy, sizeof(struct xck_lossy));
	xck_vec_init(&ck->holders, sizeof(struct xck_lossy_holder));

	xck_progress(ck, XFSJ_CK_SB, 0, 1);
	err = xck_sb(ck);
	if (err || ck->stop)
		goto out;
	xck_progress(ck, XFSJ_CK_SB, 1, 1);
	if (o && o->sb_only)
		goto out;

	ck->ags = calloc(ck->sb->agcount, sizeof(*ck->ags));
	if (!ck->ags) {
		err = -XFSJ_E_NOMEM;
		goto out;
	}
	ck->agcount = ck->sb->agcount;
	if (o && o->ag_stride) {
		uint32_t t = ck->agcount / o->ag_stride +
			     !!(ck->agcount % o->ag_stride);

		if (!o->threads || t < o->threads)
			ck->threads = t;
	}
	xck_account(ck, (int64_t)ck->agcount * sizeof(*ck->ags));
	for (agno = 0; agno < ck->agcount; agno++)
		xck_ag_init(ck, &ck->ags[agno], agno);

	for (p = 0; p < sizeof(ag_phases) / sizeof(ag_phases[0]); p++) {
		ck->ag_ph = ag_phases[p].ph;
		ck->phase = ck->ag_ph;
		agno = 0;
		if (ag_phases[p].prepare) {
			err = ag_phases[p].prepare(ck);
			if (err)
				goto out;
		}
		if (ag_phases[p].parallel && ck->threads > 1 &&
		    ck->agcount > 1) {
			err = xck_ag_phase_parallel(ck, ag_phases[p].fn,
						    ck->threads);
			if (err < 0)
				goto out;
			/* 1: no thread to be had; the loop below scans. */
			agno = err ? 0 : ck->agcount;
			err = 0;
		}
		for (; agno < ck->agcount; agno++) {
			ck->ag_at = agno;
			xck_progress_in_ag(ck, 0, 1);
			err = ag_phases[p].fn(ck, &ck->ags[agno]);
			if (err)
				goto out;
			/* Nothing of this phase needs its buffers kept. */
			xfsj_fs_release_kept(fs);
		}
		xck_progress(ck, ag_phases[p].ph,
			     (uint64_t)ck->agcount * XFSJ_CK_AG_STEPS,
			     (uint64_t)ck->agcount * XFSJ_CK_AG_STEPS);
	}

	err = xck_whole_fs_phases(ck);
out:
	if (err && !res->fault.err)
		res->fault.err = err;
	/* The callbacks are the caller's: none after the run. */
	ck->cb = NULL;
	if (!err && keep)
		*keep = ck;
	else
		xck_free(ck);
	return err;
}

int xfsj_check(struct xfsj_fs *fs, const struct xfsj_check_opts *o,
	       const struct xfsj_check_cb *cb, struct xfsj_check_result *res)
{
	return xck_run(fs, o, cb, res, NULL);
}
