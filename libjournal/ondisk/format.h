/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * XFS v5 on-disk format: constants and the fixed-layout structures.
 *
 * Everything on disk is big-endian except CRC fields (little-endian).
 * Field offsets are those of the kernel's xfs_format.h; they are checked
 * at compile time in the .c file that owns each structure.  Host structures
 * hold native-endian values under the on-disk field names (without the
 * sb_/agf_/... prefix).
 */
#ifndef XFSJ_FORMAT_H
#define XFSJ_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "xfsj/errors.h"
#include "core/layout.h"

#define XFSJ_BBSHIFT		9
#define XFSJ_BBSIZE		512
#define XFSJ_NULLAGBLOCK	0xffffffffU
#define XFSJ_NULLAGINO		0xffffffffU
#define XFSJ_NULLFSINO		UINT64_MAX
#define XFSJ_NULLFSBLOCK	UINT64_MAX
#define XFSJ_MAX_FILEOFF	((1ULL << 54) - 1)	/* largest file offset, blocks */
/* The kernel's xfs_verify_fileext: [off, off + len) non-empty, in range. */
static inline bool xfsj_fileext_ok(uint64_t off, uint64_t len)
{
	return len != 0 && off <= XFSJ_MAX_FILEOFF &&
	       len - 1 <= XFSJ_MAX_FILEOFF - off;
}
/* The file offset bits of an rmap record's offset field. */
#define XFSJ_RMAP_OFF_MASK	((1ULL << 54) - 1)
/* Inodes in one inobt record, and its log. */
#define XFSJ_INODES_PER_CHUNK_LOG 6
#define XFSJ_INODES_PER_CHUNK	(1 << XFSJ_INODES_PER_CHUNK_LOG)
/* The inode cluster of 256-byte inodes; v5 scales it with the inode size. */
#define XFSJ_INODE_BIG_CLUSTER	8192
#define XFSJ_MAXNAMELEN		256	/* a name and its NUL */
#define XFSJ_DQUOT_DISK_SIZE	104	/* an on-disk dquot */
#define XFSJ_BMDR_HDR_SIZE	4	/* bmbt root in a fork: level, numrecs */
/* Room a fork keeps for a bmbt root: pointers, data / attr fork. */
#define XFSJ_BMDR_MIN_DPTRS	3
#define XFSJ_BMDR_MIN_APTRS	2
/* A device inode's data fork: the device number, rounded up to 8 bytes. */
#define XFSJ_DEV_FORK_SIZE	8
#define XFSJ_INODES_PER_HOLEMASK_BIT 4	/* sparse inode chunk holemask */
#define XFSJ_HOLEMASK_BITS	16
#define XFSJ_REFC_COWFLAG	(1U << 31)	/* refcount start: CoW staging */
#define XFSJ_SYMLINK_MAGIC	0x58534c4dU	/* XSLM */
#define XFSJ_SYMLINK_MAXLEN	1024
#define XFSJ_SYMLINK_MAPS	3	/* extents a remote symlink may use */
#define XFSJ_BMBT_MAX_EXTLEN	((1ULL << 21) - 1)	/* blocks in one bmbt record */
#define XFSJ_BMBT_REC_SIZE	16
#define XFSJ_BMBT_DISK_MAXLEVELS 12	/* a bmbt level on disk is below this */
/* Extents a fork may count: small counters, and large ones (nrext64). */
#define XFSJ_MAX_DATA_EXTENTS_SMALL	((UINT64_C(1) << 31) - 1)
#define XFSJ_MAX_ATTR_EXTENTS_SMALL	((UINT64_C(1) << 15) - 1)
#define XFSJ_MAX_DATA_EXTENTS_LARGE	((UINT64_C(1) << 48) - 1)
#define XFSJ_MAX_ATTR_EXTENTS_LARGE	((UINT64_C(1) << 32) - 1)
/* A refcount that reached the maximum never changes again. */
#define XFSJ_REFC_MAX_COUNT	UINT32_MAX
#define XFSJ_REFC_MAX_EXTLEN	UINT32_MAX
/* Reflink AGs stay below the CoW flag: at most 2^40 bytes of 1k blocks. */
#define XFSJ_REFC_MAX_AG_BLOCKS	(1U << 30)
#define XFSJ_RMAP_LEN_MAX	UINT32_MAX	/* blocks in one rmap record */
/* Owners with this bit set are special (XFSJ_RMAP_OWN_*), not inodes. */
#define XFSJ_RMAP_OWN_NON_INODE	(1ULL << 63)

