/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The read-ahead stream of a long walk over the log (a second thread).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "log/logread_priv.h"

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
		    xlog_hdr_check(l, h, s->rpos, &hblks, &dbbs, &lf)) {
			/* Not a record: on to the next block, as the walk. */
			s->rpos = (s->rpos + 1) % l->g.size_bb;
			continue;
		}
		if (compute && d + hblks + dbbs <= cn) {
			x = &s->hint[slot][s->nhint[slot]++];
			x->blk = s->rpos;
			x->len = xfsj_get_be32(h + XLOG_HDR_LEN_OFF);
			x->crc = xfsj_get_le32(h + XLOG_HDR_CRC_OFF);
			x->calc = 0;
			xlog_crc_check(h, hblks, x->len, x->crc, &x->calc,
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
		xlog_win_drop(l);
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
	xlog_win_drop(l);
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
int xlog_stream_take(struct xfsj_log *l, uint32_t blk, uint32_t n,
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
		return xlog_io_fault(l, err, off, f);
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
bool xlog_stream_hint(struct xfsj_log *l, struct xfsj_log_rec *r,
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
