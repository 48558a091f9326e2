/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The replay pipeline in one call (replay.h): the order of the steps, the
 * devices and files they use, and where each stops.  The steps themselves
 * are the log reader's (logread.h), the recovery's (recover.h, finish.h)
 * and the redo file's (redo.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/overlay.h"
#include "xfsj/fs.h"
#include "xfsj/redo.h"
#include "xfsj/replay.h"
#include "xfsj/undo.h"

struct xfsj_replay {
	struct xfsj_log *log;
	struct xfsj_io *cio;		/* data and external log as one */
	struct xfsj_overlay *ov;
	struct xfsj_recover *rc;
};

/* One replay call in progress. */
struct run {
	struct xfsj_replay st;
	const struct xfsj_replay_opts *o;
	const struct xfsj_replay_cb *cb;
	struct xfsj_replay_result *res;
	struct xfsj_io *io;		/* what the overlay covers */
	uint64_t log_base;		/* byte offset of log block 0 in @io */
	int pass;
	uint32_t done_bb, total_bb;
	/* The fault of the current pass, and the transaction it came from. */
	struct xfsj_fault fault;
	bool fault_in_trans;
	uint64_t fault_lsn;
	uint32_t fault_blk;
	/* Salvage: replaying again, without the leftover work; quiet. */
	bool again;
	/* Salvage: the damaged stretches the first walk skipped. */
	struct xfsj_log_damage *dmg;
	uint32_t ndmg, capdmg;
};

static struct xfsj_redo_cb redo_cb(const struct run *run)
{
	struct xfsj_redo_cb rcb = { run->cb->page, run->cb->arg };

	return rcb;
}

/*
 * Fill @f and its reason; return @err as a negative code, as it came (an
 * I/O backend's code is passed on untouched).
 */
static int stop(struct xfsj_fault *f, enum xfsj_fault_reason why, int err,
		const char *structure, const char *field, uint64_t offset,
		uint64_t value)
{
	xfsj_fault_set(f, err, structure, field, offset, value);
	return xfsj_fault_reason(f, why, err < 0 ? err : -err);
}

/* ---- opening ---- */

/* The external log sits in the overlay's device past the data, page aligned. */
static uint64_t ext_log_base(const struct xfsj_io *io)
{
	return (io->size + XFSJ_OVL_PAGE - 1) / XFSJ_OVL_PAGE * XFSJ_OVL_PAGE;
}

/*
 * Open the log, and with an external log join both devices so that one
 * overlay and one redo file cover them: a killed run has then touched
 * neither or can finish both.
 */
static int open_devices(struct run *run, struct xfsj_io *io,
			struct xfsj_io *logio)
{
	struct xfsj_fault *f = &run->res->fault;
	const struct xfsj_log_geom *lg;
	int err;

	err = xfsj_log_open(io, logio, 0, &run->st.log, f);
	if (err)
		return err;
	lg = xfsj_log_geom(run->st.log);
	if (logio && !lg->external)
		return stop(f, XFSJ_FR_LOG_NOT_EXTERNAL, XFSJ_E_INVAL,
			    "superblock", "sb_logstart", XFSJ_SB_OFF(logstart),
			    lg->sb.logstart);
	run->io = io;
	run->log_base = lg->dev_off;
	if (logio) {
		run->log_base = ext_log_base(io);
		err = xfsj_io_concat(io, logio, run->log_base, &run->st.cio);
		if (err)
			return stop(f, XFSJ_FR_NONE, err, NULL, NULL, 0, 0);
		run->io = run->st.cio;
	}
	if (lg->sb.features_incompat & ~XFSJ_INCOMPAT_ALL)
		return stop(f, XFSJ_FR_FEATURES_UNKNOWN, XFSJ_E_UNSUPP,
			    "superblock", "sb_features_incompat",
			    XFSJ_SB_OFF(features_incompat),
			    lg->sb.features_incompat);
	if (lg->sb.features_log_incompat & ~XFSJ_LOG_INCOMPAT_XATTRS)
		return stop(f, XFSJ_FR_FEATURES_UNKNOWN, XFSJ_E_UNSUPP,
			    "superblock", "sb_features_log_incompat",
			    XFSJ_SB_OFF(features_log_incompat),
			    lg->sb.features_log_incompat);
	return 0;
}

void xfsj_replay_redo_default(const uint8_t *uuid, const char *dir, char *buf,
			      size_t len)
{
	char u[33];

	for (int i = 0; i < 16; i++)
		snprintf(u + 2 * i, 3, "%02x", uuid[i]);
	snprintf(buf, len, XFSJ_REPLAY_REDO_NAME,
		 dir ? dir : XFSJ_REPLAY_REDO_DIR, u);
}

