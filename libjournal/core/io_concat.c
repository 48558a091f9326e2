/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Two devices seen as one: the data device at byte 0 and, from a byte
 * offset past its end, a second device (an external log).  The replay's
 * page overlay and redo file address one device; giving them this one
 * lets a replay that writes to both commit through a single redo file,
 * so that a run killed anywhere has either touched neither device or
 * has a complete redo file for both.  The bytes between the end of the
 * first device and the start of the second read as zeroes and cannot be
 * written.  Closing this does not close the two devices.
 */
#include <stdlib.h>
#include <string.h>

#include "xfsj/errors.h"
#include "xfsj/io.h"

struct concat {
	struct xfsj_io *a, *b;
	uint64_t b_off;
};

/*
 * Call @fn on each piece of [off, off + len): on device a, in the gap
 * (dev NULL) or on device b, with offsets relative to that device.
 */
typedef int (*piece_fn)(struct xfsj_io *dev, uint8_t *buf, size_t len,
			uint64_t off, void *arg);

static int split(struct xfsj_io *io, uint8_t *buf, size_t len, uint64_t off,
		 piece_fn fn, void *arg)
{
	struct concat *c = io->priv;

	if (off > io->size || len > io->size - off)
		return -XFSJ_E_SHORTIO;
	while (len) {
		struct xfsj_io *dev;
		uint64_t end, rel;
		size_t n;
		int err;

		if (off < c->a->size) {
			dev = c->a;
			end = c->a->size;
			rel = off;
		} else if (off < c->b_off) {
			dev = NULL;
			end = c->b_off;
			rel = off;
		} else {
			dev = c->b;
			end = io->size;
			rel = off - c->b_off;
		}
		n = end - off < len ? (size_t)(end - off) : len;
		err = fn(dev, buf, n, rel, arg);
		if (err)
			return err;
		if (buf)
			buf += n;
		off += n;
		len -= n;
	}
	return 0;
}

static int read_piece(struct xfsj_io *dev, uint8_t *buf, size_t len,
		      uint64_t off, void *arg)
{
	(void)arg;
	if (!dev) {
		memset(buf, 0, len);
		return 0;
	}
	return xfsj_pread(dev, buf, len, off);
}

static int write_piece(struct xfsj_io *dev, uint8_t *buf, size_t len,
		       uint64_t off, void *arg)
{
	(void)arg;
	if (!dev)
		return -XFSJ_E_RANGE;
	return xfsj_pwrite(dev, buf, len, off);
}

static int zero_piece(struct xfsj_io *dev, uint8_t *buf, size_t len,
		      uint64_t off, void *arg)
{
	(void)buf;
	(void)arg;
	return dev ? xfsj_io_zero(dev, off, len) : 0;
}

static int discard_piece(struct xfsj_io *dev, uint8_t *buf, size_t len,
			 uint64_t off, void *arg)
{
	(void)buf;
	(void)arg;
	return dev ? xfsj_io_discard(dev, off, len) : 0;
}

static int advise_piece(struct xfsj_io *dev, uint8_t *buf, size_t len,
			uint64_t off, void *arg)
{
	(void)buf;
	(void)arg;
	if (dev)
		xfsj_io_advise(dev, off, len);
	return 0;
}

static void cat_advise(struct xfsj_io *io, uint64_t off, uint64_t len)
{
	(void)split(io, NULL, (size_t)len, off, advise_piece, NULL);
}

static int cat_pread(struct xfsj_io *io, void *buf, size_t len, uint64_t off)
{
	return split(io, buf, len, off, read_piece, NULL);
}

static int cat_pwrite(struct xfsj_io *io, const void *buf, size_t len,
		      uint64_t off)
{
	/* write_piece only reads through the pointer. */
	return split(io, (uint8_t *)(uintptr_t)buf, len, off, write_piece,
		     NULL);
}

static int cat_zero(struct xfsj_io *io, uint64_t off, uint64_t len)
{
	return split(io, NULL, (size_t)len, off, zero_piece, NULL);
}

static int cat_discard(struct xfsj_io *io, uint64_t off, uint64_t len)
{
	return split(io, NULL, (size_t)len, off, discard_piece, NULL);
}

static int cat_sync(struct xfsj_io *io)
{
	struct concat *c = io->priv;
	int err = xfsj_io_sync(c->a);

	return err ? err : xfsj_io_sync(c->b);
}

static void cat_close(struct xfsj_io *io)
{
	free(io->priv);
}

static const struct xfsj_io_ops concat_ops = {
	.pread = cat_pread,
	.pwrite = cat_pwrite,
	.zero = cat_zero,
	.discard = cat_discard,
	.sync = cat_sync,
	.close = cat_close,
	.advise = cat_advise,
};

int xfsj_io_concat(struct xfsj_io *a, struct xfsj_io *b, uint64_t b_off,
		   struct xfsj_io **out)
{
	struct xfsj_io *io;
	struct concat *c;

	*out = NULL;
	if (b_off < a->size || b->size > UINT64_MAX - b_off)
		return -XFSJ_E_RANGE;
	io = calloc(1, sizeof(*io));
	c = calloc(1, sizeof(*c));
	if (io)
		io->name = strdup(a->name ? a->name : "");
	if (!io || !c || !io->name) {
		if (io)
			free(io->name);
		free(io);
		free(c);
		return -XFSJ_E_NOMEM;
	}
	c->a = a;
	c->b = b;
	c->b_off = b_off;
	io->ops = &concat_ops;
	io->priv = c;
	io->size = b_off + b->size;
	io->lsectsize = a->lsectsize > b->lsectsize ? a->lsectsize :
						       b->lsectsize;
	io->psectsize = a->psectsize > b->psectsize ? a->psectsize :
						       b->psectsize;
	io->is_bdev = a->is_bdev;
	io->readonly = a->readonly || b->readonly;
	io->ra_exact = a->ra_exact;
	*out = io;
	return 0;
}
