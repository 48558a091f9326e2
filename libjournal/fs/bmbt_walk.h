/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The one descent of a bmbt (bmbt_walk.c): from the root in the inode
 * fork down its child pointers, depth first, each node's children in
 * key order.  Every user (the fs layer's fork reader, log recovery's
 * walk of the device, the check's fork walk, the repair's salvage) fills
 * in a table of callbacks; the descent does the mechanics and the
 * checks, and each user keeps its own verdict on what it finds:
 *
 * - the root: room for a header and one pair, level 1..maxlevel, record
 *   count 1..room;
 * - each pointer: keys rising in its node, the pointer accepted by the
 *   user's ptr_ok;
 * - each block: the number of blocks reached (max_blocks), a block
 *   reached twice, then the header (magic, CRC, UUID, owner, its own
 *   address, level, record count), the sibling chain of its level and
 *   the first key against its parent's; after the walk, the last block
 *   of each level ends its chain.
 *
 * Each finding goes to ops->fault, whose answer decides: 0 goes on,
 * XFSJ_BMBT_SKIP leaves the pointer, block or root (a bad magic always
 * leaves the block), a negative error stops the walk.  Sizes are never
 * taken on trust: a block's entries are bounded by its room whatever
 * the callbacks say, and the depth by the root's level.
 */
#ifndef XFSJ_BMBT_WALK_H
#define XFSJ_BMBT_WALK_H

#include <stdbool.h>
#include <stdint.h>

#include "core/u64set.h"
#include "ondisk/format.h"
#include "xfsj/fs.h"

/* Levels a walk follows at most (a bmbt on disk is below this). */
#define XFSJ_BMBT_WALK_LEVELS	XFSJ_BMBT_DISK_MAXLEVELS

/* Leave this pointer, block or root (from any callback). */
#define XFSJ_BMBT_SKIP	1

enum xfsj_bmbt_fault_kind {
	XFSJ_BMBT_F_ROOT_SIZE,	/* the fork holds no header and pair */
	XFSJ_BMBT_F_ROOT_LEVEL,
	XFSJ_BMBT_F_ROOT_NUMRECS,
	XFSJ_BMBT_F_KEY_ORDER,	/* a node key not above the one before */
	XFSJ_BMBT_F_PTR,	/* a pointer ptr_ok refuses */
	XFSJ_BMBT_F_LIMIT,	/* more than max_blocks blocks reached */
	XFSJ_BMBT_F_DUP,	/* a block reached again */
	XFSJ_BMBT_F_MAGIC,
	XFSJ_BMBT_F_CRC,
	XFSJ_BMBT_F_UUID,
	XFSJ_BMBT_F_OWNER,
	XFSJ_BMBT_F_BLKNO,
	XFSJ_BMBT_F_LEVEL,
	XFSJ_BMBT_F_NUMRECS,	/* 0, or past the block's room */
	XFSJ_BMBT_F_LEFTSIB,
	XFSJ_BMBT_F_RIGHTSIB,	/* of block fsbno, the one before */
	XFSJ_BMBT_F_KEY,	/* first key not the parent's */
};

/*
 * A finding.  @fsbno: the block it is about (the pointer's value for
 * PTR, LIMIT and DUP; the node holding the keys for KEY_ORDER, 0 for
 * the root); @level: that block's level (the root's for root findings);
 * @where: the device byte offset of the field (from root_off for the
 * root's fields).
 */
struct xfsj_bmbt_fault {
	enum xfsj_bmbt_fault_kind kind;
	uint64_t fsbno;
	unsigned int level;
	uint64_t expected, found;
	uint64_t where;
};

/* A block of the walk. */
struct xfsj_bmbt_wblk {
	uint64_t fsbno;
	uint64_t daddr;		/* 512-byte units */
	unsigned int level;	/* as its parent gives it */
	uint64_t key;		/* the parent's key for it */
	uint64_t lo, hi;	/* the key range the parent gives it */
	const uint8_t *data;	/* the block, set by ops->read */
	void *priv;		/* the user's, for ops->put */
	struct xfsj_lblock hdr;	/* its header as found */
	/*
	 * Entries to walk: numrecs, or what a NUMRECS fault callback sets
	 * (then bounded by the block's room).
	 */
	unsigned int nrecs;
};

struct xfsj_bmbt_walk_ops {
	/* Is a pointer's block one to read (inside the filesystem)? */
	bool (*ptr_ok)(void *arg, uint64_t fsbno);
	/* Read b->fsbno into b->data: 0, XFSJ_BMBT_SKIP or an error. */
	int (*read)(void *arg, struct xfsj_bmbt_wblk *b);
	void (*put)(void *arg, struct xfsj_bmbt_wblk *b);	/* optional */
	int (*fault)(void *arg, struct xfsj_bmbt_wblk *b,
		     const struct xfsj_bmbt_fault *ft);
	/* A block whose header the faults let pass, before its entries
	 * (optional): 0, XFSJ_BMBT_SKIP (its entries left) or an error. */
	int (*node)(void *arg, struct xfsj_bmbt_wblk *b);
	/* Leaf record @i at @rec (device byte offset @where). */
	int (*rec)(void *arg, const struct xfsj_bmbt_wblk *b, unsigned int i,
		   const uint8_t *rec, uint64_t where);
	/* A block the header's faults left (optional). */
	int (*bad_block)(void *arg, const struct xfsj_bmbt_wblk *b);
};

struct xfsj_bmbt_walk {
	/* set by the user */
	const struct xfsj_bmbt_walk_ops *ops;
	void *arg;
	const struct xfsj_sb *sb;	/* geometry */
	uint64_t owner;		/* the inode */
	const uint8_t *uuid;	/* NULL: not checked */
	bool crc;		/* check the CRC */
	unsigned int maxlevel;	/* the root's level at most */
	uint64_t max_blocks;	/* 0: no bound but the loop check */
	uint64_t root_off;	/* device byte offset of the root */
	/* kept by the walk */
	unsigned int height, rootcnt;	/* the root's level, pointers */
	uint64_t nvisits;
	struct xfsj_u64set seen;	/* blocks reached */
	uint64_t prev[XFSJ_BMBT_WALK_LEVELS];
	uint64_t prev_right[XFSJ_BMBT_WALK_LEVELS];
	uint64_t prev_daddr[XFSJ_BMBT_WALK_LEVELS];
};

/*
 * Start @w on @sb for inode @owner: the rest zeroed, maxlevel the
 * in-memory engine's bound (XFSJ_BTREE_MAXLEVELS - 1); the caller sets
 * uuid, crc, max_blocks, root_off and maxlevel as it needs.
 */
void xfsj_bmbt_walk_init(struct xfsj_bmbt_walk *w, const struct xfsj_sb *sb,
			 uint64_t owner, const struct xfsj_bmbt_walk_ops *ops,
			 void *arg);
/*
 * Walk the tree under the root in the @size bytes at @root.  0, or the
 * first negative error of a callback (or -XFSJ_E_NOMEM).
 */
int xfsj_bmbt_descend(struct xfsj_bmbt_walk *w, const uint8_t *root,
		      uint32_t size);
/*
 * Walk the subtree of block @fsbno at @level (covering [@lo, @hi)), in
 * the same walk (its set of blocks reached): a salvage reading the
 * blocks a sibling link names.
 */
int xfsj_bmbt_descend_block(struct xfsj_bmbt_walk *w, uint64_t fsbno,
			    unsigned int level, uint64_t lo, uint64_t hi);
/* Free what the walk keeps (the set of blocks reached). */
void xfsj_bmbt_walk_free(struct xfsj_bmbt_walk *w);

#endif
