/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The read-ahead pool of a Unix file opened with XFSJ_IO_DIRECT: read-soon
 * hints become O_DIRECT reads, by a few threads of the pool's own, into
 * one fixed arena; the reads that follow copy from it.  The kernel's page
 * cache is never filled (no page allocated, inserted, aged and copied out
 * per 4 KiB), and at most RA_DEPTH requests wait at the device at once, so
 * a read that missed the pool queues behind a few, not behind every hint.
 */
#ifndef XFSJ_CORE_RAPOOL_H
#define XFSJ_CORE_RAPOOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

struct xfsj_rapool;

/*
 * A pool reading file @dfd (opened O_DIRECT; the pool closes it) of
 * @size bytes.  NULL when no memory.
 */
struct xfsj_rapool *xfsj_rapool_create(int dfd, uint64_t size);
void xfsj_rapool_free(struct xfsj_rapool *rp);

/*
 * Start reading [@off, @off + @len) into the pool.  Returns how many bytes
 * from @off it took (all of them, a first part of a range too large for
 * it, or 0 once a direct read has failed): the caller may hint the rest
 * another way.
 */
uint64_t xfsj_rapool_hint(struct xfsj_rapool *rp, uint64_t off,
			  uint64_t len);

/*
 * Copy the @total bytes at @off into the @n pieces of @iov if the pool
 * holds all of them (waiting for a read under way): 0, or 1 when it does
 * not (the caller reads them itself).
 */
int xfsj_rapool_read(struct xfsj_rapool *rp, const struct iovec *iov, int n,
		     uint64_t off, size_t total);

/* The file is about to change: forget everything read so far. */
void xfsj_rapool_forget(struct xfsj_rapool *rp);

struct xfsj_rapool_stats {
	uint64_t hinted;	/* hints taken */
	uint64_t read_bytes;	/* read into the arena */
	uint64_t served;	/* reads copied from it */
	uint64_t missed;	/* reads it did not hold */
	uint64_t dropped;	/* entries dropped before they were read */
	uint64_t taken;		/* entries a read needed before their turn */
	uint64_t waited;	/* reads that waited for a thread's */
};
void xfsj_rapool_stats(struct xfsj_rapool *rp, struct xfsj_rapool_stats *st);

#endif
