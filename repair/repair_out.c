/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * xfsj-repair without -n: repair what the check finds in the replayed
 * state, say each fix, then commit the replay and the repair together
 * (the needs-repair flag first).  Text, or JSON Lines (doc/json-schema.json):
 * one "problem" object per problem found (state "found") and per problem
 * left (state "left"), one "fix" object per fix, then a "repair_summary".
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "xfsj/errors.h"
#include "xfsj/io.h"
#include "xfsj/ondisk.h"
#include "xfsj/redo.h"
#include "xfsj/repair.h"
#include "xfsj/replay.h"
#include "xfsj/undo.h"
#include "repair.h"

struct rout {
	const struct repair_args *a;
	struct progress_line pl;
};

static void on_found(void *arg, const struct xfsj_problem *p)
{
	struct rout *r = arg;

	progress_clear(&r->pl);
	print_problem(p, r->a->json, "found");
}

static void on_left(void *arg, const struct xfsj_problem *p)
{
	struct rout *r = arg;

	progress_clear(&r->pl);
	print_problem(p, r->a->json, "left");
}

static void on_action(void *arg, const struct xfsj_repair_action *a)
{
	struct rout *r = arg;
	const char *code = a->problem ? a->problem->def->code : NULL;

	progress_clear(&r->pl);
	if (!r->a->json) {
		const char *tag = r->a->dry ? "would fix" : "fixed";

		if (code)
			printf("%s: %s: %s\n", tag, code, a->what);
		else
			printf("%s: %s\n", tag, a->what);
		return;
	}
	printf("{\"kind\":\"fix\",\"fix\":\"%s\"", xfsj_fix_name(a->fix));
	if (r->a->dry)
		printf(",\"dry\":true");
	if (code)
		printf(",\"code\":\"%s\"", code);
	if (a->has & XFSJ_PF_AG)
		printf(",\"ag\":%" PRIu32, a->agno);
	if (a->has & XFSJ_PF_AGBNO)
		printf(",\"agbno\":%" PRIu32, a->agbno);
	if (a->has & XFSJ_PF_INO)
		printf(",\"ino\":%" PRIu64, a->ino);
	if (a->has & XFSJ_PF_COUNT)
		printf(",\"count\":%" PRIu64, a->count);
	printf(",\"what\":");
	json_str(stdout, a->what, strlen(a->what));
	printf("}\n");
}

static void on_round(void *arg, unsigned int round,
		     enum xfsj_repair_stage stage)
{
	struct rout *r = arg;

	if (!r->a->verbose)
		return;
	progress_clear(&r->pl);
	fprintf(r->a->txt, "%s: round %u: fixing the %s\n", r->a->device,
		round, xfsj_repair_stage_name(stage));
}

static void on_progress(void *arg, enum xfsj_check_phase ph, uint64_t done,
			uint64_t total)
{
	struct rout *r = arg;

	progress_show(&r->pl, ph, done, total);
}

