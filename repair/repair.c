/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * xfsj-repair: bring a filesystem back after a crash by replaying its log
 * in user space as the kernel's log recovery would.
 *
 * The pipeline: refuse a mounted device; finish an interrupted earlier run
 * (redo file); find head and tail; pass 1 (cancellation table) and pass 2
 * (replay into a page overlay); list the work the log leaves behind
 * (intents without their done item, inodes on the AGI unlinked lists) and
 * stop without writing if there is any; recompute the summary counters;
 * write a clean log into the overlay; save the overlay to the redo file,
 * sync, copy it onto the device, sync, remove the redo file.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "xfsj/finish.h"
#include "xfsj/fs.h"
#include "xfsj/logread.h"
#include "xfsj/ondisk.h"
#include "xfsj/recover.h"
#include "xfsj/redo.h"

/* Exit codes (documented in xfsj-repair.8 and --help). */
enum {
	EXIT_CLEAN = 0,		/* clean log, or replay done */
	EXIT_ERROR = 1,		/* usage, I/O, corrupt or unsupported log */
	EXIT_DIRTY = 2,		/* -n: the log is dirty and would be replayed */
	EXIT_LEFTOVER = 4,	/* work left this version cannot finish */
};

struct opts {
	const char *device;
	const char *logdev;
	const char *redo;
	bool nomodify;
	bool verbose;
	bool force_progress;
};

struct run {
	struct opts *o;
	struct xfsj_recover *rc;
	int pass;
	uint32_t done_bb, total_bb;
	bool progress;
	uint64_t last_report;
	struct xfsj_log *log;
	struct xfsj_fault fault;
	/* The transaction a replay fault came from (its offset is the item's). */
	bool fault_in_trans;
	uint64_t fault_lsn;
	uint32_t fault_blk;
};

