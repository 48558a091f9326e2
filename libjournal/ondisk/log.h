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
#define XFSJ_LOG_TRANS_HDR_SIZE	16
#define XFSJ_LOG_MAX_RECORD	(256 * 1024)	/* largest iclog */
/*
 * ---- the formats of inode, ICREATE and quota items ----
 * The inode log format (host order): 56 bytes, or 52 from 32-bit writers,
 * which pack it (no padding before the inode number).  The rdev word is
 * the first of a 16-byte union (a uuid on old devices).
 */
#define XFSJ_ILF_FIELDS(F, P)						\
	F(U16, type, 0)		F(U16, size, 2)				\
	F(U32, fields, 4)	F(U16, asize, 8)			\
	F(U16, dsize, 10)	P(4, pad, 12)				\
	F(U64, ino, 16)		F(U32, rdev, 24)			\
	P(12, upad, 28)		F(U64, blkno, 40)			\
	F(U32, len, 48)		F(U32, boffset, 52)
XFSJ_DECLARE_STRUCTS(xfsj_ilf, XFSJ_ILF_FIELDS);
#define XFSJ_ILF_OFF(field)	offsetof(struct xfsj_ilf_raw, field)
#define XFSJ_INODE_LOGFMT_SIZE	56
#define XFSJ_ILF32_FIELDS(F, P)						\
	F(U16, type, 0)		F(U16, size, 2)				\
	F(U32, fields, 4)	F(U16, asize, 8)			\
	F(U16, dsize, 10)	F(U64, ino, 12)				\
	F(U32, rdev, 20)	P(12, upad, 24)				\
	F(U64, blkno, 36)	F(U32, len, 44)				\
	F(U32, boffset, 48)
XFSJ_DECLARE_STRUCTS(xfsj_ilf32, XFSJ_ILF32_FIELDS);
#define XFSJ_ILF32_OFF(field)	offsetof(struct xfsj_ilf32_raw, field)
#define XFSJ_INODE_LOGFMT32_SIZE 52
/* The log dinode of a v1/v2 inode stops before di_next_unlinked. */
#define XFSJ_LOG_DINODE_V2_SIZE	96

/* ICREATE: type and size in host order, the rest big-endian. */
#define XFSJ_ICL_FIELDS(F, P)						\
	F(U16, type, 0)		F(U16, size, 2)				\
	F(U32, ag, 4)		F(U32, agbno, 8)			\
	F(U32, count, 12)	F(U32, isize, 16)			\
	F(U32, length, 20)	F(U32, gen, 24)
XFSJ_DECLARE_STRUCTS(xfsj_icl, XFSJ_ICL_FIELDS);
#define XFSJ_ICL_OFF(field)	offsetof(struct xfsj_icl_raw, field)
#define XFSJ_ICREATE_LOGFMT_SIZE 28

/* The dquot log format (host order); the dquot itself follows. */
#define XFSJ_QLF_FIELDS(F, P)						\
	F(U16, type, 0)		F(U16, size, 2)				\
	F(U32, id, 4)		F(U64, blkno, 8)			\
	F(U32, len, 16)		F(U32, boffset, 20)
XFSJ_DECLARE_STRUCTS(xfsj_qlf, XFSJ_QLF_FIELDS);
#define XFSJ_QLF_OFF(field)	offsetof(struct xfsj_qlf_raw, field)
#define XFSJ_DQUOT_LOGFMT_SIZE	24

/* QUOTAOFF (host order): the quota types being turned off. */
#define XFSJ_QOFF_FIELDS(F, P)						\
	F(U16, type, 0)		F(U16, size, 2)				\
	F(U32, flags, 4)	P(12, pad, 8)
XFSJ_DECLARE_STRUCTS(xfsj_qoff, XFSJ_QOFF_FIELDS);
#define XFSJ_QOFF_OFF(field)	offsetof(struct xfsj_qoff_raw, field)
#define XFSJ_QOFF_LOGFMT_SIZE	20
/* Writers before the padding was added logged the first 8 bytes. */
#define XFSJ_QOFF_LOGFMT_MIN	8
extern const struct xfsj_layout xfsj_ilf_layout, xfsj_ilf32_layout,
	xfsj_icl_layout, xfsj_qlf_layout, xfsj_qoff_layout, xfsj_dqblk_layout;

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
/* Every item type lies in [XFSJ_LI_FIRST, XFSJ_LI_FIRST + XFSJ_LI_SPAN). */
#define XFSJ_LI_FIRST	0x1200
#define XFSJ_LI_SPAN	0x50

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

