/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The replay of inode items: the logged core (the log dinode, in the
 * writer's byte order) and forks written over the inode in its cluster
 * buffer, the v5 LSN rule first, and the owner changes an extent swap
 * logged.  The item is decoded once, by the log layer (log/item_inode.c):
 * the format, the core and which regions hold the forks.
 */
#include <stdlib.h>
#include <string.h>

#include "core/crc32c.h"
#include "core/layout.h"
#include "xfsj/fs.h"
#include "xfsj/ondisk.h"
#include "fs/bmbt.h"
#include "recover/recover_priv.h"

/*
 * An inode item with DOWNER (AOWNER) set comes from an extent swap
 * (XFS_IOC_SWAPEXT without rmapbt) that moved a btree-format fork from
 * one inode to the other.  The transaction did not log the fork's btree
 * blocks: it wrote their new owner through ordered buffers, which may not
 * have reached the disk.  So recovery, like the kernel's, sets the owner
 * of every block of the fork's bmbt to the inode, each block's checksum
 * recomputed and its LSN left as it is (these blocks carry no log item);
 * blocks that already name the inode are left alone.
 *
 * Unlike the kernel, which walks each level along the sibling pointers
 * and gives up recovery at the first block its verifier rejects, we go
 * down the child pointers as of this transaction (xfsj_bmbt_walk_disk) and pass over what the
 * disk holds in a later version (an LSN beyond the transaction's: the
 * block was logged again since, owner included) or no longer holds at
 * all (not a bmbt block of the expected level: freed and reused, maybe
 * as file data, which has no LSN).  Such a block's subtree is left to
 * the later transactions that rewrote it.
 */
struct owner_walk {
	struct xfsj_recover *rc;
	uint64_t ino, lsn;
};

/* One block of the fork's bmbt: give it the inode as owner. */
static int owner_block(void *arg, const struct xfsj_bmbt_disk_blk *b,
		       struct xfsj_fault *f)
{
	struct owner_walk *w = arg;
	uint32_t bs = w->rc->sb.blocksize;
	uint64_t blsn;
	int err;

	if (!b->data) {		/* outside the fs, or not a bmbt block here */
		w->rc->st.owners_passed++;
		return XFSJ_BMBT_SKIP;
	}
	blsn = xfsj_get_be64(b->data + XFSJ_LB_OFF(lsn));
	if (blsn != UINT64_MAX && blsn > w->lsn) {
		w->rc->st.owners_passed++;
		return XFSJ_BMBT_SKIP;
	}
	if (xfsj_get_be64(b->data + XFSJ_LB_OFF(owner)) == w->ino)
		return 0;
	xfsj_put_be64(b->data + XFSJ_LB_OFF(owner), w->ino);
	xfsj_cksum_update(b->data, bs, XFSJ_LBLOCK_CRC_OFF);
	err = xfsj_overlay_write(w->rc->ov, b->data, bs, b->daddr << 9);
	if (err)
		return xfsj_fault_set(f, err, "bmap btree block", "write",
				      b->daddr << 9, b->fsbno);
	w->rc->st.owners_changed++;
	return 0;
}

static int change_owner(struct xfsj_recover *rc, uint64_t ino,
			const uint8_t *root, uint32_t rootsize, uint64_t lsn,
			struct xfsj_fault *f)
{
	struct owner_walk w = { rc, ino, lsn };

	return xfsj_bmbt_walk_disk(rc->ov, &rc->sb, root, rootsize,
				   "log dinode", owner_block, &w, f);
}

/*
 * The owner changes an inode item records, from the inode @dip as of
 * @as_of (replayed, or as the disk holds it when the disk is newer),
 * unless the inode has since been freed (mode 0), as the kernel does.
 */
static int owner_changes(struct xfsj_recover *rc, const struct xfsj_item_info *in,
			 const uint8_t *dip, uint32_t isize, uint64_t as_of,
			 struct xfsj_fault *f)
{
	uint32_t forkoff = dip[XFSJ_DI_OFF(forkoff)], dsize, asize;
	int err = 0;

	if (!(in->u.ino.fields & (XFSJ_ILOG_DOWNER | XFSJ_ILOG_AOWNER)) ||
	    !xfsj_get_be16(dip + XFSJ_DI_OFF(mode)))
		return 0;
	rc->st.owner_items++;
	if (forkoff * 8U >= isize - XFSJ_DINODE_CORE_SIZE)
		return 0;
	dsize = forkoff ? forkoff * 8U : isize - XFSJ_DINODE_CORE_SIZE;
	asize = isize - XFSJ_DINODE_CORE_SIZE - forkoff * 8U;
	if ((in->u.ino.fields & XFSJ_ILOG_DOWNER) && dip[XFSJ_DI_OFF(format)] == XFSJ_DINODE_FMT_BTREE)
		err = change_owner(rc, in->u.ino.ino, dip + XFSJ_DINODE_CORE_SIZE,
				   dsize, as_of, f);
	if (!err && (in->u.ino.fields & XFSJ_ILOG_AOWNER) && forkoff &&
	    dip[XFSJ_DI_OFF(aformat)] == XFSJ_DINODE_FMT_BTREE)
		err = change_owner(rc, in->u.ino.ino, dip + XFSJ_DINODE_CORE_SIZE +
				   forkoff * 8U, asize, as_of, f);
	return err;
}

/* Log dinode (host order) to on-disk dinode (big-endian). */
static void log_dinode_to_disk(const uint8_t *ld, uint32_t len, uint8_t *dip,
			       uint64_t lsn)
{
	struct xfsj_dinode di;
	uint32_t next_unlinked = xfsj_get_be32(dip + XFSJ_DI_OFF(next_unlinked));

	xfsj_log_dinode_decode(ld, len, &di);
	di.next_unlinked = next_unlinked;	/* comes from inode buffers */
	di.lsn = lsn;
	xfsj_dinode_encode(&di, dip);
}

/* In-memory bmbt root (long block header) to the on-disk bmdr root. */
static int broot_to_disk(const struct xfsj_region *r, uint8_t *fork,
			 uint32_t forksize, struct xfsj_fault *f)
{
	uint32_t maxrecs, dmaxrecs, level, numrecs;

	if (r->len < XFSJ_LBLOCK_HDR_SIZE || forksize < XFSJ_BMDR_HDR_SIZE)
		return xrec_corrupt(f, "inode log item", "broot", 0, r->len);
	level = xfsj_get_be16(r->p + XFSJ_LB_OFF(level));
	numrecs = xfsj_get_be16(r->p + XFSJ_LB_OFF(numrecs));
	/* A key (8 bytes) and a pointer (8 bytes) per record. */
	maxrecs = (r->len - XFSJ_LBLOCK_HDR_SIZE) / 16;
	dmaxrecs = (forksize - XFSJ_BMDR_HDR_SIZE) / 16;
	if (numrecs > maxrecs || numrecs > dmaxrecs || level == 0)
		return xrec_corrupt(f, "inode log item", "broot numrecs", 0, numrecs);
	memset(fork, 0, forksize);
	/* The bmdr header: level, then numrecs. */
	xfsj_put_be16(fork, (uint16_t)level);
	xfsj_put_be16(fork + 2, (uint16_t)numrecs);
	memcpy(fork + XFSJ_BMDR_HDR_SIZE, r->p + XFSJ_LBLOCK_HDR_SIZE,
	       numrecs * 8);
	memcpy(fork + XFSJ_BMDR_HDR_SIZE + dmaxrecs * 8,
	       r->p + XFSJ_LBLOCK_HDR_SIZE + maxrecs * 8, numrecs * 8);
	return 0;
}

/*
 * Salvage: the inode lands in a cluster that was never initialized (its
 * chunk was made by a checkpoint lost to the damage).  Every slot of the
 * cluster without an inode becomes a free inode, as the chunk's creation
 * would have made it, and the logged inode is replayed into its slot.
 */
static void salvage_cluster(struct xfsj_recover *rc,
			    const struct xfsj_item_info *in, uint32_t buflen)
{
	const uint32_t isize = rc->sb.inodesize;
	uint64_t ino0 = in->u.ino.ino - in->u.ino.boffset / isize;

	for (uint32_t o = 0; o + isize <= buflen; o += isize)
		if (xfsj_get_be16(rc->buf + o) != XFSJ_DINODE_MAGIC)
			xrec_free_inode(rc, rc->buf + o, ino0 + o / isize, 0);
	rc->st.salvage_clusters++;
}

int xrec_inode_pass2(struct xfsj_recover *rc, const struct xfsj_ritem *it,
		     const struct xfsj_item_info *in, uint64_t lsn,
		     struct xfsj_fault *f)
{
	const uint32_t isize = rc->sb.inodesize;
	const struct xfsj_log_dinode *core = &in->u.ino.core;
	uint32_t buflen, dsize, asize, forkoff;
	uint64_t off, disk_lsn;
	uint8_t *dip;
	const uint8_t *ld;
	int err;

	if (it->nreg < 2)
		return xrec_corrupt(f, "inode log item", "regions", 0, it->nreg);
	if (!in->fmt_ok)
		return xrec_item_fault(f, in, "inode log item");
	if (xrec_cancel_find(rc, in->u.ino.blkno, in->u.ino.len)) {
		rc->st.inodes_cancelled++;
		return 0;
	}
	if (!in->u.ino.len || in->u.ino.len > 256)
		return xrec_corrupt(f, "inode log item", "ilf_len", 0, in->u.ino.len);
	if (xrec_daddr_bad(rc, in->u.ino.blkno, in->u.ino.len))
		return xfsj_fault_set(f, XFSJ_E_RANGE, "inode log item",
				      "ilf_blkno", 0, in->u.ino.blkno);
	buflen = in->u.ino.len << 9;
	off = in->u.ino.blkno << 9;
	if (in->u.ino.boffset > buflen || isize > buflen - in->u.ino.boffset)
		return xrec_corrupt(f, "inode log item", "ilf_boffset", off,
			       in->u.ino.boffset);
	err = xrec_scratch(rc, buflen);
	if (!err)
		err = xfsj_overlay_read(rc->ov, rc->buf, buflen, off);
	if (err)
		return xfsj_fault_set(f, err, "inode cluster", "ilf_blkno",
				      off, in->u.ino.blkno);
	dip = rc->buf + in->u.ino.boffset;
	ld = it->reg[1].p;
	if (xfsj_get_be16(dip) != XFSJ_DINODE_MAGIC && rc->salvage &&
	    in->u.ino.have_core && core->v3 && in->u.ino.boffset % isize == 0)
		salvage_cluster(rc, in, buflen);
	if (xfsj_get_be16(dip) != XFSJ_DINODE_MAGIC)
		return xrec_corrupt(f, "inode", "di_magic", off + in->u.ino.boffset,
			       xfsj_get_be16(dip));
	/* The replay takes only the v3 core (176 bytes). */
	if (!in->u.ino.have_core || !core->v3 ||
	    core->magic != XFSJ_DINODE_MAGIC)
		return xrec_corrupt(f, "log dinode", "di_magic", 0, core->magic);

	disk_lsn = xfsj_get_be64(dip + XFSJ_DI_OFF(lsn));
	if (disk_lsn && disk_lsn != UINT64_MAX && disk_lsn > lsn) {
		rc->st.inodes_skipped_lsn++;
		/*
		 * The inode reached the disk after this change, but the
		 * blocks whose owner the change set need not have: the
		 * kernel replays the owner change anyway, from the inode as
		 * the disk holds it.
		 */
		return owner_changes(rc, in, dip, isize, disk_lsn, f);
	}
	log_dinode_to_disk(ld, it->reg[1].len, dip, lsn);

	forkoff = dip[XFSJ_DI_OFF(forkoff)];
	if (forkoff * 8U >= isize - XFSJ_DINODE_CORE_SIZE)
		return xrec_corrupt(f, "log dinode", "di_forkoff",
				    off + in->u.ino.boffset +
				    XFSJ_DI_OFF(forkoff), forkoff);
	dsize = forkoff ? forkoff * 8U : isize - XFSJ_DINODE_CORE_SIZE;
	asize = isize - XFSJ_DINODE_CORE_SIZE - forkoff * 8U;
	if (in->u.ino.fields & XFSJ_ILOG_DFORK) {
		const struct xfsj_region *r;

		if (in->u.ino.dfork_reg < 0)
			return xrec_corrupt(f, "inode log item", "regions", 0,
					    it->nreg);
		r = &it->reg[in->u.ino.dfork_reg];
		if (in->u.ino.fields & XFSJ_ILOG_DBROOT) {
			err = broot_to_disk(r, dip + XFSJ_DINODE_CORE_SIZE, dsize, f);
			if (err)
				return err;
		} else {
			uint32_t n = r->len < dsize ? r->len : dsize;

			memcpy(dip + XFSJ_DINODE_CORE_SIZE, r->p, n);
		}
	} else if (in->u.ino.fields & XFSJ_ILOG_DEV) {
		xfsj_put_be32(dip + XFSJ_DINODE_CORE_SIZE, in->u.ino.rdev);
	}
	if ((in->u.ino.fields & XFSJ_ILOG_AFORK) && forkoff) {
		const struct xfsj_region *r;
		uint8_t *afork = dip + XFSJ_DINODE_CORE_SIZE + forkoff * 8U;

		if (in->u.ino.afork_reg < 0)
			return xrec_corrupt(f, "inode log item", "regions", 0,
					    it->nreg);
		r = &it->reg[in->u.ino.afork_reg];
		if (in->u.ino.fields & XFSJ_ILOG_ABROOT) {
			err = broot_to_disk(r, afork, asize, f);
			if (err)
				return err;
		} else {
			uint32_t n = r->len < asize ? r->len : asize;

			memcpy(afork, r->p, n);
		}
	}
	xfsj_dinode_finish(dip, isize);
	rc->st.inodes_replayed++;
	err = xfsj_overlay_write(rc->ov, rc->buf, buflen, off);
	if (err)
		return err;
	/* dip stays valid: nothing below takes the scratch buffer. */
	return owner_changes(rc, in, dip, isize, lsn, f);
}

