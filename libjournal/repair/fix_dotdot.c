/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * names.dotdot: a directory's ".." names one directory while another one
 * holds its only entry.  The entry wins, as in xfs_repair's phase 6: the
 * directory reached from the root through that entry is the parent, and
 * ".." is set to it.  (A directory named from several directories is
 * dir.parents: the extra entries are removed first, and the ".." of what
 * is left is the next round's to check.)
 *
 * - Short form: the parent number in the fork's header, in place; when it
 *   needs 8 bytes and the header has 4, the directory is rewritten
 *   (fix_dir_salvage.c), which takes the holder as its parent.
 * - Block, leaf and node forms: the ".." entry, the second item of the
 *   first data block, in place; its file type stays that of a directory.
 *   A first block whose second item is not "..", or that cannot be read
 *   whole, has the directory rewritten.
 *
 * The link counts the move changes (the old parent loses a subdirectory,
 * the new one gains it) are the next round's to fix (inode.nlink): the
 * round ends after this fix, as those the check counted are stale.
 */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "core/layout.h"
#include "fs/iget.h"
#include "ondisk/dir_block.h"
#include "repair/repair_priv.h"

/* Short form: the header's parent; 1 when it does not fit in place. */
static int sf_dotdot(struct xrp *rp, struct xfsj_iref *ip, uint64_t parent)
{
	uint32_t fsize;
	uint8_t *f = xfsj_ifork(rp->fs, ip, XFSJ_DATA_FORK, &fsize);

	if (!f || ip->di.size > fsize || ip->di.size < 6 || fsize < 6)
		return 1;
	if (f[1]) {
		if (fsize < 10 || ip->di.size < 10)
			return 1;
		xfsj_put_be64(f + 2, parent);
	} else {
		if (parent > UINT32_MAX)
			return 1;
		xfsj_put_be32(f + 2, (uint32_t)parent);
	}
	xfsj_iput(rp->fs, ip, true);
	return 0;
}

/* Block forms: the ".." entry of the first data block; 1 when it is not
 * found there whole. */
static int block_dotdot(struct xrp *rp, uint64_t dir, uint64_t parent)
{
	uint32_t bsize = rp->sb->blocksize << rp->sb->dirblklog;
	bool ftype = rp->sb->features_incompat & XFSJ_INCOMPAT_FTYPE;
	struct xfsj_dir2_item it;
	struct xfsj_buf *bp;
	const char *field;
	uint32_t off = XFSJ_DIR3_HDR_SIZE;
	int err, i;

	err = xrp_dir_block(rp, dir, 0, &bp);
	if (err || !bp)
		return err ? err : 1;
	for (i = 0; i < 2; i++) {
		if (xfsj_dir2_data_item(bp->data, off, bsize, ftype, &it,
					&field) || it.unused)
			break;
		if (i == 0)
			off += it.len;
	}
	if (i < 2 || it.namelen != 2 || memcmp(it.name, "..", 2)) {
		err = xrp_dir_block_put(rp, bp, false);
		return err ? err : 1;
	}
	xfsj_put_be64(bp->data + it.off, parent);
	return xrp_dir_block_put(rp, bp, true);
}

int xrp_set_dotdot(struct xrp *rp, uint64_t dir, uint64_t parent)
{
	struct xfsj_iref ip;
	int err = xrp_iget(rp, dir, &ip);

	if (err)
		return err < 0 ? err : 2;
	if (!S_ISDIR(ip.di.mode))
		return 2;
	if (ip.di.format == XFSJ_DINODE_FMT_LOCAL)
		return sf_dotdot(rp, &ip, parent);
	if (ip.di.format == XFSJ_DINODE_FMT_EXTENTS ||
	    ip.di.format == XFSJ_DINODE_FMT_BTREE)
		return block_dotdot(rp, dir, parent);
	return 2;
}

int xrp_fix_dotdot(struct xrp *rp, struct xrp_prob *pr)
{
	const struct xfsj_problem *p = &pr->p;
	uint64_t dir = p->ino, parent = p->expected;
	struct xfsj_iref ip;
	char what[128];
	int err;

	if (pr->done || (p->has & (XFSJ_PF_INO | XFSJ_PF_EXPECTED)) !=
	    (XFSJ_PF_INO | XFSJ_PF_EXPECTED) || parent == dir)
		return 0;
	/* The holder must be a directory still. */
	err = xrp_iget(rp, parent, &ip);
	if (err)
		return err < 0 ? err : 0;
	if (!S_ISDIR(ip.di.mode))
		return 0;
	err = xrp_set_dotdot(rp, dir, parent);
	if (err == 2)
		return 0;
	if (err > 0) {
		/* Not in place: the rewrite takes the holder as parent. */
		err = xrp_dir_rebuild(rp, dir);
		if (err <= 0)
			return err;
	}
	if (err < 0)
		return err;
	pr->done = true;
	rp->recheck = true;
	snprintf(what, sizeof(what),
		 "directory %llu: '..' set to directory %llu (was %llu)",
		 (unsigned long long)dir, (unsigned long long)parent,
		 (unsigned long long)p->found);
	xrp_action(rp, &(struct xfsj_repair_action){
		.fix = XFSJ_FIX_FIELD, .problem = p, .has = XFSJ_PF_INO,
		.ino = dir, .what = what });
	return 0;
}
