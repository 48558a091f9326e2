/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * xfsj-mkfs: a straight pipeline.  Parse, check the device, compute the
 * geometry (libjournal), report, write (libjournal).  Nothing touches the
 * device before the geometry is known to be valid, and -N never opens it
 * for writing.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <uuid/uuid.h>

#include "mkfs.h"
#include "xfsj/io.h"
#include "xfsj/newfs.h"
#include "xfsj/populate.h"
#include "xfsj/rootprops.h"
#include "xfsj/progress.h"

/* Progress on stderr (xfsj/progress.h): its form, the meter. */
static struct xfsj_progress meter = { .tool = "xfsj-mkfs" };

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void meter_step(const char *phase, uint64_t done, uint64_t total)
{
	char buf[512];

	if (xfsj_progress_step(&meter, phase, done, total, now_ms(), buf,
			       sizeof(buf)))
		fputs(buf, stderr);
}

static void meter_end(void)
{
	char buf[512];

	if (xfsj_progress_end(&meter, now_ms(), buf, sizeof(buf)))
		fputs(buf, stderr);
}

static void pop_progress(void *arg, uint64_t done, uint64_t total)
{
	(void)arg;
	meter_step("copying entries", done, total);
}

/* SOURCE_DATE_EPOCH: 1 and *epoch when set and valid, 0 unset, -1 bad. */
static int source_date_epoch(int64_t *epoch)
{
	const char *s = getenv("SOURCE_DATE_EPOCH");
	char *end;
	long long v;

	if (!s || !*s)
		return 0;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || *end || v < 0) {
		fprintf(stderr, "xfsj-mkfs: SOURCE_DATE_EPOCH=%s is not a number of seconds\n",
			s);
		return -1;
	}
	*epoch = v;
	return 1;
}

/* Copy the tree at cli->proto into the filesystem just written. */
static int populate(const struct mkfs_cli *cli, struct xfsj_io *io,
		    const struct xfsj_newfs_opts *o, int64_t epoch,
		    bool have_epoch)
{
	struct xfsj_populate_opts po = {
		.source = cli->proto, .have_epoch = have_epoch,
		.epoch = epoch, .now_sec = o->now_sec, .now_nsec = o->now_nsec,
	};
	struct xfsj_populate_err pe;
	struct xfsj_fault fault = { 0 };
	int err;

	if (meter.form != XFSJ_PROGRESS_OFF)
		po.progress = pop_progress;
	err = xfsj_populate(io, &po, &pe, &fault);
	meter_end();
	if (!err)
		return 0;
	if (pe.path[0] && pe.sys_errno)
		fprintf(stderr, "xfsj-mkfs: cannot copy %s: %s: %s", pe.path,
			pe.what, strerror(pe.sys_errno));
	else if (pe.path[0])
		fprintf(stderr, "xfsj-mkfs: cannot copy %s: %s%s%s%s%s%s: %s",
			pe.path, pe.what ? pe.what : "copy",
			fault.structure ? " (" : "",
			fault.structure ? fault.structure : "",
			fault.structure && fault.field ? " " : "",
			fault.structure ? (fault.field ? fault.field : "") : "",
			fault.structure ? ")" : "", xfsj_strerror(err));
	else
		fprintf(stderr, "xfsj-mkfs: %s: filling from %s failed (%s %s): %s",
			cli->device, cli->proto,
			fault.structure ? fault.structure : "filesystem",
			fault.field ? fault.field : "", xfsj_strerror(err));
	/* The image keeps the needs-repair flag: the kernel refuses it. */
	fprintf(stderr, " (%s left incomplete, marked needs-repair)\n",
		cli->device);
	return -1;
}

static void progress(void *arg, uint32_t done, uint32_t total)
{
	(void)arg;
	meter_step("writing AGs", done, total);
	if (done == total)
		meter_end();
}

/* -l logdev=: the external log device, large enough for the log. */
static int open_logdev(const struct mkfs_cli *cli, const struct xfsj_geometry *g,
		       struct xfsj_io **out)
{
	const uint64_t bytes = (uint64_t)g->logblocks << g->blocklog;
	int err = xfsj_io_open(cli->logdev, XFSJ_IO_EXCL, out);

