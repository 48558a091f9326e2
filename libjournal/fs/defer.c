/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Deferred work (defer.h).
 *
 * The kernel keeps deferred work as a list of "pending" groups, one work
 * type each; new work of a type joins the last group of that type.  It
 * finishes the first group whole, and whatever finishing it queued goes in
 * front of the rest of the list, so a chain of consequences (refcount to
 * zero, then the free) completes before unrelated work starts.  We keep
 * the same order: the front run of items of one kind is finished
 * together, and the items it queued go to the front in their order.
 */
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"
#include "fs/attri.h"
#include "fs/bmap.h"
#include "fs/defer.h"

struct qitem {
	struct xfsj_work w;
};

struct xfsj_defer_q {
	struct qitem *v;	/* v[head..n) is the queue */
	size_t head, n, cap;
	/* Work queued while a group is being finished. */
	struct qitem *fresh;
	size_t nfresh, capfresh;
	bool finishing;
	uint64_t done;
};

void xfsj_defer_q_free(struct xfsj_defer_q *q)
{
	if (!q)
		return;
	free(q->v);
	free(q->fresh);
	free(q);
}

static struct xfsj_defer_q *queue(struct xfsj_fs *fs)
{
	struct xfsj_defer_q **qp = xfsj_fs_defer_q(fs);

	if (!*qp)
		*qp = calloc(1, sizeof(**qp));
	return *qp;
}

static int push(struct qitem **v, size_t *n, size_t *cap,
		const struct xfsj_work *w)
{
	if (xfsj_grow(v, cap, *n, 1, sizeof(**v), 64))
		return -XFSJ_E_NOMEM;
	(*v)[(*n)++].w = *w;
	return 0;
}

int xfsj_defer_add(struct xfsj_fs *fs, const struct xfsj_work *w)
{
	struct xfsj_defer_q *q = queue(fs);

	if (!q)
		return -XFSJ_E_NOMEM;
	if (w->kind > XFSJ_W_XMI || (w->kind != XFSJ_W_XMI && !w->len))
		return -XFSJ_E_INVAL;
	if (q->finishing)
		return push(&q->fresh, &q->nfresh, &q->capfresh, w);
	return push(&q->v, &q->n, &q->cap, w);
}

static int finish_one(struct xfsj_fs *fs, const struct xfsj_work *w,
		      struct xfsj_fault *f)
{
	switch (w->kind) {
	case XFSJ_W_FREE:
		return xfsj_free_finish(fs, w, f);
	case XFSJ_W_RMAP:
		return xfsj_rmap_finish(fs, w, f);
	case XFSJ_W_REFC:
		return xfsj_refcount_finish(fs, w, f);
	case XFSJ_W_BMAP:
		return xfsj_bmap_finish(fs, w, f);
	case XFSJ_W_XMI:
		return xfsj_xmi_finish(fs, w, f);
	}
	return -XFSJ_E_INVAL;
}

/*
 * How many items of a kind one group (one logged intent) holds, as the
 * kernel's per-type limits: 16 extents per EFI, RUI and CUI, one
 * mapping per BUI, one exchange per XMI.  Finishing a group's items
 * before what they queue, a BUI's reverse-mapping work runs before the
 * next BUI.
 */
static size_t group_max(enum xfsj_work_kind kind)
{
	return kind == XFSJ_W_BMAP || kind == XFSJ_W_XMI ? 1 : 16;
}

/*
 * Put the fresh items in front of v[head..n), in the order they were
 * queued: like the kernel, consecutive items of one kind form one group,
 * and a kind that comes back after another starts a new group.
 */
static int splice_fresh(struct xfsj_defer_q *q)
{
	size_t rest = q->n - q->head, total = rest + q->nfresh;
	struct qitem *nv;

	if (!q->nfresh)
		return 0;
	nv = malloc(total * sizeof(*nv));
	if (!nv)
		return -XFSJ_E_NOMEM;
	memcpy(nv, q->fresh, q->nfresh * sizeof(*nv));
	memcpy(nv + q->nfresh, q->v + q->head, rest * sizeof(*nv));
	free(q->v);
	q->v = nv;
	q->head = 0;
	q->n = q->cap = total;
	q->nfresh = 0;
	return 0;
}