static void redo_path(struct run *run)
{
	const struct xfsj_sb *sb = &xfsj_log_geom(run->st.log)->sb;

	if (run->o->redo)
		snprintf(run->res->redo, sizeof(run->res->redo), "%s",
			 run->o->redo);
	else
		xfsj_replay_redo_default(sb->uuid, run->o->redo_dir,
					 run->res->redo,
					 sizeof(run->res->redo));
}

/*
 * An earlier run that was killed while writing finishes first; the log
 * it cleaned is then looked at again.  With nomodify it is only reported.
 */
static int finish_interrupted(struct run *run, struct xfsj_io *io,
			      struct xfsj_io *logio)
{
	const struct xfsj_log_geom *lg = xfsj_log_geom(run->st.log);
	struct xfsj_redo_cb rcb = redo_cb(run);
	struct xfsj_fault *f = &run->res->fault;
	const char *redo = run->res->redo;
	uint64_t pages;
	bool applied;
	int err;

	if (run->o->nomodify) {
		if (access(redo, F_OK) == 0 && run->cb->redo_waiting)
			run->cb->redo_waiting(run->cb->arg, redo);
		return 0;
	}
	if (run->o->undo) {
		/* Keep the undo file of the interrupted run, or stop. */
		bool ok;

		err = xfsj_redo_undo_check(redo, run->o->undo, run->io,
					   lg->sb.uuid, &ok);
		if (err)
			return stop(f, XFSJ_FR_REDO_FINISH, err, "redo file",
				    "apply", 0, 0);
		if (!ok)
			return stop(f, XFSJ_FR_UNDO_MISMATCH, XFSJ_E_CONFLICT,
				    "undo file", "tag", 0, 0);
	}
	err = xfsj_redo_apply(redo, run->io, lg->sb.uuid, &applied, &pages,
			      &rcb);
	if (err)
		return stop(f, XFSJ_FR_REDO_FINISH, err, "redo file", "apply",
			    0, 0);
	if (!applied)
		return 0;
	if (run->cb->redo_finished)
		run->cb->redo_finished(run->cb->arg, redo, pages);
	xfsj_log_close(run->st.log);
	run->st.log = NULL;
	return xfsj_log_open(io, logio, 0, &run->st.log, f);
}

/* ---- passes 1 and 2 ---- */

static int on_record(void *arg, const struct xfsj_log_rec *r)
{
	struct run *run = arg;

	run->done_bb += r->hblks + r->data_bbs;
	if (run->cb->record)
		run->cb->record(run->cb->arg, run->pass, run->done_bb,
				run->total_bb);
	return 0;
}

/* Salvage: a transaction whose checkpoint lost a record is not replayed. */
static int on_lost(struct run *run, const struct xfsj_log_trans *t)
{
	struct xfsj_salvage_summary *sv = &run->res->salvage;
	struct xfsj_salvage_trans st;
	uint64_t hi = t->commit_lsn > t->rt.lsn ? t->commit_lsn : t->rt.lsn;
	int err;

	if (run->pass != 2 || run->again)
		return 0;
	sv->lost++;
	if (!sv->lost_lsn_lo || t->rt.lsn < sv->lost_lsn_lo)
		sv->lost_lsn_lo = t->rt.lsn;
	if (hi > sv->lost_lsn_hi)
		sv->lost_lsn_hi = hi;
	if (!run->cb->lost)
		return 0;
	err = xfsj_salvage_collect(t, &st);
	if (err)
		return xfsj_fault_set(&run->fault, err, "recovery", "salvage",
				      0, 0);
	run->cb->lost(run->cb->arg, &st);
	xfsj_salvage_trans_free(&st);
	return 0;
}

static int on_damage(void *arg, const struct xfsj_log_damage *d)
{
	struct run *run = arg;
	struct xfsj_salvage_summary *sv = &run->res->salvage;

	if (run->pass != 1 || run->again)
		return 0;
	if (run->ndmg == run->capdmg) {
		uint32_t cap = run->capdmg ? 2 * run->capdmg : 4;
		struct xfsj_log_damage *n = realloc(run->dmg, cap * sizeof(*n));

		if (!n)
			return xfsj_fault_set(&run->fault, XFSJ_E_NOMEM,
					      "recovery", "salvage", 0, 0);
		run->dmg = n;
		run->capdmg = cap;
	}
	run->dmg[run->ndmg++] = *d;
	if (!sv->ndamage++)
		sv->first = *d;
	if (run->cb->damage)
		run->cb->damage(run->cb->arg, d);
	return 0;
}

