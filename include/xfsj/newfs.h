/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Writing a new, empty filesystem from a computed geometry. */
#ifndef XFSJ_NEWFS_H
#define XFSJ_NEWFS_H

#include "xfsj/errors.h"
#include "xfsj/geometry.h"
#include "xfsj/io.h"

struct xfsj_newfs_opts {
	uint8_t uuid[16];
	char label[13];		/* at most 12 bytes are stored */
	bool discard;		/* tell the device every block is unused */
	int64_t now_sec;	/* timestamps of the new inodes */
	uint32_t now_nsec;
	uint32_t gen;		/* inode generation of the first chunk */
	/* Called after each AG is written (may be NULL). */
	void (*progress)(void *arg, uint32_t done, uint32_t total);
	void *progress_arg;
	/* The external log device (geometry logexternal); else NULL. */
	struct xfsj_io *logio;
};

/*
 * Write the filesystem: zero old signatures and the log, write every AG's
 * headers and btree roots, the root directory and the realtime inodes, the
 * clean log (on o->logio from its start, for an external log), then the
 * primary superblock last with "in progress" cleared.
 * A crash before the end leaves a superblock the kernel refuses to mount.
 */
int xfsj_newfs_write(struct xfsj_io *io, const struct xfsj_geometry *g,
		     const struct xfsj_newfs_opts *o, struct xfsj_fault *f);

#endif
