/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Finishing the inodes on the AGI unlinked lists (see iunlink.h), in the
 * kernel's order: each bucket's list from its head, each inode truncated
 * (data fork, then attribute fork), freed in the inode btrees, taken off
 * its list and cleared before the next one is looked at.
 *
 * Inode buffers are the filesystem block holding the inode: every inode
 * changed here gets its CRC recomputed at once, so the block stays valid
 * whatever the flush does with it.
 */
#include <string.h>

#include "fs/iget.h"
#include "fs/ifree.h"
#include "fs/itruncate.h"
#include "fs/iunlink.h"

#define BUCKETS			XFSJ_AGI_UNLINKED_BUCKETS

/* ---- the unlinked lists ---- */

static uint64_t agi_off(const struct xfsj_fs *fs, uint32_t agno)
{
	const struct xfsj_sb *sb = xfsj_fs_sb(fs);

	return (xfsj_agb_to_daddr(sb, agno, 0) << 9) + 2ULL * sb->sectsize;
}

static uint64_t bucket_off(const struct xfsj_fs *fs, uint32_t agno,
			   unsigned int bucket)
{
	return agi_off(fs, agno) + XFSJ_AGI_OFF(unlinked) + 4ULL * bucket;
}

int xfsj_iunlink_remove(struct xfsj_fs *fs, uint32_t agno, uint32_t agino,
			uint32_t next, bool *found, struct xfsj_fault *f)
{
	const struct xfsj_sb *sb = xfsj_fs_sb(fs);
	unsigned int bucket = agino % BUCKETS;
	struct xfsj_buf *agibp;
	uint32_t cur, prev = XFSJ_NULLAGINO;
	uint64_t steps = 0, limit;
	int err;

	*found = false;
	err = xfsj_agi_read(fs, agno, &agibp, f);
	if (err)
		return err;
	/* No list is longer than the inodes the AG holds. */
	limit = (uint64_t)xfsj_get_be32(agibp->data + 16) + 1;
	cur = xfsj_get_be32(agibp->data + XFSJ_AGI_OFF(unlinked) + 4 * bucket);
	while (cur != XFSJ_NULLAGINO && cur != agino) {
		struct xfsj_iref ib;

		if (++steps > limit)
			return xfsj_fault_set(f, XFSJ_E_CORRUPT, "AGI",
					      "unlinked list loops",
					      bucket_off(fs, agno, bucket),
					      bucket);
		err = xfsj_iget(fs, xfsj_agino_to_ino(sb, agno, cur), false, &ib, f);
		if (err)
			return err;
		prev = cur;
		cur = ib.di.next_unlinked;
	}
	if (cur != agino)
		return 0;
	*found = true;
	if (prev == XFSJ_NULLAGINO) {
		xfsj_put_be32(agibp->data + XFSJ_AGI_OFF(unlinked) + 4 * bucket,
			      next);
		xfsj_buf_dirty(agibp);
	} else {
		struct xfsj_iref ib;

		err = xfsj_iget(fs, xfsj_agino_to_ino(sb, agno, prev), false, &ib, f);
		if (err)
			return err;
		ib.di.next_unlinked = next;
		xfsj_iput(fs, &ib, false);
	}
	return 0;
}
/*
 * Is the next inode of a list one we can finish?  Only corruption of the
 * list or of the inode counts here; anything else is an error.
 */
static int list_next_ok(struct xfsj_fs *fs, uint32_t agno,
			unsigned int bucket, uint32_t cur, uint64_t ptr_off,
			struct xfsj_iref *ib, struct xfsj_fault *f)
{
	const struct xfsj_sb *sb = xfsj_fs_sb(fs);
	int err;

	if (cur % BUCKETS != bucket ||
	    (cur >> sb->inopblog) >= xfsj_fs_ag_blocks(fs, agno) ||
	    (uint64_t)cur >> (sb->agblklog + sb->inopblog))
		return xfsj_fault_set(f, XFSJ_E_CORRUPT, "unlinked list",
				      "next_unlinked", ptr_off, cur);
	err = xfsj_iget(fs, xfsj_agino_to_ino(sb, agno, cur), false, ib, f);
	if (err)
		return err;
	if (ib->di.mode == 0)
		return xfsj_fault_set(f, XFSJ_E_CORRUPT, "inode",
				      "mode (free inode on unlinked list)",
				      ib->byte_off + 2, 0);
	return 0;
}

