/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Symlink targets: inline in the data fork (local format: the fork holds
 * exactly di_size bytes, none of them NUL) or in blocks (each mapping's
 * blocks, one buffer for the kernel, start with a v5 header: magic, the
 * target offset and byte count it holds, CRC, UUID, owner, its own disk
 * address; the pieces in order add up to di_size bytes, none of them
 * NUL).
 *
 * Device nodes, fifos and sockets need nothing here: their fork holds a
 * device number, and any value of it is legal on disk (the kernel and
 * xfs_repair take it as it is); their format and size are core rules.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check/inode_priv.h"
#include "core/crc32c.h"
#include "fs/bmbt.h"

static void check_local(struct xck *ck, const struct xck_icheck *ic)
{
	uint64_t size = ic->di.size;

	if (size > ic->forksize[XFSJ_DATA_FORK]) {
		xck_ino_report(ck, INO_SL_LOCAL, ic->ino, "size",
			       ic->forksize[XFSJ_DATA_FORK], size);
		return;
	}
	if (size && memchr(ic->fork[XFSJ_DATA_FORK], 0, (size_t)size))
		xck_ino_report(ck, INO_SL_NUL, ic->ino, "target", 0,
			       (uint64_t)((const uint8_t *)memchr(
				ic->fork[XFSJ_DATA_FORK], 0, (size_t)size) -
				ic->fork[XFSJ_DATA_FORK]));
}

/*
 * One piece of a remote target: a mapping's blocks (@len of them from
 * file block @fileoff, the kernel's one buffer per mapping) under one
 * header; @done bytes precede it, @want of the rest fit in it.
 */
static void check_piece(struct xck *ck, const struct xck_icheck *ic,
			uint64_t fileoff, uint32_t len, const uint8_t *blk,
			uint32_t done, uint32_t want)
{
	const struct xfsj_sb *sb = ck->sb;
	const struct xfsj_bmbt_irec *m = xck_fork_lookup(ic, 0, fileoff);
	const uint8_t *uuid = sb->uuid;
	size_t bytes = (size_t)len * sb->blocksize;
	const uint8_t *nul;
	struct xfsj_rmt_hdr h;
	uint64_t daddr;

	if (sb->features_incompat & XFSJ_INCOMPAT_META_UUID)
		uuid = sb->meta_uuid;
	daddr = xfsj_fsb_daddr(sb, m->startblock + (fileoff - m->startoff));
	xfsj_rmt_hdr_decode(blk, &h);
	if (h.magic != XFSJ_SYMLINK_MAGIC) {
		xck_ino_report(ck, INO_SL_HDR, ic->ino, "magic",
			       XFSJ_SYMLINK_MAGIC, h.magic);
		return;
	}
	if (!xfsj_cksum_ok(blk, bytes, XFSJ_RMT_OFF(crc)))
		xck_ino_report(ck, INO_SL_CRC, ic->ino, "crc",
			       xfsj_cksum(blk, bytes, XFSJ_RMT_OFF(crc)),
			       h.crc);
	if (h.offset != done)
		xck_ino_report(ck, INO_SL_HDR, ic->ino, "offset", done,
			       h.offset);
	if (h.bytes != want)
		xck_ino_report(ck, INO_SL_HDR, ic->ino, "bytes", want,
			       h.bytes);
	if (memcmp(h.uuid, uuid, 16))
		xck_ino_report(ck, INO_SL_HDR, ic->ino, "uuid", 0, 0);
	if (h.owner != ic->ino)
		xck_ino_report(ck, INO_SL_HDR, ic->ino, "owner", ic->ino,
			       h.owner);
	if (h.blkno != daddr)
		xck_ino_report(ck, INO_SL_HDR, ic->ino, "blkno", daddr,
			       h.blkno);
	nul = want ? memchr(blk + XFSJ_RMT_HDR_SIZE, 0, want) : NULL;
	if (nul)
		xck_ino_report(ck, INO_SL_NUL, ic->ino, "target", 0,
			       done + (uint64_t)(nul - blk -
						 XFSJ_RMT_HDR_SIZE));
}

static int check_remote(struct xck *ck, struct xck_icheck *ic)
{
	uint32_t bsize = ck->sb->blocksize;
	uint32_t size = (uint32_t)ic->di.size;
	/* The blocks the kernel allocates: one header per block's worth. */
	uint32_t nblocks = (size + (bsize - XFSJ_RMT_HDR_SIZE) - 1) /
			   (bsize - XFSJ_RMT_HDR_SIZE);
	uint32_t b, done = 0;
	size_t i;
	int err;

	/* Every block of the target is mapped, nothing past it. */
	for (i = 0; i < ic->nmap[0]; i++) {
		const struct xfsj_bmbt_irec *m = &ic->map[0][i];

		if (m->startoff + m->blockcount > nblocks) {
			xck_ino_report(ck, INO_SL_LEN, ic->ino, "mapping",
				       nblocks, m->startoff + m->blockcount);
			break;
		}
	}
	for (b = 0; b < nblocks && done < size; ) {
		const struct xfsj_bmbt_irec *m = xck_fork_lookup(ic, 0, b);
		uint32_t len, room, want;
		uint8_t *blk;

		if (!m) {
			xck_ino_report(ck, INO_SL_BLOCK, ic->ino, "block", b,
				       b);
			return 0;
		}
		len = (uint32_t)(m->startoff + m->blockcount - b);
		if (len > nblocks - b)
			len = nblocks - b;
		err = xck_fork_read(ck, ic, XFSJ_DATA_FORK, b, len, &blk);
		if (err < 0)
			return err;
		room = len * bsize - XFSJ_RMT_HDR_SIZE;
		want = size - done < room ? size - done : room;
		if (err == 0) {
			check_piece(ck, ic, b, len, blk, done, want);
			free(blk);
		}
		done += want;
		b += len;
	}
	return 0;
}

int xck_symlink(struct xck *ck, struct xck_icheck *ic)
{
	if (ic->di.size == 0 || ic->di.size > XFSJ_SYMLINK_MAXLEN)
		return 0;	/* the core's size rule reported it */
	if (ic->di.format == XFSJ_DINODE_FMT_LOCAL) {
		check_local(ck, ic);
		return 0;
	}
	return check_remote(ck, ic);
}
