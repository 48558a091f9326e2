/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The generic short-pointer btree (see btree.h).  The algorithms are the
 * kernel's generic btree ones, taken as facts so that a tree we change
 * ends up with the shape the kernel would have given it: the same lookup
 * positions, the same order of shifting to the right sibling, then the
 * left, then splitting at the same point, the same borrow and join rules
 * on delete.  Indexes in a block are 1-based, as the kernel counts, so
 * the rules read the same.
 *
 * Blocks are handled as raw on-disk bytes; the per-tree ops table
 * (btree_ag.c) turns records into keys and compares keys.
 */
#include <stdlib.h>
#include <string.h>

#include "fs/btree_priv.h"

/* Copy @n entries (records, or keys with their pointers) between blocks
 * or within one; the ranges may overlap. */
static void move_entries(const struct xfsj_btree_cur *cur, int level,
			 uint8_t *dst, int to, uint8_t *src, int from, int n)
{
	if (n <= 0)
		return;
	if (level == 0) {
		memmove(rec_addr(cur, to, dst), rec_addr(cur, from, src),
			(size_t)n * cur->shape->reclen);
		return;
	}
	memmove(key_addr(cur, to, dst), key_addr(cur, from, src),
		(size_t)n * cur->shape->keylen);
	memmove(ptr_addr(cur, to, dst), ptr_addr(cur, from, src),
		(size_t)n * 4);
}

/* ---- keys ---- */

/*
 * The key a parent holds for block @b: its first key, and for an
 * overlapping tree also the highest key found anywhere under it.
 */
void xfsj_bt_get_keys(const struct xfsj_btree_cur *cur, uint8_t *b,
		      uint8_t *key)
{
	const struct xfsj_btree_ops *ops = cur->ops;
	int n = bb_numrecs(b);
	uint8_t hk[XFSJ_BKEY_MAX];

	memset(key, 0, cur->shape->keylen);
	if (n == 0)
		return;
	if (bb_level(b) == 0) {
		ops->key_from_rec(key, rec_addr(cur, 1, b));
		if (!cur->shape->overlapping)
			return;
		ops->high_key_from_rec(key + cur->keylen, rec_addr(cur, 1, b));
		for (int i = 2; i <= n; i++) {
			ops->high_key_from_rec(hk, rec_addr(cur, i, b));
			if (keycmp(cur, hk, key + cur->keylen) > 0)
				memcpy(key + cur->keylen, hk, cur->keylen);
		}
		return;
	}
	memcpy(key, key_addr(cur, 1, b), cur->shape->keylen);
	if (!cur->shape->overlapping)
		return;
	for (int i = 2; i <= n; i++) {
		uint8_t *h = hkey_addr(cur, i, b);

		if (keycmp(cur, h, key + cur->keylen) > 0)
			memcpy(key + cur->keylen, h, cur->keylen);
	}
}

/* ---- faults and blocks ---- */

int xfsj_bt_fault(const struct xfsj_btree_cur *cur, int err,
		  const char *field, uint64_t off, uint64_t val)
{
	return xfsj_fault_set(cur->f, err, cur->shape->name, field, off, val);
}

static uint64_t blk_daddr(const struct xfsj_btree_cur *cur, uint32_t agbno)
{
	return xfsj_agb_to_daddr(xfsj_fs_sb(cur->fs), cur->agno, agbno);
}

static bool agbno_ok(const struct xfsj_btree_cur *cur, uint32_t agbno)
{
	return agbno >= cur->min_agbno && agbno < cur->agblocks;
}

/*
 * Read the block at @agbno that should be at @level.  A buffer that is
 * not dirty is exactly what the overlay holds (read from it, or written
 * to it by a flush, which stamped a good CRC), so it gets the full
 * verifier; a dirty one has been verified when first read or was built
 * here, and gets the cheap structural checks only.
 */
int xfsj_bt_read_block(struct xfsj_btree_cur *cur, uint32_t agbno, int level,
		       uint64_t src, struct xfsj_buf **bpp)
{
	uint64_t daddr, off;
	struct xfsj_buf *bp;
	uint8_t *b;
	int err, n;

	if (!agbno_ok(cur, agbno))
		return xfsj_bt_fault(cur, XFSJ_E_CORRUPT, "ptr", src, agbno);
	daddr = blk_daddr(cur, agbno);
	off = daddr << 9;
	err = xfsj_buf_read(cur->fs, daddr, cur->blocksize, &bp);
	if (err)
		return xfsj_bt_fault(cur, err, "read", off, cur->blocksize);
	if (!bp->dirty) {
		err = xfsj_sblock_verify(bp->data, cur->bt, &cur->vc, daddr,
					 cur->f);
		if (err) {
			xfsj_buf_forget(cur->fs, bp);
			return err;
		}
	}
	b = bp->data;
	if (xfsj_get_be32(b) != cur->shape->magic)
		return xfsj_bt_fault(cur, XFSJ_E_BADMAGIC, "magic", off,
				     xfsj_get_be32(b));
	if (bb_level(b) != level)
		return xfsj_bt_fault(cur, XFSJ_E_CORRUPT, "level", off + 4,
				     (uint64_t)bb_level(b));
	n = bb_numrecs(b);
	if (n > maxrecs(cur, level) || (level > 0 && n == 0))
		return xfsj_bt_fault(cur, XFSJ_E_CORRUPT, "numrecs", off + 6,
				     (uint64_t)n);
	*bpp = bp;
	return 0;
}

void xfsj_bt_setbuf(struct xfsj_btree_cur *cur, int level,
		    struct xfsj_buf *bp, uint32_t agbno)
{
	cur->lev[level].bp = bp;
	cur->lev[level].agbno = agbno;
}

/* Root and height from the AGF/AGI; the height may have changed under
 * another cursor since this one last looked. */
