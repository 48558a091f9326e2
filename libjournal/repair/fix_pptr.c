/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * FIX_PPTR: the parent pointers made to match the directory entries.
 *
 * - pptr.missing: the entry's name is read back from its directory (the
 *   entry with that child and name hash) and the pointer added, with the
 *   directory's generation.
 * - pptr.extra: the child's pointers to that directory with that name
 *   hash are removed.
 * - pptr.gen: the child's pointers to that directory get its generation.
 * - attr.pptr.parent: the child's pointers naming that impossible parent
 *   are removed (the one its entry asks for is pptr.missing's to add).
 *
 * In a round that rebuilds directories the entries the check compared
 * against are not the ones now on disk: the fix waits for the next round.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"
#include "fs/attr.h"
#include "fs/iget.h"
#include "repair/repair_priv.h"

/* A parent pointer of the child, copied out of the listing. */
struct pp {
	uint8_t name[256];
	uint32_t namelen;
	uint8_t value[XFSJ_ATTR_PPTR_VALUE_LEN];
};

struct pp_find {
	uint64_t parent;
	uint32_t hash;		/* name hash, or 0 with @any_hash */
	bool any_hash;
	struct pp *v;
	size_t n, cap;
};

static int pp_match(void *arg, const struct xfsj_attr_arg *a)
{
	struct pp_find *pf = arg;
	struct pp *p;

	if (a->ns != XFSJ_ATTR_NS_PARENT || !a->value ||
	    a->valuelen != XFSJ_ATTR_PPTR_VALUE_LEN || a->namelen > 255 ||
	    xfsj_get_be64(a->value) != pf->parent)
		return 0;
	if (!pf->any_hash && xfsj_da_hashname(a->name, a->namelen) != pf->hash)
		return 0;
	if (xfsj_grow(&pf->v, &pf->cap, pf->n, 1, sizeof(*pf->v), 4))
		return -XFSJ_E_NOMEM;
	p = &pf->v[pf->n++];
	memcpy(p->name, a->name, a->namelen);
	p->namelen = a->namelen;
	memcpy(p->value, a->value, sizeof(p->value));
	return 0;
}

static bool fatal(int err)
{
	return err == -XFSJ_E_NOMEM || err == -XFSJ_E_IO;
}

/* Remove the pointers to @parent (with the problem's name hash unless
 * @any_hash); with @gen_fix, add each back with the directory's
 * generation @gen. */
static int fix_existing(struct xrp *rp, struct xrp_prob *pr, uint64_t parent,
			bool any_hash, bool gen_fix, uint32_t gen,
			size_t *done)
{
	struct pp_find pf = { .parent = parent,
			      .hash = (uint32_t)pr->p.found,
			      .any_hash = any_hash };
	struct xfsj_fault f = { 0 };
	struct xfsj_iref ip;
	int err;

	*done = 0;
	err = xfsj_iget(rp->fs, pr->p.ino, true, &ip, &f);
	if (!err)
		err = xfsj_attr_list(rp->fs, &ip, pp_match, &pf, &f);
	for (size_t i = 0; !err && i < pf.n; i++) {
		struct xfsj_attr_arg a = {
			.ns = XFSJ_ATTR_NS_PARENT, .name = pf.v[i].name,
			.namelen = pf.v[i].namelen, .value = pf.v[i].value,
			.valuelen = XFSJ_ATTR_PPTR_VALUE_LEN,
		};
		bool found = false;

		if (gen_fix && xfsj_get_be32(pf.v[i].value + 8) == gen)
			continue;
		err = xfsj_attr_remove(rp->fs, &ip, &a, &found, &f);
		if (!err && gen_fix) {
			xfsj_put_be32(pf.v[i].value + 8, gen);
			err = xfsj_attr_set(rp->fs, &ip, &a, XFSJ_ATTR_UPSERT,
					    &f);
		}
		if (!err)
			(*done)++;
	}
	if (!err && *done)
		xfsj_iput(rp->fs, &ip, true);
	free(pf.v);
	return err;
}

/*
 * The names of one directory, read once for all its children's missing
 * pointers (a directory's whole salvage walk per child made a directory
 * of n entries cost n squared): its entries sorted by child and name
 * hash, and its generation.
 */
struct named {
	uint64_t ino;			/* the child */
	uint32_t hash;			/* its name's */
	uint32_t i;			/* the entry: l.de[i] */
};

struct dir_names {
	uint64_t dir;			/* NULLFSINO: none read */
	int err;			/* reading it: 0, 1 unreadable, < 0 */
	uint32_t gen;
	struct xrp_dirlist l;
	struct named *by;		/* l.n of them, sorted */
};

static int named_cmp(const void *pa, const void *pb)
{
	const struct named *a = pa, *b = pb;

	if (a->ino != b->ino)
		return a->ino < b->ino ? -1 : 1;
	return a->hash < b->hash ? -1 : a->hash > b->hash;
}

static void dir_names_free(struct dir_names *dn)
{
	if (dn->dir != XFSJ_NULLFSINO)
		xrp_dirlist_free(&dn->l);
	free(dn->by);
	dn->by = NULL;
	dn->dir = XFSJ_NULLFSINO;
}

static int dir_names_read(struct xrp *rp, struct dir_names *dn, uint64_t dir)
{
	struct xfsj_fault f = { 0 };
	struct xfsj_iref dp;

	if (dn->dir == dir)
		return dn->err;
	dir_names_free(dn);
	dn->dir = dir;
	dn->err = xrp_dir_collect(rp, dir, &dn->l);
	if (dn->err)
		goto out;
	dn->err = xfsj_iget(rp->fs, dir, true, &dp, &f);
	if (dn->err)
		goto out;
	dn->gen = dp.di.gen;
	dn->by = calloc(dn->l.n + 1, sizeof(*dn->by));
	if (!dn->by) {
		dn->err = -XFSJ_E_NOMEM;
		goto out;
	}
	for (size_t i = 0; i < dn->l.n; i++) {
		const struct xfsj_dirent *e = &dn->l.de[i];

		dn->by[i] = (struct named){ e->ino,
			xfsj_da_hashname((const uint8_t *)e->name, e->namelen),
			(uint32_t)i };
	}
	qsort(dn->by, dn->l.n, sizeof(*dn->by), named_cmp);
out:
	if (dn->err > 0 || (dn->err < 0 && !fatal(dn->err)))
		dn->err = 1;
	return dn->err;
}

static int add_missing(struct xrp *rp, struct dir_names *dn,
		       struct xrp_prob *pr, size_t *done)
{
	struct named key = { pr->p.ino, (uint32_t)pr->p.found, 0 }, *hit;
	struct xfsj_fault f = { 0 };
	const struct xfsj_dirent *e;
	struct xfsj_iref ip;
	uint8_t val[XFSJ_ATTR_PPTR_VALUE_LEN];
	int err;

	*done = 0;
	err = dir_names_read(rp, dn, pr->p.off);
	if (err)
		return err < 0 ? err : 0;
	hit = bsearch(&key, dn->by, dn->l.n, sizeof(*dn->by), named_cmp);
	if (!hit)
		return 0;
	e = &dn->l.de[hit->i];
	err = xfsj_iget(rp->fs, pr->p.ino, true, &ip, &f);
	if (err)
		return err;
	xfsj_put_be64(val, pr->p.off);
	xfsj_put_be32(val + 8, dn->gen);
	err = xfsj_attr_set(rp->fs, &ip, &(struct xfsj_attr_arg){
		.ns = XFSJ_ATTR_NS_PARENT,
		.name = (const uint8_t *)e->name, .namelen = e->namelen,
		.value = val, .valuelen = sizeof(val) },
		XFSJ_ATTR_UPSERT, &f);
	if (!err) {
		xfsj_iput(rp->fs, &ip, true);
		*done = 1;
	}
	return err;
}

static void report(struct xrp *rp, struct xrp_prob *pr, size_t done,
		   const char *what)
{
	pr->done = true;
	xrp_action(rp, &(struct xfsj_repair_action){
		.fix = XFSJ_FIX_PPTR, .problem = &pr->p,
		.has = XFSJ_PF_INO | XFSJ_PF_COUNT, .ino = pr->p.ino,
		.count = done, .what = what });
}

static int by_dir(const void *pa, const void *pb)
{
	const struct xrp_prob *a = *(struct xrp_prob *const *)pa;
	const struct xrp_prob *b = *(struct xrp_prob *const *)pb;

	if (a->p.off != b->p.off)
		return a->p.off < b->p.off ? -1 : 1;
	return a->p.ino < b->p.ino ? -1 : a->p.ino > b->p.ino;
}

/* pptr.missing, directory by directory: each one's names read once. */
static int add_all_missing(struct xrp *rp)
{
	const unsigned int need = XFSJ_PF_INO | XFSJ_PF_OFF | XFSJ_PF_FOUND;
	struct dir_names dn = { .dir = XFSJ_NULLFSINO };
	struct xrp_prob *pr, **v;
	size_t n = 0, k;
	int err = 0;

	xrp_for_each(rp, pr, XFSJ_FIX_PPTR)
		n += xrp_names(pr, XFSJ_H_PPTR_ADD) && !pr->done;
	if (!n)
		return 0;
	v = malloc(n * sizeof(*v));
	if (!v)
		return -XFSJ_E_NOMEM;
	k = 0;
	xrp_for_each(rp, pr, XFSJ_FIX_PPTR)
		if (xrp_names(pr, XFSJ_H_PPTR_ADD) && !pr->done)
			v[k++] = pr;
	qsort(v, n, sizeof(*v), by_dir);
	for (k = 0; k < n && !err; k++) {
		char what[128];
		size_t done = 0;

		pr = v[k];
		if ((pr->p.has & need) != need)
			continue;
		err = add_missing(rp, &dn, pr, &done);
		if (err && !fatal(err))
			err = 0;
		if (err || !done)
			continue;
		snprintf(what, sizeof(what),
			 "inode %llu: parent pointer to directory %llu added",
			 (unsigned long long)pr->p.ino,
			 (unsigned long long)pr->p.off);
		report(rp, pr, done, what);
	}
	dir_names_free(&dn);
	free(v);
	return err;
}

int xrp_fix_pptr(struct xrp *rp)
{
	struct xrp_prob *pr;

	if (!(rp->sb->features_incompat & XFSJ_INCOMPAT_PARENT))
		return 0;
	for (pr = rp->probs; pr < rp->probs + rp->nprobs; pr++)
		if (pr->p.def->fix == XFSJ_FIX_SALVAGE_DIR &&
		    xrp_stage_of(pr->p.def) == rp->stage)
			return 0;
	xrp_for_each(rp, pr, XFSJ_FIX_PPTR) {
		const unsigned int need = XFSJ_PF_INO | XFSJ_PF_OFF;
		const unsigned int bad = XFSJ_PF_INO | XFSJ_PF_FOUND;
		size_t done = 0;
		char what[128];
		int err;

		/* (answered already: a reconnect placed its entry) */
		if (pr->done)
			continue;
		if (xrp_names(pr, XFSJ_H_PPTR_BAD_PARENT) &&
		    (pr->p.has & bad) == bad) {
			err = fix_existing(rp, pr, pr->p.found, true, false, 0,
					   &done);
			if (err && fatal(err))
				return err;
			if (err || !done)
				continue;
			snprintf(what, sizeof(what), "inode %llu: parent "
				 "pointer to inode %llu removed",
				 (unsigned long long)pr->p.ino,
				 (unsigned long long)pr->p.found);
			goto report;
		}
		if ((pr->p.has & need) != need)
			continue;
		if (xrp_names(pr, XFSJ_H_PPTR_REMOVE))
			err = fix_existing(rp, pr, pr->p.off, false, false, 0,
					   &done);
		else if (xrp_names(pr, XFSJ_H_PPTR_GEN) &&
			 (pr->p.has & XFSJ_PF_EXPECTED))
			err = fix_existing(rp, pr, pr->p.off, true, true,
					   (uint32_t)pr->p.expected, &done);
		else
			continue;
		if (err && fatal(err))
			return err;
		if (err || !done)
			continue;
		snprintf(what, sizeof(what),
			 "inode %llu: parent pointer to directory %llu %s",
			 (unsigned long long)pr->p.ino,
			 (unsigned long long)pr->p.off,
			 xrp_names(pr, XFSJ_H_PPTR_REMOVE) ? "removed" :
			 "given the directory's generation");
report:
		report(rp, pr, done, what);
	}
	return add_all_missing(rp);
}
