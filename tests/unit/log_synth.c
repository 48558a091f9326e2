/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdlib.h>
#include <string.h>

#include "log_synth.h"
#include "core/crc32c.h"
#include "ondisk/format.h"
#include "core/layout.h"

void synth_le16(uint8_t *p, uint16_t v)
{
	p[0] = v & 0xff;
	p[1] = v >> 8;
}

void synth_le32(uint8_t *p, uint32_t v)
{
	xfsj_put_le32(p, v);
}

void synth_le64(uint8_t *p, uint64_t v)
{
	xfsj_put_le32(p, (uint32_t)v);
	xfsj_put_le32(p + 4, (uint32_t)(v >> 32));
}

void synth_init(struct synth *s, uint32_t log_bb, uint32_t hsize)
{
	struct xfsj_sb sb;

	memset(s, 0, sizeof(*s));
	s->log_bb = log_bb;
	s->hsize = hsize;
	s->log_off = (uint64_t)SYN_LOGSTART * SYN_BLOCKSIZE;
	s->size = (size_t)SYN_AGBLOCKS * SYN_BLOCKSIZE;
	if (s->log_off + (uint64_t)log_bb * 512 > s->size)
		s->size = s->log_off + (uint64_t)log_bb * 512 + SYN_BLOCKSIZE;
	s->img = calloc(1, s->size);
	s->data = calloc(1, 256 * 1024);
	for (int i = 0; i < 16; i++)
		s->uuid[i] = (uint8_t)(0x11 * (i + 1));
	s->cycle = 1;
	s->prev = 0xffffffffU;
	s->auto_tail = true;

	memset(&sb, 0, sizeof(sb));
	sb.magicnum = XFSJ_SB_MAGIC;
	sb.blocksize = SYN_BLOCKSIZE;
	sb.blocklog = 12;
	sb.dblocks = s->size / SYN_BLOCKSIZE;
	sb.agblocks = SYN_AGBLOCKS;
	sb.agblklog = 11;
	sb.agcount = 1;
	sb.logstart = SYN_LOGSTART;
	sb.logblocks = log_bb / 8;
	sb.inodesize = 512;
	sb.inodelog = 9;
	sb.inopblock = 8;
	sb.inopblog = 3;
	sb.sectsize = 512;
	sb.sectlog = 9;
	sb.versionnum = XFSJ_SB_VERSION_5 | XFSJ_SB_VERSION_LOGV2BIT;
	sb.logsunit = 1;
	memcpy(sb.uuid, s->uuid, 16);
	xfsj_sb_encode(&sb, s->img, 512);
}

void synth_free(struct synth *s)
{
	free(s->img);
	free(s->data);
}

struct xfsj_io *synth_io(const struct synth *s)
{
	struct xfsj_io *io = NULL;

	xfsj_io_open_mem_copy(s->img, s->size, &io);
	return io;
}

void synth_flush(struct synth *s)
{
	uint32_t hblks = s->hsize > 32768 ? (s->hsize + 32767) / 32768 : 1;
	uint32_t hlen = (s->dlen + 511) & ~511U;
	uint32_t dbbs = hlen / 512, n = hblks + dbbs;
	uint8_t *rec;
	uint32_t xh, crc;
	static const uint8_t zero[4];

	if (!s->nops)
		return;
	rec = calloc(n, 512);
	memcpy(rec + (size_t)hblks * 512, s->data, s->dlen);
	if (s->auto_tail && !s->tail_lsn)
		s->tail_lsn = xfsj_lsn(s->cycle, s->blk);

	xfsj_put_be32(rec, XFSJ_LOG_MAGIC);
	xfsj_put_be32(rec + 4, s->cycle);
	xfsj_put_be32(rec + 8, 2);
	xfsj_put_be32(rec + 12, hlen);
	xfsj_put_be64(rec + 16, xfsj_lsn(s->cycle, s->blk));
	xfsj_put_be64(rec + 24, s->tail_lsn);
	xfsj_put_be32(rec + 36, s->prev);
	xfsj_put_be32(rec + 40, s->nops);
	xfsj_put_be32(rec + 300, 1);
	memcpy(rec + 304, s->uuid, 16);
	xfsj_put_be32(rec + 320, s->hsize);
	for (uint32_t i = 0; i < dbbs; i++) {
		uint8_t *bb = rec + (size_t)(hblks + i) * 512;
		uint8_t *slot = i < 64 ? rec + 44 + 4 * i :
				rec + (size_t)(i / 64) * 512 + 4 + 4 * (i % 64);

		memcpy(slot, bb, 4);
		xfsj_put_be32(bb, s->cycle);
	}
	for (uint32_t j = 1; j < hblks; j++)
		xfsj_put_be32(rec + (size_t)j * 512, s->cycle);
	/* Blocks that land at the start of the log carry the next cycle. */
	for (uint32_t i = 1; i < n; i++) {
		if (s->blk + i < s->log_bb)
			continue;
		uint32_t w = xfsj_get_be32(rec + (size_t)i * 512) + 1;

		if (w == XFSJ_LOG_MAGIC)
			w++;
		xfsj_put_be32(rec + (size_t)i * 512, w);
	}
	if (!s->no_crc) {
		crc = xfsj_crc32c_update(~0U, rec, 32);
		crc = xfsj_crc32c_update(crc, zero, 4);
		crc = xfsj_crc32c_update(crc, rec + 36, 328 - 36);
		xh = (hlen + 32767) / 32768;
		for (uint32_t k = 1; k < xh && k < hblks; k++)
			crc = xfsj_crc32c_update(crc, rec + (size_t)k * 512, 260);
		crc = xfsj_crc32c_update(crc, rec + (size_t)hblks * 512, hlen);
		xfsj_put_le32(rec + 32, ~crc);
	}
	for (uint32_t i = 0; i < n; i++) {
		uint32_t b = (s->blk + i) % s->log_bb;

		memcpy(s->img + synth_boff(s, b), rec + (size_t)i * 512, 512);
	}
	free(rec);
	s->last_blk = s->blk;
	s->last_bbs = n;
	s->prev = s->blk;
	if (s->blk + n >= s->log_bb)
		s->cycle++;
	s->blk = (s->blk + n) % s->log_bb;
	s->dlen = 0;
	s->nops = 0;
}

