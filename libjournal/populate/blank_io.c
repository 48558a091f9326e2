/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The device under the fill's overlay: a read that lies wholly in space
 * that was free when the fill began comes back as zeroes without going
 * to the device.  What such space held is dead (every block the fill
 * takes is written whole before anything reads it), and reading it
 * costs: the overlay reads each page it first writes, and on a new
 * sparse image every such read made the kernel zero a readahead window
 * of the hole (40% of the CPU of a 100,000-file fill).  Zeroes rather
 * than old bytes also keep a page shared with a free block the same from
 * one device to the next.  Writes and everything else go to the device;
 * what is written through here is no longer free (the fill writes its
 * metadata out in batches and reads some of it again later).
 */
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"
#include "fs/btree.h"
#include "populate/pop_priv.h"

struct blank {
	struct xfsj_io *below;
	uint64_t (*r)[2];	/* free byte ranges [start, end), ascending */
	size_t n, cap;
};

/* Is [off, off + len) inside one of the free ranges? */
static bool is_blank(const struct blank *b, uint64_t off, size_t len)
{
	size_t lo = 0, hi = b->n;

	/* The last range starting at or before @off. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (b->r[mid][0] <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > 0 && off + len <= b->r[lo - 1][1];
}

static int blank_pread(struct xfsj_io *io, void *buf, size_t len, uint64_t off)
{
	struct blank *b = io->priv;

	if (off > io->size || len > io->size - off)
		return -XFSJ_E_RANGE;
	if (is_blank(b, off, len)) {
		memset(buf, 0, len);
		return 0;
	}
	return xfsj_pread(b->below, buf, len, off);
}

/*
 * Bytes written here leave the free ranges: a later read of them must
 * find them on the device.  The fill writes its metadata as it goes, in
 * ascending order within each batch and mostly at the low end of a free
 * range (allocation runs upwards), which only moves the range's start;
 * a write in the middle of a range splits it in two.
 */
static int carve(struct blank *b, uint64_t off, uint64_t end)
{
	size_t lo = 0, hi = b->n;

	/* The first range ending past @off. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (b->r[mid][1] <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo < b->n && b->r[lo][0] < end) {
		uint64_t *r = b->r[lo];

		if (r[0] < off && r[1] > end) {
			int err = xfsj_grow(&b->r, &b->cap, b->n, 1,
					    sizeof(*b->r), 64);

			if (err)
				return err;
			memmove(b->r[lo + 1], b->r[lo],
				(b->n - lo) * sizeof(*b->r));
			b->n++;
			b->r[lo][1] = off;
			b->r[lo + 1][0] = end;
			return 0;
		}
		if (r[0] < off) {
			r[1] = off;
			lo++;
		} else if (r[1] > end) {
			r[0] = end;
			return 0;
		} else {
			memmove(b->r[lo], b->r[lo + 1],
				(b->n - lo - 1) * sizeof(*b->r));
			b->n--;
		}
	}
	return 0;
}

static int blank_pwrite(struct xfsj_io *io, const void *buf, size_t len,
			uint64_t off)
{
	struct blank *b = io->priv;
	int err = carve(b, off, off + len);

	return err ? err : xfsj_pwrite(b->below, buf, len, off);
}

static int blank_zero(struct xfsj_io *io, uint64_t off, uint64_t len)
{
	return xfsj_io_zero(((struct blank *)io->priv)->below, off, len);
}

static int blank_discard(struct xfsj_io *io, uint64_t off, uint64_t len)
{
	return xfsj_io_discard(((struct blank *)io->priv)->below, off, len);
}

static int blank_sync(struct xfsj_io *io)
{
	return xfsj_io_sync(((struct blank *)io->priv)->below);
}

static void blank_close(struct xfsj_io *io)
{
	struct blank *b = io->priv;

	free(b->r);
	free(b);
}

static const struct xfsj_io_ops blank_ops = {
	.pread = blank_pread,
	.pwrite = blank_pwrite,
	.zero = blank_zero,
	.discard = blank_discard,
	.sync = blank_sync,
	.close = blank_close,
};

int xfsj_pop_blank_open(struct xfsj_io *below, struct xfsj_io **out)
{
	struct xfsj_io *io = malloc(sizeof(*io));
	struct blank *b = calloc(1, sizeof(*b));
	char *name = strdup(below->name ? below->name : "");

	if (!io || !b || !name) {
		free(io);
		free(b);
		free(name);
		return -XFSJ_E_NOMEM;
	}
	/* The geometry of the device below, its reads and writes ours. */
	*io = *below;
	io->ops = &blank_ops;
	io->priv = b;
	io->name = name;
	b->below = below;
	*out = io;
	return 0;
}

struct learn {
	struct blank *b;
	const struct xfsj_sb *sb;
	uint32_t agno;
	int err;
};

static int learn_rec(struct xfsj_btree_cur *cur,
		     const union xfsj_btree_irec *r, void *arg)
{
	struct learn *l = arg;
	struct blank *b = l->b;
	uint64_t start, end;

	(void)cur;
	if (l->err || !r->a.blockcount ||
	    (uint64_t)r->a.startblock + r->a.blockcount > l->sb->agblocks)
		return 0;
	start = xfsj_agb_to_daddr(l->sb, l->agno, r->a.startblock) << 9;
	end = start + ((uint64_t)r->a.blockcount << l->sb->blocklog);
	/* Out of order (a damaged tree): not trusted, not kept. */
	if (b->n && start < b->r[b->n - 1][1])
		return 0;
	l->err = xfsj_grow(&b->r, &b->cap, b->n, 1, sizeof(*b->r), 64);
	if (!l->err) {
		b->r[b->n][0] = start;
		b->r[b->n][1] = end;
		b->n++;
	}
	return 0;
}

int xfsj_pop_blank_learn(struct pop *p, struct xfsj_io *io)
{
	struct learn l = { .b = io->priv, .sb = p->sb };

	for (l.agno = 0; l.agno < p->sb->agcount && !l.err; l.agno++) {
		struct xfsj_btree_cur *cur;
		int err = xfsj_btree_cur_new(p->fs, XFSJ_BT_BNO, l.agno, NULL,
					     p->f, &cur);

		if (err)
			return err;
		err = xfsj_btree_query_all(cur, learn_rec, &l);
		xfsj_btree_cur_free(cur);
		if (err)
			return err;
	}
	return l.err;
}