static void summary(const struct repair_args *a,
		    const struct xfsj_repair_result *res, uint64_t pages)
{
	if (a->json) {
		printf("{\"kind\":\"repair_summary\",\"repaired\":%s,\"found\":%" PRIu64
		       ",\"fixes\":%" PRIu64 ",\"left\":%" PRIu64
		       ",\"left_corrupt\":%" PRIu64 ",\"left_no_fix\":%" PRIu64
		       ",\"rounds\":%u"
		       ",\"fields_fixed\":%" PRIu64 ",\"inodes_cleared\":%" PRIu64
		       ",\"entries_moved\":%" PRIu64 ",\"entries_removed\":%" PRIu64
		       ",\"blocks_reclaimed\":%" PRIu64 ",\"btrees_rebuilt\":%" PRIu64
		       ",\"headers_rebuilt\":%" PRIu64 ",\"counters_fixed\":%" PRIu64
		       ",\"pages_written\":%" PRIu64
		       ",\"blocks_cloned\":%" PRIu64
		       ",\"clones_short\":%" PRIu64 "%s%s%s}\n",
		       res->changed ? "true" : "false", res->first.problems,
		       res->actions, res->left, res->left_corrupt,
		       res->left_nofix, res->rounds,
		       res->fields_fixed, res->inodes_cleared,
		       res->entries_moved, res->entries_removed,
		       res->blocks_reclaimed, res->btrees_rebuilt,
		       res->headers_rebuilt, res->counters_fixed, pages,
		       res->blocks_cloned, res->clones_short,
		       res->preen_refused ? ",\"preen_refused\":\"" : "",
		       res->preen_refused ? res->preen_refused->code : "",
		       res->preen_refused ? "\"" : "");
		return;
	}
	fprintf(a->txt, "%s: %" PRIu64 " problem%s found, %" PRIu64
		" fix%s applied, %" PRIu64 " left", a->device,
		res->first.problems, res->first.problems == 1 ? "" : "s",
		res->actions, res->actions == 1 ? "" : "es", res->left);
	/* What the fixes did, the kinds that did something only. */
	const struct { const char *what; uint64_t n; } done[] = {
		{ "fields", res->fields_fixed },
		{ "inodes cleared", res->inodes_cleared },
		{ "entries to lost+found", res->entries_moved },
		{ "entries removed", res->entries_removed },
		{ "blocks reclaimed", res->blocks_reclaimed },
		{ "btrees rebuilt", res->btrees_rebuilt },
		{ "headers rebuilt", res->headers_rebuilt },
		{ "counters", res->counters_fixed },
		{ "blocks cloned", res->blocks_cloned },
	};
	const char *sep = " (";

	for (size_t i = 0; i < sizeof(done) / sizeof(done[0]); i++) {
		if (!done[i].n)
			continue;
		fprintf(a->txt, "%s%s %" PRIu64, sep, done[i].what, done[i].n);
		sep = ", ";
	}
	if (*sep == ',')
		fputc(')', a->txt);
	if (res->left_nofix)
		fprintf(a->txt, ", %" PRIu64 " left with no fix in this "
			"version", res->left_nofix);
	if (res->clones_short)
		fprintf(a->txt, ", %" PRIu64 " multiply-claimed range%s not "
			"cloned: free space too short", res->clones_short,
			res->clones_short == 1 ? "" : "s");
	fputc('\n', a->txt);
}

/*
 * Repair the filesystem @sb describes in @ov (the superblocks only with
 * @sb_only), say each fix, commit through @redo; the outcome.
 */
/*
 * XFSJ_REPAIR_TEST_WORSEN (tests/system/repair-gate.sh): after each stage
 * of fixes, zero every AG's AGI, a fix that damages, so that the test sees
 * the never-worse gate keep it from the device.
 */
static int test_worsen(void *arg, struct xfsj_fs *fs)
{
	const struct xfsj_sb *sb = xfsj_fs_sb(fs);
	struct xfsj_buf *bp;
	uint32_t agno;
	int err;

	(void)arg;
	for (agno = 0; agno < sb->agcount; agno++) {
		err = xfsj_buf_get_zero(fs, xfsj_agb_to_daddr(sb, agno, 0) +
					2 * (sb->sectsize >> 9),
					sb->sectsize, &bp);
		if (err)
			return err;
		xfsj_buf_dirty(bp);
	}
	return xfsj_fs_flush(fs, NULL);
}

