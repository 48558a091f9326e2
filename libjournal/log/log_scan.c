/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Opening the log, finding its head and tail, reading one record.
 *
 * The head and tail search follows the kernel's recovery step by step
 * (shared/reference/xfs-log.md §5), because the repair tool replays what
 * this finds and must replay exactly what the kernel would: a different
 * head means different metadata.  Every loop below is bounded by the log
 * size or by a fixed scan width, whatever the blocks contain.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/crc32c.h"
#include "core/layout.h"
#include "log/logread_priv.h"

#define HDR_MAGIC_OFF	0
#define HDR_CYCLE_OFF	4
#define HDR_VERSION_OFF	8
#define HDR_LEN_OFF	12
#define HDR_LSN_OFF	16
#define HDR_TAIL_OFF	24
#define HDR_CRC_OFF	32
#define HDR_PREV_OFF	36
#define HDR_NUMOPS_OFF	40
#define HDR_CDATA_OFF	44
#define HDR_FMT_OFF	300
#define HDR_UUID_OFF	304
#define HDR_SIZE_OFF	320

static int io_fault(struct xfsj_log *l, int err, uint64_t off,
		    struct xfsj_fault *f)
{
	(void)l;
	return xfsj_fault_set(f, err == -XFSJ_E_SHORTIO ? XFSJ_E_SHORTIO :
			      XFSJ_E_IO, "log", "read", off, 0);
}

static void win_drop(struct xfsj_log *l)
{
	l->wp = NULL;
	l->win_n = 0;
	l->dirty_lo = l->dirty_hi = 0;
}

/* ---- the read-ahead stream of a walk ---- */

/*
 * A long sequential walk reads its windows through a second thread: while
 * the walk works on one chunk of the log, the thread reads the next ones
 * (the copy out of the page cache was a fifth of a -t run).  Chunks
 * overlap by the largest record, so any record is whole in one of them:
 * one that starts in the overlap is taken from the next chunk.  The walk
 * owns the chunk it works on (it undoes cycle stamps in it) until it
 * moves to the next; anything out of sequence ends the stream and the
 * walk goes on with ordinary reads.
 */
#define STREAM_NBUF	3
#define STREAM_STEP	LOG_WIN_BBS
#define STREAM_OVL	(XFSJ_LOG_MAX_RECORD / XFSJ_BBSIZE + 8)

struct xlog_stream {
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t full_cv, free_cv;
	struct xfsj_log *l;
	uint8_t *buf[STREAM_NBUF];
	uint32_t blk[STREAM_NBUF], n[STREAM_NBUF];
	int err[STREAM_NBUF];
	unsigned int prod, cons;	/* chunks filled, chunks released */
	uint32_t pos, left;		/* the thread's next block, and left */
	bool stop, done;
	int cur;			/* the window's slot, or -1 */
	/*
	 * The thread also checks the CRC of every record that starts in
	 * the part of a chunk before the next chunk, following the chain
	 * of records from the first (block by block past what is not a
	 * record, as the walk does); the walk takes those results instead
	 * of computing them (the CRC was another fifth of a run).  A result
	 * is a function of the record's bytes only, so a chain that went
	 * another way than the walk is harmless: records without a result
	 * are checked by the walk as before.
	 */
	struct shint *hint[STREAM_NBUF];
	uint32_t nhint[STREAM_NBUF], hcur;
	uint32_t rpos;			/* the next record of the chain */
	bool waiting;			/* the walk waits for a chunk */
};

struct shint {
	uint32_t blk, len, crc, calc;
	enum xfsj_crc_state state;
};

#define STREAM_MAXHINT	(STREAM_STEP / 2 + 2)

static int hdr_check(struct xfsj_log *l, const uint8_t *h, uint32_t blk,
		     uint32_t *hblks, uint32_t *data_bbs, struct xfsj_fault *f);
static void crc_check(const uint8_t *rec, uint32_t hblks, uint32_t len,
		      uint32_t crc, uint32_t *calc, enum xfsj_crc_state *st);

/* The thread's side: results for the records of chunk @slot. */
static void stream_crc(struct xlog_stream *s, uint32_t slot, uint32_t step,
		       bool compute)
{
	struct xfsj_log *l = s->l;
	uint32_t cb = s->blk[slot], cn = s->n[slot];

	s->nhint[slot] = 0;
	while (s->nhint[slot] < STREAM_MAXHINT) {
		uint32_t d = xfsj_log_distance(l, cb, s->rpos);
		struct xfsj_fault lf = { 0 };
		const uint8_t *h;
		struct shint *x;
		uint32_t hblks, dbbs;

		if (d >= step)
			break;		/* the next chunk's */
		h = s->buf[slot] + (size_t)d * XFSJ_BBSIZE;
		if (xfsj_get_be32(h) != XFSJ_LOG_MAGIC ||
		    hdr_check(l, h, s->rpos, &hblks, &dbbs, &lf)) {
			/* Not a record: on to the next block, as the walk. */
			s->rpos = (s->rpos + 1) % l->g.size_bb;
			continue;
		}
		if (compute && d + hblks + dbbs <= cn) {
			x = &s->hint[slot][s->nhint[slot]++];
			x->blk = s->rpos;
			x->len = xfsj_get_be32(h + HDR_LEN_OFF);
			x->crc = xfsj_get_le32(h + HDR_CRC_OFF);
			x->calc = 0;
			crc_check(h, hblks, x->len, x->crc, &x->calc,
				  &x->state);
		}
		s->rpos = (uint32_t)(((uint64_t)s->rpos + hblks + dbbs) %
				     l->g.size_bb);
	}
}

