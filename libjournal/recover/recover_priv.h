/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the replay's files share behind recover.h and finish.h.
 *
 * The replay side of each log item type is one row of one table
 * (replay_ops.c), keyed by the type of the log layer's row (logread.h):
 * what pass 1 does with it, what pass 2 does with it, and how a pending
 * intent of that type is finished after the replay.  The pass driver
 * (recover.c) decodes every item once with the log layer's decoder and
 * hands the row the decoded item; no file switches on the item type.
 * The families: item_buf.c, item_inode.c, item_icreate.c, item_quota.c,
 * item_intent.c (intents and done items during the passes) and finish.c
 * (finishing the intents).
 */
#ifndef XFSJ_RECOVER_PRIV_H
#define XFSJ_RECOVER_PRIV_H

#include "xfsj/finish.h"
#include "xfsj/recover.h"

struct cancel {
	uint64_t blkno;
	uint32_t len;
	uint32_t refs;
};

struct intent {
	uint16_t type;
	uint64_t id;
	uint64_t lsn;
	uint8_t *fmt;		/* a copy of all the item's regions */
	uint32_t len;		/* of region 0, the format */
	struct xfsj_region *regs;
	uint16_t nreg;
};

struct xfsj_recover {
	struct xfsj_overlay *ov;
	struct xfsj_sb sb;
	uint8_t *buf;			/* scratch for one buffer */
	size_t bufsize;
	struct cancel *cancels;
	size_t ncancel, capcancel;
	struct intent *intents;
	size_t nintent, capintent;
	struct xfsj_recover_stats st;
	uint8_t *order;		/* the current transaction's reorder classes */
	size_t caporder;
	/*
	 * The buffers replayed by transactions of the current start LSN.
	 * The kernel stamps a replayed buffer with the transaction's LSN only
	 * when it writes it, and writes the buffers of one start LSN only
	 * once the commit record of a later start LSN comes: several
	 * checkpoints can start in one log record, and each must replay its
	 * buffers over what the previous one replayed.  We stamp at once, so
	 * an LSN equal to the transaction's on a buffer of this set is ours
	 * and no reason to skip.
	 */
	uint64_t group_lsn;
	uint64_t *group;		/* open addressing; 0 is empty */
	size_t ngroup, capgroup;
	bool salvage;			/* xfsj_recover_salvage() */
};

/* recover.c: helpers of the item families. */
int xrec_corrupt(struct xfsj_fault *f, const char *structure,
		 const char *field, uint64_t off, uint64_t val);
/*
 * The decode problem of @in as the replay's fault, the structure named in
 * the replay's words (@structure: "buf log item", ...), as its own checks
 * of the item name it.
 */
int xrec_item_fault(struct xfsj_fault *f, const struct xfsj_item_info *in,
		    const char *structure);
/*
 * item_icreate.c: a free inode @ino of generation @gen, as an inode chunk
 * creation writes it, into @dst (inodesize bytes).
 */
void xrec_free_inode(const struct xfsj_recover *rc, uint8_t *dst,
		     uint64_t ino, uint32_t gen);
/* Grow the scratch buffer to @len bytes. */
int xrec_scratch(struct xfsj_recover *rc, size_t len);
/* Is quota accounting on (user, group or project)? */
bool xrec_quota_on(const struct xfsj_recover *rc);
/*
 * Is [daddr, daddr + len) (512-byte units) a place no metadata can be:
 * past the end of the filesystem, or inside the internal log?
 */
bool xrec_daddr_bad(const struct xfsj_recover *rc, uint64_t daddr,
		    uint64_t len);

/* cancel.c: the buffer cancellation table (pass 1 fills it). */
struct cancel *xrec_cancel_find(struct xfsj_recover *rc, uint64_t blkno,
				uint32_t len);
int xrec_cancel_add(struct xfsj_recover *rc, uint64_t blkno, uint32_t len);
/* A cancel item of pass 2: one reference fewer. */
void xrec_cancel_drop(struct xfsj_recover *rc, uint64_t blkno, uint32_t len);