int xfsj_bt_load_root(struct xfsj_btree_cur *cur, uint32_t *root)
{
	uint32_t r, levels;

	cur->ops->get_root(cur, &r, &levels);
	if (levels < 1 || levels > XFSJ_BTREE_MAXLEVELS)
		return xfsj_bt_fault(cur, XFSJ_E_CORRUPT, "levels",
				     cur->hdr->daddr << 9, levels);
	if (!agbno_ok(cur, r))
		return xfsj_bt_fault(cur, XFSJ_E_CORRUPT, "root",
				     cur->hdr->daddr << 9, r);
	if ((int)levels != cur->nlevels) {
		for (int i = 0; i < XFSJ_BTREE_MAXLEVELS; i++)
			cur->lev[i].bp = NULL;
		cur->nlevels = (int)levels;
	}
	*root = r;
	return 0;
}

static void init_block(struct xfsj_btree_cur *cur, struct xfsj_buf *bp,
		       uint32_t agbno, int level, int numrecs)
{
	struct xfsj_sblock h;

	memset(&h, 0, sizeof(h));
	h.magic = cur->shape->magic;
	h.level = (uint16_t)level;
	h.numrecs = (uint16_t)numrecs;
	h.leftsib = NULLBLK;
	h.rightsib = NULLBLK;
	h.blkno = blk_daddr(cur, agbno);
	memcpy(h.uuid, cur->vc.uuid, 16);
	h.owner = cur->agno;
	xfsj_sblock_encode(&h, bp->data);
	xfsj_buf_dirty(bp);
}

/* A new, initialised block for @level, placed near @near. */
static int alloc_block(struct xfsj_btree_cur *cur, uint32_t near, int level,
		       struct xfsj_buf **bpp, uint32_t *agbno)
{
	const struct xfsj_btree_blocks *src = cur->blocks;
	uint32_t bno = NULLBLK;
	int err;

	if (!src || !src->alloc)
		return xfsj_bt_fault(cur, XFSJ_E_INVAL, "block source", 0, 0);
	err = src->alloc(src->arg, cur, near, &bno, cur->f);
	if (err)
		return err;
	if (!agbno_ok(cur, bno))
		return xfsj_bt_fault(cur, XFSJ_E_CORRUPT, "new block", 0, bno);
	err = xfsj_buf_get_zero(cur->fs, blk_daddr(cur, bno), cur->blocksize,
				bpp);
	if (err)
		return xfsj_bt_fault(cur, err, "new block",
				     blk_daddr(cur, bno) << 9, bno);
	cur->ops->mod_blocks(cur, 1);
	init_block(cur, *bpp, bno, level, 0);
	*agbno = bno;
	return 0;
}

static int free_block(struct xfsj_btree_cur *cur, struct xfsj_buf *bp,
		      uint32_t agbno)
{
	const struct xfsj_btree_blocks *src = cur->blocks;
	int err;

	if (!src || !src->free)
		return xfsj_bt_fault(cur, XFSJ_E_INVAL, "block source", 0, 0);
	err = src->free(src->arg, cur, agbno, cur->f);
	if (err)
		return err;
	cur->ops->mod_blocks(cur, -1);
	xfsj_buf_forget(cur->fs, bp);
	return 0;
}

/* ---- cursor ---- */

int xfsj_btree_cur_new(struct xfsj_fs *fs, enum xfsj_btnum bt, uint32_t agno,
		       const struct xfsj_btree_blocks *blocks,
		       struct xfsj_fault *f, struct xfsj_btree_cur **out)
{
	const struct xfsj_btree_ops *ops = xfsj_btree_ops_get(bt);
	const struct xfsj_sb *sb = xfsj_fs_sb(fs);
	const struct xfsj_btree_shape *shape;
	struct xfsj_btree_cur *cur;
	uint32_t root;
	uint16_t keylen;
	int err;

	*out = NULL;
	shape = xfsj_btree_shape(bt);
	/* The bmbt's root is in an inode: no AG cursor for it (bmbt.h). */
	if (!ops || !shape || shape->long_ptrs)
		return xfsj_fault_set(f, XFSJ_E_INVAL, "btree", "type", 0, bt);
	if (shape->need_ro_compat && !xfsj_fs_has(fs, shape->need_ro_compat))
		return xfsj_fault_set(f, XFSJ_E_UNSUPP, shape->name, "feature",
				      0, shape->need_ro_compat);
	if (agno >= sb->agcount)
		return xfsj_fault_set(f, XFSJ_E_RANGE, shape->name, "agno", 0,
				      agno);
	keylen = shape->keylen / (shape->overlapping ? 2 : 1);
	if (keylen > XFSJ_BKEY_MAX || shape->reclen > XFSJ_BREC_MAX)
		return xfsj_fault_set(f, XFSJ_E_INVAL, shape->name, "shape", 0,
				      bt);
	cur = calloc(1, sizeof(*cur));
	if (!cur)
		return -XFSJ_E_NOMEM;
	cur->fs = fs;
	cur->ops = ops;
	cur->shape = shape;
	cur->keylen = keylen;
	cur->blocks = blocks;
	cur->f = f;
	cur->bt = bt;
	cur->agno = agno;
	cur->blocksize = sb->blocksize;
	xfsj_fs_vctx(fs, agno, &cur->vc);
	cur->agblocks = cur->vc.agblocks;
	/* Btree blocks live past the AGFL's block (kernel: verify_agbno). */
	cur->min_agbno = (uint32_t)((3ULL * sb->sectsize) >> sb->blocklog) + 1;
	cur->sparse = xfsj_fs_has_incompat(fs, XFSJ_INCOMPAT_SPINODES);
	cur->inobtcnt = xfsj_fs_has(fs, XFSJ_RO_COMPAT_INOBTCNT);
	for (int i = 0; i < 2; i++) {
		cur->maxrecs[i] = (int)xfsj_btree_maxrecs(bt, sb->blocksize,
							  i == 0);
		cur->minrecs[i] = cur->maxrecs[i] / 2;
	}
	if (bt == XFSJ_BT_INO || bt == XFSJ_BT_FINO)
		err = xfsj_agi_read(fs, agno, &cur->hdr, f);
	else
		err = xfsj_agf_read(fs, agno, &cur->hdr, f);
	if (!err)
		err = xfsj_bt_load_root(cur, &root);
	if (err) {
		free(cur);
		return err;
	}
	*out = cur;
	return 0;
}

