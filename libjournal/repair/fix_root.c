/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dir.root: the inode the superblock names as the root is free or not a
 * directory.  As xfs_repair does, that inode is made again as an empty
 * root directory (mode 0755, owned by root, its ".." itself); whatever it
 * held is let go (its blocks are leaked for the AG stage to give back).
 * The next rounds follow: the inode btrees learn it is in use, and the
 * directories and files that hung from the old root, now named by
 * nothing, go to lost+found.
 *
 * A root outside every inode chunk is left: there is no inode to make.
 */
#include <sys/stat.h>

#include "fs/iget.h"
#include "repair/repair_priv.h"

/* Inode @ip, cleared, written as an empty root directory. */
static int make_root(struct xrp *rp, struct xfsj_iref *ip)
{
	const struct xfsj_sb *sb = rp->sb;
	uint32_t fsz;
	uint8_t *fork;
	int len;

	ip->di.mode = (uint16_t)(S_IFDIR | 0755);
	ip->di.format = XFSJ_DINODE_FMT_LOCAL;
	ip->di.nlink = 2;
	fork = xfsj_ifork(rp->fs, ip, XFSJ_DATA_FORK, &fsz);
	if (!fork)
		return 1;
	len = xfsj_dir_sf_encode(sb->rootino, NULL, 0,
				 (sb->features_incompat &
				  XFSJ_INCOMPAT_FTYPE) != 0, fork, fsz);
	if (len < 0)
		return len;
	ip->di.size = (uint64_t)len;
	return 0;
}

int xrp_fix_dir_root(struct xrp *rp)
{
	uint64_t ino = rp->sb->rootino;
	const struct xck_inode *st;
	struct xrp_prob *pr;
	struct xfsj_iref ip;
	int err;

	xrp_for_each(rp, pr, XFSJ_FIX_RECONNECT) {
		if (!xrp_names(pr, XFSJ_H_DIR_ROOT) || pr->done)
			continue;
		st = xck_inode_find(rp->ck, ino, NULL);
		if (!st || !(st->flags & XCK_I_SCANNED))
			continue;
		err = xrp_inode_make_free(rp, ino);
		if (err)
			return err;
		err = xrp_iget(rp, ino, &ip);
		if (err < 0)
			return err;
		if (err)
			continue;
		err = make_root(rp, &ip);
		if (err < 0)
			return err;
		if (err)
			continue;
		xfsj_iput(rp->fs, &ip, false);
		/* Every name and link the check counted under the old root
		 * is stale. */
		rp->recheck = true;
		xrp_ino_action(rp, pr, XFSJ_FIX_RECONNECT, ino,
			       "made inode %llu an empty root directory (it "
			       "was %s)", (unsigned long long)ino,
			       pr->p.field ? pr->p.field : "not one");
	}
	return 0;
}
