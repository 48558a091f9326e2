/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Who names an inode: the check's directory entries whose child is a
 * given inode, for the fixes that ask it once per problem (dir.parents'
 * extra entries, a salvaged directory's parent).  A scan of the whole
 * table per question made a repair of many damaged directories
 * quadratic; so the first few questions of a round scan, and past
 * XRP_NAMING_SCANS the round builds one copy of the table sorted by
 * child and directory and answers by binary search.  Either way the
 * entries come in the order of the directory that holds them (ties in
 * table order), so the answer does not depend on which was used, nor on
 * the order other fixes left the table in.  The copy is the round's: it
 * is dropped with the check it was made from (xrp_naming_free).
 */
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"
#include "core/radix_sort.h"
#include "repair/repair_priv.h"

static uint64_t key_child(const void *p)
{
	return ((const struct xck_dirent *)p)->child;
}

static uint64_t key_dir(const void *p)
{
	return ((const struct xck_dirent *)p)->dir;
}

void xrp_naming_free(struct xrp *rp)
{
	free(rp->naming.de);
	memset(&rp->naming, 0, sizeof(rp->naming));
}

static int build(struct xrp *rp)
{
	static const xfsj_sort_key keys[] = { key_child, key_dir };
	size_t n = rp->ck->dirents.n;
	struct xck_dirent *de;
	int err;

	de = malloc(n ? n * sizeof(*de) : 1);
	if (!de)
		return -XFSJ_E_NOMEM;
	memcpy(de, rp->ck->dirents.v, n * sizeof(*de));
	err = xfsj_radix_sort(de, n, sizeof(*de), keys, 2);
	if (err) {
		free(de);
		return err;
	}
	rp->naming.de = de;
	rp->naming.n = n;
	rp->naming.built = true;
	return 0;
}

/* The run of the sorted copy naming @child: [*@first, *@end). */
static void run_of(const struct xrp *rp, uint64_t child, size_t *first,
		   size_t *end)
{
	const struct xck_dirent *de = rp->naming.de;
	size_t at = xrp_lower_bound(de, rp->naming.n, sizeof(*de), key_child,
				    child);

	*first = at;
	while (at < rp->naming.n && de[at].child == child)
		at++;
	*end = at;
}

static int by_dir(const void *pa, const void *pb)
{
	const struct xck_dirent *a = *(const struct xck_dirent *const *)pa;
	const struct xck_dirent *b = *(const struct xck_dirent *const *)pb;

	if (a->dir != b->dir)
		return a->dir < b->dir ? -1 : 1;
	return a < b ? -1 : a > b;	/* table order */
}

/* A scan of the whole table: the matches, sorted by directory. */
static int scan(struct xrp *rp, uint64_t child, const struct xrp_naming_cb *cb)
{
	const struct xck_dirent *de = rp->ck->dirents.v;
	const struct xck_dirent **hit = NULL;
	size_t nhit = 0, cap = 0;
	int ret = 0;

	for (size_t i = 0; i < rp->ck->dirents.n; i++) {
		if (de[i].child != child)
			continue;
		if (xfsj_grow(&hit, &cap, nhit, 1, sizeof(*hit), 8)) {
			free(hit);
			return -XFSJ_E_NOMEM;
		}
		hit[nhit++] = &de[i];
	}
	if (nhit > 1)
		qsort(hit, nhit, sizeof(*hit), by_dir);
	for (size_t i = 0; i < nhit && !ret; i++)
		ret = cb->fn(cb->arg, hit[i]);
	free(hit);
	return ret;
}

int xrp_entries_naming(struct xrp *rp, uint64_t child,
		       const struct xrp_naming_cb *cb)
{
	size_t first, end;
	int ret = 0;

	if (!rp->naming.built && rp->naming.scans < XRP_NAMING_SCANS) {
		rp->naming.scans++;
		return scan(rp, child, cb);
	}
	if (!rp->naming.built) {
		ret = build(rp);
		if (ret)
			return ret;
	}
	run_of(rp, child, &first, &end);
	for (size_t i = first; i < end && !ret; i++)
		ret = cb->fn(cb->arg, &rp->naming.de[i]);
	return ret;
}
