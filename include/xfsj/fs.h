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
 *
 * That holds for the lookups that take no reference (xfsj_buf_read,
 * xfsj_buf_get_zero and the AG header reads): their buffers are kept.  A
 * scan that reads more than fits in memory uses the counted lookups
 * (xfsj_buf_read_ref, xfsj_buf_get_zero_ref, xfsj_buf_rele): a buffer that
 * nobody holds and that is clean may then be evicted when the cache is
 * over its bound (see "the cache's memory bound" below).
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
/*
 * The time this handle stamps where the kernel stamps "now" (a change
 * time set while finishing leftover log work).  Unset, it is the clock's
 * time when first asked for, the same for the rest of the handle's life.
 */
void xfsj_fs_set_now(struct xfsj_fs *fs, int64_t sec, uint32_t nsec);
void xfsj_fs_now(struct xfsj_fs *fs, int64_t *sec, uint32_t *nsec);
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

/*
 * ---- the cache's memory bound ----
 * The cache holds at most its bound in buffer bytes (the data; about a
 * hundred bytes of bookkeeping per buffer and the hash table are not
 * counted): XFSJ_FS_CACHE_DEFAULT, 64 MiB, unless the caller sets another,
 * best right after xfsj_fs_open.  It is the same on every machine, so that
 * a run evicts the same buffers everywhere.
 *
 * Only idle buffers are evicted, least recently released first: neither
 * held (a reference not yet dropped), nor kept (returned by a lookup that
 * takes no reference), nor dirty (a dirty buffer stays until
 * xfsj_fs_flush has written it).  When nothing idle is left the cache goes
 * over its bound rather than fail a lookup, and comes back under it as
 * buffers are released or flushed; the statistics count the insertions
 * that left it over the bound.  An evicted buffer is read again from the
 * overlay, which holds every flushed change.
 */
#define XFSJ_FS_CACHE_DEFAULT	(64ULL << 20)

/* A smaller bound evicts idle buffers at once; UINT64_MAX: no bound. */
void xfsj_fs_set_cache_bound(struct xfsj_fs *fs, uint64_t bytes);
/*
 * Go on with the geometry of @sb (a primary superblock just restored):
 * dirty buffers are written to the overlay and every buffer read with
 * the old geometry is dropped; none may be held.  Returns 0 or a
 * negative XFSJ_E_* (@f says which write failed).
 */
int xfsj_fs_set_sb(struct xfsj_fs *fs, const struct xfsj_sb *sb,
		   struct xfsj_fault *f);

/*
 * As xfsj_buf_read and xfsj_buf_get_zero, but the caller holds one
 * reference, dropped with xfsj_buf_rele; the buffer's memory is valid only
 * while it is held.  Mark it dirty before releasing it.  A buffer also
 * looked up without a reference stays kept.
 */
int xfsj_buf_read_ref(struct xfsj_fs *fs, uint64_t daddr, uint32_t len,
		      struct xfsj_buf **bp);
int xfsj_buf_get_zero_ref(struct xfsj_fs *fs, uint64_t daddr, uint32_t len,
			  struct xfsj_buf **bp);
/*
 * Copy the @len bytes at @daddr into @dst: from the cached buffer there
 * if there is one (-XFSJ_E_INVAL if it has another length), else from the
 * device without caching them (blocks read once, such as a directory's,
 * do not push out what will be read again).
 */
int xfsj_buf_read_copy(struct xfsj_fs *fs, uint64_t daddr, uint32_t len,
		       void *dst);
/* One more reference to a buffer the caller holds or keeps. */
void xfsj_buf_hold(struct xfsj_fs *fs, struct xfsj_buf *bp);
/* Drop one reference (NULL: nothing). */
void xfsj_buf_rele(struct xfsj_fs *fs, struct xfsj_buf *bp);
/*
 * The caller uses no pointer from the lookups without a reference any
 * more (between the phases of a scan through code that uses them): those
 * buffers become evictable once clean and not held.
 */
void xfsj_fs_release_kept(struct xfsj_fs *fs);

/*
 * A hint: these buffers will be read soon.  Those not cached are read in
 * one pass in ascending address order, adjacent ones with one read, and
 * left idle in the cache, as many as fit in the bound beside the buffers
 * that cannot be evicted (the first entries of @v first).  A later
 * xfsj_buf_read* of the same address and length finds them.  Entries
 * already cached or repeated are skipped.  Returns 0, or the first error
 * of a read or allocation, after which nothing more is read (what was read
 * stays cached); a caller may ignore it, the read itself reports it again.
 */
struct xfsj_buf_ra {
	uint64_t daddr;
	uint32_t len;
};
int xfsj_buf_readahead(struct xfsj_fs *fs, const struct xfsj_buf_ra *v,
		       size_t n);
/*
 * A lighter hint: the device starts reading the buffers of @v not cached
 * (sorted by address, near ones as one request) in the background, into
 * the kernel's page cache; nothing is read or held here, and the reads
 * that follow wait on no disk.  For addresses known well ahead of use
 * (the fork blocks of the inodes coming next).  0 or -XFSJ_E_NOMEM (a
 * caller may ignore it).
 */
int xfsj_buf_prefetch(struct xfsj_fs *fs, const struct xfsj_buf_ra *v,
		      size_t n);

struct xfsj_cache_stats {
	uint64_t hits;		/* lookups found in the cache */
	uint64_t misses;	/* lookups read from the overlay or zeroed */
	uint64_t readahead;	/* buffers read by xfsj_buf_readahead */
	uint64_t evictions;	/* idle buffers dropped to stay in the bound */
	uint64_t over_bound;	/* insertions that left the cache over it */
	uint64_t bytes;		/* buffer bytes now */
	uint64_t peak_bytes;	/* the most buffer bytes at any time */
	uint64_t buffers;	/* buffers now (forgotten but held ones too) */
	uint64_t bound;
};
void xfsj_fs_cache_stats(const struct xfsj_fs *fs,
			 struct xfsj_cache_stats *st);

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