static void *stream_main(void *arg)
{
	struct xlog_stream *s = arg;
	struct xfsj_log *l = s->l;

	pthread_mutex_lock(&s->mu);
	while (!s->stop && s->left) {
		uint32_t pos = s->pos, cnt, step, slot;
		int err;

		while (!s->stop && s->prod - s->cons >= STREAM_NBUF)
			pthread_cond_wait(&s->free_cv, &s->mu);
		if (s->stop)
			break;
		slot = s->prod % STREAM_NBUF;
		cnt = STREAM_STEP + STREAM_OVL;
		if (cnt > l->g.size_bb - pos)
			cnt = l->g.size_bb - pos;
		if ((uint64_t)cnt > (uint64_t)s->left + STREAM_OVL)
			cnt = s->left + STREAM_OVL;
		step = pos + cnt == l->g.size_bb ? cnt :
		       (cnt < STREAM_STEP ? cnt : STREAM_STEP);
		pthread_mutex_unlock(&s->mu);
		err = xfsj_pread(l->io, s->buf[slot], (size_t)cnt * XFSJ_BBSIZE,
				 l->g.dev_off + (uint64_t)pos * XFSJ_BBSIZE);
		s->blk[slot] = pos;
		s->n[slot] = cnt;
		s->nhint[slot] = 0;
		if (!err) {
			bool waiting;

			/*
			 * When the walk is already waiting for this chunk, it
			 * is the thread that holds things up: hand the chunk
			 * over at once and let the walk check its records.
			 */
			pthread_mutex_lock(&s->mu);
			waiting = s->waiting;
			pthread_mutex_unlock(&s->mu);
			stream_crc(s, slot, step, !waiting);
		}
		pthread_mutex_lock(&s->mu);
		s->err[slot] = err;
		s->prod++;
		s->pos = (pos + step) % l->g.size_bb;
		s->left = step < s->left ? s->left - step : 0;
		if (err)
			s->left = 0;
		pthread_cond_signal(&s->full_cv);
	}
	s->done = true;
	pthread_cond_signal(&s->full_cv);
	pthread_mutex_unlock(&s->mu);
	return NULL;
}

void xlog_stream_end(struct xfsj_log *l)
{
	struct xlog_stream *s = l->stream;

	if (!s)
		return;
	if (s->cur >= 0)
		win_drop(l);
	pthread_mutex_lock(&s->mu);
	s->stop = true;
	pthread_cond_signal(&s->free_cv);
	pthread_mutex_unlock(&s->mu);
	pthread_join(s->th, NULL);
	pthread_mutex_destroy(&s->mu);
	pthread_cond_destroy(&s->full_cv);
	pthread_cond_destroy(&s->free_cv);
	for (int i = 0; i < STREAM_NBUF; i++) {
		free(s->buf[i]);
		free(s->hint[i]);
	}
	free(s);
	l->stream = NULL;
}

void xlog_stream_begin(struct xfsj_log *l, uint32_t from, uint32_t nblocks)
{
	struct xlog_stream *s;

	xlog_stream_end(l);
	/* Not worth a thread for a few windows. */
	if (nblocks < 4 * STREAM_STEP || from >= l->g.size_bb)
		return;
	s = calloc(1, sizeof(*s));
	if (!s)
		return;
	for (int i = 0; i < STREAM_NBUF; i++) {
		s->buf[i] = malloc((size_t)(STREAM_STEP + STREAM_OVL) *
				   XFSJ_BBSIZE);
		s->hint[i] = malloc(STREAM_MAXHINT * sizeof(*s->hint[i]));
		if (!s->buf[i] || !s->hint[i])
			goto fail;
	}
	s->l = l;
	s->pos = from;
	s->left = nblocks;
	s->cur = -1;
	s->rpos = from;
	if (pthread_mutex_init(&s->mu, NULL))
		goto fail;
	if (pthread_cond_init(&s->full_cv, NULL)) {
		pthread_mutex_destroy(&s->mu);
		goto fail;
	}
	if (pthread_cond_init(&s->free_cv, NULL)) {
		pthread_cond_destroy(&s->full_cv);
		pthread_mutex_destroy(&s->mu);
		goto fail;
	}
	if (pthread_create(&s->th, NULL, stream_main, s)) {
		pthread_cond_destroy(&s->free_cv);
		pthread_cond_destroy(&s->full_cv);
		pthread_mutex_destroy(&s->mu);
		goto fail;
	}
	win_drop(l);
	l->stream = s;
	l->stream_from = from;
	return;
fail:
	for (int i = 0; i < STREAM_NBUF; i++) {
		free(s->buf[i]);
		free(s->hint[i]);
	}
	free(s);
}

/*
 * Make the stream chunk holding [blk, blk + n) the window.  Returns 1
 * when the stream cannot give it (then it is over), a negative error when
 * the read of that chunk failed.
 */
static int stream_take(struct xfsj_log *l, uint32_t blk, uint32_t n,
		       struct xfsj_fault *f)
{
	struct xlog_stream *s = l->stream;
	uint32_t slot;
	int err;

	pthread_mutex_lock(&s->mu);
	for (;;) {
		uint32_t d_req, d_chunk;

		if (s->cur >= 0) {
			/* Done with it: back to the thread. */
			s->cons++;
			s->cur = -1;
			pthread_cond_signal(&s->free_cv);
		}
		while (s->prod == s->cons && !s->done) {
			s->waiting = true;
			pthread_cond_wait(&s->full_cv, &s->mu);
		}
		s->waiting = false;
		if (s->prod == s->cons)
			break;
		slot = s->cons % STREAM_NBUF;
		s->cur = (int)slot;
		if (s->err[slot] || (blk >= s->blk[slot] &&
				     blk + n <= s->blk[slot] + s->n[slot]))
			goto got;
		/* Further on in the stream: skip this chunk. */
		d_req = xfsj_log_distance(l, l->stream_from, blk);
		d_chunk = xfsj_log_distance(l, l->stream_from, s->blk[slot]);
		if (d_req <= d_chunk)
			break;
	}
	pthread_mutex_unlock(&s->mu);
	l->wp = NULL;
	l->win_n = 0;
	xlog_stream_end(l);
	return 1;
got:
	err = s->err[slot];
	pthread_mutex_unlock(&s->mu);
	l->dirty_lo = l->dirty_hi = 0;
	if (err) {
		uint64_t off = l->g.dev_off +
			       (uint64_t)s->blk[slot] * XFSJ_BBSIZE;

		l->wp = NULL;
		l->win_n = 0;
		xlog_stream_end(l);
		return io_fault(l, err, off, f);
	}
	l->wp = s->buf[slot];
	l->win_blk = s->blk[slot];
	l->win_n = s->n[slot];
	s->hcur = 0;
	return 0;
}

/*
 * The walk's side: the thread's CRC result for the record @r (whose bytes
 * are at @rec), if it has one for it and nothing of it was unpacked in
 * place since.  Returns true when @r's CRC state was set.
 */
