/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Committing a replay safely.  Everything the replay changed sits in a page
 * overlay; it is first written to a redo file, which is synced, and only
 * then copied onto the device.  A run killed at any point leaves either an
 * incomplete redo file (the device untouched: start again) or a complete
 * one (copy it again: the copy is idempotent).
 */
#ifndef XFSJ_REDO_H
#define XFSJ_REDO_H

#include <stdbool.h>
#include <stdint.h>

#include "xfsj/errors.h"
#include "ondisk/format.h"
#include "xfsj/io.h"
#include "core/overlay.h"

/*
 * Write a clean log into the overlay, whose log block 0 is at byte @base:
 * an unmount record at @head_blk in cycle @cycle (the position the next
 * record would take), and header-only blocks over the following 2 MiB so
 * that no torn record from before the crash can be mistaken for a newer
 * one.
 */
int xfsj_log_write_clean(struct xfsj_overlay *ov, const struct xfsj_sb *sb,
			 uint64_t base, uint32_t head_blk, uint32_t cycle,
			 struct xfsj_fault *f);

/*
 * Header-only blocks of @cycle (of the next one past the log's end) over
 * the @n log blocks from @from, naming the clean head (@head_blk in
 * @head_cycle) as their tail: a lost stretch of the log, whose blocks hold
 * an older cycle, restamped so that the kernel does not take it for the
 * head in front of the clean log written after it.
 */
int xfsj_log_restamp(struct xfsj_overlay *ov, const struct xfsj_sb *sb,
		     uint64_t base, uint32_t from, uint32_t n, uint32_t cycle,
		     uint32_t head_blk, uint32_t head_cycle,
		     struct xfsj_fault *f);

/* Called after each page saved or applied (progress; may be NULL). */
struct xfsj_redo_cb {
	void (*page)(void *arg, uint64_t done, uint64_t total);
	void *arg;
};

/* Write every dirty page of @ov to @path and sync it. */
int xfsj_redo_save(const char *path, struct xfsj_overlay *ov,
		   const uint8_t uuid[16], uint64_t devsize,
		   const struct xfsj_redo_cb *cb);
/*
 * The same into the redo file behind @rio (any backend: a file, or in
 * tests memory under the fault backend), from byte 0, then sync @rio.
 * Bytes past the end of what it writes are ignored when applying.
 */
int xfsj_redo_save_io(struct xfsj_io *rio, struct xfsj_overlay *ov,
		      const uint8_t uuid[16], uint64_t devsize,
		      const struct xfsj_redo_cb *cb);

/*
 * If @path holds a complete redo file for this filesystem, copy it onto
 * @io, sync, remove it and set *@applied.  An incomplete file is removed
 * (it was never applied).  A missing file is not an error.
 */
int xfsj_redo_apply(const char *path, struct xfsj_io *io,
		    const uint8_t uuid[16], bool *applied,
		    uint64_t *pages, const struct xfsj_redo_cb *cb);
/*
 * The same for the redo file behind @rio, "removed" by
 * xfsj_redo_discard().  A read error of the redo file is returned, never
 * taken for an incomplete file (which would throw away a complete one).
 */
int xfsj_redo_apply_io(struct xfsj_io *rio, struct xfsj_io *io,
		       const uint8_t uuid[16], bool *applied,
		       uint64_t *pages, const struct xfsj_redo_cb *cb);
/*
 * Is a complete redo file for this filesystem waiting at @path (1, with
 * its page count and its tag, which an undo file of the same commit
 * carries; see xfsj/undo.h), or not (0: none, or an incomplete one)?
 * Another filesystem's is -XFSJ_E_CONFLICT.  Nothing is written.
 */
int xfsj_redo_pending(const char *path, struct xfsj_io *io,
		      const uint8_t uuid[16], uint64_t *pages, uint32_t *tag);
int xfsj_redo_pending_io(struct xfsj_io *rio, struct xfsj_io *io,
			 const uint8_t uuid[16], uint64_t *pages,
			 uint32_t *tag);
/* Make @rio no redo file (zero its header) and sync it. */
int xfsj_redo_discard(struct xfsj_io *rio);

/*
 * Commit @ov onto the device below it (xfsj_overlay_device()): save
 * every dirty page to the redo file @path and sync it, copy it onto the
 * device and sync that, remove the redo file.  A run that stops anywhere
 * leaves the device as it was with no complete redo file, or a complete
 * redo file that xfsj_redo_apply() finishes.  On an error the redo file
 * is kept if it is complete (run again to finish).  *@pages (may be NULL)
 * is the count of pages written.
 */
int xfsj_redo_commit(const char *path, struct xfsj_overlay *ov,
		     const uint8_t uuid[16], uint64_t *pages,
		     const struct xfsj_redo_cb *cb);
/* The same through a redo file behind @rio (see xfsj_redo_save_io). */
int xfsj_redo_commit_io(struct xfsj_io *rio, struct xfsj_overlay *ov,
			const uint8_t uuid[16], uint64_t *pages,
			const struct xfsj_redo_cb *cb);

#endif
