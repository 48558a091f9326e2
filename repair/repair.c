/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * xfsj-repair: bring a filesystem back after a crash by replaying its log
 * in user space as the kernel's log recovery would.
 *
 * The replay is one library call (xfsj/replay.h: open the log, finish an
 * interrupted run, passes 1 and 2, leftover work, counters, clean log,
 * commit through the redo file).  This tool refuses a mounted device,
 * opens the devices, and words what the call reports: progress, the work
 * left, the stats, and how it ended, mapped to the documented exit codes.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "xfsj/check.h"
#include "xfsj/fs.h"
#include "xfsj/logread.h"
#include "xfsj/ondisk.h"
#include "xfsj/replay.h"
#include "xfsj/undo.h"
#include "repair.h"

/* Exit codes (documented in xfsj-repair.8 and --help). */
enum {
	EXIT_CLEAN = 0,		/* nothing to fix (a dirty log replayed);
				 * -n: no problems */
	EXIT_PROBLEMS = 1,	/* -n: problems found (as xfs_repair -n);
				 * else: problems found and all fixed */
	EXIT_DIRTY = 2,		/* -n: the log is dirty and would be replayed;
				 * the replayed filesystem checks clean */
	EXIT_LEFTOVER = 4,	/* problems left uncorrected, or log work
				 * this version cannot finish */
	EXIT_ERROR = 8,		/* could not check, replay or repair: usage,
				 * I/O, corrupt or unsupported log, a feature
				 * this version cannot check */
	EXIT_PREEN = 32,	/* -p: a problem needs a full repair; nothing
				 * but the log replay was written */
};

struct opts {
	const char *device;
	const char *logdev;
	const char *redo;
	const char *undo;		/* -U: undo file of this run */
	const char *undo_apply;		/* --undo-apply */
	bool nomodify;
	bool verbose;
	bool force_progress;
	bool json;
	bool list_problems;
	bool preen;		/* -p */
	bool replay_only;	/* --replay-only: no check, no repair */
	bool compat;		/* --compat: xfs_repair's exit codes */
	bool exit_on_fix;	/* -e: with --compat, 4 when something was
				 * fixed (as xfs_repair -e) */
	bool salvage;		/* --salvage: replay around a damaged record */
	bool log_stuck;		/* the log was left unreplayed: corrupt, or
				 * work this version cannot finish */
	uint64_t cache_bytes;	/* the buffer cache's share of -m; 0: the
				 * default */
	uint64_t bound;		/* -m, in bytes; 0: the default (RAM / 2) */
	const char *tmpdir;	/* --tmpdir: the tables' scratch file's */
	struct xfsj_spill *spill;	/* the tables' bound and scratch file */
	unsigned int threads;	/* --threads of -n's check; 0: the CPUs */
	unsigned int ag_stride;	/* -o ag_stride=N (0: not given) */
	const char *output;	/* -O: write the run into this copy */
	const char *output_log;	/* --output-log (default PATH.log) */
	bool force;		/* -f: with -O, overwrite a non-empty file */
	bool force_worse;	/* --force: commit past the never-worse gate */
	char output_log_buf[4096];
	char output_redo_buf[4096];
	const char *redo_dir;	/* $XFSJ_REDO_DIR: the default redo file's */
};

/* Where the human-readable lines go: stderr when stdout is JSON Lines. */
static FILE *txt;

bool repair_log_replayed;

/* What the callbacks need to word the replay as it goes. */
struct run {
	struct opts *o;
	enum xfsj_progress_form progress;
	struct progress_line pl;	/* the replay's passes */
	long delay;		/* XFSJ_REPAIR_TEST_DELAY_US */
	struct salvage_out so;	/* --salvage: the loss report */
};

static void usage(FILE *out)
{
	fputs(
"Usage: xfsj-repair [-n | -p] [-v] [-m MiB] [--tmpdir DIR] [--json] [-l LOGDEV]\n"
"                   [-r REDOFILE]\n"
"                   [--progress] [--compat [-e]] [-f] [-L] [-P] [-t SECS]\n"
"                   [-o SUBOPT[=VAL]] device\n"
"       xfsj-repair --list-problems [--json]\n"
"       xfsj-repair [options] -U UNDOFILE device\n"
"       xfsj-repair --undo-apply UNDOFILE [-l LOGDEV] device\n"
"       xfsj-repair [options] -O COPY [--output-log LOGCOPY] device\n"
"Replay the dirty log of an XFS filesystem in user space, as the kernel's\n"
"log recovery does, and finish the work it leaves (pending intents, unlinked\n"
"inodes, CoW staging extents); then check every metadata structure and\n"
"repair what is wrong, checking the result again before anything is written.\n"
"Replay and repair reach the device together, through a redo file.\n"
"\n"
"  -n            no modify: replay and check in memory, print one line per\n"
"                problem; the device is never opened for writing\n"
"  -p            preen: fix only what is safe without a person (counters,\n"
"                leaked blocks, unlinked lists); anything else stops with\n"
"                exit 32 and a one-line reason, and nothing but the log\n"
"                replay is written\n"
"  --json        JSON Lines on stdout: one object per problem (-n), or per\n"
"                problem found, fix applied and problem left, then a summary\n"
"                object; other words go to stderr\n"
"  -m MiB        bound the run's memory to MiB mebibytes (default: half the\n"
"                RAM): a quarter for the buffer cache (at most 64 MiB),\n"
"                half for the check's tables in RAM; past that the tables\n"
"                spill to a scratch file (--tmpdir)\n"
"  --tmpdir DIR  where the tables' scratch file goes (made and unlinked at\n"
"                once: nothing is left); default beside the redo file, with\n"
"                -n $TMPDIR or /var/tmp\n"
"  -l LOGDEV     the external log device of a filesystem made with one\n"
"  -U, --undo FILE  undo file: before the device is touched, save there the\n"
"                old contents of every block this run changes (a killed run,\n"
"                run again with the same -U, keeps it)\n"
"  --undo-apply FILE  write the old contents saved in an undo file back onto\n"
"                the device and exit (checks it all first: refuses another\n"
"                filesystem's, an incomplete or damaged one, or a device\n"
"                changed since)\n"
"  -r FILE       redo file (default xfsj-repair.<uuid>.redo in $XFSJ_REDO_DIR,\n"
"                else /var/tmp): the changes are written there and synced\n"
"                before the device is touched, so a killed run finishes\n"
"                when run again\n"
"  -v            verbose: list every piece of leftover log work, each repair\n"
"                round\n"
"  --progress    progress as JSON Lines on stderr (on a terminal without\n"
"                it: one line per phase with the time left)\n"
"  --replay-only replay the log and stop: no check, no repair (the replay\n"
"                as the kernel's mount does it)\n"
"  -O, --output COPY  write the replayed (and repaired) filesystem to COPY,\n"
"                a new sparse image file (an existing non-empty one only\n"
"                with -f) or a block device at least as large; the device\n"
"                (and -l LOGDEV) is opened read-only and never written\n"
"  --output-log LOGCOPY  with -l and -O: where the copy of the log device\n"
"                goes (default COPY.log); it gets the cleaned log\n"
"  --salvage     a log damaged in the middle: replay the checkpoints before\n"
"                the damage and the whole ones after it, report what was\n"
"                not replayed (the loss report), then check and repair\n"
"  --force       commit a repair whose final check weighs more than its\n"
"                first (the never-worse gate writes nothing, exit 4)\n"
"  --compat      exit with xfs_repair's codes (below)\n"
"  -e            with --compat: exit 4 when something was fixed, as\n"
"                xfs_repair -e\n"
"  --threads N   check N AGs at a time, their btrees, inodes and space\n"
"                (default: one per CPU); the output is the same for any N\n"
"  -o ag_stride=N  without --threads: one thread for every N AGs, at\n"
"                most 8 per CPU, as xfs_repair\n"
"  -f, -P, -t SECS, -o bhash=N|ihash=N|phase2_threads=N|force_geometry|noquota\n"
"                accepted for scripts written for xfs_repair; no effect\n"
"  -L            accepted and explained: xfsj replays the log, it never\n"
"                needs to throw it away\n"
"  --list-problems  print the problem table (number, code, severity,\n"
"                structure, fix, message template; JSON Lines with --json)\n"
"  -V, --version print the version and exit\n"
"  -h, --help    this text\n"
"\n"
"Exit status:\n"
"  0   nothing to fix (a dirty log was replayed); -n: no problems\n"
"  1   -n: problems found (as xfs_repair -n); else problems found, all fixed\n"
"  2   -n: the log is dirty; the filesystem its replay leaves checks clean\n"
"  4   problems left uncorrected (what was fixed is written), or log work in\n"
"      a form this version cannot finish yet, or the repair would leave\n"
"      the filesystem worse (nothing was written)\n"
"  8   could not check, replay or repair: usage, I/O error, not XFS, a\n"
"      device shorter than the filesystem, corrupt or unsupported log, a\n"
"      feature this version cannot check, a scratch file (--tmpdir) too\n"
"      small for the tables (nothing written)\n"
"  32  -p: a problem needs a full repair\n"
"With --compat, xfs_repair 6.13's: 0 clean or repaired; 1 -n: problems\n"
"  found or a dirty log; an error, or problems left; 2 the log could not\n"
"  be replayed; 4 -e: something was repaired.\n", out);
}

