/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Who owns a range of blocks claimed twice: one evidence model (the
 * table and the decision in evidence.c, the facts read from the
 * filesystem in claim_facts.c).
 *
 * Each claim over the range (an inode's mapping or bmbt block, or
 * metadata: AG headers, btrees, inode chunks, the log) is scored by the
 * rows of the evidence table that hold for it, each with its weight.
 * The best score keeps the range; claims that may share with it (the
 * same fork, or written data of regular files on a reflink filesystem)
 * keep it too; every other claim gives way.  When no claim has evidence
 * for it and some evidence against it (a score below zero), every claim
 * gives way.  When claims of different owners tie at the best score and
 * are all regular files' written data, the range is cloned: one keeps
 * it (the keeper-only rows decide which, then the lowest inode number),
 * the others get a copy; any other tie is left as it is.  (Two files'
 * unwritten extents over one range read as zeroes either way: without
 * other evidence both give it up, and their holes read the same.)
 */
#ifndef XFSJ_REPAIR_EVIDENCE_H
#define XFSJ_REPAIR_EVIDENCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The rows of the evidence table, in its order. */
enum xrp_ev_row {
	XRP_EV_LAYOUT,		/* the geometry puts it there */
	XRP_EV_HEADER,		/* the block's own header names it */
	XRP_EV_WRITTEN,		/* written data over an unwritten mapping */
	XRP_EV_FTYPE,		/* a file's data over a directory's */
	XRP_EV_RMAPBT,		/* the rmapbt records this claim */
	XRP_EV_RMAPBT_OTHER,	/* the rmapbt records others, not it */
	XRP_EV_REFCOUNT,	/* the refcountbt records the range shared */
	XRP_EV_ZEROES,		/* unwritten, against another's unwritten */
	XRP_EV_SOUND,		/* the claiming inode is sound (keeper only) */
	XRP_EV__N
};

/* What is known of one claim over the range (the facts the rows read). */
struct xrp_claim {
	uint64_t owner;		/* an inode, or an XFSJ_RMAP_OWN_* */
	uint64_t offset;	/* rmap offset: file offset and flags */
	uint8_t ftype;		/* the owner inode's XFSJ_FT_*, 0 unknown */
	bool rmap_backs;	/* a record of the whole rmapbt agrees */
	bool rmap_other;	/* ... records over it name others only */
	bool header;		/* the block's self-describing header */
	bool layout;		/* an AG header or the internal log */
	bool refcount;		/* the refcountbt: shared, refcount >= 2 */
	bool sound;		/* inode: no problem has named it */
	/* The decision (xrp_ev_decide). */
	int score;
	uint32_t rows;		/* 1 << XRP_EV_* of the rows that held */
	enum xrp_verdict {
		XRP_V_LEFT,	/* a tie nothing settles: as it is */
		XRP_V_KEEP,	/* keeps the range (alone or shared) */
		XRP_V_GIVE_WAY,	/* gives the range up */
		XRP_V_CLONE_COPY, /* gets a copy; another keeps it */
	} verdict;
};

/* One row of the evidence table. */
struct xrp_ev_row_def {
	const char *name;	/* as the fix record names it */
	int weight;		/* added to the claim's score when it holds */
	bool keeper_only;	/* only picks the keeper of a clone */
	/* Does it hold for claim @i of the @n over the range? */
	bool (*holds)(const struct xrp_claim *c, size_t n, size_t i,
		      bool reflink);
};

/* The table (XRP_EV__N rows). */
const struct xrp_ev_row_def *xrp_ev_rows(void);

/* The outcome over the range. */
struct xrp_decision {
	enum xrp_outcome {
		XRP_D_KEEP,	/* the best keeps, the rest give way */
		XRP_D_CLONE,	/* a tie of files: the keeper and copies */
		XRP_D_NONE,	/* evidence against all: all give way */
		XRP_D_TIE,	/* a tie nothing settles: left */
	} outcome;
	size_t keeper;		/* the claim that keeps it (not TIE/NONE) */
	int kept;		/* the best score */
	int gave_way;		/* the best score below it (kept if none) */
	uint32_t why;		/* 1 << XRP_EV_* of the rows that decided */
};

/*
 * Score the @n claims (@c, their facts filled), set each one's verdict
 * and fill @d.  @reflink: the filesystem lets files share data.
 */
void xrp_ev_decide(struct xrp_claim *c, size_t n, bool reflink,
		   struct xrp_decision *d);

/* The names of the rows in @why, in table order, into @names (at most
 * @max); returns how many. */
size_t xrp_ev_names(uint32_t why, const char **names, size_t max);

/* The outcome's name: "keep", "clone", "none", "tie". */
const char *xrp_ev_outcome_name(enum xrp_outcome o);

/* May claim @c be cloned (a regular file's written data)? */
bool xrp_ev_cloneable(const struct xrp_claim *c);

#endif
