/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Page overlay over a device: an open-addressing hash of 4 KiB pages keyed
 * by page index.  Pages enter the table on first write (read-modify-write
 * from the device); reads of pages not in the table go to the device.
 */
#include <stdlib.h>
#include <string.h>

#include "xfsj/errors.h"
#include "core/overlay.h"

struct page {
	uint64_t index;		/* device offset / XFSJ_OVL_PAGE; UINT64_MAX = empty */
	uint8_t *data;
	uint32_t epoch;		/* the epoch of its last write */
	uint8_t sectors;	/* 512-byte sectors written in that epoch */
};

struct xfsj_overlay {
	struct xfsj_io *io;
	struct page *tab;
	size_t cap;		/* power of two */
	size_t used;
	uint32_t epoch;		/* the writes' epoch now */
};

static size_t slot_of(uint64_t index, size_t cap)
{
	/* Fibonacci hashing spreads consecutive page numbers. */
	return (size_t)((index * 0x9e3779b97f4a7c15ULL) >> 20) & (cap - 1);
}

int xfsj_overlay_create(struct xfsj_io *io, struct xfsj_overlay **out)
{
	struct xfsj_overlay *ov = calloc(1, sizeof(*ov));

	if (!ov)
		return -XFSJ_E_NOMEM;
	ov->io = io;
	ov->cap = 1024;
	ov->tab = malloc(ov->cap * sizeof(*ov->tab));
	if (!ov->tab) {
		free(ov);
		return -XFSJ_E_NOMEM;
	}
	for (size_t i = 0; i < ov->cap; i++)
		ov->tab[i].index = UINT64_MAX;
	*out = ov;
	return 0;
}

void xfsj_overlay_free(struct xfsj_overlay *ov)
{
	if (!ov)
		return;
	for (size_t i = 0; i < ov->cap; i++)
		if (ov->tab[i].index != UINT64_MAX)
			free(ov->tab[i].data);
	free(ov->tab);
	free(ov);
}

static struct page *find(struct xfsj_overlay *ov, uint64_t index)
{
	size_t s = slot_of(index, ov->cap);

	for (;;) {
		struct page *p = &ov->tab[s];

		if (p->index == index)
			return p;
		if (p->index == UINT64_MAX)
			return NULL;
		s = (s + 1) & (ov->cap - 1);
	}
}

static int grow(struct xfsj_overlay *ov)
{
	size_t ncap = ov->cap * 2;
	struct page *nt = malloc(ncap * sizeof(*nt));

	if (!nt)
		return -XFSJ_E_NOMEM;
	for (size_t i = 0; i < ncap; i++)
		nt[i].index = UINT64_MAX;
	for (size_t i = 0; i < ov->cap; i++) {
		size_t s;

		if (ov->tab[i].index == UINT64_MAX)
			continue;
		s = slot_of(ov->tab[i].index, ncap);
		while (nt[s].index != UINT64_MAX)
			s = (s + 1) & (ncap - 1);
		nt[s] = ov->tab[i];
	}
	free(ov->tab);
	ov->tab = nt;
	ov->cap = ncap;
	return 0;
}

/* The page for @index, created from the device contents if needed. */
static int get_page(struct xfsj_overlay *ov, uint64_t index, struct page **out)
{
	struct page *p = find(ov, index);
	uint64_t off = index * XFSJ_OVL_PAGE;
	size_t s;
	int err;

	if (p) {
		*out = p;
		return 0;
	}
	if ((ov->used + 1) * 4 > ov->cap * 3) {
		err = grow(ov);
		if (err)
			return err;
	}
	uint8_t *data = malloc(XFSJ_OVL_PAGE);

	if (!data)
		return -XFSJ_E_NOMEM;
	if (off >= ov->io->size) {
		free(data);
		return -XFSJ_E_RANGE;
	}
	if (off + XFSJ_OVL_PAGE > ov->io->size) {
		memset(data, 0, XFSJ_OVL_PAGE);
		err = xfsj_pread(ov->io, data, (size_t)(ov->io->size - off), off);
	} else {
		err = xfsj_pread(ov->io, data, XFSJ_OVL_PAGE, off);
	}
	if (err) {
		free(data);
		return err;
	}
	s = slot_of(index, ov->cap);
	while (ov->tab[s].index != UINT64_MAX)
		s = (s + 1) & (ov->cap - 1);
	ov->tab[s].index = index;
	ov->tab[s].data = data;
	ov->tab[s].epoch = ov->epoch;
	ov->tab[s].sectors = 0;
	ov->used++;
	*out = &ov->tab[s];
	return 0;
}

