// SPDX-License-Identifier: GPL-2.0
/*
 * wrec: a write recorder for crash-consistency tests, without
 * device-mapper.  A FUSE filesystem of two files:
 *
 *   img   the image BACKING, read and written through; every write is
 *         appended to LOG (offset, length, data), every fsync as a mark
 *   ctl   write-only: each write is appended to LOG as a note
 *
 * A loop device attached to MNT/img carries the kernel's cache flushes
 * and FUA writes to it as fsyncs, so each mark is a point the filesystem
 * on it relied on.  Requests are served one at a time (-s), so the log
 * is in the order they reached the server.
 *
 * Usage: wrec [--direct] BACKING LOG MNT [fuse options]
 *   --direct  open img for direct I/O (for `losetup --direct-io=on`: the
 *             loop device's requests reach the log one by one, in the
 *             kernel's order, not merged in the page cache)
 */
#define FUSE_USE_VERSION 31
#include <errno.h>
#include <fcntl.h>
#include <fuse.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "wlog.h"

struct wrec {
	int img;		/* the backing image */
	FILE *log;
	int direct;
	uint64_t writes, marks, notes;
};

static struct wrec W;

static int log_rec(uint32_t type, uint64_t off, const void *data, uint32_t len)
{
	uint8_t h[WLOG_HDR];
	struct wlog_rec r = { .type = type, .len = len, .off = off };

	wlog_encode(h, &r);
	if (fwrite(h, 1, sizeof(h), W.log) != sizeof(h))
		return -EIO;
	if (len && fwrite(data, 1, len, W.log) != len)
		return -EIO;
	/* Marks and notes are where a reader may look: flushed at once. */
	if (type != WLOG_WRITE && fflush(W.log))
		return -EIO;
	return 0;
}

static int wr_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
	struct stat b;

	(void)fi;
	memset(st, 0, sizeof(*st));
	if (!strcmp(path, "/")) {
		st->st_mode = S_IFDIR | 0755;
		st->st_nlink = 2;
		return 0;
	}
	if (!strcmp(path, "/img")) {
		if (fstat(W.img, &b))
			return -errno;
		st->st_mode = S_IFREG | 0600;
		st->st_nlink = 1;
		st->st_size = b.st_size;
		st->st_blocks = b.st_blocks;
		st->st_blksize = 4096;
		return 0;
	}
	if (!strcmp(path, "/ctl")) {
		st->st_mode = S_IFREG | 0200;
		st->st_nlink = 1;
		return 0;
	}
	return -ENOENT;
}

static int wr_readdir(const char *path, void *buf, fuse_fill_dir_t fill,
		      off_t off, struct fuse_file_info *fi,
		      enum fuse_readdir_flags flags)
{
	(void)off;
	(void)fi;
	(void)flags;
	if (strcmp(path, "/"))
		return -ENOENT;
	fill(buf, ".", NULL, 0, 0);
	fill(buf, "..", NULL, 0, 0);
	fill(buf, "img", NULL, 0, 0);
	fill(buf, "ctl", NULL, 0, 0);
	return 0;
}

static int wr_open(const char *path, struct fuse_file_info *fi)
{
	if (!strcmp(path, "/img")) {
		fi->direct_io = W.direct;
		return 0;
	}
	if (!strcmp(path, "/ctl")) {
		fi->direct_io = 1;
		return 0;
	}
	return -ENOENT;
}

static int wr_read(const char *path, char *buf, size_t size, off_t off,
		   struct fuse_file_info *fi)
{
	ssize_t n;

	(void)fi;
	if (strcmp(path, "/img"))
		return -EINVAL;
	n = pread(W.img, buf, size, off);
	return n < 0 ? -errno : (int)n;
}

static int wr_write(const char *path, const char *buf, size_t size, off_t off,
		    struct fuse_file_info *fi)
{
	ssize_t n;
	int ret;

	(void)fi;
	if (size > WLOG_MAX_LEN)
		return -EFBIG;
	if (!strcmp(path, "/ctl")) {
		ret = log_rec(WLOG_NOTE, 0, buf, (uint32_t)size);
		W.notes++;
		return ret ? ret : (int)size;
	}
	if (strcmp(path, "/img"))
		return -EINVAL;
	ret = log_rec(WLOG_WRITE, (uint64_t)off, buf, (uint32_t)size);
	if (ret)
		return ret;
	W.writes++;
	n = pwrite(W.img, buf, size, off);
	return n < 0 ? -errno : (int)n;
}

static int wr_fsync(const char *path, int datasync, struct fuse_file_info *fi)
{
	(void)datasync;
	(void)fi;
	if (strcmp(path, "/img"))
		return 0;
	W.marks++;
	return log_rec(WLOG_MARK, 0, NULL, 0);
}

/* The loop device may set the size it found; nothing else changes. */
static int wr_truncate(const char *path, off_t size, struct fuse_file_info *fi)
{
	struct stat b;

	(void)fi;
	if (!strcmp(path, "/ctl"))
		return 0;
	if (strcmp(path, "/img") || fstat(W.img, &b))
		return -EINVAL;
	return size == b.st_size ? 0 : -EPERM;
}

static void wr_destroy(void *priv)
{
	(void)priv;
	fflush(W.log);
	fprintf(stderr, "wrec: %llu writes, %llu marks, %llu notes\n",
		(unsigned long long)W.writes, (unsigned long long)W.marks,
		(unsigned long long)W.notes);
}

static const struct fuse_operations wr_ops = {
	.getattr = wr_getattr,
	.readdir = wr_readdir,
	.open = wr_open,
	.read = wr_read,
	.write = wr_write,
	.fsync = wr_fsync,
	.truncate = wr_truncate,
	.destroy = wr_destroy,
};

int main(int argc, char **argv)
{
	char *fargv[64];
	int fargc = 0, i = 1;

	if (i < argc && !strcmp(argv[i], "--direct")) {
		W.direct = 1;
		i++;
	}
	if (argc - i < 3 || argc - i > 40) {
		fprintf(stderr, "usage: wrec [--direct] BACKING LOG MNT [fuse options]\n");
		return 2;
	}
	W.img = open(argv[i], O_RDWR);
	if (W.img < 0) {
		perror(argv[i]);
		return 1;
	}
	W.log = fopen(argv[i + 1], "wb");
	if (!W.log) {
		perror(argv[i + 1]);
		return 1;
	}
	setvbuf(W.log, NULL, _IOFBF, 1 << 20);
	fargv[fargc++] = argv[0];
	fargv[fargc++] = "-f";		/* the caller runs it in the background */
	fargv[fargc++] = "-s";		/* one request at a time: one order */
	fargv[fargc++] = argv[i + 2];
	for (i += 3; i < argc; i++)
		fargv[fargc++] = argv[i];
	fargv[fargc] = NULL;
	return fuse_main(fargc, fargv, &wr_ops, NULL);
}