static int on_trans(void *arg, const struct xfsj_log_trans *t)
{
	struct run *run = arg;
	const struct xfsj_salvage_summary *sv = &run->res->salvage;
	int err;

	if (t->partial)
		return on_lost(run, t);
	if (run->pass == 2 && sv->ndamage &&
	    t->rt.lsn > sv->first.prev_lsn)
		run->res->salvage.kept_after++;
	if (run->pass == 1)
		err = xfsj_recover_pass1(run->st.rc, &t->rt, &run->fault);
	else
		err = xfsj_recover_pass2(run->st.rc, &t->rt, &run->fault);
	if (err) {
		run->fault_in_trans = true;
		run->fault_lsn = t->rt.lsn;
		run->fault_blk = t->start_blk;
	}
	return err;
}

static int on_fault(void *arg, const struct xfsj_fault *f, uint32_t blk)
{
	struct run *run = arg;

	(void)blk;
	/* Salvage: the walk skips the damage and says so (on_damage). */
	if (run->o->salvage)
		return 0;
	run->fault = *f;
	return f->err ? -f->err : -XFSJ_E_CORRUPT;	/* a corrupt live log stops */
}

static int pass(struct run *run, int n)
{
	struct xfsj_log_visitor v = {
		.arg = run,
		.record = on_record,
		.trans = on_trans,
		.fault = on_fault,
		.damage = on_damage,
		.flags = run->o->salvage ? XFSJ_LOGW_SALVAGE : 0,
	};
	struct xfsj_replay_result *res = run->res;
	struct xfsj_fault f = { 0 };
	int err;

	run->pass = n;
	run->done_bb = 0;
	memset(&run->fault, 0, sizeof(run->fault));
	run->fault_in_trans = false;
	err = xfsj_log_walk_live(run->st.log, &v, &f);
	if (run->cb->pass_done)
		run->cb->pass_done(run->cb->arg, n);
	if (!err)
		return 0;
	/* The item's own fault where there is one, else the walk's. */
	res->fault = run->fault.structure ? run->fault : f;
	if (run->fault_in_trans && run->fault.structure) {
		res->in_trans = true;
		res->trans_lsn = run->fault_lsn;
		res->trans_blk = run->fault_blk;
	}
	return err;
}

/* ---- the work the log leaves ---- */

static void on_leftover(void *arg, const struct xfsj_leftover *l)
{
	const struct xfsj_replay_cb *cb = arg;

	if (cb->leftover)
		cb->leftover(cb->arg, l);
}

/*
 * What the kernel does at mount after replaying: finish the pending
 * intents, the unlinked inodes and the CoW staging extents.  The work is
 * stamped with the LSN of the clean log about to be written at the head,
 * which no later mount can see as being in the future.
 */
static int finish(struct run *run)
{
	struct xfsj_replay_result *res = run->res;
	struct xfsj_fault *f = &res->fault;
	struct xfsj_fs *fs = NULL;
	uint16_t type = 0;
	int err, left;

	left = xfsj_recover_leftovers(run->st.rc, on_leftover,
				      (void *)run->cb);
	if (left <= 0)
		return left;
	err = xfsj_finish_supported(run->st.rc, &type);
	if (err < 0)
		return err;
	if (err) {
		res->intent_type = type;
		return stop(f, XFSJ_FR_INTENT_UNSUPP, XFSJ_E_UNSUPP,
			    "log item", "type", 0, type);
	}
	/* The geometry as the replay left it (a growfs may be in the log). */
	err = xfsj_fs_open(run->st.ov, xfsj_recover_sb(run->st.rc),
			   xfsj_lsn(res->ht.cycle, res->ht.head_blk), &fs);
	if (!err && run->o->have_now)
		xfsj_fs_set_now(fs, run->o->now_sec, 0);
	if (!err)
		err = xfsj_finish_all(run->st.rc, fs, &res->finish, f);
	xfsj_fs_close(fs);
	if (err) {
		if (!f->structure)
			xfsj_fault_set(f, err, "recovery", "finish", 0, 0);
		/* Nothing is written: the kernel can still finish it. */
		if (err == -XFSJ_E_UNSUPP)
			xfsj_fault_reason(f, XFSJ_FR_WORK_UNSUPP, 0);
		return err;
	}
	if (run->cb->finished)
		run->cb->finished(run->cb->arg, &res->finish);
	return 0;
}

/* ---- committing ---- */

