/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Directories written whole (dir_write.c: a directory rewritten from a
 * list of entries, used by the repair's salvage and by populate) and the
 * directory block of several filesystem blocks held as one buffer
 * (dir_buf.c).
 */
#ifndef XFSJ_FS_DIR_WRITE_H
#define XFSJ_FS_DIR_WRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "xfsj/fs.h"
#include "xfsj/ondisk.h"

/*
 * dir_buf.c: directory block of @n filesystem blocks of @fsbsize bytes at
 * @daddr as one buffer (@zero: zero-filled, not read); with n > 1 the
 * pieces a reader cached are written and dropped first, and
 * xfsj_dirbuf_put writes and drops the whole block after the change.
 */
int xfsj_dirbuf_get(struct xfsj_fs *fs, uint64_t daddr, uint32_t fsbsize,
		    uint32_t n, bool zero, struct xfsj_buf **bp,
		    struct xfsj_fault *f);
int xfsj_dirbuf_put(struct xfsj_fs *fs, struct xfsj_buf *bp, uint32_t n,
		    struct xfsj_fault *f);

/*
 * dir_write.c: rewrite directory @dir from scratch holding @ents ("." and
 * ".." left out: ".." is @parent), short form, block, leaf or node
 * format (a da btree of as many levels as it needs, as many free index
 * blocks); the old blocks freed, or only unmapped with @keep_blocks.
 * -XFSJ_E_NOSPC when the data blocks reach the leaf space.
 */
int xfsj_dir_write(struct xfsj_fs *fs, uint64_t dir, uint64_t parent,
		   const struct xfsj_dirent *ents, size_t n, bool keep_blocks,
		   struct xfsj_fault *f);
/* Do @n entries fit one directory block (with ".", ".." and leaves)? */
bool xfsj_dir_fits_block(const struct xfsj_sb *sb,
			 const struct xfsj_dirent *ents, size_t n);
/* ... or any format xfsj_dir_write writes? */
bool xfsj_dir_fits(const struct xfsj_sb *sb, const struct xfsj_dirent *ents,
		   size_t n);

#endif
