/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Reference counts (refcountbt), changed the way the kernel's xfs_refcount
 * does: increase and decrease adjust every record over a range, splitting
 * records at its ends and merging equal neighbours afterwards; a count
 * falling to one removes the record, and a range whose count falls to
 * zero is freed (queued as free work).  CoW staging extents live in their
 * own key domain (startblock bit 31).  The finisher of XFSJ_W_REFC work
 * is declared in defer.h.
 */
#ifndef XFSJ_REFCOUNT_H
#define XFSJ_REFCOUNT_H

#include "fs/defer.h"

/*
 * Queue the work the kernel's xfs_refcount_{increase,decrease}_extent and
 * xfs_refcount_{alloc,free}_cow_extent queue (nothing without reflink).
 * The CoW ones also queue the staging extent's OWN_COW reverse mapping
 * (when rmapbt is on), as deferred rmap work: alloc queues the refcount
 * work then the rmap; free queues the rmap then the refcount work.
 */
int xfsj_refcount_increase_extent(struct xfsj_fs *fs, uint64_t fsbno,
				  uint32_t len);
int xfsj_refcount_decrease_extent(struct xfsj_fs *fs, uint64_t fsbno,
				  uint32_t len);
int xfsj_refcount_alloc_cow_extent(struct xfsj_fs *fs, uint64_t fsbno,
				   uint32_t len);
int xfsj_refcount_free_cow_extent(struct xfsj_fs *fs, uint64_t fsbno,
				  uint32_t len);

/*
 * What the kernel does at mount after a crash on a reflink filesystem:
 * every CoW staging extent left in AG @agno's refcount btree is freed
 * (its staging record and its OWN_COW reverse mapping removed, the space
 * returned), each extent's work finished before the next is queued, as
 * the kernel does one transaction per extent.  *freed counts the
 * extents.  A record in the CoW domain whose count is not one is
 * corruption.
 */
int xfsj_refcount_recover_cow(struct xfsj_fs *fs, uint32_t agno,
			      uint64_t *freed, struct xfsj_fault *f);

#endif
