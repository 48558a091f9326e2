/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * xfsj-logprint: option parsing, opening, and the choice of view.  All
 * log reading is libjournal's (logread.h); this file and views.c only
 * print what it finds.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "logprint.h"

/* A usage error: the synopsis and where the rest is. */
static const char short_usage[] =
"Usage: xfsj-logprint [options] DEVICE\n"
"Try 'xfsj-logprint --help' for more information.\n";

static const char usage_text[] =
"Usage: xfsj-logprint [options] DEVICE\n"
"\n"
"Print the XFS log of the filesystem on DEVICE (a block device or image).\n"
"\n"
"Views (default: records):\n"
"  -t                 transactions: every committed transaction, items decoded\n"
"      --records      one line per log record (the whole log, oldest first)\n"
"      --checkpoints  one line per checkpoint, with the CIL push limit\n"
"      --intents      intents and their done items, and the whiteout audit\n"
"      --summary      only the summary (head, tail, state)\n"
"  -I                 interactive explorer (readline)\n"
"  -C FILE            copy the log to FILE and exit\n"
"\n"
"Input:\n"
"  -f                 DEVICE is a raw copy of the log (as written by -C)\n"
"  -l LOGDEV          the external log device\n"
"  -s BLOCK           start at log block BLOCK (records; -t: instead of the tail)\n"
"\n"
"Output:\n"
"  -c                 continue past errors in the log\n"
"  -n                 headers only: do not decode ops or item contents\n"
"  -o                 hex dump of every region\n"
"      --ops          records view: print every op of each record\n"
"      --all          records view: also records older than the tail (default)\n"
"      --live         records view: only the live log, tail to head\n"
"      --json         JSON Lines: one object per line (see xfsj-logprint(8))\n"
"\n"
"Filters (transactions, checkpoints, intents):\n"
"  -i, --ino INO      items that touch inode INO\n"
"  -b, --daddr DADDR  items that touch disk address DADDR (512-byte units)\n"
"      --ag N         items in allocation group N\n"
"      --lsn FROM:TO  transactions whose start LSN is in [FROM, TO]; an LSN is\n"
"                     CYCLE,BLOCK or a number; either side may be empty\n"
"      --type LIST    item types, comma separated (BUF,INODE,EFI,...)\n"
"\n"
"  -V, --version      print the version\n"
"  -h, --help         this text\n"
"\n"
"Exit status:\n"
"  0   success\n"
"  1   usage or open error\n"
"  2   the log has problems (each reported on stderr with the device,\n"
"      structure and byte offset)\n";

enum {
	OPT_RECORDS = 256, OPT_CHECKPOINTS, OPT_INTENTS, OPT_SUMMARY,
	OPT_OPS, OPT_ALL, OPT_LIVE, OPT_JSON, OPT_AG, OPT_LSN, OPT_TYPE,
};

static const struct option longopts[] = {
	{ "records", no_argument, NULL, OPT_RECORDS },
	{ "checkpoints", no_argument, NULL, OPT_CHECKPOINTS },
	{ "intents", no_argument, NULL, OPT_INTENTS },
	{ "summary", no_argument, NULL, OPT_SUMMARY },
	{ "ops", no_argument, NULL, OPT_OPS },
	{ "all", no_argument, NULL, OPT_ALL },
	{ "live", no_argument, NULL, OPT_LIVE },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "ino", required_argument, NULL, 'i' },
	{ "daddr", required_argument, NULL, 'b' },
	{ "ag", required_argument, NULL, OPT_AG },
	{ "lsn", required_argument, NULL, OPT_LSN },
	{ "type", required_argument, NULL, OPT_TYPE },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

static int bad_arg(const char *opt, const char *val)
{
	fprintf(stderr, "xfsj-logprint: invalid value '%s' for %s\n", val, opt);
	return -1;
}

static bool parse_u64(const char *s, uint64_t *v)
{
	char *end;

	if (!*s || *s == '-')
		return false;
	errno = 0;
	*v = strtoull(s, &end, 0);
	return !errno && !*end;
}

/* "CYCLE,BLOCK" or a plain 64-bit LSN. */
static bool parse_lsn(const char *s, size_t n, uint64_t *lsn)
{
	char buf[64], *comma;
	uint64_t c, b;

	if (n >= sizeof(buf))
		return false;
	memcpy(buf, s, n);
	buf[n] = 0;
	comma = strchr(buf, ',');
	if (!comma)
		return parse_u64(buf, lsn);
	*comma = 0;
	if (!parse_u64(buf, &c) || !parse_u64(comma + 1, &b) ||
	    c > UINT32_MAX || b > UINT32_MAX)
		return false;
	*lsn = xfsj_lsn((uint32_t)c, (uint32_t)b);
	return true;
}