/* ---- magic numbers ---- */
#define XFSJ_SB_MAGIC		0x58465342U	/* XFSB */
#define XFSJ_AGF_MAGIC		0x58414746U	/* XAGF */
#define XFSJ_AGI_MAGIC		0x58414749U	/* XAGI */
#define XFSJ_AGFL_MAGIC		0x5841464cU	/* XAFL */
#define XFSJ_BNO_MAGIC		0x41423342U	/* AB3B */
#define XFSJ_CNT_MAGIC		0x41423343U	/* AB3C */
#define XFSJ_INO_MAGIC		0x49414233U	/* IAB3 */
#define XFSJ_FINO_MAGIC		0x46494233U	/* FIB3 */
#define XFSJ_RMAP_MAGIC		0x524d4233U	/* RMB3 */
#define XFSJ_REFC_MAGIC		0x52334643U	/* R3FC */
#define XFSJ_BMAP_MAGIC		0x424d4133U	/* BMA3 */
#define XFSJ_RTRMAP_MAGIC	0x4d524d42U	/* MRMB */
#define XFSJ_RTREFC_MAGIC	0x52434e54U	/* RCNT */
#define XFSJ_RTBITMAP_MAGIC	0x424d505aU	/* BMPZ */
#define XFSJ_RTSUMMARY_MAGIC	0x53554d59U	/* SUMY */
#define XFSJ_DQUOT_MAGIC	0x4451U		/* DQ */
/* The same trees' blocks on v4 (pre-CRC) filesystems. */
#define XFSJ_BNO_MAGIC_V4	0x41425442U	/* ABTB */
#define XFSJ_CNT_MAGIC_V4	0x41425443U	/* ABTC */
#define XFSJ_INO_MAGIC_V4	0x49414254U	/* IABT */
#define XFSJ_FINO_MAGIC_V4	0x46494254U	/* FIBT */
#define XFSJ_BMAP_MAGIC_V4	0x424d4150U	/* BMAP */
#define XFSJ_DINODE_MAGIC	0x494eU		/* IN */
#define XFSJ_LOG_MAGIC		0xfeedbabeU

/* sb_qflags */
#define XFSJ_UQUOTA_ACCT	0x0001	/* user quota accounting */
#define XFSJ_PQUOTA_ACCT	0x0008	/* project quota accounting */
#define XFSJ_OQUOTA_ENFD	0x0010	/* group or project limits enforced */
#define XFSJ_GQUOTA_ACCT	0x0040	/* group quota accounting */

/* ---- superblock feature bits ---- */
#define XFSJ_SB_VERSION_5		0x0005
#define XFSJ_SB_VERSION_NUMBITS		0x000f
#define XFSJ_SB_VERSION_ATTRBIT		0x0010
#define XFSJ_SB_VERSION_NLINKBIT	0x0020
#define XFSJ_SB_VERSION_QUOTABIT	0x0040
#define XFSJ_SB_VERSION_ALIGNBIT	0x0080
#define XFSJ_SB_VERSION_DALIGNBIT	0x0100
#define XFSJ_SB_VERSION_LOGV2BIT	0x0400
#define XFSJ_SB_VERSION_SECTORBIT	0x0800
#define XFSJ_SB_VERSION_EXTFLGBIT	0x1000
#define XFSJ_SB_VERSION_DIRV2BIT	0x2000
#define XFSJ_SB_VERSION_BORGBIT		0x4000
#define XFSJ_SB_VERSION_MOREBITSBIT	0x8000

#define XFSJ_SB_VERSION2_LAZYSBCOUNT	0x0002
#define XFSJ_SB_VERSION2_ATTR2		0x0008
#define XFSJ_SB_VERSION2_PROJID32	0x0080
#define XFSJ_SB_VERSION2_CRC		0x0100
#define XFSJ_SB_VERSION2_FTYPE		0x0200