void xfsj_btree_cur_free(struct xfsj_btree_cur *cur)
{
	free(cur);
}

enum xfsj_btnum xfsj_btree_cur_btnum(const struct xfsj_btree_cur *cur)
{
	return cur->bt;
}

uint32_t xfsj_btree_cur_agno(const struct xfsj_btree_cur *cur)
{
	return cur->agno;
}

struct xfsj_fs *xfsj_btree_cur_fs(const struct xfsj_btree_cur *cur)
{
	return cur->fs;
}

unsigned int xfsj_btree_height(const struct xfsj_btree_cur *cur)
{
	return (unsigned int)cur->nlevels;
}

static struct xfsj_btree_cur *dup_cursor(const struct xfsj_btree_cur *cur)
{
	struct xfsj_btree_cur *n = malloc(sizeof(*n));

	if (n)
		*n = *cur;
	return n;
}

/* ---- moving the cursor ---- */

int xfsj_bt_corrupt_path(const struct xfsj_btree_cur *cur, int level)
{
	const struct xfsj_buf *bp = cur->lev[level].bp;

	return xfsj_bt_fault(cur, XFSJ_E_CORRUPT, "path",
			     bp ? bp->daddr << 9 : 0, (uint64_t)level);
}

/* The cursor's entry at @level is inside its block. */
static bool path_ok(const struct xfsj_btree_cur *cur, int level)
{
	const struct xfsj_buf *bp = cur->lev[level].bp;
	int ptr = cur->lev[level].ptr;

	return bp && ptr >= 1 && ptr <= bb_numrecs(bp->data);
}

int xfsj_bt_increment(struct xfsj_btree_cur *cur, int level, int *stat)
{
	struct xfsj_buf *bp = cur->lev[level].bp;
	int lev, err;

	*stat = 0;
	if (level < 0 || level >= cur->nlevels || !bp)
		return 0;
	if (++cur->lev[level].ptr <= bb_numrecs(bp->data)) {
		*stat = 1;
		return 0;
	}
	if (bb_rightsib(bp->data) == NULLBLK)
		return 0;
	/* Climb until a level can move right without leaving its block. */
	for (lev = level + 1; lev < cur->nlevels; lev++) {
		bp = cur->lev[lev].bp;
		if (!bp)
			return xfsj_bt_corrupt_path(cur, lev);
		if (++cur->lev[lev].ptr <= bb_numrecs(bp->data))
			break;
	}
	if (lev == cur->nlevels)
		return xfsj_bt_corrupt_path(cur, level);
	/* And come back down along the leftmost edge. */
	while (lev > level) {
		uint32_t agbno;
		uint64_t src;

		if (!path_ok(cur, lev))
			return xfsj_bt_corrupt_path(cur, lev);
		agbno = get_ptr(cur, cur->lev[lev].ptr, cur->lev[lev].bp->data);
		src = ptr_src(cur, cur->lev[lev].bp, cur->lev[lev].ptr);
		lev--;
		err = xfsj_bt_read_block(cur, agbno, lev, src, &bp);
		if (err)
			return err;
		xfsj_bt_setbuf(cur, lev, bp, agbno);
		cur->lev[lev].ptr = 1;
	}
	*stat = 1;
	return 0;
}

static int decrement(struct xfsj_btree_cur *cur, int level, int *stat)
{
	struct xfsj_buf *bp = cur->lev[level].bp;
	int lev, err;

	*stat = 0;
	if (level < 0 || level >= cur->nlevels || !bp)
		return 0;
	if (--cur->lev[level].ptr > 0) {
		*stat = 1;
		return 0;
	}
	if (bb_leftsib(bp->data) == NULLBLK)
		return 0;
	for (lev = level + 1; lev < cur->nlevels; lev++) {
		if (!cur->lev[lev].bp)
			return xfsj_bt_corrupt_path(cur, lev);
		if (--cur->lev[lev].ptr > 0)
			break;
	}
	if (lev == cur->nlevels)
		return xfsj_bt_corrupt_path(cur, level);
	while (lev > level) {
		uint32_t agbno;
		uint64_t src;

		if (!path_ok(cur, lev))
			return xfsj_bt_corrupt_path(cur, lev);
		agbno = get_ptr(cur, cur->lev[lev].ptr, cur->lev[lev].bp->data);
		src = ptr_src(cur, cur->lev[lev].bp, cur->lev[lev].ptr);
		lev--;
		err = xfsj_bt_read_block(cur, agbno, lev, src, &bp);
		if (err)
			return err;
		xfsj_bt_setbuf(cur, lev, bp, agbno);
		cur->lev[lev].ptr = bb_numrecs(bp->data);
	}
	*stat = 1;
	return 0;
}

int xfsj_btree_increment(struct xfsj_btree_cur *cur, int level, int *stat)
{
	return xfsj_bt_increment(cur, level, stat);
}

int xfsj_btree_decrement(struct xfsj_btree_cur *cur, int level, int *stat)
{
	return decrement(cur, level, stat);
}

/*
 * The kernel's lookup: a binary search per level, following the last key
 * not above the search key; below the root an exact match at a higher
 * level means the first entry.  What the cursor points at when nothing
 * matches is part of the contract callers rely on: for LE the last
 * smaller record (index 0 when none), for EQ and GE the place the key
 * would be inserted, moved into the right sibling for GE.
 */
