/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The offline repair: what the checker (xfsj/check.h) finds, fixed in the
 * overlay of a filesystem handle, then checked again before anything is
 * committed.
 *
 * It runs in rounds.  Each round checks the filesystem as it now stands
 * (the fixes of the round before included) and applies the fixes of the
 * earliest stage that has problems: the superblocks first, then inodes
 * and their contents (fields, forks, directories, attributes, links),
 * then the AG headers and btrees (rebuilt from the ownership the scan
 * saw), then the summary counters.  A stage is fixed from a scan that
 * the stages before it can no longer change, so the last round's check
 * is the verdict: what it still finds is left uncorrected.
 *
 * Nothing reaches the device here: every change is a dirty buffer of
 * @fs, flushed into its overlay.  The caller commits the overlay through
 * the redo file (xfsj_repair_commit: the superblock's needs-repair flag
 * first, then everything), or throws it away.
 */
#ifndef XFSJ_REPAIR_H
#define XFSJ_REPAIR_H

#include <stdbool.h>
#include <stdint.h>

#include "xfsj/check.h"
#include "xfsj/errors.h"
#include "xfsj/fs.h"
#include "xfsj/io.h"

struct xfsj_repair_opts {
	/*
	 * Preen: fix only what is safe without a person (counters, leaked
	 * blocks, unlinked lists, hints); anything else stops the repair
	 * before it changes a byte (@preen_refused in the result).
	 */
	bool preen;
	uint64_t cache_bytes;	/* the check's cache bound (0: default) */
	struct xfsj_spill *spill;	/* the check's tables' bound (NULL) */
	/*
	 * The whole checks' threads and -o ag_stride (xfsj_check_opts; 0:
	 * the caller's thread only).  The fixes are flushed to the overlay
	 * before each check, as the check's threads need.  The problems and
	 * fixes are the same for any number.
	 */
	unsigned int threads;
	unsigned int ag_stride;
	/*
	 * Rounds that make no progress (their check finds no fewer problems
	 * than every check before) at most; 0: the default (8).  A round
	 * that does is not counted, up to four times this many rounds.
	 */
	unsigned int max_rounds;
	/*
	 * The superblocks only (the check stops after them): the primary
	 * restored from the secondaries when its geometry keeps the log
	 * and the AGs from being read.
	 */
	bool sb_only;
	/*
	 * For tests: called after each stage's fixes are flushed, before
	 * the next check (a test injects a fix that damages, to show that
	 * the never-worse gate keeps it from the device).  NULL: none.
	 */
	int (*after_stage)(void *arg, struct xfsj_fs *fs);
	void *after_stage_arg;
};

/* One thing the repair did. */
/*
 * Why an ownership decision over a range claimed twice went as it did
 * (the repair's evidence model): its outcome ("keep": the best evidence
 * keeps it; "clone": no evidence either way, one file keeps it and the
 * other gets a copy; "none": evidence against every claim), the rows of
 * evidence that decided, by name, and the scores of the claim that kept
 * the range and of the best one that gave way.
 */
#define XFSJ_WHY_MAX	8
struct xfsj_repair_why {
	const char *outcome;
	const char *rows[XFSJ_WHY_MAX];
	unsigned int nrows;
	int kept, gave_way;
};

struct xfsj_repair_action {
	enum xfsj_fix fix;
	/* The problem it answers, or NULL for one action answering several
	 * (a btree rebuilt for every problem found in it). */
	const struct xfsj_problem *problem;
	unsigned int has;	/* XFSJ_PF_AG, _INO, _AGBNO, _COUNT */
	uint32_t agno;
	uint32_t agbno;
	uint64_t ino;
	uint64_t count;		/* blocks, entries, records: @what says */
	const char *what;	/* "rebuilt the bnobt", "set nlink to 2" */
	const struct xfsj_repair_why *why;	/* or NULL */
};

enum xfsj_repair_stage {
	XFSJ_RS_SB,		/* superblocks */
	XFSJ_RS_INODES,		/* inodes, forks, directories, attributes,
				 * links, lost+found */
	XFSJ_RS_AG,		/* AG headers and btrees, free space */
	XFSJ_RS_COUNTERS,	/* summary counters */
	XFSJ_RS__COUNT
};