/* A usage error: the synopsis and where the rest is. */
static void short_usage(void)
{
	fputs("Usage: xfsj-repair [options] device\n"
	      "Try 'xfsj-repair --help' for more information.\n", stderr);
}

/* ---- -O: the run written into a copy of the devices ---- */

enum { OPT_OUTPUT_LOG = 768 };

/* -O's refusals: what it does not go with. */
static bool output_opts_ok(struct opts *o)
{
	if (o->output_log && !o->output) {
		tool_err("--output-log goes with -O\n");
		return false;
	}
	if (!o->output)
		return true;
	if (o->nomodify || o->undo || o->undo_apply) {
		tool_err("-O writes a copy: it goes with neither -n, -U nor --undo-apply\n");
		return false;
	}
	if (o->output_log && !o->logdev) {
		tool_err("--output-log: no external log (-l) to copy\n");
		return false;
	}
	return true;
}

/*
 * The original devices are copied, then closed: the run (replay, repair,
 * redo file) only ever sees the copies.  Its redo file, unless -r, is
 * COPY.redo: the default one, named after the UUID the copy shares with
 * the original, belongs to runs on the original.
 */
static bool open_output(struct opts *o, struct xfsj_io **io,
			struct xfsj_io **logio)
{
	enum xfsj_progress_form progress = progress_form(o->force_progress);
	struct xfsj_io *c = NULL, *lc = NULL;

	if (!o->redo) {
		snprintf(o->output_redo_buf, sizeof(o->output_redo_buf),
			 "%s.redo", o->output);
		o->redo = o->output_redo_buf;
	}
	if (*logio && !o->output_log) {
		snprintf(o->output_log_buf, sizeof(o->output_log_buf), "%s.log",
			 o->output);
		o->output_log = o->output_log_buf;
	}
	/* A redo file left by a run on an earlier copy is stale now. */
	if (access(o->redo, F_OK) == 0) {
		if (!o->force) {
			tool_err("redo file %s of an earlier run exists; the copy is made anew, so -f removes it\n",
				o->redo);
			return false;
		}
		unlink(o->redo);
	}
	if (!copy_to_output(*io, o->device, o->output, "copy", o->force,
			    progress, txt, &c))
		return false;
	if (*logio && !copy_to_output(*logio, o->logdev, o->output_log,
				      "log copy", o->force, progress, txt,
				      &lc)) {
		xfsj_io_close(c);
		return false;
	}
	xfsj_io_close(*logio);
	xfsj_io_close(*io);
	*io = c;
	*logio = lc;
	o->device = o->output;
	o->logdev = o->output_log;
	return true;
}

/* ---- undo files (-U, --undo-apply) ---- */

enum { OPT_UNDO_APPLY = 512 };

/* After a run that wrote the device with -U: where its old contents are. */
static void print_undo_note(const struct opts *o, bool written)
{
	if (o->undo && written)
		fprintf(txt, "%s: the old contents of the blocks written are in undo file %s "
			"(xfsj-repair --undo-apply %s%s%s %s puts them back)\n",
			o->device, o->undo, o->undo, o->logdev ? " -l " : "",
			o->logdev ? o->logdev : "", o->device);
}

/* --undo-apply: the old contents an undo file saved, back onto the device. */
static int undo_apply(const struct opts *o, struct xfsj_io *io,
		      struct xfsj_io *logio)
{
	static const char *const why[] = {
		[XFSJ_UNDO_NOT_UNDO] = "not an undo file",
		[XFSJ_UNDO_VERSION] = "an undo file format this version does not know",
		[XFSJ_UNDO_INCOMPLETE] = "incomplete: the run that wrote it stopped before changing the device",
		[XFSJ_UNDO_TORN] = "damaged (a checksum does not match)",
		[XFSJ_UNDO_OTHER_FS] = "the undo file of another filesystem",
		[XFSJ_UNDO_OTHER_SIZE] = "made for a device of another size",
		[XFSJ_UNDO_CHANGED] = "the filesystem changed since the undo file was written",
	};
	struct xfsj_undo_result res = { 0 };
	struct xfsj_io *dev = io;
	int err = 0;

