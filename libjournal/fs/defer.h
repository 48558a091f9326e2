/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Deferred work: what finishing one change queues for later, in the
 * kernel's order.  Finishing an item may queue more (a reference count
 * dropping to zero frees the extent; truncating an inode unmaps its
 * extents, which queues rmap, refcount and free work); work queued while
 * an item is finished runs before the rest of the queue, as the kernel's
 * deferred-operation chains do.
 *
 * The same structures describe the work an intent in the log asks for
 * (recovery turns each pending EFI/RUI/CUI into items here).
 */
#ifndef XFSJ_DEFER_H
#define XFSJ_DEFER_H

#include <stdbool.h>
#include <stdint.h>

#include "fs/alloc.h"
#include "xfsj/fs.h"

enum xfsj_work_kind {
	XFSJ_W_FREE,		/* EFI: free an extent */
	XFSJ_W_RMAP,		/* RUI: change a reverse mapping */
	XFSJ_W_REFC,		/* CUI: change a reference count */
	XFSJ_W_BMAP,		/* BUI: map or unmap in an inode's fork */
	XFSJ_W_XMI,		/* XMI: the next step of a mapping exchange */
};

/* BUI operations (the bmap intent's type field values). */
enum xfsj_bmap_op { XFSJ_BMAP_MAP = 1, XFSJ_BMAP_UNMAP = 2 };

/* RUI operations (the rmap intent's type field values). */
enum xfsj_rmap_op {
	XFSJ_RMAP_MAP = 0, XFSJ_RMAP_MAP_SHARED, XFSJ_RMAP_UNMAP,
	XFSJ_RMAP_UNMAP_SHARED, XFSJ_RMAP_CONVERT, XFSJ_RMAP_CONVERT_SHARED,
	XFSJ_RMAP_ALLOC, XFSJ_RMAP_FREE,
};

/* CUI operations. */
enum xfsj_refc_op {
	XFSJ_REFC_INCREASE = 1, XFSJ_REFC_DECREASE, XFSJ_REFC_ALLOC_COW,
	XFSJ_REFC_FREE_COW,
};

struct xfsj_work {
	enum xfsj_work_kind kind;
	uint64_t fsbno;		/* start of the extent */
	uint32_t len;
	union {
		struct {
			struct xfsj_owner oi;	/* owner OWN_NULL: no rmap */
		} free;
		struct {
			enum xfsj_rmap_op op;
			uint64_t owner;
			uint64_t offset;
			bool attr_fork, bmbt_block, unwritten;
		} rmap;
		struct {
			enum xfsj_refc_op op;
		} refc;
		struct {
			enum xfsj_bmap_op op;
			uint64_t ino;
			uint64_t startoff;	/* file offset */
			bool attr_fork, unwritten;
		} bmap;
		/*
		 * An exchange in progress (xmi.c): what is left of the
		 * range, the flags the kernel keeps (XFSJ_XMI_*, with the
		 * reflink flags to clear at the end), the sizes to set at
		 * the end (-1: leave alone).  @first: the step that
		 * recovery starts the exchange with, whose continuation
		 * goes before the mapping work it queues (the kernel keeps
		 * the recovered intent ahead of it); later steps queue
		 * theirs after it.
		 */
		struct {
			uint64_t ino1, ino2;
			uint64_t startoff1, startoff2, blockcount;
			uint64_t flags;
			int64_t isize1, isize2;
			bool first;
		} xmi;
	};
};

/* Queue @w on @fs's queue (the front when called while finishing). */
int xfsj_defer_add(struct xfsj_fs *fs, const struct xfsj_work *w);
/* Run the queue until it is empty. */
int xfsj_defer_finish(struct xfsj_fs *fs, struct xfsj_fault *f);

/*
 * Log recovery's order: finish what is queued now (one recovered
 * intent's work) without running what it queues; that is handed back as
 * a captured chain (NULL when nothing was queued), to be resumed, with
 * all its consequences, after every intent has had its step.
 */
struct xfsj_defer_chain;
int xfsj_defer_finish_capture(struct xfsj_fs *fs,
			      struct xfsj_defer_chain **chain,
			      struct xfsj_fault *f);
/* Run @chain to the end (and free it). */
int xfsj_defer_resume(struct xfsj_fs *fs, struct xfsj_defer_chain *chain,
		      struct xfsj_fault *f);
void xfsj_defer_chain_free(struct xfsj_defer_chain *chain);

/* Items finished on this handle so far. */
uint64_t xfsj_defer_done(struct xfsj_fs *fs);

/* The finishers, one per kind (alloc.c, rmap.c, refcount.c). */
int xfsj_free_finish(struct xfsj_fs *fs, const struct xfsj_work *w,
		     struct xfsj_fault *f);
int xfsj_rmap_finish(struct xfsj_fs *fs, const struct xfsj_work *w,
		     struct xfsj_fault *f);
int xfsj_refcount_finish(struct xfsj_fs *fs, const struct xfsj_work *w,
			 struct xfsj_fault *f);

#endif