int xfsj_defer_finish(struct xfsj_fs *fs, struct xfsj_fault *f)
{
	struct xfsj_defer_q *q = queue(fs);
	int err = 0;

	if (!q)
		return -XFSJ_E_NOMEM;
	if (q->finishing)	/* a finisher must queue, not finish */
		return -XFSJ_E_INVAL;
	while (q->head < q->n) {
		enum xfsj_work_kind kind = q->v[q->head].w.kind;

		q->finishing = true;
		size_t left = group_max(kind);

		/* The front group: consecutive items of one kind. */
		while (q->head < q->n && q->v[q->head].w.kind == kind &&
		       left--) {
			struct xfsj_work w = q->v[q->head++].w;

			err = finish_one(fs, &w, f);
			if (err)
				break;
			q->done++;
		}
		q->finishing = false;
		if (err)
			break;
		err = splice_fresh(q);
		if (err)
			break;
	}
	if (err) {
		/* The overlay is thrown away on error; so is the queue. */
		q->head = q->n = q->nfresh = 0;
		q->finishing = false;
		return err;
	}
	q->head = q->n = 0;
	return 0;
}

/*
 * Recovery runs each recovered intent's own work as one step and keeps
 * what that step queued for later (the kernel "captures" it and finishes
 * the captured chains only after every intent has been started).
 */
struct xfsj_defer_chain {
	struct qitem *v;
	size_t n;
};

int xfsj_defer_finish_capture(struct xfsj_fs *fs,
			      struct xfsj_defer_chain **chain,
			      struct xfsj_fault *f)
{
	struct xfsj_defer_q *q = queue(fs);
	struct xfsj_defer_chain *c;
	int err = 0;

	*chain = NULL;
	if (!q)
		return -XFSJ_E_NOMEM;
	if (q->finishing)
		return -XFSJ_E_INVAL;
	q->finishing = true;
	while (q->head < q->n && !err) {
		struct xfsj_work w = q->v[q->head++].w;

		err = finish_one(fs, &w, f);
		if (!err)
			q->done++;
	}
	q->finishing = false;
	q->head = q->n = 0;
	if (err) {
		q->nfresh = 0;
		return err;
	}
	if (!q->nfresh)
		return 0;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -XFSJ_E_NOMEM;
	c->v = q->fresh;
	c->n = q->nfresh;
	q->fresh = NULL;
	q->nfresh = q->capfresh = 0;
	*chain = c;
	return 0;
}

int xfsj_defer_resume(struct xfsj_fs *fs, struct xfsj_defer_chain *chain,
		      struct xfsj_fault *f)
{
	struct xfsj_defer_q *q = queue(fs);
	int err = 0;

	if (!chain)
		return 0;
	if (!q || q->finishing || q->head < q->n) {
		xfsj_defer_chain_free(chain);
		return q ? -XFSJ_E_INVAL : -XFSJ_E_NOMEM;
	}
	/* Same grouping as work queued while finishing. */
	q->finishing = true;
	for (size_t i = 0; i < chain->n && !err; i++)
		err = push(&q->fresh, &q->nfresh, &q->capfresh, &chain->v[i].w);
	q->finishing = false;
	xfsj_defer_chain_free(chain);
	if (!err)
		err = splice_fresh(q);
	if (!err)
		err = xfsj_defer_finish(fs, f);
	return err;
}

void xfsj_defer_chain_free(struct xfsj_defer_chain *chain)
{
	if (!chain)
		return;
	free(chain->v);
	free(chain);
}

uint64_t xfsj_defer_done(struct xfsj_fs *fs)
{
	struct xfsj_defer_q *q = queue(fs);

	return q ? q->done : 0;
}
