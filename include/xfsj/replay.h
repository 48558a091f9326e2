/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The replay as one call: what the kernel's log recovery does at mount,
 * in user space, from opening the log to a clean log on the device.
 *
 * In order: open the log (internal, or external on @logio, which then
 * joins the data device behind one overlay and one redo file); finish an
 * earlier run that was killed while committing (its redo file); find head
 * and tail; pass 1 (cancellation) and pass 2 (replay into a page overlay);
 * list the work the log leaves (intents without their done item, inodes
 * on the AGI unlinked lists, CoW staging extents) and finish it as the
 * kernel does, unless some of it is in a form this version cannot finish
 * (then nothing is written); recompute the summary counters; write a
 * clean log into the overlay; save the overlay to the redo file, sync,
 * copy it onto the device(s), sync, remove the redo file.  With
 * `nomodify` it stops before the redo file: nothing is ever written.
 *
 * The caller words everything: the callbacks report each step as it
 * happens, the result says how it ended.  A checker or repairer that runs
 * after the replay can keep the state (the overlay over the replayed
 * device, the recovery's geometry) instead of reading the device again.
 */
#ifndef XFSJ_REPLAY_H
#define XFSJ_REPLAY_H

#include <stdbool.h>
#include <stdint.h>

#include "xfsj/errors.h"
#include "xfsj/finish.h"
#include "xfsj/io.h"
#include "xfsj/logread.h"
#include "xfsj/recover.h"
#include "xfsj/salvage.h"

/*
 * Where an interrupted replay of the filesystem with this UUID (32 hex
 * digits) waits when the caller names no redo file: in @dir, by default
 * XFSJ_REPLAY_REDO_DIR.
 */
#define XFSJ_REPLAY_REDO_DIR	"/var/tmp"
#define XFSJ_REPLAY_REDO_NAME	"%s/xfsj-repair.%s.redo"	/* dir, uuid */
/* The default redo file of the filesystem with @uuid (16 bytes) in @dir
 * (NULL: XFSJ_REPLAY_REDO_DIR). */
void xfsj_replay_redo_default(const uint8_t *uuid, const char *dir, char *buf,
			      size_t len);

struct xfsj_replay_opts {
	/*
	 * Undo file (xfsj/undo.h), or NULL for none: the old contents of
	 * every page the commit writes are saved there first.  An
	 * interrupted run is finished only if this is its complete undo
	 * file (else XFSJ_FR_UNDO_MISMATCH, nothing written).
	 */
	const char *undo;
	bool nomodify;		/* replay in memory only, write nothing */
	const char *redo;	/* redo file, or NULL for the default */
	const char *redo_dir;	/* the default's directory (NULL: /var/tmp) */
	/*
	 * Everything but the commit: an interrupted run is finished from its
	 * redo file and the replay is done into the overlay, clean log
	 * included, but not written; the caller (a repair going on from the
	 * replayed state, @keep) commits the overlay itself.
	 */
	bool defer_commit;
	/*
	 * Salvage a log damaged in the middle (xfsj/salvage.h): instead of
	 * refusing it, replay every complete checkpoint before the damage
	 * and every later one whose records all hold; the checkpoints that
	 * lost a record are reported (cb->lost) and not replayed.
	 */
	bool salvage;
	/*
	 * The time stamped where the kernel's recovery stamps its clock (a
	 * short-form xattr added while finishing an ATTRI): @now_sec when
	 * @have_now (reproducible runs), else the clock at that moment.
	 */
	bool have_now;
	int64_t now_sec;
};

/* Every member may be NULL. */
struct xfsj_replay_cb {
	void *arg;
	/* An earlier run was finished from its redo file (@pages of 4 KiB). */
	void (*redo_finished)(void *arg, const char *path, uint64_t pages);
	/* nomodify: an interrupted run waits in @path (left alone). */
	void (*redo_waiting)(void *arg, const char *path);
	/* Head and tail found; @dirty: there is something to replay. */
	void (*log_found)(void *arg, const struct xfsj_log_ht *ht, bool dirty);
	/* Progress of pass 1 or 2: log blocks read of those tail to head. */
	void (*record)(void *arg, int pass, uint32_t done_bb,
		       uint32_t total_bb);
	/* Pass 1 or 2 ended (well or not). */
	void (*pass_done)(void *arg, int pass);
	/* Both passes done. */
	void (*replayed)(void *arg, const struct xfsj_recover_stats *st);
	/* Each piece of work the log leaves, before any is finished. */
	void (*leftover)(void *arg, const struct xfsj_leftover *l);
	/* The leftover work was finished (not called when there was none). */
	void (*finished)(void *arg, const struct xfsj_finish_stats *st);
	/* Each page saved to or applied from a redo file. */
	void (*page)(void *arg, uint64_t done, uint64_t total);
	/* Salvage: a damaged stretch of the log skipped (pass 1). */
	void (*damage)(void *arg, const struct xfsj_log_damage *d);
	/* Salvage: a transaction not replayed (pass 2), in log order. */
	void (*lost)(void *arg, const struct xfsj_salvage_trans *t);
};

/*
 * How it ended.  On an error, fault.reason says which of the refusals it
 * is (XFSJ_FR_EXTLOG_NEEDED, XFSJ_FR_LOG_PAST_END, XFSJ_FR_LOG_NOT_EXTERNAL,
 * XFSJ_FR_FEATURES_UNKNOWN, XFSJ_FR_LOG_CORRUPT_MIDDLE, XFSJ_FR_INTENT_UNSUPP,
 * XFSJ_FR_WORK_UNSUPP, XFSJ_FR_REDO_FINISH, XFSJ_FR_REDO_SAVE,
 * XFSJ_FR_REDO_COMMIT, XFSJ_FR_UNDO_SAVE, XFSJ_FR_UNDO_MISMATCH), or XFSJ_FR_NONE with the structure and field that
 * failed.
 */
struct xfsj_replay_result {
	struct xfsj_fault fault;
	struct xfsj_log_ht ht;		/* head and tail, once found */
	bool dirty;			/* the log needed a replay */
	bool written;			/* ... and it is on the device */
	uint64_t pages;			/* 4 KiB blocks written (nomodify:
					 * that would be) */
	char redo[512];			/* the redo file */
	/* A log item the replay refused: its transaction. */
	bool in_trans;
	uint64_t trans_lsn;
	uint32_t trans_blk;
	uint16_t intent_type;		/* XFSJ_FR_INTENT_UNSUPP: the first */
	struct xfsj_recover_stats stats;	/* once replayed */
	struct xfsj_finish_stats finish;	/* once finished */
	struct xfsj_salvage_summary salvage;	/* opts.salvage */
};

/* The state a replay leaves, for a caller that goes on. */
struct xfsj_replay;

/*
 * Replay the log of the filesystem on @io (its external log on @logio, or
 * NULL).  Returns 0 when the log was clean or the replay is done (with
 * nomodify: would be done), else a negative XFSJ_E_* with @res->fault
 * filled.  @res is filled in either case.  With @keep non-NULL, a
 * successful call hands over its state there (free it with
 * xfsj_replay_free()); else it is freed.
 */
int xfsj_replay(struct xfsj_io *io, struct xfsj_io *logio,
		const struct xfsj_replay_opts *o,
		const struct xfsj_replay_cb *cb,
		struct xfsj_replay_result *res, struct xfsj_replay **keep);

/* The overlay over the replayed device(s) (nomodify: the changes too). */
struct xfsj_overlay *xfsj_replay_overlay(struct xfsj_replay *r);
/* The geometry after the replay (a growfs may have been in the log). */
const struct xfsj_sb *xfsj_replay_sb(const struct xfsj_replay *r);
/* The log, and the recovery (NULL if the log was clean). */
struct xfsj_log *xfsj_replay_log(struct xfsj_replay *r);
struct xfsj_recover *xfsj_replay_recover(struct xfsj_replay *r);
void xfsj_replay_free(struct xfsj_replay *r);

#endif
