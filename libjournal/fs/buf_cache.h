/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The buffer cache under the filesystem handle (fs.h): buffers of the page
 * overlay keyed by disk address, with a bound on the bytes they hold.
 *
 * A buffer is in one of these states:
 *   held     one or more references (xfsj_bcache_get with keep false,
 *            xfsj_bcache_hold) not yet dropped;
 *   kept     returned by a lookup that takes no reference (the original
 *            fs.h lookups): it stays until xfsj_bcache_release_kept or
 *            the end of the cache, so a pointer to it never goes stale;
 *   dirty    changed and not yet flushed;
 *   idle     none of these: on the LRU list, first to go when the cache
 *            is over its bound.
 * Only idle buffers are evicted.  A buffer that is released while dirty
 * leaves the LRU until the next flush has written it.  When nothing idle
 * is left, the cache goes over its bound rather than fail; the stats count
 * each such insertion.
 */
#ifndef XFSJ_FS_BUF_CACHE_H
#define XFSJ_FS_BUF_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "xfsj/fs.h"
#include "core/overlay.h"

struct xfsj_bcache;

int xfsj_bcache_create(struct xfsj_overlay *ov, uint64_t bound,
		       struct xfsj_bcache **out);
void xfsj_bcache_free(struct xfsj_bcache *c);
/* A smaller bound evicts idle buffers at once. */
void xfsj_bcache_set_bound(struct xfsj_bcache *c, uint64_t bytes);

/*
 * Look up [daddr, daddr + len) or read it through the overlay (@zero: fill
 * it with zeros and mark it dirty instead, also when it was cached).
 * @keep: the buffer is kept (see above); otherwise the caller holds one
 * reference.  *@cached tells whether it was found in the cache (may be
 * NULL).
 */
/* xfsj_buf_read_copy: the cached bytes, else the device's, uncached. */
int xfsj_bcache_copy(struct xfsj_bcache *c, uint64_t daddr, uint32_t len,
		     void *dst);
int xfsj_bcache_get(struct xfsj_bcache *c, uint64_t daddr, uint32_t len,
		    bool zero, bool keep, struct xfsj_buf **bp, bool *cached);
void xfsj_bcache_hold(struct xfsj_bcache *c, struct xfsj_buf *bp);
void xfsj_bcache_rele(struct xfsj_bcache *c, struct xfsj_buf *bp);
/* Drop @bp from the lookup: not flushed; freed once nothing holds it. */
void xfsj_bcache_forget(struct xfsj_bcache *c, struct xfsj_buf *bp);
/* Every kept buffer becomes an ordinary one (idle unless held or dirty). */
void xfsj_bcache_release_kept(struct xfsj_bcache *c);

int xfsj_bcache_readahead(struct xfsj_bcache *c, const struct xfsj_buf_ra *v,
			  size_t n);
/* xfsj_buf_prefetch: the device is told, nothing is read here. */
int xfsj_bcache_prefetch(struct xfsj_bcache *c, const struct xfsj_buf_ra *v,
			 size_t n);

/*
 * Call @write on every dirty buffer, oldest first, and mark it clean when
 * @write returns 0.  Stops at the first error: *@failed is that buffer.
 */
typedef int (*xfsj_bcache_write_fn)(void *arg, struct xfsj_buf *bp);
int xfsj_bcache_flush(struct xfsj_bcache *c, xfsj_bcache_write_fn write,
		      void *arg, struct xfsj_buf **failed);

void xfsj_bcache_stats(const struct xfsj_bcache *c,
		       struct xfsj_cache_stats *st);

#endif