	if (o->nomodify || o->undo) {
		tool_err("--undo-apply goes with neither -n nor -U\n");
		return EXIT_ERROR;
	}
	if (access(o->undo_apply, R_OK) < 0) {
		tool_err("cannot open undo file %s: %s\n",
			o->undo_apply, strerror(errno));
		return EXIT_ERROR;
	}
	/* An external log sits past the data, page aligned, as in the replay. */
	if (logio)
		err = xfsj_io_concat(io, logio, (io->size + 4095) / 4096 * 4096,
				     &dev);
	if (!err)
		err = xfsj_undo_apply(o->undo_apply, dev, &res, NULL);
	if (logio && dev != io)
		xfsj_io_close(dev);
	if (err && res.refused) {
		tool_err("%s: undo file %s refused, nothing written: %s",
			o->device, o->undo_apply, why[res.refused]);
		if (res.refused == XFSJ_UNDO_CHANGED || res.refused == XFSJ_UNDO_TORN)
			fprintf(stderr, " (block at byte %llu)", (unsigned long long)res.offset);
		fputc('\n', stderr);
		return EXIT_ERROR;
	}
	if (err) {
		tool_err("%s: undo file %s: %s\n", o->device,
			o->undo_apply, xfsj_strerror(err));
		return EXIT_ERROR;
	}
	fprintf(txt, "%s: restored from undo file %s: %llu blocks of 4 KiB, %llu bytes%s\n",
		o->device, o->undo_apply, (unsigned long long)res.pages,
		(unsigned long long)res.bytes,
		res.pages && res.already == res.pages ?
		" (they held their old contents already)" : "");
	return EXIT_CLEAN;
}

static void on_record(void *arg, int pass, uint32_t done_bb,
		      uint32_t total_bb)
{
	struct run *run = arg;
	char phase[32];

	if (!run->progress)
		return;
	/* In 512-byte blocks of the log. */
	snprintf(phase, sizeof(phase), "replay pass %d", pass);
	progress_step(&run->pl, phase, done_bb, total_bb);
}

static void on_pass_done(void *arg, int pass)
{
	struct run *run = arg;
	const struct xfsj_progress *p = &run->pl.p;

	if (!run->progress)
		return;
	on_record(arg, pass, (uint32_t)p->total, (uint32_t)p->total);
	progress_end(&run->pl);
}

static void print_fault(const char *dev, const struct xfsj_fault *f, int err)
{
	if (f->structure)
		tool_err("%s: %s %s at byte %llu: %s\n",
			dev, f->structure, f->field ? f->field : "",
			(unsigned long long)f->offset, xfsj_strerror(err));
	else
		tool_err("%s: %s\n", dev, xfsj_strerror(err));
}

static const char *intent_name(uint16_t type)
{
	const struct xfsj_item_type *k = xfsj_item_type_lookup(type);

	return k ? k->name : "intent";
}

static void show_leftover(void *arg, const struct xfsj_leftover *l)
{
	struct run *run = arg;

	if (!run->o->verbose)
		return;
	if (l->kind == XFSJ_LEFT_INTENT)
		fprintf(txt, "  pending %s id 0x%llx logged at lsn %u:%u\n",
		       intent_name(l->type), (unsigned long long)l->id,
		       xfsj_lsn_cycle(l->lsn), xfsj_lsn_block(l->lsn));
	else if (l->kind == XFSJ_LEFT_UNLINKED)
		fprintf(txt, "  unlinked inodes: AG %u bucket %u starts at agino %u\n",
		       l->agno, l->bucket, l->agino);
	else
		fprintf(txt, "  CoW staging extents to free in AG %u (from agbno %u)\n",
		       l->agno, l->agino);
}

static void print_stats(void *arg, const struct xfsj_recover_stats *st)
{
	(void)arg;
	fprintf(txt, "replayed %llu transactions: %llu buffers (%llu skipped as already on disk, %llu cancelled), "
	       "%llu inodes (%llu skipped), %llu inode chunks created; %llu intents, %llu done\n",
	       (unsigned long long)st->trans,
	       (unsigned long long)st->bufs_replayed,
	       (unsigned long long)st->bufs_skipped_lsn,
	       (unsigned long long)st->bufs_cancelled,
	       (unsigned long long)st->inodes_replayed,
	       (unsigned long long)st->inodes_skipped_lsn,
	       (unsigned long long)st->icreates,
	       (unsigned long long)st->intents,
	       (unsigned long long)st->intents_done);
	if (st->owner_items)
		fprintf(txt, "owner changes (extent swaps): %llu inode items, %llu bmap btree blocks given their new owner, %llu passed over (rewritten later in the log)\n",
		       (unsigned long long)st->owner_items,
		       (unsigned long long)st->owners_changed,
		       (unsigned long long)st->owners_passed);
}

static void print_finished(void *arg, const struct xfsj_finish_stats *st)
{
	(void)arg;
	fprintf(txt, "finished %llu EFI, %llu RUI, %llu CUI, %llu BUI, %llu ATTRI and %llu XMI intents (%llu extents, %llu work items); "
	       "%llu unlinked inodes (%llu freed, %llu blocks, %llu inode chunks); %llu CoW staging extents freed\n",
	       (unsigned long long)st->efi, (unsigned long long)st->rui,
	       (unsigned long long)st->cui, (unsigned long long)st->bui,
	       (unsigned long long)st->attri, (unsigned long long)st->xmi,
	       (unsigned long long)st->extents,
	       (unsigned long long)st->deferred,
	       (unsigned long long)st->iul.inodes, (unsigned long long)st->iul.freed,
	       (unsigned long long)st->iul.blocks, (unsigned long long)st->iul.chunks,
	       (unsigned long long)st->cow);
	if (st->iul.buckets_cleared)
		fprintf(txt, "warning: %llu unlinked list(s) could not be walked to the end "
		       "(first: AG %u bucket %u: %s %s at byte %llu: %s); emptied as the "
		       "kernel does, the inodes left on them stay allocated: run xfs_repair "
		       "to reclaim them\n",
		       (unsigned long long)st->iul.buckets_cleared, st->iul.bad_agno,
		       st->iul.bad_bucket, st->iul.bad.structure ? st->iul.bad.structure : "?",
		       st->iul.bad.field ? st->iul.bad.field : "",
		       (unsigned long long)st->iul.bad.offset,
		       xfsj_strerror(-st->iul.bad.err));
}

static void print_redo_finished(void *arg, const char *path, uint64_t pages)
{
	(void)arg;
	repair_log_replayed = true;
	fprintf(txt, "finished an interrupted replay from %s (%llu blocks of 4 KiB)\n",
	       path, (unsigned long long)pages);
}

static void print_redo_waiting(void *arg, const char *path)
{
	(void)arg;
	fprintf(txt, "an interrupted replay is waiting in %s; run without -n to finish it\n",
	       path);
}