static int parse_types(struct lp_filter *fl, const char *arg)
{
	const char *p = arg;

	while (*p) {
		const char *e = strchr(p, ',');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		const struct xfsj_item_type *t;
		char name[32];

		if (!n || n >= sizeof(name) || fl->ntypes >= LP_MAX_TYPES)
			return bad_arg("--type", arg);
		memcpy(name, p, n);
		name[n] = 0;
		t = xfsj_item_type_by_name(name);
		if (!t) {
			fprintf(stderr, "xfsj-logprint: unknown item type '%s'\n",
				name);
			return -1;
		}
		fl->types[fl->ntypes++] = t->type;
		p += n + (e ? 1 : 0);
	}
	return 0;
}

static int parse_args(int argc, char **argv, struct lp *lp)
{
	int c;
	uint64_t v;

	while ((c = getopt_long(argc, argv, "tIC:fl:s:cnoi:b:hV", longopts,
				NULL)) != -1) {
		switch (c) {
		case 't':
			lp->view = VIEW_TRANS;
			break;
		case OPT_RECORDS:
			lp->view = VIEW_RECORDS;
			break;
		case OPT_CHECKPOINTS:
			lp->view = VIEW_CHECKPOINTS;
			break;
		case OPT_INTENTS:
			lp->view = VIEW_INTENTS;
			break;
		case OPT_SUMMARY:
			lp->view = VIEW_SUMMARY;
			break;
		case 'I':
			lp->view = VIEW_EXPLORE;
			break;
		case 'C':
			lp->view = VIEW_COPY;
			lp->copy_file = optarg;
			break;
		case 'f':
			lp->raw = true;
			break;
		case 'l':
			lp->logdev = optarg;
			break;
		case 's':
			if (!parse_u64(optarg, &v) || v > UINT32_MAX)
				return bad_arg("-s", optarg);
			lp->start_blk = (int64_t)v;
			break;
		case 'c':
			lp->cont = true;
			break;
		case 'n':
			lp->hdr_only = true;
			break;
		case 'o':
			lp->hex = true;
			break;
		case OPT_OPS:
			lp->ops = true;
			break;
		case OPT_ALL:
			lp->all = true;
			break;
		case OPT_LIVE:
			lp->all = false;
			break;
		case OPT_JSON:
			lp->json = true;
			break;
		case 'i':
			if (!parse_u64(optarg, &lp->flt.ino))
				return bad_arg("--ino", optarg);
			lp->flt.ino_set = true;
			break;
		case 'b':
			if (!parse_u64(optarg, &lp->flt.daddr))
				return bad_arg("--daddr", optarg);
			lp->flt.daddr_set = true;
			break;
		case OPT_AG:
			if (!parse_u64(optarg, &v) || v > UINT32_MAX)
				return bad_arg("--ag", optarg);
			lp->flt.ag = (uint32_t)v;
			lp->flt.ag_set = true;
			break;
		case OPT_LSN: {
			const char *colon = strchr(optarg, ':');

			if (!colon)
				return bad_arg("--lsn", optarg);
			lp->flt.lsn_from = 0;
			lp->flt.lsn_to = UINT64_MAX;
			if (colon != optarg &&
			    !parse_lsn(optarg, (size_t)(colon - optarg),
				       &lp->flt.lsn_from))
				return bad_arg("--lsn", optarg);
			if (colon[1] && !parse_lsn(colon + 1, strlen(colon + 1),
						   &lp->flt.lsn_to))
				return bad_arg("--lsn", optarg);
			lp->flt.lsn_set = true;
			break;
		}
		case OPT_TYPE:
			if (parse_types(&lp->flt, optarg))
				return -1;
			break;
		case 'h':
			fputs(usage_text, stdout);
			exit(LP_EXIT_OK);
		case 'V':
			printf("xfsj-logprint version %s (JSON schema %d)\n",
			       PACKAGE_VERSION, XFSJ_JSON_SCHEMA);
			exit(LP_EXIT_OK);
		default:
			fputs(short_usage, stderr);
			return -1;
		}
	}
	if (optind != argc - 1) {
		fputs(short_usage, stderr);
		return -1;
	}
	lp->device = argv[optind];
	return 0;
}

