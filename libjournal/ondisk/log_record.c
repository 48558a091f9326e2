/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Log record headers and the one record every writer of a clean log needs:
 * a record holding only an unmount record.
 *
 * Cycle stamping: the first 4 bytes of every 512-byte data sector of a
 * record are replaced by the record's cycle number so that a torn write is
 * visible; the replaced words are kept in the header's cycle_data array
 * (64 per header sector; records over 32 KiB get extended header sectors
 * that hold 64 more each, after a cycle word of their own).
 */
#include <string.h>

#include "core/crc32c.h"
#include "ondisk/log.h"

#define XFSJ_CUR xfsj_logrec
XFSJ_DEFINE_LAYOUT(xfsj_logrec_layout, XFSJ_LOGREC_FIELDS, "log record header",
		   XFSJ_LOGREC_HDR_SIZE);
#undef XFSJ_CUR

void xfsj_logrec_decode(const void *buf, struct xfsj_logrec *h)
{
	xfsj_layout_decode(&xfsj_logrec_layout, buf, h);
}

void xfsj_logrec_encode(const struct xfsj_logrec *h, void *buf)
{
	xfsj_layout_encode(&xfsj_logrec_layout, h, buf);
}

uint32_t xfsj_log_unmount_record_size(uint32_t logsunit, uint32_t logsectsize)
{
	if (logsunit > 1)
		return logsunit;
	if (logsectsize > XFSJ_BBSIZE)
		return logsectsize;
	return 2 * XFSJ_BBSIZE;
}

int xfsj_log_build_unmount_record(void *buf, uint32_t logsunit,
				  uint32_t logsectsize, const uint8_t uuid[16],
				  uint32_t cycle, uint32_t block,
				  uint64_t tail_lsn, bool with_crc)
{
	uint32_t recbytes = xfsj_log_unmount_record_size(logsunit, logsectsize);
	uint32_t hsize = recbytes > XFSJ_LOG_HEADER_CYCLE_SIZE ?
			 recbytes : XFSJ_LOG_HEADER_CYCLE_SIZE;
	uint32_t hdrs = (hsize + XFSJ_LOG_HEADER_CYCLE_SIZE - 1) /
			XFSJ_LOG_HEADER_CYCLE_SIZE;
	uint32_t data_bbs;
	struct xfsj_logrec h;
	uint8_t *data;

	if (recbytes % XFSJ_BBSIZE || recbytes / XFSJ_BBSIZE <= hdrs)
		return -XFSJ_E_INVAL;
	data_bbs = recbytes / XFSJ_BBSIZE - hdrs;
	memset(buf, 0, recbytes);
	data = (uint8_t *)buf + hdrs * XFSJ_BBSIZE;

	/* The unmount op: header, then the magic in host (LE) order. */
	xfsj_put_be32(data, XFSJ_LOG_UNMOUNT_TID);
	xfsj_put_be32(data + 4, 8);
	data[8] = XFSJ_LOG_CLIENT_ID;
	data[9] = XFSJ_LOG_OP_UNMOUNT;
	data[12] = XFSJ_LOG_UNMOUNT_MAGIC & 0xff;
	data[13] = XFSJ_LOG_UNMOUNT_MAGIC >> 8;

	memset(&h, 0, sizeof(h));
	h.magicno = XFSJ_LOG_MAGIC;
	h.cycle = cycle;
	h.version = XFSJ_LOG_VERSION_2;
	h.len = data_bbs * XFSJ_BBSIZE;
	h.lsn = xfsj_lsn(cycle, block);
	h.tail_lsn = tail_lsn;
	h.prev_block = 0xffffffffU;
	h.num_logops = 1;
	h.fmt = XFSJ_LOG_FMT_LINUX_LE;
	memcpy(h.fs_uuid, uuid, 16);
	h.size = hsize;

	/* Stamp the cycle into every data sector, saving the first words. */
	for (uint32_t i = 0; i < data_bbs; i++) {
		uint8_t *bb = data + (size_t)i * XFSJ_BBSIZE;
		uint32_t word = xfsj_get_be32(bb);

		if (i < XFSJ_LOG_CYCLE_DATA) {
			h.cycle_data[i] = word;
		} else {
			uint8_t *xh = (uint8_t *)buf +
				      (i / XFSJ_LOG_CYCLE_DATA) * XFSJ_BBSIZE;

			xfsj_put_be32(xh + 4 + 4 * (i % XFSJ_LOG_CYCLE_DATA),
				      word);
		}
		xfsj_put_be32(bb, cycle);
	}
	for (uint32_t j = 1; j < hdrs; j++)
		xfsj_put_be32((uint8_t *)buf + j * XFSJ_BBSIZE, cycle);
	xfsj_logrec_encode(&h, buf);

	if (with_crc) {
		/*
		 * The kernel's rule (xfs-log.md §4): the first 328 bytes of
		 * the header (the 64-bit header structure, crc taken as
		 * zero), the cycle word and saved words (260 bytes) of each
		 * extended header the data needs, then the data.
		 */
		static const uint8_t zero[4];
		uint32_t xhdrs = (h.len + XFSJ_LOG_HEADER_CYCLE_SIZE - 1) /
				 XFSJ_LOG_HEADER_CYCLE_SIZE;
		uint32_t crc = xfsj_crc32c_update(~0U, buf, XFSJ_LOGREC_CRC_OFF);

		crc = xfsj_crc32c_update(crc, zero, 4);
		crc = xfsj_crc32c_update(crc, (uint8_t *)buf + XFSJ_LOGREC_CRC_OFF + 4,
					 328 - XFSJ_LOGREC_CRC_OFF - 4);
		for (uint32_t j = 1; j < xhdrs && j < hdrs; j++)
			crc = xfsj_crc32c_update(crc, (uint8_t *)buf + j * XFSJ_BBSIZE,
						 4 + 4 * XFSJ_LOG_CYCLE_DATA);
		crc = xfsj_crc32c_update(crc, data, h.len);
		xfsj_put_le32((uint8_t *)buf + XFSJ_LOGREC_CRC_OFF, ~crc);
	}
	return 0;
}
