/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Device checks before formatting: refuse a mounted device (or a file a
 * mounted loop device is backed by), refuse without -f a device where
 * libblkid finds a filesystem or partition table, and read sector sizes
 * and stripe hints from libblkid's topology.
 */
#include <blkid/blkid.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "mkfs.h"
#include "xfsj/errors.h"
#include "xfsj/io.h"

/*
 * One device (the data device, or with @is_log the external log device):
 * what it is and holds, into @t.
 */
static int check_one(const struct mkfs_cli *cli, const char *name,
		     bool is_log, struct xfsj_topology *t)
{
	blkid_probe pr;
	struct stat st;

	memset(t, 0, sizeof(*t));
	t->lsectsize = t->psectsize = 512;
	if (stat(name, &st) < 0) {
		if (errno == ENOENT && cli->dfile && !is_log) {
			t->is_file = true;
			return 0;	/* created later */
		}
		fprintf(stderr, "xfsj-mkfs: cannot open %s: %s\n", name,
			strerror(errno));
		return -XFSJ_E_OPEN;
	}
	if (S_ISBLK(st.st_mode)) {
		if (xfsj_path_mounted(name) || (is_log && xfsj_path_held(name))) {
			fprintf(stderr,
				"xfsj-mkfs: %s contains a mounted filesystem\n",
				name);
			return -XFSJ_E_BUSY;
		}
	} else if (S_ISREG(st.st_mode)) {
		t->is_file = true;
		t->size = (uint64_t)st.st_size;
		if (xfsj_path_mounted(name) || (is_log && xfsj_path_held(name))) {
			fprintf(stderr,
				"xfsj-mkfs: %s backs a loop device with a mounted filesystem\n",
				name);
			return -XFSJ_E_BUSY;
		}
	} else {
		fprintf(stderr,
			"xfsj-mkfs: %s is neither a block device nor a regular file\n",
			name);
		return -XFSJ_E_UNSUPP;
	}

	pr = blkid_new_probe_from_filename(name);
	if (!pr) {
		/* An empty regular file cannot be probed; nothing is on it. */
		if (t->is_file && st.st_size == 0)
			return 0;
		fprintf(stderr, "xfsj-mkfs: cannot probe %s\n", name);
		return -XFSJ_E_OPEN;
	}
	if (!t->is_file) {
		blkid_topology tp = blkid_probe_get_topology(pr);

		t->size = (uint64_t)blkid_probe_get_size(pr);
		if (tp) {
			unsigned long min_io = blkid_topology_get_minimum_io_size(tp);
			unsigned long opt_io = blkid_topology_get_optimal_io_size(tp);

			t->lsectsize = (uint32_t)blkid_topology_get_logical_sector_size(tp);
			t->psectsize = (uint32_t)blkid_topology_get_physical_sector_size(tp);
			if (!t->lsectsize)
				t->lsectsize = 512;
			if (!t->psectsize)
				t->psectsize = t->lsectsize;
			/*
			 * An I/O size equal to the sector size says nothing
			 * about a stripe.
			 */
			if (min_io != t->psectsize && opt_io != t->psectsize) {
				t->sunit = (uint32_t)min_io;
				t->swidth = (uint32_t)opt_io;
			}
		}
	}
	if (!cli->force) {
		const char *type = NULL, *what = "filesystem";
		int rc;

		blkid_probe_enable_superblocks(pr, 1);
		blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE);
		blkid_probe_enable_partitions(pr, 1);
		rc = blkid_do_fullprobe(pr);
		if (rc == 0) {
			if (blkid_probe_lookup_value(pr, "TYPE", &type, NULL) &&
			    !blkid_probe_lookup_value(pr, "PTTYPE", &type, NULL))
				what = "partition table";
			if (!type)
				type = "unknown";
			fprintf(stderr,
				"xfsj-mkfs: %s appears to contain an existing %s (%s).\n"
				"xfsj-mkfs: Use the -f option to force overwrite.\n",
				name, what, type);
			blkid_free_probe(pr);
			return -XFSJ_E_EXISTS;
		}
	}
	blkid_free_probe(pr);
	return 0;
}

/* The same file or block device under two names? */
static bool same_device(const char *a, const char *b)
{
	struct stat sa, sb;

	if (stat(a, &sa) < 0 || stat(b, &sb) < 0)
		return false;
	if (S_ISBLK(sa.st_mode) && S_ISBLK(sb.st_mode))
		return sa.st_rdev == sb.st_rdev;
	return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

int mkfs_check_device(const struct mkfs_cli *cli, struct xfsj_topology *t)
{
	struct xfsj_topology lt;
	int err = check_one(cli, cli->device, false, t);

	if (err || !cli->logdev)
		return err;
	if (same_device(cli->device, cli->logdev)) {
		fprintf(stderr, "xfsj-mkfs: the log device %s is the data device\n",
			cli->logdev);
		return -XFSJ_E_INVAL;
	}
	err = check_one(cli, cli->logdev, true, &lt);
	if (err)
		return err;
	t->logdev_size = lt.size;
	t->logdev_lsectsize = lt.lsectsize;
	return 0;
}
