/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Log recovery in user space: the two replay passes of the kernel over
 * committed transactions, applied to a page overlay of the device so that
 * nothing is written until the whole replay has succeeded.
 *
 * The caller walks the live log (logread.h) and hands every committed
 * transaction to pass 1, then walks again and hands each to pass 2.
 */
#ifndef XFSJ_RECOVER_H
#define XFSJ_RECOVER_H

#include <stdbool.h>
#include <stdint.h>

#include "xfsj/errors.h"
#include "ondisk/format.h"
#include "core/overlay.h"
#include "xfsj/logread.h"

struct xfsj_recover_stats {
	uint64_t trans;
	uint64_t items[XFSJ_LI_SPAN];	/* by type - XFSJ_LI_FIRST */
	uint64_t bufs_replayed, bufs_skipped_lsn, bufs_cancelled;
	uint64_t inodes_replayed, inodes_skipped_lsn, inodes_cancelled;
	uint64_t icreates, dquots_skipped;
	uint64_t owner_items;		/* inode items with DOWNER/AOWNER */
	uint64_t owners_changed;	/* bmbt blocks given a new owner */
	uint64_t owners_passed;		/* ... passed over: rewritten later */
	uint64_t intents, intents_done;
	uint64_t max_lsn;		/* largest transaction LSN replayed */
	uint64_t salvage_passed;	/* salvage: items passed over */
	uint64_t salvage_clusters;	/* ... inode clusters initialized */
	uint64_t salvage_inodes_kept;	/* ... newer on disk than a chunk's
					 * creation, not initialized again */
};

/* A piece of work the log leaves for after the replay. */
struct xfsj_leftover {
	enum { XFSJ_LEFT_INTENT, XFSJ_LEFT_UNLINKED, XFSJ_LEFT_COW } kind;
	uint16_t type;		/* intent item type */
	uint64_t id;		/* intent id */
	uint64_t lsn;		/* of the transaction that logged it */
	uint32_t agno;		/* unlinked: AG, bucket and head inode;
				 * CoW: AG and the first staging extent */
	uint32_t bucket;
	uint32_t agino;
};

struct xfsj_recover;

int xfsj_recover_create(struct xfsj_overlay *ov, const struct xfsj_sb *sb,
			struct xfsj_recover **out);
void xfsj_recover_free(struct xfsj_recover *rc);

/*
 * Salvage (a log damaged in the middle): an item pass 2 cannot replay
 * because what it lands on fails verification (an inode chunk or a block
 * a lost checkpoint made) is passed over and counted (salvage_passed)
 * instead of stopping the replay; the repair that follows sets it right.
 */
void xfsj_recover_salvage(struct xfsj_recover *rc, bool on);

int xfsj_recover_pass1(struct xfsj_recover *rc, const struct xfsj_rtrans *t,
		       struct xfsj_fault *f);
int xfsj_recover_pass2(struct xfsj_recover *rc, const struct xfsj_rtrans *t,
		       struct xfsj_fault *f);
const struct xfsj_recover_stats *xfsj_recover_stats(const struct xfsj_recover *rc);

/*
 * The geometry the recovery works with: the superblock it was created
 * with, or the primary superblock as last replayed (a growfs in the log).
 */
const struct xfsj_sb *xfsj_recover_sb(const struct xfsj_recover *rc);

/*
 * The work that remains after pass 2: intents without their done item, in
 * log order, then every non-empty AGI unlinked bucket, then every AG whose
 * refcount btree still holds CoW staging extents.  Calls @fn for each
 * and returns how many there were (or a negative error).
 */
typedef void (*xfsj_leftover_fn)(void *arg, const struct xfsj_leftover *l);
int xfsj_recover_leftovers(struct xfsj_recover *rc, xfsj_leftover_fn fn,
			   void *arg);

/* Every pending intent in log order; a non-zero return stops the walk. */
typedef int (*xfsj_intent_fn)(void *arg, const struct xfsj_pending_intent *pi);
int xfsj_recover_each_intent(struct xfsj_recover *rc, xfsj_intent_fn fn,
			     void *arg);

/*
 * Recompute the superblock summary counters from the AG headers, as the
 * kernel does after replaying a dirty log, clear the log-incompat features
 * the log no longer needs, and write the primary superblock (overlay).
 */
int xfsj_recover_update_sb(struct xfsj_recover *rc, struct xfsj_fault *f);

#endif
