/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The per-AG phases that look at one AG only (the AG headers and btrees,
 * the inodes, the space) on several threads, one AG at a time each, with
 * the same results as one thread (xfsj_check_opts.threads).
 *
 * A worker runs the phase on AG a (the AG's headers and btrees, which
 * fill its own tables; its inodes, xck_inodes) through its own copy of the
 * check: its own filesystem handle over the same overlay (its own buffer
 * cache, a share of the bound), its own counters, and a job that keeps
 * what a sequential scan would have handed over to the shared state at
 * once: the problems (copied, names and all), the claims on any AG's
 * blocks, the directory entries and parent pointers, the space phase's
 * totals.  The AG's own
 * tables and inode states are its own: no other AG's run touches them.  The main thread
 * takes the jobs in AG order as they finish and hands over what each
 * kept, as the sequential scan would have: reports in the same order,
 * claims appended to each AG's list in the same order, the entries after
 * the entries of the AGs before.  So the problems, the JSON, the tables a
 * repair keeps and the work counters do not depend on the thread count;
 * only the peak of the tables' bytes does (jobs finished ahead of their
 * turn are held until it comes).
 *
 * The AGs' lookup indexes (ag_index.c), which a scan builds when it first
 * needs them, are built under the check's lock while workers run.  A
 * failing AG stops the hand-over there, as it stops a sequential scan:
 * what later AGs found is dropped.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "check/check_priv.h"

/* A claim on any AG's blocks, as xck_claim would have pushed it. */
struct job_claim {
	uint32_t agno;
	uint32_t pad;
	struct xfsj_rmap_rec r;
};

struct xck_job {
	int err;
	bool done;
	struct xfsj_check_result res;	/* the counters the scan added */
	struct xck_vec claims;		/* struct job_claim */
	struct xck_vec probs;		/* struct xfsj_problem, strings owned */
	struct xck_vec dirents, pptrs;
	struct xck_vec lossy;		/* struct xck_lossy, ids the job's */
	int64_t kept_bytes;		/* the AG's tables grew by this much */
	/* The space phase's totals of the AG (space_counters.c). */
	uint64_t icount, ifree, fdblocks;
	unsigned int totals_unknown;
};

struct pool {
	/*
	 * The check as it stood when the workers started, which each copies:
	 * the main thread changes *ck while it hands over.
	 */
	struct xck proto;
	int (*fn)(struct xck *ck, struct xck_ag *ag);	/* the phase */
	struct xck_job *jobs;
	uint32_t next;			/* the next AG to take */
	bool stop;			/* an AG failed: take no more */
	uint64_t cache_bound;		/* each worker's */
	pthread_mutex_t lock;		/* next, stop, done */
	pthread_cond_t cond;		/* a job is done */
};

/* ---- in a worker: what the hooks of check.c keep ---- */

static char *dup_bytes(const char *s, size_t n)
{
	char *d = malloc(n + 1);

	if (d) {
		memcpy(d, s, n);
		d[n] = 0;
	}
	return d;
}

void xck_job_report(struct xck *ck, const struct xfsj_problem *p)
{
	struct xck_job *job = ck->job;
	struct xfsj_problem c = *p;

	if (job->err)
		return;
	c.field = p->field ? dup_bytes(p->field, strlen(p->field)) : NULL;
	c.name = p->name ? dup_bytes(p->name, p->namelen) : NULL;
	if ((p->field && !c.field) || (p->name && !c.name) ||
	    xck_vec_push(ck, &job->probs, &c)) {
		free((char *)c.field);
		free((char *)c.name);
		job->err = -XFSJ_E_NOMEM;
	}
}

int xck_job_claim(struct xck *ck, uint32_t agno,
		  const struct xfsj_rmap_rec *r)
{
	struct job_claim c = { .agno = agno, .r = *r };

	return xck_vec_push(ck, &ck->job->claims, &c);
}

static void job_free(struct xck_job *job)
{
	for (size_t i = 0; i < job->probs.n; i++) {
		struct xfsj_problem *p = xck_vec_at(&job->probs, i);

		free((char *)p->field);
		free((char *)p->name);
	}
	xck_vec_release(&job->probs);
	xck_vec_release(&job->claims);
	xck_vec_release(&job->dirents);
	xck_vec_release(&job->pptrs);
	xck_vec_release(&job->lossy);
	memset(&job->probs, 0, sizeof(job->probs));
	memset(&job->claims, 0, sizeof(job->claims));
	memset(&job->dirents, 0, sizeof(job->dirents));
	memset(&job->pptrs, 0, sizeof(job->pptrs));
	memset(&job->lossy, 0, sizeof(job->lossy));
}