/*
 * One line per problem: the device, the structure, the field and where
 * it is (byte offset on the device, and the log block of its record).
 */
void lp_fault_print(struct lp *lp, const struct xfsj_fault *f, uint32_t blk)
{
	o_flush();
	fprintf(stderr, "xfsj-logprint: %s: %s: %s at byte %" PRIu64
		" (log block %u): %s (value %" PRIu64 ")\n",
		lp->logdev ? lp->logdev : lp->device,
		f->structure ? f->structure : "log",
		f->field ? f->field : "?", f->offset, blk,
		xfsj_strerror(f->err), f->value);
	if (lp->json) {
		js_begin("error");
		js_str("structure", f->structure);
		js_str("field", f->field);
		js_u64("offset", f->offset);
		js_u64("block", blk);
		js_u64("value", f->value);
		js_str("error", xfsj_strerror(f->err));
		js_end();
	}
}

int lp_fault_cb(void *arg, const struct xfsj_fault *f, uint32_t blk)
{
	struct lp *lp = arg;

	lp->nfaults++;
	lp_fault_print(lp, f, blk);
	if (lp->ht.crc_deferred && !lp->ht.verify_failed && f->structure &&
	    !strcmp(f->structure, "log record header")) {
		/* What the summary would have said, had it been checked. */
		lp->ht.verify_failed = true;
		lp->ht.bad_blk = blk;
		if (!lp->json)
			o_printf("    CORRUPT: the record at block %u fails verification; the kernel would refuse to recover this log\n",
				 blk);
		o_flush();
		fprintf(stderr, "xfsj-logprint: %s: log record at block %u fails verification between tail and head\n",
			lp->device, blk);
	}
	if (lp->cont)
		return 0;
	lp->stopped = true;
	return 1;
}

static uint64_t dev_number(const char *path)
{
	struct stat st;

	/* xfs_logprint prints the device number, or -1 for a file. */
	if (stat(path, &st) == 0 && S_ISBLK(st.st_mode))
		return st.st_rdev;
	return UINT64_MAX;
}

static int open_all(struct lp *lp)
{
	struct xfsj_fault f = { 0 };
	int err;

	err = xfsj_io_open(lp->device, XFSJ_IO_RDONLY, &lp->io);
	if (err) {
		fprintf(stderr, "xfsj-logprint: cannot open %s: %s\n",
			lp->device, xfsj_io_open_strerror(err));
		return -1;
	}
	if (lp->logdev) {
		err = xfsj_io_open(lp->logdev, XFSJ_IO_RDONLY, &lp->logio);
		if (err) {
			fprintf(stderr, "xfsj-logprint: cannot open %s: %s\n",
				lp->logdev, xfsj_io_open_strerror(err));
			return -1;
		}
	}
	err = xfsj_log_open(lp->io, lp->logio, lp->raw ? XFSJ_LOGOPEN_RAW : 0,
			    &lp->log, &f);
	if (err == -XFSJ_E_SHORTIO && f.reason == XFSJ_FR_LOG_PAST_END) {
		/*
		 * The superblock reads, but the device ends before the end
		 * of the log it describes: a damaged log, not a usage error.
		 */
		const char *dev = lp->logdev ? lp->logdev : lp->device;
		uint64_t start = f.offset, end = f.value;

		if (end > start)
			fprintf(stderr, "xfsj-logprint: %s: log: the device ends at byte offset %" PRIu64
				", inside the log (log block %" PRIu64
				"; the log starts at byte offset %" PRIu64 ")\n",
				dev, end, (end - start) / XFSJ_BBSIZE, start);
		else
			fprintf(stderr, "xfsj-logprint: %s: log: the device ends at byte offset %" PRIu64
				", before the log (which starts at byte offset %" PRIu64 ")\n",
				dev, end, start);
		if (lp->json) {
			js_begin("error");
			js_str("structure", "log");
			js_str("field", "device size");
			js_u64("offset", end);
			js_u64("block", end > start ?
			       (end - start) / XFSJ_BBSIZE : 0);
			js_u64("value", end);
			js_str("error", xfsj_strerror(err));
			js_end();
		}
		return -2;
	}
	if (err) {
		fprintf(stderr, "xfsj-logprint: %s: %s: %s at byte %" PRIu64
			": %s\n", lp->device,
			f.structure ? f.structure : "log",
			f.field ? f.field : "?", f.offset, xfsj_strerror(err));
		if (err == -XFSJ_E_UNSUPP && f.reason == XFSJ_FR_EXTLOG_NEEDED)
			fprintf(stderr, "xfsj-logprint: external log: give the log device with -l\n");
		return -1;
	}
	xfsj_fsgeo_from_sb(&xfsj_log_geom(lp->log)->sb, &lp->fsg);
	/* A raw log copy knows no AG count: --ag is taken as given there. */
	if (lp->flt.ag_set && lp->fsg.known && lp->flt.ag >= lp->fsg.agcount) {
		fprintf(stderr, "xfsj-logprint: --ag %u: the filesystem has AGs 0 to %u\n",
			lp->flt.ag, lp->fsg.agcount - 1);
		return -1;
	}
	lp->ddev = dev_number(lp->device);
	lp->ldev = lp->logdev ? dev_number(lp->logdev) : lp->ddev;
	return 0;
}

