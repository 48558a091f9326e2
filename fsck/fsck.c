/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fsck.xfsj: the fsck(8) front end of xfsj-repair, for fsck -t xfs,
 * systemd-fsck@ and an initramfs.
 *
 * It takes fsck(8)'s options (-a/-p preen, -n, -y, -f, -C), refuses a
 * mounted device, runs xfsj-repair in this process with the matching
 * options (repair_main(): the same code, no second copy of it) and gives
 * fsck(8)'s exit codes back.  The needs-repair flag is only ever cleared
 * by the repair itself, after its final check is clean; a flag an
 * unfinished mkfs -p left is beyond a preen.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "xfsj/io.h"
#include "../repair/repair.h"

/* fsck(8)'s exit codes (they add up: 1 | 4 and so on). */
enum {
	FSCK_OK = 0,
	FSCK_CORRECTED = 1,	/* errors corrected (or a log replayed) */
	FSCK_REBOOT = 2,	/* never: a mounted device is refused */
	FSCK_UNCORRECTED = 4,	/* errors left uncorrected */
	FSCK_ERROR = 8,		/* operational error */
	FSCK_USAGE = 16,	/* usage or syntax error */
	FSCK_CANCELED = 32,	/* canceled by user request */
};

/* xfsj-repair's own exit codes (xfsj-repair.8). */
enum {
	XR_CLEAN = 0, XR_FIXED = 1, XR_DIRTY = 2, XR_LEFT = 4, XR_ERROR = 8,
	XR_PREEN = 32,
};

enum mode { MODE_NONE, MODE_PREEN, MODE_NO, MODE_YES };

struct fsck_opts {
	enum mode mode;
	bool verbose;
	int progress_fd;	/* -C FD; -1: none */
	const char *logdev;	/* -l LOGDEV, -o logdev=LOGDEV; NULL: internal */
	const char *device;
};

static const char *dev_name = "";
static int progress_fd = -1;

static void usage(FILE *out)
{
	fputs(
"Usage: fsck.xfsj [-a | -p | -n | -y] [-f] [-v] [-C [FD]] [-l logdev] device\n"
"Check an XFS filesystem as fsck(8) asks: replay its dirty log in user\n"
"space, check every metadata structure, and repair as the mode allows.\n"
"\n"
"  -a, -p   preen (what fsck -a and systemd-fsck ask): replay the log, fix\n"
"           only what is safe without a person (counters, leaked blocks,\n"
"           unlinked lists); anything else is left (exit 4), unwritten\n"
"  -n       check only: the device is opened read-only, nothing is written\n"
"  -y       repair everything the check finds\n"
"           (none of the three: preen)\n"
"  -f       force a check of a clean filesystem: the check always runs in\n"
"           full, so accepted and ignored\n"
"  -C [FD]  progress: FD 0 (or none) on the terminal; FD > 0 gets\n"
"           \"phase done total device\" lines as e2fsck writes them\n"
"  -v       verbose: every piece of leftover log work, each repair round,\n"
"           each problem that follows from another\n"
"  -l LOGDEV, -o logdev=LOGDEV\n"
"           the filesystem's external log device (as xfs_repair -l)\n"
"  -V, --version   print the version; -h, --help   this text\n"
"\n"
"Exit status (fsck(8)): 0 no errors; 1 errors corrected, or a dirty log\n"
"replayed; 4 errors left uncorrected (-n: errors found; preen: a problem\n"
"needs fsck.xfsj -y); 8 operational error (a mounted device, I/O, a log\n"
"this version cannot replay); 16 usage error; 32 canceled (a signal).\n",
	      out);
}

/* fsck -C FD: e2fsck's completion lines ("phase done total device"). */
static void progress_line(unsigned int done)
{
	if (progress_fd > 0)
		dprintf(progress_fd, "1 %u 100 %s\n", done, dev_name);
}

/*
 * SIGINT, SIGTERM: checking canceled (32).  A repair killed while it
 * commits is finished from its redo file by the next run.
 */
static void on_cancel(int sig)
{
	static const char msg[] = "fsck.xfsj: canceled\n";

	(void)sig;
	if (write(STDERR_FILENO, msg, sizeof(msg) - 1) < 0)
		_exit(FSCK_CANCELED);
	_exit(FSCK_CANCELED);
}

/* -C's optional FD, attached (-C5) or the next argument (-C 5). */
static bool parse_progress(int argc, char **argv, struct fsck_opts *o)
{
	const char *v = optarg;
	char *end;
	long fd;

	if (!v && optind < argc && argv[optind][0] >= '0' &&
	    argv[optind][0] <= '9')
		v = argv[optind++];
	if (!v) {
		o->progress_fd = 0;
		return true;
	}
	errno = 0;
	fd = strtol(v, &end, 10);
	if (errno || *end || fd < 0 || fd > 1 << 20) {
		fprintf(stderr, "fsck.xfsj: -C %s: not a file descriptor\n", v);
		return false;
	}
	o->progress_fd = (int)fd;
	return true;
}

static bool set_mode(struct fsck_opts *o, enum mode m)
{
	if (o->mode != MODE_NONE && o->mode != m) {
		fputs("fsck.xfsj: only one of -a/-p, -n and -y may be given\n",
		      stderr);
		return false;
	}
	o->mode = m;
	return true;
}

