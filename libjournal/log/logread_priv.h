/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the log reader's files share behind logread.h: log_open.c,
 * log_window.c, log_readahead.c, log_records.c, log_head_tail.c,
 * log_trans.c and log_items.c.
 */
#ifndef XFSJ_LOGREAD_PRIV_H
#define XFSJ_LOGREAD_PRIV_H

#include <string.h>

#include "xfsj/logread.h"

/*
 * Reads go through one window of consecutive log blocks (4 MiB), so a walk
 * over the whole log is a series of large sequential reads; single-block
 * probes of the head search that miss the window read just that block.
 */
#define LOG_WIN_BBS	8192

struct xfsj_log {
	struct xfsj_io *io;
	struct xfsj_log_geom g;
	struct xfsj_fsgeo fsg;
	uint8_t *win;		/* pread buffer (NULL until needed) */
	const uint8_t *wp;	/* the window: win, or a chunk of the stream */
	uint32_t win_blk, win_n;
	uint8_t *rbuf;		/* one record: headers + data */
	size_t rbuf_cap;
	uint8_t one[XFSJ_BBSIZE];
	struct xfsj_log_ht ht;
	bool have_ht;
	bool live_crc_ok;	/* every record in [tail, head) passed */
	bool defer_crc;		/* XFSJ_HT_DEFER_VERIFY was asked for */
	bool crc_deferred;	/* records of [tail, head) left unchecked */
	/* Window blocks whose cycle stamps were undone in place. */
	uint32_t dirty_lo, dirty_hi;
	struct xlog_stream *stream;	/* read-ahead of a long walk, or NULL */
	uint32_t stream_from;
};

/* Byte offsets in a log record header (reference §3). */
#define XLOG_HDR_MAGIC_OFF	0
#define XLOG_HDR_CYCLE_OFF	4
#define XLOG_HDR_VERSION_OFF	8
#define XLOG_HDR_LEN_OFF	12
#define XLOG_HDR_LSN_OFF	16
#define XLOG_HDR_TAIL_OFF	24
#define XLOG_HDR_CRC_OFF	32
#define XLOG_HDR_PREV_OFF	36
#define XLOG_HDR_NUMOPS_OFF	40
#define XLOG_HDR_CDATA_OFF	44
#define XLOG_HDR_FMT_OFF	300
#define XLOG_HDR_UUID_OFF	304
#define XLOG_HDR_SIZE_OFF	320

/* ---- log_window.c: reading blocks ---- */

/* A read of the log failed at byte @off: fill @f, return the error. */
int xlog_io_fault(struct xfsj_log *l, int err, uint64_t off,
		  struct xfsj_fault *f);
/* Forget the window (its blocks are read again when next needed). */
void xlog_win_drop(struct xfsj_log *l);

/* Pointer to @n consecutive blocks at @blk (no wrap); @back positions the
 * window to end at the request (backward scans). */
int xlog_blocks(struct xfsj_log *l, uint32_t blk, uint32_t n, bool back,
		const uint8_t **p, struct xfsj_fault *f);
/* One block for a probe: from the window if it is there, else alone. */
int xlog_read_one(struct xfsj_log *l, uint32_t blk, const uint8_t **p,
		  struct xfsj_fault *f);
/* The cycle of a block: its header's, or its stamp. */
uint32_t xlog_cycle_of(const uint8_t *bb);

/* ---- log_readahead.c ---- */

/*
 * Read [from, from + nblocks) (wrapping) ahead of a sequential walk in a
 * second thread; the walk's forward xlog_blocks() calls take the chunks
 * as they come.  Ends by itself on anything out of sequence.
 */
void xlog_stream_begin(struct xfsj_log *l, uint32_t from, uint32_t nblocks);
void xlog_stream_end(struct xfsj_log *l);
/*
 * Make the stream chunk holding [blk, blk + n) the window.  Returns 1
 * when the stream cannot give it (then it is over), a negative error when
 * the read of that chunk failed.
 */
int xlog_stream_take(struct xfsj_log *l, uint32_t blk, uint32_t n,
		     struct xfsj_fault *f);
