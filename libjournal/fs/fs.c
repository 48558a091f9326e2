/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The filesystem handle (see fs.h); its buffers live in the bounded cache
 * of buf_cache.c.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/crc32c.h"
#include "xfsj/fs.h"
#include "fs/buf_cache.h"
#include "ondisk/meta.h"

struct xfsj_fs {
	struct xfsj_overlay *ov;
	struct xfsj_sb sb;
	uint64_t lsn;
	struct xfsj_bcache *cache;
	uint64_t cache_bound;		/* 0: the default */
	struct xfsj_defer_q *defer;
	bool have_now;
	int64_t now_sec;
	uint32_t now_nsec;
};

int xfsj_fs_open(struct xfsj_overlay *ov, const struct xfsj_sb *sb,
		 uint64_t lsn, struct xfsj_fs **out)
{
	struct xfsj_fs *fs = calloc(1, sizeof(*fs));
	int err;

	if (!fs)
		return -XFSJ_E_NOMEM;
	err = xfsj_bcache_create(ov, XFSJ_FS_CACHE_DEFAULT, &fs->cache);
	if (err) {
		free(fs);
		return err;
	}
	fs->ov = ov;
	fs->sb = *sb;
	fs->lsn = lsn;
	*out = fs;
	return 0;
}

void xfsj_fs_close(struct xfsj_fs *fs)
{
	if (!fs)
		return;
	xfsj_bcache_free(fs->cache);
	xfsj_defer_q_free(fs->defer);
	free(fs);
}

struct xfsj_defer_q **xfsj_fs_defer_q(struct xfsj_fs *fs)
{
	return &fs->defer;
}

const struct xfsj_sb *xfsj_fs_sb(const struct xfsj_fs *fs)
{
	return &fs->sb;
}

uint64_t xfsj_fs_lsn(const struct xfsj_fs *fs)
{
	return fs->lsn;
}

struct xfsj_overlay *xfsj_fs_overlay(struct xfsj_fs *fs)
{
	return fs->ov;
}

void xfsj_fs_set_now(struct xfsj_fs *fs, int64_t sec, uint32_t nsec)
{
	fs->now_sec = sec;
	fs->now_nsec = nsec;
	fs->have_now = true;
}

void xfsj_fs_now(struct xfsj_fs *fs, int64_t *sec, uint32_t *nsec)
{
	struct timespec ts;

	if (!fs->have_now) {
		clock_gettime(CLOCK_REALTIME, &ts);
		xfsj_fs_set_now(fs, ts.tv_sec, (uint32_t)ts.tv_nsec);
	}
	*sec = fs->now_sec;
	*nsec = fs->now_nsec;
}

uint32_t xfsj_fs_ag_blocks(const struct xfsj_fs *fs, uint32_t agno)
{
	const struct xfsj_sb *sb = &fs->sb;

	if (agno + 1 < sb->agcount)
		return sb->agblocks;
	return (uint32_t)(sb->dblocks - (uint64_t)agno * sb->agblocks);
}

void xfsj_fs_vctx(const struct xfsj_fs *fs, uint32_t agno,
		  struct xfsj_vctx *c)
{
	const struct xfsj_sb *sb = &fs->sb;

	memset(c, 0, sizeof(*c));
	memcpy(c->uuid, xfsj_meta_fs_uuid(sb), 16);
	c->sectsize = sb->sectsize;
	c->blocksize = sb->blocksize;
	c->inodesize = sb->inodesize;
	c->agblocks = xfsj_fs_ag_blocks(fs, agno);
	c->agno = agno;
	c->features_ro_compat = sb->features_ro_compat;
	c->features_incompat = sb->features_incompat;
}

bool xfsj_fs_has(const struct xfsj_fs *fs, uint32_t ro_compat_bit)
{
	return (fs->sb.features_ro_compat & ro_compat_bit) != 0;
}

bool xfsj_fs_has_incompat(const struct xfsj_fs *fs, uint32_t incompat_bit)
{
	return (fs->sb.features_incompat & incompat_bit) != 0;
}

/* ---- the cache ---- */

int xfsj_buf_read(struct xfsj_fs *fs, uint64_t daddr, uint32_t len,
		  struct xfsj_buf **bp)
{
	return xfsj_bcache_get(fs->cache, daddr, len, false, true, bp, NULL);
}

int xfsj_buf_get_zero(struct xfsj_fs *fs, uint64_t daddr, uint32_t len,
		      struct xfsj_buf **bp)
{
	return xfsj_bcache_get(fs->cache, daddr, len, true, true, bp, NULL);
}

int xfsj_buf_read_ref(struct xfsj_fs *fs, uint64_t daddr, uint32_t len,
		      struct xfsj_buf **bp)
{
	return xfsj_bcache_get(fs->cache, daddr, len, false, false, bp, NULL);
}

int xfsj_buf_get_zero_ref(struct xfsj_fs *fs, uint64_t daddr, uint32_t len,
			  struct xfsj_buf **bp)
{
	return xfsj_bcache_get(fs->cache, daddr, len, true, false, bp, NULL);
}

int xfsj_buf_read_copy(struct xfsj_fs *fs, uint64_t daddr, uint32_t len,
		       void *dst)
{
	return xfsj_bcache_copy(fs->cache, daddr, len, dst);
}

