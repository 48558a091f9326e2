/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Truncating an inode's forks to nothing, as the kernel's inactivation
 * does for an inode with no links left: the data fork is unmapped from
 * its last extent backwards, then the attribute fork, which is removed.
 * Per extent the reverse mapping goes, then a shared extent drops a
 * reference and any other is freed; bmbt blocks are freed as the btree
 * empties.  The deferred work runs as the kernel's transactions would
 * run it, and the inode core is updated (extent counts, nblocks, size,
 * forkoff).
 */
#ifndef XFSJ_ITRUNCATE_H
#define XFSJ_ITRUNCATE_H

#include "xfsj/fs.h"

/* *blocks counts the blocks that left the inode (bmbt blocks included). */
int xfsj_inode_truncate_forks(struct xfsj_fs *fs, uint64_t ino,
			      uint64_t *blocks, struct xfsj_fault *f);

#endif
