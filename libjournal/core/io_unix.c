/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unix backend: regular files and block devices.  Zeroing prefers the cheap
 * paths (BLKZEROOUT on devices, FALLOC_FL_ZERO_RANGE / PUNCH_HOLE on files)
 * because mkfs zeroes the whole log, which can be 2 GiB.
 */
#include <dirent.h>
#include <errno.h>
#include <linux/loop.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/sysmacros.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <linux/fs.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/rapool.h"
#include "xfsj/errors.h"
#include "xfsj/io.h"

/*
 * Read-soon hints wait here for the hint thread (see unix_advise): a ring
 * of HINT_RING ranges, the oldest first, taken HINT_BATCH or more at a
 * time (fewer stay queued until more come, or the file is closed).
 */
#define HINT_RING	1024
#define HINT_BATCH	16

struct hint_range {
	uint64_t off, len;
};

struct unix_priv {
	int fd;
	pthread_mutex_t lock;		/* what follows */
	pthread_cond_t more;		/* a hint queued, or stop */
	pthread_cond_t room;		/* a hint taken */
	struct hint_range ring[HINT_RING];
	unsigned int head, n;		/* the oldest; how many */
	bool started, stop;
	pthread_t thread;
	struct xfsj_rapool *pool;	/* XFSJ_IO_DIRECT: hints read here */
};

static int ufd(struct xfsj_io *io)
{
	return ((struct unix_priv *)io->priv)->fd;
}

/*
 * The file changes: what the pool read of it is stale (said before the
 * change and after it, so that no read it had under way survives).
 */
static void unix_changed(struct xfsj_io *io)
{
	struct unix_priv *p = io->priv;

	if (p->pool)
		xfsj_rapool_forget(p->pool);
}

