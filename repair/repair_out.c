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

/* One fix as said: the fixes of one field of one object merged. */
struct fix_rec {
	enum xfsj_fix fix;
	const struct xfsj_problem_def *def;	/* the problem's row, or NULL */
	unsigned int has;
	uint32_t agno, agbno;
	uint64_t ino, count;
	char *field;		/* the problem's field, or NULL */
	bool has_old, has_new;
	uint64_t old;		/* the first fix's value found */
	uint64_t new;		/* the last fix's value set */
	char *what;		/* the last fix's words */
	unsigned int times;	/* fixes merged into it */
	bool has_why;		/* an ownership decision: */
	struct xfsj_repair_why why;	/* the evidence that decided it */
};

struct rout {
	const struct repair_args *a;
	struct progress_line pl;
	struct problem_group found, left;
	bool found_said;
	struct fix_rec *fixes;
	size_t nfix, capfix;
	bool nomem;		/* a fix record could not be kept */
	/* The counter rows whose fixes are FIELD fixes (agf, agi). */
	const struct xfsj_problem_def *counter_rows[2];
};

static void on_found(void *arg, const struct xfsj_problem *p)
{
	struct rout *r = arg;

	if (!r->a->json) {
		group_add(&r->found, p);
		return;
	}
	progress_clear(&r->pl);
	print_problem_json(p, "found");
}

/* The first check's problems, said once, before anything that follows. */
static void say_found(struct rout *r)
{
	if (r->found_said)
		return;
	r->found_said = true;
	progress_clear(&r->pl);
	group_flush(&r->found);
}

static void on_left(void *arg, const struct xfsj_problem *p)
{
	struct rout *r = arg;

	if (!r->a->json) {
		group_add(&r->left, p);
		return;
	}
	progress_clear(&r->pl);
	print_problem_json(p, "left");
}

/*
 * Is @a a fix of the same field of the same object as @f (a value set
 * again in a later round)?  Only fixes that set a value the check
 * expected merge.
 */
static bool same_field(const struct fix_rec *f,
		       const struct xfsj_repair_action *a)
{
	const struct xfsj_problem *p = a->problem;
	unsigned int where = XFSJ_PF_AG | XFSJ_PF_AGBNO | XFSJ_PF_INO;

	if (!p || !(p->has & XFSJ_PF_EXPECTED) || f->fix != a->fix ||
	    f->def != p->def || (f->has & where) != (a->has & where))
		return false;
	if (((a->has & XFSJ_PF_AG) && f->agno != a->agno) ||
	    ((a->has & XFSJ_PF_AGBNO) && f->agbno != a->agbno) ||
	    ((a->has & XFSJ_PF_INO) && f->ino != a->ino))
		return false;
	if (!f->field || !p->field)
		return !f->field && !p->field;
	return strcmp(f->field, p->field) == 0;
}

static char *dup_str(const char *s)
{
	return s ? strdup(s) : NULL;
}

/* Keep fix @a: merged into the record of its field, or a new record. */
static void on_action(void *arg, const struct xfsj_repair_action *a)
{
	struct rout *r = arg;
	const struct xfsj_problem *p = a->problem;
	struct fix_rec *f = NULL;
	char *what = strdup(a->what);
	size_t i;

	say_found(r);
	for (i = r->nfix; i-- > 0;)
		if (same_field(&r->fixes[i], a)) {
			f = &r->fixes[i];
			break;
		}
	if (!what)
		goto nomem;
	if (!f) {
		if (tool_grow(&r->fixes, &r->capfix, r->nfix, sizeof(*f)))
			goto nomem;
		f = &r->fixes[r->nfix];
		*f = (struct fix_rec){
			.fix = a->fix, .def = p ? p->def : NULL, .has = a->has,
			.agno = a->agno, .agbno = a->agbno, .ino = a->ino,
			.field = p ? dup_str(p->field) : NULL,
			.has_old = p && (p->has & XFSJ_PF_FOUND),
			.old = p ? p->found : 0,
		};
		if (p && p->field && !f->field)
			goto nomem;
		r->nfix++;
	}
	free(f->what);
	f->what = what;
	f->count = a->count;
	f->has_new = p && (p->has & XFSJ_PF_EXPECTED);
	f->new = p ? p->expected : 0;
	f->has_why = a->why != NULL;
	if (a->why)
		f->why = *a->why;
	f->times++;
	return;
nomem:
	free(what);
	r->nomem = true;
}

/* A fix merged from several that only put the first value back. */
static bool undone(const struct fix_rec *f)
{
	return f->times > 1 && f->has_old && f->has_new && f->old == f->new;
}

