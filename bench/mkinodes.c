/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The workload of bench/check.sh: many inodes of every kind, made through
 * the kernel by a few threads, fast (one open and close per empty file,
 * no process per file).
 *
 *   mkinodes ROOT INODES THREADS
 *
 * Each thread fills its own directories under ROOT/tN.  The directory
 * sizes cycle through 2, 12, 60, 300, 1500, 4000 and 12000 entries, so every
 * directory format is made: short form, block, leaf, node, and (the big
 * ones, their blocks interleaved with the other threads' allocations)
 * btree.  Of the entries, by their index i in the thread:
 *   most          empty regular files
 *   i % 10 == 1   one small xattr (short form attribute fork)
 *   i % 499 == 2  24 xattrs (leaf attribute fork)
 *   i % 4999 == 3 400 xattrs (node attribute fork)
 *   i % 1999 == 4 a 6000-byte xattr value (remote value)
 *   i % 97 == 5   4 KiB of data (one extent)
 *   i % 3001 == 6 60 one-block extents with holes between (bmbt fork)
 *   i % 401 == 7  a reflink copy (FICLONE) of the thread's 4-extent file
 *   i % 211 == 8  a short symlink; i % 2111 == 9 a 600-byte one (remote)
 *   i % 1001 == 10 a character device; i % 1003 == 11 a FIFO
 *   i % 503 == 12 a hard link to the previous entry
 *   i % 37 == 13  a subdirectory (empty, or with one file)
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
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

static const char *root;
static long per_thread;
static atomic_long made;

static void die(const char *what, const char *path)
{
	fprintf(stderr, "mkinodes: %s %s: %s\n", what, path, strerror(errno));
	exit(1);
}

static void xattrs(const char *path, int n, size_t vlen)
{
	static const char v[8192];
	char name[32];
	int k;

	for (k = 0; k < n; k++) {
		snprintf(name, sizeof(name), "user.attribute%d", k);
		if (setxattr(path, name, v, vlen, 0))
			die("setxattr", path);
	}
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

/* One entry; returns the inodes it made. */
static long one(const char *dir, long i, int srcfd)
{
	char path[2048], prev[4096];
	long n = 1;
	int fd;

	snprintf(path, sizeof(path), "%s/f%ld", dir, i);
	if (i % 211 == 8 || i % 2111 == 9) {
		char target[700];

		memset(target, 'x', sizeof(target));
		target[i % 211 == 8 ? 20 : 600] = '\0';
		if (symlink(target, path))
			die("symlink", path);
		return 1;
	}
	if (i % 1001 == 10 || i % 1003 == 11) {
		if (mknod(path, i % 1001 == 10 ? S_IFCHR | 0644 : S_IFIFO | 0644,
			  makedev(1, 3)))
			die("mknod", path);
		return 1;
	}
	if (i % 37 == 13) {
		if (mkdir(path, 0755))
			die("mkdir", path);
		if (i % 2) {
			snprintf(prev, sizeof(prev), "%s/x", path);
			fd = open(prev, O_CREAT | O_WRONLY, 0644);
			if (fd < 0)
				die("open", prev);
			close(fd);
			n++;
		}
		return n;
	}
	if (i % 503 == 12 && i > 0) {
		snprintf(prev, sizeof(prev), "%s/f%ld", dir, i - 1);
		if (link(prev, path) == 0)
			return 0;
		/* the previous entry was a directory: make a file instead */
	}
	fd = open(path, O_CREAT | O_WRONLY, 0644);
	if (fd < 0)
		die("open", path);
	if (i % 401 == 7 && ioctl(fd, FICLONE, srcfd))
		die("FICLONE", path);
	if (i % 97 == 5)
		write_blocks(fd, path, 1, 1);
	if (i % 3001 == 6)
		write_blocks(fd, path, 60, 2);
	close(fd);
	if (i % 10 == 1)
		xattrs(path, 1, 8);
	if (i % 499 == 2)
		xattrs(path, 24, 40);
	if (i % 4999 == 3)
		xattrs(path, 400, 40);
	if (i % 1999 == 4)
		xattrs(path, 1, 6000);
	return n;
}

static void *worker(void *arg)
{
	static const long sizes[] = { 2, 12, 60, 300, 1500, 4000, 12000 };
	long t = (long)(size_t)arg, i = 0, d = 0, local = 0;
	char dir[1024], src[1024];
	int srcfd;

	snprintf(dir, sizeof(dir), "%s/t%ld", root, t);
	if (mkdir(dir, 0755) && errno != EEXIST)
		die("mkdir", dir);
	snprintf(src, sizeof(src), "%s/t%ld/src", root, t);
	srcfd = open(src, O_CREAT | O_RDWR, 0644);
	if (srcfd < 0)
		die("open", src);
	write_blocks(srcfd, src, 4, 2);
	fsync(srcfd);
	local = 2;
	while (local < per_thread) {
		long size = sizes[d % (sizeof(sizes) / sizeof(sizes[0]))], k;

		snprintf(dir, sizeof(dir), "%s/t%ld/d%ld", root, t, d++);
		if (mkdir(dir, 0755))
			die("mkdir", dir);
		local++;
		for (k = 0; k < size && local < per_thread; k++)
			local += one(dir, i++, srcfd);
	}
	close(srcfd);
	atomic_fetch_add(&made, local);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th[64];
	long nthreads, t;

	if (argc != 4) {
		fprintf(stderr, "usage: mkinodes ROOT INODES THREADS\n");
		return 2;
	}
	root = argv[1];
	nthreads = strtol(argv[3], NULL, 10);
	if (nthreads < 1 || nthreads > 64)
		nthreads = 2;
	per_thread = strtol(argv[2], NULL, 10) / nthreads;
	for (t = 0; t < nthreads; t++)
		if (pthread_create(&th[t], NULL, worker, (void *)(size_t)t))
			die("pthread_create", root);
	for (t = 0; t < nthreads; t++)
		pthread_join(th[t], NULL);
	printf("%ld\n", (long)atomic_load(&made));
	return 0;
}
