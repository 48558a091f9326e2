/* SPDX-License-Identifier: GPL-2.0-or-later */
/* xfsj-repair's parts: the replay (repair.c) and the check's wording. */
#ifndef XFSJ_REPAIR_TOOL_H
#define XFSJ_REPAIR_TOOL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "xfsj/check.h"
#include "xfsj/progress.h"
#include "xfsj/redo.h"
#include "xfsj/replay.h"
#include "xfsj/spill.h"

enum check_outcome { CHECK_CLEAN, CHECK_PROBLEMS, CHECK_FAILED };

/*
 * check_out.c: the JSON summary's ,"work":{...} of the work counters
 * @work (enum xfsj_check_work), with the whole and local checks a repair
 * ran when either is not 0.
 */
void print_work(const uint64_t *work, unsigned int full, unsigned int local);

/* Milliseconds of the monotonic clock. */
uint64_t now_ms(void);

/*
 * Progress on stderr in the run's form (xfsj/progress.h): a line per
 * phase on a terminal, JSON Lines with --progress, nothing otherwise;
 * a terminal line is erased before anything else is printed.
 */
struct progress_line {
	struct xfsj_progress p;
};
#define PROGRESS_LINE(fm) { .p = { .form = (fm), .tool = "xfsj-repair" } }
/* The form of the run: --progress asked for it, stderr a terminal. */
enum xfsj_progress_form progress_form(bool asked);
void progress_step(struct progress_line *pl, const char *phase,
		   uint64_t done, uint64_t total);
void progress_show(struct progress_line *pl, enum xfsj_check_phase ph,
		   uint64_t done, uint64_t total);
void progress_clear(struct progress_line *pl);
void progress_end(struct progress_line *pl);

/*
 * Check the filesystem the replay @keep left in its overlay (@lsn: the
 * replay's head, or 0 after a clean log): one line per root problem on
 * stdout with a count of its consequences (@verbose: each of them, as
 * group_out.c says; JSON Lines with @json, each problem as found, then a
 * summary object), progress on stderr when
 * @progress, other words on @txt.  @cache_bytes bounds the buffer cache
 * (0: the library's default); @threads check the AGs, or one for every
 * @ag_stride AGs, at most @threads (xfsj_check_opts); @spill bounds the
 * tables (NULL: no bound).
 */
enum check_outcome check_replayed(const char *dev, struct xfsj_replay *keep,
				  uint64_t lsn, bool json, bool verbose,
				  enum xfsj_progress_form progress,
				  uint64_t cache_bytes, unsigned int threads,
				  unsigned int ag_stride, struct xfsj_spill *spill,
				  FILE *txt);

/*
 * When the check failed because the scratch file of its tables could not
 * hold them (xfsj/spill.h): say so in one line (the file, what did not
 * fit, why) and return true; false when that was not why.
 */
bool spill_failure(const char *dev, struct xfsj_spill *spill);

/* --list-problems: the problem table, one row a line (JSON Lines). */
void list_problems(bool json, FILE *f);

/*
 * -n, when the log cannot be replayed because it or the primary
 * superblock is damaged: report that as a problem (@f the replay's
 * fault), then check the superblocks as they are on disk.  Returns
 * CHECK_PROBLEMS, or CHECK_FAILED when not even that could run.
 */
enum check_outcome check_unreplayable(const char *dev, struct xfsj_io *io,
				      const struct xfsj_fault *f, bool json,
				      FILE *txt);

/* One problem as a JSON object of kind "problem" whose "state" is @tag
 * ("found" when NULL); the text goes through group_out.c. */
void print_problem_json(const struct xfsj_problem *p, const char *tag);

/*
 * group_out.c: the text of one check's problems, held until it ends, then
 * each root problem in a line ("TAG: " first when @tag) with what follows
 * from it (the problems whose cause it is) under it: one line counting
 * them by code, or with @verbose their own lines, indented.
 */
struct group_root;
struct problem_group {
	const char *tag;
	bool verbose;
	struct group_root *roots;	/* by problem number */
	size_t n, cap;
};
void group_add(struct problem_group *g, const struct xfsj_problem *p);
/* Print what was added and forget it. */
void group_flush(struct problem_group *g);
/* Room for one more of @n elements of @esz bytes in *@arrp (of *@cap):
 * 0, or -1 out of memory (the array untouched). */
