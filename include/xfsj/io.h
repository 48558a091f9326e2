/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Device I/O behind a small ops table.  Backends: Unix files and block
 * devices (io_unix.c), memory (io.c, for unit tests), two devices as one
 * (io_concat.c), and two that stack on another device: the page overlay
 * (xfsj_overlay_io() in core/overlay.h: writes stay in memory until
 * committed) and fault injection (core/io_fault.h: errors and simulated
 * power cuts, for tests).  Everything above this layer addresses the
 * device in bytes and never sees a file descriptor.
 */
#ifndef XFSJ_IO_H
#define XFSJ_IO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

struct xfsj_io;

struct xfsj_io_ops {
	int (*pread)(struct xfsj_io *io, void *buf, size_t len, uint64_t off);
	int (*pwrite)(struct xfsj_io *io, const void *buf, size_t len,
		      uint64_t off);
	/* Make the range read back as zeroes; may be cheaper than writing. */
	int (*zero)(struct xfsj_io *io, uint64_t off, uint64_t len);
	/* Tell the device the range is unused (may be a no-op). */
	int (*discard)(struct xfsj_io *io, uint64_t off, uint64_t len);
	/* Grow a regular file to at least @size bytes (no-op for devices). */
	int (*extend)(struct xfsj_io *io, uint64_t size);
	int (*sync)(struct xfsj_io *io);
	void (*close)(struct xfsj_io *io);
	/*
	 * Optional fast read path (NULL when the backend has none): make the
	 * @len bytes at @off readable in place, without copying, and start
	 * reading ahead what follows.  *@p points at byte @off and stays
	 * valid, read-only, until unmap(@io, *@p, @len).
	 */
	int (*map)(struct xfsj_io *io, uint64_t off, size_t len,
		   const void **p);
	void (*unmap)(struct xfsj_io *io, const void *p, size_t len);
	/*
	 * Optional (NULL: all of the device holds data): the first range
	 * [*@start, *@end) at or after @off that may hold data, holes
	 * skipped; *@start == size when only holes follow.
	 */
	int (*next_data)(struct xfsj_io *io, uint64_t off, uint64_t *start,
			 uint64_t *end);
	/*
	 * Optional (NULL: no hints): the @len bytes at @off will be read
	 * soon; start reading them without waiting (into the kernel's page
	 * cache: nothing is held by the process).  A hint only: errors
	 * show on the read itself.
	 */
	void (*advise)(struct xfsj_io *io, uint64_t off, uint64_t len);
	/*
	 * Optional (NULL: one pread per piece): the @n pieces of @iov read
	 * from the bytes that follow one another from @off, in one request
	 * (a run of buffers read without a copy through a bounce buffer).
	 */
	int (*preadv)(struct xfsj_io *io, const struct iovec *iov, int n,
		      uint64_t off);
	/*
	 * Optional (NULL: never): from now on read hinted ranges into the
	 * process's own buffers, by O_DIRECT reads, rather than into the
	 * kernel's page cache.  False where the device cannot be read so.
	 */
	bool (*direct_readahead)(struct xfsj_io *io);
};

struct xfsj_io {
	const struct xfsj_io_ops *ops;
	char *name;		/* path, for messages */
	uint64_t size;		/* bytes */
	unsigned int lsectsize;	/* logical sector size */
	unsigned int psectsize;	/* physical sector size */
	bool is_bdev;
	bool readonly;
	/*
	 * Hints are read into the process, exactly (XFSJ_IO_DIRECT): a gap
	 * between two hinted ranges is not worth reading to join them, as
	 * nothing would keep it for a later read.
	 */
	bool ra_exact;
	void *priv;
};

enum {
	XFSJ_IO_RDONLY	= 1 << 0,	/* never opened for writing */
	XFSJ_IO_EXCL	= 1 << 1,	/* O_EXCL on block devices */
	XFSJ_IO_CREATE	= 1 << 2,	/* create a regular file if missing */
	XFSJ_IO_DIRECT	= 1 << 3,	/* xfsj_io_direct_readahead at once */
};

