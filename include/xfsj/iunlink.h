/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Inodes that were unlinked while still open (or whose inactivation a
 * crash interrupted) sit on the AGI unlinked lists.  The kernel finishes
 * them at mount: every fork is truncated to nothing (extents unmapped,
 * reverse mappings removed, shared extents dropping a reference, the
 * rest freed, bmbt blocks freed), the inode is freed in the inobt and
 * finobt (a chunk whose inodes are all free is freed too, unless
 * the filesystem keeps inode chunks), the inode core is cleared (mode 0,
 * generation bumped), and the lists are emptied.
 */
#ifndef XFSJ_IUNLINK_H
#define XFSJ_IUNLINK_H

#include "xfsj/fs.h"

struct xfsj_iunlink_stats {
	uint64_t inodes;	/* inodes taken off the lists */
	uint64_t freed;		/* of which freed (no links left) */
	uint64_t blocks;	/* blocks unmapped from their forks */
	uint64_t chunks;	/* inode chunks freed */
};

/* Walk every AGI bucket of every AG and finish each inode on it. */
int xfsj_iunlink_process(struct xfsj_fs *fs, struct xfsj_iunlink_stats *st,
			 struct xfsj_fault *f);

/* The pieces, for tests and for later repair. */
int xfsj_inode_truncate_forks(struct xfsj_fs *fs, uint64_t ino,
			      uint64_t *blocks, struct xfsj_fault *f);
int xfsj_ifree(struct xfsj_fs *fs, uint64_t ino, bool *chunk_freed,
	       struct xfsj_fault *f);

#endif