int xfsj_bt_lookup_key(struct xfsj_btree_cur *cur, enum xfsj_lookup dir,
		       const uint8_t *key, int *stat)
{
	uint8_t rk[XFSJ_BKEY_MAX];
	struct xfsj_buf *bp = NULL;
	uint64_t src = cur->hdr->daddr << 9;
	uint8_t *b = NULL;
	uint32_t agbno;
	int level, keyno = 0, diff = 1, err;

	*stat = 0;
	err = xfsj_bt_load_root(cur, &agbno);
	if (err)
		return err;
	for (level = cur->nlevels - 1; level >= 0; level--) {
		err = xfsj_bt_read_block(cur, agbno, level, src, &bp);
		if (err)
			return err;
		xfsj_bt_setbuf(cur, level, bp, agbno);
		b = bp->data;
		if (diff == 0) {
			keyno = 1;
		} else {
			int low = 1, high = bb_numrecs(b);

			if (!high) {
				if (level != 0 || cur->nlevels != 1)
					return xfsj_bt_corrupt_path(cur, level);
				cur->lev[0].ptr = dir != XFSJ_LOOKUP_LE;
				return 0;
			}
			while (low <= high) {
				const uint8_t *kp;

				keyno = (low + high) >> 1;
				if (level == 0) {
					cur->ops->key_from_rec(rk,
						rec_addr(cur, keyno, b));
					kp = rk;
				} else {
					kp = key_addr(cur, keyno, b);
				}
				diff = keycmp(cur, kp, key);
				if (diff < 0)
					low = keyno + 1;
				else if (diff > 0)
					high = keyno - 1;
				else
					break;
			}
		}
		if (level > 0) {
			if (diff > 0 && --keyno < 1)
				keyno = 1;
			agbno = get_ptr(cur, keyno, b);
			src = ptr_src(cur, bp, keyno);
			cur->lev[level].ptr = keyno;
		}
	}
	if (dir != XFSJ_LOOKUP_LE && diff < 0) {
		keyno++;
		if (dir == XFSJ_LOOKUP_GE && keyno > bb_numrecs(b) &&
		    bb_rightsib(b) != NULLBLK) {
			int i;

			cur->lev[0].ptr = keyno;
			err = xfsj_bt_increment(cur, 0, &i);
			if (err)
				return err;
			if (i != 1)
				return xfsj_bt_corrupt_path(cur, 0);
			*stat = 1;
			return 0;
		}
	} else if (dir == XFSJ_LOOKUP_LE && diff > 0) {
		keyno--;
	}
	cur->lev[0].ptr = keyno;
	if (keyno == 0 || keyno > bb_numrecs(b))
		*stat = 0;
	else
		*stat = dir != XFSJ_LOOKUP_EQ || diff == 0;
	return 0;
}

void xfsj_bt_rec_key(const struct xfsj_btree_cur *cur,
		     const union xfsj_btree_irec *irec, uint8_t *rec,
		     uint8_t *key)
{
	memset(rec, 0, XFSJ_BREC_MAX);
	memset(key, 0, 2 * XFSJ_BKEY_MAX);
	cur->ops->rec_encode(cur, irec, rec);
	cur->ops->key_from_rec(key, rec);
}

int xfsj_btree_lookup(struct xfsj_btree_cur *cur, enum xfsj_lookup dir,
		      const union xfsj_btree_irec *irec, int *stat)
{
	uint8_t rec[XFSJ_BREC_MAX], key[2 * XFSJ_BKEY_MAX];

	xfsj_bt_rec_key(cur, irec, rec, key);
	return xfsj_bt_lookup_key(cur, dir, key, stat);
}

int xfsj_btree_get_rec(struct xfsj_btree_cur *cur,
		       union xfsj_btree_irec *irec, int *stat)
{
	struct xfsj_buf *bp = cur->lev[0].bp;
	int ptr = cur->lev[0].ptr;

	*stat = 0;
	if (!bp || ptr <= 0 || ptr > bb_numrecs(bp->data))
		return 0;
	cur->ops->rec_decode(cur, rec_addr(cur, ptr, bp->data), irec);
	*stat = 1;
	return 0;
}

/* ---- key updates ---- */

static bool needs_key_update(const struct xfsj_btree_cur *cur, int ptr)
{
	return cur->shape->overlapping || ptr == 1;
}

/*
 * Overlapping trees: the low and high keys of each ancestor, up to the
 * first one that does not change (or all of them with @force).
 */
static void updkeys_overlapped(struct xfsj_btree_cur *cur, int level,
			       bool force)
{
	uint8_t key[2 * XFSJ_BKEY_MAX];
	unsigned int kl = cur->keylen;

	if (level + 1 >= cur->nlevels)
		return;
	xfsj_bt_get_keys(cur, cur->lev[level].bp->data, key);
	for (level++; level < cur->nlevels; level++) {
		struct xfsj_buf *bp = cur->lev[level].bp;
		uint8_t *nk;

		if (!path_ok(cur, level))
			break;
		nk = key_addr(cur, cur->lev[level].ptr, bp->data);

		if (!force && keycmp(cur, nk, key) == 0 &&
		    keycmp(cur, nk + kl, key + kl) == 0)
			break;
		memcpy(nk, key, 2 * kl);
		xfsj_buf_dirty(bp);
		if (level + 1 >= cur->nlevels)
			break;
		xfsj_bt_get_keys(cur, bp->data, key);
	}
}

static void update_keys(struct xfsj_btree_cur *cur, int level)
{
	uint8_t key[2 * XFSJ_BKEY_MAX];
	int ptr;

	if (bb_numrecs(cur->lev[level].bp->data) == 0)
		return;
	if (cur->shape->overlapping) {
		updkeys_overlapped(cur, level, false);
		return;
	}
	/* A first key changes the parent's key; stop where it is not first. */
	xfsj_bt_get_keys(cur, cur->lev[level].bp->data, key);
	for (level++, ptr = 1; ptr == 1 && level < cur->nlevels; level++) {
		struct xfsj_buf *bp = cur->lev[level].bp;

		if (!path_ok(cur, level))
			break;
		ptr = cur->lev[level].ptr;
		memcpy(key_addr(cur, ptr, bp->data), key, cur->shape->keylen);
		xfsj_buf_dirty(bp);
	}
}

static bool is_lastrec(const struct xfsj_btree_cur *cur, const uint8_t *b,
		       int level)
{
	return level == 0 && cur->ops->lastrec && bb_rightsib(b) == NULLBLK;
}

