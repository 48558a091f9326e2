/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Inode fork mappings (file offset -> disk blocks), changed the way the
 * kernel's xfs_bmap does: mapping merges with contiguous neighbours of the
 * same state, unmapping trims or splits, the fork moves between extents
 * and btree format as it grows and shrinks, and every change queues the
 * reverse-mapping, reference-count and free work the kernel queues.
 *
 * Functions change @ip->di and the fork bytes in the inode buffer; the
 * caller writes the core back with xfsj_iput().
 */
#ifndef XFSJ_BMAP_H
#define XFSJ_BMAP_H

#include "fs/defer.h"
#include "fs/iget.h"
#include "xfsj/ondisk.h"

/* The whole fork's mappings in offset order (caller frees *ext). */
int xfsj_bmap_read(struct xfsj_fs *fs, struct xfsj_iref *ip, int whichfork,
		   struct xfsj_bmbt_irec **ext, size_t *n,
		   struct xfsj_fault *f);

/*
 * Map @rec into a hole of the fork (the kernel's xfs_bmap_map_extent /
 * remap): merge, format changes, nblocks, and the rmap MAP work (queued).
 */
int xfsj_bmap_map(struct xfsj_fs *fs, struct xfsj_iref *ip, int whichfork,
		  const struct xfsj_bmbt_irec *rec, struct xfsj_fault *f);

/*
 * Unmap [off, off + len) (the kernel's __xfs_bunmapi on a range): queues
 * rmap UNMAP work, then a refcount DECREASE for a reflink data fork or a
 * free otherwise (unless @keep_blocks: the blocks move elsewhere, as in
 * a remap or an exchange).  *done gets the blocks unmapped.
 */
int xfsj_bmap_unmap(struct xfsj_fs *fs, struct xfsj_iref *ip, int whichfork,
		    uint64_t off, uint64_t len, bool keep_blocks,
		    uint64_t *done, struct xfsj_fault *f);

/*
 * Allocate @len blocks near the inode and map them at @off, written
 * (attribute leaf and remote value blocks).  *fsbno gets the start.
 */
int xfsj_bmap_alloc(struct xfsj_fs *fs, struct xfsj_iref *ip, int whichfork,
		    uint64_t off, uint32_t len, uint64_t *fsbno,
		    struct xfsj_fault *f);

/* The first hole of at least @len blocks at or after @from. */
int xfsj_bmap_first_unused(struct xfsj_fs *fs, struct xfsj_iref *ip,
			   int whichfork, uint32_t len, uint64_t from,
			   uint64_t *off, struct xfsj_fault *f);

/*
 * Work of kind XFSJ_W_BMAP (BUI items and what the kernel defers as
 * bmap work): map or unmap one extent of inode @ino's fork.
 */
int xfsj_bmap_finish(struct xfsj_fs *fs, const struct xfsj_work *w,
		     struct xfsj_fault *f);

#endif