int tool_grow(void *arrp, size_t *cap, size_t n, size_t esz);
/* A JSON string of @n bytes, escaped. */
void json_str(FILE *f, const char *s, size_t n);
/* ,"ag":..,"agbno":..,"ino":.. as @has (XFSJ_PF_*) says, on stdout. */
void json_place(unsigned int has, uint32_t agno, uint32_t agbno, uint64_t ino);
/* ,"field":"..." unless @field is NULL, on stdout. */
void json_field(const char *field);

/* What the repair's wording needs of the options. */
struct repair_args {
	const char *device;
	bool json;
	bool verbose;
	enum xfsj_progress_form progress;
	bool preen;
	bool force_worse;	/* --force: past the never-worse gate */
	uint64_t cache_bytes;
	struct xfsj_spill *spill;	/* the tables' bound, or NULL */
	unsigned int threads, ag_stride;	/* the whole checks' */
	FILE *txt;
	struct xfsj_redo_cb rcb;	/* each page written */
	const char *undo;		/* -U: the run's undo file, or NULL */
	bool *written;			/* set when the device was written */
	/*
	 * -n: the fixes stay in the overlay, handed back here (commit
	 * nothing, and no summary: the check that follows gives it).
	 */
	struct xfsj_overlay **dry;
};

enum repair_outcome {
	REPAIR_NOTHING,		/* the check found nothing to fix */
	REPAIR_FIXED,		/* fixed, the final check is clean */
	REPAIR_LEFT,		/* some problems are left */
	REPAIR_PREEN_REFUSED,	/* -p: needs a person; nothing fixed */
	REPAIR_WORSE,		/* the final check weighs more than the
				 * first: nothing written (no --force) */
	REPAIR_FAILED,		/* could not run or write */
};

/*
 * Repair the filesystem the replay @keep left in its overlay (@lsn: the
 * log head the repaired blocks are stamped with), then commit the replay
 * and the repair through the redo file @redo.
 */
enum repair_outcome run_repair(const struct repair_args *a,
			       struct xfsj_replay *keep, uint64_t lsn,
			       const char *redo);

/*
 * Before a replay that could not start because the primary superblock's
 * geometry is wrong: check the superblocks of the device behind @io as
 * they are, restore the primary from the secondaries and commit that
 * alone through @redo (NULL: the default for the filesystem's uuid, in
 * @redo_dir or the default directory).  REPAIR_FIXED when something was
 * written.
 */
enum repair_outcome repair_primary(const struct repair_args *a,
				   struct xfsj_io *io, const char *redo,
				   const char *redo_dir);

/*
 * Nothing could be checked or repaired, for a reason said in one line
 * (@why) on stderr; with @json, the summary object with error @code.
 */
void print_refusal(const char *dev, bool json, bool nomodify,
		   const char *code, const char *why);

/*
 * -O: make @path a copy of @src (a new sparse image file, an existing one
 * only with @force, or a block device at least as large; never the file
 * @src_path itself) and open it in *@out for the run to write instead of
 * @src.  @what names it in messages ("copy", "log copy").  False, after
 * saying why on stderr, when it cannot; a file it created is removed.
 */
bool copy_to_output(struct xfsj_io *src, const char *src_path,
		    const char *path, const char *what, bool force,
		    enum xfsj_progress_form progress, FILE *txt,
		    struct xfsj_io **out);

/*
 * The whole of xfsj-repair (repair.c): its options in @argv, its exit
 * code returned; fsck.xfsj calls it with the options it maps fsck(8)'s
 * onto.  After it, @repair_log_replayed says whether a dirty log was
 * replayed (or an interrupted run finished from its redo file): the
 * device was written even when the check then found nothing.
 */
int repair_main(int argc, char **argv);
extern bool repair_log_replayed;
/*
 * The name its messages begin with ("xfsj-repair"; fsck.xfsj's when it
 * runs it), and what a preen that stops says to run instead.
 */
extern const char *repair_prog;
extern const char *repair_full_repair;
/* "PROG: " and the message, on stderr. */
void tool_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* --salvage: the loss report (salvage_out.c). */
struct salvage_out {
	const char *device;
	bool json;		/* JSON Lines objects on stdout */
	FILE *txt;
};
void salvage_print_damage(const struct salvage_out *so,
			  const struct xfsj_log_damage *d);
void salvage_print_lost(const struct salvage_out *so,
			const struct xfsj_salvage_trans *t);
void salvage_print_summary(const struct salvage_out *so,
			   const struct xfsj_salvage_summary *sv,
			   const struct xfsj_log_ht *ht);

#endif