/*
 * Bytes from @off (inside page @index) to the end of @len that no page of
 * the overlay holds, in one piece: the device serves them with one read.
 */
static size_t device_run(struct xfsj_overlay *ov, uint64_t index,
			 size_t in, size_t len)
{
	size_t n = XFSJ_OVL_PAGE - in;

	if (!ov->used)
		return len;
	while (n < len && !find(ov, ++index))
		n += XFSJ_OVL_PAGE;
	return n < len ? n : len;
}

int xfsj_overlay_read(struct xfsj_overlay *ov, void *buf, size_t len,
		      uint64_t off)
{
	uint8_t *dst = buf;

	if (off > ov->io->size || len > ov->io->size - off)
		return -XFSJ_E_RANGE;
	while (len) {
		uint64_t index = off / XFSJ_OVL_PAGE;
		size_t in = (size_t)(off % XFSJ_OVL_PAGE);
		size_t n = XFSJ_OVL_PAGE - in < len ? XFSJ_OVL_PAGE - in : len;
		struct page *p = find(ov, index);
		int err;

		if (p) {
			memcpy(dst, p->data + in, n);
		} else {
			n = device_run(ov, index, in, len);
			err = xfsj_pread(ov->io, dst, n, off);
			if (err)
				return err;
		}
		dst += n;
		off += n;
		len -= n;
	}
	return 0;
}

int xfsj_overlay_readv(struct xfsj_overlay *ov, const struct iovec *iov,
		       int n, uint64_t off)
{
	uint64_t len = 0;

	for (int i = 0; i < n; i++)
		len += iov[i].iov_len;
	if (off > ov->io->size || len > ov->io->size - off)
		return -XFSJ_E_RANGE;
	/* None of it in the overlay: the device reads it all at once. */
	if (len && !find(ov, off / XFSJ_OVL_PAGE) &&
	    device_run(ov, off / XFSJ_OVL_PAGE,
		       (size_t)(off % XFSJ_OVL_PAGE), (size_t)len) == len)
		return xfsj_preadv(ov->io, iov, n, off);
	for (int i = 0; i < n; i++) {
		int err = xfsj_overlay_read(ov, iov[i].iov_base,
					    iov[i].iov_len, off);

		if (err)
			return err;
		off += iov[i].iov_len;
	}
	return 0;
}

void xfsj_overlay_advise(struct xfsj_overlay *ov, uint64_t off, uint64_t len)
{
	xfsj_io_advise(ov->io, off, len);
}

/* Bytes [in, in + n) of page @p were written in the current epoch. */
static void mark_written(const struct xfsj_overlay *ov, struct page *p,
			 size_t in, size_t n)
{
	unsigned int first = (unsigned int)(in / XFSJ_OVL_SECTOR);
	unsigned int last = (unsigned int)((in + n - 1) / XFSJ_OVL_SECTOR);

	if (p->epoch != ov->epoch) {
		p->epoch = ov->epoch;
		p->sectors = 0;
	}
	p->sectors |= (uint8_t)(((1U << (last + 1)) - 1) & ~((1U << first) - 1));
}

int xfsj_overlay_write(struct xfsj_overlay *ov, const void *buf, size_t len,
		       uint64_t off)
{
	const uint8_t *src = buf;

	if (off > ov->io->size || len > ov->io->size - off)
		return -XFSJ_E_RANGE;
	while (len) {
		uint64_t index = off / XFSJ_OVL_PAGE;
		size_t in = (size_t)(off % XFSJ_OVL_PAGE);
		size_t n = XFSJ_OVL_PAGE - in < len ? XFSJ_OVL_PAGE - in : len;
		struct page *p;
		int err = get_page(ov, index, &p);

		if (err)
			return err;
		memcpy(p->data + in, src, n);
		mark_written(ov, p, in, n);
		src += n;
		off += n;
		len -= n;
	}
	return 0;
}

static int cmp_index(const void *a, const void *b)
{
	const struct page *x = *(const struct page *const *)a;
	const struct page *y = *(const struct page *const *)b;

	return x->index < y->index ? -1 : x->index > y->index;
}

