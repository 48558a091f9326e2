/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Root causes: one damaged directory block makes a problem of every child
 * it named (a link count one short, a parent pointer with no entry, an
 * inode no entry reaches).  The directory checker notes each directory
 * that lost entries with the problem that said so (xck_note_lossy); the
 * namespace checks ask here whether such a directory explains what they
 * found, and if so the problem names that one as its cause, so that a
 * tool can say the cause once and count what follows from it.
 *
 * A consequence is only tied to a cause the tables show: the child's
 * parent pointer names the directory, a subdirectory's ".." names it,
 * the directory itself (its "."), or the parent of a directory whose ".."
 * was lost.  A file without parent pointers that a lost block named
 * cannot be told from any other unnamed file: it stays a problem of its
 * own.
 */
#include "check/check_priv.h"

static int lossy_cmp(const void *key, const void *elt)
{
	uint64_t dir = *(const uint64_t *)key;
	const struct xck_lossy *l = elt;

	return dir < l->dir ? -1 : dir > l->dir;
}

int xck_note_lossy(struct xck *ck, uint64_t dir, uint64_t id)
{
	struct xck_lossy e = { .dir = dir, .id = id }, *v;
	size_t i;
	int err;

	if (xck_vec_find(&ck->lossy, &dir, lossy_cmp))
		return 0;	/* the first problem of it stays the cause */
	err = xck_vec_push(ck, &ck->lossy, &e);
	if (err)
		return err;
	/* Kept sorted by directory: the inode scan mostly goes upward. */
	v = ck->lossy.v;
	for (i = ck->lossy.n - 1; i > 0 && v[i - 1].dir > v[i].dir; i--) {
		e = v[i - 1];
		v[i - 1] = v[i];
		v[i] = e;
	}
	return 0;
}

/* The problem that says @dir lost entries: true and *@id, or false. */
static bool lossy(const struct xck *ck, uint64_t dir, uint64_t *id)
{
	const struct xck_lossy *l;

	if (dir == XFSJ_NULLFSINO)
		return false;
	l = xck_vec_find(&ck->lossy, &dir, lossy_cmp);
	if (l)
		*id = l->id;
	return l != NULL;
}

/* Index of the first element of sorted @v whose 64-bit key at @koff is
 * not below @key. */
static size_t lower_bound(const struct xck_vec *v, size_t koff, uint64_t key)
{
	size_t lo = 0, hi = v->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t k = *(const uint64_t *)((const char *)xck_vec_at(v, mid) +
						 koff);

		if (k < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* A parent pointer of @ino (ck->pptrs sorted by child) to a lossy
 * directory? */
static bool pptr_to_lossy(const struct xck *ck, uint64_t ino, uint64_t *id)
{
	size_t i = lower_bound(&ck->pptrs, offsetof(struct xck_pptr, child),
			       ino);

	for (; i < ck->pptrs.n; i++) {
		const struct xck_pptr *p = xck_vec_at(&ck->pptrs, i);

		if (p->child != ino)
			break;
		if (lossy(ck, p->parent, id))
			return true;
	}
	return false;
}

static int holder_cmp(const void *a, const void *b)
{
	const struct xck_lossy_holder *x = a, *y = b;

	if (x->holder != y->holder)
		return x->holder < y->holder ? -1 : 1;
	return x->dir < y->dir ? -1 : x->dir > y->dir;
}

/*
 * The index of the directories holding the entry of a lossy directory,
 * by holder (the lowest lossy directory first), made once when first
 * asked: the names pass asks after the scan, with ck->dirents sorted by
 * child.  (Out of memory, the index stays short: fewer causes tied.)
 */
static void make_holders(struct xck *ck)
{
	size_t k, i;

	ck->holders_made = true;
	for (k = 0; k < ck->lossy.n; k++) {
		const struct xck_lossy *l = xck_vec_at(&ck->lossy, k);

		i = lower_bound(&ck->dirents,
				offsetof(struct xck_dirent, child), l->dir);
		for (; i < ck->dirents.n; i++) {
			const struct xck_dirent *e = xck_vec_at(&ck->dirents,
								i);
			struct xck_lossy_holder h = {
				.holder = e->dir, .dir = l->dir, .id = l->id,
			};

			if (e->child != l->dir)
				break;
			if (e->dir != e->child &&
			    xck_vec_push(ck, &ck->holders, &h))
				goto sort;
		}
	}
sort:
	xck_vec_sort(&ck->holders, holder_cmp);
}

/*
 * Is directory @ino the one holding the entry of a lossy directory (whose
 * ".." naming @ino was lost)?  A search of the index: the first one
 * found by holder is the lowest lossy directory.
 */
static bool holds_lossy(struct xck *ck, uint64_t ino, uint64_t *id)
{
	const struct xck_lossy_holder *h;
	size_t i;

	if (!ck->holders_made)
		make_holders(ck);
	i = lower_bound(&ck->holders,
			offsetof(struct xck_lossy_holder, holder), ino);
	if (i == ck->holders.n)
		return false;
	h = xck_vec_at(&ck->holders, i);
	if (h->holder != ino)
		return false;
	*id = h->id;
	return true;
}

struct xfsj_problem *xck_cause(struct xck *ck, enum xck_conseq kind,
			       struct xfsj_problem *p)
{
	const struct xck_inode *st;
	bool dir, found = false;
	uint64_t id = 0;

	if (!ck->lossy.n)
		return p;
	if (kind == XCK_CQ_PPTR) {
		found = lossy(ck, p->off, &id);
		goto out;
	}
	st = xck_inode_find(ck, p->ino, NULL);
	if (!st)
		return p;
	dir = st->ftype == XFSJ_FT_DIR;
	if (kind == XCK_CQ_NLINK) {
		/* More entries than its links: not a loss. */
		if (st->refs >= st->nlink)
			return p;
		found = (dir && lossy(ck, p->ino, &id)) ||
			pptr_to_lossy(ck, p->ino, &id) ||
			(dir && lossy(ck, st->parent, &id)) ||
			(dir && holds_lossy(ck, p->ino, &id));
	} else {
		found = pptr_to_lossy(ck, p->ino, &id) ||
			(dir && lossy(ck, st->parent, &id));
	}
out:
	if (found) {
		p->has |= XFSJ_PF_CAUSE;
		p->cause = id;
	}
	return p;
}
