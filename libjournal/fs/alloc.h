/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * AG free space: the bnobt and cntbt kept in step, the AGFL kept between
 * its minimum and maximum, the AGF counters, and the reverse mappings of
 * every block that changes hands (when rmapbt is on).  Follows the
 * kernel's xfs_alloc rules (see shared/reference/xfs-format.md) so that a
 * free here leaves the trees and counters the kernel would leave.
 */
#ifndef XFSJ_ALLOC_H
#define XFSJ_ALLOC_H

#include <stdbool.h>
#include <stdint.h>

#include "fs/btree.h"
#include "xfsj/fs.h"

/* The special rmap owners (XFSJ_RMAP_OWN_*) are in format.h. */

/* Who a block belonged to, for the rmap update of a free or alloc. */
struct xfsj_owner {
	uint64_t owner;		/* inode number or XFSJ_RMAP_OWN_* */
	uint64_t offset;	/* file offset (inode owners) */
	bool attr_fork;
	bool bmbt_block;
};

/*
 * Free [agbno, agbno + len) in AG @agno: make the AGFL right first (as
 * the kernel's fix_freelist does before every allocation or free), remove
 * the reverse mapping unless @oi->owner is XFSJ_RMAP_OWN_NULL, then add
 * the extent to bnobt and cntbt, merged with free neighbours, and update
 * the AGF (freeblks, longest).  Freeing space that is already free is
 * corruption.
 */
int xfsj_free_extent(struct xfsj_fs *fs, uint32_t agno, uint32_t agbno,
		     uint32_t len, const struct xfsj_owner *oi,
		     struct xfsj_fault *f);

/*
 * Allocate exactly @len blocks in AG @agno, at or near @near, for owner
 * @oi (rmap added unless OWN_NULL).  Used for btree blocks of the trees
 * that do not live on the AGFL, and for refilling the AGFL.
 */
int xfsj_alloc_extent(struct xfsj_fs *fs, uint32_t agno, uint32_t near,
		      uint32_t len, const struct xfsj_owner *oi,
		      uint32_t *agbno, struct xfsj_fault *f);

/* Bring the AGFL of @agno between its minimum and maximum. */
int xfsj_alloc_fix_freelist(struct xfsj_fs *fs, uint32_t agno,
			    struct xfsj_fault *f);

/*
 * Fix the AGFL of @agno as for a free, run @op, then free the blocks a
 * too-long AGFL gave up: the kernel defers those frees, so they happen
 * after the work item that fixed the freelist (an rmap update, say).
 */
int xfsj_alloc_with_freelist(struct xfsj_fs *fs, uint32_t agno,
			     int (*op)(void *arg, struct xfsj_fault *f),
			     void *arg, struct xfsj_fault *f);

/*
 * The block source (btree.h) of tree @bt: bnobt, cntbt and rmapbt take
 * and return AGFL blocks; inobt and finobt allocate a block near the one
 * being split, refcountbt near its mkfs root position, with rmap owner
 * OWN_INOBT or OWN_REFC, and their freed blocks are queued as XFSJ_W_FREE
 * work (the kernel defers those frees).  The engine keeps the header
 * block counters (btreeblks, rmap_blocks, refcount_blocks, iblocks).
 * NULL for trees that do not live in an AG.
 */
const struct xfsj_btree_blocks *xfsj_alloc_block_source(enum xfsj_btnum bt);

/*
 * The AGFL length the kernel keeps for AG @agno: enough blocks for a
 * full split of bnobt, cntbt (and rmapbt) at their current heights, and
 * a second split while refilling (Linux 6.7's rule).  0 when the AGF
 * cannot be read (the fault is in @f).
 */
unsigned int xfsj_alloc_min_freelist(struct xfsj_fs *fs, uint32_t agno,
				     struct xfsj_fault *f);
/* The same for trees of the heights given (a rebuild's plan). */
unsigned int xfsj_alloc_freelist_len(struct xfsj_fs *fs, uint32_t bno_level,
				     uint32_t cnt_level, uint32_t rmap_level);

/*
 * Finish one XFSJ_W_FREE item the way the kernel finishes an extent-free
 * intent: fix the freelist, then free with the item's owner.  A recovered
 * EFI carries no owner, so recovery queues it with XFSJ_RMAP_OWN_UNKNOWN
 * (the kernel's choice): the rmap is then removed whoever owns it, or
 * left alone when an RUI already removed it.
 */
struct xfsj_work;
int xfsj_free_finish(struct xfsj_fs *fs, const struct xfsj_work *w,
		     struct xfsj_fault *f);

#endif