int xfsj_io_open(const char *path, unsigned int flags, struct xfsj_io **out);
/*
 * Why xfsj_io_open just failed with @err, in words: the system's reason
 * for -XFSJ_E_OPEN ("No such file or directory", "Permission denied"),
 * else xfsj_strerror(@err).  Call it right after the failed open.
 */
const char *xfsj_io_open_strerror(int err);
int xfsj_io_open_mem(uint64_t size, struct xfsj_io **out);
/* Memory backend holding a copy of @len bytes at @data. */
int xfsj_io_open_mem_copy(const void *data, size_t len, struct xfsj_io **out);
/* The memory backend's buffer (NULL for other backends). */
void *xfsj_io_mem_buffer(struct xfsj_io *io);

static inline int xfsj_pread(struct xfsj_io *io, void *buf, size_t len,
			     uint64_t off)
{
	return io->ops->pread(io, buf, len, off);
}

/* At most XFSJ_IOV_MAX pieces a request. */
#define XFSJ_IOV_MAX	256
int xfsj_preadv(struct xfsj_io *io, const struct iovec *iov, int n,
		uint64_t off);

static inline int xfsj_pwrite(struct xfsj_io *io, const void *buf, size_t len,
			      uint64_t off)
{
	return io->ops->pwrite(io, buf, len, off);
}

/*
 * True when a mounted filesystem lives on @path: a block device that is
 * mounted, or a regular file behind a loop device that is.  Writing to it
 * would pull the disk from under the kernel.
 */
bool xfsj_path_mounted(const char *path);
/*
 * True when the kernel holds @path, or the loop device behind a regular
 * file @path, exclusively: mounted, or the external log of a mounted
 * filesystem (which /proc/self/mountinfo does not list as a source).
 */
bool xfsj_path_held(const char *path);

/*
 * @a and @b as one device: @a's bytes from 0, @b's from @b_off (at or past
 * the end of @a; the gap reads as zeroes and refuses writes).  For a
 * replay that writes a data device and its external log through one
 * overlay and one redo file.  Closing it leaves @a and @b open.
 */
int xfsj_io_concat(struct xfsj_io *a, struct xfsj_io *b, uint64_t b_off,
		   struct xfsj_io **out);

/*
 * Copy all of @src onto @dst (at least as large, or a regular file, which
 * is grown), sparsely: holes of @src (next_data) and all-zero 4 KiB
 * blocks are not written but zeroed (xfsj_io_zero: punched on a file,
 * BLKZEROOUT on a device), so @dst reads back as @src byte for byte and
 * an image file stays sparse.  @dst past @src's size is left as it is.
 * @progress (may be NULL) is told the bytes done so far.
 */
struct xfsj_copy_stats {
	uint64_t bytes;		/* @src's size */
	uint64_t data;		/* bytes written (not all zero) */
};

int xfsj_io_copy(struct xfsj_io *src, struct xfsj_io *dst,
		 void (*progress)(void *arg, uint64_t done, uint64_t total),
		 void *arg, struct xfsj_copy_stats *st);
/* The next range that may hold data (ops->next_data, else all of it). */
int xfsj_io_next_data(struct xfsj_io *io, uint64_t off, uint64_t *start,
		      uint64_t *end);

int xfsj_io_zero(struct xfsj_io *io, uint64_t off, uint64_t len);
int xfsj_io_discard(struct xfsj_io *io, uint64_t off, uint64_t len);
int xfsj_io_extend(struct xfsj_io *io, uint64_t size);
int xfsj_io_sync(struct xfsj_io *io);
/* A read-soon hint for [@off, @off + @len) (io->ops->advise), if any. */
void xfsj_io_advise(struct xfsj_io *io, uint64_t off, uint64_t len);
/*
 * Hints from now on are read by the process itself, O_DIRECT, into a
 * bounded pool the reads copy from (core/rapool.h): no page-cache copy per
 * byte, and at most a few requests at the device at once.  It pays on
 * large scans; the page cache's deeper queue wins on small ones.  False
 * (nothing changes) where the backend or the device cannot.
 */
bool xfsj_io_direct_readahead(struct xfsj_io *io);
/* The memory that pool takes, once it has filled. */
#define XFSJ_IO_POOL_BYTES	(32ULL << 20)
void xfsj_io_close(struct xfsj_io *io);

#endif
