/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A sparse copy of one device onto another, for a replay written into a
 * copy (xfsj-repair -O) instead of onto the original.  Every byte of the
 * source is carried over, the unused space too, so that the copy replayed
 * equals the original replayed in place byte for byte, and so that it
 * does not depend on the free-space btrees the repair may find damaged.
 * What costs nothing is not written: the source's holes are skipped
 * without being read, all-zero blocks inside its data are not written,
 * and both are zeroed on the target (a hole punched on an image file).
 */
#include <stdlib.h>
#include <string.h>

#include "xfsj/errors.h"
#include "xfsj/io.h"

#define COPY_BLOCK	4096u
#define COPY_CHUNK	(1u << 20)

int xfsj_io_next_data(struct xfsj_io *io, uint64_t off, uint64_t *start,
		      uint64_t *end)
{
	int err;

	if (off >= io->size) {
		*start = *end = io->size;
		return 0;
	}
	if (!io->ops->next_data) {
		*start = off;
		*end = io->size;
		return 0;
	}
	err = io->ops->next_data(io, off, start, end);
	if (err)
		return err;
	/* Keep a backend's answer inside the device and moving forward. */
	if (*start < off)
		*start = off;
	if (*start > io->size)
		*start = io->size;
	if (*end > io->size || *end <= *start)
		*end = io->size;
	return 0;
}

static bool all_zero(const uint8_t *p, size_t len)
{
	return len == 0 || (p[0] == 0 && memcmp(p, p + 1, len - 1) == 0);
}

/* The zeroes not yet put on the target: [zs, ze). */
struct copy_state {
	struct xfsj_io *dst;
	uint64_t zs, ze;
};

static int zero_flush(struct copy_state *cs)
{
	int err = 0;

	if (cs->ze > cs->zs)
		err = xfsj_io_zero(cs->dst, cs->zs, cs->ze - cs->zs);
	cs->zs = cs->ze = 0;
	return err;
}

static int zero_add(struct copy_state *cs, uint64_t off, uint64_t len)
{
	int err = 0;

	if (cs->ze > cs->zs && cs->ze != off)
		err = zero_flush(cs);
	if (cs->ze <= cs->zs)
		cs->zs = off;
	cs->ze = off + len;
	return err;
}

/* One chunk of data: all-zero blocks zeroed, the runs between written. */
static int copy_chunk(struct copy_state *cs, const uint8_t *buf, size_t len,
		      uint64_t off, uint64_t *data)
{
	size_t i = 0;
	int err = 0;

	while (i < len && !err) {
		size_t n = len - i < COPY_BLOCK ? len - i : COPY_BLOCK;
		size_t j = i;

		if (all_zero(buf + i, n)) {
			err = zero_add(cs, off + i, n);
			i += n;
			continue;
		}
		/* A run of blocks holding data, written at once. */
		while (j < len) {
			n = len - j < COPY_BLOCK ? len - j : COPY_BLOCK;
			if (all_zero(buf + j, n))
				break;
			j += n;
		}
		err = zero_flush(cs);
		if (!err)
			err = xfsj_pwrite(cs->dst, buf + i, j - i, off + i);
		*data += j - i;
		i = j;
	}
	return err;
}

int xfsj_io_copy(struct xfsj_io *src, struct xfsj_io *dst,
		 void (*progress)(void *arg, uint64_t done, uint64_t total),
		 void *arg, struct xfsj_copy_stats *st)
{
	struct copy_state cs = { .dst = dst };
	uint64_t off = 0, start, end, data = 0;
	uint8_t *buf;
	int err;

	if (src == dst || dst->readonly)
		return -XFSJ_E_INVAL;
	if (dst->size < src->size) {
		if (dst->is_bdev)
			return -XFSJ_E_TOOSMALL;
		err = xfsj_io_extend(dst, src->size);
		if (err)
			return err;
	}
	buf = malloc(COPY_CHUNK);
	if (!buf)
		return -XFSJ_E_NOMEM;
	err = 0;
	while (off < src->size && !err) {
		err = xfsj_io_next_data(src, off, &start, &end);
		if (err)
			break;
		if (start > off)
			err = zero_add(&cs, off, start - off);
		for (off = start; off < end && !err;) {
			size_t n = end - off < COPY_CHUNK ? (size_t)(end - off) :
				   COPY_CHUNK;

			err = xfsj_pread(src, buf, n, off);
			if (!err)
				err = copy_chunk(&cs, buf, n, off, &data);
			off += n;
			if (progress)
				progress(arg, off, src->size);
		}
		if (end <= start)
			break;
	}
	if (!err)
		err = zero_flush(&cs);
	if (!err)
		err = xfsj_io_sync(dst);
	free(buf);
	if (st) {
		st->bytes = src->size;
		st->data = data;
	}
	return err;
}