/* "  why: keep by header, rmapbt (scores 40 over 8)" */
static void print_why_text(const struct xfsj_repair_why *w)
{
	printf("  why: %s", w->outcome);
	for (unsigned int i = 0; i < w->nrows; i++)
		printf("%s%s", i ? ", " : " by ", w->rows[i]);
	printf(" (scores %d over %d)\n", w->kept, w->gave_way);
}

/* ,"decision":"keep","why":["header"],"scores":{"kept":40,"gave_way":8} */
static void print_why_json(const struct xfsj_repair_why *w)
{
	printf(",\"decision\":\"%s\",\"why\":[", w->outcome);
	for (unsigned int i = 0; i < w->nrows; i++)
		printf("%s\"%s\"", i ? "," : "", w->rows[i]);
	printf("],\"scores\":{\"kept\":%d,\"gave_way\":%d}", w->kept,
	       w->gave_way);
}

static void print_fix(const struct rout *r, const struct fix_rec *f)
{
	const char *code = f->def ? f->def->code : NULL;

	if (!r->a->json) {
		const char *tag = r->a->dry ? "would fix" : "fixed";

		printf("%s: ", tag);
		if (code)
			printf("%s: ", code);
		printf("%s", f->what);
		if (f->times > 1 && f->has_old)
			printf(" (was %" PRIu64 ")", f->old);
		putchar('\n');
		if (f->has_why && r->a->verbose)
			print_why_text(&f->why);
		return;
	}
	printf("{\"kind\":\"fix\",\"fix\":\"%s\"", xfsj_fix_name(f->fix));
	if (r->a->dry)
		printf(",\"dry\":true");
	if (code)
		printf(",\"code\":\"%s\"", code);
	json_place(f->has, f->agno, f->agbno, f->ino);
	if (f->has & XFSJ_PF_COUNT)
		printf(",\"count\":%" PRIu64, f->count);
	json_field(f->field);
	if (f->has_old)
		printf(",\"old\":%" PRIu64, f->old);
	if (f->has_new)
		printf(",\"new\":%" PRIu64, f->new);
	if (f->times > 1)
		printf(",\"times\":%u", f->times);
	if (f->has_why)
		print_why_json(&f->why);
	printf(",\"what\":");
	json_str(stdout, f->what, strlen(f->what));
	printf("}\n");
}

/* What the fixes did, by kind: the summary's categories. */
enum fix_cat {
	CAT_FIELDS, CAT_INODES, CAT_MOVED, CAT_REMOVED, CAT_BLOCKS,
	CAT_BTREES, CAT_HEADERS, CAT_COUNTERS, CAT_DIRS, CAT_ATTRS,
	CAT_FORKS, CAT_PPTRS, CAT_CLONED, CAT__N
};

static const struct {
	const char *text;	/* in the text summary */
	const char *json;	/* its key in the JSON summary */
} cats[CAT__N] = {
	[CAT_FIELDS] = { "fields", "fields_fixed" },
	[CAT_INODES] = { "inodes cleared", "inodes_cleared" },
	[CAT_MOVED] = { "entries reconnected", "entries_moved" },
	[CAT_REMOVED] = { "entries removed", "entries_removed" },
	[CAT_BLOCKS] = { "blocks reclaimed", "blocks_reclaimed" },
	[CAT_BTREES] = { "btrees rebuilt", "btrees_rebuilt" },
	[CAT_HEADERS] = { "headers rebuilt", "headers_rebuilt" },
	[CAT_COUNTERS] = { "counters", "counters_fixed" },
	[CAT_DIRS] = { "directories rebuilt", "dirs_rebuilt" },
	[CAT_ATTRS] = { "attribute forks rebuilt", "attr_forks_rebuilt" },
	[CAT_FORKS] = { "forks fixed", "forks_fixed" },
	[CAT_PPTRS] = { "parent pointers", "pptrs_fixed" },
	[CAT_CLONED] = { "blocks cloned", "blocks_cloned" },
};

