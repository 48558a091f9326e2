/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * FIX_FIELD of directories: one bad field, one field set, every entry
 * kept (xfs_repair 6.13 sends a whole directory to lost+found for a bad
 * owner in one block's header).
 *
 * - dir.crc: the block is otherwise sound; marking it dirty has the flush
 *   stamp a new CRC.
 * - dir.header (blkno, owner), dir.uuid: the header field set to where the
 *   block is, whose it is, the filesystem's UUID.
 * - dirent.ftype (a type that is not the child's, or none at all): the
 *   entries of the directory naming the child with that type get the
 *   child's, in its blocks (fix_dir_block.c) or its short form
 *   (fix_dir.c).
 * - dir.size: the directory inode's size set to what its blocks say.
 *
 * - dir.bests, dir.free.header: the directory is rebuilt from its
 *   entries (fix_dir_salvage.c), which writes its leaves and free index
 *   anew.
 *
 * A directory block is reached through the directory's data fork, whole
 * also when it spans several filesystem blocks (fs/dir_buf.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/inode_priv.h"
#include "fs/bmap.h"
#include "fs/bmbt.h"
#include "fs/iget.h"
#include "ondisk/dir_block.h"
#include "ondisk/meta.h"
#include "repair/repair_priv.h"

/*
 * The buffer of the directory block holding byte @off of directory @ino
 * (*bp NULL when it cannot be reached whole).
 */
static int dir_block(struct xrp *rp, uint64_t ino, uint64_t off,
		     struct xfsj_buf **bp)
{
	const struct xfsj_sb *sb = rp->sb;
	unsigned int fsbs = 1U << sb->dirblklog;
	uint64_t fileoff = (off >> (sb->blocklog + sb->dirblklog)) << sb->dirblklog;
	struct xfsj_bmbt_irec *ext = NULL;
	struct xfsj_fault f = { 0 };
	struct xfsj_iref ip;
	size_t n = 0, i;
	int err;

	*bp = NULL;
	err = xfsj_iget(rp->fs, ino, true, &ip, &f);
	if (err)
		return err == -XFSJ_E_NOMEM || err == -XFSJ_E_IO ? err : 0;
	err = xfsj_bmap_read(rp->fs, &ip, XFSJ_DATA_FORK, &ext, &n, &f);
	if (err) {
		free(ext);
		return err == -XFSJ_E_NOMEM || err == -XFSJ_E_IO ? err : 0;
	}
	for (i = 0; i < n; i++) {
		const struct xfsj_bmbt_irec *e = &ext[i];

		if (e->startoff > fileoff ||
		    e->startoff + e->blockcount < fileoff + fsbs)
			continue;
		if (!xrp_blocks_ok(rp, e->startblock + (fileoff - e->startoff),
				   fsbs))
			break;
		err = xfsj_dirbuf_get(rp->fs, xfsj_fsb_daddr(sb, e->startblock +
				     (fileoff - e->startoff)), sb->blocksize,
				     fsbs, false, bp, &f);
		break;
	}
	free(ext);
	if (err == -XFSJ_E_NOMEM || err == -XFSJ_E_IO)
		return err;
	return 0;
}

/* Done with the block (@dirty: changed): written and dropped when it
 * spans several filesystem blocks. */
static int dir_block_put(struct xrp *rp, struct xfsj_buf *bp, bool dirty)
{
	struct xfsj_fault f = { 0 };

	if (dirty)
		xfsj_buf_dirty(bp);
	return xfsj_dirbuf_put(rp->fs, bp, 1U << rp->sb->dirblklog, &f);
}

int xrp_dir_block(struct xrp *rp, uint64_t ino, uint64_t off,
		  struct xfsj_buf **bp)
{
	return dir_block(rp, ino, off, bp);
}

int xrp_dir_block_put(struct xrp *rp, struct xfsj_buf *bp, bool dirty)
{
	return dir_block_put(rp, bp, dirty);
}

static void done(struct xrp *rp, struct xrp_prob *pr, const char *what)
{
	pr->done = true;
	xrp_action(rp, &(struct xfsj_repair_action){
		.fix = XFSJ_FIX_FIELD, .problem = &pr->p, .has = XFSJ_PF_INO,
		.ino = pr->p.ino, .what = what });
}

static int fix_header(struct xrp *rp, struct xrp_prob *pr)
{
	const struct xfsj_problem *p = &pr->p;
	struct xfsj_dir3_hdr h;
	struct xfsj_buf *bp;
	char what[128];
	int err;

	err = dir_block(rp, p->ino, p->off, &bp);
	if (err || !bp)
		return err;
	if (!xfsj_dir3_hdr_decode_any(bp->data, &h))
		return dir_block_put(rp, bp, false);
	if (xrp_names(pr, XFSJ_H_DIR_HEADER) && p->field &&
	    (p->has & XFSJ_PF_EXPECTED)) {
		if (!strcmp(p->field, "blkno"))
			h.blkno = bp->daddr;
		else if (!strcmp(p->field, "owner"))
			h.owner = p->ino;
		else
			return dir_block_put(rp, bp, false);
	} else if (xrp_names(pr, XFSJ_H_DIR_UUID)) {
		memcpy(h.uuid, xfsj_meta_fs_uuid(rp->sb), sizeof(h.uuid));
	}
	/* dir.crc: the block as it is; the flush stamps the CRC. */
	xfsj_dir3_hdr_encode(bp->data, &h);
	err = dir_block_put(rp, bp, true);
	if (err)
		return err;
	snprintf(what, sizeof(what),
		 "directory %llu: block at offset %llu: %s rewritten",
		 (unsigned long long)p->ino, (unsigned long long)p->off,
		 xrp_names(pr, XFSJ_H_DIR_CRC) ? "CRC" :
		 xrp_names(pr, XFSJ_H_DIR_UUID) ? "header uuid" : p->field);
	done(rp, pr, what);
	return 0;
}

static int fix_size(struct xrp *rp, struct xrp_prob *pr)
{
	const struct xfsj_problem *p = &pr->p;
	struct xfsj_fault f = { 0 };
	struct xfsj_iref ip;
	char what[96];
	int err;

	if (!(p->has & XFSJ_PF_EXPECTED))
		return 0;
	err = xfsj_iget(rp->fs, p->ino, true, &ip, &f);
	if (err)
		return err == -XFSJ_E_NOMEM || err == -XFSJ_E_IO ? err : 0;
	ip.di.size = p->expected;
	xfsj_iput(rp->fs, &ip, true);
	snprintf(what, sizeof(what), "set the size of directory %llu to %llu",
		 (unsigned long long)p->ino, (unsigned long long)p->expected);
	done(rp, pr, what);
	return 0;
}

/* dirent.ftype: the entries naming child {off} get its mode's type. */
static int fix_dirent_ftype(struct xrp *rp, struct xrp_prob *pr)
{
	const struct xfsj_problem *p = &pr->p;
	struct xfsj_fault f = { 0 };
	struct xfsj_iref ip;
	char what[128];
	int err;

	if (!(rp->sb->features_incompat & XFSJ_INCOMPAT_FTYPE) ||
	    (p->has & (XFSJ_PF_OFF | XFSJ_PF_EXPECTED | XFSJ_PF_FOUND)) !=
	    (XFSJ_PF_OFF | XFSJ_PF_EXPECTED | XFSJ_PF_FOUND) ||
	    !p->expected || p->expected >= XFSJ_FT__MAX)
		return 0;
	err = xfsj_iget(rp->fs, p->ino, true, &ip, &f);
	if (err)
		return err == -XFSJ_E_NOMEM || err == -XFSJ_E_IO ? err : 0;
	if ((ip.di.mode & 0170000) != 0040000)
		return 0;
	if (ip.di.format == XFSJ_DINODE_FMT_LOCAL)
		err = xrp_sf_dirent_ftype(rp, pr, &ip);
	else if (ip.di.format == XFSJ_DINODE_FMT_EXTENTS ||
		 ip.di.format == XFSJ_DINODE_FMT_BTREE)
		err = xrp_block_dirent_ftype(rp, pr, &ip);
	else
		return 0;
	if (err <= 0)
		return err;
	snprintf(what, sizeof(what),
		 "directory %llu: the entry naming inode %llu: file type set "
		 "to %llu", (unsigned long long)p->ino,
		 (unsigned long long)p->off, (unsigned long long)p->expected);
	done(rp, pr, what);
	return 0;
}

int xrp_field_dir(struct xrp *rp, struct xrp_prob *pr)
{
	if (pr->done || !(pr->p.has & XFSJ_PF_INO))
		return 0;
	switch (pr->p.def->handler) {
	case XFSJ_H_DIR_CRC:
	case XFSJ_H_DIR_HEADER:
	case XFSJ_H_DIR_UUID:
		return (pr->p.has & XFSJ_PF_OFF) ? fix_header(rp, pr) : 0;
	case XFSJ_H_DIR_SIZE:
		return fix_size(rp, pr);
	case XFSJ_H_DIRENT_FTYPE:
		return fix_dirent_ftype(rp, pr);
	case XFSJ_H_DIR_INDEX: {
		int err = xrp_dir_rebuild(rp, pr->p.ino);

		return err < 0 ? err : 0;
	}
	default:
		return 0;
	}
}
