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

/*
 * Properties of the root directory of a filesystem just written, as
 * mkfs.xfs sets them: what files made in it inherit, and the filesystem
 * properties kept as its extended attributes.
 */
struct xfsj_root_props {
	const char *autofsck;	/* trusted xfs:autofsck value, or NULL */
	uint32_t extszinherit;	/* extent size hint (blocks), 0: none */
	bool daxinherit;
};

/* True when @p asks for something. */
bool xfsj_root_props_any(const struct xfsj_root_props *p);

/*
 * Set @p on the root directory of the new filesystem on @io (its
 * geometry's versionnum must have the attribute bit when @p->autofsck).
 */
int xfsj_newfs_root_props(struct xfsj_io *io, const struct xfsj_root_props *p,
			  struct xfsj_fault *f);

#endif