/* The category of each kind of fix. */
static const enum fix_cat fix_cats[XFSJ_FIX__COUNT] = {
	[XFSJ_FIX_NONE] = CAT__N,
	[XFSJ_FIX_FIELD] = CAT_FIELDS,
	[XFSJ_FIX_SB_FROM_SECONDARY] = CAT_HEADERS,
	[XFSJ_FIX_AG_HEADER] = CAT_HEADERS,
	[XFSJ_FIX_REBUILD_BTREE] = CAT_BTREES,
	[XFSJ_FIX_REBUILD_BMBT] = CAT_FORKS,
	[XFSJ_FIX_CLEAR_INODE] = CAT_INODES,
	[XFSJ_FIX_CLEAR_FORK] = CAT_FORKS,
	[XFSJ_FIX_SALVAGE_DIR] = CAT_DIRS,
	[XFSJ_FIX_CLEAR_ENTRY] = CAT_REMOVED,
	[XFSJ_FIX_SALVAGE_ATTR] = CAT_ATTRS,
	[XFSJ_FIX_NLINK] = CAT_FIELDS,
	[XFSJ_FIX_RECONNECT] = CAT_MOVED,
	[XFSJ_FIX_PPTR] = CAT_PPTRS,
	[XFSJ_FIX_FREE_SPACE] = CAT_BLOCKS,
	[XFSJ_FIX_COUNTERS] = CAT_COUNTERS,
	[XFSJ_FIX_UNLINKED] = CAT_FIELDS,
};

/* The category of fix record @f: its kind's, a counter row's own. */
static enum fix_cat fix_cat(const struct rout *r, const struct fix_rec *f)
{
	if (f->def && (f->def == r->counter_rows[0] ||
		       f->def == r->counter_rows[1]))
		return CAT_COUNTERS;
	return f->fix < XFSJ_FIX__COUNT ? fix_cats[f->fix] : CAT__N;
}

/* The fixes said: the records kept, each once; their number. */
static uint64_t say_fixes(struct rout *r, uint64_t *by_cat)
{
	uint64_t n = 0;
	size_t i;

	say_found(r);
	for (i = 0; i < r->nfix; i++) {
		struct fix_rec *f = &r->fixes[i];
		enum fix_cat c = fix_cat(r, f);

		if (!undone(f)) {
			print_fix(r, f);
			n++;
			if (c != CAT__N)
				by_cat[c] += c == CAT_BLOCKS ? f->count : 1;
		}
		free(f->what);
		free(f->field);
	}
	free(r->fixes);
	r->fixes = NULL;
	r->nfix = r->capfix = 0;
	if (r->nomem)
		tool_err("out of memory: not every fix is listed\n");
	return n;
}

static void on_round(void *arg, unsigned int round,
		     enum xfsj_repair_stage stage)
{
	struct rout *r = arg;

