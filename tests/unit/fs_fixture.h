/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A freshly made filesystem in memory (newfs on the memory backend), with
 * a page overlay and a modification handle on top: what the btree,
 * allocator and inode tests work on.
 */
#ifndef XFSJ_TEST_FS_FIXTURE_H
#define XFSJ_TEST_FS_FIXTURE_H

#include "xfsj/fs.h"
#include "xfsj/geometry.h"
#include "fs/iget.h"
#include "xfsj/io.h"
#include "core/overlay.h"
#include "xfsj/logread.h"

struct fs_fixture {
	struct xfsj_io *io;
	struct xfsj_overlay *ov;
	struct xfsj_fs *fs;
	struct xfsj_geometry g;
	struct xfsj_sb sb;
	struct xfsj_fault f;
};

/*
 * @size bytes, @blocksize (0 = 4096), features from the defaults with
 * @rmapbt and @reflink as given; @agcount 0 = the default.  Fails the
 * running test on any error.
 */
void fs_fixture_make(struct fs_fixture *fx, uint64_t size, uint32_t blocksize,
		     uint32_t agcount, bool rmapbt, bool reflink);
/* The same with every feature as @feat says (xfsj_features_default and
 * changes). */
void fs_fixture_make_feat(struct fs_fixture *fx, uint64_t size,
			  uint32_t blocksize, uint32_t agcount,
			  const struct xfsj_features *feat);
/* Flush the handle into the overlay, close it and open a new one. */
void fs_fixture_reopen(struct fs_fixture *fx);
void fs_fixture_free(struct fs_fixture *fx);
/*
 * Turn the free inode rootino + @slot (mkfs initialised the whole chunk)
 * into an empty regular file with generation @gen, extents-format forks,
 * BIGTIME when the filesystem has it plus @flags2, and @forkoff; @ip is
 * left holding it, read back through the verifier.
 */
uint64_t fs_fixture_make_file(struct fs_fixture *fx, unsigned int slot,
			      uint32_t gen, uint64_t flags2, uint8_t forkoff,
			      struct xfsj_iref *ip);
/* Reopen, check the filesystem: the number of problems found. */
uint64_t fs_fixture_problems(struct fs_fixture *fx);
/* Is every block of [fsb, fsb + len) free in its AG's bnobt? */
bool fs_fixture_is_free(struct fs_fixture *fx, uint64_t fsb, uint32_t len);
/* @len blocks allocated in AG @agno (no owner recorded). */
uint64_t fs_fixture_alloc(struct fs_fixture *fx, uint32_t agno, uint32_t len);
/* Every free block of every AG allocated (no owner recorded): a full
 * filesystem. */
void fs_fixture_fill(struct fs_fixture *fx);
/* Map [fsb, fsb + len) at @off of @ino's fork, deferred work finished. */
void fs_fixture_map(struct fs_fixture *fx, uint64_t ino, int whichfork,
		    uint64_t off, uint64_t fsb, uint64_t len, bool unwritten);
/* Recover the XMI @pi and finish the work it queues; fx->f the fault. */
int fs_fixture_xmi(struct fs_fixture *fx, const struct xfsj_pending_intent *pi);

#endif