static enum repair_outcome repair_overlay(const struct repair_args *a,
					  struct xfsj_overlay *ov,
					  const struct xfsj_sb *sb,
					  uint64_t lsn, const char *redo,
					  bool sb_only)
{
	const struct xfsj_repair_opts ro = {
		.preen = a->preen,
		.cache_bytes = a->cache_bytes,
		.sb_only = sb_only,
		.after_stage = getenv("XFSJ_REPAIR_TEST_WORSEN") ? test_worsen :
				NULL,
	};
	struct rout r = { .a = a, .pl = PROGRESS_LINE(a->progress) };
	const struct xfsj_repair_cb cb = {
		.arg = &r,
		.problem = on_found,
		.action = on_action,
		.left = on_left,
		.round = on_round,
		.progress = on_progress,
	};
	struct xfsj_repair_result res;
	struct xfsj_fault f = { 0 };
	struct xfsj_sb now;
	struct xfsj_fs *fs;
	uint64_t pages = 0;
	int err;

	err = xfsj_fs_open(ov, sb, lsn, &fs);
	if (err) {
		fprintf(stderr, "xfsj-repair: %s: cannot repair: %s\n",
			a->device, xfsj_strerror(err));
		return REPAIR_FAILED;
	}
	err = xfsj_repair(fs, &ro, &cb, &res);
	if (err)
		progress_clear(&r.pl);
	progress_end(&r.pl);
	/* The geometry a restored primary gave, for the commit. */
	now = *xfsj_fs_sb(fs);
	sb = &now;
	xfsj_fs_close(fs);
	if (err) {
		if (res.fault.structure)
			fprintf(stderr, "xfsj-repair: %s: cannot repair: %s %s at byte %" PRIu64 ": %s (nothing written)\n",
				a->device, res.fault.structure,
				res.fault.field ? res.fault.field : "",
				res.fault.offset, xfsj_strerror(err));
		else
			fprintf(stderr, "xfsj-repair: %s: cannot repair: %s (nothing written)\n",
				a->device, xfsj_strerror(err));
		if (a->json)
			printf("{\"kind\":\"repair_summary\",\"repaired\":false,\"error\":\"%s\"}\n",
			       xfsj_errname(err));
		return REPAIR_FAILED;
	}
	if (res.preen_refused)
		fprintf(stderr, "xfsj-repair: %s: preen stops: %s needs a full repair (run xfsj-repair without -p)\n",
			a->device, res.preen_refused->code);
	if (a->dry)
		return res.changed ? REPAIR_FIXED : REPAIR_NOTHING;
	if (res.worse && !a->force_worse) {
		fprintf(stderr, "xfsj-repair: %s: the repair would leave the filesystem worse than it found it (weight %" PRIu64 " before, %" PRIu64 " after); nothing written (--force writes it)\n",
			a->device, xfsj_check_weight(&res.first),
			xfsj_check_weight(&res.last));
		if (a->json)
			printf("{\"kind\":\"repair_summary\",\"repaired\":false,\"error\":\"worse\"}\n");
		return REPAIR_WORSE;
	}
	if (xfsj_overlay_dirty_pages(ov)) {
		if (res.changed)
			err = xfsj_repair_commit(redo, a->undo, ov, sb, &pages,
						 &a->rcb, &f);
		else
			err = xfsj_redo_commit_undo(redo, a->undo, ov,
						    sb->uuid, &pages, NULL,
						    &a->rcb);
		if (err) {
			if (f.structure && !strcmp(f.structure, "undo file"))
				fprintf(stderr, "xfsj-repair: %s: cannot write undo file %s: %s; nothing was written to the device\n",
					a->device, a->undo, xfsj_strerror(err));
			else
				fprintf(stderr, "xfsj-repair: %s: cannot write the repair: %s (run again: the redo file %s finishes it)\n",
					a->device, xfsj_strerror(err), redo);
			return REPAIR_FAILED;
		}
		if (a->written)
			*a->written = pages > 0;
	}
	/*
	 * The primary superblock's own round: its fix lines say what it
	 * did, and the run that follows gives the one summary; only when
	 * it left problems (and the run stops here) is it summed up.
	 */
	if (!sb_only || res.left)
		summary(a, &res, pages);
	if (res.preen_refused)
		return REPAIR_PREEN_REFUSED;
	if (res.left_corrupt)
		return REPAIR_LEFT;
	return res.changed ? REPAIR_FIXED : REPAIR_NOTHING;
}

enum repair_outcome run_repair(const struct repair_args *a,
			       struct xfsj_replay *keep, uint64_t lsn,
			       const char *redo)
{
	return repair_overlay(a, xfsj_replay_overlay(keep),
			      xfsj_replay_sb(keep), lsn, redo, false);
}

enum repair_outcome repair_primary(const struct repair_args *a,
				   struct xfsj_io *io, const char *redo,
				   const char *redo_dir)
{
	uint8_t sect[XFSJ_SB_DISK_SIZE];
	char path[512];
	struct xfsj_overlay *ov = NULL;
	enum repair_outcome out;
	struct xfsj_sb sb;
	int err;

	err = xfsj_overlay_create(io, &ov);
	if (!err)
		err = xfsj_overlay_read(ov, sect, sizeof(sect), 0);
	if (err) {
		xfsj_overlay_free(ov);
		return REPAIR_FAILED;
	}
	xfsj_sb_decode(sect, &sb);
	if (!redo) {
		xfsj_replay_redo_default(sb.uuid, redo_dir, path, sizeof(path));
		redo = path;
	}
	fprintf(a->txt, "%s: the log cannot be read: checking the primary superblock against the secondaries first\n",
		a->device);
	out = repair_overlay(a, ov, &sb, 0, redo, true);
	if (a->dry && out == REPAIR_FIXED) {
		*a->dry = ov;
		return out;
	}
	xfsj_overlay_free(ov);
	return out;
}

void print_refusal(const char *dev, bool json, bool nomodify,
		   const char *code, const char *why)
{
	fprintf(stderr, "xfsj-repair: %s: %s\n", dev, why);
	if (json)
		printf("{\"kind\":\"%s\",\"%s\":false,\"error\":\"%s\"}\n",
		       nomodify ? "check_summary" : "repair_summary",
		       nomodify ? "checked" : "repaired", code);
}

/* ---- -O: the run written into a copy ---- */

static void on_copy_progress(void *arg, uint64_t done, uint64_t total)
{
	progress_step(arg, "copying", done, total);
}