static size_t vec_bytes(const struct xck_vec *v)
{
	return v->cap * v->esz;
}

/* The phase on one AG in the worker's copy @wk of the check. */
static void run_job(struct pool *pl, struct xck *wk, uint32_t agno)
{
	struct xck_job *job = &pl->jobs[agno];
	int err;

	wk->job = job;
	wk->res = &job->res;
	wk->state_bytes = 0;
	xck_vec_init(&job->claims, sizeof(struct job_claim));
	xck_vec_init(&job->probs, sizeof(struct xfsj_problem));
	xck_vec_init(&wk->dirents, sizeof(struct xck_dirent));
	xck_vec_init(&wk->pptrs, sizeof(struct xck_pptr));
	xck_vec_init(&wk->lossy, sizeof(struct xck_lossy));
	wk->next_id = 0;	/* the job's problems numbered from 0 */
	wk->ag_at = agno;	/* (their xfsj_problem.scan_ag) */
	wk->icount = wk->ifree = wk->fdblocks = 0;
	wk->totals_unknown = 0;
	err = pl->fn(wk, &wk->ags[agno]);
	job->icount = wk->icount;
	job->ifree = wk->ifree;
	job->fdblocks = wk->fdblocks;
	job->totals_unknown = wk->totals_unknown;
	xfsj_fs_release_kept(wk->fs);
	job->dirents = wk->dirents;
	job->pptrs = wk->pptrs;
	job->lossy = wk->lossy;
	if (!job->err)
		job->err = err;
	/* What stays with the AG: not the lists handed over. */
	job->kept_bytes = (int64_t)wk->state_bytes -
		(int64_t)(vec_bytes(&job->claims) + vec_bytes(&job->probs) +
			  vec_bytes(&job->dirents) + vec_bytes(&job->pptrs) +
			  vec_bytes(&job->lossy));
}

static void *worker(void *arg)
{
	struct pool *pl = arg;
	struct xck wk = pl->proto;
	struct xfsj_fs *fs;
	int err;

	err = xfsj_fs_open(xfsj_fs_overlay(pl->proto.fs), pl->proto.sb,
			   xfsj_fs_lsn(pl->proto.fs), &fs);
	if (!err)
		xfsj_fs_set_cache_bound(fs, pl->cache_bound);
	wk.fs = fs;
	wk.cb = NULL;
	wk.dir_scratch.kept = false;	/* the proto's is the main thread's */
	for (;;) {
		uint32_t agno;

		pthread_mutex_lock(&pl->lock);
		if (pl->stop || pl->next >= pl->proto.agcount) {
			pthread_mutex_unlock(&pl->lock);
			break;
		}
		agno = pl->next++;
		pthread_mutex_unlock(&pl->lock);
		if (err)
			pl->jobs[agno].err = err;
		else
			run_job(pl, &wk, agno);
		pthread_mutex_lock(&pl->lock);
		pl->jobs[agno].done = true;
		if (pl->jobs[agno].err)
			pl->stop = true;
		pthread_cond_broadcast(&pl->cond);
		pthread_mutex_unlock(&pl->lock);
	}
	xck_dir_scratch_free(&wk);
	xfsj_fs_close(fs);
	return NULL;
}

/* ---- in the main thread: hand over in AG order ---- */

