/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Freeing inodes in the inode allocation btrees (inobt, finobt) and the
 * AGI, and the extents of an inode chunk.
 */
#ifndef XFSJ_IALLOC_H
#define XFSJ_IALLOC_H

#include <stdbool.h>
#include <stdint.h>

#include "xfsj/fs.h"

/* What freeing one inode did to its chunk. */
struct xfsj_difree_res {
	bool chunk_freed;
	uint32_t startino;	/* agino of the chunk's first inode */
	uint16_t holemask;	/* sparse chunks: 4-inode holes */
};

/*
 * Mark inode @agino of AG @agno free in the inobt, the finobt and the
 * AGI counters, as the kernel's xfs_difree does.  When every inode of the
 * chunk is then free (and a block holds no more than one chunk) the
 * chunk's records are deleted and its blocks are queued as deferred free
 * work with owner OWN_INODES; the caller runs xfsj_defer_finish.
 */
int xfsj_difree(struct xfsj_fs *fs, uint32_t agno, uint32_t agino,
		struct xfsj_difree_res *res, struct xfsj_fault *f);

/*
 * The extents [agbno, agbno + len) of a chunk's allocated parts: calls
 * @fn per extent, in increasing block order.  @startino is the chunk's
 * first agino.
 */
typedef int (*xfsj_chunk_extent_fn)(void *arg, uint32_t agbno, uint32_t len);
int xfsj_ichunk_extents(const struct xfsj_sb *sb, uint32_t startino,
			uint16_t holemask, xfsj_chunk_extent_fn fn, void *arg);

#endif