static void print_log_found(void *arg, const struct xfsj_log_ht *ht,
			    bool dirty)
{
	struct run *run = arg;

	if (!dirty)
		fprintf(txt, "%s: log is clean (head %u:%u), nothing to replay\n",
		       run->o->device, ht->cycle, ht->head_blk);
	else
		fprintf(txt, "%s: dirty log: tail %u, head %u:%u%s\n", run->o->device,
		       ht->tail_blk, ht->cycle, ht->head_blk,
		       ht->torn ? " (torn records at the head discarded)" : "");
}

/*
 * XFSJ_REPAIR_TEST_DELAY_US slows every page saved and applied, so that the
 * interruption tests can kill a run in the middle of committing it.
 */
static void page_hook(void *arg, uint64_t done, uint64_t total)
{
	struct run *run = arg;

	(void)done;
	(void)total;
	if (run->delay > 0)
		usleep((useconds_t)run->delay);
}

/* --salvage (its own number, clear of the other long options). */
enum { OPT_SALVAGE = 640 };

static void on_salvage_damage(void *arg, const struct xfsj_log_damage *d)
{
	struct run *run = arg;

	salvage_print_damage(&run->so, d);
}

static void on_salvage_lost(void *arg, const struct xfsj_salvage_trans *t)
{
	struct run *run = arg;

	salvage_print_lost(&run->so, t);
}

/* Word a replay that stopped, and choose its exit code. */
static int print_failure(struct opts *o, const struct xfsj_replay_result *r,
			 int err)
{
	const struct xfsj_fault *f = &r->fault;
	const char *dev = o->device;

	switch (f->reason) {
	case XFSJ_FR_EXTLOG_NEEDED:
		tool_err("%s: the filesystem has an external log: give its device with -l\n",
			dev);
		break;
	case XFSJ_FR_LOG_NOT_EXTERNAL:
		tool_err("%s: the filesystem has an internal log; -l %s is not its log\n",
			dev, o->logdev);
		break;
	case XFSJ_FR_FEATURES_UNKNOWN:
		tool_err("%s: superblock has features this version does not know\n",
			dev);
		break;
	case XFSJ_FR_REDO_FINISH:
		if (err == -XFSJ_E_STALE)
			tool_err("%s: redo file %s was made for another device with this filesystem's uuid, or for this one before it changed (a block it would write holds neither its old nor its new contents); nothing was written: remove it if its run is abandoned\n",
				dev, r->redo);
		else
			tool_err("%s: redo file %s: %s\n",
				dev, r->redo, xfsj_strerror(err));
		break;
	case XFSJ_FR_LOG_CORRUPT_MIDDLE:
		/*
		 * A bad record in the middle of the live log, too far from
		 * the head to be a torn write: the kernel refuses to mount,
		 * and replaying around it would skip committed changes.
		 */
		if (r->ht.lost) {
			o->log_stuck = true;
			tool_err("%s: lost log records at log block %u: "
				"its blocks hold an older cycle, and %u records after it "
				"(log block %u to head %u) do not; the kernel would stop "
				"there and drop them; not replaying (--salvage replays past it)\n",
				dev, r->ht.lost_blk, r->ht.lost_records,
				r->ht.lost_next_blk, r->ht.head_blk);
			break;
		}
		o->log_stuck = true;
		tool_err("%s: corrupt log record at log block %u "
			"between tail %u and head %u; not replaying\n",
			dev, r->ht.bad_blk, r->ht.tail_blk, r->ht.head_blk);
		break;
	case XFSJ_FR_INTENT_UNSUPP:
		o->log_stuck = true;
		fprintf(txt, "%s: the log leaves pending %s intents that this version cannot finish yet; "
		       "nothing was written%s\n", dev, intent_name(r->intent_type),
		       o->verbose ? "" : " (-v lists the work left)");
		return EXIT_LEFTOVER;
	case XFSJ_FR_WORK_UNSUPP:
		o->log_stuck = true;
		/* Nothing is written: the kernel can still finish it. */
		fprintf(txt, "%s: the log leaves work this version cannot finish yet (%s %s); "
		       "nothing was written\n", dev,
		       f->structure ? f->structure : "?", f->field ? f->field : "");
		return EXIT_LEFTOVER;
	case XFSJ_FR_REDO_SAVE:
		tool_err("%s: cannot write redo file %s: %s\n",
			dev, r->redo, xfsj_strerror(err));
		break;
	case XFSJ_FR_UNDO_SAVE:
		tool_err("%s: cannot write undo file %s: %s; nothing was written to the device\n",
			dev, o->undo, xfsj_strerror(err));
		break;
	case XFSJ_FR_UNDO_MISMATCH:
		tool_err("%s: an interrupted run waits in %s, and %s is not its complete undo file: "
			"the device is partly written, so its old contents can no longer be saved; "
			"give the undo file of that run with -U, or run without -U to finish it\n",
			dev, r->redo, o->undo);
		break;
	case XFSJ_FR_REDO_COMMIT:
		tool_err("%s: writing the replay failed: %s; run again to finish it from %s\n",
			dev, xfsj_strerror(err), r->redo);
		break;
	default:
		if (r->in_trans) {
			/*
			 * A log item the replay cannot take: name its
			 * transaction too, for xfsj-logprint --lsn.
			 */
			tool_err("%s: %s %s at byte %llu (transaction at LSN %u:%u, log block %u): %s\n",
				dev, f->structure, f->field ? f->field : "",
				(unsigned long long)f->offset,
				(unsigned)(r->trans_lsn >> 32),
				(unsigned)r->trans_lsn, r->trans_blk,
				xfsj_strerror(err));
		} else {
			print_fault(dev, f, err);
		}
		break;
	}
	return EXIT_ERROR;
}

/*
 * Did the replay stop because the log or the primary superblock is
 * damaged (rather than an I/O error, a missing log device or an
 * interrupted run)?  Then -n reports that and goes on with what it can
 * still check, as xfs_repair -n does.
 */
static bool damaged(const struct xfsj_replay_result *r, int err)
{
	switch (r->fault.reason) {
	case XFSJ_FR_NONE:
	case XFSJ_FR_FEATURES_UNKNOWN:
	case XFSJ_FR_LOG_CORRUPT_MIDDLE:
		break;
	case XFSJ_FR_LOG_PAST_END:
		/* A log placed past the device: a damaged superblock. */
		return true;
	default:
		return false;
	}
	return err == -XFSJ_E_CORRUPT || err == -XFSJ_E_BADMAGIC ||
	       err == -XFSJ_E_BADCRC || err == -XFSJ_E_RANGE ||
	       err == -XFSJ_E_UNSUPP || err == -XFSJ_E_INVAL;
}

static void count_problem(void *arg, const struct xfsj_problem *p)
{
	(void)p;
	++*(uint64_t *)arg;
}

/*
 * The primary says the log is external (logstart 0) and no -l was given:
 * a damaged primary when the superblock check finds problems with it
 * (the secondaries place the log inside), else a real external log.
 */
