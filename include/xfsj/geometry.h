/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The geometry policy of a new filesystem: from what the user asked for and
 * what the device reports to every number the superblock and AG headers
 * need.  It follows mkfs.xfs so that `xfsj-mkfs -N` and `mkfs.xfs -N` agree:
 * AG count and size (calc_default_ag_geometry), stripe alignment, the 2022
 * log size rule (2048:1, 64 MiB floor, capped by the AG and the log limits,
 * the absolute minimum for tiny filesystems), log placement, inode alignment
 * and the root inode number.
 */
#ifndef XFSJ_GEOMETRY_H
#define XFSJ_GEOMETRY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct xfsj_features {
	bool finobt, sparse, rmapbt, reflink, bigtime, inobtcount;
	bool nrext64, exchange, parent, ftype;
};

/* The defaults of current upstream mkfs.xfs (6.19). */
void xfsj_features_default(struct xfsj_features *f);

/* What the user asked for.  Zero means "not given, use the default". */
struct xfsj_mkfs_req {
	uint32_t blocksize;
	uint32_t sectsize;
	uint32_t inodesize;
	uint32_t dirblocksize;
	uint64_t dsize;		/* bytes; 0 = the whole device */
	uint32_t agcount;
	uint64_t agsize;	/* bytes */
	bool dsu_set;		/* su/sw given (in bytes / a count) */
	uint64_t dsu;
	uint32_t dsw;
	bool dsunit_set;	/* sunit/swidth given (512-byte units) */
	uint32_t dsunit, dswidth;
	bool imaxpct_set;
	uint32_t imaxpct;
	uint64_t logsize;	/* bytes; 0 = the policy decides */
	bool lsu_set;
	uint64_t lsu;		/* bytes */
	bool lsunit_set;
	uint32_t lsunit;	/* 512-byte units */
	int64_t logagno;	/* -1 = the middle AG */
	bool small;		/* allow < 300 MiB, logs < 64 MiB, 1 AG */
	bool logdev;		/* the log on an external device */
	uint64_t rextsize;	/* -r extsize=, bytes; 0 = the default */
	bool root_attr;		/* the root gets an extended attribute */
	struct xfsj_features feat;
};

void xfsj_mkfs_req_init(struct xfsj_mkfs_req *r);

/* What the device says about itself (libblkid topology, ioctls). */
struct xfsj_topology {
	uint64_t size;		/* bytes */
	uint32_t lsectsize, psectsize;
	uint32_t sunit, swidth;	/* bytes, 0 = unknown */
	bool is_file;
	/* The external log device (xfsj_mkfs_req.logdev). */
	uint64_t logdev_size;	/* bytes */
	uint32_t logdev_lsectsize;
};

struct xfsj_geometry {
	uint32_t blocksize, sectsize, inodesize, dirblocksize;
	uint8_t blocklog, sectlog, inodelog, inopblog, dirblklog, agblklog;
	uint32_t inopblock;
	uint64_t dblocks;
	uint32_t agblocks, agcount;
	uint32_t dsunit, dswidth;	/* FS blocks */
	uint32_t imaxpct;
	/* log */
	uint32_t logblocks, min_logblocks;
	uint32_t logagno;
	uint64_t logstart;		/* sparse fsbno */
	uint32_t lsunit;		/* FS blocks, 0 = none */
	uint32_t logsectsize;
	bool logexternal;		/* logstart 0: the log device's start */
	/* AG layout */
	uint32_t prealloc_blocks;	/* headers + btree roots */
	uint32_t min_freelist;		/* blocks put on each AGFL */
	uint32_t inoalignmt, spino_align;
	uint32_t chunk_blocks;		/* blocks of the root inode chunk */
	uint32_t chunk_inodes;		/* inodes it holds (64 or inopblock) */
	uint32_t chunk_align;		/* where the chunk may start (agbno) */
	uint64_t rootino;
	uint32_t rextsize;
	struct xfsj_features feat;
	/* superblock feature words */
	uint16_t versionnum;
	uint32_t features2, ro_compat, incompat;
	/* warnings mkfs.xfs prints but goes on (may be empty) */
	char warning[256];
};

/*
 * Compute the whole geometry.  On failure returns a negative XFSJ_E_* and
 * leaves a one-line explanation (no trailing newline) in @msg.
 */
int xfsj_geometry_compute(const struct xfsj_mkfs_req *r,
			  const struct xfsj_topology *t,
			  struct xfsj_geometry *g, char *msg, size_t msglen);

/* Blocks in AG @agno (the last one may be short). */
uint32_t xfsj_geom_ag_blocks(const struct xfsj_geometry *g, uint32_t agno);

#define XFSJ_MIN_FS_BYTES	(300ULL << 20)
#define XFSJ_MIN_REALISTIC_LOG	(64ULL << 20)
#define XFSJ_MAX_LOG_BLOCKS	(1024U * 1024U)
#define XFSJ_MAX_LOG_BYTES	((2ULL << 30) - (10ULL << 20))
#define XFSJ_MIN_LOG_BLOCKS	512U
#define XFSJ_MIN_LOG_BYTES	(10ULL << 20)
#define XFSJ_AG_MIN_BYTES	(16ULL << 20)
#define XFSJ_AG_MAX_BYTES	(1ULL << 40)

#endif