#define XFSJ_RO_COMPAT_FINOBT		(1U << 0)
#define XFSJ_RO_COMPAT_RMAPBT		(1U << 1)
#define XFSJ_RO_COMPAT_REFLINK		(1U << 2)
#define XFSJ_RO_COMPAT_INOBTCNT		(1U << 3)
#define XFSJ_RO_COMPAT_ALL		0xfU

#define XFSJ_INCOMPAT_FTYPE		(1U << 0)
#define XFSJ_INCOMPAT_SPINODES		(1U << 1)
#define XFSJ_INCOMPAT_META_UUID		(1U << 2)
#define XFSJ_INCOMPAT_BIGTIME		(1U << 3)
#define XFSJ_INCOMPAT_NEEDSREPAIR	(1U << 4)
#define XFSJ_INCOMPAT_NREXT64		(1U << 5)
#define XFSJ_INCOMPAT_EXCHRANGE		(1U << 6)
#define XFSJ_INCOMPAT_PARENT		(1U << 7)
#define XFSJ_INCOMPAT_METADIR		(1U << 8)

/* sb_qflags: accounting, enforcement and checked, per quota type. */
#define XFSJ_QFLAG_UQUOTA_ACCT	0x0001
#define XFSJ_QFLAG_UQUOTA_ENFD	0x0002
#define XFSJ_QFLAG_UQUOTA_CHKD	0x0004
#define XFSJ_QFLAG_PQUOTA_ACCT	0x0008
#define XFSJ_QFLAG_OQUOTA_ENFD	0x0010	/* pre-v5 only */
#define XFSJ_QFLAG_OQUOTA_CHKD	0x0020	/* pre-v5 only */
#define XFSJ_QFLAG_GQUOTA_ACCT	0x0040
#define XFSJ_QFLAG_GQUOTA_ENFD	0x0080
#define XFSJ_QFLAG_GQUOTA_CHKD	0x0100
#define XFSJ_QFLAG_PQUOTA_ENFD	0x0200
#define XFSJ_QFLAG_PQUOTA_CHKD	0x0400
/* Every flag a v5 superblock may hold. */
#define XFSJ_QFLAG_ALL		0x07cfU
#define XFSJ_INCOMPAT_ALL		0x1ffU

#define XFSJ_LOG_INCOMPAT_XATTRS	(1U << 0)

/* ---- rmap owners for non-inode metadata ---- */
#define XFSJ_RMAP_OWN_NULL	((uint64_t)-1)
#define XFSJ_RMAP_OWN_UNKNOWN	((uint64_t)-2)
#define XFSJ_RMAP_OWN_FS	((uint64_t)-3)
#define XFSJ_RMAP_OWN_LOG	((uint64_t)-4)
#define XFSJ_RMAP_OWN_AG	((uint64_t)-5)
#define XFSJ_RMAP_OWN_INOBT	((uint64_t)-6)
#define XFSJ_RMAP_OWN_INODES	((uint64_t)-7)
#define XFSJ_RMAP_OWN_REFC	((uint64_t)-8)
#define XFSJ_RMAP_OWN_COW	((uint64_t)-9)

