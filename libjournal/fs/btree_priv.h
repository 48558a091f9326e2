/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Private parts of the generic btree shared by btree.c (the algorithms)
 * and btree_ag.c (what differs between the per-AG trees).
 *
 * The engine moves records and keys around as raw on-disk bytes, as the
 * kernel does, so a key is whatever the tree stores in its nodes: the ops
 * table says how a key is made from a record and how two keys compare.
 * Overlapping trees (rmapbt) store a low and a high key per child; the
 * ops key length is then that of one of the two.
 */
#ifndef XFSJ_BTREE_PRIV_H
#define XFSJ_BTREE_PRIV_H

#include "fs/btree.h"

#define XFSJ_BKEY_MAX	20	/* one key, low or high (rmapbt: 4 + 8 + 8) */
#define XFSJ_BREC_MAX	24	/* rmapbt record */

struct xfsj_btree_cur;

/* Why the last record of the last leaf may have changed (cntbt). */
enum xfsj_lastrec_why { XFSJ_LASTREC_UPDATE, XFSJ_LASTREC_INSREC,
			XFSJ_LASTREC_DELREC };

/*
 * What the engine needs beyond the tree's description (xfsj_btree_shape:
 * sizes, magic, overlapping keys, the feature it needs), which it looks
 * up by @bt.  The record hooks take no cursor state but the inobt's
 * record format (cur->sparse); the bmbt's row has no AG header hooks.
 */
struct xfsj_btree_ops {
	enum xfsj_btnum bt;
	bool lastrec;			/* keeps AGF longest (cntbt) */

	void (*rec_encode)(const struct xfsj_btree_cur *cur,
			   const union xfsj_btree_irec *irec, uint8_t *rec);
	void (*rec_decode)(const struct xfsj_btree_cur *cur,
			   const uint8_t *rec, union xfsj_btree_irec *irec);
	void (*key_from_rec)(uint8_t *key, const uint8_t *rec);
	/* The highest key the record covers (overlapping query, range ends). */
	void (*high_key_from_rec)(uint8_t *key, const uint8_t *rec);
	/* <0, 0, >0 as k1 sorts before, with, after k2. */
	int (*cmp_keys)(const uint8_t *k1, const uint8_t *k2);
	/* Stricter order of neighbouring records (no overlap), for check. */
	bool (*recs_inorder)(const uint8_t *r1, const uint8_t *r2);

	/* The tree's root and height, from the AGF or AGI. */
	void (*get_root)(const struct xfsj_btree_cur *cur, uint32_t *root,
			 uint32_t *levels);
	/* New root, height changed by @inc; logs the header. */
	void (*set_root)(struct xfsj_btree_cur *cur, uint32_t root, int inc);
	/* A block joined (+1) or left (-1) the tree: header counters. */
	void (*mod_blocks)(struct xfsj_btree_cur *cur, int delta);
	/* cntbt only: keep agf_longest equal to the last record's length. */
	void (*update_lastrec)(struct xfsj_btree_cur *cur, const uint8_t *block,
			       const uint8_t *rec, int ptr,
			       enum xfsj_lastrec_why why);
};

const struct xfsj_btree_ops *xfsj_btree_ops_get(enum xfsj_btnum bt);
/* The bmbt's row (bmbt.c). */
extern const struct xfsj_btree_ops xfsj_bmbt_ops;

struct xfsj_btree_level {
	struct xfsj_buf *bp;	/* NULL: nothing at this level yet */
	uint32_t agbno;
	int ptr;		/* 1-based, as the kernel counts */
};

struct xfsj_btree_cur {
	struct xfsj_fs *fs;
	const struct xfsj_btree_ops *ops;
	const struct xfsj_btree_shape *shape;
	const struct xfsj_btree_blocks *blocks;
	struct xfsj_fault *f;
	struct xfsj_buf *hdr;		/* AGF or AGI */
	struct xfsj_vctx vc;
	enum xfsj_btnum bt;
	uint32_t agno;
	uint32_t blocksize;
	uint32_t agblocks;
	uint32_t min_agbno;		/* first block past the AG headers */
	bool sparse;			/* inobt: sparse inode record format */
	bool inobtcnt;			/* AGI keeps iblocks/fblocks */
	int maxrecs[2];			/* [0] leaf, [1] node */
	int minrecs[2];
	int nlevels;
	uint16_t keylen;		/* one key (of two, overlapping) */
	struct xfsj_btree_level lev[XFSJ_BTREE_MAXLEVELS];
};


/* ---- shared by btree.c and btree_ag.c (the whole-tree walks) ---- */

