/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Freeing an inode (ifree.h): the inode btrees first, then its unlinked
 * list, then the core, in the kernel's order.  An inode changed here gets
 * its CRC recomputed at once (xfsj_iput).
 */
#include "fs/defer.h"
#include "fs/ialloc.h"
#include "fs/ifree.h"
#include "fs/iget.h"
#include "fs/iunlink.h"

static uint64_t to_bigtime(uint64_t legacy)
{
	return xfsj_time_encode((int32_t)(uint32_t)(legacy >> 32),
				(uint32_t)legacy, true);
}

/* The core as the kernel's xfs_ifree leaves it. */
static void inode_clear(struct xfsj_fs *fs, struct xfsj_iref *ib)
{
	struct xfsj_dinode *di = &ib->di;
	uint64_t flags2 = 0;

	if (xfsj_fs_has_incompat(fs, XFSJ_INCOMPAT_BIGTIME))
		flags2 |= XFSJ_DIFLAG2_BIGTIME;
	if (xfsj_fs_has_incompat(fs, XFSJ_INCOMPAT_NREXT64))
		flags2 |= XFSJ_DIFLAG2_NREXT64;
	/* The times are written back in the encoding the new flags say. */
	if ((flags2 & XFSJ_DIFLAG2_BIGTIME) &&
	    !(di->flags2 & XFSJ_DIFLAG2_BIGTIME)) {
		di->atime = to_bigtime(di->atime);
		di->mtime = to_bigtime(di->mtime);
		di->ctime = to_bigtime(di->ctime);
		di->crtime = to_bigtime(di->crtime);
	}
	di->mode = 0;
	di->flags = 0;
	di->flags2 = flags2;
	di->forkoff = 0;
	di->format = XFSJ_DINODE_FMT_EXTENTS;
	di->aformat = XFSJ_DINODE_FMT_EXTENTS;
	di->nextents = 0;
	di->anextents = 0;
	di->big_nextents = 0;
	di->onlink = 0;
	di->gen++;
	di->next_unlinked = XFSJ_NULLAGINO;
	di->lsn = xfsj_fs_lsn(fs);
	xfsj_iput(fs, ib, false);
}

struct forget_arg {
	struct xfsj_fs *fs;
	uint32_t agno;
};

static int forget_chunk_blocks(void *arg, uint32_t agbno, uint32_t len)
{
	struct forget_arg *a = arg;
	const struct xfsj_sb *sb = xfsj_fs_sb(a->fs);

	for (uint32_t b = 0; b < len; b++) {
		struct xfsj_buf *bp;

		if (xfsj_buf_read(a->fs, xfsj_agb_to_daddr(sb, a->agno,
							   agbno + b),
				  sb->blocksize, &bp) == 0)
			xfsj_buf_forget(a->fs, bp);
	}
	return 0;
}

int xfsj_ifree(struct xfsj_fs *fs, uint64_t ino, bool *chunk_freed,
	       struct xfsj_fault *f)
{
	const struct xfsj_sb *sb = xfsj_fs_sb(fs);
	uint32_t agno = xfsj_ino_agno(sb, ino);
	uint32_t agino = xfsj_ino_agino(sb, ino);
	struct xfsj_difree_res res;
	struct xfsj_iref ib;
	bool found;
	int err;

	*chunk_freed = false;
	err = xfsj_iget_used(fs, ino, &ib, f);
	if (err)
		return err;
	/* As the kernel: the inode btrees first, then the list. */
	err = xfsj_difree(fs, agno, agino, &res, f);
	if (err)
		return err;
	err = xfsj_iunlink_remove(fs, agno, agino, ib.di.next_unlinked,
				  &found, f);
	if (err)
		return err;
	err = xfsj_iget(fs, ino, true, &ib, f);
	if (err)
		return err;
	if (res.chunk_freed) {
		/*
		 * The kernel stales the chunk's buffers: nothing more is
		 * written to them, so they keep what the disk has.
		 */
		struct forget_arg a = { fs, agno };

		xfsj_ichunk_extents(sb, res.startino, res.holemask,
				    forget_chunk_blocks, &a);
		*chunk_freed = true;
	} else {
		inode_clear(fs, &ib);
	}
	return xfsj_defer_finish(fs, f);
}
