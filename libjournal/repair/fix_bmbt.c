/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A fork written afresh from a list of mappings (fix_fork.c decides
 * which): the extents format when they fit in the fork's room in the
 * inode, else a bmbt of one level below the inode root, its leaves
 * sharing the records evenly (each then holds at least half of what a
 * leaf can), written into blocks the caller names (the old tree's own
 * blocks: their owner stays the inode, so neither the rmapbt nor the
 * free space changes for them).  A tree that needs more leaves than the
 * root can point at, or more blocks than were given, is not written.
 * The blocks are fresh dirty buffers; their CRCs are set when the fs
 * handle flushes them.
 */
#include <string.h>

#include "core/layout.h"
#include "fs/bmbt.h"
#include "fs/iget.h"
#include "repair/repair_priv.h"

#define KEYPTR_SIZE	8

/* The fork's extent count, in the field its layout keeps it in. */
static void set_fork_count(struct xfsj_dinode *di, int whichfork, uint64_t n)
{
	bool big = di->flags2 & XFSJ_DIFLAG2_NREXT64;

	if (whichfork == XFSJ_DATA_FORK && big)
		di->big_nextents = n;
	else if (whichfork == XFSJ_DATA_FORK || big)
		di->nextents = (uint32_t)n;
	else
		di->anextents = (uint16_t)n;
}

/* One leaf at @fsb holding @n records from @m, between its siblings. */
static int write_leaf(struct xrp *rp, uint64_t ino, uint64_t fsb,
		      uint64_t left, uint64_t right,
		      const struct xfsj_bmbt_irec *m, size_t n)
{
	const struct xfsj_sb *sb = rp->sb;
	uint64_t daddr = xfsj_fsb_daddr(sb, fsb);
	struct xfsj_lblock h;
	struct xfsj_vctx c;
	struct xfsj_buf *bp;
	size_t i;
	int err;

	err = xfsj_buf_get_zero(rp->fs, daddr, sb->blocksize, &bp);
	if (err)
		return err < 0 ? err : -err;
	xfsj_fs_vctx(rp->fs, xfsj_fsb_agno(sb, fsb), &c);
	memset(&h, 0, sizeof(h));
	h.magic = XFSJ_BMAP_MAGIC;
	h.level = 0;
	h.numrecs = (uint16_t)n;
	h.leftsib = left;
	h.rightsib = right;
	h.blkno = daddr;
	memcpy(h.uuid, c.uuid, sizeof(h.uuid));
	h.owner = ino;
	xfsj_lblock_encode(&h, bp->data);
	for (i = 0; i < n; i++)
		xfsj_bmbt_rec_encode(&m[i], (uint8_t *)bp->data +
				     XFSJ_LBLOCK_HDR_SIZE +
				     i * XFSJ_BMBT_REC_SIZE);
	xfsj_buf_dirty(bp);
	return 0;
}

int xrp_fork_write(struct xrp *rp, struct xfsj_iref *ip, int whichfork,
		   const struct xfsj_bmbt_irec *m, size_t n,
		   const uint64_t *blocks, size_t nblocks, size_t *used)
{
	uint32_t size;
	uint8_t *area = xfsj_ifork(rp->fs, ip, whichfork, &size);
	uint8_t fmt = XFSJ_DINODE_FMT_EXTENTS;
	unsigned int leafmax = xfsj_btree_maxrecs(XFSJ_BT_BMAP,
						  rp->sb->blocksize, true);
	size_t leaves = 0, i, pos = 0, room, dmaxr;
	int err;

	*used = 0;
	if (!area || size < XFSJ_BMDR_HDR_SIZE + 2 * KEYPTR_SIZE)
		return 1;
	room = size / XFSJ_BMBT_REC_SIZE;
	dmaxr = (size - XFSJ_BMDR_HDR_SIZE) / (2 * KEYPTR_SIZE);
	if (n > room) {
		leaves = (n + leafmax - 1) / leafmax;
		if (leaves > dmaxr || leaves > nblocks)
			return 1;
		fmt = XFSJ_DINODE_FMT_BTREE;
	}
	memset(area, 0, size);
	if (fmt == XFSJ_DINODE_FMT_EXTENTS) {
		for (i = 0; i < n; i++)
			xfsj_bmbt_rec_encode(&m[i],
					     area + i * XFSJ_BMBT_REC_SIZE);
	} else {
		xfsj_put_be16(area, 1);
		xfsj_put_be16(area + 2, (uint16_t)leaves);
		for (i = 0; i < leaves; i++) {
			/* The records shared evenly, the first leaves
			 * taking one more while the rest do not divide. */
			size_t cnt = n / leaves + (i < n % leaves);

			err = write_leaf(rp, ip->ino, blocks[i],
					 i ? blocks[i - 1] : XFSJ_NULLFSBLOCK,
					 i + 1 < leaves ? blocks[i + 1] :
							  XFSJ_NULLFSBLOCK,
					 m + pos, cnt);
			if (err)
				return err;
			xfsj_put_be64(area + XFSJ_BMDR_HDR_SIZE +
				      i * KEYPTR_SIZE, m[pos].startoff);
			xfsj_put_be64(area + XFSJ_BMDR_HDR_SIZE +
				      (dmaxr + i) * KEYPTR_SIZE, blocks[i]);
			pos += cnt;
		}
		*used = leaves;
	}
	if (whichfork == XFSJ_ATTR_FORK)
		ip->di.aformat = fmt;
	else
		ip->di.format = fmt;
	set_fork_count(&ip->di, whichfork, n);
	return 0;
}
