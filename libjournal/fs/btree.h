/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One generic short-pointer btree for every per-AG tree (bnobt, cntbt,
 * inobt, finobt, rmapbt, refcountbt), driven by a per-tree ops table in
 * btree_ag.c.  The algorithms follow the kernel's generic btree so that
 * the trees we change keep the shapes the kernel would give them: a full
 * block first tries to move a record to a sibling with room, then splits
 * in half; a block that falls below half full after a delete first
 * borrows from a sibling, then joins with one; a root with one child is
 * collapsed.
 *
 * A cursor remembers a path from the root to a leaf record (block and
 * index at every level), as the kernel's does: lookup positions it,
 * increment and decrement move it, insert and delete work at it.
 *
 * Records are given and returned in host form (union xfsj_btree_irec);
 * the engine handles on-disk keys and records itself.  rmapbt keys are
 * overlapping (a low and a high key per child); query_range finds every
 * record that overlaps a range there.
 *
 * The bmbt (long pointers, root in the inode fork) has its ops row too
 * (bmbt.c: record codec, keys, key order) and its own reader in bmbt.h;
 * a cursor is for AG trees only.
 *
 * Blocks come from and go back to a block source: the real one (alloc.h)
 * takes bnobt/cntbt/rmapbt blocks from the AGFL and inobt/finobt/refcountbt
 * blocks from free space; unit tests give their own.
 */
#ifndef XFSJ_BTREE_H
#define XFSJ_BTREE_H

#include <stdbool.h>
#include <stdint.h>

#include "xfsj/errors.h"
#include "xfsj/fs.h"
#include "xfsj/ondisk.h"

#define XFSJ_BTREE_MAXLEVELS	9

enum xfsj_lookup { XFSJ_LOOKUP_EQ, XFSJ_LOOKUP_LE, XFSJ_LOOKUP_GE };

union xfsj_btree_irec {
	struct xfsj_alloc_rec a;	/* bnobt, cntbt */
	struct xfsj_inobt_rec i;	/* inobt, finobt */
	struct xfsj_rmap_rec r;		/* rmapbt */
	struct xfsj_refc_rec c;		/* refcountbt */
	struct xfsj_bmbt_irec b;	/* bmbt (bmbt.h) */
};

struct xfsj_btree_cur;

/*
 * Where a tree gets new blocks and puts freed ones.  @near is a hint (the
 * block being split, or the old root).  Return 0, or -XFSJ_E_NOSPC when
 * none is left (the insert then fails with it).  The source only finds
 * and releases blocks: the engine itself initialises new blocks, forgets
 * the buffers of freed ones, and keeps the header counters of the tree
 * (agf_btreeblks for bnobt/cntbt/rmapbt, agf_rmap_blocks,
 * agf_refcount_blocks, agi_iblocks/agi_fblocks with inobtcount).
 */
struct xfsj_btree_blocks {
	int (*alloc)(void *arg, struct xfsj_btree_cur *cur, uint32_t near,
		     uint32_t *agbno, struct xfsj_fault *f);
	int (*free)(void *arg, struct xfsj_btree_cur *cur, uint32_t agbno,
		    struct xfsj_fault *f);
	void *arg;
};

/*
 * A cursor on tree @bt of AG @agno.  The tree's root and height are read
 * from (and written back to) the AGF or AGI through @fs.  @blocks may be
 * NULL for a cursor that only reads.  Faults go to @f, which must outlive
 * the cursor.  -XFSJ_E_UNSUPP for a tree the filesystem does not have
 * (finobt, rmapbt, refcountbt), -XFSJ_E_INVAL for the bmbt (bmbt.h).
 */
int xfsj_btree_cur_new(struct xfsj_fs *fs, enum xfsj_btnum bt, uint32_t agno,
		       const struct xfsj_btree_blocks *blocks,
		       struct xfsj_fault *f, struct xfsj_btree_cur **out);
void xfsj_btree_cur_free(struct xfsj_btree_cur *cur);
enum xfsj_btnum xfsj_btree_cur_btnum(const struct xfsj_btree_cur *cur);
uint32_t xfsj_btree_cur_agno(const struct xfsj_btree_cur *cur);
struct xfsj_fs *xfsj_btree_cur_fs(const struct xfsj_btree_cur *cur);

/*
 * Position the cursor.  The key is taken from @rec the way the tree keys
 * its records (bnobt: startblock; cntbt: blockcount then startblock;
 * inobt/finobt: startino; rmapbt: startblock, owner, offset; refcountbt:
 * startblock).  *stat is 1 when a record satisfying @dir was found (EQ:
 * equal key; LE: the last record with key <= ; GE: the first with key >=),
 * else 0.
 */
int xfsj_btree_lookup(struct xfsj_btree_cur *cur, enum xfsj_lookup dir,
		      const union xfsj_btree_irec *rec, int *stat);
/* The record under the cursor; *stat 0 when the cursor points nowhere. */
int xfsj_btree_get_rec(struct xfsj_btree_cur *cur,
		       union xfsj_btree_irec *rec, int *stat);
/* Move to the next/previous record (level 0); *stat 0 at the end. */
int xfsj_btree_increment(struct xfsj_btree_cur *cur, int level, int *stat);
int xfsj_btree_decrement(struct xfsj_btree_cur *cur, int level, int *stat);
/* Replace the record under the cursor (its key may change only where
 * the order is kept); parent keys, and for the cntbt agf_longest, are
 * updated. */
int xfsj_btree_update(struct xfsj_btree_cur *cur,
		      const union xfsj_btree_irec *rec);
/*
 * Insert @rec where the last lookup (EQ or GE of @rec) left the cursor;
 * if the cursor is not at a place where @rec belongs, the engine looks
 * the place up itself.  A record with the same key is refused
 * (-XFSJ_E_INVAL).  Afterwards the cursor points at the new record.
 */
int xfsj_btree_insert(struct xfsj_btree_cur *cur,
		      const union xfsj_btree_irec *rec, int *stat);
/* Delete the record under the cursor (*stat 0 if there is none); the
 * cursor is left where the kernel leaves it, at the record's place. */
int xfsj_btree_delete(struct xfsj_btree_cur *cur, int *stat);

/* Visit records in key order; a non-zero return from @fn stops the walk
 * and is returned. */
typedef int (*xfsj_btree_rec_fn)(struct xfsj_btree_cur *cur,
				 const union xfsj_btree_irec *rec, void *arg);
int xfsj_btree_query_all(struct xfsj_btree_cur *cur, xfsj_btree_rec_fn fn,
			 void *arg);
/* Records whose key range overlaps [low, high] (for rmapbt by the
 * record's whole extent; for the others by key). */
int xfsj_btree_query_range(struct xfsj_btree_cur *cur,
			   const union xfsj_btree_irec *low,
			   const union xfsj_btree_irec *high,
			   xfsj_btree_rec_fn fn, void *arg);

/* Blocks in the tree (root included), and its height. */
int xfsj_btree_count_blocks(struct xfsj_btree_cur *cur, uint64_t *blocks);
unsigned int xfsj_btree_height(const struct xfsj_btree_cur *cur);

/*
 * Check the whole tree: block verifiers, levels, record and key order,
 * parent keys equal to (or for rmapbt, spanning) their children, sibling
 * pointers, every non-root block at least half full, and for the cntbt
 * agf_longest equal to the last record's length.  0 or a fault.
 */
int xfsj_btree_check(struct xfsj_btree_cur *cur);

#endif