/* ---- superblock ---- */
#define XFSJ_SB_FIELDS(F, P)						\
	F(U32, magicnum, 0)	F(U32, blocksize, 4)			\
	F(U64, dblocks, 8)	F(U64, rblocks, 16)			\
	F(U64, rextents, 24)	F(UUID, uuid, 32)			\
	F(U64, logstart, 48)	F(U64, rootino, 56)			\
	F(U64, rbmino, 64)	F(U64, rsumino, 72)			\
	F(U32, rextsize, 80)	F(U32, agblocks, 84)			\
	F(U32, agcount, 88)	F(U32, rbmblocks, 92)			\
	F(U32, logblocks, 96)	F(U16, versionnum, 100)			\
	F(U16, sectsize, 102)	F(U16, inodesize, 104)			\
	F(U16, inopblock, 106)	F(NAME12, fname, 108)			\
	F(U8, blocklog, 120)	F(U8, sectlog, 121)			\
	F(U8, inodelog, 122)	F(U8, inopblog, 123)			\
	F(U8, agblklog, 124)	F(U8, rextslog, 125)			\
	F(U8, inprogress, 126)	F(U8, imax_pct, 127)			\
	F(U64, icount, 128)	F(U64, ifree, 136)			\
	F(U64, fdblocks, 144)	F(U64, frextents, 152)			\
	F(U64, uquotino, 160)	F(U64, gquotino, 168)			\
	F(U16, qflags, 176)	F(U8, flags, 178)			\
	F(U8, shared_vn, 179)	F(U32, inoalignmt, 180)			\
	F(U32, unit, 184)	F(U32, width, 188)			\
	F(U8, dirblklog, 192)	F(U8, logsectlog, 193)			\
	F(U16, logsectsize, 194) F(U32, logsunit, 196)			\
	F(U32, features2, 200)	F(U32, bad_features2, 204)		\
	F(U32, features_compat, 208) F(U32, features_ro_compat, 212)	\
	F(U32, features_incompat, 216)					\
	F(U32, features_log_incompat, 220)				\
	F(CRC, crc, 224)	F(U32, spino_align, 228)		\
	F(U64, pquotino, 232)	F(U64, lsn, 240)			\
	F(UUID, meta_uuid, 248)	F(U64, metadirino, 264)			\
	F(U32, rgcount, 272)	F(U32, rgextents, 276)			\
	F(U8, rgblklog, 280)	P(7, pad0, 281)				\
	F(U64, rtstart, 288)	F(U64, rtreserved, 296)

XFSJ_DECLARE_STRUCTS(xfsj_sb, XFSJ_SB_FIELDS);
#define XFSJ_SB_CRC_OFF		224
#define XFSJ_SB_DISK_SIZE	304
/* Byte offset of superblock field @field (taken from the checked layout). */
#define XFSJ_SB_OFF(field)	offsetof(struct xfsj_sb_raw, field)

extern const struct xfsj_layout xfsj_sb_layout;

/* Decode the superblock at the start of @buf (at least 304 bytes). */
void xfsj_sb_decode(const void *buf, struct xfsj_sb *sb);
/* Zero @sectsize bytes, encode, and stamp the CRC. */
void xfsj_sb_encode(const struct xfsj_sb *sb, void *buf, size_t sectsize);
/* The fewest blocks an AG may have (the kernel's XFS_MIN_AG_BLOCKS). */
#define XFSJ_MIN_AG_BLOCKS	64
/*
 * Can the AGs, and so the secondary superblocks, be located from @sb: a
 * block size that is a power of two from 512 bytes to 64 KiB and that
 * blocklog agrees with, at least XFSJ_MIN_AG_BLOCKS blocks an AG, and a
 * nonzero AG count?  (What to trust of a superblock before reading
 * anything its geometry places.)
 */
bool xfsj_sb_can_locate(const struct xfsj_sb *sb);
/*
 * Check a superblock sector as the kernel's mount-time checks do: CRC,
 * magic, v5 feature bits, geometry consistency.  @daddr is the sector's
 * device address in bytes, used only in the fault report.
 */
int xfsj_sb_verify(const void *buf, size_t len, uint64_t byte_off,
		   struct xfsj_fault *f);

/* ---- AGF ---- */
#define XFSJ_AGF_FIELDS(F, P)						\
	F(U32, magicnum, 0)	F(U32, versionnum, 4)			\
	F(U32, seqno, 8)	F(U32, length, 12)			\
	F(U32, bno_root, 16)	F(U32, cnt_root, 20)			\
	F(U32, rmap_root, 24)	F(U32, bno_level, 28)			\
	F(U32, cnt_level, 32)	F(U32, rmap_level, 36)			\
	F(U32, flfirst, 40)	F(U32, fllast, 44)			\
	F(U32, flcount, 48)	F(U32, freeblks, 52)			\
	F(U32, longest, 56)	F(U32, btreeblks, 60)			\
	F(UUID, uuid, 64)	F(U32, rmap_blocks, 80)			\
	F(U32, refcount_blocks, 84) F(U32, refcount_root, 88)		\
	F(U32, refcount_level, 92) P(112, spare64, 96)			\
	F(U64, lsn, 208)	F(CRC, crc, 216)			\
	F(U32, spare2, 220)

XFSJ_DECLARE_STRUCTS(xfsj_agf, XFSJ_AGF_FIELDS);
#define XFSJ_AGF_CRC_OFF	216
#define XFSJ_AGF_DISK_SIZE	224
#define XFSJ_AGF_OFF(field)	offsetof(struct xfsj_agf_raw, field)
extern const struct xfsj_layout xfsj_agf_layout;