	say_found(r);
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

/*
 * A primary superblock restored before the replay (repair_primary) gives
 * no summary of its own: its counts join the one of the run that follows.
 */
static struct {
	uint64_t found, fixes, by_cat[CAT__N];
} carried;

static void summary(const struct repair_args *a,
		    const struct xfsj_repair_result *res, uint64_t fixes,
		    uint64_t *by_cat, uint64_t pages)
{
	uint64_t found = res->first.problems + carried.found;
	const char *sep = " (";
	int i;

	by_cat[CAT_CLONED] = res->blocks_cloned;
	fixes += carried.fixes;
	for (i = 0; i < CAT__N; i++)
		by_cat[i] += carried.by_cat[i];
	memset(&carried, 0, sizeof(carried));
	if (a->json) {
		printf("{\"kind\":\"repair_summary\",\"repaired\":%s,\"found\":%" PRIu64
		       ",\"fixes\":%" PRIu64 ",\"left\":%" PRIu64
		       ",\"left_corrupt\":%" PRIu64 ",\"left_no_fix\":%" PRIu64
		       ",\"rounds\":%u",
		       res->changed ? "true" : "false", found,
		       fixes, res->left, res->left_corrupt, res->left_nofix,
		       res->rounds);
		for (i = 0; i < CAT__N; i++)
			printf(",\"%s\":%" PRIu64, cats[i].json, by_cat[i]);
		printf(",\"pages_written\":%" PRIu64 ",\"clones_short\":%" PRIu64,
		       pages, res->clones_short);
		printf(",\"full_checks\":%u,\"local_checks\":%u",
		       res->full_checks, res->local_checks);
		print_work(res->work, res->full_checks, res->local_checks);
		if (res->preen_refused)
			printf(",\"preen_refused\":\"%s\"",
			       res->preen_refused->code);
		printf("}\n");
		return;
	}
	fprintf(a->txt, "%s: %" PRIu64 " problem%s found, %" PRIu64
		" fix%s applied, %" PRIu64 " left", a->device,
		found, found == 1 ? "" : "s",
		fixes, fixes == 1 ? "" : "es", res->left);
	/* What the fixes did, the kinds that did something only. */
	for (i = 0; i < CAT__N; i++) {
		if (!by_cat[i])
			continue;
		fprintf(a->txt, "%s%s %" PRIu64, sep, cats[i].text, by_cat[i]);
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
		.spill = a->spill,
		.threads = a->threads,
		.ag_stride = a->ag_stride,
		.sb_only = sb_only,
		.after_stage = getenv("XFSJ_REPAIR_TEST_WORSEN") ? test_worsen :
				NULL,
	};
	struct rout r = {
		.a = a, .pl = PROGRESS_LINE(a->progress),
		.found = { .tag = "found", .verbose = a->verbose },
		.left = { .tag = "left", .verbose = a->verbose },
		.counter_rows = { xfsj_problem_by_code("agf.counter"),
				  xfsj_problem_by_code("agi.counter") },
	};
	uint64_t by_cat[CAT__N] = { 0 }, fixes;
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
		tool_err("%s: cannot repair: %s\n",
			a->device, xfsj_strerror(err));
		return REPAIR_FAILED;
	}
	err = xfsj_repair(fs, &ro, &cb, &res);
	if (err)
		progress_clear(&r.pl);
	progress_end(&r.pl);
	fixes = say_fixes(&r, by_cat);
	group_flush(&r.left);
	/* The geometry a restored primary gave, for the commit. */
	now = *xfsj_fs_sb(fs);
	sb = &now;
	xfsj_fs_close(fs);
	if (err && spill_failure(a->device, a->spill)) {
		if (a->json)
			printf("{\"kind\":\"repair_summary\",\"repaired\":false,\"error\":\"%s\"}\n",
			       xfsj_errname(-XFSJ_E_SCRATCH));
		return REPAIR_FAILED;
	}
	if (err) {
		if (res.fault.structure)
			tool_err("%s: cannot repair: %s %s at byte %" PRIu64 ": %s (nothing written)\n",
				a->device, res.fault.structure,
				res.fault.field ? res.fault.field : "",
				res.fault.offset, xfsj_strerror(err));
		else
			tool_err("%s: cannot repair: %s (nothing written)\n",
				a->device, xfsj_strerror(err));
		if (a->json)
			printf("{\"kind\":\"repair_summary\",\"repaired\":false,\"error\":\"%s\"}\n",
			       xfsj_errname(err));
		return REPAIR_FAILED;
	}
	if (res.preen_refused)
		fprintf(a->txt, "%s: preen stops: %s needs a full repair (%s)\n",
			a->device, res.preen_refused->code,
			repair_full_repair);
	if (a->dry)
		return res.changed ? REPAIR_FIXED : REPAIR_NOTHING;
	if (res.worse && !a->force_worse) {
		tool_err("%s: the repair would leave the filesystem worse than it found it (weight %" PRIu64 " before, %" PRIu64 " after); nothing written (--force writes it)\n",
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
				tool_err("%s: cannot write undo file %s: %s; nothing was written to the device\n",
					a->device, a->undo, xfsj_strerror(err));
			else
				tool_err("%s: cannot write the repair: %s (run again: the redo file %s finishes it)\n",
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
	if (!sb_only || res.left) {
		summary(a, &res, fixes, by_cat, pages);
	} else if (!a->dry) {
		carried.found += res.first.problems;
		carried.fixes += fixes;
		for (int i = 0; i < CAT__N; i++)
			carried.by_cat[i] += by_cat[i];
	}
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
	tool_err("%s: %s\n", dev, why);
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
			tool_err("%s %s: neither a regular file nor a block device\n",
				what, path);
			return false;
		}
		if (xfsj_path_mounted(path) || xfsj_path_held(path)) {
			tool_err("%s %s is in use (mounted?)\n",
				what, path);
			return false;
		}
		if (S_ISREG(st.st_mode) && st.st_size && !force) {
			tool_err("%s %s exists and is not empty; -f overwrites it\n",
				what, path);
			return false;
		}
		/* Made anew: nothing of the file's old contents is kept. */
		if (S_ISREG(st.st_mode) && truncate(path, 0) < 0) {
			tool_err("cannot empty %s %s: %s\n",
				what, path, strerror(errno));
			return false;
		}
	} else {
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (fd < 0) {
			tool_err("cannot create %s %s: %s\n",
				what, path, strerror(errno));
			return false;
		}
		close(fd);
		*created = true;
	}
	err = xfsj_io_open(path, XFSJ_IO_EXCL, out);
	if (err) {
		tool_err("cannot open %s %s: %s\n", what,
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
		tool_err("%s %s would overwrite the original %s: the original is never written with -O\n",
			what, path, src_path);
		return false;
	}
	if (!open_target(path, what, force, &created, out))
		return false;
	err = xfsj_io_copy(src, *out, on_copy_progress, &cp, &st);
	progress_end(&cp);
	if (err) {
		tool_err("copying %s to %s %s: %s%s\n",
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