static void usage(FILE *out)
{
	fputs(
"Usage: xfsj-repair [-n] [-v] [-l LOGDEV] [-r REDOFILE] device\n"
"Replay the dirty log of an XFS filesystem in user space, as the kernel's\n"
"log recovery does, finish the work it leaves (pending EFI, RUI, CUI, BUI,\n"
"ATTRI and XMI intents, unlinked inodes, CoW staging extents) and leave a\n"
"clean log.\n"
"\n"
"  -n            no modify: replay in memory and report what would change;\n"
"                the device is never opened for writing\n"
"  -l LOGDEV     the external log device of a filesystem made with one\n"
"  -r FILE       redo file (default /var/tmp/xfsj-repair.<uuid>.redo): the\n"
"                replay is written there and synced before the device is\n"
"                touched, so a killed run finishes when run again\n"
"  -v            verbose: list every piece of leftover work before finishing it\n"
"  -P            show progress even when not on a terminal\n"
"  -V            print the version and exit\n"
"\n"
"Exit status: 0 clean log or replay done; 1 error (usage, I/O, corrupt or\n"
"unsupported log); 2 with -n: the log is dirty and would be replayed;\n"
"4 the log leaves work in a form this version cannot finish yet (for example\n"
"an attribute fork in node format): nothing was written.\n", out);
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int on_record(void *arg, const struct xfsj_log_rec *r)
{
	struct run *run = arg;
	uint64_t t;

	run->done_bb += r->hblks + r->data_bbs;
	if (!run->progress)
		return 0;
	t = now_ms();
	if (t - run->last_report >= 200) {
		run->last_report = t;
		fprintf(stderr, "\rxfsj-repair: pass %d: %3u%%", run->pass,
			run->total_bb ? (unsigned)(100ULL * run->done_bb / run->total_bb) : 100);
	}
	return 0;
}

static int on_trans(void *arg, const struct xfsj_log_trans *t)
{
	struct run *run = arg;
	int err;

	if (run->pass == 1)
		err = xfsj_recover_pass1(run->rc, &t->rt, &run->fault);
	else
		err = xfsj_recover_pass2(run->rc, &t->rt, &run->fault);
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
	run->fault = *f;
	return f->err ? -f->err : -XFSJ_E_CORRUPT;	/* a corrupt live log stops */
}

static void print_fault(const char *dev, const struct xfsj_fault *f, int err)
{
	if (f->structure)
		fprintf(stderr, "xfsj-repair: %s: %s %s at byte %llu: %s\n",
			dev, f->structure, f->field ? f->field : "",
			(unsigned long long)f->offset, xfsj_strerror(err));
	else
		fprintf(stderr, "xfsj-repair: %s: %s\n", dev, xfsj_strerror(err));
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
		printf("  pending %s id 0x%llx logged at lsn %u:%u\n",
		       intent_name(l->type), (unsigned long long)l->id,
		       xfsj_lsn_cycle(l->lsn), xfsj_lsn_block(l->lsn));
	else if (l->kind == XFSJ_LEFT_UNLINKED)
		printf("  unlinked inodes: AG %u bucket %u starts at agino %u\n",
		       l->agno, l->bucket, l->agino);
	else
		printf("  CoW staging extents to free in AG %u (from agbno %u)\n",
		       l->agno, l->agino);
}

static int pass(struct run *run, int n)
{
	struct xfsj_log_visitor v = {
		.arg = run,
		.record = on_record,
		.trans = on_trans,
		.fault = on_fault,
	};
	struct xfsj_fault f = { 0 };
	int err;

	run->pass = n;
	run->done_bb = 0;
	memset(&run->fault, 0, sizeof(run->fault));
	run->fault_in_trans = false;
	err = xfsj_log_walk_live(run->log, &v, &f);
	if (run->progress)
		fprintf(stderr, "\rxfsj-repair: pass %d: 100%%\n", n);
	if (err && run->fault_in_trans && run->fault.structure) {
		/*
		 * A log item the replay cannot take: name its transaction too,
		 * for xfsj-logprint --lsn.
		 */
		fprintf(stderr, "xfsj-repair: %s: %s %s at byte %llu (transaction at LSN %u:%u, log block %u): %s\n",
			run->o->device, run->fault.structure,
			run->fault.field ? run->fault.field : "",
			(unsigned long long)run->fault.offset,
			(unsigned)(run->fault_lsn >> 32), (unsigned)run->fault_lsn,
			run->fault_blk, xfsj_strerror(err));
		return EXIT_ERROR;
	}
	if (err) {
		print_fault(run->o->device, run->fault.structure ? &run->fault : &f,
			    err);
		return EXIT_ERROR;
	}
	return 0;
}

static void print_stats(const struct xfsj_recover_stats *st)
{
	printf("replayed %llu transactions: %llu buffers (%llu skipped as already on disk, %llu cancelled), "
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
		printf("owner changes (extent swaps): %llu inode items, %llu bmap btree blocks given their new owner, %llu passed over (rewritten later in the log)\n",
		       (unsigned long long)st->owner_items,
		       (unsigned long long)st->owners_changed,
		       (unsigned long long)st->owners_passed);
}

/*
 * XFSJ_REPAIR_TEST_DELAY_US slows every page saved and applied, so that the
 * interruption tests can kill a run in the middle of committing it.
 */
static void page_hook(void *arg, uint64_t done, uint64_t total)
{
	const long *delay = arg;

	(void)done;
	(void)total;
	if (*delay > 0)
		usleep((useconds_t)*delay);
}

/*
 * What the kernel does at mount after replaying: finish the pending
 * intents, the unlinked inodes and the CoW staging extents.  The work is
 * stamped with the LSN of the clean log about to be written at the head,
 * which no later mount can see as being in the future.
 */
static int finish(struct run *run, struct xfsj_overlay *ov,
		  const struct xfsj_log_ht *ht, struct xfsj_fault *f)
{
	struct xfsj_finish_stats st;
	struct xfsj_fs *fs = NULL;
	int err;

	/* The geometry as the replay left it (a growfs may be in the log). */
	err = xfsj_fs_open(ov, xfsj_recover_sb(run->rc),
			   xfsj_lsn(ht->cycle, ht->head_blk), &fs);
	if (!err)
		err = xfsj_finish_all(run->rc, fs, &st, f);
	xfsj_fs_close(fs);
	if (err) {
		if (!f->structure)
			xfsj_fault_set(f, err, "recovery", "finish", 0, 0);
		return err;
	}
	printf("finished %llu EFI, %llu RUI, %llu CUI, %llu BUI, %llu ATTRI and %llu XMI intents (%llu extents, %llu work items); "
	       "%llu unlinked inodes (%llu freed, %llu blocks, %llu inode chunks); %llu CoW staging extents freed\n",
	       (unsigned long long)st.efi, (unsigned long long)st.rui,
	       (unsigned long long)st.cui, (unsigned long long)st.bui,
	       (unsigned long long)st.attri, (unsigned long long)st.xmi,
	       (unsigned long long)st.extents,
	       (unsigned long long)st.deferred,
	       (unsigned long long)st.iul.inodes, (unsigned long long)st.iul.freed,
	       (unsigned long long)st.iul.blocks, (unsigned long long)st.iul.chunks,
	       (unsigned long long)st.cow);
	if (st.iul.buckets_cleared)
		printf("warning: %llu unlinked list(s) could not be walked to the end "
		       "(first: AG %u bucket %u: %s %s at byte %llu: %s); emptied as the "
		       "kernel does, the inodes left on them stay allocated: run xfs_repair "
		       "to reclaim them\n",
		       (unsigned long long)st.iul.buckets_cleared, st.iul.bad_agno,
		       st.iul.bad_bucket, st.iul.bad.structure ? st.iul.bad.structure : "?",
		       st.iul.bad.field ? st.iul.bad.field : "",
		       (unsigned long long)st.iul.bad.offset,
		       xfsj_strerror(-st.iul.bad.err));
	return 0;
}

/* The external log sits in the overlay's device past the data, page aligned. */
static uint64_t ext_log_base(const struct xfsj_io *io)
{
	return (io->size + XFSJ_OVL_PAGE - 1) / XFSJ_OVL_PAGE * XFSJ_OVL_PAGE;
}

static int replay(struct opts *o, struct xfsj_io *dataio, struct xfsj_io *logio)
{
	const char *env = getenv("XFSJ_REPAIR_TEST_DELAY_US");
	long delay = env ? strtol(env, NULL, 10) : 0;
	struct xfsj_redo_cb cb = { page_hook, &delay };
	struct run run = { .o = o };
	struct xfsj_fault f = { 0 };
	struct xfsj_overlay *ov = NULL;
	struct xfsj_log_ht ht;
	const struct xfsj_log_geom *lg;
	struct xfsj_io *io = dataio, *cio = NULL;
	uint64_t log_base;
	char redo[512];
	uint64_t t0 = now_ms();
	int err, ret = EXIT_ERROR, left;
	bool applied;
	uint64_t pages;

	err = xfsj_log_open(dataio, logio, 0, &run.log, &f);
	if (err) {
		if (err == -XFSJ_E_UNSUPP && !logio &&
		    f.reason == XFSJ_FR_EXTLOG_NEEDED)
			fprintf(stderr, "xfsj-repair: %s: the filesystem has an external log: give its device with -l\n",
				o->device);
		else
			print_fault(o->device, &f, err);
		return EXIT_ERROR;
	}
	lg = xfsj_log_geom(run.log);
	if (logio && !lg->external) {
		fprintf(stderr, "xfsj-repair: %s: the filesystem has an internal log; -l %s is not its log\n",
			o->device, o->logdev);
		goto out;
	}
	/*
	 * With an external log the replay writes two devices: one overlay
	 * and one redo file over both, so that a killed run has touched
	 * neither or can finish both.
	 */
	log_base = lg->dev_off;
	if (logio) {
		log_base = ext_log_base(dataio);
		err = xfsj_io_concat(dataio, logio, log_base, &cio);
		if (err) {
			fprintf(stderr, "xfsj-repair: %s: %s\n", o->device,
				xfsj_strerror(err));
			goto out;
		}
		io = cio;
	}
	if (lg->sb.features_incompat & ~XFSJ_INCOMPAT_ALL ||
	    lg->sb.features_log_incompat & ~XFSJ_LOG_INCOMPAT_XATTRS) {
		fprintf(stderr, "xfsj-repair: %s: superblock has features this version does not know\n",
			o->device);
		goto out;
	}
	if (o->redo) {
		snprintf(redo, sizeof(redo), "%s", o->redo);
	} else {
		char u[37];

		for (int i = 0; i < 16; i++)
			snprintf(u + 2 * i, 3, "%02x", lg->sb.uuid[i]);
		snprintf(redo, sizeof(redo), "/var/tmp/xfsj-repair.%s.redo", u);
	}

	/* An earlier run that was killed while writing finishes first. */
	if (!o->nomodify) {
		err = xfsj_redo_apply(redo, io, lg->sb.uuid, &applied, &pages, &cb);
		if (err) {
			fprintf(stderr, "xfsj-repair: %s: redo file %s: %s\n",
				o->device, redo, xfsj_strerror(err));
			goto out;
		}
		if (applied) {
			printf("finished an interrupted replay from %s (%llu blocks of 4 KiB)\n",
			       redo, (unsigned long long)pages);
			/* The log was cleaned by that replay: look again. */
			xfsj_log_close(run.log);
			run.log = NULL;
			err = xfsj_log_open(dataio, logio, 0, &run.log, &f);
			if (err) {
				print_fault(o->device, &f, err);
				goto out;
			}
			lg = xfsj_log_geom(run.log);
		}
	} else if (access(redo, F_OK) == 0) {
		printf("an interrupted replay is waiting in %s; run without -n to finish it\n",
		       redo);
	}

	err = xfsj_log_find_head_tail(run.log, &ht, &f);
	if (err) {
		print_fault(o->device, &f, err);
		goto out;
	}
	if (ht.verify_failed) {
		/*
		 * A bad record in the middle of the live log, too far from
		 * the head to be a torn write: the kernel refuses to mount,
		 * and replaying around it would skip committed changes.
		 */
		fprintf(stderr, "xfsj-repair: %s: corrupt log record at log block %u "
			"between tail %u and head %u; not replaying\n",
			o->device, ht.bad_blk, ht.tail_blk, ht.head_blk);
		goto out;
	}
	if (ht.clean || ht.zeroed || ht.head_blk == ht.tail_blk) {
		printf("%s: log is clean (head %u:%u), nothing to replay\n",
		       o->device, ht.cycle, ht.head_blk);
		ret = EXIT_CLEAN;
		goto out;
	}
	printf("%s: dirty log: tail %u, head %u:%u%s\n", o->device, ht.tail_blk,
	       ht.cycle, ht.head_blk, ht.torn ? " (torn records at the head discarded)" : "");

	err = xfsj_overlay_create(io, &ov);
	if (!err)
		err = xfsj_recover_create(ov, &lg->sb, &run.rc);
	if (err) {
		print_fault(o->device, &f, err);
		goto out;
	}
	run.total_bb = xfsj_log_distance(run.log, ht.tail_blk, ht.head_blk);
	run.progress = o->force_progress || isatty(STDERR_FILENO);
	if (pass(&run, 1) || pass(&run, 2))
		goto out;
	print_stats(xfsj_recover_stats(run.rc));

	left = xfsj_recover_leftovers(run.rc, show_leftover, &run);
	if (left < 0) {
		print_fault(o->device, &f, left);
		goto out;
	}
	if (left > 0) {
		uint16_t type = 0;
		int uns = xfsj_finish_supported(run.rc, &type);

		if (uns < 0) {
			print_fault(o->device, &f, uns);
			goto out;
		}
		if (uns) {
			printf("%s: the log leaves pending %s intents that this version cannot finish yet; "
			       "nothing was written%s\n", o->device, intent_name(type),
			       o->verbose ? "" : " (-v lists the work left)");
			ret = EXIT_LEFTOVER;
			goto out;
		}
		err = finish(&run, ov, &ht, &f);
		if (err == -XFSJ_E_UNSUPP) {
			/* Nothing is written: the kernel can still finish it. */
			printf("%s: the log leaves work this version cannot finish yet (%s %s); "
			       "nothing was written\n", o->device,
			       f.structure ? f.structure : "?", f.field ? f.field : "");
			ret = EXIT_LEFTOVER;
			goto out;
		}
		if (err) {
			print_fault(o->device, &f, err);
			goto out;
		}
	}
	err = xfsj_recover_update_sb(run.rc, &f);
	if (!err)
		err = xfsj_log_write_clean(ov, &lg->sb, log_base, ht.head_blk,
					   ht.cycle, &f);
	if (err) {
		print_fault(o->device, &f, err);
		goto out;
	}
	if (o->nomodify) {
		printf("%s: would write %llu blocks of 4 KiB and a clean log (no modify)\n",
		       o->device, (unsigned long long)xfsj_overlay_dirty_pages(ov));
		ret = EXIT_DIRTY;
		goto out;
	}
	err = xfsj_redo_save(redo, ov, lg->sb.uuid, io->size, &cb);
	if (err) {
		fprintf(stderr, "xfsj-repair: %s: cannot write redo file %s: %s\n",
			o->device, redo, xfsj_strerror(err));
		goto out;
	}
	err = xfsj_redo_apply(redo, io, lg->sb.uuid, &applied, &pages, &cb);
	if (err || !applied) {
		fprintf(stderr, "xfsj-repair: %s: writing the replay failed: %s; run again to finish it from %s\n",
			o->device, xfsj_strerror(err ? err : -XFSJ_E_IO), redo);
		goto out;
	}
	printf("%s: replay done: %llu blocks of 4 KiB written, log clean, %.3f s\n",
	       o->device, (unsigned long long)pages, (now_ms() - t0) / 1000.0);
	ret = EXIT_CLEAN;
out:
	xfsj_recover_free(run.rc);
	xfsj_overlay_free(ov);
	xfsj_log_close(run.log);
	xfsj_io_close(cio);
	return ret;
}

int main(int argc, char **argv)
{
	struct opts o = { 0 };
	struct xfsj_io *io, *logio = NULL;
	int c, err, ret;

	while ((c = getopt(argc, argv, "nl:r:vPVh")) != -1) {
		switch (c) {
		case 'n': o.nomodify = true; break;
		case 'l': o.logdev = optarg; break;
		case 'r': o.redo = optarg; break;
		case 'v': o.verbose = true; break;
		case 'P': o.force_progress = true; break;
		case 'V':
			printf("xfsj-repair version %s\n", PACKAGE_VERSION);
			return EXIT_CLEAN;
		case 'h':
			usage(stdout);
			return EXIT_CLEAN;
		default:
			usage(stderr);
			return EXIT_ERROR;
		}
	}
	if (optind != argc - 1) {
		usage(stderr);
		return EXIT_ERROR;
	}
	o.device = argv[optind];
	if (xfsj_path_mounted(o.device)) {
		fprintf(stderr, "xfsj-repair: %s contains a mounted filesystem; unmount it first\n",
			o.device);
		return EXIT_ERROR;
	}
	if (o.logdev && (xfsj_path_mounted(o.logdev) || xfsj_path_held(o.logdev))) {
		fprintf(stderr, "xfsj-repair: %s is in use (the log of a mounted filesystem?); unmount it first\n",
			o.logdev);
		return EXIT_ERROR;
	}
	err = xfsj_io_open(o.device, o.nomodify ? XFSJ_IO_RDONLY : XFSJ_IO_EXCL,
			   &io);
	if (err) {
		fprintf(stderr, "xfsj-repair: cannot open %s: %s\n", o.device,
			xfsj_strerror(err));
		return EXIT_ERROR;
	}
	if (o.logdev) {
		err = xfsj_io_open(o.logdev, o.nomodify ? XFSJ_IO_RDONLY :
			XFSJ_IO_EXCL, &logio);
		if (err) {
			fprintf(stderr, "xfsj-repair: cannot open %s: %s\n",
				o.logdev, xfsj_strerror(err));
			xfsj_io_close(io);
			return EXIT_ERROR;
		}
	}
	ret = replay(&o, io, logio);
	xfsj_io_close(logio);
	xfsj_io_close(io);
	return ret;
}