int xfsj_btree_update(struct xfsj_btree_cur *cur,
		      const union xfsj_btree_irec *irec)
{
	struct xfsj_buf *bp = cur->lev[0].bp;
	int ptr = cur->lev[0].ptr;
	uint8_t *rp;

	if (!bp || ptr <= 0 || ptr > bb_numrecs(bp->data))
		return xfsj_bt_fault(cur, XFSJ_E_INVAL, "cursor", 0,
				     (uint64_t)ptr);
	rp = rec_addr(cur, ptr, bp->data);
	cur->ops->rec_encode(cur, irec, rp);
	xfsj_buf_dirty(bp);
	if (is_lastrec(cur, bp->data, 0))
		cur->ops->update_lastrec(cur, bp->data, rp, ptr,
					 XFSJ_LASTREC_UPDATE);
	if (needs_key_update(cur, ptr))
		update_keys(cur, 0);
	return 0;
}

/* ---- insert ---- */

/*
 * Move the first entry of the cursor's block to its left sibling, unless
 * that is the entry the cursor is at.
 */
static int lshift(struct xfsj_btree_cur *cur, int level, int *stat)
{
	struct xfsj_buf *rbp = cur->lev[level].bp, *lbp;
	uint8_t *right = rbp->data, *left;
	uint32_t lagbno = bb_leftsib(right);
	int lrecs, rrecs, err;

	*stat = 0;
	if (lagbno == NULLBLK || cur->lev[level].ptr <= 1)
		return 0;
	err = xfsj_bt_read_block(cur, lagbno, level, sib_src(rbp, false), &lbp);
	if (err)
		return err;
	left = lbp->data;
	lrecs = bb_numrecs(left);
	if (lrecs == maxrecs(cur, level))
		return 0;
	rrecs = bb_numrecs(right);
	lrecs++;
	rrecs--;
	move_entries(cur, level, left, lrecs, right, 1, 1);
	bb_set_numrecs(left, lrecs);
	bb_set_numrecs(right, rrecs);
	move_entries(cur, level, right, 1, right, 2, rrecs);
	xfsj_buf_dirty(lbp);
	xfsj_buf_dirty(rbp);

	if (cur->shape->overlapping) {
		struct xfsj_btree_cur tcur = *cur;
		int i;

		/* The left block's high key may have grown. */
		tcur.lev[level].ptr = 1;
		err = decrement(&tcur, level, &i);
		if (err)
			return err;
		if (i != 1)
			return xfsj_bt_corrupt_path(cur, level);
		update_keys(&tcur, level);
	}
	update_keys(cur, level);
	cur->lev[level].ptr--;
	*stat = 1;
	return 0;
}

/*
 * Move the last entry of the cursor's block to its right sibling, unless
 * the cursor is at (or past) that entry.
 */
static int rshift(struct xfsj_btree_cur *cur, int level, int *stat)
{
	struct xfsj_buf *lbp = cur->lev[level].bp, *rbp;
	uint8_t *left = lbp->data, *right;
	uint32_t ragbno = bb_rightsib(left);
	struct xfsj_btree_cur tcur;
	int lrecs, rrecs, err, i;

	*stat = 0;
	if (ragbno == NULLBLK)
		return 0;
	lrecs = bb_numrecs(left);
	if (cur->lev[level].ptr >= lrecs)
		return 0;
	err = xfsj_bt_read_block(cur, ragbno, level, sib_src(lbp, true), &rbp);
	if (err)
		return err;
	right = rbp->data;
	rrecs = bb_numrecs(right);
	if (rrecs == maxrecs(cur, level))
		return 0;
	move_entries(cur, level, right, 2, right, 1, rrecs);
	move_entries(cur, level, right, 1, left, lrecs, 1);
	bb_set_numrecs(left, --lrecs);
	bb_set_numrecs(right, ++rrecs);
	xfsj_buf_dirty(lbp);
	xfsj_buf_dirty(rbp);

	/* A second cursor on the right block updates its parent keys. */
	tcur = *cur;
	tcur.lev[level].ptr = lrecs;
	err = xfsj_bt_increment(&tcur, level, &i);
	if (err)
		return err;
	if (i != 1)
		return xfsj_bt_corrupt_path(cur, level);
	if (cur->shape->overlapping)
		update_keys(cur, level);
	update_keys(&tcur, level);
	*stat = 1;
	return 0;
}

/*
 * Split the cursor's block in half into a new right sibling.  With an odd
 * count, the half the new entry goes into gets one fewer.  Returns the
 * new block and its key for the parent, and a cursor for the parent level
 * pointing just after the old block's entry.
 */
static int split(struct xfsj_btree_cur *cur, int level, uint32_t *nagbno,
		 uint8_t *key, struct xfsj_btree_cur **ncur, int *stat)
{
	struct xfsj_buf *lbp = cur->lev[level].bp, *rbp;
	uint32_t lagbno = cur->lev[level].agbno, ragbno, rragbno;
	uint8_t *left = lbp->data, *right;
	int lrecs, rrecs, src, err;

	*stat = 0;
	err = alloc_block(cur, lagbno, bb_level(left), &rbp, &ragbno);
	if (err)
		return err;
	right = rbp->data;
	lrecs = bb_numrecs(left);
	rrecs = lrecs / 2;
	if ((lrecs & 1) && cur->lev[level].ptr <= rrecs + 1)
		rrecs++;
	src = lrecs - rrecs + 1;
	lrecs -= rrecs;
	bb_set_numrecs(left, lrecs);
	bb_set_numrecs(right, rrecs);
	move_entries(cur, level, right, 1, left, src, rrecs);
	xfsj_bt_get_keys(cur, right, key);

	rragbno = bb_rightsib(left);
	bb_set_rightsib(right, rragbno);
	bb_set_leftsib(right, lagbno);
	bb_set_rightsib(left, ragbno);
	xfsj_buf_dirty(lbp);
	xfsj_buf_dirty(rbp);
	if (rragbno != NULLBLK) {
		struct xfsj_buf *rrbp;

		err = xfsj_bt_read_block(cur, rragbno, level,
					 sib_src(rbp, true), &rrbp);
		if (err)
			return err;
		bb_set_leftsib(rrbp->data, ragbno);
		xfsj_buf_dirty(rrbp);
	}
	if (cur->shape->overlapping)
		update_keys(cur, level);

	/* Past the end of the left block stays in the left block. */
	if (cur->lev[level].ptr > lrecs + 1) {
		xfsj_bt_setbuf(cur, level, rbp, ragbno);
		cur->lev[level].ptr -= lrecs;
	}
	if (level + 1 < cur->nlevels) {
		*ncur = dup_cursor(cur);
		if (!*ncur)
			return -XFSJ_E_NOMEM;
		(*ncur)->lev[level + 1].ptr++;
	}
	*nagbno = ragbno;
	*stat = 1;
	return 0;
}

