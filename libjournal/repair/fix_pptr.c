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

static int add_missing(struct xrp *rp, struct xrp_prob *pr, size_t *done)
{
	struct xfsj_fault f = { 0 };
	struct xrp_dirlist l;
	struct xfsj_iref ip, dp;
	uint8_t val[XFSJ_ATTR_PPTR_VALUE_LEN];
	int err;

	*done = 0;
	err = xrp_dir_collect(rp, pr->p.off, &l);
	if (err)
		return err < 0 ? err : 0;
	err = xfsj_iget(rp->fs, pr->p.off, true, &dp, &f);
	if (!err)
		err = xfsj_iget(rp->fs, pr->p.ino, true, &ip, &f);
	for (size_t i = 0; !err && i < l.n; i++) {
		const struct xfsj_dirent *e = &l.de[i];

		if (e->ino != pr->p.ino ||
		    xfsj_da_hashname((const uint8_t *)e->name, e->namelen) !=
		    (uint32_t)pr->p.found)
			continue;
		xfsj_put_be64(val, pr->p.off);
		xfsj_put_be32(val + 8, dp.di.gen);
		err = xfsj_attr_set(rp->fs, &ip, &(struct xfsj_attr_arg){
			.ns = XFSJ_ATTR_NS_PARENT,
			.name = (const uint8_t *)e->name, .namelen = e->namelen,
			.value = val, .valuelen = sizeof(val) },
			XFSJ_ATTR_UPSERT, &f);
		if (!err) {
			xfsj_iput(rp->fs, &ip, true);
			*done = 1;
		}
		break;
	}
	xrp_dirlist_free(&l);
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

		if (xrp_is(pr, "attr.pptr.parent") &&
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
		if (xrp_is(pr, "pptr.missing"))
			err = add_missing(rp, pr, &done);
		else if (xrp_is(pr, "pptr.extra"))
			err = fix_existing(rp, pr, pr->p.off, false, false, 0,
					   &done);
		else if (xrp_is(pr, "pptr.gen") &&
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
			 xrp_is(pr, "pptr.missing") ? "added" :
			 xrp_is(pr, "pptr.extra") ? "removed" :
			 "given the directory's generation");
report:
		pr->done = true;
		xrp_action(rp, &(struct xfsj_repair_action){
			.fix = XFSJ_FIX_PPTR, .problem = &pr->p,
			.has = XFSJ_PF_INO | XFSJ_PF_COUNT, .ino = pr->p.ino,
			.count = done, .what = what });
	}
	return 0;
}
