/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Inodes through the modification layer: find an inode's block, verify
 * it, decode its core; write the core back with the handle's LSN and a
 * fresh CRC.  The forks are reached through xfsj_ifork().
 *
 * Inode buffers are filesystem blocks (the block that holds the inode),
 * so every user of the handle must read inodes through here.
 */
#ifndef XFSJ_IGET_H
#define XFSJ_IGET_H

#include "xfsj/fs.h"

struct xfsj_iref {
	uint64_t ino;
	struct xfsj_buf *bp;
	uint8_t *dip;		/* the inode inside bp->data */
	uint64_t byte_off;	/* of the inode on the device */
	struct xfsj_dinode di;	/* decoded core; change it, then iput */
};

enum { XFSJ_DATA_FORK = 0, XFSJ_ATTR_FORK = 1 };

/*
 * Read and verify inode @ino.  @lenient: accept a directory or symlink
 * whose size a truncation set to zero (the kernel's verifier refuses it,
 * but such an inode is on its way to being freed).
 */
int xfsj_iget(struct xfsj_fs *fs, uint64_t ino, bool lenient,
	      struct xfsj_iref *ip, struct xfsj_fault *f);
/* xfsj_iget (lenient) of an inode that must be in use: a free one
 * (mode 0) is corruption. */
int xfsj_iget_used(struct xfsj_fs *fs, uint64_t ino, struct xfsj_iref *ip,
		   struct xfsj_fault *f);
/* Encode ip->di into the buffer, recompute the CRC, mark it dirty.  With
 * @stamp, di_lsn becomes the handle's LSN first (as a kernel flush). */
void xfsj_iput(struct xfsj_fs *fs, struct xfsj_iref *ip, bool stamp);

/* The fork area: its start and size in bytes (0 when there is none). */
uint8_t *xfsj_ifork(const struct xfsj_fs *fs, const struct xfsj_iref *ip,
		    int whichfork, uint32_t *size);

#endif
