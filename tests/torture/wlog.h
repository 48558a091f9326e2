/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The write log of the crash-torture recorder (wrec.c) and its reader
 * (wstate.c): a stream of records, each a 24-byte little-endian header
 * and, for writes and notes, LEN bytes of payload.
 *
 *   offset  size  field
 *   0       4     magic   WLOG_MAGIC
 *   4       4     type    WLOG_WRITE, WLOG_MARK or WLOG_NOTE
 *   8       4     len     payload bytes (a write's data, a note's text)
 *   12      4     zero
 *   16      8     off     a write's byte offset in the image; else 0
 *
 * A mark is an fsync of the image (what the loop device makes of the
 * kernel's cache flushes and FUA writes): every write before it had
 * reached stable storage when the filesystem went on.  A note is a line
 * the workload wrote to the control file after an operation it expects
 * to survive (an fsync that returned).
 */
#ifndef WLOG_H
#define WLOG_H

#include <endian.h>
#include <stdint.h>
#include <string.h>

#define WLOG_MAGIC	0x574c4f47u	/* "WLOG" */
#define WLOG_HDR	24u
#define WLOG_MAX_LEN	(64u << 20)	/* a write larger is hostile input */

enum wlog_type {
	WLOG_WRITE = 1,
	WLOG_MARK = 2,
	WLOG_NOTE = 3,
};

struct wlog_rec {
	uint32_t type;
	uint32_t len;
	uint64_t off;
};

static inline void wlog_encode(uint8_t *b, const struct wlog_rec *r)
{
	uint32_t v32;
	uint64_t v64;

	v32 = htole32(WLOG_MAGIC);
	memcpy(b, &v32, 4);
	v32 = htole32(r->type);
	memcpy(b + 4, &v32, 4);
	v32 = htole32(r->len);
	memcpy(b + 8, &v32, 4);
	v32 = 0;
	memcpy(b + 12, &v32, 4);
	v64 = htole64(r->off);
	memcpy(b + 16, &v64, 8);
}

/* 0, or -1 when B is not a record header. */
static inline int wlog_decode(const uint8_t *b, struct wlog_rec *r)
{
	uint32_t v32;
	uint64_t v64;

	memcpy(&v32, b, 4);
	if (le32toh(v32) != WLOG_MAGIC)
		return -1;
	memcpy(&v32, b + 4, 4);
	r->type = le32toh(v32);
	memcpy(&v32, b + 8, 4);
	r->len = le32toh(v32);
	memcpy(&v64, b + 16, 8);
	r->off = le64toh(v64);
	if (r->type < WLOG_WRITE || r->type > WLOG_NOTE || r->len > WLOG_MAX_LEN)
		return -1;
	if (r->type == WLOG_MARK && r->len != 0)
		return -1;
	return 0;
}

#endif
