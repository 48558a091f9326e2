/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * xfsj-mkfs: a straight pipeline.  Parse, check the device, compute the
 * geometry (libjournal), report, write (libjournal).  Nothing touches the
 * device before the geometry is known to be valid, and -N never opens it
 * for writing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>
#include <uuid/uuid.h>

#include "mkfs.h"
#include "xfsj/io.h"
#include "xfsj/newfs.h"

static void progress(void *arg, uint32_t done, uint32_t total)
{
	(void)arg;
	fprintf(stderr, "\rxfsj-mkfs: writing AG %u of %u", done, total);
	if (done == total)
		fputc('\n', stderr);
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
	int err;

	if (mkfs_parse_args(argc, argv, &cli))
		return MKFS_EXIT_USAGE;
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
	if (!cli.quiet && isatty(STDERR_FILENO) && g.agcount > 64) {
		o.progress = progress;
	}

	if (cli.logdev && open_logdev(&cli, &g, &o.logio)) {
		xfsj_io_close(io);
		return MKFS_EXIT_FAIL;
	}

	if (!cli.quiet)
		mkfs_report(stdout, cli.device, cli.logdev, &g);
	fflush(stdout);
	err = xfsj_newfs_write(io, &g, &o, &fault);
	xfsj_io_close(o.logio);
	xfsj_io_close(io);
	if (err) {
		fprintf(stderr, "xfsj-mkfs: %s: writing %s failed at byte %llu: %s\n",
			cli.device, fault.structure ? fault.structure : "filesystem",
			(unsigned long long)fault.offset, xfsj_strerror(err));
		return MKFS_EXIT_FAIL;
	}
	return MKFS_EXIT_OK;
}
