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

#include "xfsj/btree.h"
#include "xfsj/fs.h"

/* Special rmap owners (XFSJ_RMAP_OWN_*) are in format.h. */

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
 * The block source (btree.h) of tree @bt: bnobt, cntbt and rmapbt take
 * and return AGFL blocks; inobt, finobt and refcountbt allocate from and
 * free to free space with their own rmap owner.
 */
const struct xfsj_btree_blocks *xfsj_alloc_block_source(enum xfsj_btnum bt);

#endif
