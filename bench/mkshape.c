/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The workloads of bench/scale.sh: one filesystem shape each, made through
 * the kernel by a few threads, one open and close per file.
 *
 *   mkshape ROOT SHAPE INODES THREADS
 *
 * SHAPE is one of
 *   fileserver  directories of 1,000 files; every tenth file holds 4 KiB
 *               of data and one small xattr, every hundredth is a reflink
 *               copy (FICLONE) of the thread's 4 KiB source file
 *   frag        directories of 1,000 files; every hundredth file holds
 *               40 one-block extents with holes between (a bmbt fork),
 *               every tenth 4 KiB of data
 *   bigdirs     four directories per thread share the inodes (btree
 *               directories); every tenth file is hard linked into the
 *               thread's first directory as well
 * Prints the number of inodes it made.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

enum shape { FILESERVER, FRAG, BIGDIRS };

static const char *root;
static enum shape shape;
static long per_thread;
static atomic_long made;

static void die(const char *what, const char *path)
{
	fprintf(stderr, "mkshape: %s %s: %s\n", what, path, strerror(errno));
	exit(1);
}

static void write_blocks(int fd, const char *path, int n, int stride)
{
	static const char blk[4096] = { 1 };
	int k;

	for (k = 0; k < n; k++)
		if (pwrite(fd, blk, sizeof(blk), (off_t)k * stride * 4096) !=
		    (ssize_t)sizeof(blk))
			die("pwrite", path);
}

/* File @i of the thread at @path. */
static void one(const char *path, long i, int srcfd)
{
	int fd = open(path, O_CREAT | O_WRONLY, 0644);

	if (fd < 0)
		die("open", path);
	if (shape == FILESERVER && i % 100 == 50) {
		if (ioctl(fd, FICLONE, srcfd))
			die("FICLONE", path);
	} else if (shape == FRAG && i % 100 == 7) {
		write_blocks(fd, path, 40, 2);
	} else if (shape != BIGDIRS && i % 10 == 1) {
		write_blocks(fd, path, 1, 1);
	}
	close(fd);
	if (shape == FILESERVER && i % 10 == 1 &&
	    setxattr(path, "user.tag", "fileserv", 8, 0))
		die("setxattr", path);
}

static void mkdir_or_die(const char *dir)
{
	if (mkdir(dir, 0755) && errno != EEXIST)
		die("mkdir", dir);
}

static void *worker(void *arg)
{
	long t = (long)(size_t)arg, i = 0, local = 0;
	char dir[1024], path[2048], link_path[2048];
	int srcfd;

	snprintf(dir, sizeof(dir), "%s/t%ld", root, t);
	mkdir_or_die(dir);
	snprintf(path, sizeof(path), "%s/t%ld/src", root, t);
	srcfd = open(path, O_CREAT | O_RDWR, 0644);
	if (srcfd < 0)
		die("open", path);
	write_blocks(srcfd, path, 1, 1);
	fsync(srcfd);
	local = 2;
	if (shape == BIGDIRS) {
		long d;

		for (d = 0; d < 4; d++) {
			snprintf(dir, sizeof(dir), "%s/t%ld/d%ld", root, t, d);
			mkdir_or_die(dir);
		}
		local += 4;
	}
	while (local < per_thread) {
		if (shape == BIGDIRS) {
			snprintf(path, sizeof(path), "%s/t%ld/d%ld/f%ld", root,
				 t, i % 4, i);
		} else {
			if (i % 1000 == 0) {
				snprintf(dir, sizeof(dir), "%s/t%ld/d%ld",
					 root, t, i / 1000);
				mkdir_or_die(dir);
				local++;
			}
			snprintf(path, sizeof(path), "%s/t%ld/d%ld/f%ld", root,
				 t, i / 1000, i);
		}
		one(path, i, srcfd);
		if (shape == BIGDIRS && i % 10 == 3) {
			snprintf(link_path, sizeof(link_path),
				 "%s/t%ld/d0/l%ld", root, t, i);
			if (link(path, link_path))
				die("link", link_path);
		}
		i++;
		local++;
	}
	close(srcfd);
	atomic_fetch_add(&made, local);
	return NULL;
}

int main(int argc, char **argv)
{
	static const char *const names[] = { "fileserver", "frag", "bigdirs" };
	pthread_t th[64];
	long nthreads, t;
	size_t s;

	if (argc != 5) {
		fprintf(stderr, "usage: mkshape ROOT SHAPE INODES THREADS\n");
		return 2;
	}
	root = argv[1];
	for (s = 0; s < sizeof(names) / sizeof(names[0]); s++)
		if (!strcmp(argv[2], names[s]))
			break;
	if (s == sizeof(names) / sizeof(names[0])) {
		fprintf(stderr, "mkshape: unknown shape %s\n", argv[2]);
		return 2;
	}
	shape = (enum shape)s;
	nthreads = strtol(argv[4], NULL, 10);
	if (nthreads < 1 || nthreads > 64)
		nthreads = 2;
	per_thread = strtol(argv[3], NULL, 10) / nthreads;
	for (t = 0; t < nthreads; t++)
		if (pthread_create(&th[t], NULL, worker, (void *)(size_t)t))
			die("pthread_create", root);
	for (t = 0; t < nthreads; t++)
		pthread_join(th[t], NULL);
	printf("%ld\n", (long)atomic_load(&made));
	return 0;
}