static bool extlog_disputed(const struct xfsj_replay_result *r,
			    struct xfsj_io *dataio)
{
	uint64_t n = 0;
	const struct xfsj_check_cb cb = { .arg = &n, .problem = count_problem };
	struct xfsj_check_result res;

	if (r->fault.reason != XFSJ_FR_EXTLOG_NEEDED)
		return false;
	return xfsj_check_superblocks(dataio, &cb, &res) == 0 && n > 0;
}

/*
 * The threads of a check (-n's, and the repair's whole checks):
 * --threads; else, with -o ag_stride, at most 8 per CPU as xfs_repair
 * (the check makes one per ag_stride AGs below that); else one per CPU.
 */
static unsigned int check_threads(const struct opts *o)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	if (cpus < 1)
		cpus = 1;
	if (o->threads)
		return o->threads;
	return (unsigned int)(o->ag_stride ? cpus * 8 : cpus);
}

/* Without -n: repair the replayed state, commit both; the exit code. */
static int repair(struct opts *o, const struct run *run,
		  const struct xfsj_replay_result *r, struct xfsj_replay *keep)
{
	bool written = false;
	const struct repair_args a = {
		.device = o->device,
		.json = o->json,
		.verbose = o->verbose,
		.progress = run->progress,
		.preen = o->preen,
		.force_worse = o->force_worse,
		.cache_bytes = o->cache_bytes,
		.spill = o->spill,
		.threads = check_threads(o),
		.ag_stride = o->threads ? 0 : o->ag_stride,
		.txt = txt,
		.rcb = { page_hook, (void *)run },
		.undo = o->undo,
		.written = &written,
	};
	enum repair_outcome out;
	uint64_t lsn = 0;

	if (r->dirty)
		fprintf(txt, "%s: log replayed in memory (%llu blocks of 4 KiB to write); checking the result\n",
			o->device, (unsigned long long)r->pages);
	/*
	 * Repaired blocks are stamped behind the log head: after a replay,
	 * the clean log written at the old head goes past it; on a clean
	 * log, the head itself would be "ahead of the log" (xfs_repair).
	 */
	if (r->dirty)
		lsn = xfsj_lsn(r->ht.cycle, r->ht.head_blk);
	else if (r->ht.cycle && r->ht.head_blk)
		lsn = xfsj_lsn(r->ht.cycle, r->ht.head_blk - 1);
	out = run_repair(&a, keep, lsn, r->redo);
	print_undo_note(o, written);
	switch (out) {
	case REPAIR_NOTHING:
		return EXIT_CLEAN;
	case REPAIR_FIXED:
		return EXIT_PROBLEMS;
	case REPAIR_LEFT:
		return EXIT_LEFTOVER;
	case REPAIR_PREEN_REFUSED:
		return EXIT_PREEN;
	case REPAIR_WORSE:
		return EXIT_LEFTOVER;
	default:
		return EXIT_ERROR;
	}
}

/*
 * The replay could not start because the primary superblock is wrong
 * (the log is not where it says, or fails its checks): as
 * xfs_repair does, restore it from the secondaries, committed on its own
 * (with -U, into its own undo file, UNDO.primary); then the replay runs
 * on the restored filesystem.  True when the primary was written.
 */
static bool restore_primary(struct opts *o, const struct run *run,
			    struct xfsj_io *dataio,
			    const struct xfsj_replay_result *r, int err,
			    struct xfsj_overlay **dry)
{
	static char undo[4096 + 8];
	bool written = false;
	struct repair_args a = {
		.device = o->device,
		.json = o->json,
		.verbose = o->verbose,
		.progress = run->progress,
		.preen = o->preen,
		.force_worse = o->force_worse,
		.cache_bytes = o->cache_bytes,
		.spill = o->spill,
		.threads = check_threads(o),
		.ag_stride = o->threads ? 0 : o->ag_stride,
		.txt = txt,
		.rcb = { page_hook, (void *)run },
		.written = &written,
		.dry = o->nomodify ? dry : NULL,
	};
	/*
	 * Any failure to read the log may come from the primary (a wrong
	 * uuid, log place or size, geometry): the secondaries say whether
	 * it does; when they agree with it, nothing is written here.  With
	 * -n the same is done in memory (into *@dry), to check what the
	 * repair would replay.
	 */
	if (o->replay_only || o->logdev ||
	    (!damaged(r, err) && r->fault.reason != XFSJ_FR_EXTLOG_NEEDED))
		return false;
	if (o->nomodify)
		return repair_primary(&a, dataio, NULL, o->redo_dir) ==
		       REPAIR_FIXED;
	if (o->undo) {
		snprintf(undo, sizeof(undo), "%s.primary", o->undo);
		a.undo = undo;
	}
	if (repair_primary(&a, dataio, o->redo, o->redo_dir) != REPAIR_FIXED || !written)
		return false;
	if (o->undo)
		fprintf(txt, "%s: the primary superblock's old contents are in undo file %s: put back the other undo file first, then this one\n",
			o->device, undo);
	return true;
}

/*
 * SOURCE_DATE_EPOCH, when set to a number of seconds, is the time the
 * replay stamps where the kernel's recovery stamps its clock, so that two
 * runs give the same bytes.  Anything else there is ignored.
 */
static bool source_date_epoch(int64_t *epoch)
{
	const char *s = getenv("SOURCE_DATE_EPOCH");
	char *end;
	long long v;

	if (!s || !*s)
		return false;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || *end || v < 0)
		return false;
	*epoch = v;
	return true;
}

/*
 * The run: replay, then check or repair.  @primary_tried: this is the
 * second replay, after the primary superblock was restored (it is not
 * restored twice).
 */
