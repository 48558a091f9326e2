/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Bulk loading of a per-AG btree from records already in key order, as
 * a rebuild writes a tree (the kernel's btree staging does the same):
 * leaves filled left to right, then each node level over the one below,
 * up to a single root.  The caller picks the blocks beforehand from the
 * geometry xfsj_btree_load_geom computes, and names the root (the last
 * block) and the height in the AGF or AGI before loading.
 */
#ifndef XFSJ_BTREE_LOAD_H
#define XFSJ_BTREE_LOAD_H

#include <stdint.h>

#include "fs/btree.h"

struct xfsj_btree_geom {
	unsigned int levels;		/* height (1: a root leaf) */
	uint64_t nrecs;
	uint64_t blocks;		/* in all */
	uint64_t per_level[XFSJ_BTREE_MAXLEVELS]; /* [0]: leaves */
};

/*
 * The shape of tree @bt holding @nrecs records in blocks of @blocksize:
 * every block as full as it can be while the blocks of a level share the
 * records evenly.  -XFSJ_E_RANGE when the tree would be too tall.
 */
int xfsj_btree_load_geom(enum xfsj_btnum bt, uint32_t blocksize,
			 uint64_t nrecs, struct xfsj_btree_geom *g);

/* Record @i (0-based, in key order) of the tree being loaded. */
typedef void (*xfsj_btree_load_fn)(void *arg, uint64_t i,
				   union xfsj_btree_irec *rec);

/*
 * Write tree @bt of AG @agno: @g->blocks blocks at @blocks[] (the leaves
 * left to right, then each level above, the root last), records from
 * @fn.  The AGF or AGI must already name @blocks[@g->blocks - 1] as the
 * root with height @g->levels.  The blocks are dirty buffers of @fs.
 */
int xfsj_btree_load(struct xfsj_fs *fs, enum xfsj_btnum bt, uint32_t agno,
		    const struct xfsj_btree_geom *g, const uint32_t *blocks,
		    xfsj_btree_load_fn fn, void *arg, struct xfsj_fault *f);

#endif
