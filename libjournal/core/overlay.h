/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A copy-on-write overlay of a device, in 4 KiB pages.  Replay reads and
 * writes metadata through it; nothing reaches the device until the overlay
 * is committed.  Because the overlay works in fixed pages rather than in
 * buffers, two buffers that overlap (an AGF sector inside a block, a
 * directory block logged with different lengths) always see each other's
 * changes, as they would on the device.
 */
#ifndef XFSJ_OVERLAY_H
#define XFSJ_OVERLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "xfsj/io.h"

#define XFSJ_OVL_PAGE	4096U
#define XFSJ_OVL_SECTOR	512U	/* what a page's written mask counts */

struct xfsj_overlay;

int xfsj_overlay_create(struct xfsj_io *io, struct xfsj_overlay **out);
void xfsj_overlay_free(struct xfsj_overlay *ov);

/* Read @len bytes at byte offset @off, overlay first, device below. */
int xfsj_overlay_read(struct xfsj_overlay *ov, void *buf, size_t len,
		      uint64_t off);
/* The same into @n pieces (at most XFSJ_IOV_MAX) that follow one another
 * from @off: one device request when the overlay holds none of it. */
int xfsj_overlay_readv(struct xfsj_overlay *ov, const struct iovec *iov,
		       int n, uint64_t off);
/* A read-soon hint to the device below (xfsj_io_advise). */
void xfsj_overlay_advise(struct xfsj_overlay *ov, uint64_t off, uint64_t len);
/* Write into the overlay only. */
int xfsj_overlay_write(struct xfsj_overlay *ov, const void *buf, size_t len,
		       uint64_t off);

/* Dirty pages, in ascending offset order. */
typedef int (*xfsj_page_fn)(void *arg, uint64_t off, const uint8_t *page);
int xfsj_overlay_each_dirty(struct xfsj_overlay *ov, xfsj_page_fn fn,
			    void *arg);
/*
 * Hand every dirty page to @fn as _each_dirty does, then, when all went
 * well, forget them: later reads of those pages go to the device below,
 * which must hold what @fn was given (on an error the pages stay).
 */
int xfsj_overlay_drain(struct xfsj_overlay *ov, xfsj_page_fn fn, void *arg);
uint64_t xfsj_overlay_dirty_pages(const struct xfsj_overlay *ov);

/*
 * Epochs of writes, for a caller that must know what a step of its own
 * wrote (the repair's re-check of what a round changed): each write is
 * stamped with the epoch current at the time.  _new_epoch starts the
 * next one and returns its number; _each_written hands @fn every page
 * written in epoch @epoch or later (in no order), with the mask of its
 * 512-byte sectors (bit i: bytes [512 i, 512 (i + 1))) written in the
 * page's last epoch; @fn's nonzero return stops the walk and is returned.
 */
typedef int (*xfsj_written_fn)(void *arg, uint64_t off, unsigned int sectors);
uint32_t xfsj_overlay_new_epoch(struct xfsj_overlay *ov);
int xfsj_overlay_each_written(struct xfsj_overlay *ov, uint32_t epoch,
			      xfsj_written_fn fn, void *arg);
/* Size in bytes of the device below. */
uint64_t xfsj_overlay_dev_size(const struct xfsj_overlay *ov);
/* The device below (the one given to xfsj_overlay_create). */
struct xfsj_io *xfsj_overlay_device(const struct xfsj_overlay *ov);

/*
 * The overlay as an I/O backend stacked on its device, so that code
 * written against struct xfsj_io (mkfs, the replay, repair) can write
 * through it unchanged:
 * - reads go overlay first, then to the device below;
 * - writes and zeroing land in the overlay only (the device below may be
 *   read-only);
 * - discard is a no-op and extend cannot grow past the device below;
 * - sync is a no-op returning 0: nothing reaches the device until the
 *   caller commits the overlay (xfsj_redo_commit()), which is what makes
 *   that commit safe;
 * - closing it frees only the backend: the overlay, its dirty pages and
 *   the device below stay with the caller, ready to be committed.
 * Its size and sector sizes are those of the device below.  The overlay
 * must outlive the backend.
 */
int xfsj_overlay_io(struct xfsj_overlay *ov, struct xfsj_io **out);

#endif