	if (err) {
		fprintf(stderr, "xfsj-mkfs: cannot open %s: %s\n", cli->logdev,
			xfsj_io_open_strerror(err));
		return err;
	}
	if ((*out)->size < bytes) {
		fprintf(stderr, "xfsj-mkfs: %s: log device has %llu bytes, the log needs %llu\n",
			cli->logdev, (unsigned long long)(*out)->size,
			(unsigned long long)bytes);
		xfsj_io_close(*out);
		*out = NULL;
		return -XFSJ_E_TOOSMALL;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct mkfs_cli cli;
	struct xfsj_topology topo;
	struct xfsj_geometry g;
	struct xfsj_newfs_opts o;
	struct xfsj_fault fault = { 0 };
	struct xfsj_io *io = NULL;
	struct timespec now;
	char msg[512];
	struct stat pst;
	int64_t epoch = 0;
	int have_epoch;
	int err;

	if (mkfs_parse_args(argc, argv, &cli))
		return MKFS_EXIT_USAGE;
	have_epoch = source_date_epoch(&epoch);
	if (have_epoch < 0)
		return MKFS_EXIT_USAGE;
	if (cli.proto && stat(cli.proto, &pst)) {
		fprintf(stderr, "xfsj-mkfs: -p %s: %s\n", cli.proto,
			strerror(errno));
		return MKFS_EXIT_USAGE;
	}
	if (cli.proto && !S_ISDIR(pst.st_mode) && !S_ISREG(pst.st_mode)) {
		fprintf(stderr, "xfsj-mkfs: -p %s: neither a directory nor a protofile\n",
			cli.proto);
		return MKFS_EXIT_USAGE;
	}
	err = mkfs_check_device(&cli, &topo);
	if (err)
		return MKFS_EXIT_FAIL;
	if (topo.is_file && !cli.req.dsize && topo.size == 0) {
		fprintf(stderr, "xfsj-mkfs: %s is an empty file: give -d size=\n",
			cli.device);
		return MKFS_EXIT_USAGE;
	}
	err = xfsj_geometry_compute(&cli.req, &topo, &g, msg, sizeof(msg));
	if (g.warning[0])
		fputs(g.warning, stderr);
	if (err) {
		fprintf(stderr, "xfsj-mkfs: %s: %s\n", cli.device, msg);
		return MKFS_EXIT_FAIL;
	}
	if (cli.req.small &&
	    ((g.dblocks << g.blocklog) < XFSJ_MIN_FS_BYTES ||
	     ((uint64_t)g.logblocks << g.blocklog) < XFSJ_MIN_REALISTIC_LOG) &&
	    !cli.quiet)
		fprintf(stderr, "xfsj-mkfs: --small: this filesystem is below mkfs.xfs's supported minimum (300 MB, 64 MiB log)\n");
	mkfs_kernel_check(stderr, &g.feat);
	if (cli.dry_run) {
		mkfs_report(stdout, cli.device, cli.logdev, &g);
		return MKFS_EXIT_OK;
	}

	err = xfsj_io_open(cli.device, XFSJ_IO_EXCL |
			   (topo.is_file ? XFSJ_IO_CREATE : 0), &io);
	if (err) {
		fprintf(stderr, "xfsj-mkfs: cannot open %s: %s\n", cli.device,
			xfsj_io_open_strerror(err));
		return MKFS_EXIT_FAIL;
	}
	if (!io->is_bdev && io->size < (g.dblocks << g.blocklog) &&
	    !cli.req.dsize) {
		fprintf(stderr, "xfsj-mkfs: %s: file shrank while formatting\n",
			cli.device);
		xfsj_io_close(io);
		return MKFS_EXIT_FAIL;
	}
	if (io->is_bdev && io->size < (g.dblocks << g.blocklog)) {
		fprintf(stderr, "xfsj-mkfs: %s: device has %llu bytes, filesystem needs %llu\n",
			cli.device, (unsigned long long)io->size,
			(unsigned long long)(g.dblocks << g.blocklog));
		xfsj_io_close(io);
		return MKFS_EXIT_FAIL;
	}

	memset(&o, 0, sizeof(o));
	if (cli.uuid_set)
		memcpy(o.uuid, cli.uuid, 16);
	else
		uuid_generate(o.uuid);
	memcpy(o.label, cli.label, sizeof(o.label));
	o.discard = !cli.nodiscard;
	clock_gettime(CLOCK_REALTIME, &now);
	o.now_sec = now.tv_sec;
	o.now_nsec = (uint32_t)now.tv_nsec;
	if (getrandom(&o.gen, sizeof(o.gen), 0) != sizeof(o.gen))
		o.gen = (uint32_t)now.tv_nsec;
	if (have_epoch) {
		/* Reproducible: nothing from the clock or the random source. */
		o.now_sec = epoch;
		o.now_nsec = 0;
		o.gen = (uint32_t)o.uuid[0] << 24 | o.uuid[1] << 16 |
			o.uuid[2] << 8 | o.uuid[3];
	}
	/* --progress: JSON Lines; a terminal: lines, unless -q. */
	meter.form = cli.progress ? XFSJ_PROGRESS_JSON :
		     !cli.quiet && isatty(STDERR_FILENO) ? XFSJ_PROGRESS_TERM :
		     XFSJ_PROGRESS_OFF;
	if (meter.form == XFSJ_PROGRESS_JSON ||
	    (meter.form == XFSJ_PROGRESS_TERM && g.agcount > 64))
		o.progress = progress;

	if (cli.logdev && open_logdev(&cli, &g, &o.logio)) {
		xfsj_io_close(io);
		return MKFS_EXIT_FAIL;
	}

	if (!cli.quiet)
		mkfs_report(stdout, cli.device, cli.logdev, &g);
	fflush(stdout);
	err = xfsj_newfs_write(io, &g, &o, &fault);
	xfsj_io_close(o.logio);
	if (err) {
		xfsj_io_close(io);
		fprintf(stderr, "xfsj-mkfs: %s: writing %s failed at byte %llu: %s\n",
			cli.device, fault.structure ? fault.structure : "filesystem",
			(unsigned long long)fault.offset, xfsj_strerror(err));
		return MKFS_EXIT_FAIL;
	}
	if (cli.proto && populate(&cli, io, &o, epoch, have_epoch > 0)) {
		xfsj_io_close(io);
		return MKFS_EXIT_FAIL;
	}
	err = xfsj_newfs_root_props(io, &(struct xfsj_root_props){
		.autofsck = cli.autofsck, .extszinherit = cli.extszinherit,
		.daxinherit = cli.daxinherit }, &fault);
	xfsj_io_close(io);
	if (err) {
		fprintf(stderr, "xfsj-mkfs: %s: setting the root directory's properties failed: %s%s%s: %s\n",
			cli.device, fault.structure ? fault.structure : "root inode",
			fault.field ? " " : "", fault.field ? fault.field : "",
			xfsj_strerror(err));
		return MKFS_EXIT_FAIL;
	}
	return MKFS_EXIT_OK;
}