/*
 * ---- intent and done item formats (host order) ----
 * Every one starts with the same 16 bytes; then the entries.  A done
 * item of RUI, CUI, BUI, ATTRI or XMI is the header alone (its count
 * word unused).  EFI/EFD entries are 16 bytes, or 12 from a 32-bit
 * writer (no padding).  ATTRI and XMI have their own formats
 * (attri_fmt.h, xmi_fmt.h).
 */
#define XFSJ_INTENT_HDR_FIELDS(F, P)					\
	F(U16, type, 0)		F(U16, size, 2)				\
	F(U32, nextents, 4)	F(U64, id, 8)
XFSJ_DECLARE_STRUCTS(xfsj_intent_hdr, XFSJ_INTENT_HDR_FIELDS);
#define XFSJ_INTENT_OFF(field)	offsetof(struct xfsj_intent_hdr_raw, field)
#define XFSJ_INTENT_HDR_SIZE	16
extern const struct xfsj_layout xfsj_intent_hdr_layout;
#define XFSJ_DONE_FMT_SIZE	XFSJ_INTENT_HDR_SIZE

/* EFI/EFD: an extent to free. */
#define XFSJ_EFI_EXT_FIELDS(F, P)					\
	F(U64, start, 0)	F(U32, len, 8)		P(4, pad, 12)
XFSJ_DECLARE_STRUCTS(xfsj_efi_ext, XFSJ_EFI_EXT_FIELDS);
#define XFSJ_EFI_EXT_OFF(field)	offsetof(struct xfsj_efi_ext_raw, field)
#define XFSJ_EFI_EXT_SIZE	16
#define XFSJ_EFI_EXT32_SIZE	12
extern const struct xfsj_layout xfsj_efi_ext_layout;

/* RUI and BUI: a mapping (rmap update or file mapping update). */
#define XFSJ_MAP_EXT_FIELDS(F, P)					\
	F(U64, owner, 0)	F(U64, startblock, 8)			\
	F(U64, offset, 16)	F(U32, len, 24)				\
	F(U32, flags, 28)
XFSJ_DECLARE_STRUCTS(xfsj_map_ext, XFSJ_MAP_EXT_FIELDS);
#define XFSJ_MAP_EXT_OFF(field)	offsetof(struct xfsj_map_ext_raw, field)
#define XFSJ_MAP_EXT_SIZE	32
extern const struct xfsj_layout xfsj_map_ext_layout;

/* CUI: a reference count update. */
#define XFSJ_CUI_EXT_FIELDS(F, P)					\
	F(U64, startblock, 0)	F(U32, len, 8)		F(U32, flags, 12)
XFSJ_DECLARE_STRUCTS(xfsj_cui_ext, XFSJ_CUI_EXT_FIELDS);
#define XFSJ_CUI_EXT_OFF(field)	offsetof(struct xfsj_cui_ext_raw, field)
#define XFSJ_CUI_EXT_SIZE	16
extern const struct xfsj_layout xfsj_cui_ext_layout;

/*
 * ---- buf log format (host order) ----
 * Then the dirty map, one bit per 128-byte chunk of the buffer: at most
 * XFSJ_BLF_MAP_MAX words (a 64 KiB buffer, plus one).
 */
#define XFSJ_BLF_FIELDS(F, P)						\
	F(U16, type, 0)		F(U16, size, 2)				\
	F(U16, flags, 4)	F(U16, len, 6)				\
	F(U64, blkno, 8)	F(U32, map_size, 16)
XFSJ_DECLARE_STRUCTS(xfsj_blf, XFSJ_BLF_FIELDS);
#define XFSJ_BLF_OFF(field)	offsetof(struct xfsj_blf_raw, field)
#define XFSJ_BLF_HDR_SIZE	20	/* the map starts here */
#define XFSJ_BLF_MAP_MAX	17
extern const struct xfsj_layout xfsj_blf_layout;

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
