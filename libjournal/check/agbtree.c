/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The AG btrees of one AG: bnobt, cntbt, inobt, finobt, rmapbt,
 * refcountbt.
 *
 * FIRST CUT (skeleton): the records are collected with the btree cursor
 * into the AG's tables; a tree the cursor cannot walk is reported whole.
 * The structural walk (every block's header, keys, siblings, records,
 * the blocks claimed) comes next.
 */
#include <stdlib.h>
#include <string.h>

#include "check/check_priv.h"
#include "fs/btree.h"

enum { AGBT_UNREADABLE, AGBT__N };

static const struct xfsj_problem_def rows[AGBT__N] = {
	[AGBT_UNREADABLE] = { "btree.unreadable", 0x030001, XFSJ_SEV_CORRUPT,
		"btree", "{field} of AG {ag} cannot be walked",
		XFSJ_FIX_REBUILD_BTREE },
};
const struct xck_table xck_agbt_table = { rows, AGBT__N };

struct collect {
	struct xck *ck;
	struct xck_vec *v;
	bool chunk;
};

static int collect_rec(struct xfsj_btree_cur *cur,
		       const union xfsj_btree_irec *rec, void *arg)
{
	struct collect *c = arg;

	(void)cur;
	if (c->chunk) {
		struct xck_chunk ch = { .rec = rec->i };

		return xck_vec_push(c->ck, c->v, &ch);
	}
	return xck_vec_push(c->ck, c->v, rec);
}

static int walk(struct xck *ck, struct xck_ag *ag, enum xfsj_btnum bt,
		struct xck_vec *v, bool chunk)
{
	struct xfsj_fault f = { 0 };
	struct xfsj_btree_cur *cur;
	struct collect c = { ck, v, chunk };
	int err;

	err = xfsj_btree_cur_new(ck->fs, bt, ag->agno, NULL, &f, &cur);
	if (!err) {
		err = xfsj_btree_query_all(cur, collect_rec, &c);
		xfsj_btree_cur_free(cur);
	}
	if (err == -XFSJ_E_NOMEM || err == -XFSJ_E_IO)
		return err;
	if (err) {
		xck_report(ck, &(struct xfsj_problem){
			.def = &rows[AGBT_UNREADABLE], .has = XFSJ_PF_AG,
			.agno = ag->agno, .field = xfsj_btree_shape(bt)->name });
		return 0;
	}
	ag->tree_ok[bt] = true;
	return 0;
}

int xck_ag_btrees(struct xck *ck, struct xck_ag *ag)
{
	int err = 0;

	if (ag->agf_ok) {
		err = walk(ck, ag, XFSJ_BT_BNO, &ag->bno_free, false);
		if (!err)
			err = walk(ck, ag, XFSJ_BT_CNT, &ag->cnt_free, false);
		if (!err && xfsj_fs_has(ck->fs, XFSJ_RO_COMPAT_RMAPBT))
			err = walk(ck, ag, XFSJ_BT_RMAP, &ag->rmaps, false);
		if (!err && xfsj_fs_has(ck->fs, XFSJ_RO_COMPAT_REFLINK))
			err = walk(ck, ag, XFSJ_BT_REFC, &ag->refcs, false);
	}
	if (!err && ag->agi_ok) {
		err = walk(ck, ag, XFSJ_BT_INO, &ag->chunks, true);
		if (!err && xfsj_fs_has(ck->fs, XFSJ_RO_COMPAT_FINOBT))
			err = walk(ck, ag, XFSJ_BT_FINO, &ag->fino, false);
	}
	return err;
}
