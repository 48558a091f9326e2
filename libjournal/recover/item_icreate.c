/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The replay of inode chunk creation (ICREATE) items: the kernel logs
 * the creation of a chunk, not its cluster buffers, so the replay writes
 * the new inodes (zeroed, with their generation and unlinked pointer)
 * unless a cluster of the chunk was cancelled (freed later in the log).
 *
 * Salvage: an inode the disk holds intact with a later LSN than the
 * creation's was written back after it: the kernel overwrites it here
 * and the later items logging it put it back, but those may be in a
 * checkpoint lost to the damage.  Salvage keeps the disk's inode.
 */
#include <string.h>

#include "ondisk/meta.h"
#include "xfsj/ondisk.h"
#include "recover/recover_priv.h"

void xrec_free_inode(const struct xfsj_recover *rc, uint8_t *dst,
		     uint64_t ino, uint32_t gen)
{
	const struct xfsj_sb *sb = &rc->sb;
	struct xfsj_dinode di;

	memset(dst, 0, sb->inodesize);
	memset(&di, 0, sizeof(di));
	di.magic = XFSJ_DINODE_MAGIC;
	di.version = 3;
	di.gen = gen;
	di.next_unlinked = XFSJ_NULLAGINO;
	di.ino = ino;
	memcpy(di.uuid, xfsj_meta_fs_uuid(sb), 16);
	xfsj_dinode_encode(&di, dst);
	xfsj_dinode_finish(dst, sb->inodesize);
}

/* Salvage: does the disk hold inode @ino at @off intact and written back
 * after @lsn?  (rc->buf holds room for one inode.) */
static bool newer_on_disk(struct xfsj_recover *rc, uint64_t ino, uint64_t off,
			  uint64_t lsn)
{
	const struct xfsj_sb *sb = &rc->sb;
	struct xfsj_vctx c = { .inodesize = sb->inodesize };
	struct xfsj_fault f = { 0 };
	uint64_t disk_lsn;

	memcpy(c.uuid, xfsj_meta_fs_uuid(sb), 16);
	if (xfsj_overlay_read(rc->ov, rc->buf, sb->inodesize, off) ||
	    xfsj_dinode_verify_place(rc->buf, &c, ino, off, &f))
		return false;
	disk_lsn = xfsj_get_be64(rc->buf + XFSJ_DI_OFF(lsn));
	return disk_lsn != UINT64_MAX && disk_lsn > lsn;
}

int xrec_icreate_pass2(struct xfsj_recover *rc, const struct xfsj_ritem *it,
		       const struct xfsj_item_info *in, uint64_t lsn,
		       struct xfsj_fault *f)
{
	const struct xfsj_sb *sb = &rc->sb;
	uint32_t agno, agbno, count, isize, length, gen;
	uint32_t cluster_bytes, blks_per_cluster;
	uint64_t base;
	int err;

	(void)it;
	if (in->err)
		return xrec_item_fault(f, in, "icreate log item");
	agno = in->u.icr.ag;
	agbno = in->u.icr.agbno;
	count = in->u.icr.count;
	isize = in->u.icr.isize;
	length = in->u.icr.length;
	gen = in->u.icr.gen;
	if (agno >= sb->agcount || !agbno || agbno >= sb->agblocks ||
	    isize != sb->inodesize || !count || !length ||
	    length >= sb->agblocks || agbno + length > sb->agblocks ||
	    (count >> sb->inopblog) != length)
		return xrec_corrupt(f, "icreate log item", "geometry", 0, agbno);
	if (xrec_daddr_bad(rc, ((uint64_t)agno * sb->agblocks + agbno) <<
			  (sb->blocklog - 9),
		      (uint64_t)length << (sb->blocklog - 9)))
		return xfsj_fault_set(f, XFSJ_E_RANGE, "icreate log item",
				      "icl_agbno", 8, agbno);

	cluster_bytes = 8192 * (isize / 256);
	blks_per_cluster = cluster_bytes >> sb->blocklog;
	if (!blks_per_cluster)
		blks_per_cluster = 1;
	base = ((uint64_t)agno * sb->agblocks + agbno) << sb->blocklog;
	/* A cancelled cluster means the chunk was freed later: skip it all. */
	for (uint32_t b = 0; b < length; b += blks_per_cluster) {
		uint64_t daddr = (base >> 9) + ((uint64_t)b << (sb->blocklog - 9));

		if (xrec_cancel_find(rc, daddr, blks_per_cluster << (sb->blocklog - 9)))
			return 0;
	}
	err = xrec_scratch(rc, sb->inodesize);
	if (err)
		return err;
	for (uint32_t i = 0; i < count; i++) {
		uint64_t ino = ((uint64_t)agno << (sb->agblklog + sb->inopblog)) |
			       ((uint64_t)agbno << sb->inopblog) | i;

		uint64_t off = base + (uint64_t)i * sb->inodesize;

		if (rc->salvage && newer_on_disk(rc, ino, off, lsn)) {
			rc->st.salvage_inodes_kept++;
			continue;
		}
		xrec_free_inode(rc, rc->buf, ino, gen);
		err = xfsj_overlay_write(rc->ov, rc->buf, sb->inodesize, off);
		if (err)
			return err;
	}
	rc->st.icreates++;
	return 0;
}

