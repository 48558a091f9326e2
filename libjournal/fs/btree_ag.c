/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What differs between the per-AG btrees: record and key codecs, key
 * order, where the root lives (AGF or AGI) and which header counters
 * follow the tree's block count.  The facts are the kernel's
 * xfs_alloc_btree.c, xfs_ialloc_btree.c, xfs_rmap_btree.c and
 * xfs_refcount_btree.c.
 *
 * Then the read-only walks over a whole tree, built on the engine's
 * lookup and cursor moves: queries, block count and the checker.
 */
#include <stdlib.h>
#include <string.h>

#include "fs/btree_priv.h"

/* Header field offsets, from the checked layouts in format.h. */
#define AGF(field)	XFSJ_AGF_OFF(field)
#define AGI(field)	XFSJ_AGI_OFF(field)


static int cmp_u32(uint32_t a, uint32_t b)
{
	return a < b ? -1 : a > b;
}

static int cmp_u64(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

static void hdr_add32(struct xfsj_btree_cur *cur, unsigned int off, int d)
{
	uint8_t *p = cur->hdr->data + off;

	xfsj_put_be32(p, xfsj_get_be32(p) + (uint32_t)d);
	xfsj_buf_dirty(cur->hdr);
}

/* ---- bnobt, cntbt ---- */

static void alloc_rec_encode(const struct xfsj_btree_cur *cur,
			     const union xfsj_btree_irec *irec, uint8_t *rec)
{
	(void)cur;
	xfsj_put_be32(rec, irec->a.startblock);
	xfsj_put_be32(rec + 4, irec->a.blockcount);
}

static void alloc_rec_decode(const struct xfsj_btree_cur *cur,
			     const uint8_t *rec, union xfsj_btree_irec *irec)
{
	(void)cur;
	memset(irec, 0, sizeof(*irec));
	irec->a.startblock = xfsj_get_be32(rec);
	irec->a.blockcount = xfsj_get_be32(rec + 4);
}

/* Both trees keep the whole record as the key, length included. */
static void alloc_key_from_rec(uint8_t *key, const uint8_t *rec)
{
	memcpy(key, rec, 8);
}

static void bno_high_key_from_rec(uint8_t *key, const uint8_t *rec)
{
	xfsj_put_be32(key, xfsj_get_be32(rec) + xfsj_get_be32(rec + 4) - 1);
	xfsj_put_be32(key + 4, 0);
}

static void cnt_high_key_from_rec(uint8_t *key, const uint8_t *rec)
{
	xfsj_put_be32(key, 0);
	memcpy(key + 4, rec + 4, 4);
}

static int bno_cmp(const uint8_t *k1, const uint8_t *k2)
{
	return cmp_u32(xfsj_get_be32(k1), xfsj_get_be32(k2));
}

static int cnt_cmp(const uint8_t *k1, const uint8_t *k2)
{
	int d = cmp_u32(xfsj_get_be32(k1 + 4), xfsj_get_be32(k2 + 4));

	return d ? d : cmp_u32(xfsj_get_be32(k1), xfsj_get_be32(k2));
}

static bool bno_recs_inorder(const uint8_t *r1, const uint8_t *r2)
{
	return (uint64_t)xfsj_get_be32(r1) + xfsj_get_be32(r1 + 4) <=
	       xfsj_get_be32(r2);
}

/* The AGF's root and level arrays are indexed bno, cnt, rmap. */
static unsigned int agf_slot(enum xfsj_btnum bt)
{
	return bt == XFSJ_BT_RMAP ? 2 : bt == XFSJ_BT_CNT ? 1 : 0;
}

static void agf_get_root(const struct xfsj_btree_cur *cur, uint32_t *root,
			 uint32_t *levels)
{
	const uint8_t *d = cur->hdr->data;

	if (cur->bt == XFSJ_BT_REFC) {
		*root = xfsj_get_be32(d + AGF(refcount_root));
		*levels = xfsj_get_be32(d + AGF(refcount_level));
		return;
	}
	*root = xfsj_get_be32(d + AGF(bno_root) + 4 * agf_slot(cur->bt));
	*levels = xfsj_get_be32(d + AGF(bno_level) + 4 * agf_slot(cur->bt));
}

static void agf_set_root(struct xfsj_btree_cur *cur, uint32_t root, int inc)
{
	uint8_t *d = cur->hdr->data;

	if (cur->bt == XFSJ_BT_REFC) {
		xfsj_put_be32(d + AGF(refcount_root), root);
		hdr_add32(cur, AGF(refcount_level), inc);
		return;
	}
	xfsj_put_be32(d + AGF(bno_root) + 4 * agf_slot(cur->bt), root);
	hdr_add32(cur, AGF(bno_level) + 4 * agf_slot(cur->bt), inc);
}

/* bnobt and cntbt blocks come off the AGFL and count as btree blocks. */
static void alloc_mod_blocks(struct xfsj_btree_cur *cur, int delta)
{
	hdr_add32(cur, AGF(btreeblks), delta);
}

static void cnt_update_lastrec(struct xfsj_btree_cur *cur,
			       const uint8_t *block, const uint8_t *rec,
			       int ptr, enum xfsj_lastrec_why why)
{
	int numrecs = xfsj_get_be16(block + 6);
	uint32_t len;

	switch (why) {
	case XFSJ_LASTREC_UPDATE:
		if (ptr != numrecs)
			return;
		len = xfsj_get_be32(rec + 4);
		break;
	case XFSJ_LASTREC_INSREC:
		len = xfsj_get_be32(rec + 4);
		if (len <= xfsj_get_be32(cur->hdr->data + AGF(longest)))
			return;
		break;
	default:
		if (ptr <= numrecs)
			return;
		len = 0;
		if (numrecs)
			len = xfsj_get_be32(block + XFSJ_SBLOCK_HDR_SIZE +
					    (size_t)(numrecs - 1) * 8 + 4);
		break;
	}
	xfsj_put_be32(cur->hdr->data + AGF(longest), len);
	xfsj_buf_dirty(cur->hdr);
}

/* ---- inobt, finobt ---- */

static void ino_rec_encode(const struct xfsj_btree_cur *cur,
			   const union xfsj_btree_irec *irec, uint8_t *rec)
{
	const struct xfsj_inobt_rec *r = &irec->i;

	xfsj_put_be32(rec, r->startino);
	if (cur->sparse) {
		xfsj_put_be16(rec + 4, r->holemask);
		rec[6] = r->count;
		rec[7] = (uint8_t)r->freecount;
	} else {
		xfsj_put_be32(rec + 4, r->freecount);
	}
	xfsj_put_be64(rec + 8, r->free);
}

static void ino_rec_decode(const struct xfsj_btree_cur *cur,
			   const uint8_t *rec, union xfsj_btree_irec *irec)
{
	struct xfsj_inobt_rec *r = &irec->i;

	memset(irec, 0, sizeof(*irec));
	r->startino = xfsj_get_be32(rec);
	if (cur->sparse) {
		r->holemask = xfsj_get_be16(rec + 4);
		r->count = rec[6];
		r->freecount = rec[7];
	} else {
		r->holemask = 0;
		r->count = XFSJ_INODES_PER_CHUNK;
		r->freecount = xfsj_get_be32(rec + 4);
	}
	r->free = xfsj_get_be64(rec + 8);
}

static void ino_key_from_rec(uint8_t *key, const uint8_t *rec)
{
	memcpy(key, rec, 4);
}

static void ino_high_key_from_rec(uint8_t *key, const uint8_t *rec)
{
	xfsj_put_be32(key, xfsj_get_be32(rec) + XFSJ_INODES_PER_CHUNK - 1);
}

static int u32_key_cmp(const uint8_t *k1, const uint8_t *k2)
{
	return cmp_u32(xfsj_get_be32(k1), xfsj_get_be32(k2));
}

static bool ino_recs_inorder(const uint8_t *r1, const uint8_t *r2)
{
	return (uint64_t)xfsj_get_be32(r1) + XFSJ_INODES_PER_CHUNK <=
	       xfsj_get_be32(r2);
}

static void agi_get_root(const struct xfsj_btree_cur *cur, uint32_t *root,
			 uint32_t *levels)
{
	const uint8_t *d = cur->hdr->data;
	bool fino = cur->bt == XFSJ_BT_FINO;

	*root = xfsj_get_be32(d + (fino ? AGI(free_root) : AGI(root)));
	*levels = xfsj_get_be32(d + (fino ? AGI(free_level) : AGI(level)));
}

static void agi_set_root(struct xfsj_btree_cur *cur, uint32_t root, int inc)
{
	bool fino = cur->bt == XFSJ_BT_FINO;

	xfsj_put_be32(cur->hdr->data + (fino ? AGI(free_root) : AGI(root)),
		      root);
	hdr_add32(cur, fino ? AGI(free_level) : AGI(level), inc);
}

static void ino_mod_blocks(struct xfsj_btree_cur *cur, int delta)
{
	if (!cur->inobtcnt)
		return;
	hdr_add32(cur, cur->bt == XFSJ_BT_FINO ? AGI(fblocks) : AGI(iblocks),
		  delta);
}

/* ---- rmapbt ---- */

static void rmap_rec_encode(const struct xfsj_btree_cur *cur,
			    const union xfsj_btree_irec *irec, uint8_t *rec)
{
	(void)cur;
	xfsj_put_be32(rec, irec->r.startblock);
	xfsj_put_be32(rec + 4, irec->r.blockcount);
	xfsj_put_be64(rec + 8, irec->r.owner);
	xfsj_put_be64(rec + 16, irec->r.offset);
}

static void rmap_rec_decode(const struct xfsj_btree_cur *cur,
			    const uint8_t *rec, union xfsj_btree_irec *irec)
{
	(void)cur;
	memset(irec, 0, sizeof(*irec));
	irec->r.startblock = xfsj_get_be32(rec);
	irec->r.blockcount = xfsj_get_be32(rec + 4);
	irec->r.owner = xfsj_get_be64(rec + 8);
	irec->r.offset = xfsj_get_be64(rec + 16);
}

/*
 * The fork and bmbt-block flags are part of an rmap key; the unwritten
 * flag is only an attribute of the record, so keys never carry it.
 */
static void rmap_key_from_rec(uint8_t *key, const uint8_t *rec)
{
	memcpy(key, rec, 4);
	memcpy(key + 4, rec + 8, 8);
	xfsj_put_be64(key + 12,
		      xfsj_get_be64(rec + 16) & ~XFSJ_RMAP_OFF_UNWRITTEN);
}

/*
 * The last block a record maps, and for file data the last offset too:
 * the highest key under which the record can still be found.
 */
static void rmap_high_key_from_rec(uint8_t *key, const uint8_t *rec)
{
	uint32_t adj = xfsj_get_be32(rec + 4) - 1;
	uint64_t owner = xfsj_get_be64(rec + 8);
	uint64_t off = xfsj_get_be64(rec + 16) & ~XFSJ_RMAP_OFF_UNWRITTEN;

	xfsj_put_be32(key, xfsj_get_be32(rec) + adj);
	xfsj_put_be64(key + 4, owner);
	if (!(owner & XFSJ_RMAP_OWN_NON_INODE) && !(off & XFSJ_RMAP_OFF_BMBT_BLOCK))
		off = ((off & XFSJ_RMAP_OFF_MASK) + adj) |
		      (off & ~XFSJ_RMAP_OFF_MASK);
	xfsj_put_be64(key + 12, off);
}

static int rmap_cmp(const uint8_t *k1, const uint8_t *k2)
{
	int d = cmp_u32(xfsj_get_be32(k1), xfsj_get_be32(k2));

	if (d)
		return d;
	d = cmp_u64(xfsj_get_be64(k1 + 4), xfsj_get_be64(k2 + 4));
	if (d)
		return d;
	return cmp_u64(xfsj_get_be64(k1 + 12) & ~XFSJ_RMAP_OFF_UNWRITTEN,
		       xfsj_get_be64(k2 + 12) & ~XFSJ_RMAP_OFF_UNWRITTEN);
}

/* rmapbt blocks come off the AGFL too, and have their own counter. */
static void rmap_mod_blocks(struct xfsj_btree_cur *cur, int delta)
{
	hdr_add32(cur, AGF(btreeblks), delta);
	hdr_add32(cur, AGF(rmap_blocks), delta);
}

/* ---- refcountbt ---- */

static void refc_rec_encode(const struct xfsj_btree_cur *cur,
			    const union xfsj_btree_irec *irec, uint8_t *rec)
{
	(void)cur;
	xfsj_put_be32(rec, irec->c.startblock);
	xfsj_put_be32(rec + 4, irec->c.blockcount);
	xfsj_put_be32(rec + 8, irec->c.refcount);
}

static void refc_rec_decode(const struct xfsj_btree_cur *cur,
			    const uint8_t *rec, union xfsj_btree_irec *irec)
{
	(void)cur;
	memset(irec, 0, sizeof(*irec));
	irec->c.startblock = xfsj_get_be32(rec);
	irec->c.blockcount = xfsj_get_be32(rec + 4);
	irec->c.refcount = xfsj_get_be32(rec + 8);
}

/* The startblock keeps its CoW-domain bit: CoW staging sorts last. */
static void refc_key_from_rec(uint8_t *key, const uint8_t *rec)
{
	memcpy(key, rec, 4);
}

static void refc_high_key_from_rec(uint8_t *key, const uint8_t *rec)
{
	xfsj_put_be32(key, xfsj_get_be32(rec) + xfsj_get_be32(rec + 4) - 1);
}

static void refc_mod_blocks(struct xfsj_btree_cur *cur, int delta)
{
	hdr_add32(cur, AGF(refcount_blocks), delta);
}

static const struct xfsj_btree_ops tree_ops[] = {
	[XFSJ_BT_BNO] = {
		.bt = XFSJ_BT_BNO,
		.rec_encode = alloc_rec_encode,
		.rec_decode = alloc_rec_decode,
		.key_from_rec = alloc_key_from_rec,
		.high_key_from_rec = bno_high_key_from_rec,
		.cmp_keys = bno_cmp,
		.recs_inorder = bno_recs_inorder,
		.get_root = agf_get_root,
		.set_root = agf_set_root,
		.mod_blocks = alloc_mod_blocks,
	},
	[XFSJ_BT_CNT] = {
		.bt = XFSJ_BT_CNT, .lastrec = true,
		.rec_encode = alloc_rec_encode,
		.rec_decode = alloc_rec_decode,
		.key_from_rec = alloc_key_from_rec,
		.high_key_from_rec = cnt_high_key_from_rec,
		.cmp_keys = cnt_cmp,
		.get_root = agf_get_root,
		.set_root = agf_set_root,
		.mod_blocks = alloc_mod_blocks,
		.update_lastrec = cnt_update_lastrec,
	},
	[XFSJ_BT_INO] = {
		.bt = XFSJ_BT_INO,
		.rec_encode = ino_rec_encode,
		.rec_decode = ino_rec_decode,
		.key_from_rec = ino_key_from_rec,
		.high_key_from_rec = ino_high_key_from_rec,
		.cmp_keys = u32_key_cmp,
		.recs_inorder = ino_recs_inorder,
		.get_root = agi_get_root,
		.set_root = agi_set_root,
		.mod_blocks = ino_mod_blocks,
	},
	[XFSJ_BT_FINO] = {
		.bt = XFSJ_BT_FINO,
		.rec_encode = ino_rec_encode,
		.rec_decode = ino_rec_decode,
		.key_from_rec = ino_key_from_rec,
		.high_key_from_rec = ino_high_key_from_rec,
		.cmp_keys = u32_key_cmp,
		.recs_inorder = ino_recs_inorder,
		.get_root = agi_get_root,
		.set_root = agi_set_root,
		.mod_blocks = ino_mod_blocks,
	},
	[XFSJ_BT_RMAP] = {
		.bt = XFSJ_BT_RMAP,
		.rec_encode = rmap_rec_encode,
		.rec_decode = rmap_rec_decode,
		.key_from_rec = rmap_key_from_rec,
		.high_key_from_rec = rmap_high_key_from_rec,
		.cmp_keys = rmap_cmp,
		.get_root = agf_get_root,
		.set_root = agf_set_root,
		.mod_blocks = rmap_mod_blocks,
	},
	[XFSJ_BT_REFC] = {
		.bt = XFSJ_BT_REFC,
		.rec_encode = refc_rec_encode,
		.rec_decode = refc_rec_decode,
		.key_from_rec = refc_key_from_rec,
		.high_key_from_rec = refc_high_key_from_rec,
		.cmp_keys = u32_key_cmp,
		.recs_inorder = bno_recs_inorder,
		.get_root = agf_get_root,
		.set_root = agf_set_root,
		.mod_blocks = refc_mod_blocks,
	},
};

const struct xfsj_btree_ops *xfsj_btree_ops_get(enum xfsj_btnum bt)
{
	if (bt == XFSJ_BT_BMAP)
		return &xfsj_bmbt_ops;
	if ((unsigned int)bt >= sizeof(tree_ops) / sizeof(tree_ops[0]) ||
	    !tree_ops[bt].rec_encode)
		return NULL;
	return &tree_ops[bt];
}

/* ---- queries ---- */

/*
 * The walks below count the blocks they enter: a legal tree has fewer
 * than the AG has blocks, and a hostile one whose nodes share children
 * could otherwise make a walk all but endless.
 */
int xfsj_btree_query_all(struct xfsj_btree_cur *cur, xfsj_btree_rec_fn fn,
			 void *arg)
{
	uint8_t key[2 * XFSJ_BKEY_MAX];
	union xfsj_btree_irec irec;
	int stat, err;

	struct xfsj_buf *last = NULL;
	uint64_t leaves = 0;

	memset(key, 0, sizeof(key));
	err = xfsj_bt_lookup_key(cur, XFSJ_LOOKUP_LE, key, &stat);
	if (!err && !stat)
		err = xfsj_bt_increment(cur, 0, &stat);
	while (!err && stat) {
		if (cur->lev[0].bp != last) {
			last = cur->lev[0].bp;
			if (++leaves > cur->agblocks)
				return xfsj_bt_corrupt_path(cur, 0);
		}
		err = xfsj_btree_get_rec(cur, &irec, &stat);
		if (err || !stat)
			break;
		err = fn(cur, &irec, arg);
		if (err)
			break;
		err = xfsj_bt_increment(cur, 0, &stat);
	}
	return err;
}

/* Records from the last one at or before @low until one starts past
 * @high (the first is skipped when it ends before @low). */
static int simple_query_range(struct xfsj_btree_cur *cur, const uint8_t *lkey,
			      const uint8_t *hkey, xfsj_btree_rec_fn fn,
			      void *arg)
{
	uint8_t k[XFSJ_BKEY_MAX];
	union xfsj_btree_irec irec;
	struct xfsj_buf *last = NULL;
	uint64_t leaves = 0;
	bool first = true;
	int stat, err;

	err = xfsj_bt_lookup_key(cur, XFSJ_LOOKUP_LE, lkey, &stat);
	if (!err && !stat)
		err = xfsj_bt_increment(cur, 0, &stat);
	while (!err && stat) {
		struct xfsj_buf *bp = cur->lev[0].bp;
		int ptr = cur->lev[0].ptr;
		uint8_t *rp;

		if (bp != last) {
			last = bp;
			if (++leaves > cur->agblocks)
				return xfsj_bt_corrupt_path(cur, 0);
		}

		if (ptr < 1 || ptr > bb_numrecs(bp->data))
			break;
		rp = rec_addr(cur, ptr, bp->data);
		if (first) {
			first = false;
			cur->ops->high_key_from_rec(k, rp);
			if (keycmp(cur, lkey, k) > 0)
				goto next;
		}
		cur->ops->key_from_rec(k, rp);
		if (keycmp(cur, k, hkey) > 0)
			break;
		cur->ops->rec_decode(cur, rp, &irec);
		err = fn(cur, &irec, arg);
		if (err)
			break;
next:
		err = xfsj_bt_increment(cur, 0, &stat);
	}
	return err;
}

/*
 * Overlapping trees: depth first, following every child whose [low, high]
 * key range meets the query's, stopping in a block at the first low key
 * past the query's high key.
 */
static int overlapped_query_range(struct xfsj_btree_cur *cur,
				  const uint8_t *lkey, const uint8_t *hkey,
				  xfsj_btree_rec_fn fn, void *arg)
{
	uint8_t rk[XFSJ_BKEY_MAX], rhk[XFSJ_BKEY_MAX];
	union xfsj_btree_irec irec;
	struct xfsj_buf *bp;
	uint64_t reads = 0;
	uint32_t agbno;
	int level, err;

	err = xfsj_bt_load_root(cur, &agbno);
	if (err)
		return err;
	level = cur->nlevels - 1;
	err = xfsj_bt_read_block(cur, agbno, level, cur->hdr->daddr << 9,
				 &bp);
	if (err)
		return err;
	xfsj_bt_setbuf(cur, level, bp, agbno);
	cur->lev[level].ptr = 1;
	while (level < cur->nlevels) {
		uint8_t *b = cur->lev[level].bp->data;
		int ptr = cur->lev[level].ptr;

		if (ptr > bb_numrecs(b))
			goto pop_up;
		if (level == 0) {
			uint8_t *rp = rec_addr(cur, ptr, b);

			cur->ops->high_key_from_rec(rhk, rp);
			cur->ops->key_from_rec(rk, rp);
			if (keycmp(cur, hkey, rk) < 0)
				goto pop_up;
			if (keycmp(cur, rhk, lkey) >= 0) {
				cur->ops->rec_decode(cur, rp, &irec);
				err = fn(cur, &irec, arg);
				if (err)
					return err;
			}
			cur->lev[0].ptr++;
			continue;
		}
		if (keycmp(cur, hkey, key_addr(cur, ptr, b)) < 0)
			goto pop_up;
		if (keycmp(cur, hkey_addr(cur, ptr, b), lkey) >= 0) {
			uint64_t src = ptr_src(cur, cur->lev[level].bp, ptr);

			if (++reads > cur->agblocks)
				return xfsj_bt_corrupt_path(cur, level);
			agbno = get_ptr(cur, ptr, b);
			err = xfsj_bt_read_block(cur, agbno, level - 1, src,
						 &bp);
			if (err)
				return err;
			level--;
			xfsj_bt_setbuf(cur, level, bp, agbno);
			cur->lev[level].ptr = 1;
			continue;
		}
		cur->lev[level].ptr++;
		continue;
pop_up:
		if (level < cur->nlevels - 1)
			cur->lev[level + 1].ptr++;
		level++;
	}
	return 0;
}

int xfsj_btree_query_range(struct xfsj_btree_cur *cur,
			   const union xfsj_btree_irec *low,
			   const union xfsj_btree_irec *high,
			   xfsj_btree_rec_fn fn, void *arg)
{
	uint8_t lrec[XFSJ_BREC_MAX], hrec[XFSJ_BREC_MAX];
	uint8_t lkey[2 * XFSJ_BKEY_MAX], hkey[2 * XFSJ_BKEY_MAX];

	xfsj_bt_rec_key(cur, low, lrec, lkey);
	xfsj_bt_rec_key(cur, high, hrec, hkey);
	if (keycmp(cur, lkey, hkey) > 0)
		return xfsj_bt_fault(cur, XFSJ_E_INVAL, "query range", 0, 0);
	if (cur->shape->overlapping)
		return overlapped_query_range(cur, lkey, hkey, fn, arg);
	return simple_query_range(cur, lkey, hkey, fn, arg);
}

/* Every block, level by level along the sibling chains. */
int xfsj_btree_count_blocks(struct xfsj_btree_cur *cur, uint64_t *blocks)
{
	uint32_t agbno, first;
	struct xfsj_buf *bp;
	uint64_t n = 0, src;
	int level, err;

	*blocks = 0;
	err = xfsj_bt_load_root(cur, &first);
	if (err)
		return err;
	src = cur->hdr->daddr << 9;
	for (level = cur->nlevels - 1; level >= 0; level--) {
		uint32_t next_first = NULLBLK;
		uint64_t next_src = 0;

		for (agbno = first; agbno != NULLBLK;
		     agbno = bb_rightsib(bp->data)) {
			err = xfsj_bt_read_block(cur, agbno, level, src, &bp);
			if (err)
				return err;
			src = sib_src(bp, true);
			if (next_first == NULLBLK && level > 0) {
				next_first = get_ptr(cur, 1, bp->data);
				next_src = ptr_src(cur, bp, 1);
			}
			if (++n > cur->agblocks)
				return xfsj_bt_fault(cur, XFSJ_E_CORRUPT,
						     "rightsib",
						     (bp->daddr << 9) + 12,
						     agbno);
		}
		first = next_first;
		src = next_src;
	}
	*blocks = n;
	return 0;
}

/* ---- check ---- */

struct check {
	bool exact;
	uint64_t visited;
	uint32_t prev[XFSJ_BTREE_MAXLEVELS];	/* last block seen per level */
	uint32_t prev_right[XFSJ_BTREE_MAXLEVELS];
	bool have_key[XFSJ_BTREE_MAXLEVELS];
	uint8_t last_key[XFSJ_BTREE_MAXLEVELS][XFSJ_BKEY_MAX];
	uint8_t last_rec[XFSJ_BREC_MAX];
	bool have_rec;
};

/* @src: where the pointer to this block is; @pkey: its parent's key. */
static int check_block(struct xfsj_btree_cur *cur, struct check *c,
		       uint32_t agbno, uint64_t src, int level,
		       const uint8_t *pkey, bool root)
{
	const struct xfsj_btree_ops *ops = cur->ops;
	uint8_t key[2 * XFSJ_BKEY_MAX], k[XFSJ_BKEY_MAX];
	struct xfsj_buf *bp;
	uint64_t off;
	uint8_t *b;
	int n, err;

	if (++c->visited > cur->agblocks)
		return xfsj_bt_fault(cur, XFSJ_E_CORRUPT, "ptr", src, agbno);
	err = xfsj_bt_read_block(cur, agbno, level, src, &bp);
	if (err)
		return err;
	b = bp->data;
	off = bp->daddr << 9;
	n = bb_numrecs(b);
	if (!root && n < minrecs(cur, level))
		return xfsj_bt_fault(cur, XFSJ_E_CORRUPT, "numrecs", off + 6,
				     (uint64_t)n);
	if (bb_leftsib(b) != c->prev[level])
		return xfsj_bt_fault(cur, XFSJ_E_CORRUPT, "leftsib", off + 8,
				     bb_leftsib(b));
	if (c->prev[level] != NULLBLK && c->prev_right[level] != agbno)
		return xfsj_bt_fault(cur, XFSJ_E_CORRUPT, "rightsib", off + 12,
				     c->prev_right[level]);
	if (root && bb_rightsib(b) != NULLBLK)
		return xfsj_bt_fault(cur, XFSJ_E_CORRUPT, "rightsib", off + 12,
				     bb_rightsib(b));
	c->prev[level] = agbno;
	c->prev_right[level] = bb_rightsib(b);

	if (pkey) {
		xfsj_bt_get_keys(cur, b, key);
		if (memcmp(key, pkey, cur->keylen))
			return xfsj_bt_fault(cur, XFSJ_E_CORRUPT, "parent key",
					     off, agbno);
		if (cur->shape->overlapping) {
			int d = keycmp(cur, pkey + cur->keylen,
				       key + cur->keylen);

			if (d < 0 || (c->exact && d != 0))
				return xfsj_bt_fault(cur, XFSJ_E_CORRUPT,
						     "parent high key", off,
						     agbno);
		}
	}
	for (int i = 1; i <= n; i++) {
		uint8_t *kp;

		if (level == 0) {
			uint8_t *rp = rec_addr(cur, i, b);

			ops->key_from_rec(k, rp);
			kp = k;
			if (c->have_rec && ops->recs_inorder &&
			    !ops->recs_inorder(c->last_rec, rp))
				return xfsj_bt_fault(cur, XFSJ_E_CORRUPT,
						     "record order",
						     off + (uint64_t)(rp - b),
						     (uint64_t)i);
			memcpy(c->last_rec, rp, cur->shape->reclen);
			c->have_rec = true;
		} else {
			kp = key_addr(cur, i, b);
		}
		if (c->have_key[level] &&
		    keycmp(cur, c->last_key[level], kp) >= 0)
			return xfsj_bt_fault(cur, XFSJ_E_CORRUPT, "key order",
					     off, (uint64_t)i);
		memcpy(c->last_key[level], kp, cur->keylen);
		c->have_key[level] = true;
		if (level > 0) {
			err = check_block(cur, c, get_ptr(cur, i, b),
					  ptr_src(cur, bp, i), level - 1,
					  key_addr(cur, i, b), false);
			if (err)
				return err;
		}
	}
	return 0;
}

int xfsj_btree_check_tree(struct xfsj_btree_cur *cur, bool exact)
{
	struct check *c = calloc(1, sizeof(*c));
	uint32_t root;
	int err;

	if (!c)
		return -XFSJ_E_NOMEM;
	c->exact = exact;
	for (int i = 0; i < XFSJ_BTREE_MAXLEVELS; i++)
		c->prev[i] = NULLBLK;
	err = xfsj_bt_load_root(cur, &root);
	if (!err)
		err = check_block(cur, c, root, cur->hdr->daddr << 9,
				  cur->nlevels - 1, NULL, true);
	/* Every level must end at a block without a right sibling. */
	for (int i = 0; !err && i < cur->nlevels; i++)
		if (c->prev_right[i] != NULLBLK)
			err = xfsj_bt_fault(cur, XFSJ_E_CORRUPT, "rightsib", 0,
					    c->prev_right[i]);
	/* The cntbt's last record is the AG's longest free extent. */
	if (!err && cur->ops->lastrec) {
		uint32_t longest = xfsj_get_be32(cur->hdr->data + 56);
		uint32_t want = c->have_rec ?
				xfsj_get_be32(c->last_rec + 4) : 0;

		if (longest != want)
			err = xfsj_bt_fault(cur, XFSJ_E_CORRUPT, "longest",
					    (cur->hdr->daddr << 9) + 56,
					    longest);
	}
	free(c);
	return err;
}

int xfsj_btree_check(struct xfsj_btree_cur *cur)
{
	return xfsj_btree_check_tree(cur, false);
}