void xfsj_buf_hold(struct xfsj_fs *fs, struct xfsj_buf *bp)
{
	xfsj_bcache_hold(fs->cache, bp);
}

void xfsj_buf_rele(struct xfsj_fs *fs, struct xfsj_buf *bp)
{
	xfsj_bcache_rele(fs->cache, bp);
}

void xfsj_buf_forget(struct xfsj_fs *fs, struct xfsj_buf *bp)
{
	xfsj_bcache_forget(fs->cache, bp);
}

void xfsj_fs_release_kept(struct xfsj_fs *fs)
{
	xfsj_bcache_release_kept(fs->cache);
}

void xfsj_fs_set_cache_bound(struct xfsj_fs *fs, uint64_t bytes)
{
	fs->cache_bound = bytes;
	xfsj_bcache_set_bound(fs->cache, bytes);
}

int xfsj_fs_set_sb(struct xfsj_fs *fs, const struct xfsj_sb *sb,
		   struct xfsj_fault *f)
{
	struct xfsj_bcache *c;
	int err;

	/* What is dirty is written as the new geometry lays it out. */
	fs->sb = *sb;
	err = xfsj_fs_flush(fs, f);
	if (err)
		return err;
	/* Buffers read with the old geometry are not this one's. */
	err = xfsj_bcache_create(fs->ov, XFSJ_FS_CACHE_DEFAULT, &c);
	if (err)
		return xfsj_fault_set(f, err, NULL, NULL, 0, 0);
	if (fs->cache_bound)
		xfsj_bcache_set_bound(c, fs->cache_bound);
	xfsj_bcache_free(fs->cache);
	fs->cache = c;
	return 0;
}

int xfsj_buf_readahead(struct xfsj_fs *fs, const struct xfsj_buf_ra *v,
		       size_t n)
{
	return xfsj_bcache_readahead(fs->cache, v, n);
}

int xfsj_buf_prefetch(struct xfsj_fs *fs, const struct xfsj_buf_ra *v,
		      size_t n)
{
	return xfsj_bcache_prefetch(fs->cache, v, n);
}

void xfsj_fs_cache_stats(const struct xfsj_fs *fs,
			 struct xfsj_cache_stats *st)
{
	xfsj_bcache_stats(fs->cache, st);
}

static int stamp_and_write(void *arg, struct xfsj_buf *bp)
{
	struct xfsj_fs *fs = arg;
	const struct xfsj_sb *sb = &fs->sb;

	xfsj_meta_stamp(bp->data, bp->len, fs->lsn, sb->sectsize,
			sb->blocksize, sb->inodesize);
	return xfsj_overlay_write(fs->ov, bp->data, bp->len, bp->daddr << 9);
}

int xfsj_fs_flush(struct xfsj_fs *fs, struct xfsj_fault *f)
{
	struct xfsj_buf *bp = NULL;
	int err = xfsj_bcache_flush(fs->cache, stamp_and_write, fs, &bp);

	if (err)
		return xfsj_fault_set(f, err, "buffer", "write",
				      bp->daddr << 9, bp->len);
	return 0;
}

/* ---- AG headers ---- */

typedef int (*verify_fn)(const void *buf, const struct xfsj_vctx *c,
			 uint64_t byte_off, struct xfsj_fault *f);

static int ag_header(struct xfsj_fs *fs, uint32_t agno, unsigned int sect,
		     verify_fn verify, struct xfsj_buf **bp,
		     struct xfsj_fault *f)
{
	const struct xfsj_sb *sb = &fs->sb;
	uint64_t daddr = xfsj_agb_to_daddr(sb, agno, 0) +
			 ((uint64_t)sect * sb->sectsize >> 9);
	struct xfsj_vctx c;
	bool cached;
	int err;

	if (agno >= sb->agcount)
		return xfsj_fault_set(f, XFSJ_E_RANGE, "AG header", "agno",
				      daddr << 9, agno);
	err = xfsj_bcache_get(fs->cache, daddr, sb->sectsize, false, true, bp,
			      &cached);
	if (err)
		return xfsj_fault_set(f, err, "AG header", "read", daddr << 9,
				      sb->sectsize);
	if (cached)
		return 0;
	xfsj_fs_vctx(fs, agno, &c);
	/* The CRC is only checked on the way in: callers change the buffer. */
	err = verify((*bp)->data, &c, daddr << 9, f);
	if (err)
		xfsj_buf_forget(fs, *bp);
	return err;
}

int xfsj_agf_read(struct xfsj_fs *fs, uint32_t agno, struct xfsj_buf **bp,
		  struct xfsj_fault *f)
{
	return ag_header(fs, agno, 1, xfsj_agf_verify, bp, f);
}

int xfsj_agi_read(struct xfsj_fs *fs, uint32_t agno, struct xfsj_buf **bp,
		  struct xfsj_fault *f)
{
	return ag_header(fs, agno, 2, xfsj_agi_verify, bp, f);
}

int xfsj_agfl_read(struct xfsj_fs *fs, uint32_t agno, struct xfsj_buf **bp,
		   struct xfsj_fault *f)
{
	return ag_header(fs, agno, 3, xfsj_agfl_verify, bp, f);
}