static int replay(struct opts *o, struct xfsj_io *dataio, struct xfsj_io *logio,
		  bool primary_tried)
{
	const char *env = getenv("XFSJ_REPAIR_TEST_DELAY_US");
	struct run run = {
		.o = o,
		.progress = progress_form(o->force_progress),
		.pl = PROGRESS_LINE(progress_form(o->force_progress)),
		.delay = env ? strtol(env, NULL, 10) : 0,
		.so = { o->device, o->json, txt },
	};
	int64_t epoch = 0;
	bool have_epoch = source_date_epoch(&epoch);
	const struct xfsj_replay_opts ro = {
		.have_now = have_epoch,
		.now_sec = epoch,
		.undo = o->undo,
		.nomodify = o->nomodify,
		.redo = o->redo,
		.redo_dir = o->redo_dir,
		.defer_commit = !o->nomodify && !o->replay_only,
		.salvage = o->salvage,
	};
	const struct xfsj_replay_cb cb = {
		.arg = &run,
		.redo_finished = print_redo_finished,
		.redo_waiting = print_redo_waiting,
		.log_found = print_log_found,
		.record = on_record,
		.pass_done = on_pass_done,
		.replayed = print_stats,
		.leftover = show_leftover,
		.finished = print_finished,
		.page = page_hook,
		.damage = on_salvage_damage,
		.lost = on_salvage_lost,
	};
	struct xfsj_replay_result r;
	struct xfsj_replay *keep = NULL;
	struct xfsj_overlay *dry = NULL;
	uint64_t t0 = now_ms();
	bool disputed;
	int err, ret;

	err = xfsj_replay(dataio, logio, &ro, &cb, &r, &keep);
	if (!err && r.dirty && !o->nomodify)
		repair_log_replayed = true;
	if (o->salvage && r.stats.trans)
		salvage_print_summary(&run.so, &r.salvage, &r.ht);
	/* Nothing of XFS anywhere: one line, the same with -n or without. */
	if (err && !primary_tried &&
	    (damaged(&r, err) || r.fault.reason == XFSJ_FR_EXTLOG_NEEDED) &&
	    xfsj_check_is_xfs(dataio) == 0) {
		print_refusal(o->device, o->json, o->nomodify, "not_xfs",
			      "not an XFS filesystem (no valid primary superblock, and no secondary found on the device)");
		return EXIT_ERROR;
	}
	if (err && !primary_tried &&
	    restore_primary(o, &run, dataio, &r, err, &dry)) {
		/* The primary was fixed, whatever the rest needs. */
		if (dry) {
			/* -n: the rest as the repair will find it. */
			struct xfsj_io *dio = NULL;

			fprintf(txt, "%s: the repair will rewrite the primary superblock as above, then replay the log; checking that in memory\n",
				o->device);
			ret = xfsj_overlay_io(dry, &dio) ? EXIT_ERROR :
			      replay(o, dio, logio, true);
			xfsj_io_close(dio);
			xfsj_overlay_free(dry);
			return ret == EXIT_ERROR ? ret : EXIT_PROBLEMS;
		}
		ret = replay(o, dataio, logio, true);
		return ret == EXIT_CLEAN ? EXIT_PROBLEMS : ret;
	}
	/* With -l, a log that does not fit is more likely the wrong device. */
	disputed = err && o->nomodify && !o->logdev &&
		   extlog_disputed(&r, dataio);
	if (err && o->nomodify && !o->logdev &&
	    (disputed || damaged(&r, err))) {
		/* (a disputed primary is no request for -l) */
		ret = disputed ? EXIT_ERROR : print_failure(o, &r, err);
		if (ret != EXIT_ERROR)
			return ret;
		ret = check_unreplayable(o->device, dataio, &r.fault, o->json,
					 txt);
		return ret == CHECK_PROBLEMS ? EXIT_PROBLEMS : EXIT_ERROR;
	}
	if (err)
		return print_failure(o, &r, err);
	if (o->nomodify && o->replay_only) {
		/* The replay alone, in memory: nothing is checked. */
		xfsj_replay_free(keep);
		if (r.dirty)
			fprintf(txt, "%s: would write %llu blocks of 4 KiB and a clean log (no modify); not checked (--replay-only)\n",
				o->device, (unsigned long long)r.pages);
		return r.dirty ? EXIT_DIRTY : EXIT_CLEAN;
	}
	if (o->nomodify) {
		if (r.dirty)
			fprintf(txt, "%s: would write %llu blocks of 4 KiB and a clean log (no modify); checking the replayed filesystem\n",
				o->device, (unsigned long long)r.pages);
		ret = check_replayed(o->device, keep, r.dirty ?
			xfsj_lsn(r.ht.cycle, r.ht.head_blk) : 0, o->json,
			o->verbose, run.progress, o->cache_bytes, check_threads(o),
			o->threads ? 0 : o->ag_stride, o->spill, txt);
		xfsj_replay_free(keep);
		if (ret == CHECK_CLEAN)
			return r.dirty ? EXIT_DIRTY : EXIT_CLEAN;
		return ret == CHECK_PROBLEMS ? EXIT_PROBLEMS : EXIT_ERROR;
	}
	if (o->replay_only) {
		xfsj_replay_free(keep);
		if (!r.dirty)
			return EXIT_CLEAN;
		fprintf(txt, "%s: replay done: %llu blocks of 4 KiB written, log clean, %.3f s\n",
			o->device, (unsigned long long)r.pages,
			(now_ms() - t0) / 1000.0);
		print_undo_note(o, r.written);
		return EXIT_CLEAN;
	}
	ret = repair(o, &run, &r, keep);
	xfsj_replay_free(keep);
	if (r.dirty && ret != EXIT_ERROR)
		fprintf(txt, "%s: replay and repair written, %.3f s\n",
			o->device, (now_ms() - t0) / 1000.0);
	return ret;
}

/*
 * --compat: xfs_repair 6.13's exit code for how the run ended (@ret, one
 * of ours).  xfs_repair exits 1 on any error and with -n on a dirty log
 * (its warning that the log is ignored counts as a problem), 2 without -n
 * when the log still needs replaying (here: a log the replay could not
 * take), 4 with -e when it fixed something, else 0.  A dirty log this run
 * replayed is no longer one: what follows is the answer for the
 * filesystem the replay left, as xfs_repair's after a mount.
 */
static int compat_exit(const struct opts *o, int ret)
{
	if (o->nomodify)
		return ret == EXIT_CLEAN ? 0 : 1;
	if (o->log_stuck)
		return 2;
	switch (ret) {
	case EXIT_CLEAN:
		return 0;
	case EXIT_PROBLEMS:
		return o->exit_on_fix ? 4 : 0;
	default:
		return 1;
	}
}

/*
 * Where the scan's read-ahead goes.  The page cache's deep device queue
 * wins on small filesystems, but every byte read through it is copied
 * out of it, at about 1 GB/s of one core's time on the benchmark's
 * machine: a third of a 10M-inode check's CPU.  So once the inodes alone
 * are XFSJ_DIRECT_BYTES or more, hints are read O_DIRECT into a bounded
 * pool of our own, as xfs_repair reads (xfsj_io_direct_readahead).
 * The pool's memory comes out of the buffer cache's share of -m, so it
 * needs the whole default share.  XFSJ_DIRECT=1 or 0 in the environment
 * forces it either way.
 */
#define XFSJ_DIRECT_BYTES	(2ULL << 30)