static bool is_corruption(int err)
{
	return err == -XFSJ_E_CORRUPT || err == -XFSJ_E_BADCRC ||
	       err == -XFSJ_E_BADMAGIC || err == -XFSJ_E_RANGE;
}

/*
 * The kernel's walk of one bucket: each inode is loaded, then the one
 * before it is finished.  When the next inode cannot be loaded (or its
 * forks cannot be read), the walk stops there and the bucket is emptied:
 * the rest of the list stays allocated, for xfs_repair to reclaim, and
 * the filesystem mounts.  Forks are read whole before anything changes,
 * so a fork found corrupt leaves its inode untouched.
 */
static int process_bucket(struct xfsj_fs *fs, uint32_t agno,
			  unsigned int bucket, struct xfsj_iunlink_stats *st,
			  struct xfsj_fault *f)
{
	const struct xfsj_sb *sb = xfsj_fs_sb(fs);
	struct xfsj_buf *agibp;
	uint64_t ptr_off = bucket_off(fs, agno, bucket);
	uint64_t steps = 0, limit;
	uint32_t cur;
	int err = 0;

	err = xfsj_agi_read(fs, agno, &agibp, f);
	if (err)
		return err;
	cur = xfsj_get_be32(agibp->data + XFSJ_AGI_OFF(unlinked) + 4 * bucket);
	/* No list can be longer than the AG has inodes: that ends a loop. */
	limit = (uint64_t)xfsj_fs_ag_blocks(fs, agno) << sb->inopblog;
	while (cur != XFSJ_NULLAGINO) {
		uint64_t ino = xfsj_agino_to_ino(sb, agno, cur);
		uint64_t blocks;
		struct xfsj_iref ib;
		bool chunk;

		if (++steps > limit) {
			err = xfsj_fault_set(f, XFSJ_E_CORRUPT, "unlinked list",
					     "loop", ptr_off, cur);
			break;
		}
		err = list_next_ok(fs, agno, bucket, cur, ptr_off, &ib, f);
		if (err)
			break;
		ptr_off = ib.byte_off + XFSJ_DI_OFF(next_unlinked);
		cur = ib.di.next_unlinked;
		/*
		 * Still linked: the kernel does not inactivate it, so it
		 * stays on the list.
		 */
		if (ib.di.nlink != 0)
			continue;
		err = xfsj_inode_truncate_forks(fs, ino, &blocks, f);
		if (err)
			break;
		err = xfsj_ifree(fs, ino, &chunk, f);
		if (err)
			return err;
		st->inodes++;
		st->freed++;
		st->blocks += blocks;
		st->chunks += chunk;
	}
	if (!err)
		return 0;
	if (!is_corruption(err))
		return err;
	/* Empty the bucket as the kernel's xlog_recover_clear_agi_bucket. */
	if (!st->buckets_cleared++) {
		st->bad_agno = agno;
		st->bad_bucket = bucket;
		st->bad = *f;
	}
	memset(f, 0, sizeof(*f));
	err = xfsj_agi_read(fs, agno, &agibp, f);
	if (err)
		return err;
	xfsj_put_be32(agibp->data + XFSJ_AGI_OFF(unlinked) + 4 * bucket,
		      XFSJ_NULLAGINO);
	xfsj_buf_dirty(agibp);
	return 0;
}

int xfsj_iunlink_process(struct xfsj_fs *fs, struct xfsj_iunlink_stats *st,
			 struct xfsj_fault *f)
{
	const struct xfsj_sb *sb = xfsj_fs_sb(fs);

	memset(st, 0, sizeof(*st));
	for (uint32_t agno = 0; agno < sb->agcount; agno++) {
		for (unsigned int b = 0; b < BUCKETS; b++) {
			int err = process_bucket(fs, agno, b, st, f);

			if (err)
				return err;
		}
	}
	return 0;
}