/* ---- AGI ---- */
#define XFSJ_AGI_UNLINKED_BUCKETS 64
#define XFSJ_AGI_FIELDS(F, P)						\
	F(U32, magicnum, 0)	F(U32, versionnum, 4)			\
	F(U32, seqno, 8)	F(U32, length, 12)			\
	F(U32, count, 16)	F(U32, root, 20)			\
	F(U32, level, 24)	F(U32, freecount, 28)			\
	F(U32, newino, 32)	F(U32, dirino, 36)			\
	F(U32A64, unlinked, 40)	F(UUID, uuid, 296)			\
	F(CRC, crc, 312)	F(U32, pad32, 316)			\
	F(U64, lsn, 320)	F(U32, free_root, 328)			\
	F(U32, free_level, 332)	F(U32, iblocks, 336)			\
	F(U32, fblocks, 340)

XFSJ_DECLARE_STRUCTS(xfsj_agi, XFSJ_AGI_FIELDS);
#define XFSJ_AGI_CRC_OFF	312
#define XFSJ_AGI_DISK_SIZE	344
#define XFSJ_AGI_OFF(field)	offsetof(struct xfsj_agi_raw, field)
extern const struct xfsj_layout xfsj_agi_layout;

/* ---- AGFL header; the block-number array follows at byte 36 ---- */
#define XFSJ_AGFL_FIELDS(F, P)						\
	F(U32, magicnum, 0)	F(U32, seqno, 4)			\
	F(UUID, uuid, 8)	F(U64, lsn, 24)				\
	F(CRC, crc, 32)

XFSJ_DECLARE_STRUCTS(xfsj_agfl_hdr, XFSJ_AGFL_FIELDS);
#define XFSJ_AGFL_CRC_OFF	32
#define XFSJ_AGFL_HDR_SIZE	36
extern const struct xfsj_layout xfsj_agfl_layout;

/* Slots in the AGFL of a sector of @sectsize bytes. */
static inline unsigned int xfsj_agfl_size(unsigned int sectsize)
{
	return (sectsize - XFSJ_AGFL_HDR_SIZE) / 4;
}

/*
 * Blocks of 2^@blocklog bytes that an AG's four header sectors (the
 * superblock, AGF, AGI and AGFL) take: the first block past them is the
 * first a btree, a file or the free space may hold.
 */
static inline uint32_t xfsj_ag_hdr_blocks(unsigned int sectsize,
					  unsigned int blocklog)
{
	return ((4U * sectsize - 1) >> blocklog) + 1;
}

/* ---- short-format (AG) btree block header ---- */
#define XFSJ_SBLOCK_FIELDS(F, P)					\
	F(U32, magic, 0)	F(U16, level, 4)			\
	F(U16, numrecs, 6)	F(U32, leftsib, 8)			\
	F(U32, rightsib, 12)	F(U64, blkno, 16)			\
	F(U64, lsn, 24)		F(UUID, uuid, 32)			\
	F(U32, owner, 48)	F(CRC, crc, 52)

XFSJ_DECLARE_STRUCTS(xfsj_sblock, XFSJ_SBLOCK_FIELDS);
#define XFSJ_SBLOCK_CRC_OFF	52
#define XFSJ_SBLOCK_HDR_SIZE	56
extern const struct xfsj_layout xfsj_sblock_layout;

/* ---- long-format (inode bmap) btree block header ---- */
#define XFSJ_LBLOCK_FIELDS(F, P)					\
	F(U32, magic, 0)	F(U16, level, 4)			\
	F(U16, numrecs, 6)	F(U64, leftsib, 8)			\
	F(U64, rightsib, 16)	F(U64, blkno, 24)			\
	F(U64, lsn, 32)		F(UUID, uuid, 40)			\
	F(U64, owner, 56)	F(CRC, crc, 64)				\
	F(U32, pad, 68)

XFSJ_DECLARE_STRUCTS(xfsj_lblock, XFSJ_LBLOCK_FIELDS);
#define XFSJ_LBLOCK_CRC_OFF	64
#define XFSJ_LBLOCK_HDR_SIZE	72
#define XFSJ_LB_OFF(field)	offsetof(struct xfsj_lblock_raw, field)
extern const struct xfsj_layout xfsj_lblock_layout;

