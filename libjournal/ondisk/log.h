/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The XFS v2 log: record headers and the records mkfs and repair write. */
#ifndef XFSJ_LOG_H
#define XFSJ_LOG_H

#include "ondisk/format.h"

#define XFSJ_LOG_VERSION_2	2
#define XFSJ_LOG_FMT_LINUX_LE	1
#define XFSJ_LOG_UNMOUNT_TID	0xb0c0d0d0U
#define XFSJ_LOG_CLIENT_ID	0xaa
#define XFSJ_LOG_OP_UNMOUNT	0x20
#define XFSJ_LOG_UNMOUNT_MAGIC	0x556e
#define XFSJ_LOG_OPHDR_SIZE	12

/* Log item types (the first u16 of every item's first region). */
enum {
	XFSJ_LI_EFI = 0x1236, XFSJ_LI_EFD = 0x1237,
	XFSJ_LI_IUNLINK = 0x1238,
	XFSJ_LI_INODE = 0x123b, XFSJ_LI_BUF = 0x123c,
	XFSJ_LI_DQUOT = 0x123d, XFSJ_LI_QUOTAOFF = 0x123e,
	XFSJ_LI_ICREATE = 0x123f,
	XFSJ_LI_RUI = 0x1240, XFSJ_LI_RUD = 0x1241,
	XFSJ_LI_CUI = 0x1242, XFSJ_LI_CUD = 0x1243,
	XFSJ_LI_BUI = 0x1244, XFSJ_LI_BUD = 0x1245,
	XFSJ_LI_ATTRI = 0x1246, XFSJ_LI_ATTRD = 0x1247,
	XFSJ_LI_XMI = 0x1248, XFSJ_LI_XMD = 0x1249,
	XFSJ_LI_EFI_RT = 0x124a, XFSJ_LI_EFD_RT = 0x124b,
	XFSJ_LI_RUI_RT = 0x124c, XFSJ_LI_RUD_RT = 0x124d,
	XFSJ_LI_CUI_RT = 0x124e, XFSJ_LI_CUD_RT = 0x124f,
};

/* ATTRI operations (low byte of alfi_op_flags). */
enum xfsj_attri_op {
	XFSJ_ATTRI_OP_SET = 1,
	XFSJ_ATTRI_OP_REMOVE = 2,
	XFSJ_ATTRI_OP_REPLACE = 3,
	XFSJ_ATTRI_OP_PPTR_SET = 4,
	XFSJ_ATTRI_OP_PPTR_REMOVE = 5,
	XFSJ_ATTRI_OP_PPTR_REPLACE = 6,
};

#define XFSJ_ATTRI_FMT_SIZE		40
#define XFSJ_ATTRI_FILTER_INCOMPLETE	0x80U

/* Intent extent flags: operation in the low byte, then flag bits. */
#define XFSJ_RUI_TYPE_MASK	0xffU
#define XFSJ_RUI_ATTR_FORK	(1U << 31)
#define XFSJ_RUI_BMBT_BLOCK	(1U << 30)
#define XFSJ_RUI_UNWRITTEN	(1U << 29)
#define XFSJ_RUI_FLAGS		(XFSJ_RUI_TYPE_MASK | XFSJ_RUI_ATTR_FORK | \
				 XFSJ_RUI_BMBT_BLOCK | XFSJ_RUI_UNWRITTEN)
#define XFSJ_BUI_TYPE_MASK	0xffU
#define XFSJ_BUI_ATTR_FORK	(1U << 31)
#define XFSJ_BUI_UNWRITTEN	(1U << 30)
#define XFSJ_BUI_REALTIME	(1U << 29)	/* a realtime file's mapping */

/* buf log format flags */
#define XFSJ_BLF_INODE_BUF	0x01
#define XFSJ_BLF_CANCEL		0x02
#define XFSJ_BLF_DQUOT_MASK	0x1c
#define XFSJ_BLF_CHUNK		128
#define XFSJ_BLFT_SHIFT		11	/* buffer type: flags >> 11 */
#define XFSJ_BLFT_SB		18

/* inode log format: which parts of the inode the item logged */
#define XFSJ_ILOG_CORE	0x001
#define XFSJ_ILOG_DDATA	0x002	/* local data fork */
#define XFSJ_ILOG_DEXT	0x004	/* data fork extents */
#define XFSJ_ILOG_DBROOT	0x008	/* data fork btree root */
#define XFSJ_ILOG_DEV	0x010	/* device number */
#define XFSJ_ILOG_ADATA	0x040
#define XFSJ_ILOG_AEXT	0x080
#define XFSJ_ILOG_ABROOT	0x100
#define XFSJ_ILOG_DOWNER	0x200	/* data fork bmbt changed owner */
#define XFSJ_ILOG_AOWNER	0x400	/* attr fork bmbt changed owner */
#define XFSJ_ILOG_DFORK	(XFSJ_ILOG_DDATA | XFSJ_ILOG_DEXT | XFSJ_ILOG_DBROOT)
#define XFSJ_ILOG_AFORK	(XFSJ_ILOG_ADATA | XFSJ_ILOG_AEXT | XFSJ_ILOG_ABROOT)

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
