/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Filling a new filesystem from a directory tree, or from the tree a
 * mkfs.xfs protofile describes (xfsj-mkfs -p).
 *
 * Runs on a filesystem xfsj_newfs_write has just written, through the
 * modification layer: inodes, directories, data, symlinks, device nodes,
 * FIFOs, sockets, hard links, owners, modes, timestamps, extended
 * attributes (POSIX ACLs converted to XFS's own form) and parent pointers
 * when the filesystem has them.
 *
 * Entries are added in byte order of their names, depth first, so the
 * inode numbers and the allocation depend on the tree only.  With
 * @have_epoch every timestamp later than @epoch becomes @epoch, and the
 * creation times are @epoch.
 *
 * The primary superblock carries the needs-repair flag from the start
 * until everything is written: a failed or interrupted run leaves an
 * image the kernel refuses to mount.  Metadata is built in memory and
 * written at the end; file data is copied after it.
 */
#ifndef XFSJ_POPULATE_H
#define XFSJ_POPULATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "xfsj/errors.h"
#include "xfsj/io.h"

struct xfsj_populate_opts {
	const char *source;		/* a directory, or a protofile */
	bool have_epoch;		/* SOURCE_DATE_EPOCH given */
	int64_t epoch;
	int64_t now_sec;		/* creation times without an epoch */
	uint32_t now_nsec;
	/*
	 * Called now and then (at least every 1000 entries) with the
	 * entries copied and, the source counted first, the entries to copy
	 * (an estimate for a protofile; never below @done); may be NULL.
	 */
	void (*progress)(void *arg, uint64_t done, uint64_t total);
	void *progress_arg;
};

/*
 * What went wrong: the source path that could not be copied (empty when
 * the failure is not about one), and the errno of a failed system call on
 * it (0 when the reason is the error code itself).
 */
struct xfsj_populate_err {
	char path[4096];
	int sys_errno;
	const char *what;		/* "open", "read", "xattr", ... */
};

int xfsj_populate(struct xfsj_io *io, const struct xfsj_populate_opts *o,
		  struct xfsj_populate_err *e, struct xfsj_fault *f);

#endif
