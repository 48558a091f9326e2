/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The fault-injecting backend: a shared operation counter, and an undo
 * record per unsynced write so that a simulated power cut can take the
 * devices below back to their synced state and then replay a random,
 * possibly torn, subset of what was in flight.
 */
#include <stdlib.h>
#include <string.h>

#include "xfsj/errors.h"
#include "core/grow.h"
#include "core/io_fault.h"

struct xfsj_fault_pending {
	struct xfsj_io *lower;
	uint64_t off;
	size_t len;
	uint8_t *old;		/* the bytes the write replaced */
	uint8_t *new;		/* the bytes it wrote (same allocation) */
};

struct fdev {
	struct xfsj_io *lower;
	struct xfsj_fault_plan *plan;
};

static struct xfsj_io *lower_of(struct xfsj_io *io)
{
	return ((struct fdev *)io->priv)->lower;
}

static struct xfsj_fault_plan *plan_of(struct xfsj_io *io)
{
	return ((struct fdev *)io->priv)->plan;
}

/* xorshift64*: small, and the same sequence everywhere for one seed. */
static uint64_t rnd(struct xfsj_fault_plan *p)
{
	if (!p->rng) {
		p->rng = p->seed ^ 0x9e3779b97f4a7c15ULL;
		if (!p->rng)
			p->rng = 1;
	}
	p->rng ^= p->rng >> 12;
	p->rng ^= p->rng << 25;
	p->rng ^= p->rng >> 27;
	return p->rng * 0x2545f4914f6cdd1dULL;
}

/* Write @len bytes of @pd's new contents, or its old ones, below. */
static void put_back(struct xfsj_fault_plan *p,
		     const struct xfsj_fault_pending *pd, const uint8_t *src,
		     size_t len)
{
	int err;

	if (!len)
		return;
	err = xfsj_pwrite(pd->lower, src, len, pd->off);
	if (err && !p->crash_err)
		p->crash_err = err;
}

/* How many bytes of @pd a torn write keeps: whole sectors, at least one. */
static size_t tear(struct xfsj_fault_plan *p,
		   const struct xfsj_fault_pending *pd)
{
	uint64_t ss = pd->lower->lsectsize ? pd->lower->lsectsize : 512;
	uint64_t first = (pd->off / ss + 1) * ss;
	uint64_t end = pd->off + pd->len, nb;

	if (first >= end)
		return 0;		/* inside one sector: atomic */
	nb = (end - 1 - first) / ss + 1;	/* boundaries inside the write */
	return (size_t)(first + rnd(p) % nb * ss - pd->off);
}

static void free_pending(struct xfsj_fault_plan *p)
{
	for (size_t i = 0; i < p->npend; i++)
		free(p->pend[i].old);
	free(p->pend);
	p->pend = NULL;
	p->npend = p->cap = 0;
}

void xfsj_fault_crash(struct xfsj_fault_plan *p)
{
	if (p->crashed)
		return;
	p->crashed = true;
	/* Back to what the last syncs made durable... */
	for (size_t i = p->npend; i-- > 0;)
		put_back(p, &p->pend[i], p->pend[i].old, p->pend[i].len);
	/* ... then what the disks managed to write before the power went. */
	for (size_t i = 0; i < p->npend; i++) {
		const struct xfsj_fault_pending *pd = &p->pend[i];
		uint64_t r = p->keep_some ? rnd(p) % 4 : 0;
		size_t cut;

		if (r >= 2) {
			put_back(p, pd, pd->new, pd->len);
			p->kept++;
		} else if (r == 1 && (cut = tear(p, pd)) != 0) {
			put_back(p, pd, pd->new, cut);
			p->torn++;
		} else {
			p->dropped++;
		}
	}
	free_pending(p);
}

void xfsj_fault_plan_end(struct xfsj_fault_plan *p)
{
	free_pending(p);
}

/*
 * Count an operation of kind @op.  Returns the error to fail it with, or
 * 0 to go on; *@crash says the power goes once the operation is issued.
 */
static int gate(struct xfsj_io *io, unsigned int op, bool *crash)
{
	struct xfsj_fault_plan *p = plan_of(io);

	*crash = false;
	if (p->crashed)
		return -XFSJ_E_IO;
	if (!(p->ops & op))
		return 0;
	if (++p->count != p->at || p->fired)
		return 0;
	p->fired = true;
	if (p->kind == XFSJ_FAULT_ERROR)
		return -XFSJ_E_IO;
	*crash = p->kind == XFSJ_FAULT_CRASH;
	return 0;
}

static int fault_pread(struct xfsj_io *io, void *buf, size_t len, uint64_t off)
{
	bool crash;
	int err = gate(io, XFSJ_FOP_READ, &crash);

	if (err)
		return err;
	if (crash) {
		xfsj_fault_crash(plan_of(io));
		return -XFSJ_E_IO;
	}
	return xfsj_pread(lower_of(io), buf, len, off);
}