/*
 * ---- remote block header: remote attribute values (XARM) and remote
 * symlink targets (XSLM) share it ----
 */
#define XFSJ_RMT_FIELDS(F, P)						\
	F(U32, magic, 0)	F(U32, offset, 4)			\
	F(U32, bytes, 8)	F(CRC, crc, 12)				\
	F(UUID, uuid, 16)	F(U64, owner, 32)			\
	F(U64, blkno, 40)	F(U64, lsn, 48)

XFSJ_DECLARE_STRUCTS(xfsj_rmt_hdr, XFSJ_RMT_FIELDS);
#define XFSJ_RMT_HDR_SIZE	56
#define XFSJ_RMT_OFF(field)	offsetof(struct xfsj_rmt_hdr_raw, field)
#define XFSJ_ATTR_RMT_MAGIC	0x5841524dU	/* XARM */
/* A remote value's offset + bytes stays below this (values <= 64 KiB). */
#define XFSJ_ATTR_RMT_LIMIT	(65536U + 1)
extern const struct xfsj_layout xfsj_rmt_hdr_layout;

void xfsj_rmt_hdr_decode(const void *buf, struct xfsj_rmt_hdr *h);
/* Encode the header at the start of @buf (the CRC is left to the caller). */
void xfsj_rmt_hdr_encode(const struct xfsj_rmt_hdr *h, void *buf);
/*
 * The checks every remote block passes on its own (@len bytes at device
 * address @daddr, in 512-byte units): CRC, @magic, @uuid, blkno, bytes
 * inside the block, and offset + bytes below @limit.  Faults name
 * @structure.
 */
int xfsj_rmt_hdr_verify(const void *buf, size_t len, uint32_t magic,
			const uint8_t *uuid, uint64_t daddr, uint32_t limit,
			const char *structure, struct xfsj_fault *f);

/* ---- the on-disk dquot (big-endian), in quota files and the log ---- */
#define XFSJ_DQBLK_FIELDS(F, P)						\
	F(U16, magic, 0)	F(U8, version, 2)			\
	F(U8, type, 3)		F(U32, id, 4)				\
	F(U64, blk_hardlimit, 8) F(U64, blk_softlimit, 16)		\
	F(U64, ino_hardlimit, 24) F(U64, ino_softlimit, 32)		\
	F(U64, bcount, 40)	F(U64, icount, 48)			\
	F(U32, itimer, 56)	F(U32, btimer, 60)			\
	F(U16, iwarns, 64)	F(U16, bwarns, 66)			\
	F(U32, bigtime_pad, 68)						\
	F(U64, rtb_hardlimit, 72) F(U64, rtb_softlimit, 80)		\
	F(U64, rtbcount, 88)	F(U32, rtbtimer, 96)			\
	F(U16, rtbwarns, 100)	P(2, pad, 102)
XFSJ_DECLARE_STRUCTS(xfsj_dqblk, XFSJ_DQBLK_FIELDS);
#define XFSJ_DQ_OFF(field)	offsetof(struct xfsj_dqblk_raw, field)
#define XFSJ_DQBLK_CORE_SIZE	104	/* before the v5 CRC, LSN and uuid */

/* ---- v3 inode core ---- */
#define XFSJ_DINODE_FIELDS(F, P)					\
	F(U16, magic, 0)	F(U16, mode, 2)				\
	F(U8, version, 4)	F(U8, format, 5)			\
	F(U16, onlink, 6)	F(U32, uid, 8)				\
	F(U32, gid, 12)		F(U32, nlink, 16)			\
	F(U16, projid_lo, 20)	F(U16, projid_hi, 22)			\
	F(U64, big_nextents, 24)					\
	F(U64, atime, 32)	F(U64, mtime, 40)			\
	F(U64, ctime, 48)	F(U64, size, 56)			\
	F(U64, nblocks, 64)	F(U32, extsize, 72)			\
	F(U32, nextents, 76)	F(U16, anextents, 80)			\
	F(U8, forkoff, 82)	F(U8, aformat, 83)			\
	F(U32, dmevmask, 84)	F(U16, dmstate, 88)			\
	F(U16, flags, 90)	F(U32, gen, 92)				\
	F(U32, next_unlinked, 96) F(CRC, crc, 100)			\
	F(U64, changecount, 104) F(U64, lsn, 112)			\
	F(U64, flags2, 120)	F(U32, cowextsize, 128)			\
	P(12, pad2, 132)	F(U64, crtime, 144)			\
	F(U64, ino, 152)	F(UUID, uuid, 160)