struct xfsj_repair_cb {
	void *arg;
	/* Each problem the first check finds. */
	void (*problem)(void *arg, const struct xfsj_problem *p);
	/* Each fix applied. */
	void (*action)(void *arg, const struct xfsj_repair_action *a);
	/* Each problem the final check still finds. */
	void (*left)(void *arg, const struct xfsj_problem *p);
	/* A round starts: its number (1: the first check) and its stage. */
	void (*round)(void *arg, unsigned int round,
		      enum xfsj_repair_stage stage);
	/* The checks' progress. */
	void (*progress)(void *arg, enum xfsj_check_phase phase,
			 uint64_t done, uint64_t total);
};

struct xfsj_repair_result {
	struct xfsj_check_result first;	/* the first check */
	struct xfsj_check_result last;	/* the final check */
	unsigned int rounds;
	/*
	 * The checks it ran: whole ones (the first, the verdict, and any a
	 * round needed), and local ones (after a round that changed a few
	 * AGs: those AGs scanned again, the cross-checks whole), and the
	 * work of all of them added up (enum xfsj_check_work).
	 */
	unsigned int full_checks, local_checks;
	uint64_t work[XFSJ_WK__N];
	uint64_t actions;		/* fixes applied */
	uint64_t left;			/* problems the final check found
					 * (all severities but INFO) */
	uint64_t left_corrupt;		/* ... of them corrupt or xcorrupt */
	uint64_t left_nofix;		/* ... of them whose row names no fix
					 * this version has code for */
	/* Summary. */
	uint64_t fields_fixed;
	uint64_t inodes_cleared;
	uint64_t entries_moved;		/* to lost+found */
	uint64_t entries_removed;
	uint64_t blocks_reclaimed;	/* leaked blocks given back */
	uint64_t btrees_rebuilt;
	uint64_t headers_rebuilt;	/* superblocks and AG headers */
	uint64_t counters_fixed;
	uint64_t blocks_cloned;		/* copies of multiply-claimed blocks */
	/* Multiply-claimed ranges a copy was wanted for and the free space
	 * was too short for (the last round that tried): left as they are. */
	uint64_t clones_short;
	bool changed;			/* the overlay holds changes */
	/*
	 * The never-worse gate: the final check weighs more than the first
	 * (xfsj_check_weight).  The caller commits nothing unless forced.
	 */
	bool worse;
	/* Preen refused: the first problem it may not fix (NULL: none). */
	const struct xfsj_problem_def *preen_refused;
	/* Why it stopped, on a nonzero return. */
	struct xfsj_fault fault;
};

/*
 * Repair the filesystem behind @fs.  Returns 0 when the repair ran to the
 * end (see @res: left problems, preen refusal), or a negative XFSJ_E_*
 * when it could not (I/O error, out of memory, unsupported feature).
 */
int xfsj_repair(struct xfsj_fs *fs, const struct xfsj_repair_opts *o,
		const struct xfsj_repair_cb *cb,
		struct xfsj_repair_result *res);

/*
 * What a check's findings weigh, by severity: a corruption or a
 * cross-check disagreement 16, a warning 1, information 0.  A repair
 * whose final check weighs more than its first left the filesystem worse.
 */
uint64_t xfsj_check_weight(const struct xfsj_check_result *r);

/* May preen fix the problems of row @d (a count the scan made, the
 * unlinked lists, leaked blocks, the counters)? */
bool xfsj_row_preen_safe(const struct xfsj_problem_def *d);
/* Does this version have code for handler @h (xfsj/check.h)? */
bool xfsj_handler_implemented(enum xfsj_handler h);
/* The fix kind handler @h carries out. */
enum xfsj_fix xfsj_handler_fix(enum xfsj_handler h);
const char *xfsj_repair_stage_name(enum xfsj_repair_stage s);

/*
 * Commit @ov through the redo file @redo: first the primary superblock
 * with the needs-repair flag set (so a run killed in the middle leaves a
 * filesystem the kernel refuses to mount until a repair runs again), then
 * every change, the needs-repair flag cleared.  With @undo (may be NULL),
 * the old contents of every block both commits write go there first
 * (xfsj/undo.h).  @sb is the filesystem's geometry.  *@pages gets the
 * pages written; @f says which step failed (fault.structure "undo file":
 * the device is untouched; "redo file", field "copy": run again).
 */
struct xfsj_redo_cb;
int xfsj_repair_commit(const char *redo, const char *undo,
		       struct xfsj_overlay *ov, const struct xfsj_sb *sb,
		       uint64_t *pages, const struct xfsj_redo_cb *cb,
		       struct xfsj_fault *f);

#endif
