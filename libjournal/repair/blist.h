/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A list of blocks, each once, in the order first added: the vector (of
 * the check's state, its bytes counted with the rest) and a set to ask
 * (core/u64set.h), so that adding and asking stay constant time however
 * many blocks a fork's bmbt has.  The fork rebuild (fix_fork.c) and its
 * lenient bmbt walk (fork_records.c) keep the blocks of a tree in them.
 */
#ifndef XFSJ_REPAIR_BLIST_H
#define XFSJ_REPAIR_BLIST_H

#include <string.h>

#include "core/u64set.h"
#include "repair/repair_priv.h"

struct xrp_blist {
	struct xck_vec v;	/* uint64_t */
	struct xfsj_u64set set;
};

static inline uint64_t *xrp_bv(const struct xrp_blist *l)
{
	return l->v.v;
}

static inline void xrp_blist_init(struct xrp_blist *l)
{
	xck_vec_init(&l->v, sizeof(uint64_t));
	memset(&l->set, 0, sizeof(l->set));
}

static inline void xrp_blist_free(struct xrp *rp, struct xrp_blist *l)
{
	xck_vec_free(rp->ck, &l->v);
	xfsj_u64set_free(&l->set);
}

static inline bool xrp_bknown(const struct xrp_blist *l, uint64_t fsb)
{
	return xfsj_u64set_has(&l->set, fsb);
}

/* Add block @fsb once: 0, 1 when it is there already, or -XFSJ_E_NOMEM. */
static inline int xrp_bpush(struct xrp *rp, struct xrp_blist *l,
			    uint64_t fsb)
{
	int err = xfsj_u64set_add(&l->set, fsb);

	if (err)
		return err;
	return xck_vec_push(rp->ck, &l->v, &fsb);
}

/* @dst freed, then given what @src held (@src left empty). */
static inline void xrp_blist_move(struct xrp *rp, struct xrp_blist *dst,
				  struct xrp_blist *src)
{
	xrp_blist_free(rp, dst);
	*dst = *src;
	xrp_blist_init(src);
}

/*
 * fork_records.c: every record fork @whichfork of @ip holds, in its
 * order (a bmbt read past its damage), into @recs (struct
 * xfsj_bmbt_irec), and its bmbt blocks into @blocks.  0 or a negative
 * XFSJ_E_*.
 */
int xrp_fork_records(struct xrp *rp, struct xfsj_iref *ip, int whichfork,
		     struct xck_vec *recs, struct xrp_blist *blocks);

#endif
