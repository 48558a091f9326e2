/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Bulk loading of a per-AG btree (btree_load.h).  A level of n entries
 * over b blocks gives each block n / b entries, the first n % b blocks
 * one more, so that no block but a lone root is under half full.
 */
#include <string.h>

#include "fs/btree_load.h"
#include "fs/btree_priv.h"

static uint64_t div_up(uint64_t a, uint64_t b)
{
	return (a + b - 1) / b;
}

int xfsj_btree_load_geom(enum xfsj_btnum bt, uint32_t blocksize,
			 uint64_t nrecs, struct xfsj_btree_geom *g)
{
	uint64_t n = nrecs, max;
	unsigned int lev = 0;

	memset(g, 0, sizeof(*g));
	g->nrecs = nrecs;
	for (;;) {
		max = xfsj_btree_maxrecs(bt, blocksize, lev == 0);
		if (max < 2 || lev >= XFSJ_BTREE_MAXLEVELS)
			return -XFSJ_E_RANGE;
		g->per_level[lev] = n ? div_up(n, max) : 1;
		g->blocks += g->per_level[lev];
		lev++;
		if (g->per_level[lev - 1] == 1)
			break;
		n = g->per_level[lev - 1];
	}
	g->levels = lev;
	return 0;
}

/* Entries of block @i of a level of @n entries over @nb blocks. */
static int share(uint64_t n, uint64_t nb, uint64_t i)
{
	return (int)(n / nb + (i < n % nb ? 1 : 0));
}

static int new_block(struct xfsj_btree_cur *cur, uint32_t agbno, int level,
		     int numrecs, uint32_t left, uint32_t right,
		     struct xfsj_buf **bpp)
{
	const struct xfsj_sb *sb = xfsj_fs_sb(cur->fs);
	uint64_t daddr = xfsj_agb_to_daddr(sb, cur->agno, agbno);
	struct xfsj_sblock h = {
		.magic = cur->shape->magic,
		.level = (uint16_t)level,
		.numrecs = (uint16_t)numrecs,
		.leftsib = left,
		.rightsib = right,
		.blkno = daddr,
		.owner = cur->agno,
	};
	int err;

	if (agbno < cur->min_agbno || agbno >= cur->agblocks)
		return xfsj_bt_fault(cur, XFSJ_E_RANGE, "load block", 0, agbno);
	err = xfsj_buf_get_zero(cur->fs, daddr, cur->blocksize, bpp);
	if (err)
		return xfsj_bt_fault(cur, err, "load block", daddr << 9, agbno);
	memcpy(h.uuid, cur->vc.uuid, 16);
	xfsj_sblock_encode(&h, (*bpp)->data);
	xfsj_buf_dirty(*bpp);
	return 0;
}

static uint32_t sib(const uint32_t *lv, uint64_t nb, uint64_t i, int dir)
{
	if (dir < 0)
		return i ? lv[i - 1] : NULLBLK;
	return i + 1 < nb ? lv[i + 1] : NULLBLK;
}

static int load_leaves(struct xfsj_btree_cur *cur,
		       const struct xfsj_btree_geom *g, const uint32_t *lv,
		       xfsj_btree_load_fn fn, void *arg)
{
	uint64_t nb = g->per_level[0], r = 0;
	union xfsj_btree_irec irec;
	struct xfsj_buf *bp;
	int err;

	for (uint64_t i = 0; i < nb; i++) {
		int n = share(g->nrecs, nb, i);

		err = new_block(cur, lv[i], 0, n, sib(lv, nb, i, -1),
				sib(lv, nb, i, 1), &bp);
		if (err)
			return err;
		for (int k = 1; k <= n; k++, r++) {
			memset(&irec, 0, sizeof(irec));
			fn(arg, r, &irec);
			cur->ops->rec_encode(cur, &irec,
					     rec_addr(cur, k, bp->data));
		}
	}
	return 0;
}

static int load_nodes(struct xfsj_btree_cur *cur, int level,
		      const struct xfsj_btree_geom *g, const uint32_t *below,
		      const uint32_t *lv)
{
	const struct xfsj_sb *sb = xfsj_fs_sb(cur->fs);
	uint64_t nb = g->per_level[level], nc = g->per_level[level - 1];
	uint64_t c = 0;
	uint8_t key[2 * XFSJ_BKEY_MAX];
	struct xfsj_buf *bp, *cbp;
	int err;

	for (uint64_t i = 0; i < nb; i++) {
		int n = share(nc, nb, i);

		err = new_block(cur, lv[i], level, n, sib(lv, nb, i, -1),
				sib(lv, nb, i, 1), &bp);
		if (err)
			return err;
		for (int k = 1; k <= n; k++, c++) {
			err = xfsj_buf_read(cur->fs,
					    xfsj_agb_to_daddr(sb, cur->agno,
							      below[c]),
					    cur->blocksize, &cbp);
			if (err)
				return xfsj_bt_fault(cur, err, "load child",
						     0, below[c]);
			xfsj_bt_get_keys(cur, cbp->data, key);
			memcpy(key_addr(cur, k, bp->data), key,
			       cur->shape->keylen);
			xfsj_put_be32(ptr_addr(cur, k, bp->data), below[c]);
		}
	}
	return 0;
}

int xfsj_btree_load(struct xfsj_fs *fs, enum xfsj_btnum bt, uint32_t agno,
		    const struct xfsj_btree_geom *g, const uint32_t *blocks,
		    xfsj_btree_load_fn fn, void *arg, struct xfsj_fault *f)
{
	struct xfsj_btree_cur *cur;
	const uint32_t *lv = blocks;
	int err;

	err = xfsj_btree_cur_new(fs, bt, agno, NULL, f, &cur);
	if (err)
		return err;
	if ((int)g->levels != cur->nlevels) {
		err = xfsj_bt_fault(cur, XFSJ_E_INVAL, "load levels", 0,
				    g->levels);
		goto out;
	}
	err = load_leaves(cur, g, lv, fn, arg);
	for (unsigned int l = 1; !err && l < g->levels; l++) {
		err = load_nodes(cur, (int)l, g, lv, lv + g->per_level[l - 1]);
		lv += g->per_level[l - 1];
	}
out:
	xfsj_btree_cur_free(cur);
	return err;
}