/*
 * Salvage: every stretch the walk skipped is made header-only blocks of
 * the cycle the log has there.  A lost stretch still holds an older cycle,
 * and the kernel's head search, meeting it in front of the clean log,
 * would take it for the head (a dirty log ending there) and replay again
 * what came before it.
 */
static int restamp_damage(struct run *run)
{
	const struct xfsj_log_ht *ht = &run->res->ht;

	for (uint32_t i = 0; i < run->ndmg; i++) {
		const struct xfsj_log_damage *d = &run->dmg[i];
		/* (no good record before it: the tail's cycle and block) */
		uint64_t from = d->prev_lsn ? d->prev_lsn :
				(uint64_t)xfsj_lsn_cycle(ht->tail_lsn) << 32 |
				ht->tail_blk;
		uint32_t c = xfsj_lsn_cycle_at(from, d->bad_blk);
		int err;

		err = xfsj_log_restamp(run->st.ov,
				       &xfsj_log_geom(run->st.log)->sb,
				       run->log_base, d->bad_blk,
				       d->skipped_bbs, c, ht->head_blk,
				       ht->cycle, &run->res->fault);
		if (err)
			return err;
	}
	return 0;
}

static int commit(struct run *run)
{
	const struct xfsj_log_geom *lg = xfsj_log_geom(run->st.log);
	struct xfsj_replay_result *res = run->res;
	struct xfsj_redo_cb rcb = redo_cb(run);
	struct xfsj_fault *f = &res->fault;
	enum xfsj_commit_step step = XFSJ_COMMIT_COPY;
	int err;

	err = xfsj_recover_update_sb(run->st.rc, f);
	if (!err)
		err = xfsj_log_write_clean(run->st.ov, &lg->sb, run->log_base,
					   res->ht.head_blk, res->ht.cycle, f);
	if (!err)
		err = restamp_damage(run);
	if (err)
		return err;
	if (run->o->nomodify || run->o->defer_commit) {
		res->pages = xfsj_overlay_dirty_pages(run->st.ov);
		return 0;
	}
	err = xfsj_redo_commit_undo(res->redo, run->o->undo, run->st.ov,
				    lg->sb.uuid, &res->pages, &step, &rcb);
	if (err && step == XFSJ_COMMIT_UNDO)
		return stop(f, XFSJ_FR_UNDO_SAVE, err, "undo file", "save",
			    0, 0);
	if (err && step == XFSJ_COMMIT_SAVE)
		return stop(f, XFSJ_FR_REDO_SAVE, err, "redo file", "save",
			    0, 0);
	if (err)
		return stop(f, XFSJ_FR_REDO_COMMIT, err, "redo file", "apply",
			    0, 0);
	res->written = true;
	return 0;
}

/* ---- the pipeline ---- */

/* Passes 1 and 2 into a new overlay. */
static int replay_passes(struct run *run)
{
	const struct xfsj_log_geom *lg = xfsj_log_geom(run->st.log);
	struct xfsj_replay_result *res = run->res;
	int err;

	err = xfsj_overlay_create(run->io, &run->st.ov);
	if (!err)
		err = xfsj_recover_create(run->st.ov, &lg->sb, &run->st.rc);
	if (err)
		return err;
	xfsj_recover_salvage(run->st.rc, run->o->salvage);
	run->total_bb = xfsj_log_distance(run->st.log, res->ht.tail_blk,
					  res->ht.head_blk);
	err = pass(run, 1);
	if (!err)
		err = pass(run, 2);
	if (err)
		return err;
	res->stats = *xfsj_recover_stats(run->st.rc);
	res->salvage.kept = res->stats.trans;
	res->salvage.passed = res->stats.salvage_passed;
	res->salvage.clusters = res->stats.salvage_clusters;
	res->salvage.inodes_kept = res->stats.salvage_inodes_kept;
	return 0;
}

/*
 * Salvage: the leftover work could not be finished on what was replayed
 * (an intent whose done item, or whose effect, a lost checkpoint held).
 * Nothing is written yet: replay again and leave the work undone, as
 * xfs_repair -L leaves it; the repair that follows makes the metadata
 * agree again.
 */
static bool salvage_again(struct run *run, int err)
{
	struct xfsj_replay_result *res = run->res;

	if (!run->o->salvage || run->again || err == -XFSJ_E_NOMEM ||
	    err == -XFSJ_E_IO || err == -XFSJ_E_SHORTIO)
		return false;
	res->salvage.unfinished = res->salvage.ndamage ? 1 : 0;
	if (!res->salvage.unfinished)
		return false;
	xfsj_recover_free(run->st.rc);
	xfsj_overlay_free(run->st.ov);
	run->st.rc = NULL;
	run->st.ov = NULL;
	memset(&res->fault, 0, sizeof(res->fault));
	memset(&res->finish, 0, sizeof(res->finish));
	res->salvage.kept_after = 0;
	res->salvage.unfinished_err = -err;
	run->again = true;
	return true;
}