int xfsj_overlay_each_dirty(struct xfsj_overlay *ov, xfsj_page_fn fn,
			    void *arg)
{
	struct page **list = malloc((ov->used ? ov->used : 1) * sizeof(*list));
	size_t n = 0;
	int err = 0;

	if (!list)
		return -XFSJ_E_NOMEM;
	for (size_t i = 0; i < ov->cap; i++)
		if (ov->tab[i].index != UINT64_MAX)
			list[n++] = &ov->tab[i];
	qsort(list, n, sizeof(*list), cmp_index);
	for (size_t i = 0; i < n && !err; i++)
		err = fn(arg, list[i]->index * XFSJ_OVL_PAGE, list[i]->data);
	free(list);
	return err;
}

int xfsj_overlay_drain(struct xfsj_overlay *ov, xfsj_page_fn fn, void *arg)
{
	int err = xfsj_overlay_each_dirty(ov, fn, arg);

	if (err)
		return err;
	for (size_t i = 0; i < ov->cap; i++) {
		if (ov->tab[i].index == UINT64_MAX)
			continue;
		free(ov->tab[i].data);
		ov->tab[i].index = UINT64_MAX;
	}
	ov->used = 0;
	return 0;
}

uint32_t xfsj_overlay_new_epoch(struct xfsj_overlay *ov)
{
	return ++ov->epoch;
}

int xfsj_overlay_each_written(struct xfsj_overlay *ov, uint32_t epoch,
			      xfsj_written_fn fn, void *arg)
{
	for (size_t i = 0; i < ov->cap; i++) {
		const struct page *p = &ov->tab[i];
		int err;

		if (p->index == UINT64_MAX || p->epoch < epoch || !p->sectors)
			continue;
		err = fn(arg, p->index * XFSJ_OVL_PAGE, p->sectors);
		if (err)
			return err;
	}
	return 0;
}

uint64_t xfsj_overlay_dirty_pages(const struct xfsj_overlay *ov)
{
	return ov->used;
}

uint64_t xfsj_overlay_dev_size(const struct xfsj_overlay *ov)
{
	return ov->io->size;
}

struct xfsj_io *xfsj_overlay_device(const struct xfsj_overlay *ov)
{
	return ov->io;
}

/* ---- the overlay as a stacked I/O backend ---- */

static int ovio_pread(struct xfsj_io *io, void *buf, size_t len, uint64_t off)
{
	return xfsj_overlay_read(io->priv, buf, len, off);
}

static void ovio_advise(struct xfsj_io *io, uint64_t off, uint64_t len)
{
	xfsj_overlay_advise(io->priv, off, len);
}

static int ovio_pwrite(struct xfsj_io *io, const void *buf, size_t len,
		       uint64_t off)
{
	return xfsj_overlay_write(io->priv, buf, len, off);
}

static int ovio_zero(struct xfsj_io *io, uint64_t off, uint64_t len)
{
	static const uint8_t zeroes[XFSJ_OVL_PAGE];

	while (len) {
		size_t n = len < sizeof(zeroes) ? (size_t)len : sizeof(zeroes);
		int err = xfsj_overlay_write(io->priv, zeroes, n, off);

		if (err)
			return err;
		off += n;
		len -= n;
	}
	return 0;
}

static int ovio_discard(struct xfsj_io *io, uint64_t off, uint64_t len)
{
	(void)io;
	(void)off;
	(void)len;
	return 0;
}

static int ovio_sync(struct xfsj_io *io)
{
	(void)io;
	return 0;
}

static void ovio_close(struct xfsj_io *io)
{
	(void)io;
}

static const struct xfsj_io_ops overlay_io_ops = {
	.pread = ovio_pread,
	.pwrite = ovio_pwrite,
	.zero = ovio_zero,
	.discard = ovio_discard,
	.sync = ovio_sync,
	.close = ovio_close,
	.advise = ovio_advise,
};

int xfsj_overlay_io(struct xfsj_overlay *ov, struct xfsj_io **out)
{
	struct xfsj_io *io = calloc(1, sizeof(*io));

	if (!io || !(io->name = strdup(ov->io->name ? ov->io->name : ""))) {
		free(io);
		return -XFSJ_E_NOMEM;
	}
	io->ops = &overlay_io_ops;
	io->priv = ov;
	io->size = ov->io->size;
	io->lsectsize = ov->io->lsectsize;
	io->psectsize = ov->io->psectsize;
	io->is_bdev = ov->io->is_bdev;
	*out = io;
	return 0;
}
