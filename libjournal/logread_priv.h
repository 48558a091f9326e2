/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What log_scan.c, log_trans.c and log_items.c share behind logread.h. */
#ifndef XFSJ_LOGREAD_PRIV_H
#define XFSJ_LOGREAD_PRIV_H

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
	uint8_t *win;
	uint32_t win_blk, win_n;
	uint8_t *rbuf;		/* one record: headers + data */
	size_t rbuf_cap;
	uint8_t one[XFSJ_BBSIZE];
	struct xfsj_log_ht ht;
	bool have_ht;
	bool live_crc_ok;	/* every record in [tail, head) passed */
	/* Window blocks whose cycle stamps were undone in place. */
	uint32_t dirty_lo, dirty_hi;
};

/* Pointer to @n consecutive blocks at @blk (no wrap); @back positions the
 * window to end at the request (backward scans). */
int xlog_blocks(struct xfsj_log *l, uint32_t blk, uint32_t n, bool back,
		const uint8_t **p, struct xfsj_fault *f);

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