/* The root split: a new root above the two halves. */
static int new_root(struct xfsj_btree_cur *cur, int *stat)
{
	int top = cur->nlevels - 1, nptr, err;
	struct xfsj_buf *bp = cur->lev[top].bp, *nbp, *obp;
	uint32_t old_root, nagbno, lagbno, ragbno;
	uint8_t *left, *right, *nb;

	*stat = 0;
	if (!bp)
		return xfsj_bt_corrupt_path(cur, top);
	if (cur->nlevels >= XFSJ_BTREE_MAXLEVELS)
		return xfsj_bt_fault(cur, XFSJ_E_RANGE, "levels",
				     cur->hdr->daddr << 9,
				     (uint64_t)cur->nlevels);
	cur->ops->get_root(cur, &old_root, &(uint32_t){ 0 });
	err = alloc_block(cur, old_root, cur->nlevels, &nbp, &nagbno);
	if (err)
		return err;
	cur->ops->set_root(cur, nagbno, 1);

	/* The cursor is in one of the two halves; find the other. */
	ragbno = bb_rightsib(bp->data);
	if (ragbno != NULLBLK) {
		lagbno = cur->lev[top].agbno;
		err = xfsj_bt_read_block(cur, ragbno, top,
					 sib_src(bp, true), &obp);
		left = bp->data;
		right = err ? NULL : obp->data;
		nptr = 1;
	} else {
		ragbno = cur->lev[top].agbno;
		lagbno = bb_leftsib(bp->data);
		err = xfsj_bt_read_block(cur, lagbno, top,
					 sib_src(bp, false), &obp);
		right = bp->data;
		left = err ? NULL : obp->data;
		nptr = 2;
	}
	if (err)
		return err;
	nb = nbp->data;
	bb_set_numrecs(nb, 2);
	xfsj_bt_get_keys(cur, left, key_addr(cur, 1, nb));
	xfsj_bt_get_keys(cur, right, key_addr(cur, 2, nb));
	xfsj_put_be32(ptr_addr(cur, 1, nb), lagbno);
	xfsj_put_be32(ptr_addr(cur, 2, nb), ragbno);
	xfsj_buf_dirty(nbp);

	xfsj_bt_setbuf(cur, cur->nlevels, nbp, nagbno);
	cur->lev[cur->nlevels].ptr = nptr;
	cur->nlevels++;
	*stat = 1;
	return 0;
}

static int make_block_unfull(struct xfsj_btree_cur *cur, int level,
			     int *oindex, int *index, uint32_t *nagbno,
			     struct xfsj_btree_cur **ncur, uint8_t *key,
			     int *stat)
{
	int err;

	err = rshift(cur, level, stat);
	if (err || *stat)
		return err;
	err = lshift(cur, level, stat);
	if (err)
		return err;
	if (*stat) {
		*oindex = *index = cur->lev[level].ptr;
		return 0;
	}
	err = split(cur, level, nagbno, key, ncur, stat);
	if (err || !*stat)
		return err;
	*index = cur->lev[level].ptr;
	return 0;
}

/*
 * Insert one entry at @level: the record at the leaves, @key and @agbno
 * above.  On return *agbno is the block a split made (NULLBLK if none),
 * @key its key, and *curp the cursor to insert them with.
 */
static int insrec(struct xfsj_btree_cur *cur, int level, uint32_t *agbno,
		  const uint8_t *rec, uint8_t *key,
		  struct xfsj_btree_cur **curp, int *stat)
{
	struct xfsj_btree_cur *ncur = NULL;
	uint8_t nkey[2 * XFSJ_BKEY_MAX];
	uint32_t nagbno = NULLBLK, old_bn;
	struct xfsj_buf *bp;
	int ptr, optr, numrecs, err;
	uint8_t *b;

	*stat = 0;
	if (level >= cur->nlevels) {
		err = new_root(cur, stat);
		*agbno = NULLBLK;
		return err;
	}
	ptr = cur->lev[level].ptr;
	if (ptr == 0)
		return 0;
	optr = ptr;
	bp = cur->lev[level].bp;
	if (!bp)
		return xfsj_bt_corrupt_path(cur, level);
	old_bn = cur->lev[level].agbno;
	numrecs = bb_numrecs(bp->data);
	if (ptr > numrecs + 1)
		return xfsj_bt_corrupt_path(cur, level);

	memset(nkey, 0, sizeof(nkey));
	if (numrecs == maxrecs(cur, level)) {
		err = make_block_unfull(cur, level, &optr, &ptr, &nagbno,
					&ncur, nkey, stat);
		if (err || !*stat)
			goto fail;
	}
	bp = cur->lev[level].bp;
	b = bp->data;
	numrecs = bb_numrecs(b);
	move_entries(cur, level, b, ptr + 1, b, ptr, numrecs - ptr + 1);
	if (level > 0) {
		memcpy(key_addr(cur, ptr, b), key, cur->shape->keylen);
		xfsj_put_be32(ptr_addr(cur, ptr, b), *agbno);
	} else {
		memcpy(rec_addr(cur, ptr, b), rec, cur->shape->reclen);
	}
	bb_set_numrecs(b, ++numrecs);
	xfsj_buf_dirty(bp);