int main(int argc, char **argv)
{
	struct lp lp;
	struct xfsj_fault f = { 0 };
	int err, ret = LP_EXIT_OK;

	memset(&lp, 0, sizeof(lp));
	lp.view = VIEW_RECORDS;
	lp.all = true;
	lp.start_blk = -1;
	lp.out = stdout;
	if (parse_args(argc, argv, &lp))
		return LP_EXIT_USAGE;
	err = open_all(&lp);
	if (err) {
		ret = err == -2 ? LP_EXIT_CORRUPT : LP_EXIT_USAGE;
		goto out;
	}
	if (lp.view == VIEW_COPY) {
		ret = lp_copy_log(&lp) ? LP_EXIT_USAGE : LP_EXIT_OK;
		goto out;
	}

	/*
	 * The views that walk the live log check every record they read:
	 * the head and tail search need not read it all before them.
	 */
	err = xfsj_log_find_head_tail_ex(lp.log, &lp.ht,
					 lp.view == VIEW_TRANS ||
					 lp.view == VIEW_CHECKPOINTS ||
					 lp.view == VIEW_INTENTS ?
					 XFSJ_HT_DEFER_VERIFY : 0, &f);
	if (err) {
		lp_print_summary(&lp);
		lp_fault_print(&lp, &f, (uint32_t)(f.value));
		fprintf(stderr, "xfsj-logprint: %s: cannot find the head and tail of the log\n",
			lp.device);
		if (!lp.cont || lp.view == VIEW_EXPLORE) {
			ret = err == -XFSJ_E_IO || err == -XFSJ_E_SHORTIO ?
			      LP_EXIT_USAGE : LP_EXIT_CORRUPT;
			goto out;
		}
		/* -c: carry on over the whole log as if it were clean. */
		lp.nfaults++;
		lp.ht.head_blk = lp.ht.tail_blk = 0;
	} else {
		lp_print_summary(&lp);
		if (lp.ht.verify_failed) {
			/* The walk reports the record itself. */
			o_flush();
			fprintf(stderr, "xfsj-logprint: %s: log record at block %u fails verification between tail and head\n",
				lp.device, lp.ht.bad_blk);
			lp.nfaults++;
		}
	}

	switch (lp.view) {
	case VIEW_RECORDS:
		err = lp_view_records(&lp);
		break;
	case VIEW_TRANS:
		err = lp_view_trans(&lp);
		break;
	case VIEW_CHECKPOINTS:
		err = lp_view_checkpoints(&lp);
		break;
	case VIEW_INTENTS:
		err = lp_view_intents(&lp);
		break;
	case VIEW_EXPLORE:
		err = lp_explore(&lp);
		break;
	default:
		err = 0;
		break;
	}
	if (err < 0 && err != -XFSJ_E_CORRUPT && err != -XFSJ_E_BADCRC &&
	    err != -XFSJ_E_BADMAGIC)
		ret = LP_EXIT_USAGE;
	else if (lp.nfaults || err)
		ret = LP_EXIT_CORRUPT;
out:
	o_flush();
	if ((o_error() || fflush(stdout)) && ret == LP_EXIT_OK)
		ret = LP_EXIT_USAGE;
	xfsj_log_close(lp.log);
	if (lp.logio)
		xfsj_io_close(lp.logio);
	if (lp.io)
		xfsj_io_close(lp.io);
	return ret;
}