static bool stream_hint(struct xfsj_log *l, struct xfsj_log_rec *r,
			const uint8_t *rec)
{
	struct xlog_stream *s = l->stream;
	uint32_t slot, want, end;

	if (!s || s->cur < 0 || l->wp != s->buf[s->cur] ||
	    rec < l->wp || rec >= l->wp + (size_t)l->win_n * XFSJ_BBSIZE)
		return false;
	end = r->blk + r->hblks + r->data_bbs;
	if (l->dirty_hi && r->blk < l->dirty_hi && end > l->dirty_lo)
		return false;
	slot = (uint32_t)s->cur;
	want = xfsj_log_distance(l, l->stream_from, r->blk);
	while (s->hcur < s->nhint[slot]) {
		const struct shint *x = &s->hint[slot][s->hcur];
		uint32_t d = xfsj_log_distance(l, l->stream_from, x->blk);

		if (d > want)
			return false;
		s->hcur++;
		if (d < want)
			continue;
		if (x->len != r->len || x->crc != r->crc)
			return false;
		r->crc_calc = x->calc;
		r->crc_state = x->state;
		return true;
	}
	return false;
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

	win_drop(l);
	if (!l->win) {
		l->win = malloc((size_t)LOG_WIN_BBS * XFSJ_BBSIZE);
		if (!l->win)
			return -XFSJ_E_NOMEM;
	}
	err = xfsj_pread(l->io, l->win, len, off);
	if (err)
		return io_fault(l, err, off, f);
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
		win_drop(l);
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
		err = stream_take(l, blk, n, f);
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
static int read_one(struct xfsj_log *l, uint32_t blk, const uint8_t **p,
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
		return io_fault(l, err, l->g.dev_off +
				(uint64_t)blk * XFSJ_BBSIZE, f);
	*p = l->one;
	return 0;
}

static uint32_t cycle_of(const uint8_t *bb)
{
	if (xfsj_get_be32(bb) == XFSJ_LOG_MAGIC)
		return xfsj_get_be32(bb + HDR_CYCLE_OFF);
	return xfsj_get_be32(bb);
}

int xfsj_log_block_cycle(struct xfsj_log *log, uint32_t blk, uint32_t *cycle,
			 struct xfsj_fault *f)
{
	const uint8_t *p;
	int err = read_one(log, blk, &p, f);

	if (!err)
		*cycle = cycle_of(p);
	return err;
}

uint32_t xfsj_log_distance(const struct xfsj_log *log, uint32_t from,
			   uint32_t to)
{
	return to >= from ? to - from : log->g.size_bb - from + to;
}

/* ---- opening ---- */

static int alloc_buffers(struct xfsj_log *l)
{
	/* Largest record: 8 header sectors and 256 KiB of data. */
	l->rbuf_cap = XFSJ_LOG_MAX_RECORD + 8 * XFSJ_BBSIZE;
	l->rbuf = malloc(l->rbuf_cap);
	return l->rbuf ? 0 : -XFSJ_E_NOMEM;
}

int xfsj_log_open(struct xfsj_io *io, struct xfsj_io *logio, unsigned int flags,
		  struct xfsj_log **out, struct xfsj_fault *f)
{
	uint8_t sbuf[XFSJ_BBSIZE];
	struct xfsj_log *l;
	struct xfsj_sb *sb;
	int err;

	*out = NULL;
	l = calloc(1, sizeof(*l));
	if (!l)
		return -XFSJ_E_NOMEM;
	err = alloc_buffers(l);
	if (err)
		goto fail;
	l->g.sect_bb = 1;

	if (flags & XFSJ_LOGOPEN_RAW) {
		l->io = io;
		l->g.raw = true;
		if (io->size / XFSJ_BBSIZE < 2 ||
		    io->size / XFSJ_BBSIZE > UINT32_MAX) {
			err = xfsj_fault_set(f, XFSJ_E_TOOSMALL, "log", "size",
					     0, io->size);
			goto fail;
		}
		l->g.size_bb = (uint32_t)(io->size / XFSJ_BBSIZE);
		*out = l;
		return 0;
	}

	err = xfsj_pread(io, sbuf, sizeof(sbuf), 0);
	if (err) {
		err = xfsj_fault_set(f, -err, "superblock", "read", 0, 0);
		goto fail;
	}
	sb = &l->g.sb;
	xfsj_sb_decode(sbuf, sb);
	if (sb->magicnum != XFSJ_SB_MAGIC) {
		err = xfsj_fault_set(f, XFSJ_E_BADMAGIC, "superblock",
				     "sb_magicnum", 0, sb->magicnum);
		goto fail;
	}
	if (sb->blocklog < 9 || sb->blocklog > 16 ||
	    sb->blocksize != 1U << sb->blocklog) {
		err = xfsj_fault_set(f, XFSJ_E_CORRUPT, "superblock",
				     "sb_blocksize", 4, sb->blocksize);
		goto fail;
	}
	if (sb->agblklog > 31 || sb->inopblog > 16 || !sb->agblocks) {
		err = xfsj_fault_set(f, XFSJ_E_CORRUPT, "superblock",
				     "sb_agblklog", 124, sb->agblklog);
		goto fail;
	}
	if (!sb->logblocks ||
	    ((uint64_t)sb->logblocks << (sb->blocklog - 9)) > UINT32_MAX) {
		err = xfsj_fault_set(f, XFSJ_E_CORRUPT, "superblock",
				     "sb_logblocks", 96, sb->logblocks);
		goto fail;
	}
	l->g.size_bb = sb->logblocks << (sb->blocklog - 9);
	l->g.logsunit = sb->logsunit;
	if ((sb->versionnum & XFSJ_SB_VERSION_SECTORBIT) &&
	    sb->logsectlog > 9 && sb->logsectlog <= 15)
		l->g.sect_bb = 1U << (sb->logsectlog - 9);
	if (sb->logstart == 0) {
		if (!logio) {
			err = xfsj_fault_reason(f, XFSJ_FR_EXTLOG_NEEDED,
				xfsj_fault_set(f, XFSJ_E_UNSUPP, "superblock",
					       "sb_logstart", 48, 0));
			goto fail;
		}
		l->io = logio;
		l->g.external = true;
	} else {
		uint64_t agno = sb->logstart >> sb->agblklog;
		uint64_t agbno = sb->logstart & ((1ULL << sb->agblklog) - 1);

		l->io = io;
		l->g.daddr = (agno * sb->agblocks + agbno) <<
			     (sb->blocklog - 9);
		l->g.dev_off = l->g.daddr * XFSJ_BBSIZE;
	}
	if (l->io->size < l->g.dev_off ||
	    (l->io->size - l->g.dev_off) / XFSJ_BBSIZE < l->g.size_bb) {
		err = xfsj_fault_reason(f, XFSJ_FR_LOG_PAST_END,
			xfsj_fault_set(f, XFSJ_E_SHORTIO, "log",
				       "sb_logblocks", l->g.dev_off,
				       l->io->size));
		goto fail;
	}
	xfsj_fsgeo_from_sb(sb, &l->fsg);
	*out = l;
	return 0;
fail:
	xfsj_log_close(l);
	return err;
}

void xfsj_log_close(struct xfsj_log *log)
{
	if (!log)
		return;
	xlog_stream_end(log);
	if (log->io)
		win_drop(log);
	free(log->win);
	free(log->rbuf);
	free(log);
}

const struct xfsj_log_geom *xfsj_log_geom(const struct xfsj_log *log)
{
	return &log->g;
}

/* ---- record headers ---- */

static uint32_t hdr_hblks(uint32_t version, uint32_t size)
{
	if ((version & 2) && size > XFSJ_LOG_HEADER_CYCLE_SIZE)
		return (size + XFSJ_LOG_HEADER_CYCLE_SIZE - 1) /
		       XFSJ_LOG_HEADER_CYCLE_SIZE;
	return 1;
}

static int hdr_bad(struct xfsj_log *l, uint32_t blk, const char *field,
		   unsigned int off, uint64_t val, struct xfsj_fault *f)
{
	return xfsj_fault_set(f, XFSJ_E_CORRUPT, "log record header", field,
			      l->g.dev_off + (uint64_t)blk * XFSJ_BBSIZE + off,
			      val);
}

/*
 * The kernel's validity test of a record header (magic, version, length),
 * plus the bounds this reader needs: a header size it can hold and a
 * record no longer than the log.
 */
static int hdr_check(struct xfsj_log *l, const uint8_t *h, uint32_t blk,
		     uint32_t *hblks, uint32_t *data_bbs, struct xfsj_fault *f)
{
	uint32_t version = xfsj_get_be32(h + HDR_VERSION_OFF);
	uint32_t len = xfsj_get_be32(h + HDR_LEN_OFF);
	uint32_t size = xfsj_get_be32(h + HDR_SIZE_OFF);
	uint32_t limit, nb, db;

	if (xfsj_get_be32(h) != XFSJ_LOG_MAGIC)
		return xfsj_fault_set(f, XFSJ_E_BADMAGIC, "log record header",
				      "h_magicno", l->g.dev_off +
				      (uint64_t)blk * XFSJ_BBSIZE,
				      xfsj_get_be32(h));
	if (!version || (version & ~3U))
		return hdr_bad(l, blk, "h_version", HDR_VERSION_OFF, version, f);
	if (size > XFSJ_LOG_MAX_RECORD)
		return hdr_bad(l, blk, "h_size", HDR_SIZE_OFF, size, f);
	limit = size > XFSJ_LOG_HEADER_CYCLE_SIZE ? size :
						     XFSJ_LOG_HEADER_CYCLE_SIZE;
	if (!len || len > limit)
		return hdr_bad(l, blk, "h_len", HDR_LEN_OFF, len, f);
	nb = hdr_hblks(version, size);
	db = (len + XFSJ_BBSIZE - 1) / XFSJ_BBSIZE;
	if (db > nb * XFSJ_LOG_CYCLE_DATA || nb + db > l->g.size_bb)
		return hdr_bad(l, blk, "h_len", HDR_LEN_OFF, len, f);
	*hblks = nb;
	*data_bbs = db;
	return 0;
}

/* Copy @n blocks starting at @blk, wrapping at the end of the log. */
static int copy_blocks(struct xfsj_log *l, uint32_t blk, uint32_t n,
		       uint8_t *dst, struct xfsj_fault *f)
{
	while (n) {
		uint32_t chunk = l->g.size_bb - blk;
		const uint8_t *p;
		int err;

		if (chunk > n)
			chunk = n;
		if (chunk > LOG_WIN_BBS)
			chunk = LOG_WIN_BBS;
		err = xlog_blocks(l, blk, chunk, false, &p, f);
		if (err)
			return err;
		memcpy(dst, p, (size_t)chunk * XFSJ_BBSIZE);
		dst += (size_t)chunk * XFSJ_BBSIZE;
		n -= chunk;
		blk = (blk + chunk) % l->g.size_bb;
	}
	return 0;
}

/*
 * The record CRC (§4): header with h_crc as zero, the cycle words of the
 * extended headers the data needs, the data as on disk.
 */
static uint32_t rec_crc(const uint8_t *rec, uint32_t hblks, uint32_t len,
			uint32_t hdr_bytes)
{
	static const uint8_t zero[4];
	uint32_t xh = (len + XFSJ_LOG_HEADER_CYCLE_SIZE - 1) /
		      XFSJ_LOG_HEADER_CYCLE_SIZE;
	uint32_t crc;

	crc = xfsj_crc32c_update(~0U, rec, HDR_CRC_OFF);
	crc = xfsj_crc32c_update(crc, zero, 4);
	crc = xfsj_crc32c_update(crc, rec + HDR_CRC_OFF + 4,
				 hdr_bytes - HDR_CRC_OFF - 4);
	if (xh > hblks)
		xh = hblks;
	for (uint32_t k = 1; k < xh; k++)
		crc = xfsj_crc32c_update(crc, rec + (size_t)k * XFSJ_BBSIZE,
					 4 + 4 * XFSJ_LOG_CYCLE_DATA);
	crc = xfsj_crc32c_update(crc, rec + (size_t)hblks * XFSJ_BBSIZE, len);
	return ~crc;
}

static void crc_check(const uint8_t *rec, uint32_t hblks, uint32_t len,
		      uint32_t crc, uint32_t *calc, enum xfsj_crc_state *st)
{
	if (crc == 0) {
		*st = XFSJ_CRC_ZERO;
		return;
	}
	*calc = rec_crc(rec, hblks, len, XFSJ_LOG_CRC_HDR_BYTES);
	if (*calc == crc)
		*st = XFSJ_CRC_OK;
	else if (rec_crc(rec, hblks, len, XFSJ_LOG_CRC_HDR_BYTES32) == crc)
		*st = XFSJ_CRC_OK324;
	else
		*st = XFSJ_CRC_BAD;
}

int xlog_read_rec(struct xfsj_log *l, uint32_t blk, bool check_crc, bool raw,
		  struct xfsj_log_rec *r, bool *stamped, struct xfsj_fault *f)
{
	const uint8_t *h;
	uint8_t *data;
	const uint8_t *rec;
	uint32_t nbb;
	bool in_place;
	int err;

	memset(r, 0, sizeof(*r));
	*stamped = false;
	/* Records are read in sequence: through the window, not alone. */
	err = xlog_blocks(l, blk, 1, false, &h, f);
	if (err)
		return err;
	err = hdr_check(l, h, blk, &r->hblks, &r->data_bbs, f);
	if (err)
		return err;
	nbb = r->hblks + r->data_bbs;
	in_place = (uint64_t)blk + nbb <= l->g.size_bb;
	if (in_place) {
		/*
		 * The usual case: the record is used where it lies in the
		 * window, unpacked in place, and those blocks are marked so
		 * that they are read again before anyone else looks at them.
		 */
		err = xlog_blocks(l, blk, nbb, false, &h, f);
		if (err)
			return err;
		rec = h;
	} else {
		err = copy_blocks(l, blk, nbb, l->rbuf, f);
		if (err)
			return err;
		rec = l->rbuf;
	}
	h = rec;
	r->blk = blk;
	r->dev_off = l->g.dev_off + (uint64_t)blk * XFSJ_BBSIZE;
	r->cycle = xfsj_get_be32(h + HDR_CYCLE_OFF);
	r->version = xfsj_get_be32(h + HDR_VERSION_OFF);
	r->len = xfsj_get_be32(h + HDR_LEN_OFF);
	r->lsn = xfsj_get_be64(h + HDR_LSN_OFF);
	r->tail_lsn = xfsj_get_be64(h + HDR_TAIL_OFF);
	r->crc = xfsj_get_le32(h + HDR_CRC_OFF);
	r->prev_block = xfsj_get_be32(h + HDR_PREV_OFF);
	r->num_logops = xfsj_get_be32(h + HDR_NUMOPS_OFF);
	r->fmt = xfsj_get_be32(h + HDR_FMT_OFF);
	r->size = xfsj_get_be32(h + HDR_SIZE_OFF);
	memcpy(r->uuid, h + HDR_UUID_OFF, 16);
	r->wraps = (uint64_t)blk + r->hblks + r->data_bbs > l->g.size_bb;
	r->hdr = rec;
	r->data = rec + (size_t)r->hblks * XFSJ_BBSIZE;

	r->crc_state = XFSJ_CRC_UNCHECKED;
	if (check_crc && !stream_hint(l, r, rec))
		crc_check(rec, r->hblks, r->len, r->crc, &r->crc_calc,
			  &r->crc_state);

	if (raw && in_place) {
		/* Left as on disk; the caller copies it out unstamped. */
		*stamped = r->data_bbs != 0;
		return 0;
	}
	if (in_place) {
		uint32_t lo = blk + r->hblks, hi = lo + r->data_bbs;

		/* One range covering everything unpacked in this window. */
		if (!l->dirty_hi || lo < l->dirty_lo)
			l->dirty_lo = lo;
		if (hi > l->dirty_hi)
			l->dirty_hi = hi;
	}
	/* Put back the first word of every data block (§3). */
	data = (uint8_t *)r->data;
	for (uint32_t i = 0; i < r->data_bbs; i++)
		memcpy(data + (size_t)i * XFSJ_BBSIZE,
		       xlog_stamp_slot(rec, i), 4);
	return 0;
}

int xfsj_log_read_record(struct xfsj_log *log, uint32_t blk, bool check_crc,
			 struct xfsj_log_rec *r, struct xfsj_fault *f)
{
	bool stamped;

	return xlog_read_rec(log, blk, check_crc, false, r, &stamped, f);
}

uint64_t xfsj_log_data_offset(const struct xfsj_log *log,
			      const struct xfsj_log_rec *rec, uint32_t off)
{
	uint64_t b = (uint64_t)rec->blk + rec->hblks + off / XFSJ_BBSIZE;

	b %= log->g.size_bb;
	return log->g.dev_off + b * XFSJ_BBSIZE + off % XFSJ_BBSIZE;
}

/* ---- head search (§5.1, §5.2) ---- */

/*
 * Binary search in [first, *last] for the first block of cycle @cycle,
 * given that *last has it and first does not.
 */
static int find_cycle_start(struct xfsj_log *l, uint32_t first,
			    uint32_t *last, uint32_t cycle,
			    struct xfsj_fault *f)
{
	uint32_t end = *last, mid = first + (end - first) / 2;

	while (mid != first && mid != end) {
		uint32_t c;
		int err = xfsj_log_block_cycle(l, mid, &c, f);

		if (err)
			return err;
		if (c == cycle)
			end = mid;
		else
			first = mid;
		mid = first + (end - first) / 2;
	}
	*last = end;
	return 0;
}

/* First block in [start, start + n) whose cycle is @stop, or -1. */
static int verify_cycle(struct xfsj_log *l, uint32_t start, uint32_t n,
			uint32_t stop, int64_t *found, struct xfsj_fault *f)
{
	*found = -1;
	while (n) {
		uint32_t chunk = n < LOG_WIN_BBS ? n : LOG_WIN_BBS;
		const uint8_t *p;
		int err = xlog_blocks(l, start, chunk, false, &p, f);

		if (err)
			return err;
		for (uint32_t i = 0; i < chunk; i++) {
			if (cycle_of(p + (size_t)i * XFSJ_BBSIZE) == stop) {
				*found = start + i;
				return 0;
			}
		}
		start += chunk;
		n -= chunk;
	}
	return 0;
}

static bool uuid_null(const uint8_t *u)
{
	for (int i = 0; i < 16; i++)
		if (u[i])
			return false;
	return true;
}

/*
 * Back up over a partially written record: search backwards from *last - 1
 * down to @start for a header; if the record it starts does not end
 * exactly at *last (@extra blocks accounting for a wrap), *last moves to
 * that header.  Returns 1 when no header is found.
 */
static int verify_log_record(struct xfsj_log *l, uint32_t start,
			     uint32_t *last, uint32_t extra,
			     struct xfsj_fault *f)
{
	const uint8_t *h = NULL;
	int64_t i;
	uint32_t hblks, len;

	for (i = (int64_t)*last - 1; i >= 0; i--) {
		int err;

		if (i < start)
			return 1;
		err = xlog_blocks(l, (uint32_t)i, 1, true, &h, f);
		if (err)
			return err;
		if (xfsj_get_be32(h) == XFSJ_LOG_MAGIC)
			break;
	}
	if (i < 0)
		return 1;
	if (!l->g.raw && !uuid_null(h + HDR_UUID_OFF) &&
	    memcmp(h + HDR_UUID_OFF, l->g.sb.uuid, 16))
		return xfsj_fault_set(f, XFSJ_E_CORRUPT, "log record header",
				      "h_fs_uuid", l->g.dev_off +
				      (uint64_t)i * XFSJ_BBSIZE + HDR_UUID_OFF,
				      (uint64_t)i);
	hblks = hdr_hblks(xfsj_get_be32(h + HDR_VERSION_OFF),
			  xfsj_get_be32(h + HDR_SIZE_OFF));
	len = xfsj_get_be32(h + HDR_LEN_OFF);
	if ((uint64_t)*last - (uint64_t)i + extra !=
	    (uint64_t)(len + XFSJ_BBSIZE - 1) / XFSJ_BBSIZE + hblks)
		*last = (uint32_t)i;
	return 0;
}

/* §5.1: 1 with *blk set when the log is (partially) zero, 0 if not. */
static int find_zeroed(struct xfsj_log *l, uint32_t *blk, struct xfsj_fault *f)
{
	uint32_t size = l->g.size_bb, c = 0, last;
	uint32_t nscan, start;
	int64_t nb;
	int err;

	err = xfsj_log_block_cycle(l, 0, &c, f);
	if (err)
		return err;
	if (c == 0) {
		*blk = 0;
		return 1;
	}
	err = xfsj_log_block_cycle(l, size - 1, &c, f);
	if (err)
		return err;
	if (c != 0)
		return 0;
	last = size - 1;
	err = find_cycle_start(l, 0, &last, 0, f);
	if (err)
		return err;
	nscan = XFSJ_LOG_TOTAL_REC_BBS;
	if (last < nscan)
		nscan = last;
	start = last - nscan;
	err = verify_cycle(l, start, nscan, 0, &nb, f);
	if (err)
		return err;
	if (nb != -1)
		last = (uint32_t)nb;
	err = verify_log_record(l, start, &last, 0, f);
	if (err == 1)
		return xfsj_fault_set(f, XFSJ_E_CORRUPT, "log", "head",
				      l->g.dev_off + (uint64_t)last * XFSJ_BBSIZE,
				      last);
	if (err)
		return err;
	*blk = last;
	return 1;
}

static int find_head(struct xfsj_log *l, uint32_t *head_out, bool *zeroed,
		     struct xfsj_fault *f)
{
	uint32_t size = l->g.size_bb;
	uint32_t first_cycle, last_cycle, stop, head = 0, nscan, start;
	int64_t nb;
	int err;

	*zeroed = false;
	err = find_zeroed(l, &head, f);
	if (err < 0)
		return err;
	if (err == 1) {
		*head_out = head;
		*zeroed = head == 0;
		return 0;
	}
	err = xfsj_log_block_cycle(l, 0, &first_cycle, f);
	if (!err)
		err = xfsj_log_block_cycle(l, size - 1, &last_cycle, f);
	if (err)
		return err;
	if (first_cycle == last_cycle) {
		/* One cycle everywhere: the head is (about) the log end. */
		head = size;
		stop = last_cycle - 1;
	} else {
		head = size - 1;
		stop = last_cycle;
		err = find_cycle_start(l, 0, &head, last_cycle, f);
		if (err)
			return err;
	}

	/*
	 * Up to eight iclogs may complete out of order: a block with the
	 * stop cycle in the 4096 blocks before the candidate is the head.
	 */
	nscan = size < XFSJ_LOG_TOTAL_REC_BBS ? size : XFSJ_LOG_TOTAL_REC_BBS;
	if (head >= nscan) {
		start = head - nscan;
		err = verify_cycle(l, start, nscan, stop, &nb, f);
		if (err)
			return err;
		if (nb != -1)
			head = (uint32_t)nb;
	} else {
		start = size - (nscan - head);
		err = verify_cycle(l, start, nscan - head, stop - 1, &nb, f);
		if (err)
			return err;
		if (nb != -1) {
			head = (uint32_t)nb;
			goto validate;
		}
		err = verify_cycle(l, 0, head, stop, &nb, f);
		if (err)
			return err;
		if (nb != -1)
			head = (uint32_t)nb;
	}
validate:
	nscan = XFSJ_LOG_REC_BBS;
	if (head >= nscan) {
		err = verify_log_record(l, head - nscan, &head, 0, f);
		if (err == 1)
			goto nohdr;
		if (err)
			return err;
	} else {
		err = verify_log_record(l, 0, &head, 0, f);
		if (err < 0)
			return err;
		if (err == 1) {
			uint32_t nh = size;

			start = nscan - head > size ? 0 : size - (nscan - head);
			err = verify_log_record(l, start, &nh, head, f);
			if (err == 1)
				goto nohdr;
			if (err)
				return err;
			if (nh != size)
				head = nh;
		}
	}
	*head_out = head == size ? 0 : head;
	return 0;
nohdr:
	return xfsj_fault_set(f, XFSJ_E_CORRUPT, "log", "head",
			      l->g.dev_off + (uint64_t)head * XFSJ_BBSIZE, head);
}

/* ---- tail, clean check, torn writes (§5.3) ---- */

/*
 * Backwards from @head - 1 for up to @count headers, not going below
 * @tail; wraps to the log end when tail >= head.  Returns how many were
 * found; the last one found is in *rblk.
 */
static int rseek_hdr(struct xfsj_log *l, uint32_t head, uint32_t tail,
		     int count, uint32_t *rblk, bool *wrapped,
		     struct xfsj_fault *f)
{
	uint32_t end = head > tail ? tail : 0;
	const uint8_t *p;
	int found = 0, err;

	*wrapped = false;
	for (int64_t i = (int64_t)head - 1; i >= (int64_t)end; i--) {
		err = xlog_blocks(l, (uint32_t)i, 1, true, &p, f);
		if (err)
			return err;
		if (xfsj_get_be32(p) == XFSJ_LOG_MAGIC) {
			*rblk = (uint32_t)i;
			if (++found == count)
				return found;
		}
	}
	if (tail >= head) {
		for (int64_t i = (int64_t)l->g.size_bb - 1; i >= (int64_t)tail;
		     i--) {
			err = xlog_blocks(l, (uint32_t)i, 1, true, &p, f);
			if (err)
				return err;
			if (xfsj_get_be32(p) == XFSJ_LOG_MAGIC) {
				*wrapped = true;
				*rblk = (uint32_t)i;
				if (++found == count)
					return found;
			}
		}
	}
	return found;
}

/* Forwards from @tail for up to @count headers, up to @head (wrapping). */
static int seek_hdr(struct xfsj_log *l, uint32_t head, uint32_t tail,
		    int count, uint32_t *rblk, struct xfsj_fault *f)
{
	uint32_t end = head > tail ? head : l->g.size_bb - 1;
	const uint8_t *p;
	int found = 0, err;

	for (uint64_t i = tail; i <= end; i++) {
		err = xlog_blocks(l, (uint32_t)i, 1, false, &p, f);
		if (err)
			return err;
		if (xfsj_get_be32(p) == XFSJ_LOG_MAGIC) {
			*rblk = (uint32_t)i;
			if (++found == count)
				return found;
		}
	}
	if (tail > head) {
		for (uint32_t i = 0; i < head; i++) {
			err = xlog_blocks(l, i, 1, false, &p, f);
			if (err)
				return err;
			if (xfsj_get_be32(p) == XFSJ_LOG_MAGIC) {
				*rblk = i;
				if (++found == count)
					return found;
			}
		}
	}
	return found;
}

/*
 * The kernel's CRC pass from @tail to @head: every record must have a
 * valid header and a matching (or zero) CRC.  On failure *first_bad is the
 * header block of the failing record and the error is returned.
 */
static int crc_pass_run(struct xfsj_log *l, uint32_t head, uint32_t tail,
		    uint32_t stop, uint32_t *first_bad, struct xfsj_fault *f)
{
	uint32_t pos = tail, left = xfsj_log_distance(l, tail, head);
	struct xfsj_log_rec r;

	*first_bad = 0;
	while (left) {
		uint32_t n;
		bool stamped;
		int err;

		/* Deferred: the rest is checked by the walk. */
		if (stop && xfsj_log_distance(l, head, pos) > stop) {
			l->crc_deferred = true;
			return 0;
		}
		/* Only the CRC is wanted: the data may stay as on disk. */
		err = xlog_read_rec(l, pos, true, true, &r, &stamped, f);

		if (err == -XFSJ_E_NOMEM || err == -XFSJ_E_IO)
			return err;
		if (!err && r.crc_state == XFSJ_CRC_BAD)
			err = xfsj_fault_set(f, XFSJ_E_BADCRC,
					     "log record header", "h_crc",
					     r.dev_off + HDR_CRC_OFF, r.crc);
		if (err) {
			*first_bad = pos;
			return err;
		}
		n = r.hblks + r.data_bbs;
		if (n >= left)
			break;
		left -= n;
		pos = (pos + n) % l->g.size_bb;
	}
	return 0;
}

static int crc_pass(struct xfsj_log *l, uint32_t head, uint32_t tail,
		    uint32_t stop, uint32_t *first_bad, struct xfsj_fault *f)
{
	int err;

	if (!stop)
		xlog_stream_begin(l, tail, xfsj_log_distance(l, tail, head));
	err = crc_pass_run(l, head, tail, stop, first_bad, f);
	xlog_stream_end(l);
	return err;
}

static uint32_t block_lsn(uint64_t lsn)
{
	return (uint32_t)lsn;
}

struct lastrec {
	uint32_t blk;
	uint8_t hdr[XFSJ_BBSIZE];
	bool wrapped;
};

static int load_last(struct xfsj_log *l, uint32_t blk, bool wrapped,
		     struct lastrec *lr, struct xfsj_fault *f)
{
	const uint8_t *p;
	int err = read_one(l, blk, &p, f);

	if (err)
		return err;
	lr->blk = blk;
	lr->wrapped = wrapped;
	memcpy(lr->hdr, p, XFSJ_BBSIZE);
	return 0;
}

/* §5.3 step 3: is the last record an unmount record ending at the head? */
static int check_unmount(struct xfsj_log *l, uint32_t *head, uint32_t *tail,
			 const struct lastrec *lr, bool *clean,
			 struct xfsj_fault *f)
{
	const uint8_t *h = lr->hdr;
	uint32_t hblks = hdr_hblks(xfsj_get_be32(h + HDR_VERSION_OFF),
				   xfsj_get_be32(h + HDR_SIZE_OFF));
	uint64_t len = xfsj_get_be32(h + HDR_LEN_OFF);
	uint32_t after, dblk;
	const uint8_t *p;
	int err;

	*clean = false;
	after = (uint32_t)(((uint64_t)lr->blk + hblks +
			    (len + XFSJ_BBSIZE - 1) / XFSJ_BBSIZE) %
			   l->g.size_bb);
	if (after != *head || xfsj_get_be32(h + HDR_NUMOPS_OFF) != 1)
		return 0;
	dblk = (uint32_t)(((uint64_t)lr->blk + hblks) % l->g.size_bb);
	err = read_one(l, dblk, &p, f);
	if (err)
		return err;
	/* The op flags byte is not covered by the cycle stamp. */
	if (p[9] & XFSJ_OP_UNMOUNT) {
		*tail = after;
		*clean = true;
	}
	return 0;
}

static int verify_tail(struct xfsj_log *l, uint32_t head, uint32_t *tail,
		       uint32_t hsize, uint32_t *bad, struct xfsj_fault *f)
{
	uint32_t t, first_bad, reach, stop;
	int err, n;

	/*
	 * A bad record can move the tail only when the head may have
	 * overwritten it: within eight log buffers after the head.  Past
	 * that, a failure leaves head and tail as they are, so with
	 * deferral those records are left to the walk, which checks each
	 * one while it has its bytes at hand anyway.
	 */
	if (!hsize)
		hsize = XFSJ_LOG_HEADER_CYCLE_SIZE;
	reach = (uint32_t)((uint64_t)XFSJ_LOG_MAX_ICLOGS * hsize / XFSJ_BBSIZE);
	stop = l->defer_crc ? reach : 0;
	n = seek_hdr(l, head, *tail, 1, &t, f);
	if (n < 0)
		return n;
	if (n == 1)
		*tail = t;
	l->crc_deferred = false;
	err = crc_pass(l, head, *tail, stop, &first_bad, f);
	while ((err == -XFSJ_E_BADCRC || err == -XFSJ_E_CORRUPT ||
		err == -XFSJ_E_BADMAGIC) && first_bad) {
		/* Only the head may have overwritten the old tail. */
		uint32_t dist = xfsj_log_distance(l, head, first_bad);

		if (dist > reach)
			break;
		n = seek_hdr(l, head, first_bad, 2, &t, f);
		if (n < 0)
			return n;
		if (n < 2)
			break;
		*tail = t;
		l->crc_deferred = false;
		err = crc_pass(l, head, *tail, stop, &first_bad, f);
	}
	*bad = first_bad;
	return err;
}

static int verify_head(struct xfsj_log *l, uint32_t *head, uint32_t *tail,
		       struct lastrec *lr, bool *torn, struct xfsj_log_ht *ht,
		       struct xfsj_fault *f)
{
	uint32_t bad = 0;
	uint32_t blk, first_bad;
	bool wrapped;
	int n, err;

	*torn = false;
	n = rseek_hdr(l, *head, *tail, XFSJ_LOG_MAX_ICLOGS, &blk, &wrapped, f);
	if (n < 0)
		return n;
	if (n == 0)
		return xfsj_fault_set(f, XFSJ_E_CORRUPT, "log", "head",
				      l->g.dev_off + (uint64_t)*head *
				      XFSJ_BBSIZE, *head);
	err = crc_pass(l, *head, blk, 0, &first_bad, f);
	if ((err == -XFSJ_E_BADCRC || err == -XFSJ_E_CORRUPT ||
	     err == -XFSJ_E_BADMAGIC) && first_bad) {
		/* A torn write: the head goes back to the bad record. */
		n = rseek_hdr(l, first_bad, *tail, 1, &blk, &wrapped, f);
		if (n < 0)
			return n;
		if (n == 0)
			return xfsj_fault_set(f, XFSJ_E_CORRUPT, "log", "head",
					      l->g.dev_off + (uint64_t)first_bad *
					      XFSJ_BBSIZE, first_bad);
		err = load_last(l, blk, wrapped, lr, f);
		if (err)
			return err;
		*head = first_bad;
		*tail = block_lsn(xfsj_get_be64(lr->hdr + HDR_TAIL_OFF));
		*torn = true;
		if (*head == *tail)
			return xfsj_fault_set(f, XFSJ_E_CORRUPT, "log", "tail",
					      l->g.dev_off + (uint64_t)*head *
					      XFSJ_BBSIZE, *tail);
	} else if (err) {
		return err;
	}
	err = verify_tail(l, *head, tail, xfsj_get_be32(lr->hdr + HDR_SIZE_OFF),
			  &bad, f);
	if ((err == -XFSJ_E_BADCRC || err == -XFSJ_E_CORRUPT ||
	     err == -XFSJ_E_BADMAGIC) && bad) {
		/* Not a torn write: recovery would fail here.  Say where. */
		ht->verify_failed = true;
		ht->bad_blk = bad;
		return 0;
	}
	if (!err && !l->crc_deferred)
		l->live_crc_ok = true;
	ht->crc_deferred = !err && l->crc_deferred;
	return err;
}

static void set_state(struct xfsj_log_ht *ht, const struct lastrec *lr)
{
	ht->have_last = true;
	ht->last_blk = lr->blk;
	ht->last_lsn = xfsj_get_be64(lr->hdr + HDR_LSN_OFF);
	ht->last_hsize = xfsj_get_be32(lr->hdr + HDR_SIZE_OFF);
	ht->cycle = xfsj_get_be32(lr->hdr + HDR_CYCLE_OFF) + lr->wrapped;
	ht->tail_lsn = xfsj_get_be64(lr->hdr + HDR_TAIL_OFF);
}

int xfsj_log_find_head_tail(struct xfsj_log *log, struct xfsj_log_ht *ht,
			    struct xfsj_fault *f)
{
	return xfsj_log_find_head_tail_ex(log, ht, 0, f);
}

int xfsj_log_find_head_tail_ex(struct xfsj_log *log, struct xfsj_log_ht *ht,
			       unsigned int flags, struct xfsj_fault *f)
{
	struct xfsj_log *l = log;
	struct lastrec lr;
	uint32_t head = 0, tail = 0, blk = 0, c;
	bool wrapped, clean, zeroed;
	int n, err;

	memset(ht, 0, sizeof(*ht));
	l->have_ht = false;
	l->live_crc_ok = false;
	l->crc_deferred = false;
	l->defer_crc = flags & XFSJ_HT_DEFER_VERIFY;
	err = find_head(l, &head, &zeroed, f);
	if (err)
		return err;
	if (head == 0) {
		err = xfsj_log_block_cycle(l, 0, &c, f);
		if (err)
			return err;
		if (c == 0) {
			ht->zeroed = true;
			ht->clean = true;
			ht->cycle = 1;
			goto done;
		}
	}
	n = rseek_hdr(l, head, head, 1, &blk, &wrapped, f);
	if (n < 0)
		return n;
	if (n == 0)
		return xfsj_fault_set(f, XFSJ_E_CORRUPT, "log", "last record",
				      l->g.dev_off + (uint64_t)head * XFSJ_BBSIZE,
				      head);
	err = load_last(l, blk, wrapped, &lr, f);
	if (err)
		return err;
	tail = block_lsn(xfsj_get_be64(lr.hdr + HDR_TAIL_OFF));
	if (tail >= l->g.size_bb)
		return xfsj_fault_set(f, XFSJ_E_CORRUPT, "log record header",
				      "h_tail_lsn", l->g.dev_off +
				      (uint64_t)blk * XFSJ_BBSIZE + HDR_TAIL_OFF,
				      tail);
	set_state(ht, &lr);
	ht->orig_head = head;
	ht->orig_tail = tail;
	err = check_unmount(l, &head, &tail, &lr, &clean, f);
	if (err)
		return err;
	if (!clean) {
		uint32_t orig = head;
		bool torn;

		err = verify_head(l, &head, &tail, &lr, &torn, ht, f);
		if (err)
			return err;
		ht->torn = torn;
		if (head != orig) {
			set_state(ht, &lr);
			err = check_unmount(l, &head, &tail, &lr, &clean, f);
			if (err)
				return err;
		}
		if (tail != block_lsn(ht->tail_lsn) && !clean) {
			ht->tail_moved = true;
			ht->orig_tail = block_lsn(ht->tail_lsn);
		}
	}
	ht->clean = clean;
	if (clean)
		ht->tail_lsn = xfsj_lsn(ht->cycle, tail);
done:
	ht->head_blk = head;
	ht->tail_blk = tail;
	l->ht = *ht;
	l->have_ht = true;
	return 0;
}
