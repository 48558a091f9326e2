/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The AG btree walk, shared by its two halves: agbtree.c walks the blocks
 * of a tree (headers, siblings, keys, pointers), agbtree_recs.c checks and
 * collects the records of each tree type.
 */
#ifndef XFSJ_CHECK_AGBTREE_H
#define XFSJ_CHECK_AGBTREE_H

#include "check/check_priv.h"

/* The problem rows of phase 03 (agbtree.c holds the table). */
enum {
	AGBT_UNREADABLE, AGBT_ROOT, AGBT_HEIGHT, AGBT_MAGIC, AGBT_CRC,
	AGBT_UUID, AGBT_BLKNO, AGBT_OWNER, AGBT_LEVEL, AGBT_NUMRECS_MAX,
	AGBT_NUMRECS_MIN, AGBT_LEFTSIB, AGBT_RIGHTSIB, AGBT_PTR, AGBT_TWICE,
	AGBT_KEY_ORDER, AGBT_KEY, AGBT_HIGH_KEY, AGBT_REC_START, AGBT_REC_LEN,
	AGBT_REC_ORDER, INOBT_ALIGN, INOBT_RANGE, INOBT_FREECOUNT,
	INOBT_COUNT, INOBT_HOLES, FINOBT_NOFREE, FINOBT_DIFFERS,
	FINOBT_UNKNOWN, FINOBT_MISSING, RMAPBT_FLAGS, RMAPBT_OWNER,
	RMAPBT_META, RMAPBT_FLAGMIX, RMAPBT_MERGE, RMAPBT_FILEOFF,
	REFCBT_COUNT, REFCBT_COW, REFCBT_MERGE, INOBT_MISSING, AGBT__N
};

/*
 * A key in host form, compared as the tree orders its keys: (a, b, c) in
 * turn.  bnobt: a = start; cntbt: a = length, b = start; inobt/finobt:
 * a = startino; refcountbt: a = the start as stored (CoW flag included);
 * rmapbt: a = start, b = owner, c = file offset without the flag bits,
 * which are in @flags (the attr fork and bmbt block ones: keys never
 * carry the unwritten flag) and take no part in the order.
 */
struct agbt_key {
	uint64_t a, b, c;
	uint64_t flags;
};

int agbt_key_cmp(const struct agbt_key *x, const struct agbt_key *y);
/* The same key, flags included. */
bool agbt_key_same(const struct agbt_key *x, const struct agbt_key *y);

/* A record of any of the trees, in host form. */
union agbt_rec {
	struct xfsj_alloc_rec a;
	struct xfsj_inobt_rec i;
	struct xfsj_rmap_rec r;
	struct xfsj_refc_rec c;
};

/* The walk of one tree. */
struct agbt_walk {
	struct xck *ck;
	struct xck_ag *ag;
	enum xfsj_btnum bt;
	const struct xfsj_btree_shape *s;
	bool bad;		/* something was reported: not sound */
	uint32_t first_agbno;	/* the first block after the AG headers */
	unsigned int rec_i;	/* the record being checked, in its block */
	unsigned int rec_n;	/* ... and the records the block holds */
	uint32_t rec_agbno;	/* ... and its block */
	/*
	 * The last record of the tree in order, and the last one seen (its
	 * length grown by the records that should have been merged into it).
	 */
	bool have_last, have_merged;
	union agbt_rec last, merged;
	uint32_t last_iblock;	/* the last inode block claimed */
};

static inline bool agbt_agbno_ok(const struct agbt_walk *w, uint32_t agbno)
{
	return agbno >= w->first_agbno && agbno < w->ag->agblocks;
}

/* Report row @row at the record being checked (or a block, @rec false). */
void agbt_say(struct agbt_walk *w, int row, unsigned int has,
	      uint64_t expected, uint64_t found, bool rec);

/* What the walk needs of each tree type (agbtree_recs.c). */
struct agbt_ops {
	/* Decode a node key (the low one, for rmapbt). */
	void (*key)(const uint8_t *p, struct agbt_key *k);
	/* Record @i's key, and its highest key (the same but for rmapbt). */
	void (*rec_keys)(const void *block, unsigned int i,
			 struct agbt_key *lo, struct agbt_key *hi);
	/* Check record @i (w->rec_i, w->rec_agbno set) and collect it. */
	int (*rec)(struct agbt_walk *w, const void *block, unsigned int i);
	/* After the whole tree (may be NULL). */
	int (*done)(struct agbt_walk *w);
	/* Record @i of a leaf in host form, and the tree's order: does @a
	 * come wholly before @b?  (for agbt_outlier) */
	void (*get)(const struct agbt_walk *w, const void *block,
		    unsigned int i, union agbt_rec *r);
	bool (*before)(const struct agbt_walk *w, const union agbt_rec *a,
		       const union agbt_rec *b);
};

const struct agbt_ops *agbt_ops(enum xfsj_btnum bt);

/*
 * Is record @i of leaf @block (@r, being checked) the one out of order?
 * One record whose start went wrong (a flipped bit) would put every
 * later record out of order with it, and they would all be left.  When
 * its neighbours agree with each other and not with it, it is the one
 * out of place: it alone is reported and left.  Its neighbours: the last
 * record in order before it, else the two after it; the record after the
 * last of a leaf is the first of the next leaf (its right sibling).
 */
bool agbt_outlier(struct agbt_walk *w, const void *block, unsigned int i,
		  const union agbt_rec *r);

/*
 * The chunks of an inobt that was not read whole, or that lacks some, from
 * a sound rmapbt's inode chunk records (agbtree_recs.c); sets
 * ag->chunks_recovered.
 */
int agbt_chunks_recover(struct xck *ck, struct xck_ag *ag);

/*
 * The blocks of AG @ag's inode chunks, found by reading its used blocks
 * where chunks start (from @first, every @align blocks), as rmap records
 * of OWN_INODES in @out (chunk_scan.c).
 */
int agbt_chunks_scan(struct xck *ck, struct xck_ag *ag, uint32_t first,
		     uint32_t align, struct xck_vec *out);

#endif