/*
 * The stream's CRC result for the record @r (bytes at @rec), if it has
 * one; true when @r's CRC state was set.
 */
bool xlog_stream_hint(struct xfsj_log *l, struct xfsj_log_rec *r,
		      const uint8_t *rec);

/* ---- log_records.c: record headers ---- */

/* Header blocks of a record of this version and iclog size. */
uint32_t xlog_hdr_hblks(uint32_t version, uint32_t size);
/*
 * The kernel's validity test of the record header @h at @blk; its header
 * and data block counts.
 */
int xlog_hdr_check(struct xfsj_log *l, const uint8_t *h, uint32_t blk,
		   uint32_t *hblks, uint32_t *data_bbs, struct xfsj_fault *f);
/* Check the CRC of a record (headers and @len bytes of data). */
void xlog_crc_check(const uint8_t *rec, uint32_t hblks, uint32_t len,
		    uint32_t crc, uint32_t *calc, enum xfsj_crc_state *st);

/*
 * Read the record at @blk.  With @raw the data may be left as on disk (the
 * first word of every data block still holding its cycle stamp) and
 * *@stamped says so; copy it out with xlog_copy_data().  Otherwise as
 * xfsj_log_read_record().
 */
int xlog_read_rec(struct xfsj_log *l, uint32_t blk, bool check_crc, bool raw,
		  struct xfsj_log_rec *r, bool *stamped, struct xfsj_fault *f);

/* Where the real first word of data block @i of a record is kept. */
static inline const uint8_t *xlog_stamp_slot(const uint8_t *hdr, uint32_t i)
{
	if (i < XFSJ_LOG_CYCLE_DATA)
		return hdr + 44 + 4 * i;
	return hdr + (size_t)(i / XFSJ_LOG_CYCLE_DATA) * XFSJ_BBSIZE + 4 +
	       4 * (i % XFSJ_LOG_CYCLE_DATA);
}

/*
 * Copy @len bytes at data offset @off of a record to @dst, undoing the
 * cycle stamps on the way when @stamped.
 */
static inline void xlog_copy_data(uint8_t *dst, const struct xfsj_log_rec *r,
				  bool stamped, uint32_t off, uint32_t len)
{
	uint32_t end = off + len;

	memcpy(dst, r->data + off, len);
	if (!stamped)
		return;
	for (uint32_t bb = off & ~(uint32_t)(XFSJ_BBSIZE - 1); bb < end;
	     bb += XFSJ_BBSIZE) {
		uint32_t s = bb > off ? bb : off;
		uint32_t e = bb + 4 < end ? bb + 4 : end;

		if (s < e)
			memcpy(dst + (s - off),
			       xlog_stamp_slot(r->hdr, bb / XFSJ_BBSIZE) +
			       (s - bb), e - s);
	}
}

/* ---- log_salvage.c ---- */

/* Records of the current cycle past the head (xlog_find_lost()). */
struct xlog_lost {
	uint32_t nrec;		/* how many follow one another */
	uint32_t first_blk;	/* the first one's header block */
	uint64_t first_lsn;
	uint32_t last_blk;	/* the last one's header block */
	uint32_t end_blk;	/* where the last one ends */
};

int xlog_find_lost(struct xfsj_log *l, uint32_t head, uint32_t room,
		   uint64_t after_lsn, struct xlog_lost *out,
		   struct xfsj_fault *f);

/*
 * Could a region starting with these @len bytes be the first region of a
 * log item (a known type, a region count in range)?  Where a transaction
 * that lost ops to a damaged record is picked up again.
 */
bool xlog_item_head_plausible(const uint8_t *p, uint32_t len);

/* Little-endian (host order of Linux logs) helpers. */
static inline uint16_t xlog_le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t xlog_le32(const uint8_t *p)
{
	return xfsj_get_le32(p);
}

static inline uint64_t xlog_le64(const uint8_t *p)
{
	return (uint64_t)xfsj_get_le32(p + 4) << 32 | xfsj_get_le32(p);
}

#endif