void synth_op(struct synth *s, uint32_t tid, uint8_t client, uint8_t flags,
	      const void *payload, uint32_t len)
{
	uint8_t *h;

	if (s->dlen + 12 + len > s->hsize)
		synth_flush(s);
	h = s->data + s->dlen;
	xfsj_put_be32(h, tid);
	xfsj_put_be32(h + 4, len);
	h[8] = client;
	h[9] = flags;
	h[10] = h[11] = 0;
	if (len)
		memcpy(h + 12, payload, len);
	s->dlen += 12 + len;
	s->nops++;
}

void synth_region(struct synth *s, uint32_t tid, const void *p, uint32_t len)
{
	const uint8_t *b = p;
	bool first = true;

	/* Keep at least 4 bytes in a first piece, as the kernel does. */
	if (s->dlen + 12 + 4 > s->hsize)
		synth_flush(s);
	while (len) {
		uint32_t room = s->hsize - s->dlen - 12;
		uint8_t fl;

		if (len <= room) {
			fl = first ? 0 : (0x08 | 0x10);
			synth_op(s, tid, 0x69, fl, b, len);
			return;
		}
		fl = first ? 0x04 : (0x08 | 0x04);
		synth_op(s, tid, 0x69, fl, b, room);
		synth_flush(s);
		b += room;
		len -= room;
		first = false;
	}
}

void synth_start(struct synth *s, uint32_t tid, uint32_t nregions)
{
	uint8_t th[16];

	synth_op(s, tid, 0x69, 0x01, NULL, 0);
	synth_le32(th, 0x5452414e);
	synth_le32(th + 4, 40);
	synth_le32(th + 8, tid);
	synth_le32(th + 12, nregions);
	synth_op(s, tid, 0x69, 0, th, 16);
}

void synth_commit(struct synth *s, uint32_t tid)
{
	synth_op(s, tid, 0x69, 0x02, NULL, 0);
}

void synth_unmount(struct synth *s)
{
	uint8_t um[8] = { 0x6e, 0x55 };

	synth_flush(s);
	synth_op(s, 0xb0c0d0d0, 0xaa, 0x20, um, 8);
	synth_flush(s);
}

uint32_t synth_buf_fmt(uint8_t *out, uint64_t blkno, uint16_t len,
		       uint16_t flags, uint32_t nbits, uint16_t nreg)
{
	uint32_t words = (len * 512 / 128 + 31) / 32;

	memset(out, 0, 20 + 4 * words);
	synth_le16(out, 0x123c);
	synth_le16(out + 2, nreg);
	synth_le16(out + 4, flags);
	synth_le16(out + 6, len);
	synth_le64(out + 8, blkno);
	synth_le32(out + 16, words);
	for (uint32_t b = 0; b < nbits; b++)
		out[20 + b / 8] |= (uint8_t)(1 << (b % 8));
	return 20 + 4 * words;
}