/* -o OPTS: logdev=DEV (xfs_repair's name for it); others refused. */
static bool parse_subopts(char *opts, struct fsck_opts *o)
{
	char *save = NULL, *tok;

	for (tok = strtok_r(opts, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (!strncmp(tok, "logdev=", 7) && tok[7]) {
			o->logdev = tok + 7;
			continue;
		}
		fprintf(stderr, "fsck.xfsj: -o %s: unknown (logdev=DEV is known)\n",
			tok);
		return false;
	}
	return true;
}

/* fsck(8)'s options; false after saying why (usage error). */
static int parse(int argc, char **argv, struct fsck_opts *o)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	o->progress_fd = -1;
	while ((c = getopt_long(argc, argv, "apnyfvC::l:o:Vh", longopts,
				NULL)) != -1) {
		switch (c) {
		case 'a':
		case 'p':
			if (!set_mode(o, MODE_PREEN))
				return FSCK_USAGE;
			break;
		case 'n':
			if (!set_mode(o, MODE_NO))
				return FSCK_USAGE;
			break;
		case 'y':
			if (!set_mode(o, MODE_YES))
				return FSCK_USAGE;
			break;
		case 'f':
			break;
		case 'v':
			o->verbose = true;
			break;
		case 'C':
			if (!parse_progress(argc, argv, o))
				return FSCK_USAGE;
			break;
		case 'l':
			o->logdev = optarg;
			break;
		case 'o':
			if (!parse_subopts(optarg, o))
				return FSCK_USAGE;
			break;
		case 'V':
			printf("fsck.xfsj (xfsj) version %s\n", PACKAGE_VERSION);
			return -1;
		case 'h':
			usage(stdout);
			return -1;
		default:
			usage(stderr);
			return FSCK_USAGE;
		}
	}
	if (optind != argc - 1) {
		usage(stderr);
		return FSCK_USAGE;
	}
	o->device = argv[optind];
	if (o->mode == MODE_NONE)
		o->mode = MODE_PREEN;
	return FSCK_OK;
}

/*
 * fsck(8)'s code for xfsj-repair's @rc.  -n: a dirty log is no error
 * (the mount replays it), problems are errors left.  Else a replayed
 * log alone is a change made; preen's refusal is an error left.
 */
static int fsck_code(const struct fsck_opts *o, int rc)
{
	switch (rc) {
	case XR_CLEAN:
		return o->mode != MODE_NO && repair_log_replayed ?
		       FSCK_CORRECTED : FSCK_OK;
	case XR_FIXED:
		return o->mode == MODE_NO ? FSCK_UNCORRECTED : FSCK_CORRECTED;
	case XR_DIRTY:
		return FSCK_OK;
	case XR_LEFT:
	case XR_PREEN:
		return FSCK_UNCORRECTED;
	default:
		return FSCK_ERROR;
	}
}

/*
 * The redo file goes to $XFSJ_REDO_DIR, else /var/tmp; an initramfs may
 * have no writable /var/tmp: then /run, where systemd and initramfs
 * tools keep their state.
 */
static void choose_redo_dir(void)
{
	const char *d = getenv("XFSJ_REDO_DIR");

	if (d && *d)
		return;
	if (access("/var/tmp", W_OK | X_OK) == 0)
		return;
	if (access("/run", W_OK | X_OK) == 0)
		setenv("XFSJ_REDO_DIR", "/run", 1);
	else
		setenv("XFSJ_REDO_DIR", "/tmp", 1);
}

int main(int argc, char **argv)
{
	struct fsck_opts o = { 0 };
	char *rargv[10];
	int rargc = 0, rc, ret;

	ret = parse(argc, argv, &o);
	if (ret)
		return ret < 0 ? FSCK_OK : ret;
	dev_name = o.device;
	progress_fd = o.progress_fd;
	if (xfsj_path_mounted(o.device)) {
		fprintf(stderr, "fsck.xfsj: %s is mounted: XFS is checked unmounted (the kernel replays the log at mount); not checking\n",
			o.device);
		return FSCK_ERROR;
	}
	signal(SIGINT, on_cancel);
	signal(SIGTERM, on_cancel);
	choose_redo_dir();

	rargv[rargc++] = "xfsj-repair";
	if (o.mode == MODE_NO)
		rargv[rargc++] = "-n";
	else if (o.mode == MODE_PREEN)
		rargv[rargc++] = "-p";
	if (o.verbose)
		rargv[rargc++] = "-v";
	if (o.progress_fd == 0)
		rargv[rargc++] = "--progress";
	if (o.logdev) {
		rargv[rargc++] = "-l";
		rargv[rargc++] = (char *)o.logdev;
	}
	rargv[rargc++] = "--";
	rargv[rargc++] = (char *)o.device;
	rargv[rargc] = NULL;

	progress_line(0);
	optind = 0;	/* a fresh getopt for repair_main() */
	/* The repair's messages are this tool's: its name, its advice (a
	 * preen that stops says so on stdout, with the rest). */
	repair_prog = "fsck.xfsj";
	repair_full_repair = "run fsck.xfsj -y";
	rc = repair_main(rargc, rargv);
	fflush(stdout);
	ret = fsck_code(&o, rc);
	progress_line(100);
	if (ret == FSCK_UNCORRECTED && o.mode == MODE_NO)
		fprintf(stderr, "fsck.xfsj: %s: errors found; fsck.xfsj -y repairs them\n",
			o.device);
	return ret;
}