/* Read what [off, off + len) holds below; bytes past its end are zero. */
static int read_below(struct xfsj_io *lower, uint8_t *buf, size_t len,
		      uint64_t off)
{
	size_t have = 0;

	if (off < lower->size)
		have = lower->size - off < len ? (size_t)(lower->size - off) :
						 len;
	memset(buf + have, 0, len - have);
	return have ? xfsj_pread(lower, buf, have, off) : 0;
}

enum wkind { W_WRITE, W_ZERO, W_DISCARD };

/*
 * Every change goes through here: count it, keep the bytes it replaces,
 * make it below, keep the bytes it left.
 */
static int change(struct xfsj_io *io, enum wkind kind, const void *buf,
		  uint64_t len, uint64_t off)
{
	struct fdev *d = io->priv;
	struct xfsj_fault_plan *p = d->plan;
	struct xfsj_fault_pending *pd;
	bool crash;
	int err = gate(io, XFSJ_FOP_WRITE, &crash);

	if (err)
		return err;
	if (len > SIZE_MAX / 2)
		return -XFSJ_E_NOMEM;
	if (xfsj_grow(&p->pend, &p->cap, p->npend, 1, sizeof(*p->pend), 64))
		return -XFSJ_E_NOMEM;
	pd = &p->pend[p->npend];
	pd->lower = d->lower;
	pd->off = off;
	pd->len = (size_t)len;
	pd->old = malloc(len ? 2 * (size_t)len : 1);
	if (!pd->old)
		return -XFSJ_E_NOMEM;
	pd->new = pd->old + len;
	err = read_below(d->lower, pd->old, pd->len, off);
	if (!err) {
		if (kind == W_WRITE)
			err = xfsj_pwrite(d->lower, buf, pd->len, off);
		else if (kind == W_ZERO)
			err = xfsj_io_zero(d->lower, off, len);
		else
			err = xfsj_io_discard(d->lower, off, len);
	}
	if (!err)
		err = read_below(d->lower, pd->new, pd->len, off);
	if (err) {
		free(pd->old);
		return err;
	}
	p->npend++;
	io->size = d->lower->size;
	if (crash) {
		xfsj_fault_crash(p);
		return -XFSJ_E_IO;
	}
	return 0;
}

static int fault_pwrite(struct xfsj_io *io, const void *buf, size_t len,
			uint64_t off)
{
	return change(io, W_WRITE, buf, len, off);
}

static int fault_zero(struct xfsj_io *io, uint64_t off, uint64_t len)
{
	return change(io, W_ZERO, NULL, len, off);
}

static int fault_discard(struct xfsj_io *io, uint64_t off, uint64_t len)
{
	return change(io, W_DISCARD, NULL, len, off);
}

static int fault_extend(struct xfsj_io *io, uint64_t size)
{
	int err;

	if (plan_of(io)->crashed)
		return -XFSJ_E_IO;
	err = xfsj_io_extend(lower_of(io), size);
	io->size = lower_of(io)->size;
	return err;
}

static int fault_sync(struct xfsj_io *io)
{
	struct fdev *d = io->priv;
	struct xfsj_fault_plan *p = d->plan;
	size_t keep = 0;
	bool crash;
	int err = gate(io, XFSJ_FOP_SYNC, &crash);

	if (err)
		return err;
	if (crash) {
		xfsj_fault_crash(p);
		return -XFSJ_E_IO;
	}
	err = xfsj_io_sync(d->lower);
	if (err)
		return err;
	/* This device's writes are durable now; the others' are not. */
	for (size_t i = 0; i < p->npend; i++) {
		if (p->pend[i].lower == d->lower)
			free(p->pend[i].old);
		else
			p->pend[keep++] = p->pend[i];
	}
	p->npend = keep;
	return 0;
}

static void fault_close(struct xfsj_io *io)
{
	free(io->priv);
}

static const struct xfsj_io_ops fault_ops = {
	.pread = fault_pread,
	.pwrite = fault_pwrite,
	.zero = fault_zero,
	.discard = fault_discard,
	.extend = fault_extend,
	.sync = fault_sync,
	.close = fault_close,
};

int xfsj_io_fault(struct xfsj_io *lower, struct xfsj_fault_plan *plan,
		  struct xfsj_io **out)
{
	struct xfsj_io *io = calloc(1, sizeof(*io));
	struct fdev *d = calloc(1, sizeof(*d));

	if (!io || !d ||
	    !(io->name = strdup(lower->name ? lower->name : ""))) {
		free(io);
		free(d);
		return -XFSJ_E_NOMEM;
	}
	d->lower = lower;
	d->plan = plan;
	io->ops = &fault_ops;
	io->priv = d;
	io->size = lower->size;
	io->lsectsize = lower->lsectsize;
	io->psectsize = lower->psectsize;
	io->is_bdev = lower->is_bdev;
	io->readonly = lower->readonly;
	*out = io;
	return 0;
}
