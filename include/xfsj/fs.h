/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The modification layer: a filesystem handle with a buffer cache over the
 * replay's page overlay.  Everything that changes metadata after the log
 * has been replayed (finishing intents, freeing unlinked inodes, later
 * repair) reads buffers through this handle, changes them in memory and
 * marks them dirty; xfsj_fs_flush() then stamps each dirty v5 buffer with
 * the handle's LSN, recomputes its CRC and writes it into the overlay.
 *
 * There is no rollback: the overlay itself is the transaction.  Nothing
 * reaches the device until the caller commits the overlay (redo.h), so a
 * failure anywhere simply throws the overlay away.
 *
 * Buffers stay cached until the handle is closed, so two lookups of the
 * same block return the same memory.  A buffer must be looked up with the
 * same length every time (the AG headers are sector-sized, everything
 * else is a whole number of filesystem blocks).
 */
#ifndef XFSJ_FS_H
#define XFSJ_FS_H

#include <stdbool.h>
#include <stdint.h>

#include "xfsj/errors.h"
#include "ondisk/format.h"
#include "xfsj/ondisk.h"
#include "core/overlay.h"

struct xfsj_fs;

struct xfsj_buf {
	uint64_t daddr;		/* 512-byte units from the device start */
	uint32_t len;		/* bytes */
	uint8_t *data;
	bool dirty;
};

/*
 * @lsn is stamped into every v5 buffer written by xfsj_fs_flush; it must
 * not be beyond the head of the log the filesystem will mount with.
 */
int xfsj_fs_open(struct xfsj_overlay *ov, const struct xfsj_sb *sb,
		 uint64_t lsn, struct xfsj_fs **out);
void xfsj_fs_close(struct xfsj_fs *fs);
const struct xfsj_sb *xfsj_fs_sb(const struct xfsj_fs *fs);
/* The LSN this handle stamps (inode writers stamp di_lsn themselves). */
uint64_t xfsj_fs_lsn(const struct xfsj_fs *fs);
struct xfsj_overlay *xfsj_fs_overlay(struct xfsj_fs *fs);
/* The verifier context for AG @agno (agblocks of the last AG is short). */
void xfsj_fs_vctx(const struct xfsj_fs *fs, uint32_t agno,
		  struct xfsj_vctx *c);
uint32_t xfsj_fs_ag_blocks(const struct xfsj_fs *fs, uint32_t agno);
bool xfsj_fs_has(const struct xfsj_fs *fs, uint32_t ro_compat_bit);
bool xfsj_fs_has_incompat(const struct xfsj_fs *fs, uint32_t incompat_bit);

/* Read (through the overlay) or return the cached buffer. */
int xfsj_buf_read(struct xfsj_fs *fs, uint64_t daddr, uint32_t len,
		  struct xfsj_buf **bp);
/* A buffer whose old contents do not matter: zero-filled, not read. */
int xfsj_buf_get_zero(struct xfsj_fs *fs, uint64_t daddr, uint32_t len,
		      struct xfsj_buf **bp);
static inline void xfsj_buf_dirty(struct xfsj_buf *bp)
{
	bp->dirty = true;
}

/*
 * Forget a cached buffer (a freed btree block): it is not written at
 * flush, and a later read sees the overlay again.
 */
void xfsj_buf_forget(struct xfsj_fs *fs, struct xfsj_buf *bp);

/* Stamp, checksum and write every dirty buffer into the overlay. */
int xfsj_fs_flush(struct xfsj_fs *fs, struct xfsj_fault *f);

/* The deferred-work queue of this handle (defer.c owns its contents). */
struct xfsj_defer_q;
struct xfsj_defer_q **xfsj_fs_defer_q(struct xfsj_fs *fs);
void xfsj_defer_q_free(struct xfsj_defer_q *q);

/* ---- addresses ---- */
static inline uint64_t xfsj_agb_to_daddr(const struct xfsj_sb *sb,
					 uint32_t agno, uint32_t agbno)
{
	return ((uint64_t)agno * sb->agblocks + agbno) << (sb->blocklog - 9);
}

static inline uint32_t xfsj_fsb_agno(const struct xfsj_sb *sb, uint64_t fsb)
{
	return (uint32_t)(fsb >> sb->agblklog);
}

static inline uint32_t xfsj_fsb_agbno(const struct xfsj_sb *sb, uint64_t fsb)
{
	return (uint32_t)(fsb & ((1ULL << sb->agblklog) - 1));
}

static inline uint64_t xfsj_agb_to_fsb(const struct xfsj_sb *sb,
				       uint32_t agno, uint32_t agbno)
{
	return (uint64_t)agno << sb->agblklog | agbno;
}

static inline uint32_t xfsj_ino_agno(const struct xfsj_sb *sb, uint64_t ino)
{
	return (uint32_t)(ino >> (sb->agblklog + sb->inopblog));
}

static inline uint32_t xfsj_ino_agino(const struct xfsj_sb *sb, uint64_t ino)
{
	return (uint32_t)(ino & ((1ULL << (sb->agblklog + sb->inopblog)) - 1));
}

static inline uint64_t xfsj_agino_to_ino(const struct xfsj_sb *sb,
					 uint32_t agno, uint32_t agino)
{
	return (uint64_t)agno << (sb->agblklog + sb->inopblog) | agino;
}

/* ---- AG headers (sector-sized buffers, verified on first read) ---- */
int xfsj_agf_read(struct xfsj_fs *fs, uint32_t agno, struct xfsj_buf **bp,
		  struct xfsj_fault *f);
int xfsj_agi_read(struct xfsj_fs *fs, uint32_t agno, struct xfsj_buf **bp,
		  struct xfsj_fault *f);
int xfsj_agfl_read(struct xfsj_fs *fs, uint32_t agno, struct xfsj_buf **bp,
		   struct xfsj_fault *f);

#endif