static int hand_over(struct xck *ck, struct xck_job *job)
{
	struct xfsj_check_result *r = ck->res;
	uint64_t base = ck->next_id;
	int err = 0;

	for (size_t i = 0; i < job->probs.n; i++) {
		struct xfsj_problem p = *(struct xfsj_problem *)
			xck_vec_at(&job->probs, i);

		/* A cause the job found is one of its own problems. */
		if (p.has & XFSJ_PF_CAUSE)
			p.cause += base;
		xck_report(ck, &p);
	}
	/*
	 * A worker may be building an AG's index of metadata claims from
	 * that AG's claims meanwhile (ag_index.c, under the same lock):
	 * the list must not move under it.  (What is appended here, claims
	 * of inodes, is not indexed there.)
	 */
	pthread_mutex_lock(ck->ix_lock);
	for (size_t i = 0; i < job->claims.n && !err; i++) {
		const struct job_claim *c = xck_vec_at(&job->claims, i);

		err = xck_vec_push(ck, &ck->ags[c->agno].claims, &c->r);
	}
	pthread_mutex_unlock(ck->ix_lock);
	if (!err)
		err = xck_vec_append(ck, &ck->dirents, &job->dirents);
	if (!err)
		err = xck_vec_append(ck, &ck->pptrs, &job->pptrs);
	/* The job numbered its problems from 0: now they follow base. */
	for (size_t i = 0; i < job->lossy.n && !err; i++) {
		const struct xck_lossy *l = xck_vec_at(&job->lossy, i);

		err = xck_note_lossy(ck, l->dir, base + l->id);
	}
	xck_account(ck, job->kept_bytes);
	ck->icount += job->icount;
	ck->ifree += job->ifree;
	ck->fdblocks += job->fdblocks;
	ck->totals_unknown |= job->totals_unknown;
	r->inodes += job->res.inodes;
	r->dirs += job->res.dirs;
	r->attr_forks += job->res.attr_forks;
	r->extents += job->res.extents;
	r->btree_blocks += job->res.btree_blocks;
	for (int w = 0; w < XFSJ_WK__N; w++)
		r->work[w] += job->res.work[w];
	if (!err && job->err) {
		err = job->err;
		if (job->res.fault.err)
			r->fault = job->res.fault;
	}
	return err;
}

int xck_ag_phase_parallel(struct xck *ck,
			  int (*fn)(struct xck *ck, struct xck_ag *ag),
			  unsigned int threads)
{
	struct xfsj_cache_stats st;
	pthread_mutex_t ix_lock = PTHREAD_MUTEX_INITIALIZER;
	pthread_t *tid;
	struct pool pl = {
		.fn = fn,
		.lock = PTHREAD_MUTEX_INITIALIZER,
		.cond = PTHREAD_COND_INITIALIZER,
	};
	unsigned int started = 0;
	uint32_t agno;
	int err = 0;

	if (threads > ck->agcount)
		threads = ck->agcount;
	xfsj_fs_cache_stats(ck->fs, &st);
	/* The bound is shared: the caller's cache gives its share up. */
	pl.cache_bound = st.bound / (threads + 1);
	xfsj_fs_set_cache_bound(ck->fs, pl.cache_bound);
	pl.jobs = calloc(ck->agcount, sizeof(*pl.jobs));
	tid = calloc(threads, sizeof(*tid));
	if (!pl.jobs || !tid) {
		free(pl.jobs);
		free(tid);
		return -XFSJ_E_NOMEM;
	}
	ck->ix_lock = &ix_lock;
	pl.proto = *ck;
	for (; started < threads; started++)
		if (pthread_create(&tid[started], NULL, worker, &pl))
			break;
	if (!started) {
		/* No thread to be had: the caller scans on its own. */
		ck->ix_lock = NULL;
		xfsj_fs_set_cache_bound(ck->fs, st.bound);
		free(pl.jobs);
		free(tid);
		return 1;
	}
	for (agno = 0; agno < ck->agcount; agno++) {
		struct xck_job *job = &pl.jobs[agno];

		pthread_mutex_lock(&pl.lock);
		while (!job->done && !(pl.stop && agno >= pl.next))
			pthread_cond_wait(&pl.cond, &pl.lock);
		pthread_mutex_unlock(&pl.lock);
		if (!job->done)
			break;
		ck->ag_at = agno;
		xck_progress_in_ag(ck, 0, 1);
		if (!err)
			err = hand_over(ck, job);
		job_free(job);
		if (err)
			break;
	}
	pthread_mutex_lock(&pl.lock);
	pl.stop = true;
	pthread_mutex_unlock(&pl.lock);
	for (unsigned int i = 0; i < started; i++)
		pthread_join(tid[i], NULL);
	ck->ix_lock = NULL;
	xfsj_fs_set_cache_bound(ck->fs, st.bound);
	for (agno = 0; agno < ck->agcount; agno++)
		job_free(&pl.jobs[agno]);
	free(pl.jobs);
	free(tid);
	return err;
}
