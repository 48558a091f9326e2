/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A directory block of several filesystem blocks (dirblklog > 0: 4 KiB
 * directory blocks on 1 KiB blocks) as one buffer.
 *
 * The check reads such a block one filesystem block at a time, and the
 * buffer cache knows a buffer by its address and one length: the whole
 * block cannot be looked up while its first piece is cached, and a piece
 * cannot carry the block's CRC (the flush stamps a CRC over the buffer it
 * writes).  So a repair that edits or writes one first writes every dirty
 * buffer into the overlay and drops the pieces from the cache, then works
 * on the whole block; when it is done, the whole block is written and
 * dropped in turn, so the next round's check reads the pieces again.
 * Blocks of one filesystem block go straight to the cache.
 */
#include "fs/dir_write.h"

/* Drop the cached pieces of the @n filesystem blocks from @daddr. */
static int drop_pieces(struct xfsj_fs *fs, uint64_t daddr, uint32_t fsbsize,
		       uint32_t n, struct xfsj_fault *f)
{
	struct xfsj_buf *bp;
	int err = xfsj_fs_flush(fs, f);

	for (uint32_t i = 0; !err && i < n; i++) {
		err = xfsj_buf_read(fs, daddr + i * (fsbsize >> 9), fsbsize,
				    &bp);
		if (!err)
			xfsj_buf_forget(fs, bp);
		else if (err == -XFSJ_E_INVAL)
			err = 0;	/* cached whole: kept */
	}
	return err;
}

int xfsj_dirbuf_get(struct xfsj_fs *fs, uint64_t daddr, uint32_t fsbsize,
		   uint32_t n, bool zero, struct xfsj_buf **bp,
		   struct xfsj_fault *f)
{
	uint32_t len = fsbsize * n;
	int err;

	*bp = NULL;
	if (n > 1) {
		err = drop_pieces(fs, daddr, fsbsize, n, f);
		if (err)
			return err;
	}
	return zero ? xfsj_buf_get_zero(fs, daddr, len, bp) :
		      xfsj_buf_read(fs, daddr, len, bp);
}

int xfsj_dirbuf_put(struct xfsj_fs *fs, struct xfsj_buf *bp, uint32_t n,
		   struct xfsj_fault *f)
{
	int err;

	if (n <= 1 || !bp)
		return 0;
	err = xfsj_fs_flush(fs, f);
	if (!err)
		xfsj_buf_forget(fs, bp);
	return err;
}
