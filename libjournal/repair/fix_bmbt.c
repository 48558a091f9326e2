/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A fork written afresh from a list of mappings (fix_fork.c decides
 * which), by the fs layer's fork builder (fs/bmap.h): the extents format
 * when they fit in the fork's room in the inode, else a bmbt of as many
 * levels as it needs, written into blocks the caller names (the old
 * tree's own blocks: their owner stays the inode, so neither the rmapbt
 * nor the free space changes for them).  A tree that needs more blocks
 * than were given is not written.  The blocks are fresh dirty buffers;
 * their CRCs are set when the fs handle flushes them.
 */
#include "fs/bmap.h"
#include "repair/repair_priv.h"

int xrp_fork_write(struct xrp *rp, struct xfsj_iref *ip, int whichfork,
		   const struct xfsj_bmbt_irec *m, size_t n,
		   const uint64_t *blocks, size_t nblocks, size_t *used)
{
	return xfsj_bmap_fork_build(rp->fs, ip, whichfork, m, n, blocks,
				    nblocks, used);
}
