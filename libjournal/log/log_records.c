/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Record headers: the kernel's validity test of a header, reading one
 * record (extended headers, data, cycle stamps undone) and its CRC.
 */
#include <stdlib.h>
#include <string.h>

#include "core/crc32c.h"
#include "core/layout.h"
#include "log/logread_priv.h"

uint32_t xlog_hdr_hblks(uint32_t version, uint32_t size)
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
int xlog_hdr_check(struct xfsj_log *l, const uint8_t *h, uint32_t blk,
		   uint32_t *hblks, uint32_t *data_bbs, struct xfsj_fault *f)
{
	uint32_t version = xfsj_get_be32(h + XLOG_HDR_VERSION_OFF);
	uint32_t len = xfsj_get_be32(h + XLOG_HDR_LEN_OFF);
	uint32_t size = xfsj_get_be32(h + XLOG_HDR_SIZE_OFF);
	uint32_t limit, nb, db;

	if (xfsj_get_be32(h) != XFSJ_LOG_MAGIC)
		return xfsj_fault_set(f, XFSJ_E_BADMAGIC, "log record header",
				      "h_magicno", l->g.dev_off +
				      (uint64_t)blk * XFSJ_BBSIZE,
				      xfsj_get_be32(h));
	if (!version || (version & ~3U))
		return hdr_bad(l, blk, "h_version", XLOG_HDR_VERSION_OFF, version, f);
	if (size > XFSJ_LOG_MAX_RECORD)
		return hdr_bad(l, blk, "h_size", XLOG_HDR_SIZE_OFF, size, f);
	limit = size > XFSJ_LOG_HEADER_CYCLE_SIZE ? size :
						     XFSJ_LOG_HEADER_CYCLE_SIZE;
	if (!len || len > limit)
		return hdr_bad(l, blk, "h_len", XLOG_HDR_LEN_OFF, len, f);
	nb = xlog_hdr_hblks(version, size);
	db = (len + XFSJ_BBSIZE - 1) / XFSJ_BBSIZE;
	if (db > nb * XFSJ_LOG_CYCLE_DATA || nb + db > l->g.size_bb)
		return hdr_bad(l, blk, "h_len", XLOG_HDR_LEN_OFF, len, f);
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

	crc = xfsj_crc32c_update(~0U, rec, XLOG_HDR_CRC_OFF);
	crc = xfsj_crc32c_update(crc, zero, 4);
	crc = xfsj_crc32c_update(crc, rec + XLOG_HDR_CRC_OFF + 4,
				 hdr_bytes - XLOG_HDR_CRC_OFF - 4);
	if (xh > hblks)
		xh = hblks;
	for (uint32_t k = 1; k < xh; k++)
		crc = xfsj_crc32c_update(crc, rec + (size_t)k * XFSJ_BBSIZE,
					 4 + 4 * XFSJ_LOG_CYCLE_DATA);
	crc = xfsj_crc32c_update(crc, rec + (size_t)hblks * XFSJ_BBSIZE, len);
	return ~crc;
}

void xlog_crc_check(const uint8_t *rec, uint32_t hblks, uint32_t len,
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
	err = xlog_hdr_check(l, h, blk, &r->hblks, &r->data_bbs, f);
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
	r->cycle = xfsj_get_be32(h + XLOG_HDR_CYCLE_OFF);
	r->version = xfsj_get_be32(h + XLOG_HDR_VERSION_OFF);
	r->len = xfsj_get_be32(h + XLOG_HDR_LEN_OFF);
	r->lsn = xfsj_get_be64(h + XLOG_HDR_LSN_OFF);
	r->tail_lsn = xfsj_get_be64(h + XLOG_HDR_TAIL_OFF);
	r->crc = xfsj_get_le32(h + XLOG_HDR_CRC_OFF);
	r->prev_block = xfsj_get_be32(h + XLOG_HDR_PREV_OFF);
	r->num_logops = xfsj_get_be32(h + XLOG_HDR_NUMOPS_OFF);
	r->fmt = xfsj_get_be32(h + XLOG_HDR_FMT_OFF);
	r->size = xfsj_get_be32(h + XLOG_HDR_SIZE_OFF);
	memcpy(r->uuid, h + XLOG_HDR_UUID_OFF, 16);
	r->wraps = (uint64_t)blk + r->hblks + r->data_bbs > l->g.size_bb;
	r->hdr = rec;
	r->data = rec + (size_t)r->hblks * XFSJ_BBSIZE;

	r->crc_state = XFSJ_CRC_UNCHECKED;
	if (check_crc && !xlog_stream_hint(l, r, rec))
		xlog_crc_check(rec, r->hblks, r->len, r->crc, &r->crc_calc,
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
