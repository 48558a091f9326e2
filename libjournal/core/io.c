/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Generic parts of the I/O layer and the memory backend.  The memory backend
 * lets unit tests format, read and verify whole filesystems without touching
 * a disk.
 */
#include <stdlib.h>
#include <string.h>

#include "xfsj/errors.h"
#include "xfsj/io.h"

int xfsj_io_zero(struct xfsj_io *io, uint64_t off, uint64_t len)
{
	if (off > io->size || len > io->size - off)
		return -XFSJ_E_RANGE;
	return io->ops->zero(io, off, len);
}

int xfsj_io_discard(struct xfsj_io *io, uint64_t off, uint64_t len)
{
	if (!io->ops->discard)
		return 0;
	return io->ops->discard(io, off, len);
}

int xfsj_io_extend(struct xfsj_io *io, uint64_t size)
{
	if (!io->ops->extend)
		return size <= io->size ? 0 : -XFSJ_E_TOOSMALL;
	return io->ops->extend(io, size);
}

int xfsj_io_sync(struct xfsj_io *io)
{
	return io->ops->sync ? io->ops->sync(io) : 0;
}

void xfsj_io_advise(struct xfsj_io *io, uint64_t off, uint64_t len)
{
	if (!io->ops->advise || !len || off >= io->size)
		return;
	if (len > io->size - off)
		len = io->size - off;
	io->ops->advise(io, off, len);
}

bool xfsj_io_direct_readahead(struct xfsj_io *io)
{
	return io->ops->direct_readahead && io->ops->direct_readahead(io);
}

void xfsj_io_close(struct xfsj_io *io)
{
	if (!io)
		return;
	io->ops->close(io);
	free(io->name);
	free(io);
}

/* ---- memory backend ---- */

static int mem_check(struct xfsj_io *io, size_t len, uint64_t off)
{
	if (off > io->size || len > io->size - off)
		return -XFSJ_E_SHORTIO;
	return 0;
}

static int mem_pread(struct xfsj_io *io, void *buf, size_t len, uint64_t off)
{
	int err = mem_check(io, len, off);

	if (!err)
		memcpy(buf, (char *)io->priv + off, len);
	return err;
}

static int mem_pwrite(struct xfsj_io *io, const void *buf, size_t len,
		      uint64_t off)
{
	int err = mem_check(io, len, off);

	if (!err)
		memcpy((char *)io->priv + off, buf, len);
	return err;
}

static int mem_zero(struct xfsj_io *io, uint64_t off, uint64_t len)
{
	memset((char *)io->priv + off, 0, len);
	return 0;
}

static void mem_close(struct xfsj_io *io)
{
	free(io->priv);
}

static const struct xfsj_io_ops mem_ops = {
	.pread = mem_pread,
	.pwrite = mem_pwrite,
	.zero = mem_zero,
	.close = mem_close,
};

int xfsj_io_open_mem(uint64_t size, struct xfsj_io **out)
{
	struct xfsj_io *io;

	if (size > SIZE_MAX)
		return -XFSJ_E_NOMEM;
	io = calloc(1, sizeof(*io));
	if (!io)
		return -XFSJ_E_NOMEM;
	io->priv = calloc(1, size ? size : 1);
	io->name = strdup("(memory)");
	if (!io->priv || !io->name) {
		free(io->priv);
		free(io->name);
		free(io);
		return -XFSJ_E_NOMEM;
	}
	io->ops = &mem_ops;
	io->size = size;
	io->lsectsize = 512;
	io->psectsize = 512;
	*out = io;
	return 0;
}

int xfsj_io_open_mem_copy(const void *data, size_t len, struct xfsj_io **out)
{
	int err = xfsj_io_open_mem(len, out);

	if (!err)
		memcpy((*out)->priv, data, len);
	return err;
}

void *xfsj_io_mem_buffer(struct xfsj_io *io)
{
	return io->ops == &mem_ops ? io->priv : NULL;
}

int xfsj_preadv(struct xfsj_io *io, const struct iovec *iov, int n,
		uint64_t off)
{
	if (n < 0 || n > XFSJ_IOV_MAX)
		return -XFSJ_E_INVAL;
	if (io->ops->preadv)
		return io->ops->preadv(io, iov, n, off);
	for (int i = 0; i < n; i++) {
		int err = xfsj_pread(io, iov[i].iov_base, iov[i].iov_len, off);

		if (err)
			return err;
		off += iov[i].iov_len;
	}
	return 0;
}
