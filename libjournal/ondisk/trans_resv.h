/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Transaction log reservations and the minimum log size of an XFS v5
 * filesystem, computed from its geometry alone.
 *
 * The kernel refuses to mount a filesystem whose log cannot hold two of its
 * largest transactions, and mkfs.xfs refuses to create one.  Both derive
 * that limit from the table of per-transaction reservations, which in turn
 * depends on block/sector/inode/directory sizes, the maximum heights the
 * per-AG btrees can reach, and the feature set.  This module reproduces the
 * figures of Linux/xfsprogs 6.13 and later for filesystems without a
 * realtime section, including the historical quirks that only apply to the
 * minimum log size (see xfsj_trans_resv_for_minlog()).
 *
 * Oracle: `xfs_db -r -c logres IMAGE` prints every reservation as
 * "type N logres R logcount C" in enum xfsj_resv_type order, followed by
 * the "minlogsize logres R logcount C" pair of xfsj_log_max_resv().
 */
#ifndef XFSJ_TRANS_RESV_H
#define XFSJ_TRANS_RESV_H

#include <stdbool.h>
#include <stdint.h>

/* Everything the reservations depend on (superblock values). */
struct xfsj_resv_geom {
	uint32_t blocksize;	/* bytes, power of two, 512..65536 */
	uint32_t sectsize;	/* data sector size in bytes (sb_sectsize) */
	uint32_t inodesize;	/* bytes, power of two, 256..blocksize */
	uint32_t dirblocksize;	/* directory block size in bytes (-n size) */
	uint32_t agblocks;	/* blocks per AG (sb_agblocks) */
	uint32_t agcount;	/* not used by the formulas; kept for callers */
	uint64_t dblocks;	/* not used by the formulas; kept for callers */
	/*
	 * Log stripe unit in bytes exactly as stored in sb_logsunit: 0 or 1
	 * means none.  mkfs.xfs stores one filesystem block here when the
	 * log sector size is larger than 512 bytes, which raises the minimum.
	 */
	uint32_t logsunit;
	bool finobt, rmapbt, reflink, sparse_inodes, nrext64, parent, exchange;
	bool bigtime, inobtcount;
	/*
	 * Not used: the kernel always reserves room for dquot updates,
	 * whether or not quotas are enabled.  Kept so callers can say it.
	 */
	bool quota;
};

/* One reservation: bytes per ticket and how many times it may roll. */
struct xfsj_resv {
	uint32_t logres;
	uint32_t logcount;
};

/*
 * The reservation kinds, in the order of the kernel's struct
 * xfs_trans_resv (= xfs_db's "type N" numbering).  Transactions logged in
 * logical format (ichange, writeid, attrsetrt, clearagi, growrtzero,
 * growrtfree, fsyncts) have logcount 0, as in the kernel.  Kernels 6.16 and
 * later append an atomic-write completion entry equal to itruncate; it
 * never changes the minimum log size and is not modelled here.
 */
enum xfsj_resv_type {
	XFSJ_TR_WRITE,
	XFSJ_TR_ITRUNCATE,
	XFSJ_TR_RENAME,
	XFSJ_TR_LINK,
	XFSJ_TR_REMOVE,
	XFSJ_TR_SYMLINK,
	XFSJ_TR_CREATE,
	XFSJ_TR_CREATE_TMPFILE,
	XFSJ_TR_MKDIR,
	XFSJ_TR_IFREE,
	XFSJ_TR_ICHANGE,
	XFSJ_TR_GROWDATA,
	XFSJ_TR_ADDAFORK,
	XFSJ_TR_WRITEID,
	XFSJ_TR_ATTRINVAL,
	XFSJ_TR_ATTRSETM,
	XFSJ_TR_ATTRSETRT,
	XFSJ_TR_ATTRRM,
	XFSJ_TR_CLEARAGI,
	XFSJ_TR_GROWRTALLOC,
	XFSJ_TR_GROWRTZERO,
	XFSJ_TR_GROWRTFREE,
	XFSJ_TR_QM_SETQLIM,
	XFSJ_TR_QM_DQALLOC,
	XFSJ_TR_SB,
	XFSJ_TR_FSYNCTS,
	XFSJ_TR_NR
};

struct xfsj_trans_resv {
	struct xfsj_resv r[XFSJ_TR_NR];	/* indexed by enum xfsj_resv_type */
};

/* Short lower-case name of a reservation kind ("write", ...), or "?". */
const char *xfsj_resv_name(unsigned int type);

/* Checks the ranges the formulas need (sizes, powers of two, agblocks). */
bool xfsj_resv_geom_valid(const struct xfsj_resv_geom *g);

/*
 * The reservations a mounted filesystem uses (xfs_trans_resv_calc).
 * Returns 0, or -XFSJ_E_INVAL (and a zeroed table) for a bad geometry.
 */
int xfsj_trans_resv_compute(const struct xfsj_resv_geom *g,
			    struct xfsj_trans_resv *out);

/*
 * The variant used only to size the log.  Without the PARENT feature it
 * keeps the over-estimates of 2023-era code so that logs made today still
 * mount on old kernels: rmap height 9 with rmapbt+reflink, inflated
 * logcounts for write/itruncate/qm_dqalloc, and those three recomputed with
 * refcount splits folded in.  With PARENT it equals the mounted table.
 */
int xfsj_trans_resv_for_minlog(const struct xfsj_resv_geom *g,
			       struct xfsj_trans_resv *out);

/*
 * The reservation that sizes the log (xfs_log_get_max_trans_res): the
 * minlog entry with the largest logres x logcount, replaced by the
 * "largest local xattr set" figure when that figure's logres alone is
 * larger.  This is xfs_db's "minlogsize" line.  {0, 0} for a bad geometry.
 */
struct xfsj_resv xfsj_log_max_resv(const struct xfsj_resv_geom *g);

/*
 * Minimum internal log size in filesystem blocks, as mkfs.xfs computes it
 * (xfs_log_calc_minimum_size with 256 KiB iclogs and 4096-byte record
 * headers, log stripe unit padding, room for 3 maximal transactions).
 * The caller still applies mkfs's own floors: at least 512 blocks
 * (XFS_MIN_LOG_BLOCKS), and 10 MiB when no size was given and the
 * filesystem is at least 1 GiB.  0 for a bad geometry.
 */
uint32_t xfsj_log_min_blocks(const struct xfsj_resv_geom *g);

/*
 * Maximum btree heights (worst case: every block only half full).
 * 0 for nonsensical arguments.
 */
/* bnobt/cntbt: (agblocks + 1) / 2 free extents at most. */
unsigned int xfsj_alloc_maxlevels(uint32_t blocksize, uint32_t agblocks);
/* rmapbt: with reflink, the height at which the tree would fill the AG. */
unsigned int xfsj_rmap_maxlevels(uint32_t blocksize, uint32_t agblocks,
				 bool reflink);
/* refcountbt: one record per AG block. */
unsigned int xfsj_refcount_maxlevels(uint32_t blocksize, uint32_t agblocks);
/* inobt/finobt: one record per possible inode chunk in the AG. */
unsigned int xfsj_inobt_maxlevels(uint32_t blocksize, uint32_t inodesize,
				  uint32_t agblocks);
/* bmbt of a data (attr_fork false) or attribute fork. */
unsigned int xfsj_bmbt_maxlevels(uint32_t blocksize, bool attr_fork,
				 bool nrext64);

#endif
