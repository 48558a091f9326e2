/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The reconnect pass's lookups in the check's directory entries, each in
 * logarithmic time (a scan of the whole table per orphan made a
 * filesystem of thousands of orphans quadratic):
 *
 *   - a directory's run: the table sorted by directory (names.c leaves
 *     it so; sorted here when it is not);
 *   - does a directory hold a name (its hash and length): the names of
 *     each directory asked, copied out of its run and sorted once (but
 *     those naming a free inode: dirent.target's fix removes them);
 *   - is a directory reached from the root: the check's reachability
 *     (XCK_I_REACHED) also marks what hangs from each inode it reports
 *     cut off, so those subtrees are walked again from the inodes the
 *     reconnect problems name;
 *   - who names an inode, for the loops: the entries of the directories
 *     the root does not reach (a reached directory's children are
 *     reached), sorted by the inode they name.
 */
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"
#include "core/u64set.h"
#include "fs/attr.h"
#include "repair/reconnect.h"

struct xrp_dix_run {
	uint64_t dir;
	size_t off, n;		/* its names: keys[off, off + n), sorted */
};

struct xrp_dix_named {
	uint64_t child;
	uint64_t dir;
};

static uint64_t key_dir(const void *p)
{
	return ((const struct xck_dirent *)p)->dir;
}

static uint64_t key_run(const void *p)
{
	return ((const struct xrp_dix_run *)p)->dir;
}

static uint64_t key_child(const void *p)
{
	return ((const struct xrp_dix_named *)p)->child;
}

size_t xrp_lower_bound(const void *base, size_t n, size_t esz,
		       xfsj_sort_key key, uint64_t want)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (key((const char *)base + mid * esz) < want)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int cmp_dir(const void *pa, const void *pb)
{
	const struct xck_dirent *a = pa, *b = pb;

	return a->dir < b->dir ? -1 : a->dir > b->dir;
}

static int cmp_named(const void *pa, const void *pb)
{
	const struct xrp_dix_named *a = pa, *b = pb;

	if (a->child != b->child)
		return a->child < b->child ? -1 : 1;
	return a->dir < b->dir ? -1 : a->dir > b->dir;
}

static int cmp_u64(const void *pa, const void *pb)
{
	uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;

	return a < b ? -1 : a > b;
}

bool xrp_dix_dotish(const struct xrp_dix *ix, const struct xck_dirent *e)
{
	return (e->namelen == 1 && e->namehash == ix->hash_dot) ||
	       (e->namelen == 2 && e->namehash == ix->hash_dotdot);
}

bool xrp_dix_rooted(const struct xrp_dix *ix, uint64_t ino)
{
	const struct xck_inode *st = xck_inode_find(ix->rp->ck, ino, NULL);

	return st && (st->flags & XCK_I_REACHED) &&
	       !xfsj_u64set_has(&ix->cut, ino);
}

/* Everything below @top (the check's entries) into ix->cut. */
static int cut_off(struct xrp_dix *ix, uint64_t top, uint64_t **q,
		   size_t *capq)
{
	size_t nq = 0, at = 0;
	int err = xfsj_u64set_add(&ix->cut, top);

	if (err)
		return err < 0 ? err : 0;
	if (xfsj_grow(q, capq, nq, 1, sizeof(**q), 16))
		return -XFSJ_E_NOMEM;
	(*q)[nq++] = top;
	while (at < nq) {
		uint64_t d = (*q)[at++];
		size_t i, end;

		for (xrp_dix_run(ix, d, &i, &end); i < end; i++) {
			if (xrp_dix_dotish(ix, &ix->de[i]) ||
			    !xrp_rc_dir_inuse(ix->rp, ix->de[i].child))
				continue;
			err = xfsj_u64set_add(&ix->cut, ix->de[i].child);
			if (err < 0)
				return err;
			if (err)
				continue;
			if (xfsj_grow(q, capq, nq, 1, sizeof(**q), 16))
				return -XFSJ_E_NOMEM;
			(*q)[nq++] = ix->de[i].child;
		}
	}
	return 0;
}

int xrp_dix_build(struct xrp *rp, struct xrp_dix *ix)
{
	static const xfsj_sort_key keys[] = { key_dir };
	struct xck_vec *v = &rp->ck->dirents;
	const struct xck_dirent *de;
	size_t i, n = 0;
	bool sorted = true, out = false;

	memset(ix, 0, sizeof(*ix));
	ix->rp = rp;
	ix->hash_dot = xfsj_da_hashname((const uint8_t *)".", 1);
	ix->hash_dotdot = xfsj_da_hashname((const uint8_t *)"..", 2);
	de = v->v;
	for (i = 1; i < v->n && sorted; i++)
		sorted = de[i - 1].dir <= de[i].dir;
	if (!sorted)
		xck_vec_sort_keys(v, keys, 1, cmp_dir);
	ix->de = de = v->v;
	ix->n = v->n;
	for (struct xrp_prob *pr = rp->probs;
	     pr < rp->probs + rp->nprobs; pr++) {
		uint64_t *q = NULL;
		size_t capq = 0;
		int err;

		if (!xrp_names(pr, XFSJ_H_RECONNECT) ||
		    !(pr->p.has & XFSJ_PF_INO))
			continue;
		err = cut_off(ix, pr->p.ino, &q, &capq);
		free(q);
		if (err)
			return err;
	}
	/* The unreached directories' entries, by the inode they name. */
	for (i = 0; i < ix->n; i++) {
		if (!i || de[i].dir != de[i - 1].dir)
			out = !xrp_dix_rooted(ix, de[i].dir);
		n += out && !xrp_dix_dotish(ix, &de[i]);
	}
	ix->by_child = calloc(n ? n : 1, sizeof(*ix->by_child));
	if (!ix->by_child)
		return -XFSJ_E_NOMEM;
	for (i = 0; i < ix->n; i++) {
		if (!i || de[i].dir != de[i - 1].dir)
			out = !xrp_dix_rooted(ix, de[i].dir);
		if (out && !xrp_dix_dotish(ix, &de[i]))
			ix->by_child[ix->nby++] = (struct xrp_dix_named){
				de[i].child, de[i].dir };
	}
	qsort(ix->by_child, ix->nby, sizeof(*ix->by_child), cmp_named);
	return 0;
}

void xrp_dix_free(struct xrp_dix *ix)
{
	free(ix->runs);
	free(ix->keys);
	free(ix->by_child);
	xfsj_u64set_free(&ix->cut);
	memset(ix, 0, sizeof(*ix));
}

void xrp_dix_run(const struct xrp_dix *ix, uint64_t dir, size_t *first,
		 size_t *end)
{
	size_t hi = xrp_lower_bound(ix->de, ix->n, sizeof(*ix->de), key_dir,
				    dir);

	*first = hi;
	while (hi < ix->n && ix->de[hi].dir == dir)
		hi++;
	*end = hi;
}

/* Directory @dir's names copied out and sorted, the first time asked. */
static int names_of(struct xrp_dix *ix, uint64_t dir,
		    const struct xrp_dix_run **out)
{
	size_t at = xrp_lower_bound(ix->runs, ix->nruns, sizeof(*ix->runs),
				    key_run, dir), first, end;
	struct xrp_dix_run *r;

	if (at < ix->nruns && ix->runs[at].dir == dir) {
		*out = &ix->runs[at];
		return 0;
	}
	xrp_dix_run(ix, dir, &first, &end);
	if (xfsj_grow(&ix->runs, &ix->capruns, ix->nruns, 1,
		      sizeof(*ix->runs), 16) ||
	    xfsj_grow(&ix->keys, &ix->capkeys, ix->nkeys, end - first,
		      sizeof(*ix->keys), 64))
		return -XFSJ_E_NOMEM;
	r = &ix->runs[at];
	memmove(r + 1, r, (ix->nruns - at) * sizeof(*r));
	ix->nruns++;
	*r = (struct xrp_dix_run){ dir, ix->nkeys, 0 };
	/* An entry naming a free inode is the entry fixes' to remove (this
	 * round, before the reconnect): its name is not held. */
	for (size_t i = first; i < end; i++)
		if (xrp_ino_ftype(ix->rp, ix->de[i].child))
			ix->keys[ix->nkeys++] =
				(uint64_t)ix->de[i].namehash << 8 |
				ix->de[i].namelen;
	r->n = ix->nkeys - r->off;
	qsort(ix->keys + r->off, r->n, sizeof(*ix->keys), cmp_u64);
	*out = r;
	return 0;
}

int xrp_dix_holds(struct xrp_dix *ix, uint64_t dir, uint32_t hash,
		  uint32_t namelen)
{
	uint64_t key = (uint64_t)hash << 8 | (namelen & 0xff);
	const struct xrp_dix_run *r;
	int err;

	if (namelen > 255)
		return 0;
	err = names_of(ix, dir, &r);
	if (err)
		return err;
	return bsearch(&key, ix->keys + r->off, r->n, sizeof(key),
		       cmp_u64) != NULL;
}

void xrp_dix_namers(const struct xrp_dix *ix, uint64_t ino, size_t *first,
		    size_t *end)
{
	size_t hi = xrp_lower_bound(ix->by_child, ix->nby,
				    sizeof(*ix->by_child), key_child, ino);

	*first = hi;
	while (hi < ix->nby && ix->by_child[hi].child == ino)
		hi++;
	*end = hi;
}

uint64_t xrp_dix_namer_at(const struct xrp_dix *ix, size_t i)
{
	return ix->by_child[i].dir;
}

uint64_t xrp_dix_namer(const struct xrp_dix *ix, uint64_t ino)
{
	size_t first, end;

	xrp_dix_namers(ix, ino, &first, &end);
	return first < end ? ix->by_child[first].dir : XFSJ_NULLFSINO;
}
