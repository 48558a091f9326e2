/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Reading log blocks: one window of consecutive blocks (LOG_WIN_BBS) that
 * every reader of the log goes through, filled by pread or taken from the
 * read-ahead stream (log_readahead.c), and single-block probes for the
 * head search.
 */
#include <stdlib.h>

#include "core/layout.h"
#include "log/logread_priv.h"

int xlog_io_fault(struct xfsj_log *l, int err, uint64_t off,
		  struct xfsj_fault *f)
{
	(void)l;
	return xfsj_fault_set(f, err == -XFSJ_E_SHORTIO ? XFSJ_E_SHORTIO :
			      XFSJ_E_IO, "log", "read", off, 0);
}

void xlog_win_drop(struct xfsj_log *l)
{
	l->wp = NULL;
	l->win_n = 0;
	l->dirty_lo = l->dirty_hi = 0;
}

/*
 * Make [start, start + cnt) the window.  It is read with pread into one
 * reused buffer: measured on a 1.4 GiB log in the page cache, mapping the
 * device instead (no copy) was half as fast again, the kernel's cost of
 * filling and tearing down page tables 4 KiB at a time being well above
 * that of a copy into a buffer that stays in the CPU's caches.
 */
static int win_load(struct xfsj_log *l, uint32_t start, uint32_t cnt,
		    struct xfsj_fault *f)
{
	uint64_t off = l->g.dev_off + (uint64_t)start * XFSJ_BBSIZE;
	size_t len = (size_t)cnt * XFSJ_BBSIZE;
	int err;

	xlog_win_drop(l);
	if (!l->win) {
		l->win = malloc((size_t)LOG_WIN_BBS * XFSJ_BBSIZE);
		if (!l->win)
			return -XFSJ_E_NOMEM;
	}
	err = xfsj_pread(l->io, l->win, len, off);
	if (err)
		return xlog_io_fault(l, err, off, f);
	l->wp = l->win;
	l->win_blk = start;
	l->win_n = cnt;
	return 0;
}

int xlog_blocks(struct xfsj_log *l, uint32_t blk, uint32_t n, bool back,
		const uint8_t **p, struct xfsj_fault *f)
{
	uint32_t start, cnt;
	int err;

	if (!n || blk >= l->g.size_bb || n > l->g.size_bb - blk ||
	    n > LOG_WIN_BBS)
		return xfsj_fault_set(f, XFSJ_E_RANGE, "log", "block",
				      l->g.dev_off + (uint64_t)blk * XFSJ_BBSIZE,
				      blk);
	if (l->dirty_hi && blk < l->dirty_hi && blk + n > l->dirty_lo) {
		/* Unpacked in place: read those blocks again. */
		xlog_win_drop(l);
	}
	if (l->win_n && blk >= l->win_blk &&
	    blk + n <= l->win_blk + l->win_n) {
		*p = l->wp + (size_t)(blk - l->win_blk) * XFSJ_BBSIZE;
		return 0;
	}
	if (back) {
		cnt = blk + n < LOG_WIN_BBS ? blk + n : LOG_WIN_BBS;
		start = blk + n - cnt;
	} else {
		start = blk;
		cnt = l->g.size_bb - blk < LOG_WIN_BBS ? l->g.size_bb - blk :
							  LOG_WIN_BBS;
	}
	if (l->stream && !back) {
		err = xlog_stream_take(l, blk, n, f);
		if (err < 0)
			return err;
		if (!err) {
			*p = l->wp + (size_t)(blk - l->win_blk) * XFSJ_BBSIZE;
			return 0;
		}
	}
	/* An ordinary read: the stream, if any, is over. */
	xlog_stream_end(l);
	err = win_load(l, start, cnt, f);
	if (err)
		return err;
	*p = l->wp + (size_t)(blk - start) * XFSJ_BBSIZE;
	return 0;
}

/* One block for a probe: from the window if it is there, else alone. */
int xlog_read_one(struct xfsj_log *l, uint32_t blk, const uint8_t **p,
		  struct xfsj_fault *f)
{
	int err;

	if (blk >= l->g.size_bb)
		return xfsj_fault_set(f, XFSJ_E_RANGE, "log", "block",
				      l->g.dev_off, blk);
	if (l->win_n && blk >= l->win_blk && blk < l->win_blk + l->win_n &&
	    !(blk >= l->dirty_lo && blk < l->dirty_hi)) {
		*p = l->wp + (size_t)(blk - l->win_blk) * XFSJ_BBSIZE;
		return 0;
	}
	err = xfsj_pread(l->io, l->one, XFSJ_BBSIZE,
			 l->g.dev_off + (uint64_t)blk * XFSJ_BBSIZE);
	if (err)
		return xlog_io_fault(l, err, l->g.dev_off +
				(uint64_t)blk * XFSJ_BBSIZE, f);
	*p = l->one;
	return 0;
}

uint32_t xlog_cycle_of(const uint8_t *bb)
{
	if (xfsj_get_be32(bb) == XFSJ_LOG_MAGIC)
		return xfsj_get_be32(bb + XLOG_HDR_CYCLE_OFF);
	return xfsj_get_be32(bb);
}

int xfsj_log_block_cycle(struct xfsj_log *log, uint32_t blk, uint32_t *cycle,
			 struct xfsj_fault *f)
{
	const uint8_t *p;
	int err = xlog_read_one(log, blk, &p, f);

	if (!err)
		*cycle = xlog_cycle_of(p);
	return err;
}

uint32_t xfsj_log_distance(const struct xfsj_log *log, uint32_t from,
			   uint32_t to)
{
	return to >= from ? to - from : log->g.size_bb - from + to;
}
