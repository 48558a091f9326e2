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
 *
 * An inode on a list that still has links is left where it is, as the
 * kernel leaves it.  A list that loops, points outside its AG or into the
 * wrong bucket, or holds an inode that fails verification (a free inode
 * included) is refused before anything on it is changed.
 */
#ifndef XFSJ_IUNLINK_H
#define XFSJ_IUNLINK_H

#include <stdbool.h>

#include "xfsj/fs.h"

struct xfsj_iunlink_stats {
	uint64_t inodes;	/* inodes taken off the lists */
	uint64_t freed;		/* of which freed (no links left) */
	uint64_t blocks;	/* blocks unmapped from their forks */
	uint64_t chunks;	/* inode chunks freed */
	/*
	 * Lists that could not be walked to the end (a bad pointer, a loop,
	 * an inode that fails verification): as the kernel does, what came
	 * before is finished and the bucket is emptied, leaking the rest
	 * for xfs_repair.  The first such problem is kept.
	 */
	uint64_t buckets_cleared;
	uint32_t bad_agno, bad_bucket;
	struct xfsj_fault bad;
};

/* Walk every AGI bucket of every AG and finish each inode on it. */
int xfsj_iunlink_process(struct xfsj_fs *fs, struct xfsj_iunlink_stats *st,
			 struct xfsj_fault *f);

/*
 * Take @agino of AG @agno off its bucket's list: the bucket head or the
 * previous inode's pointer gets @next.  *found is false when the inode is
 * not on the list.
 */
int xfsj_iunlink_remove(struct xfsj_fs *fs, uint32_t agno, uint32_t agino,
			uint32_t next, bool *found, struct xfsj_fault *f);

#endif
