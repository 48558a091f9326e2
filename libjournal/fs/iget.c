/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Inodes through the modification layer (iget.h).
 *
 * An inode is read as part of the filesystem block that holds it, so
 * that every user of the handle shares one buffer per block and two
 * inodes of a block never overwrite each other's changes.
 */
#include <string.h>
#include <sys/stat.h>

#include "core/crc32c.h"
#include "fs/iget.h"
#include "core/layout.h"

/*
 * A directory or symlink whose blocks a truncation removed has size 0,
 * which the kernel's verifier (and ours) refuses; such an inode is being
 * freed, so it is checked as if it had one block, its CRC first.
 */
static int verify(struct xfsj_fs *fs, const uint8_t *dip, uint32_t agno,
		  uint64_t ino, uint64_t byte_off, bool lenient,
		  struct xfsj_fault *f)
{
	const struct xfsj_sb *sb = xfsj_fs_sb(fs);
	uint16_t mode = xfsj_get_be16(dip + 2) & S_IFMT;
	uint8_t tmp[2048];
	struct xfsj_vctx c;

	xfsj_fs_vctx(fs, agno, &c);
	if (!lenient || (mode != S_IFDIR && mode != S_IFLNK) ||
	    xfsj_get_be64(dip + 56) != 0 || sb->inodesize > sizeof(tmp))
		return xfsj_dinode_verify(dip, &c, ino, byte_off, f);
	if (!xfsj_cksum_ok(dip, sb->inodesize, XFSJ_DINODE_CRC_OFF))
		return xfsj_fault_set(f, XFSJ_E_BADCRC, "inode", "crc",
				      byte_off + XFSJ_DINODE_CRC_OFF, ino);
	memcpy(tmp, dip, sb->inodesize);
	xfsj_put_be64(tmp + 56, sb->blocksize);
	xfsj_dinode_finish(tmp, sb->inodesize);
	return xfsj_dinode_verify(tmp, &c, ino, byte_off, f);
}

int xfsj_iget(struct xfsj_fs *fs, uint64_t ino, bool lenient,
	      struct xfsj_iref *ip, struct xfsj_fault *f)
{
	const struct xfsj_sb *sb = xfsj_fs_sb(fs);
	uint32_t agno = xfsj_ino_agno(sb, ino);
	uint32_t agino = xfsj_ino_agino(sb, ino);
	uint32_t agbno = agino >> sb->inopblog;
	uint64_t daddr;
	int err;

	memset(ip, 0, sizeof(*ip));
	if (agno >= sb->agcount || agbno >= xfsj_fs_ag_blocks(fs, agno) ||
	    xfsj_agino_to_ino(sb, agno, agino) != ino)
		return xfsj_fault_set(f, XFSJ_E_RANGE, "inode", "ino", 0, ino);
	if (sb->inodesize > sb->blocksize)
		return xfsj_fault_set(f, XFSJ_E_UNSUPP, "superblock",
				      "inodesize", 104, sb->inodesize);
	daddr = xfsj_agb_to_daddr(sb, agno, agbno);
	err = xfsj_buf_read(fs, daddr, sb->blocksize, &ip->bp);
	if (err)
		return xfsj_fault_set(f, err, "inode", "read", daddr << 9, ino);
	ip->ino = ino;
	ip->dip = ip->bp->data +
		  (size_t)(agino & ((1U << sb->inopblog) - 1)) * sb->inodesize;
	ip->byte_off = (daddr << 9) + (uint64_t)(ip->dip - ip->bp->data);
	err = verify(fs, ip->dip, agno, ino, ip->byte_off, lenient, f);
	if (err)
		return err;
	xfsj_dinode_decode(ip->dip, &ip->di);
	return 0;
}

int xfsj_iget_used(struct xfsj_fs *fs, uint64_t ino, struct xfsj_iref *ip,
		   struct xfsj_fault *f)
{
	int err = xfsj_iget(fs, ino, true, ip, f);

	if (!err && ip->di.mode == 0)
		err = xfsj_fault_set(f, XFSJ_E_CORRUPT, "inode", "mode",
				     ip->byte_off + 2, 0);
	return err;
}

void xfsj_iput(struct xfsj_fs *fs, struct xfsj_iref *ip, bool stamp)
{
	if (stamp)
		ip->di.lsn = xfsj_fs_lsn(fs);
	xfsj_dinode_encode(&ip->di, ip->dip);
	xfsj_dinode_finish(ip->dip, xfsj_fs_sb(fs)->inodesize);
	xfsj_buf_dirty(ip->bp);
}

uint8_t *xfsj_ifork(const struct xfsj_fs *fs, const struct xfsj_iref *ip,
		    int whichfork, uint32_t *size)
{
	uint32_t lit = xfsj_fs_sb(fs)->inodesize - XFSJ_DINODE_CORE_SIZE;
	uint32_t boundary = ip->di.forkoff ? ip->di.forkoff * 8U : lit;

	/* A hostile fork offset past the inode leaves no room at all. */
	if (boundary > lit)
		boundary = lit;
	if (whichfork == XFSJ_ATTR_FORK) {
		*size = ip->di.forkoff ? lit - boundary : 0;
		return ip->dip + XFSJ_DINODE_CORE_SIZE + boundary;
	}
	*size = boundary;
	return ip->dip + XFSJ_DINODE_CORE_SIZE;
}