static int replay_dirty(struct run *run)
{
	struct xfsj_replay_result *res = run->res;
	int err;

	err = replay_passes(run);
	if (err)
		return err;
	if (run->cb->replayed)
		run->cb->replayed(run->cb->arg, &res->stats);
	err = finish(run);
	if (err && salvage_again(run, err))
		err = replay_passes(run);
	if (!err)
		err = commit(run);
	return err;
}

static int replay_log(struct run *run, struct xfsj_io *io,
		      struct xfsj_io *logio)
{
	struct xfsj_replay_result *res = run->res;
	struct xfsj_log_ht *ht = &res->ht;
	int err;

	err = open_devices(run, io, logio);
	if (err)
		return err;
	redo_path(run);
	err = finish_interrupted(run, io, logio);
	if (err)
		return err;
	err = xfsj_log_find_head_tail_ex(run->st.log, ht, XFSJ_HT_FIND_LOST,
					 &res->fault);
	if (err)
		return err;
	if ((ht->verify_failed || ht->lost) && !run->o->salvage) {
		/*
		 * A bad record in the middle of the live log, too far from
		 * the head to be a torn write: the kernel refuses to mount,
		 * and replaying around it would skip committed changes.  Or
		 * a lost stretch with records after it: the kernel would
		 * stop there and drop them without a word.
		 */
		uint32_t bad = ht->lost ? ht->lost_blk : ht->bad_blk;

		return stop(&res->fault, XFSJ_FR_LOG_CORRUPT_MIDDLE,
			    XFSJ_E_CORRUPT, "log", "record",
			    xfsj_log_geom(run->st.log)->dev_off +
			    (uint64_t)bad * XFSJ_BBSIZE, bad);
	}
	res->dirty = !(ht->clean || ht->zeroed || ht->head_blk == ht->tail_blk);
	if (run->cb->log_found)
		run->cb->log_found(run->cb->arg, ht, res->dirty);
	if (!res->dirty)
		return 0;
	return replay_dirty(run);
}

static void state_free(struct xfsj_replay *st)
{
	xfsj_recover_free(st->rc);
	xfsj_overlay_free(st->ov);
	xfsj_log_close(st->log);
	xfsj_io_close(st->cio);
}

int xfsj_replay(struct xfsj_io *io, struct xfsj_io *logio,
		const struct xfsj_replay_opts *o,
		const struct xfsj_replay_cb *cb,
		struct xfsj_replay_result *res, struct xfsj_replay **keep)
{
	static const struct xfsj_replay_cb nocb;
	static const struct xfsj_replay_opts noopts;
	struct run run = {
		.o = o ? o : &noopts,
		.cb = cb ? cb : &nocb,
		.res = res,
	};
	int err;

	memset(res, 0, sizeof(*res));
	if (keep)
		*keep = NULL;
	err = replay_log(&run, io, logio);
	/* A caller going on from a clean log gets an overlay all the same. */
	if (!err && keep && !run.st.ov) {
		err = xfsj_overlay_create(run.io, &run.st.ov);
		if (err)
			xfsj_fault_set(&res->fault, err, NULL, NULL, 0, 0);
	}
	if (!err && keep) {
		*keep = malloc(sizeof(**keep));
		if (*keep) {
			**keep = run.st;
			free(run.dmg);
			return 0;
		}
		err = xfsj_fault_set(&res->fault, XFSJ_E_NOMEM, NULL, NULL,
				     0, 0);
	}
	free(run.dmg);
	state_free(&run.st);
	return err;
}

struct xfsj_overlay *xfsj_replay_overlay(struct xfsj_replay *r)
{
	return r->ov;
}

const struct xfsj_sb *xfsj_replay_sb(const struct xfsj_replay *r)
{
	return r->rc ? xfsj_recover_sb(r->rc) : &xfsj_log_geom(r->log)->sb;
}

struct xfsj_log *xfsj_replay_log(struct xfsj_replay *r)
{
	return r->log;
}

struct xfsj_recover *xfsj_replay_recover(struct xfsj_replay *r)
{
	return r->rc;
}

void xfsj_replay_free(struct xfsj_replay *r)
{
	if (!r)
		return;
	state_free(r);
	free(r);
}