XFSJ_DECLARE_STRUCTS(xfsj_dinode, XFSJ_DINODE_FIELDS);
#define XFSJ_DINODE_CRC_OFF	100
#define XFSJ_DINODE_CORE_SIZE	176
#define XFSJ_DI_OFF(field)	offsetof(struct xfsj_dinode_raw, field)
extern const struct xfsj_layout xfsj_dinode_layout;

/* di_format / di_aformat */
enum {
	XFSJ_DINODE_FMT_DEV = 0,
	XFSJ_DINODE_FMT_LOCAL = 1,
	XFSJ_DINODE_FMT_EXTENTS = 2,
	XFSJ_DINODE_FMT_BTREE = 3,
	XFSJ_DINODE_FMT_UUID = 4,
	XFSJ_DINODE_FMT_META_BTREE = 5,
};

#define XFSJ_DIFLAG_REALTIME	0x0001	/* data on the realtime device */
#define XFSJ_DIFLAG_NEWRTBM	0x0004
#define XFSJ_DIFLAG_EXTSZINHERIT 0x1000	/* new files take di_extsize */
#define XFSJ_DIFLAG2_DAX	0x0001ULL	/* DAX; inherited by new files */
#define XFSJ_DIFLAG2_REFLINK	0x0002ULL
#define XFSJ_DIFLAG2_COWEXTSIZE	0x0004ULL
#define XFSJ_DIFLAG2_BIGTIME	0x0008ULL
#define XFSJ_DIFLAG2_NREXT64	0x0010ULL

/* Attribute namespace bits, as stored in short-form and leaf entries. */
#define XFSJ_ATTR_NS_ROOT	0x02
#define XFSJ_ATTR_NS_SECURE	0x04
#define XFSJ_ATTR_NS_PARENT	0x08
#define XFSJ_ATTR_NS_MASK	(XFSJ_ATTR_NS_ROOT | XFSJ_ATTR_NS_SECURE | \
				 XFSJ_ATTR_NS_PARENT)
#define XFSJ_ATTR_PPTR_VALUE_LEN 12U	/* be64 parent ino, be32 parent gen */

/* Bigtime encoding: nanoseconds since 1901-12-13T20:45:52Z. */
#define XFSJ_BIGTIME_EPOCH_OFFSET	(-(int64_t)INT32_MIN)
#define XFSJ_BIGTIME_MAX		16299260424LL	/* Unix seconds */
uint64_t xfsj_time_encode(int64_t sec, uint32_t nsec, bool bigtime);

/* ---- log record header (first sector of every log record) ---- */
#define XFSJ_LOGREC_FIELDS(F, P)					\
	F(U32, magicno, 0)	F(U32, cycle, 4)			\
	F(U32, version, 8)	F(U32, len, 12)				\
	F(U64, lsn, 16)		F(U64, tail_lsn, 24)			\
	F(CRC, crc, 32)		F(U32, prev_block, 36)			\
	F(U32, num_logops, 40)	F(U32A64, cycle_data, 44)		\
	F(U32, fmt, 300)	F(UUID, fs_uuid, 304)			\
	F(U32, size, 320)

XFSJ_DECLARE_STRUCTS(xfsj_logrec, XFSJ_LOGREC_FIELDS);
#define XFSJ_LOGREC_CRC_OFF	32
#define XFSJ_LOGREC_HDR_SIZE	324
#define XFSJ_LOG_CYCLE_DATA	64	/* BBs whose first word fits in one header */
#define XFSJ_LOG_HEADER_CYCLE_SIZE (32 * 1024)
extern const struct xfsj_layout xfsj_logrec_layout;

static inline uint64_t xfsj_lsn(uint32_t cycle, uint32_t block)
{
	return (uint64_t)cycle << 32 | block;
}

#endif
