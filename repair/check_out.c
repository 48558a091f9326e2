/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * xfsj-repair -n: run the checker over the replayed filesystem and word
 * what it finds, as text or JSON Lines, with progress on a terminal.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "xfsj/check.h"
#include "xfsj/fs.h"
#include "xfsj/repair.h"
#include "repair.h"

struct out {
	const char *dev;
	bool json;
	struct progress_line pl;
	FILE *txt;
	struct problem_group grp;	/* the text, till the check ends */
	uint64_t id_base;	/* added to the check's problem numbers */
};

const char *repair_prog = "xfsj-repair";
const char *repair_full_repair = "run xfsj-repair without -p";

void tool_err(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", repair_prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* A JSON string: quotes, backslashes and control bytes escaped. */
void json_str(FILE *f, const char *s, size_t n)
{
	size_t i;

	fputc('"', f);
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

enum xfsj_progress_form progress_form(bool asked)
{
	if (asked)
		return XFSJ_PROGRESS_JSON;
	return isatty(STDERR_FILENO) ? XFSJ_PROGRESS_TERM : XFSJ_PROGRESS_OFF;
}

void progress_clear(struct progress_line *pl)
{
	char buf[8];

	if (xfsj_progress_clear(&pl->p, buf, sizeof(buf)))
		fputs(buf, stderr);
}

void progress_step(struct progress_line *pl, const char *phase,
		   uint64_t done, uint64_t total)
{
	char buf[512];

	if (xfsj_progress_step(&pl->p, phase, done, total, now_ms(), buf,
			       sizeof(buf)))
		fputs(buf, stderr);
}

void progress_end(struct progress_line *pl)
{
	char buf[512];

	if (xfsj_progress_end(&pl->p, now_ms(), buf, sizeof(buf)))
		fputs(buf, stderr);
}

void progress_show(struct progress_line *pl, enum xfsj_check_phase ph,
		   uint64_t done, uint64_t total)
{
	char phase[64];

	if (pl->p.form == XFSJ_PROGRESS_OFF)
		return;
	snprintf(phase, sizeof(phase), "checking %s",
		 xfsj_check_phase_name(ph));
	progress_step(pl, phase, done, total);
}

void json_place(unsigned int has, uint32_t agno, uint32_t agbno, uint64_t ino)
{
	if (has & XFSJ_PF_AG)
		printf(",\"ag\":%" PRIu32, agno);
	if (has & XFSJ_PF_AGBNO)
		printf(",\"agbno\":%" PRIu32, agbno);
	if (has & XFSJ_PF_INO)
		printf(",\"ino\":%" PRIu64, ino);
}

void json_field(const char *field)
{
	if (!field)
		return;
	printf(",\"field\":");
	json_str(stdout, field, strlen(field));
}

void print_problem_json(const struct xfsj_problem *p, const char *tag)
{
	char msg[512];

	xfsj_problem_format(p, msg, sizeof(msg));
	printf("{\"kind\":\"problem\",\"state\":\"%s\",\"id\":%" PRIu64 ",",
	       tag ? tag : "found", p->id);
	if (p->has & XFSJ_PF_CAUSE)
		printf("\"cause\":%" PRIu64 ",", p->cause);
	printf("\"code\":\"%s\",\"num\":\"0x%06" PRIx32 "\",\"severity\":\"%s\","
	       "\"structure\":\"%s\",\"fix\":\"%s\"",
	       p->def->code, p->def->num, xfsj_sev_name(p->def->sev),
	       p->def->structure, xfsj_fix_name(p->def->fix));
	json_place(p->has, p->agno, p->agbno, p->ino);
	if (p->has & XFSJ_PF_FSBNO)
		printf(",\"fsbno\":%" PRIu64, p->fsbno);
	if (p->has & XFSJ_PF_OFF)
		printf(",\"off\":%" PRIu64, p->off);
	json_field(p->field);
	if (p->has & XFSJ_PF_EXPECTED)
		printf(",\"expected\":%" PRIu64, p->expected);
	if (p->has & XFSJ_PF_FOUND)
		printf(",\"found\":%" PRIu64, p->found);
	if (p->has & XFSJ_PF_COUNT)
		printf(",\"count\":%" PRIu64, p->count);
	if (p->name) {
		printf(",\"name\":");
		json_str(stdout, p->name, p->namelen);
	}
	printf(",\"message\":");
	json_str(stdout, msg, strlen(msg));
	printf("}\n");
}

static void on_problem(void *arg, const struct xfsj_problem *p)
{
	struct out *o = arg;
	struct xfsj_problem q;

	if (o->id_base) {
		q = *p;
		q.id += o->id_base;
		q.cause += o->id_base;
		p = &q;
	}

	if (!o->json) {
		group_add(&o->grp, p);
		return;
	}
	progress_clear(&o->pl);
	print_problem_json(p, NULL);
}

static void on_progress(void *arg, enum xfsj_check_phase ph, uint64_t done,
			uint64_t total)
{
	struct out *o = arg;

	progress_show(&o->pl, ph, done, total);
}

/* The JSON summary's names of the check's work counters. */
static const char *const work_names[XFSJ_WK__N] = {
	[XFSJ_WK_SB] = "superblocks",
	[XFSJ_WK_AGH] = "ag_headers",
	[XFSJ_WK_AGBT] = "ag_btree_records",
	[XFSJ_WK_INODES] = "inodes",
	[XFSJ_WK_MAPS] = "fork_mappings",
	[XFSJ_WK_DIRENTS] = "dir_entries",
	[XFSJ_WK_ATTRS] = "attributes",
	[XFSJ_WK_LOOKUPS] = "mapping_lookups",
	[XFSJ_WK_SPACE] = "space_records",
	[XFSJ_WK_NAMES] = "names",
	[XFSJ_WK_COUNTERS] = "counters",
};

void print_work(const uint64_t *work, unsigned int full, unsigned int local)
{
	int i;

	printf(",\"work\":{");
	for (i = 0; i < XFSJ_WK__N; i++)
		printf("%s\"%s\":%" PRIu64, i ? "," : "", work_names[i],
		       work[i]);
	if (full || local)
		printf(",\"full_checks\":%u,\"local_checks\":%u", full, local);
	printf("}");
}

/* How a check ended: the summary (or why it could not run). */
static enum check_outcome check_end(struct out *o, int err,
				    const struct xfsj_check_result *r)
{
	const char *dev = o->dev;
	bool json = o->json;
	FILE *txt = o->txt;

	if (err)
		progress_clear(&o->pl);
	progress_end(&o->pl);
	group_flush(&o->grp);
	if (err) {
		const struct xfsj_fault *f = &r->fault;

		if (f->structure)
			tool_err("%s: cannot check: %s %s at byte %" PRIu64 ": %s\n",
				dev, f->structure, f->field ? f->field : "",
				f->offset, xfsj_strerror(err));
		else
			tool_err("%s: cannot check: %s\n",
				dev, xfsj_strerror(err));
		if (json)
			printf("{\"kind\":\"check_summary\",\"checked\":false,\"error\":\"%s\"}\n",
			       xfsj_errname(err));
		return CHECK_FAILED;
	}
	if (json) {
		printf("{\"kind\":\"check_summary\",\"checked\":true,\"problems\":%" PRIu64
		       ",\"corrupt\":%" PRIu64 ",\"xcorrupt\":%" PRIu64
		       ",\"warnings\":%" PRIu64 ",\"inodes\":%" PRIu64
		       ",\"extents\":%" PRIu64 ",\"state_bytes\":%" PRIu64,
		       r->problems, r->by_sev[XFSJ_SEV_CORRUPT],
		       r->by_sev[XFSJ_SEV_XCORRUPT], r->by_sev[XFSJ_SEV_WARN],
		       r->inodes, r->extents, r->peak_state_bytes);
		print_work(r->work, 0, 0);
		printf("}\n");
	} else
		fprintf(txt, "%s: checked %" PRIu64 " inodes, %" PRIu64
			" extents: %" PRIu64 " problem%s found\n", dev,
			r->inodes, r->extents, r->problems,
			r->problems == 1 ? "" : "s");
	return r->problems ? CHECK_PROBLEMS : CHECK_CLEAN;
}

/* -v: where the tables went, when some spilled. */
static void say_spill(const char *dev, struct xfsj_spill *spill, FILE *txt)
{
	struct xfsj_spill_stats st;

	xfsj_spill_stats(spill, &st);
	if (st.spills)
		fprintf(txt, "%s: tables: at most %" PRIu64 " bytes in RAM and %" PRIu64 " in scratch file %s (unlinked); %" PRIu64 " tables spilled, resident pages dropped %" PRIu64 " times\n",
			dev, st.ram_peak, st.file_peak, xfsj_spill_path(spill),
			st.spills, st.drops);
}

enum check_outcome check_replayed(const char *dev, struct xfsj_replay *keep,
				  uint64_t lsn, bool json, bool verbose,
				  enum xfsj_progress_form progress,
				  uint64_t cache_bytes, unsigned int threads,
				  unsigned int ag_stride, struct xfsj_spill *spill,
				  FILE *txt)
{
	const struct xfsj_check_opts copts = {
		.cache_bytes = cache_bytes, .threads = threads,
		.ag_stride = ag_stride, .spill = spill,
	};
	struct out o = {
		.dev = dev, .json = json, .pl = PROGRESS_LINE(progress), .txt = txt,
		.grp = { .verbose = verbose },
	};
	const struct xfsj_check_cb cb = {
		.arg = &o,
		.problem = on_problem,
		.progress = on_progress,
	};
	struct xfsj_check_result res;
	struct xfsj_fs *fs;
	int err;

	err = xfsj_fs_open(xfsj_replay_overlay(keep), xfsj_replay_sb(keep),
			   lsn, &fs);
	if (err) {
		tool_err("%s: cannot check: %s\n", dev,
			xfsj_strerror(err));
		return CHECK_FAILED;
	}
	err = xfsj_check(fs, &copts, &cb, &res);
	xfsj_fs_close(fs);
	if (err) {
		progress_clear(&o.pl);
		if (spill_failure(dev, spill)) {
			if (json)
				printf("{\"kind\":\"check_summary\",\"checked\":false,\"error\":\"%s\"}\n",
				       xfsj_errname(-XFSJ_E_SCRATCH));
			return CHECK_FAILED;
		}
	}
	if (!err && verbose && spill)
		say_spill(dev, spill, txt);
	return check_end(&o, err, &res);
}

bool spill_failure(const char *dev, struct xfsj_spill *spill)
{
	struct xfsj_spill_stats st;

	if (!spill)
		return false;
	xfsj_spill_stats(spill, &st);
	if (!st.failed_errno)
		return false;
	tool_err("%s: scratch file %s cannot hold %" PRIu64 " more bytes of the check's tables: %s; nothing was written (--tmpdir DIR: another place, -m MiB: a larger bound)\n",
		dev, xfsj_spill_path(spill), st.failed_bytes,
		strerror(st.failed_errno));
	return true;
}

void list_problems(bool json, FILE *f)
{
	size_t i, n = xfsj_problem_count();

	if (!json)
		fprintf(f, "%-8s  %-28s  %-8s  %-18s  %-20s  %-31s  %-4s  %s\n",
			"number", "code", "severity", "structure", "fix",
			"handler", "impl", "message");
	for (i = 0; i < n; i++) {
		const struct xfsj_problem_def *d = xfsj_problem_nth(i);

		if (!json) {
			fprintf(f, "0x%06" PRIx32 "  %-28s  %-8s  %-18s  %-20s  %-31s  %-4s  %s\n",
				d->num, d->code, xfsj_sev_name(d->sev),
				d->structure, xfsj_fix_name(d->fix),
				xfsj_handler_name(d->handler),
				d->fix == XFSJ_FIX_NONE ? "-" :
				xfsj_handler_implemented(d->handler) ? "yes" :
				"no", d->msg);
			continue;
		}
		fprintf(f, "{\"kind\":\"problem_def\",\"num\":\"0x%06" PRIx32 "\",\"code\":", d->num);
		json_str(f, d->code, strlen(d->code));
		fprintf(f, ",\"severity\":\"%s\",\"structure\":",
			xfsj_sev_name(d->sev));
		json_str(f, d->structure, strlen(d->structure));
		fprintf(f, ",\"fix\":\"%s\",\"handler\":\"%s\","
			"\"implemented\":%s,\"message\":",
			xfsj_fix_name(d->fix), xfsj_handler_name(d->handler),
			xfsj_handler_implemented(d->handler) ? "true" :
			"false");
		json_str(f, d->msg, strlen(d->msg));
		fputs("}\n", f);
	}
}

enum check_outcome check_unreplayable(const char *dev, struct xfsj_io *io,
				      const struct xfsj_fault *f, bool json,
				      FILE *txt)
{
	struct out o = { .dev = dev, .json = json, .txt = txt };
	const struct xfsj_check_cb cb = { .arg = &o, .problem = on_problem };
	const struct xfsj_problem_def *d =
		xfsj_problem_by_code("log.unreplayable");
	struct xfsj_check_result res;
	enum check_outcome out;
	int err;

	if (!d)
		return CHECK_FAILED;
	on_problem(&o, &(struct xfsj_problem){
		.def = d, .has = XFSJ_PF_OFF, .off = f->offset,
		.field = f->field ? f->field : f->structure });
	group_flush(&o.grp);
	o.id_base = 1;		/* the superblocks' problems come after */
	fprintf(txt, "%s: checking the superblocks as they are on disk\n",
		dev);
	err = xfsj_check_superblocks(io, &cb, &res);
	if (!err) {
		/* The log's problem counts too. */
		res.problems++;
		res.by_sev[XFSJ_SEV_CORRUPT]++;
	}
	out = check_end(&o, err, &res);
	return out == CHECK_FAILED ? CHECK_FAILED : CHECK_PROBLEMS;
}
