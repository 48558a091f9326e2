/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Synthetic XFS logs for the log reader's unit tests: a tiny filesystem
 * image (superblock + internal log) and a writer that lays down records the
 * way the kernel does: ops packed into iclog-sized records, cycle stamps in
 * every data block, wrap-around with the cycle bump, record CRC.
 */
#ifndef XFSJ_TEST_LOG_SYNTH_H
#define XFSJ_TEST_LOG_SYNTH_H

#include <stdbool.h>
#include <stdint.h>

#include "xfsj/io.h"

#define SYN_BLOCKSIZE	4096
#define SYN_AGBLOCKS	2048
#define SYN_LOGSTART	64		/* fs block of the log */

struct synth {
	uint8_t *img;
	size_t size;
	uint64_t log_off;
	uint32_t log_bb;
	uint8_t uuid[16];
	uint32_t cycle, blk;		/* where the next record goes */
	uint32_t hsize;			/* iclog size */
	uint64_t tail_lsn;		/* written into every header */
	bool auto_tail;			/* tail = first record's LSN */
	bool no_crc;
	uint32_t prev;
	uint32_t last_blk;		/* header of the last record written */
	uint32_t last_bbs;		/* its length in blocks */
	uint8_t *data;			/* the record being filled */
	uint32_t dlen, nops;
};

void synth_init(struct synth *s, uint32_t log_bb, uint32_t hsize);
void synth_free(struct synth *s);

/* Append one op to the current record (flushing first if it is full). */
void synth_op(struct synth *s, uint32_t tid, uint8_t client, uint8_t flags,
	      const void *payload, uint32_t len);
/* A region of a transaction, split over records when it does not fit. */
void synth_region(struct synth *s, uint32_t tid, const void *p, uint32_t len);
/* START, transaction header (@nregions), ... use synth_region, then COMMIT. */
void synth_start(struct synth *s, uint32_t tid, uint32_t nregions);
void synth_commit(struct synth *s, uint32_t tid);
/* Write the current record; nothing if it is empty. */
void synth_flush(struct synth *s);
/* An unmount record in a record of its own, as the kernel writes it. */
void synth_unmount(struct synth *s);

/* Byte offset in the image of log block @blk. */
static inline uint64_t synth_boff(const struct synth *s, uint32_t blk)
{
	return s->log_off + (uint64_t)blk * 512;
}

/* A memory device holding the image (the reader's input). */
struct xfsj_io *synth_io(const struct synth *s);

/* Item format regions (host order = little-endian). */
uint32_t synth_buf_fmt(uint8_t *out, uint64_t blkno, uint16_t len,
		       uint16_t flags, uint32_t nbits, uint16_t nreg);
void synth_le16(uint8_t *p, uint16_t v);
void synth_le32(uint8_t *p, uint32_t v);
void synth_le64(uint8_t *p, uint64_t v);

#endif
