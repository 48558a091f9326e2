/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A fault-injecting I/O backend, stacked on another, for tests of the
 * paths that must survive I/O errors and power cuts (the redo file, the
 * clean log, the commit).
 *
 * One plan drives every device of one simulated process: the counted
 * operations of all its devices share one counter, so "the 7th write" is
 * the 7th write the process made, whichever device it went to.  At the
 * planned operation the plan fires once:
 *
 * - XFSJ_FAULT_ERROR: that operation fails with -XFSJ_E_IO and does
 *   nothing; the operations after it work again (a transient error).
 * - XFSJ_FAULT_CRASH: the power is cut.  A write that fires it is issued
 *   first (so it may land, tear or vanish like the others); a sync or a
 *   read that fires it does nothing.  Then every write not yet made
 *   durable by a sync of its device is undone on the device below, and
 *   with @keep_some a random subset of them is written again in issue
 *   order, some torn: cut at a sector boundary, only the sectors before
 *   the cut written (as SQLite's crash test does).  From then on every
 *   operation on every device of the plan fails with -XFSJ_E_IO: the
 *   process has stopped, and the devices below hold the bytes a reboot
 *   would find.
 *
 * Writes go straight to the device below (reads see them), each with a
 * copy of the bytes it replaced, until the device is synced.  Zeroing and
 * discarding count as writes; extend is passed through uncounted.  There
 * is no in-place read path (map), so that every read can be counted.
 * Everything is deterministic for a given plan and seed.  Closing a
 * device does not sync it: its unsynced writes stay at risk until the
 * plan ends.
 */
#ifndef XFSJ_IO_FAULT_H
#define XFSJ_IO_FAULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "xfsj/io.h"

enum {
	XFSJ_FOP_READ	= 1 << 0,
	XFSJ_FOP_WRITE	= 1 << 1,	/* pwrite, zero, discard */
	XFSJ_FOP_SYNC	= 1 << 2,
};

enum xfsj_fault_kind {
	XFSJ_FAULT_NONE,
	XFSJ_FAULT_ERROR,
	XFSJ_FAULT_CRASH,
};

struct xfsj_fault_pending;

struct xfsj_fault_plan {
	/* Set by the caller (zero the rest). */
	unsigned int ops;		/* operations counted: XFSJ_FOP_* */
	uint64_t at;			/* fire at the @at-th (from 1); 0 = never */
	enum xfsj_fault_kind kind;
	bool keep_some;			/* crash: keep and tear a random subset */
	uint64_t seed;

	/*
	 * Kept by the backends.  To plan another error after one fired,
	 * clear @fired and set @at past @count.
	 */
	uint64_t count;			/* counted operations so far */
	bool fired;			/* the planned fault happened */
	bool crashed;			/* ... and it was a crash */
	uint64_t kept, torn, dropped;	/* fates of the unsynced writes */
	int crash_err;			/* a device below failed the rollback */
	uint64_t rng;
	struct xfsj_fault_pending *pend;	/* unsynced writes, in order */
	size_t npend, cap;
};

/* Stack a fault device on @lower under @plan; both must outlive it. */
int xfsj_io_fault(struct xfsj_io *lower, struct xfsj_fault_plan *plan,
		  struct xfsj_io **out);
/* Cut the power now (if the plan has not crashed already). */
void xfsj_fault_crash(struct xfsj_fault_plan *plan);
/*
 * End the plan: its unsynced writes stay on the devices below (a clean
 * shutdown); frees what the plan holds.
 */
void xfsj_fault_plan_end(struct xfsj_fault_plan *plan);

#endif
