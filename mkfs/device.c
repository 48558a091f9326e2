/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Device checks before formatting: refuse a mounted device (or a file a
 * mounted loop device is backed by), refuse without -f a device where
 * libblkid finds a filesystem or partition table, and read sector sizes
 * and stripe hints from libblkid's topology.
 */
#include <blkid/blkid.h>
#include <dirent.h>
#include <linux/loop.h>
#include <sys/ioctl.h>
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

/* Is a filesystem mounted from device @dev (st_rdev)? */
static bool dev_is_mounted(dev_t dev)
{
	FILE *mi = fopen("/proc/self/mountinfo", "r");
	char line[4096];
	bool found = false;

	if (!mi)
		return false;
	while (!found && fgets(line, sizeof(line), mi)) {
		unsigned int maj, min;

		/* id parent major:minor ... */
		if (sscanf(line, "%*u %*u %u:%u", &maj, &min) == 2 &&
		    makedev(maj, min) == dev)
			found = true;
	}
	fclose(mi);
	return found;
}

/*
 * Is @st (a regular file) the backing file of a loop device whose
 * filesystem is mounted?  Formatting it would pull the disk from under the
 * kernel, exactly as formatting the mounted device would.
 */
static bool file_backs_mounted_loop(const struct stat *st)
{
	DIR *d = opendir("/sys/block");
	struct dirent *de;
	bool found = false;

	if (!d)
		return false;
	while (!found && (de = readdir(d))) {
		struct loop_info64 li;
		struct stat lst;
		char path[300];
		int fd;

		if (strncmp(de->d_name, "loop", 4))
			continue;
		snprintf(path, sizeof(path), "/dev/%s", de->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (ioctl(fd, LOOP_GET_STATUS64, &li) == 0 &&
		    li.lo_inode == st->st_ino && li.lo_device == st->st_dev &&
		    fstat(fd, &lst) == 0 && dev_is_mounted(lst.st_rdev))
			found = true;
		close(fd);
	}
	closedir(d);
	return found;
}

int mkfs_check_device(const struct mkfs_cli *cli, struct xfsj_topology *t)
{
	const char *name = cli->device;
	blkid_probe pr;
	struct stat st;

	memset(t, 0, sizeof(*t));
	t->lsectsize = t->psectsize = 512;
	if (stat(name, &st) < 0) {
		if (errno == ENOENT && cli->dfile) {
			t->is_file = true;
			return 0;	/* created later */
		}
		fprintf(stderr, "xfsj-mkfs: cannot open %s: %s\n", name,
			strerror(errno));
		return -XFSJ_E_OPEN;
	}
	if (S_ISBLK(st.st_mode)) {
		if (dev_is_mounted(st.st_rdev)) {
			fprintf(stderr,
				"xfsj-mkfs: %s contains a mounted filesystem\n",
				name);
			return -XFSJ_E_BUSY;
		}
	} else if (S_ISREG(st.st_mode)) {
		t->is_file = true;
		t->size = (uint64_t)st.st_size;
		if (file_backs_mounted_loop(&st)) {
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
