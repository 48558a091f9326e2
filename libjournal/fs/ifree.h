/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Freeing an inode, as the kernel's xfs_ifree does: the inode is freed in
 * the inobt/finobt and AGI (and its chunk when all of it is free, unless
 * the filesystem keeps inode chunks), taken off its unlinked list if it
 * is on one, and its core cleared (mode 0, generation bumped).  The core
 * of an inode whose chunk was freed is left as it is on disk (the kernel
 * stales those buffers).
 */
#ifndef XFSJ_IFREE_H
#define XFSJ_IFREE_H

#include <stdbool.h>

#include "xfsj/fs.h"

int xfsj_ifree(struct xfsj_fs *fs, uint64_t ino, bool *chunk_freed,
	       struct xfsj_fault *f);

#endif
