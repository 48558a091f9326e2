/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The XFS v2 log: record headers and the records mkfs and repair write. */
#ifndef XFSJ_LOG_H
#define XFSJ_LOG_H

#include "xfsj/format.h"

#define XFSJ_LOG_VERSION_2	2
#define XFSJ_LOG_FMT_LINUX_LE	1
#define XFSJ_LOG_UNMOUNT_TID	0xb0c0d0d0U
#define XFSJ_LOG_CLIENT_ID	0xaa
#define XFSJ_LOG_OP_UNMOUNT	0x20
#define XFSJ_LOG_UNMOUNT_MAGIC	0x556e
#define XFSJ_LOG_OPHDR_SIZE	12

void xfsj_logrec_decode(const void *buf, struct xfsj_logrec *h);
void xfsj_logrec_encode(const struct xfsj_logrec *h, void *buf);

/*
 * Bytes of the record that carries one unmount record, for a log whose
 * sb_logsunit is @logsunit (1 or 0 = none) and log sector size @logsectsize
 * (0 for 512): a whole stripe unit, or a header and one data sector.
 */
uint32_t xfsj_log_unmount_record_size(uint32_t logsunit, uint32_t logsectsize);

/*
 * Build a complete record holding only an unmount record: header (and
 * extended headers for records over 32 KiB), the op, and the cycle stamp of
 * every data sector.  @buf must hold xfsj_log_unmount_record_size() bytes.
 * With @with_crc the record CRC is computed (mkfs leaves it 0).
 */
int xfsj_log_build_unmount_record(void *buf, uint32_t logsunit,
				  uint32_t logsectsize, const uint8_t uuid[16],
				  uint32_t cycle, uint32_t block,
				  uint64_t tail_lsn, bool with_crc);

#endif