static void choose_readahead(struct opts *o, struct xfsj_io *io)
{
	const char *force = getenv("XFSJ_DIRECT");
	const char *why = "the inodes take less than 2 GiB";
	bool direct = false;
	uint8_t sect[512];
	struct xfsj_sb sb;

	if (force && (!strcmp(force, "0") || !strcmp(force, "1"))) {
		direct = *force == '1';
		why = direct ? "XFSJ_DIRECT=1" : "XFSJ_DIRECT=0";
	} else if (o->cache_bytes < XFSJ_FS_CACHE_DEFAULT) {
		why = "-m leaves the buffer cache less than 64 MiB";
	} else if (!xfsj_pread(io, sect, sizeof(sect), 0)) {
		xfsj_sb_decode(sect, &sb);
		direct = sb.magicnum == XFSJ_SB_MAGIC && sb.inodesize &&
			 sb.icount >= XFSJ_DIRECT_BYTES / sb.inodesize;
		if (direct)
			why = "the inodes take 2 GiB or more";
	}
	if (direct && !xfsj_io_direct_readahead(io)) {
		direct = false;
		why = "the device cannot be read O_DIRECT";
	}
	/* The pool comes out of the buffer cache's share of -m. */
	if (direct && o->cache_bytes > XFSJ_IO_POOL_BYTES + (1ULL << 20))
		o->cache_bytes -= XFSJ_IO_POOL_BYTES;
	if (o->verbose)
		fprintf(txt, "%s: read-ahead %s (%s)\n", o->device,
			direct ? "into our own buffers, O_DIRECT" :
			"through the page cache", why);
}

/*
 * A device shorter than the filesystem its superblocks describe (a
 * truncated image, the wrong partition): said first, in one line, rather
 * than as the first structure found missing past its end.  A primary
 * whose geometry disagrees with itself, or that the secondary it locates
 * contradicts, is left to the repair.
 */
static bool device_short(const struct opts *o, struct xfsj_io *io)
{
	uint8_t sect[512];
	struct xfsj_sb p, s;
	uint64_t bytes, ag1;
	char why[256];

	if (xfsj_pread(io, sect, sizeof(sect), 0))
		return false;
	xfsj_sb_decode(sect, &p);
	if (p.magicnum != XFSJ_SB_MAGIC || p.dblocks > (UINT64_MAX >> 16))
		return false;
	/* A primary whose geometry disagrees with itself is damaged. */
	if (!xfsj_sb_can_locate(&p) ||
	    p.dblocks > (uint64_t)p.agcount * p.agblocks ||
	    p.dblocks <= (uint64_t)(p.agcount - 1) * p.agblocks)
		return false;
	bytes = p.dblocks << p.blocklog;
	if (bytes <= io->size)
		return false;
	ag1 = (uint64_t)p.agblocks << p.blocklog;
	if (ag1 + sizeof(sect) <= io->size) {
		if (xfsj_pread(io, sect, sizeof(sect), ag1))
			return false;
		xfsj_sb_decode(sect, &s);
		if (s.magicnum != XFSJ_SB_MAGIC || s.dblocks != p.dblocks ||
		    s.blocklog != p.blocklog || s.agblocks != p.agblocks)
			return false;
	}
	snprintf(why, sizeof(why), "the device (%llu bytes) is shorter than the filesystem on it (%llu bytes): a truncated image, or the wrong device",
		 (unsigned long long)io->size, (unsigned long long)bytes);
	print_refusal(o->device, o->json, o->nomodify, "device_short", why);
	return true;
}

/* xfs_repair's numeric arguments (-t, -o x=N): accepted, checked. */
static bool compat_number(const char *v, const char *what)
{
	char *end;

	if (!v || !*v) {
		tool_err("%s takes a number (%s%sN)\n", what,
			what, *what == '-' ? " " : "=");
		return false;
	}
	if (*v < '0' || *v > '9' || (strtoull(v, &end, 10), *end)) {
		tool_err("%s: '%s' is not a number\n", what,
			v);
		return false;
	}
	return true;
}

/*
 * xfs_repair's -o suboptions: known ones accepted; ag_stride sets the
 * check's threads (without --threads), the others have no effect here.
 */