#define HDR		XFSJ_SBLOCK_HDR_SIZE
#define NULLBLK		XFSJ_NULLAGBLOCK

/* ---- block header fields ---- */

static inline int bb_level(const uint8_t *b)
{
	return xfsj_get_be16(b + 4);
}

static inline int bb_numrecs(const uint8_t *b)
{
	return xfsj_get_be16(b + 6);
}

static inline void bb_set_numrecs(uint8_t *b, int n)
{
	xfsj_put_be16(b + 6, (uint16_t)n);
}

static inline uint32_t bb_leftsib(const uint8_t *b)
{
	return xfsj_get_be32(b + 8);
}

static inline uint32_t bb_rightsib(const uint8_t *b)
{
	return xfsj_get_be32(b + 12);
}

static inline void bb_set_leftsib(uint8_t *b, uint32_t v)
{
	xfsj_put_be32(b + 8, v);
}

static inline void bb_set_rightsib(uint8_t *b, uint32_t v)
{
	xfsj_put_be32(b + 12, v);
}

/* ---- entry addresses (1-based) ---- */

static inline uint8_t *rec_addr(const struct xfsj_btree_cur *cur, int i,
			       uint8_t *b)
{
	return b + HDR + (size_t)(i - 1) * cur->shape->reclen;
}

static inline uint8_t *key_addr(const struct xfsj_btree_cur *cur, int i,
			       uint8_t *b)
{
	return b + HDR + (size_t)(i - 1) * cur->shape->keylen;
}

static inline uint8_t *hkey_addr(const struct xfsj_btree_cur *cur, int i,
			       uint8_t *b)
{
	return key_addr(cur, i, b) + cur->keylen;
}

static inline uint8_t *ptr_addr(const struct xfsj_btree_cur *cur, int i,
			       uint8_t *b)
{
	return b + HDR + (size_t)cur->maxrecs[1] * cur->shape->keylen +
	       (size_t)(i - 1) * 4;
}

static inline uint32_t get_ptr(const struct xfsj_btree_cur *cur, int i,
			       uint8_t *b)
{
	return xfsj_get_be32(ptr_addr(cur, i, b));
}

/* Device byte offsets of a child pointer and of a sibling pointer. */
static inline uint64_t ptr_src(const struct xfsj_btree_cur *cur,
			       const struct xfsj_buf *bp, int i)
{
	return (bp->daddr << 9) + (uint64_t)(ptr_addr(cur, i, bp->data) -
					     bp->data);
}

static inline uint64_t sib_src(const struct xfsj_buf *bp, bool right)
{
	return (bp->daddr << 9) + (right ? 12 : 8);
}

static inline int maxrecs(const struct xfsj_btree_cur *cur, int level)
{
	return cur->maxrecs[level != 0];
}

static inline int minrecs(const struct xfsj_btree_cur *cur, int level)
{
	return cur->minrecs[level != 0];
}

static inline int keycmp(const struct xfsj_btree_cur *cur,
			 const uint8_t *k1, const uint8_t *k2)
{
	return cur->ops->cmp_keys(k1, k2);
}

int xfsj_bt_fault(const struct xfsj_btree_cur *cur, int err,
		  const char *field, uint64_t off, uint64_t val);
int xfsj_bt_corrupt_path(const struct xfsj_btree_cur *cur, int level);
/* @src: device byte offset of the field @agbno came from, for faults. */
int xfsj_bt_read_block(struct xfsj_btree_cur *cur, uint32_t agbno, int level,
		       uint64_t src, struct xfsj_buf **bpp);
void xfsj_bt_setbuf(struct xfsj_btree_cur *cur, int level,
		    struct xfsj_buf *bp, uint32_t agbno);
int xfsj_bt_load_root(struct xfsj_btree_cur *cur, uint32_t *root);
int xfsj_bt_lookup_key(struct xfsj_btree_cur *cur, enum xfsj_lookup dir,
		       const uint8_t *key, int *stat);
int xfsj_bt_increment(struct xfsj_btree_cur *cur, int level, int *stat);
/* @irec on disk, and its key (zero-padded to two keys). */
void xfsj_bt_rec_key(const struct xfsj_btree_cur *cur,
		     const union xfsj_btree_irec *irec, uint8_t *rec,
		     uint8_t *key);
void xfsj_bt_get_keys(const struct xfsj_btree_cur *cur, uint8_t *b,
		      uint8_t *key);

/*
 * Check the tree as xfsj_btree_check does; with @exact, the high keys of
 * an overlapping tree must equal (not just cover) their children's.
 */
int xfsj_btree_check_tree(struct xfsj_btree_cur *cur, bool exact);

#endif