/* The file behind loop device @blk, into @out; false if none. */
static bool loop_backing(const struct stat *blk, struct stat *out)
{
	char sys[96], path[4096];
	FILE *f;
	bool ok;

	if (!S_ISBLK(blk->st_mode))
		return false;
	snprintf(sys, sizeof(sys), "/sys/dev/block/%u:%u/loop/backing_file",
		 major(blk->st_rdev), minor(blk->st_rdev));
	f = fopen(sys, "r");
	if (!f)
		return false;
	ok = fgets(path, sizeof(path), f) != NULL;
	fclose(f);
	if (!ok)
		return false;
	path[strcspn(path, "\n")] = 0;
	return stat(path, out) == 0;
}

static bool same_inode(const struct stat *a, const struct stat *b)
{
	if (S_ISBLK(a->st_mode) && S_ISBLK(b->st_mode))
		return a->st_rdev == b->st_rdev;
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/*
 * The same file or device (a path given twice, two names of it, or a
 * loop device and the file behind it)?
 */
static bool same_file(const struct stat *a, const char *path)
{
	struct stat b, back;

	if (stat(path, &b) < 0)
		return false;
	return same_inode(a, &b) ||
	       (loop_backing(a, &back) && same_inode(&back, &b)) ||
	       (loop_backing(&b, &back) && same_inode(a, &back));
}

/* Open @path as a target: created when missing (*@created set). */
static bool open_target(const char *path, const char *what, bool force,
			bool *created, struct xfsj_io **out)
{
	struct stat st;
	int err, fd;

	*created = false;
	if (stat(path, &st) == 0) {
		if (!S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode)) {
			fprintf(stderr, "xfsj-repair: %s %s: neither a regular file nor a block device\n",
				what, path);
			return false;
		}
		if (xfsj_path_mounted(path) || xfsj_path_held(path)) {
			fprintf(stderr, "xfsj-repair: %s %s is in use (mounted?)\n",
				what, path);
			return false;
		}
		if (S_ISREG(st.st_mode) && st.st_size && !force) {
			fprintf(stderr, "xfsj-repair: %s %s exists and is not empty; -f overwrites it\n",
				what, path);
			return false;
		}
		/* Made anew: nothing of the file's old contents is kept. */
		if (S_ISREG(st.st_mode) && truncate(path, 0) < 0) {
			fprintf(stderr, "xfsj-repair: cannot empty %s %s: %s\n",
				what, path, strerror(errno));
			return false;
		}
	} else {
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (fd < 0) {
			fprintf(stderr, "xfsj-repair: cannot create %s %s: %s\n",
				what, path, strerror(errno));
			return false;
		}
		close(fd);
		*created = true;
	}
	err = xfsj_io_open(path, XFSJ_IO_EXCL, out);
	if (err) {
		fprintf(stderr, "xfsj-repair: cannot open %s %s: %s\n", what,
			path, xfsj_io_open_strerror(err));
		if (*created)
			unlink(path);
		return false;
	}
	return true;
}

bool copy_to_output(struct xfsj_io *src, const char *src_path,
		    const char *path, const char *what, bool force,
		    enum xfsj_progress_form progress, FILE *txt,
		    struct xfsj_io **out)
{
	struct progress_line cp = PROGRESS_LINE(progress);
	struct xfsj_copy_stats st = { 0 };
	struct stat ss;
	bool created;
	int err;

	if (stat(src_path, &ss) == 0 && same_file(&ss, path)) {
		fprintf(stderr, "xfsj-repair: %s %s would overwrite the original %s: the original is never written with -O\n",
			what, path, src_path);
		return false;
	}
	if (!open_target(path, what, force, &created, out))
		return false;
	err = xfsj_io_copy(src, *out, on_copy_progress, &cp, &st);
	progress_end(&cp);
	if (err) {
		fprintf(stderr, "xfsj-repair: copying %s to %s %s: %s%s\n",
			src_path, what, path,
			err == -XFSJ_E_TOOSMALL ? "the device is smaller than the original" :
			xfsj_strerror(err), created ? " (removed)" : "");
		xfsj_io_close(*out);
		*out = NULL;
		if (created)
			unlink(path);
		return false;
	}
	fprintf(txt, "%s: copied to %s %s (%llu MiB, %llu MiB of it data; the rest left %s); %s is not written\n",
		src_path, what, path, (unsigned long long)(st.bytes >> 20),
		(unsigned long long)((st.data + (1 << 20) - 1) >> 20),
		(*out)->is_bdev ? "zeroed" : "sparse", src_path);
	return true;
}