static int unix_pread(struct xfsj_io *io, void *buf, size_t len, uint64_t off)
{
	struct unix_priv *up = io->priv;
	char *p = buf;

	if (up->pool) {
		struct iovec v = { .iov_base = buf, .iov_len = len };

		if (!xfsj_rapool_read(up->pool, &v, 1, off, len))
			return 0;
	}

	while (len) {
		ssize_t n = pread(ufd(io), p, len, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -XFSJ_E_IO;
		if (n == 0)
			return -XFSJ_E_SHORTIO;
		p += n;
		off += (uint64_t)n;
		len -= (size_t)n;
	}
	return 0;
}

/* preadv until every piece is full (a short read goes on where it
 * stopped). */
static int unix_preadv(struct xfsj_io *io, const struct iovec *iov, int n,
		       uint64_t off)
{
	struct unix_priv *up = io->priv;
	struct iovec v[XFSJ_IOV_MAX];
	int first = 0;

	if (n < 0 || n > XFSJ_IOV_MAX)
		return -XFSJ_E_INVAL;
	if (up->pool) {
		size_t total = 0;

		for (int i = 0; i < n; i++)
			total += iov[i].iov_len;
		if (!xfsj_rapool_read(up->pool, iov, n, off, total))
			return 0;
	}
	memcpy(v, iov, (size_t)n * sizeof(*v));
	while (first < n) {
		ssize_t got = preadv(ufd(io), v + first, n - first,
				     (off_t)off);

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return -XFSJ_E_IO;
		if (got == 0)
			return -XFSJ_E_SHORTIO;
		off += (uint64_t)got;
		while (first < n && (size_t)got >= v[first].iov_len) {
			got -= (ssize_t)v[first].iov_len;
			first++;
		}
		if (first < n) {
			v[first].iov_base = (char *)v[first].iov_base + got;
			v[first].iov_len -= (size_t)got;
		}
	}
	return 0;
}

static int unix_pwrite(struct xfsj_io *io, const void *buf, size_t len,
		       uint64_t off)
{
	const char *p = buf;

	if (io->readonly)
		return -XFSJ_E_INVAL;
	unix_changed(io);
	while (len) {
		ssize_t n = pwrite(ufd(io), p, len, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -XFSJ_E_IO;
		p += n;
		off += (uint64_t)n;
		len -= (size_t)n;
	}
	unix_changed(io);
	if (off > io->size)
		io->size = off;
	return 0;
}

static int zero_by_writing(struct xfsj_io *io, uint64_t off, uint64_t len)
{
	const size_t chunk = 1 << 20;
	void *z = calloc(1, chunk);
	int err = 0;

	if (!z)
		return -XFSJ_E_NOMEM;
	while (len && !err) {
		size_t n = len < chunk ? (size_t)len : chunk;

		err = unix_pwrite(io, z, n, off);
		off += n;
		len -= n;
	}
	free(z);
	return err;
}

static int zero_range(struct xfsj_io *io, uint64_t off, uint64_t len)
{
	if (io->is_bdev) {
		uint64_t range[2] = { off, len };

		if (ioctl(ufd(io), BLKZEROOUT, range) == 0)
			return 0;
	} else {
		/* Punching keeps a sparse image sparse. */
		if (fallocate(ufd(io), FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
			      (off_t)off, (off_t)len) == 0)
			return 0;
		if (fallocate(ufd(io), FALLOC_FL_ZERO_RANGE, (off_t)off,
			      (off_t)len) == 0)
			return 0;
	}
	return zero_by_writing(io, off, len);
}

static int unix_zero(struct xfsj_io *io, uint64_t off, uint64_t len)
{
	int err;

	if (io->readonly)
		return -XFSJ_E_INVAL;
	if (!len)
		return 0;
	unix_changed(io);
	err = zero_range(io, off, len);
	unix_changed(io);
	return err;
}

static int unix_discard(struct xfsj_io *io, uint64_t off, uint64_t len)
{
	if (io->readonly || !len)
		return 0;
	unix_changed(io);
	if (io->is_bdev) {
		uint64_t range[2] = { off, len };

		/* Not every device discards; that is not an error. */
		(void)ioctl(ufd(io), BLKDISCARD, range);
	} else {
		(void)fallocate(ufd(io),
				FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
				(off_t)off, (off_t)len);
	}
	unix_changed(io);
	return 0;
}

static int unix_extend(struct xfsj_io *io, uint64_t size)
{
	if (size <= io->size)
		return 0;
	if (io->is_bdev || io->readonly)
		return -XFSJ_E_TOOSMALL;
	if (ftruncate(ufd(io), (off_t)size) < 0)
		return errno == EFBIG ? -XFSJ_E_TOOSMALL : -XFSJ_E_IO;
	io->size = size;
	return 0;
}

static int unix_sync(struct xfsj_io *io)
{
	if (io->readonly)
		return 0;
	return fsync(ufd(io)) < 0 ? -XFSJ_E_IO : 0;
}

static void hints_stop(struct unix_priv *p)
{
	if (!p->started)
		return;
	pthread_mutex_lock(&p->lock);
	p->stop = true;
	pthread_cond_broadcast(&p->more);
	pthread_cond_broadcast(&p->room);
	pthread_mutex_unlock(&p->lock);
	pthread_join(p->thread, NULL);
	p->started = false;
}

static void unix_close(struct xfsj_io *io)
{
	struct unix_priv *p = io->priv;

	hints_stop(p);
	xfsj_rapool_free(p->pool);
	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->more);
	pthread_cond_destroy(&p->room);
	close(p->fd);
	free(p);
}

/*
 * Map a range read-only with its pages read in at once (no copy, no fault
 * per page), and ask the kernel to read ahead as much again behind it so
 * a sequential scan of a cold device overlaps its reads with the work.
 * A read error must come back as an error, not as SIGBUS on first touch:
 * MADV_POPULATE_READ says when the pages could not be read, and then the
 * caller falls back to pread, which reports it.
 */
static int unix_map(struct xfsj_io *io, uint64_t off, size_t len,
		    const void **p)
{
	uint64_t pg = (uint64_t)sysconf(_SC_PAGESIZE);
	uint64_t base = off & ~(pg - 1);
	size_t delta = (size_t)(off - base);
	int flags = MAP_SHARED;
	void *m;

	if (!len || off > io->size || len > io->size - off)
		return -XFSJ_E_SHORTIO;
#ifndef MADV_POPULATE_READ
	flags |= MAP_POPULATE;
#endif
	m = mmap(NULL, len + delta, PROT_READ, flags, ufd(io), (off_t)base);
	if (m == MAP_FAILED)
		return -XFSJ_E_IO;
#ifdef MADV_POPULATE_READ
	if (madvise(m, len + delta, MADV_POPULATE_READ) && errno != EINVAL) {
		munmap(m, len + delta);
		return -XFSJ_E_IO;
	}
#endif
	if (off + len < io->size)
		(void)posix_fadvise(ufd(io), (off_t)(off + len),
				    (off_t)(io->size - off - len < len ?
					    io->size - off - len : len),
				    POSIX_FADV_WILLNEED);
	*p = (const char *)m + delta;
	return 0;
}

static void unix_unmap(struct xfsj_io *io, const void *p, size_t len)
{
	uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t a = (uintptr_t)p, base = a & ~(pg - 1);

	(void)io;
	munmap((void *)base, len + (a - base));
}

/* Holes of a sparse image file, from SEEK_DATA / SEEK_HOLE. */
static int unix_next_data(struct xfsj_io *io, uint64_t off, uint64_t *start,
			  uint64_t *end)
{
	off_t d, h;

	*start = off;
	*end = io->size;
	if (io->is_bdev)
		return 0;
	d = lseek(ufd(io), (off_t)off, SEEK_DATA);
	if (d < 0) {
		/* ENXIO: only a hole follows; else no SEEK_DATA here. */
		if (errno == ENXIO)
			*start = io->size;
		return 0;
	}
	h = lseek(ufd(io), d, SEEK_HOLE);
	*start = (uint64_t)d;
	if (h > d)
		*end = (uint64_t)h;
	return 0;
}

/*
 * The kernel reads the range into its page cache in the background; a
 * later pread of it then waits on no disk.  Many hints in flight at once
 * let the device serve them together, in its own order.
 *
 * posix_fadvise(WILLNEED) itself is not free: the kernel maps the file's
 * blocks, allocates the pages and submits the reads in the caller's time
 * (on a 1M-inode image of fragmented files kept in a file on ext4, a
 * third of the check's CPU).  So the caller only queues the range, and
 * one thread per open file makes the calls, in the order they came, on a
 * core the scan leaves idle.  A full ring makes the caller wait for room:
 * no hint is lost, the memory is bounded.
 */
static void *hint_thread(void *arg)
{
	struct unix_priv *p = arg;

	pthread_mutex_lock(&p->lock);
	for (;;) {
		struct hint_range h;

		while (!p->n && !p->stop)
			pthread_cond_wait(&p->more, &p->lock);
		if (p->stop)
			break;
		h = p->ring[p->head];
		p->head = (p->head + 1) % HINT_RING;
		p->n--;
		pthread_cond_signal(&p->room);
		pthread_mutex_unlock(&p->lock);
		(void)posix_fadvise(p->fd, (off_t)h.off, (off_t)h.len,
				    POSIX_FADV_WILLNEED);
		pthread_mutex_lock(&p->lock);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

static void unix_advise(struct xfsj_io *io, uint64_t off, uint64_t len)
{
	struct unix_priv *p = io->priv;

	if (p->pool) {
		uint64_t took = xfsj_rapool_hint(p->pool, off, len);

		if (took >= len)
			return;
		off += took;
		len -= took;
	}
	pthread_mutex_lock(&p->lock);
	if (!p->started && !p->stop) {
		p->started = !pthread_create(&p->thread, NULL, hint_thread, p);
		/* No thread to be had: hint in place. */
		p->stop = !p->started;
	}
	if (!p->started) {
		pthread_mutex_unlock(&p->lock);
		(void)posix_fadvise(p->fd, (off_t)off, (off_t)len,
				    POSIX_FADV_WILLNEED);
		return;
	}
	while (p->n == HINT_RING && !p->stop)
		pthread_cond_wait(&p->room, &p->lock);
	if (!p->stop) {
		p->ring[(p->head + p->n) % HINT_RING] =
			(struct hint_range){ off, len };
		p->n++;
		/*
		 * A sleeping thread is woken for a batch, not for each hint:
		 * a wake-up per hint cost more than the hint on a warm cache.
		 */
		if (p->n >= HINT_BATCH)
			pthread_cond_signal(&p->more);
	}
	pthread_mutex_unlock(&p->lock);
}

/*
 * Hints are read by the pool (rapool.h) through a second descriptor,
 * opened O_DIRECT.  Where the file cannot be read so (a filesystem without
 * O_DIRECT, no memory), hints stay with the page cache.
 */
static bool unix_direct_readahead(struct xfsj_io *io)
{
	struct unix_priv *p = io->priv;
	char self[64];
	int dfd;

	if (p->pool)
		return true;
	/* The same file, whatever became of its name since. */
	snprintf(self, sizeof(self), "/proc/self/fd/%d", p->fd);
	dfd = open(self, O_RDONLY | O_DIRECT | O_CLOEXEC);
	if (dfd < 0)
		return false;
	p->pool = xfsj_rapool_create(dfd, io->size);
	if (!p->pool) {
		close(dfd);
		return false;
	}
	io->ra_exact = true;
	return true;
}

static const struct xfsj_io_ops unix_ops = {
	.pread = unix_pread,
	.pwrite = unix_pwrite,
	.zero = unix_zero,
	.discard = unix_discard,
	.extend = unix_extend,
	.sync = unix_sync,
	.close = unix_close,
	.map = unix_map,
	.unmap = unix_unmap,
	.next_data = unix_next_data,
	.advise = unix_advise,
	.preadv = unix_preadv,
	.direct_readahead = unix_direct_readahead,
};

const char *xfsj_io_open_strerror(int err)
{
	if ((err == -XFSJ_E_OPEN || err == XFSJ_E_OPEN) && errno)
		return strerror(errno);
	return xfsj_strerror(err);
}

int xfsj_io_open(const char *path, unsigned int flags, struct xfsj_io **out)
{
	struct xfsj_io *io;
	struct unix_priv *p;
	struct stat st;
	int oflags = O_CLOEXEC;
	int fd;

	if (flags & XFSJ_IO_RDONLY) {
		oflags |= O_RDONLY;
	} else {
		oflags |= O_RDWR;
		if (flags & XFSJ_IO_CREATE)
			oflags |= O_CREAT;
	}
	fd = open(path, oflags, 0644);
	if (fd < 0)
		return errno == EBUSY ? -XFSJ_E_BUSY : -XFSJ_E_OPEN;
	if (fstat(fd, &st) < 0) {
		int e = errno;

		close(fd);
		errno = e;
		return -XFSJ_E_OPEN;
	}
	if (S_ISBLK(st.st_mode) && (flags & XFSJ_IO_EXCL) &&
	    !(flags & XFSJ_IO_RDONLY)) {
		/* Reopen exclusively: the kernel refuses if it is mounted. */
		int efd = open(path, oflags | O_EXCL);

		if (efd < 0) {
			int e = errno;

			close(fd);
			errno = e;
			return e == EBUSY ? -XFSJ_E_BUSY : -XFSJ_E_OPEN;
		}
		close(fd);
		fd = efd;
	}
	io = calloc(1, sizeof(*io));
	p = calloc(1, sizeof(*p));
	if (!io || !p || !(io->name = strdup(path))) {
		free(io);
		free(p);
		close(fd);
		return -XFSJ_E_NOMEM;
	}
	p->fd = fd;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->more, NULL);
	pthread_cond_init(&p->room, NULL);
	io->priv = p;
	io->ops = &unix_ops;
	io->readonly = flags & XFSJ_IO_RDONLY;
	io->lsectsize = 512;
	io->psectsize = 512;
	if (S_ISBLK(st.st_mode)) {
		uint64_t sz = 0;
		int ss = 0;
		unsigned int pss = 0;

		io->is_bdev = true;
		if (ioctl(fd, BLKGETSIZE64, &sz) == 0)
			io->size = sz;
		if (ioctl(fd, BLKSSZGET, &ss) == 0 && ss > 0)
			io->lsectsize = (unsigned int)ss;
		if (ioctl(fd, BLKPBSZGET, &pss) == 0 && pss > 0)
			io->psectsize = pss;
	} else if (S_ISREG(st.st_mode)) {
		io->size = (uint64_t)st.st_size;
	} else {
		xfsj_io_close(io);
		return -XFSJ_E_UNSUPP;
	}
	if (flags & XFSJ_IO_DIRECT)
		(void)unix_direct_readahead(io);
	*out = io;
	return 0;
}

/* ---- is it in use? ---- */

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
 * Is @st (a regular file) the backing file of a loop device for which
 * @pred(device path, open fd) holds?  Formatting or replaying into the
 * file would pull the disk from under the kernel, exactly as writing to
 * the device itself would.
 */
static bool file_backs_loop(const struct stat *st,
			    bool (*pred)(const char *path, int fd))
{
	DIR *d = opendir("/sys/block");
	struct dirent *de;
	bool found = false;

	if (!d)
		return false;
	while (!found && (de = readdir(d))) {
		struct loop_info64 li;
		char path[300];
		int fd;

		if (strncmp(de->d_name, "loop", 4))
			continue;
		snprintf(path, sizeof(path), "/dev/%s", de->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (ioctl(fd, LOOP_GET_STATUS64, &li) == 0 &&
		    li.lo_inode == st->st_ino && li.lo_device == st->st_dev)
			found = pred(path, fd);
		close(fd);
	}
	closedir(d);
	return found;
}

static bool loop_mounted(const char *path, int fd)
{
	struct stat lst;

	(void)path;
	return fstat(fd, &lst) == 0 && dev_is_mounted(lst.st_rdev);
}

/*
 * Is block device @path held by the kernel (mounted, an external log or
 * realtime device of a mounted filesystem, a RAID member...)?  An
 * exclusive open tells: it fails with EBUSY while anyone holds it so.
 */
static bool bdev_held(const char *path)
{
	int fd = open(path, O_RDONLY | O_EXCL | O_CLOEXEC);

	if (fd >= 0) {
		close(fd);
		return false;
	}
	return errno == EBUSY;
}

static bool loop_held(const char *path, int fd)
{
	(void)fd;
	return bdev_held(path);
}

bool xfsj_path_held(const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return false;
	if (S_ISBLK(st.st_mode))
		return bdev_held(path);
	if (S_ISREG(st.st_mode))
		return file_backs_loop(&st, loop_held);
	return false;
}

bool xfsj_path_mounted(const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return false;
	if (S_ISBLK(st.st_mode))
		return dev_is_mounted(st.st_rdev);
	if (S_ISREG(st.st_mode))
		return file_backs_loop(&st, loop_mounted);
	return false;
}