/* item_buf.c: the start of a transaction's replay (the LSN group). */
void xrec_group_start(struct xfsj_recover *rc, uint64_t lsn);
void xrec_group_free(struct xfsj_recover *rc);

/* item_intent.c */
void xrec_intents_free(struct xfsj_recover *rc);

/* finish.c: the state of the finishing, for the finish column. */
struct xrec_finish {
	struct xfsj_fs *fs;
	const struct xfsj_sb *sb;
	struct xfsj_finish_stats *st;
	struct xfsj_fault *f;
	struct xfsj_defer_chain **chains;	/* captured, in order */
	size_t nchain;
};

/* One row: the replay side of one log item type. */
struct xrec_ops {
	uint16_t type;
	/* Pass 1 (NULL: nothing to do), the item decoded. */
	int (*pass1)(struct xfsj_recover *rc, const struct xfsj_ritem *it,
		     const struct xfsj_item_info *in, struct xfsj_fault *f);
	/* Pass 2 (NULL: the replay refuses the type). */
	int (*pass2)(struct xfsj_recover *rc, const struct xfsj_ritem *it,
		     const struct xfsj_item_info *in, uint64_t lsn,
		     struct xfsj_fault *f);
	/*
	 * Finish a pending intent of this type after the replay, @in
	 * decoded from its regions (NULL: this version cannot).
	 */
	int (*finish)(struct xrec_finish *c,
		      const struct xfsj_pending_intent *pi,
		      const struct xfsj_item_info *in);
};

/* replay_ops.c: the row of @type, or NULL. */
const struct xrec_ops *xrec_ops(uint16_t type);

/* The columns, by family. */
int xrec_buf_pass1(struct xfsj_recover *rc, const struct xfsj_ritem *it,
		   const struct xfsj_item_info *in, struct xfsj_fault *f);
int xrec_buf_pass2(struct xfsj_recover *rc, const struct xfsj_ritem *it,
		   const struct xfsj_item_info *in, uint64_t lsn,
		   struct xfsj_fault *f);
int xrec_inode_pass2(struct xfsj_recover *rc, const struct xfsj_ritem *it,
		     const struct xfsj_item_info *in, uint64_t lsn,
		     struct xfsj_fault *f);
int xrec_icreate_pass2(struct xfsj_recover *rc, const struct xfsj_ritem *it,
		       const struct xfsj_item_info *in, uint64_t lsn,
		       struct xfsj_fault *f);
int xrec_dquot_pass2(struct xfsj_recover *rc, const struct xfsj_ritem *it,
		     const struct xfsj_item_info *in, uint64_t lsn,
		     struct xfsj_fault *f);
int xrec_qoff_pass2(struct xfsj_recover *rc, const struct xfsj_ritem *it,
		    const struct xfsj_item_info *in, uint64_t lsn,
		    struct xfsj_fault *f);
int xrec_intent_pass2(struct xfsj_recover *rc, const struct xfsj_ritem *it,
		      const struct xfsj_item_info *in, uint64_t lsn,
		      struct xfsj_fault *f);
int xrec_done_pass2(struct xfsj_recover *rc, const struct xfsj_ritem *it,
		    const struct xfsj_item_info *in, uint64_t lsn,
		    struct xfsj_fault *f);
int xrec_finish_efi(struct xrec_finish *c, const struct xfsj_pending_intent *pi,
		    const struct xfsj_item_info *in);
int xrec_finish_rui(struct xrec_finish *c, const struct xfsj_pending_intent *pi,
		    const struct xfsj_item_info *in);
int xrec_finish_cui(struct xrec_finish *c, const struct xfsj_pending_intent *pi,
		    const struct xfsj_item_info *in);
int xrec_finish_bui(struct xrec_finish *c, const struct xfsj_pending_intent *pi,
		    const struct xfsj_item_info *in);
int xrec_finish_attri(struct xrec_finish *c,
		      const struct xfsj_pending_intent *pi,
		      const struct xfsj_item_info *in);
int xrec_finish_xmi(struct xrec_finish *c, const struct xfsj_pending_intent *pi,
		    const struct xfsj_item_info *in);

#endif