	/*
	 * Into the new block: its key for the parent is recomputed below.
	 * Into the old one: the usual update of the parents' keys.
	 */
	if (cur->lev[level].agbno != old_bn)
		xfsj_bt_get_keys(cur, b, nkey);
	else if (needs_key_update(cur, optr))
		update_keys(cur, level);
	if (is_lastrec(cur, b, level))
		cur->ops->update_lastrec(cur, b, rec, ptr,
					 XFSJ_LASTREC_INSREC);
	*agbno = nagbno;
	if (nagbno != NULLBLK) {
		memcpy(key, nkey, cur->shape->keylen);
		*curp = ncur;
	} else {
		free(ncur);
	}
	*stat = 1;
	return 0;
fail:
	free(ncur);
	return err;
}

/* Is the cursor where @key belongs (within its leaf)? */
static bool insert_point_ok(const struct xfsj_btree_cur *cur,
			    const uint8_t *key)
{
	struct xfsj_buf *bp = cur->lev[0].bp;
	uint8_t k[XFSJ_BKEY_MAX];
	int ptr = cur->lev[0].ptr, n;

	if (!bp || cur->nlevels < 1)
		return false;
	n = bb_numrecs(bp->data);
	if (ptr < 1 || ptr > n + 1)
		return false;
	if (ptr > 1) {
		cur->ops->key_from_rec(k, rec_addr(cur, ptr - 1, bp->data));
		if (keycmp(cur, k, key) >= 0)
			return false;
	}
	if (ptr <= n) {
		cur->ops->key_from_rec(k, rec_addr(cur, ptr, bp->data));
		if (keycmp(cur, key, k) >= 0)
			return false;
	}
	return true;
}

int xfsj_btree_insert(struct xfsj_btree_cur *cur,
		      const union xfsj_btree_irec *irec, int *stat)
{
	uint8_t rec[XFSJ_BREC_MAX], key[2 * XFSJ_BKEY_MAX];
	uint8_t rkey[2 * XFSJ_BKEY_MAX];
	struct xfsj_btree_cur *pcur = cur, *ncur = NULL;
	uint32_t nagbno = NULLBLK, root;
	bool moved = false;
	int level = 0, i = 0, err;

	*stat = 0;
	xfsj_bt_rec_key(cur, irec, rec, key);
	memcpy(rkey, key, sizeof(rkey));
	err = xfsj_bt_load_root(cur, &root);
	if (err)
		return err;
	/*
	 * The kernel trusts the caller's lookup; a cursor left somewhere
	 * else would corrupt the order, so look the place up again then.
	 */
	if (!insert_point_ok(cur, key)) {
		err = xfsj_bt_lookup_key(cur, XFSJ_LOOKUP_EQ, key, &i);
		if (err)
			return err;
		if (i)
			return xfsj_bt_fault(cur, XFSJ_E_INVAL, "duplicate key",
					     cur->lev[0].bp->daddr << 9,
					     (uint64_t)cur->lev[0].ptr);
	}
	do {
		err = insrec(pcur, level, &nagbno, rec, key, &ncur, &i);
		if (err) {
			if (pcur != cur)
				free(pcur);
			return err;
		}
		if (i != 1) {
			if (pcur != cur)
				free(pcur);
			return xfsj_bt_corrupt_path(cur, level);
		}
		level++;
		if (pcur != cur && (ncur || nagbno == NULLBLK)) {
			cur->nlevels = pcur->nlevels;
			free(pcur);
		}
		if (ncur) {
			pcur = ncur;
			ncur = NULL;
			moved = true;
		}
	} while (nagbno != NULLBLK);

	/*
	 * After splits above the leaf the cursor's upper path is stale (the
	 * kernel leaves it so); repoint it at the new record.
	 */
	if (moved) {
		err = xfsj_bt_lookup_key(cur, XFSJ_LOOKUP_EQ, rkey, &i);
		if (err)
			return err;
		if (i != 1)
			return xfsj_bt_corrupt_path(cur, 0);
	}
	*stat = 1;
	return 0;
}

/* ---- delete ---- */

static int kill_root(struct xfsj_btree_cur *cur, int level, uint32_t newroot)
{
	int err;

	cur->ops->set_root(cur, newroot, -1);
	err = free_block(cur, cur->lev[level].bp, cur->lev[level].agbno);
	if (err)
		return err;
	cur->lev[level].bp = NULL;
	cur->nlevels--;
	return 0;
}

static int dec_cursor(struct xfsj_btree_cur *cur, int level, int *stat)
{
	int i;

	*stat = 1;
	if (level > 0)
		return decrement(cur, level, &i);
	return 0;
}

static int lastrec(struct xfsj_btree_cur *cur, int level)
{
	int n = bb_numrecs(cur->lev[level].bp->data);

	if (!n)
		return xfsj_bt_corrupt_path(cur, level);
	cur->lev[level].ptr = n;
	return 0;
}

static int firstrec(struct xfsj_btree_cur *cur, int level)
{
	if (!bb_numrecs(cur->lev[level].bp->data))
		return xfsj_bt_corrupt_path(cur, level);
	cur->lev[level].ptr = 1;
	return 0;
}

/*
 * Delete the entry at the cursor on @level and rebalance: *stat 0 when
 * there was nothing to delete, 1 when done, 2 when two blocks were joined
 * and the parent level must drop the entry of the freed one.
 */
