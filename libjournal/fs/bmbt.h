/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The inode fork's block-mapping btree (bmbt): long (64-bit fsbno)
 * pointers, and a root that is not a block but sits in the inode fork
 * (level, numrecs, then keys and pointers placed after room for as many
 * keys as the fork could hold).  Its description is the bmbt row of
 * xfsj_btree_shape (sizes, magic, long header) and its ops row in the
 * generic engine (record codec, keys, key order) lives in bmbt.c.
 *
 * Both walks below go through the one descent (bmbt_walk.h), as do the
 * check's fork walk and the repair's salvage:
 *
 * - xfsj_bmbt_fork_read reads a whole fork through the buffer cache,
 *   checking every block (magic, CRC, UUID, blkno, owner, level, record
 *   count, sibling chain, parent keys, no block used twice) and every
 *   record; bmap.c and itruncate.c work on what it returns.
 * - xfsj_bmbt_walk_disk goes through the blocks under a root as the
 *   device holds them, for log recovery (which has an overlay and no
 *   filesystem handle): a pointer that leads outside the filesystem, or to
 *   a block that is not a bmbt block of the expected level, is reported
 *   and its subtree left alone.
 */
#ifndef XFSJ_BMBT_H
#define XFSJ_BMBT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/overlay.h"
#include "fs/bmbt_walk.h"
#include "fs/btree.h"
#include "fs/iget.h"

static inline uint64_t xfsj_fsb_daddr(const struct xfsj_sb *sb,
					 uint64_t fsb)
{
	return xfsj_agb_to_daddr(sb, xfsj_fsb_agno(sb, fsb),
				 xfsj_fsb_agbno(sb, fsb));
}

/* [fsb, fsb + len) is a non-empty data-device extent inside one AG. */
bool xfsj_fsbext_ok(const struct xfsj_fs *fs, uint64_t fsb, uint64_t len);

/* One bmbt block of a fork read whole. */
struct xfsj_bmbt_blk {
	uint64_t fsbno;
	struct xfsj_buf *bp;
	uint32_t cnt;		/* records (leaf) or children (node) */
	bool freed;		/* for the caller's bookkeeping */
};

/*
 * A fork read whole: its records in offset order and, for a btree fork,
 * the blocks of each level left to right (lv[l], l < height); the inode
 * root is level @height and holds @rootcnt pointers.
 */
struct xfsj_bmbt_fork {
	struct xfsj_bmbt_irec *ext;
	size_t n, cap;
	unsigned int height;	/* 0: extents format */
	unsigned int rootcnt;
	struct xfsj_bmbt_blk *lv[XFSJ_BTREE_MAXLEVELS];
	size_t nlv[XFSJ_BTREE_MAXLEVELS], caplv[XFSJ_BTREE_MAXLEVELS];
	unsigned int dmaxr;	/* pointers the inode root can hold */
	unsigned int maxr;	/* records, or keys, per bmbt block */
};

/*
 * Read fork @whichfork of @ip (extents or btree format) into @bf, which
 * the caller frees with xfsj_bmbt_fork_free (also after an error).  The
 * fork must hold exactly the extent count the inode claims.
 */
int xfsj_bmbt_fork_read(struct xfsj_fs *fs, const struct xfsj_iref *ip,
			int whichfork, struct xfsj_bmbt_fork *bf,
			struct xfsj_fault *f);
void xfsj_bmbt_fork_free(struct xfsj_bmbt_fork *bf);
/* Insert record @r at index @k, block @b at index @at of level @l. */
int xfsj_bmbt_fork_insert(struct xfsj_bmbt_fork *bf, size_t k,
			  const struct xfsj_bmbt_irec *r);
int xfsj_bmbt_fork_insert_blk(struct xfsj_bmbt_fork *bf, unsigned int l,
			      size_t at, const struct xfsj_bmbt_blk *b);

/*
 * A descent's read and put (bmbt_walk.h) through @fs's buffer cache, a
 * reference held while the walk is in the block (b->priv).
 */
int xfsj_bmbt_wblk_read(struct xfsj_fs *fs, struct xfsj_bmbt_wblk *b);
void xfsj_bmbt_wblk_put(struct xfsj_fs *fs, struct xfsj_bmbt_wblk *b);

/* A block xfsj_bmbt_walk_disk met. */
struct xfsj_bmbt_disk_blk {
	uint64_t fsbno;
	uint64_t daddr;		/* 512-byte units; 0 when outside the fs */
	unsigned int level;	/* the level its parent says it is at */
	/*
	 * The block as read (the walker's scratch copy: write it back
	 * yourself after changing it), or NULL when the pointer leads
	 * outside the filesystem or to something that is not a bmbt block
	 * of this level with a possible record count.
	 */
	uint8_t *data;
};

/*
 * 0 to go on below the block, XFSJ_BMBT_SKIP to leave its subtree
 * (always the case for a block without data), or a negative error that
 * stops the walk.
 */
typedef int (*xfsj_bmbt_disk_fn)(void *arg, const struct xfsj_bmbt_disk_blk *b,
				 struct xfsj_fault *f);

/*
 * Walk the blocks under the bmbt root @root (@rootsize bytes: the fork's
 * size in the inode) as @ov holds them, depth first, each node's
 * children in pointer order; a block reached twice is passed over.  The root must hold a level of 1 to 12 and
 * no more pointers than fit ("bmdr root", "bmdr root size" faults under
 * @rootname); a walk that meets more blocks than the filesystem has is
 * refused ("bmap btree", "size (a loop?)").
 */
int xfsj_bmbt_walk_disk(struct xfsj_overlay *ov, const struct xfsj_sb *sb,
			const uint8_t *root, uint32_t rootsize,
			const char *rootname, xfsj_bmbt_disk_fn fn, void *arg,
			struct xfsj_fault *f);

#endif
