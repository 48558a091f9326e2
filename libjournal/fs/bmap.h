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

struct xfsj_bmbt_fork;

/*
 * Write fork @whichfork of @ip from @t (bmbt.h: records in offset order
 * and, when @t->height is not 0, the blocks of each level with their
 * entry counts and buffers): the extents format for a height of 0, else
 * a bmbt whose blocks get their counts, siblings, keys, pointers and
 * records, and whose inode root gets the top level.  Only the bytes that
 * change are written.  The format and the extent count are set in
 * @ip->di; the caller puts the inode.
 */
int xfsj_bmap_fork_put(struct xfsj_fs *fs, struct xfsj_iref *ip,
		       int whichfork, const struct xfsj_bmbt_fork *t);

/*
 * Write fork @whichfork of @ip afresh from the @n mappings @m (in offset
 * order, not overlapping): the extents format when they fit in the inode,
 * else a bmbt of as many levels as it needs, its blocks filled evenly
 * (each at least half full) and taken in order from the @nblocks blocks
 * @blocks (which the caller owns for the inode's fork; *@used of them).
 * Returns 0, 1 when the mappings need more blocks than given or a tree
 * taller than a bmbt can be (nothing changed), or a negative XFSJ_E_*.
 */
int xfsj_bmap_fork_build(struct xfsj_fs *fs, struct xfsj_iref *ip,
			 int whichfork, const struct xfsj_bmbt_irec *m,
			 size_t n, const uint64_t *blocks, size_t nblocks,
			 size_t *used);

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
