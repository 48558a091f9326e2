/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Remote symlink blocks (v5): each filesystem block of a symlink target
 * kept outside the inode starts with this 56-byte header, then holds
 * @bytes bytes of the target, which began @offset bytes into it.
 */
#ifndef XFSJ_ONDISK_SYMLINK_H
#define XFSJ_ONDISK_SYMLINK_H

#include "ondisk/format.h"

#define XFSJ_DSYMLINK_FIELDS(F, P)					\
	F(U32, magic, 0)	F(U32, offset, 4)			\
	F(U32, bytes, 8)	F(CRC, crc, 12)				\
	F(UUID, uuid, 16)	F(U64, owner, 32)			\
	F(U64, blkno, 40)	F(U64, lsn, 48)

XFSJ_DECLARE_STRUCTS(xfsj_dsymlink, XFSJ_DSYMLINK_FIELDS);
#define XFSJ_DSYMLINK_CRC_OFF	12
#define XFSJ_DSYMLINK_HDR_SIZE	56
extern const struct xfsj_layout xfsj_dsymlink_layout;

/* Target bytes one block of @blocksize bytes holds. */
static inline uint32_t xfsj_symlink_buf_space(uint32_t blocksize)
{
	return blocksize - XFSJ_DSYMLINK_HDR_SIZE;
}

/* Decode the header at the start of @buf. */
void xfsj_dsymlink_decode(const void *buf, struct xfsj_dsymlink *h);

#endif