static bool compat_subopt(const char *arg, struct opts *o)
{
	static const char *const valued[] = { "ag_stride", "bhash", "ihash",
					      "phase2_threads" };
	static const char *const flags[] = { "force_geometry", "noquota",
					     "assume_xfs" };
	const char *eq = strchr(arg, '=');
	size_t n = eq ? (size_t)(eq - arg) : strlen(arg), i;

	for (i = 0; i < sizeof(valued) / sizeof(valued[0]); i++) {
		unsigned long long v;

		if (strlen(valued[i]) != n || strncmp(arg, valued[i], n))
			continue;
		if (!compat_number(eq ? eq + 1 : NULL, valued[i]))
			return false;
		v = strtoull(eq + 1, NULL, 10);
		if (i == 0)	/* ag_stride */
			o->ag_stride = v > UINT32_MAX ? UINT32_MAX :
				       (unsigned int)v;
		return true;
	}
	for (i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
		if (!eq && !strcmp(arg, flags[i]))
			return true;
	tool_err("-o %s: unknown suboption\n", arg);
	return false;
}

/* The whole run; its exit code, ours (main gives --compat's). */
/*
 * -m: the bound of the whole run's memory, split between the buffer cache
 * (a quarter, at most its default) and the check's tables (half in RAM;
 * past that they spill to a scratch file); the process's pages of the
 * scratch file are dropped whenever its RSS passes seven eighths of the
 * bound.  The default bound: half the RAM.
 */
static bool make_spill(struct opts *o)
{
	static char dir[4096];
	const char *d = o->tmpdir;
	uint64_t b = o->bound;
	long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
	int err;

	if (!b)
		b = pages > 0 && psz > 0 ? (uint64_t)pages * (uint64_t)psz / 2 :
		    (4ULL << 30);
	o->cache_bytes = b / 4 < XFSJ_FS_CACHE_DEFAULT ? b / 4 :
			 XFSJ_FS_CACHE_DEFAULT;
	if (o->cache_bytes < (1ULL << 20))
		o->cache_bytes = 1ULL << 20;
	if (!d && o->nomodify) {
		/* -n writes nothing but the scratch file. */
		d = getenv("TMPDIR");
		if (!d || !*d)
			d = "/var/tmp";
	} else if (!d) {
		/* Beside the redo file (-r, -O's COPY.redo, the default). */
		const char *redo = o->redo, *slash;

		d = o->redo_dir ? o->redo_dir : "/var/tmp";
		if (redo && (slash = strrchr(redo, '/'))) {
			snprintf(dir, sizeof(dir), "%.*s",
				 (int)(slash - redo) ? (int)(slash - redo) : 1,
				 redo);
			d = dir;
		} else if (redo) {
			d = ".";
		}
	}
	err = xfsj_spill_new(d, b / 2, b - b / 8, &o->spill);
	if (err)
		tool_err("--tmpdir %s: %s\n", d, xfsj_strerror(err));
	return !err;
}

static int run(int argc, char **argv, struct opts *o)
{
	struct xfsj_io *io, *logio = NULL;
	int c, err, ret;
	char *end;
	unsigned long long mib;
	const char *rd = getenv("XFSJ_REDO_DIR");
	struct stat st;

	enum {
		OPT_LIST_PROBLEMS = 256, OPT_PROGRESS, OPT_COMPAT,
		OPT_REPLAY_ONLY, OPT_FORCE, OPT_THREADS, OPT_TMPDIR,
	};
	static const struct option longopts[] = {
		{ "undo", required_argument, NULL, 'U' },
		{ "undo-apply", required_argument, NULL, OPT_UNDO_APPLY },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ "list-problems", no_argument, NULL, OPT_LIST_PROBLEMS },
		{ "progress", no_argument, NULL, OPT_PROGRESS },
		{ "compat", no_argument, NULL, OPT_COMPAT },
		{ "replay-only", no_argument, NULL, OPT_REPLAY_ONLY },
		{ "output", required_argument, NULL, 'O' },
		{ "output-log", required_argument, NULL, OPT_OUTPUT_LOG },
		{ "salvage", no_argument, NULL, OPT_SALVAGE },
		{ "force", no_argument, NULL, OPT_FORCE },
		{ "threads", required_argument, NULL, OPT_THREADS },
		{ "tmpdir", required_argument, NULL, OPT_TMPDIR },
		{ NULL, 0, NULL, 0 },
	};

	txt = stdout;
	if (rd && *rd)
		o->redo_dir = rd;
	while ((c = getopt_long(argc, argv, "nl:m:r:U:vpPfeLt:o:O:Vh", longopts,
				NULL)) != -1) {
		switch (c) {
		case 'U': o->undo = optarg; break;
		case OPT_UNDO_APPLY: o->undo_apply = optarg; break;
		case OPT_LIST_PROBLEMS: o->list_problems = true; break;
		case OPT_PROGRESS: o->force_progress = true; break;
		case OPT_COMPAT: o->compat = true; break;
		case OPT_REPLAY_ONLY: o->replay_only = true; break;
		case 'O': o->output = optarg; break;
		case OPT_TMPDIR: o->tmpdir = optarg; break;
		case OPT_OUTPUT_LOG: o->output_log = optarg; break;
		case OPT_SALVAGE: o->salvage = true; break;
		case OPT_FORCE: o->force_worse = true; break;
		case OPT_THREADS:
			mib = strtoull(optarg, &end, 10);
			if (*optarg < '0' || *optarg > '9' || *end || !mib ||
			    mib > 1024) {
				fprintf(stderr, "xfsj-repair: --threads %s: not a number from 1 to 1024\n",
					optarg);
				return EXIT_ERROR;
			}
			o->threads = (unsigned int)mib;
			break;
		case 'm':
			mib = strtoull(optarg, &end, 10);
			if (*optarg < '0' || *optarg > '9' || *end || !mib ||
			    mib > (UINT64_MAX >> 20)) {
				tool_err("-m %s: not a size in MiB\n",
					optarg);
				return EXIT_ERROR;
			}
			o->bound = (uint64_t)mib << 20;
			break;
		case 'j': o->json = true; txt = stderr; break;
		case 'n': o->nomodify = true; break;
		case 'p': o->preen = true; break;
		case 'l': o->logdev = optarg; break;
		case 'r': o->redo = optarg; break;
		case 'v': o->verbose = true; break;
		case 'e': o->exit_on_fix = true; break;
		case 'f':	/* a file, not a device: nothing differs */
			o->force = true;	/* but -O overwrites */
			break;
		case 'P':	/* xfs_repair: no prefetch */
			break;
		case 't':
			if (!compat_number(optarg, "-t"))
				return EXIT_ERROR;
			break;
		case 'o':
			if (!compat_subopt(optarg, o))
				return EXIT_ERROR;
			break;
		case 'L':
			tool_err("-L: not needed: a dirty log is replayed, never thrown away\n");
			break;
		case 'V':
			printf("xfsj-repair version %s (JSON schema %d)\n",
			       PACKAGE_VERSION, XFSJ_JSON_SCHEMA);
			return EXIT_CLEAN;
		case 'h':
			usage(stdout);
			return EXIT_CLEAN;
		default:
			short_usage();
			return EXIT_ERROR;
		}
	}
	if (o->nomodify && o->preen) {
		tool_err("-n and -p cannot be used together\n");
		return EXIT_ERROR;
	}
	if (!output_opts_ok(o))
		return EXIT_ERROR;
	if (o->list_problems && optind == argc) {
		list_problems(o->json, stdout);
		return EXIT_CLEAN;
	}
	if (o->list_problems || optind != argc - 1) {
		short_usage();
		return EXIT_ERROR;
	}
	o->device = argv[optind];
	/* The same words with -n (a read-only open succeeds) and without. */
	if (!stat(o->device, &st) && S_ISDIR(st.st_mode)) {
		tool_err("cannot open %s: %s\n", o->device,
			strerror(EISDIR));
		return EXIT_ERROR;
	}
	if (xfsj_path_mounted(o->device)) {
		tool_err("%s contains a mounted filesystem; unmount it first\n",
			o->device);
		return EXIT_ERROR;
	}
	if (o->logdev && (xfsj_path_mounted(o->logdev) || xfsj_path_held(o->logdev))) {
		tool_err("%s is in use (the log of a mounted filesystem?); unmount it first\n",
			o->logdev);
		return EXIT_ERROR;
	}
	err = xfsj_io_open(o->device, o->nomodify || o->output ? XFSJ_IO_RDONLY :
			   XFSJ_IO_EXCL, &io);
	if (err) {
		tool_err("cannot open %s: %s\n", o->device,
			xfsj_io_open_strerror(err));
		return EXIT_ERROR;
	}
	if (o->logdev) {
		err = xfsj_io_open(o->logdev, o->nomodify || o->output ?
			XFSJ_IO_RDONLY : XFSJ_IO_EXCL, &logio);
		if (err) {
			tool_err("cannot open %s: %s\n",
				o->logdev, xfsj_io_open_strerror(err));
			xfsj_io_close(io);
			return EXIT_ERROR;
		}
	}
	if (o->output && !open_output(o, &io, &logio)) {
		xfsj_io_close(logio);
		xfsj_io_close(io);
		return EXIT_ERROR;
	}
	if (!o->undo_apply && device_short(o, io))
		ret = EXIT_ERROR;
	else if (!o->undo_apply && !make_spill(o))
		ret = EXIT_ERROR;
	else if (o->undo_apply)
		ret = undo_apply(o, io, logio);
	else {
		choose_readahead(o, io);
		ret = replay(o, io, logio, false);
	}
	xfsj_spill_free(o->spill);
	xfsj_io_close(logio);
	xfsj_io_close(io);
	return ret;
}

int repair_main(int argc, char **argv)
{
	struct opts o = { 0 };
	int i, ret;

	/* Known before the options are read: a usage error exits as asked. */
	for (i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--compat"))
			o.compat = true;
	ret = run(argc, argv, &o);
	return o.compat ? compat_exit(&o, ret) : ret;
}
