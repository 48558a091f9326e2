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
#include "xfsj/format.h"
#include "xfsj/overlay.h"

/* Log item types (the first u16 of every item's first region). */
enum {
	XFSJ_LI_EFI = 0x1236, XFSJ_LI_EFD = 0x1237,
	XFSJ_LI_IUNLINK = 0x1238,
	XFSJ_LI_INODE = 0x123b, XFSJ_LI_BUF = 0x123c,
	XFSJ_LI_DQUOT = 0x123d, XFSJ_LI_QUOTAOFF = 0x123e,
	XFSJ_LI_ICREATE = 0x123f,
	XFSJ_LI_RUI = 0x1240, XFSJ_LI_RUD = 0x1241,
	XFSJ_LI_CUI = 0x1242, XFSJ_LI_CUD = 0x1243,
	XFSJ_LI_BUI = 0x1244, XFSJ_LI_BUD = 0x1245,
	XFSJ_LI_ATTRI = 0x1246, XFSJ_LI_ATTRD = 0x1247,
	XFSJ_LI_XMI = 0x1248, XFSJ_LI_XMD = 0x1249,
	XFSJ_LI_EFI_RT = 0x124a, XFSJ_LI_EFD_RT = 0x124b,
	XFSJ_LI_RUI_RT = 0x124c, XFSJ_LI_RUD_RT = 0x124d,
	XFSJ_LI_CUI_RT = 0x124e, XFSJ_LI_CUD_RT = 0x124f,
};

/* buf log format flags */
#define XFSJ_BLF_INODE_BUF	0x01
#define XFSJ_BLF_CANCEL		0x02
#define XFSJ_BLF_DQUOT_MASK	0x1c
#define XFSJ_BLF_CHUNK		128
#define XFSJ_BLFT_SHIFT		11	/* buffer type: flags >> 11 */
#define XFSJ_BLFT_SB		18

/* inode log format: which parts of the inode the item logged */
#define XFSJ_ILOG_CORE	0x001
#define XFSJ_ILOG_DDATA	0x002	/* local data fork */
#define XFSJ_ILOG_DEXT	0x004	/* data fork extents */
#define XFSJ_ILOG_DBROOT	0x008	/* data fork btree root */
#define XFSJ_ILOG_DEV	0x010	/* device number */
#define XFSJ_ILOG_ADATA	0x040
#define XFSJ_ILOG_AEXT	0x080
#define XFSJ_ILOG_ABROOT	0x100
#define XFSJ_ILOG_DOWNER	0x200	/* data fork bmbt changed owner */
#define XFSJ_ILOG_AOWNER	0x400	/* attr fork bmbt changed owner */
#define XFSJ_ILOG_DFORK	(XFSJ_ILOG_DDATA | XFSJ_ILOG_DEXT | XFSJ_ILOG_DBROOT)
#define XFSJ_ILOG_AFORK	(XFSJ_ILOG_ADATA | XFSJ_ILOG_AEXT | XFSJ_ILOG_ABROOT)

struct xfsj_region {
	const uint8_t *p;
	uint32_t len;
};

struct xfsj_ritem {
	uint16_t type;
	uint16_t nreg;
	const struct xfsj_region *reg;
};

struct xfsj_rtrans {
	uint64_t lsn;		/* LSN of the record that held the START op */
	uint32_t tid;
	uint32_t nitems;
	const struct xfsj_ritem *items;
};

struct xfsj_recover_stats {
	uint64_t trans;
	uint64_t items[0x50];		/* by type - 0x1200 */
	uint64_t bufs_replayed, bufs_skipped_lsn, bufs_cancelled;
	uint64_t inodes_replayed, inodes_skipped_lsn, inodes_cancelled;
	uint64_t icreates, dquots_skipped;
	uint64_t owner_items;		/* inode items with DOWNER/AOWNER */
	uint64_t owners_changed;	/* bmbt blocks given a new owner */
	uint64_t owners_passed;		/* ... passed over: rewritten later */
	uint64_t intents, intents_done;
	uint64_t max_lsn;		/* largest transaction LSN replayed */
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

/* An intent without its done item, with a copy of its regions. */
struct xfsj_pending_intent {
	uint16_t type;
	uint64_t id;
	uint64_t lsn;
	const uint8_t *fmt;	/* region 0: the format */
	uint32_t len;
	const struct xfsj_region *regs;	/* all regions, fmt first */
	uint16_t nreg;
};

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