static int delrec(struct xfsj_btree_cur *cur, int level, int *stat)
{
	struct xfsj_buf *bp = cur->lev[level].bp, *lbp, *rbp;
	uint32_t lagbno, ragbno, myagbno = cur->lev[level].agbno, cagbno;
	struct xfsj_btree_cur tcur;
	int ptr = cur->lev[level].ptr, numrecs, lrecs = 0, rrecs = 0, i, err;
	uint8_t *b, *left, *right;

	*stat = 0;
	if (ptr == 0 || !bp)
		return 0;
	b = bp->data;
	numrecs = bb_numrecs(b);
	if (ptr > numrecs)
		return 0;

	move_entries(cur, level, b, ptr, b, ptr + 1, numrecs - ptr);
	bb_set_numrecs(b, --numrecs);
	xfsj_buf_dirty(bp);
	if (is_lastrec(cur, b, level))
		cur->ops->update_lastrec(cur, b, NULL, ptr,
					 XFSJ_LASTREC_DELREC);

	/* The root: drop a level when a node is left with one child. */
	if (level == cur->nlevels - 1) {
		if (numrecs == 1 && level > 0) {
			err = kill_root(cur, level, get_ptr(cur, 1, b));
			if (err)
				return err;
		} else if (level > 0) {
			err = dec_cursor(cur, level, stat);
			if (err)
				return err;
		}
		*stat = 1;
		return 0;
	}
	if (needs_key_update(cur, ptr))
		update_keys(cur, level);
	if (numrecs >= minrecs(cur, level))
		return dec_cursor(cur, level, stat);

	/* Below half full: borrow one entry from the right, then the left. */
	ragbno = bb_rightsib(b);
	lagbno = bb_leftsib(b);
	if (ragbno == NULLBLK && lagbno == NULLBLK)
		return xfsj_bt_corrupt_path(cur, level);
	tcur = *cur;
	cagbno = NULLBLK;
	if (ragbno != NULLBLK) {
		err = lastrec(&tcur, level);
		if (!err)
			err = xfsj_bt_increment(&tcur, level, &i);
		if (!err && i != 1)
			err = xfsj_bt_corrupt_path(cur, level);
		if (!err)
			err = lastrec(&tcur, level);
		if (err)
			return err;
		right = tcur.lev[level].bp->data;
		cagbno = bb_leftsib(right);
		if (bb_numrecs(right) - 1 >= minrecs(cur, level)) {
			err = lshift(&tcur, level, &i);
			if (err)
				return err;
			if (i)
				return dec_cursor(cur, level, stat);
		}
		rrecs = bb_numrecs(right);
		if (lagbno != NULLBLK) {
			err = firstrec(&tcur, level);
			if (!err)
				err = decrement(&tcur, level, &i);
			if (!err && i != 1)
				err = xfsj_bt_corrupt_path(cur, level);
			if (err)
				return err;
		}
	}
	if (lagbno != NULLBLK) {
		err = firstrec(&tcur, level);
		if (!err)
			err = decrement(&tcur, level, &i);
		if (!err)
			err = firstrec(&tcur, level);
		if (err)
			return err;
		left = tcur.lev[level].bp->data;
		cagbno = bb_rightsib(left);
		if (bb_numrecs(left) - 1 >= minrecs(cur, level)) {
			err = rshift(&tcur, level, &i);
			if (err)
				return err;
			if (i) {
				if (level == 0)
					cur->lev[0].ptr++;
				*stat = 1;
				return 0;
			}
		}
		lrecs = bb_numrecs(left);
	}
	/* The siblings must agree about which block we are. */
	if (cagbno != myagbno)
		return xfsj_bt_fault(cur, XFSJ_E_CORRUPT, "sibling",
				     bp->daddr << 9, cagbno);

	/* Join: everything of the right block moves into the left one. */
	if (lagbno != NULLBLK &&
	    lrecs + bb_numrecs(b) <= maxrecs(cur, level)) {
		ragbno = myagbno;
		rbp = bp;
		err = xfsj_bt_read_block(cur, lagbno, level,
					 sib_src(bp, false), &lbp);
	} else if (ragbno != NULLBLK &&
		   rrecs + bb_numrecs(b) <= maxrecs(cur, level)) {
		lagbno = myagbno;
		lbp = bp;
		err = xfsj_bt_read_block(cur, ragbno, level,
					 sib_src(bp, true), &rbp);
	} else {
		return dec_cursor(cur, level, stat);
	}
	if (err)
		return err;
	left = lbp->data;
	right = rbp->data;
	rrecs = bb_numrecs(right);
	lrecs = bb_numrecs(left);
	move_entries(cur, level, left, lrecs + 1, right, 1, rrecs);
	bb_set_numrecs(left, lrecs + rrecs);
	cagbno = bb_rightsib(right);
	bb_set_rightsib(left, cagbno);
	xfsj_buf_dirty(lbp);
	if (cagbno != NULLBLK) {
		struct xfsj_buf *rrbp;

		err = xfsj_bt_read_block(cur, cagbno, level,
					 sib_src(rbp, true), &rrbp);
		if (err)
			return err;
		bb_set_leftsib(rrbp->data, lagbno);
		xfsj_buf_dirty(rrbp);
	}
	err = free_block(cur, rbp, ragbno);
	if (err)
		return err;

	if (bp != lbp) {
		xfsj_bt_setbuf(cur, level, lbp, lagbno);
		cur->lev[level].ptr += lrecs;
	} else if (level + 1 < cur->nlevels) {
		/* The parent entry to delete is the right block's. */
		err = xfsj_bt_increment(cur, level + 1, &i);
		if (err)
			return err;
	}
	if (level > 0)
		cur->lev[level].ptr--;
	*stat = 2;
	return 0;
}

int xfsj_btree_delete(struct xfsj_btree_cur *cur, int *stat)
{
	bool joined = false;
	int level, i, err;

	*stat = 0;
	for (level = 0, i = 2; i == 2; level++) {
		if (level >= cur->nlevels)
			return xfsj_bt_corrupt_path(cur, level - 1);
		err = delrec(cur, level, &i);
		if (err)
			return err;
		if (i == 2)
			joined = true;
	}
	/* A join leaves the parents' high keys to be redone from the leaf. */
	if (joined && cur->shape->overlapping && cur->lev[0].bp &&
	    bb_numrecs(cur->lev[0].bp->data))
		updkeys_overlapped(cur, 0, true);
	if (i == 0) {
		for (level = 1; level < cur->nlevels; level++) {
			if (cur->lev[level].ptr == 0) {
				err = decrement(cur, level, &i);
				if (err)
					return err;
				break;
			}
		}
	}
	*stat = i;
	return 0;
}
