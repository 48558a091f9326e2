/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Geometry policy for new filesystems.  Every rule here exists so that our
 * numbers equal mkfs.xfs's for the same request; where mkfs.xfs refuses, we
 * refuse with the same reason.  The order of the steps matters: stripe
 * factors feed the AG size, the AG size feeds the log limits, and the log
 * (when it lives in AG 0) moves the root inode.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "xfsj/errors.h"
#include "ondisk/format.h"
#include "xfsj/geometry.h"
#include "ondisk/trans_resv.h"

void xfsj_features_default(struct xfsj_features *f)
{
	*f = (struct xfsj_features){
		.finobt = true, .sparse = true, .rmapbt = true,
		.reflink = true, .bigtime = true, .inobtcount = true,
		.nrext64 = true, .exchange = true, .parent = true,
		.ftype = true,
	};
}

void xfsj_mkfs_req_init(struct xfsj_mkfs_req *r)
{
	memset(r, 0, sizeof(*r));
	r->logagno = -1;
	xfsj_features_default(&r->feat);
}

static int fail(char *msg, size_t len, int err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int fail(char *msg, size_t len, int err, const char *fmt, ...)
{
	va_list ap;

	if (msg && len) {
		va_start(ap, fmt);
		vsnprintf(msg, len, fmt, ap);
		va_end(ap);
	}
	return -err;
}

static bool is_pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

static uint8_t ilog2(uint64_t v)
{
	uint8_t l = 0;

	while (v > 1) {
		v >>= 1;
		l++;
	}
	return l;
}

static uint8_t log2_roundup(uint64_t v)
{
	uint8_t l = 0;

	while ((1ULL << l) < v)
		l++;
	return l;
}

static uint64_t roundup_u64(uint64_t v, uint64_t m)
{
	return (v + m - 1) / m * m;
}

#define AG_MIN_BLOCKS(g)	(XFSJ_AG_MIN_BYTES >> (g)->blocklog)
#define AG_MAX_BLOCKS(g)	((XFSJ_AG_MAX_BYTES - 1) >> (g)->blocklog)

uint32_t xfsj_geom_ag_blocks(const struct xfsj_geometry *g, uint32_t agno)
{
	if (agno + 1 < g->agcount)
		return g->agblocks;
	return (uint32_t)(g->dblocks - (uint64_t)(g->agcount - 1) * g->agblocks);
}

static void warn(struct xfsj_geometry *g, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void warn(struct xfsj_geometry *g, const char *fmt, ...)
{
	size_t used = strlen(g->warning);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(g->warning + used, sizeof(g->warning) - used, fmt, ap);
	va_end(ap);
}

/* Sizes and features: everything that does not depend on the device. */
static int set_sizes(const struct xfsj_mkfs_req *r,
		     const struct xfsj_topology *t, struct xfsj_geometry *g,
		     char *msg, size_t len)
{
	g->feat = r->feat;
	g->blocksize = r->blocksize ? r->blocksize : 4096;
	if (!is_pow2(g->blocksize) || g->blocksize < 1024 ||
	    g->blocksize > 65536)
		return fail(msg, len, XFSJ_E_RANGE,
			    "illegal block size %u (must be a power of 2 from 1024 to 65536)",
			    g->blocksize);
	g->blocklog = ilog2(g->blocksize);

	if (r->sectsize) {
		g->sectsize = r->sectsize;
	} else {
		/* Prefer the physical sector, as long as a block holds it. */
		g->sectsize = t->psectsize && t->psectsize <= g->blocksize ?
			      t->psectsize : t->lsectsize;
		if (!g->sectsize)
			g->sectsize = 512;
	}
	if (!is_pow2(g->sectsize) || g->sectsize < 512 ||
	    g->sectsize > 32768)
		return fail(msg, len, XFSJ_E_RANGE,
			    "illegal sector size %u", g->sectsize);
	if (g->sectsize > g->blocksize)
		return fail(msg, len, XFSJ_E_RANGE,
			    "illegal sector size %u; must be no larger than the block size %u",
			    g->sectsize, g->blocksize);
	if (t->lsectsize > g->sectsize)
		return fail(msg, len, XFSJ_E_RANGE,
			    "specified sector size %u is smaller than the device's logical sector size %u",
			    g->sectsize, t->lsectsize);
	g->sectlog = ilog2(g->sectsize);
	g->logsectsize = g->sectsize;

	g->inodesize = r->inodesize ? r->inodesize : 512;
	if (!is_pow2(g->inodesize) || g->inodesize < 512 ||
	    g->inodesize > 2048)
		return fail(msg, len, XFSJ_E_RANGE,
			    "illegal inode size %u (must be 512, 1024 or 2048 with crc=1)",
			    g->inodesize);
	if (g->inodesize > g->blocksize)
		return fail(msg, len, XFSJ_E_RANGE,
			    "inode size %u cannot be larger than the block size %u",
			    g->inodesize, g->blocksize);
	g->inodelog = ilog2(g->inodesize);
	g->inopblock = g->blocksize / g->inodesize;
	g->inopblog = g->blocklog - g->inodelog;

	g->dirblocksize = r->dirblocksize ? r->dirblocksize :
			  (g->blocksize > 4096 ? g->blocksize : 4096);
	if (!is_pow2(g->dirblocksize) || g->dirblocksize < g->blocksize ||
	    g->dirblocksize > 65536)
		return fail(msg, len, XFSJ_E_RANGE,
			    "illegal directory block size %u (power of 2 from the block size to 65536)",
			    g->dirblocksize);
	g->dirblklog = ilog2(g->dirblocksize) - g->blocklog;

	if (g->feat.inobtcount && !g->feat.finobt)
		return fail(msg, len, XFSJ_E_CONFLICT,
			    "inobtcount not supported without finobt support");
	if (!g->feat.ftype)
		return fail(msg, len, XFSJ_E_CONFLICT,
			    "cannot disable ftype with crcs enabled");
	g->rextsize = g->blocksize >= 4096 ? 1 : 4096 / g->blocksize;
	if (r->rextsize) {
		/* With no realtime device it is only recorded, as mkfs.xfs. */
		if (r->rextsize % g->blocksize || r->rextsize < 4096 ||
		    r->rextsize > (1ULL << 30))
			return fail(msg, len, XFSJ_E_RANGE,
				    "illegal realtime extent size %llu (a multiple of the block size, 4 KiB to 1 GiB)",
				    (unsigned long long)r->rextsize);
		g->rextsize = (uint32_t)(r->rextsize / g->blocksize);
	}
	return 0;
}

static int set_dblocks(const struct xfsj_mkfs_req *r,
		       const struct xfsj_topology *t, struct xfsj_geometry *g,
		       char *msg, size_t len)
{
	if (r->dsize) {
		g->dblocks = r->dsize >> g->blocklog;
		if (!t->is_file && g->dblocks > (t->size >> g->blocklog))
			return fail(msg, len, XFSJ_E_TOOSMALL,
				    "size %llu specified for data subvolume is too large, maximum is %llu blocks",
				    (unsigned long long)r->dsize,
				    (unsigned long long)(t->size >> g->blocklog));
		if (r->dsize & (g->blocksize - 1))
			warn(g, "Warning: data length %llu not a multiple of %u, truncated to %llu\n",
			     (unsigned long long)r->dsize, g->blocksize,
			     (unsigned long long)(g->dblocks << g->blocklog));
	} else {
		g->dblocks = t->size >> g->blocklog;
	}
	if (g->dblocks == 0)
		return fail(msg, len, XFSJ_E_TOOSMALL,
			    "no size given and the device has none");
	return 0;
}

/* su/sw, sunit/swidth or the device's hints, then the log stripe unit. */
static int set_stripes(const struct xfsj_mkfs_req *r,
		       const struct xfsj_topology *t, struct xfsj_geometry *g,
		       char *msg, size_t len)
{
	uint64_t dsunit_bb = 0, dswidth_bb = 0;	/* 512-byte units */
	uint64_t lsunit_bb = 0;
	bool from_dev = false, noalign = false;

	if (r->dsu_set) {
		uint64_t width = r->dsu * r->dsw;

		if (r->dsu % g->sectsize)
			return fail(msg, len, XFSJ_E_RANGE,
				    "stripe unit (%llu) must be a multiple of the sector size (%u)",
				    (unsigned long long)r->dsu, g->sectsize);
		if ((width >> 9) > INT32_MAX)
			return fail(msg, len, XFSJ_E_RANGE,
				    "data stripe width (%llu) is too large of a multiple of the data stripe unit (%llu)",
				    (unsigned long long)width,
				    (unsigned long long)r->dsu);
		if ((r->dsu && !r->dsw) || (!r->dsu && r->dsw))
			return fail(msg, len, XFSJ_E_RANGE,
				    "data stripe unit and width must both be zero or both non-zero");
		dsunit_bb = r->dsu >> 9;
		dswidth_bb = width >> 9;
		noalign = !r->dsu;
	} else if (r->dsunit_set) {
		if ((r->dsunit && !r->dswidth) || (!r->dsunit && r->dswidth))
			return fail(msg, len, XFSJ_E_RANGE,
				    "data stripe unit and width must both be zero or both non-zero");
		if (r->dsunit && r->dswidth % r->dsunit)
			return fail(msg, len, XFSJ_E_RANGE,
				    "stripe width (%u) must be a multiple of the stripe unit (%u)",
				    r->dswidth, r->dsunit);
		if (((uint64_t)r->dsunit << 9) % g->sectsize)
			return fail(msg, len, XFSJ_E_RANGE,
				    "stripe unit (%u) must be a multiple of the sector size (%u)",
				    r->dsunit << 9, g->sectsize);
		dsunit_bb = r->dsunit;
		dswidth_bb = r->dswidth;
		noalign = !r->dsunit;
	} else if (t->sunit && t->swidth && t->swidth % t->sunit == 0) {
		/*
		 * Device hints are only worth it on larger volumes: below
		 * 1 GiB the alignment could leave too small a log.
		 */
		if (g->dblocks >= ((1ULL << 30) >> g->blocklog)) {
			dsunit_bb = t->sunit >> 9;
			dswidth_bb = t->swidth >> 9;
			from_dev = true;
		}
	}
	if (!noalign && ((dsunit_bb << 9) % g->blocksize ||
			 (dswidth_bb << 9) % g->blocksize)) {
		if (!from_dev)
			return fail(msg, len, XFSJ_E_RANGE,
				    "Stripe unit(%llu) or stripe width(%llu) is not a multiple of the block size(%u)",
				    (unsigned long long)(dsunit_bb << 9),
				    (unsigned long long)(dswidth_bb << 9),
				    g->blocksize);
		dsunit_bb = dswidth_bb = 0;
	}
	g->dsunit = (uint32_t)((dsunit_bb << 9) >> g->blocklog);
	g->dswidth = (uint32_t)((dswidth_bb << 9) >> g->blocklog);

	if (r->lsunit_set) {
		lsunit_bb = r->lsunit;
	} else if (r->lsu_set) {
		if (r->lsu % g->blocksize)
			return fail(msg, len, XFSJ_E_RANGE,
				    "log stripe unit (%llu) must be a multiple of the block size (%u)",
				    (unsigned long long)r->lsu, g->blocksize);
		lsunit_bb = r->lsu >> 9;
	} else if (g->logsectsize > 512) {
		lsunit_bb = g->blocksize >> 9;
	}
	if ((lsunit_bb << 9) % g->blocksize)
		return fail(msg, len, XFSJ_E_RANGE,
			    "log stripe unit (%llu) must be a multiple of the block size (%u)",
			    (unsigned long long)(lsunit_bb << 9), g->blocksize);
	if (lsunit_bb)
		g->lsunit = (uint32_t)((lsunit_bb << 9) >> g->blocklog);
	else if (g->dsunit && !r->logdev)
		g->lsunit = g->dsunit;	/* an external log has its own */
	if ((uint64_t)g->lsunit * g->blocksize > 256 * 1024) {
		if (r->lsu_set || r->lsunit_set)
			warn(g, "log stripe unit (%llu bytes) is too large (maximum is 256KiB)\n"
			     "log stripe unit adjusted to 32KiB\n",
			     (unsigned long long)g->lsunit * g->blocksize);
		/* With 64 KiB blocks this truncates to no stripe unit. */
		g->lsunit = (32 * 1024) / g->blocksize;
	}
	return 0;
}

static void default_ag_geometry(struct xfsj_geometry *g, bool multidisk,
				uint64_t *agsize, uint64_t *agcount)
{
	const uint64_t d = g->dblocks;
	const uint8_t bl = g->blocklog;
	uint64_t blocks;
	int shift;

	if (d >= (32ULL << (40 - bl)) ||
	    (!multidisk && d >= (4ULL << (40 - bl)))) {
		blocks = AG_MAX_BLOCKS(g);
		goto done;
	}
	if (!multidisk && d >= (128ULL << (20 - bl))) {
		shift = 2;	/* one disk: 4 AGs */
	} else {
		/* More AGs on striped storage, fewer as the volume shrinks. */
		shift = 5;
		shift -= d <= (512ULL << (30 - bl));
		shift -= d <= (8ULL << (30 - bl));
		shift -= d < (128ULL << (20 - bl));
		shift -= d < (64ULL << (20 - bl));
		shift -= d < (32ULL << (20 - bl));
	}
	blocks = d >> shift;
	if ((d & ((1ULL << shift) - 1)) && blocks < AG_MAX_BLOCKS(g))
		blocks++;
done:
	*agsize = blocks;
	*agcount = d / blocks + (d % blocks != 0);
}

static int set_ag_geometry(const struct xfsj_mkfs_req *r,
			   struct xfsj_geometry *g, char *msg, size_t len)
{
	uint64_t agsize, agcount;
	const uint64_t sunit = g->dsunit;

	if (r->agsize) {
		if (r->agsize % g->blocksize)
			return fail(msg, len, XFSJ_E_RANGE,
				    "agsize (%llu) not a multiple of fs blk size (%u)",
				    (unsigned long long)r->agsize, g->blocksize);
		agsize = r->agsize >> g->blocklog;
		if (!agsize)
			return fail(msg, len, XFSJ_E_RANGE, "agsize too small");
		agcount = g->dblocks / agsize + (g->dblocks % agsize != 0);
	} else if (r->agcount) {
		agcount = r->agcount;
		agsize = g->dblocks / agcount + (g->dblocks % agcount != 0);
	} else {
		default_ag_geometry(g, sunit != 0, &agsize, &agcount);
	}

	/* Stripe alignment of the AG size. */
	if (sunit && agsize % sunit) {
		uint64_t tmp = roundup_u64(agsize, sunit);

		if (tmp > AG_MAX_BLOCKS(g))
			tmp = agsize / sunit * sunit;
		agsize = tmp;
		if (!r->agcount)
			agcount = g->dblocks / agsize +
				  (g->dblocks % agsize != 0);
		if (r->agsize)
			warn(g, "agsize rounded to %llu, sunit = %llu\n",
			     (unsigned long long)agsize,
			     (unsigned long long)sunit);
	}
	if (sunit && g->dswidth && agsize % g->dswidth == 0 &&
	    g->dswidth != sunit && agcount > 1) {
		if (r->agcount || r->agsize) {
			warn(g, "Warning: AG size is a multiple of stripe width.  This can cause performance\n"
			     "problems by aligning all AGs on the same disk.  To avoid this, run mkfs with\n"
			     "an AG size that is one stripe unit smaller or larger, for example %llu.\n",
			     (unsigned long long)(agsize - sunit));
		} else {
			/* Start the AGs on different disks of the stripe. */
			uint64_t tmp = agsize - sunit;

			if (tmp < AG_MIN_BLOCKS(g)) {
				tmp = agsize + sunit;
				if (g->dblocks < agsize)
					tmp = agsize;
			}
			agsize = tmp;
			agcount = g->dblocks / agsize +
				  (g->dblocks % agsize != 0);
		}
	}
	/* A last AG below the minimum is dropped with its blocks. */
	if (g->dblocks % agsize && g->dblocks % agsize < AG_MIN_BLOCKS(g) &&
	    agcount > 1) {
		g->dblocks = (agcount - 1) * agsize;
		agcount--;
	}

	if (agsize < AG_MIN_BLOCKS(g))
		return fail(msg, len, XFSJ_E_TOOSMALL,
			    "agsize (%llu blocks) too small, need at least %llu blocks",
			    (unsigned long long)agsize,
			    (unsigned long long)AG_MIN_BLOCKS(g));
	if (agsize > AG_MAX_BLOCKS(g))
		return fail(msg, len, XFSJ_E_RANGE,
			    "agsize (%llu blocks) too big, maximum is %llu blocks",
			    (unsigned long long)agsize,
			    (unsigned long long)AG_MAX_BLOCKS(g));
	if (agsize > g->dblocks)
		return fail(msg, len, XFSJ_E_TOOSMALL,
			    "agsize (%llu blocks) too big, data area is %llu blocks",
			    (unsigned long long)agsize,
			    (unsigned long long)g->dblocks);
	if (g->dblocks % agsize && g->dblocks % agsize < AG_MIN_BLOCKS(g))
		return fail(msg, len, XFSJ_E_TOOSMALL,
			    "last AG size %llu blocks too small, minimum size is %llu blocks",
			    (unsigned long long)(g->dblocks % agsize),
			    (unsigned long long)AG_MIN_BLOCKS(g));
	if (agcount > (1ULL << 32) - 1)
		return fail(msg, len, XFSJ_E_RANGE, "too many allocation groups");
	if (agcount * agsize < g->dblocks)
		return fail(msg, len, XFSJ_E_RANGE,
			    "%llu allocation groups of %llu blocks cannot hold %llu blocks",
			    (unsigned long long)agcount,
			    (unsigned long long)agsize,
			    (unsigned long long)g->dblocks);
	g->agblocks = (uint32_t)agsize;
	g->agcount = (uint32_t)agcount;
	g->agblklog = log2_roundup(agsize);
	return 0;
}

static void set_inode_geometry(struct xfsj_geometry *g)
{
	uint32_t cluster = XFSJ_INODE_BIG_CLUSTER * (g->inodesize / 256);
	uint32_t chunk_bytes = XFSJ_INODES_PER_CHUNK * g->inodesize;

	if (g->feat.sparse) {
		g->inoalignmt = chunk_bytes >> g->blocklog;
		g->spino_align = cluster >> g->blocklog;
	} else {
		g->inoalignmt = cluster >> g->blocklog;
		g->spino_align = 0;
	}
	if (g->inopblock > 64) {
		/* One block holds more than a chunk: allocate the block. */
		g->chunk_blocks = 1;
		g->chunk_inodes = g->inopblock;
	} else {
		g->chunk_blocks = chunk_bytes >> g->blocklog;
		g->chunk_inodes = 64;
	}
}

/* Blocks on the AGFL after mkfs: enough to split each btree's root once. */
static uint32_t min_freelist(const struct xfsj_geometry *g)
{
	unsigned int alloc = xfsj_alloc_maxlevels(g->blocksize, g->agblocks);
	uint32_t n = 2 * (alloc >= 2 ? 2 : alloc) - 2;

	n *= 2;		/* bnobt and cntbt */
	if (g->feat.rmapbt) {
		unsigned int rm = xfsj_rmap_maxlevels(g->blocksize, g->agblocks,
						      g->feat.reflink);

		n += 2 * (rm >= 2 ? 2 : rm) - 2;
	}
	return n;
}

static void set_sb_features(const struct xfsj_mkfs_req *r,
			    struct xfsj_geometry *g)
{
	const struct xfsj_features *f = &g->feat;

	g->versionnum = XFSJ_SB_VERSION_5 | XFSJ_SB_VERSION_NLINKBIT |
			XFSJ_SB_VERSION_ALIGNBIT | XFSJ_SB_VERSION_LOGV2BIT |
			XFSJ_SB_VERSION_EXTFLGBIT | XFSJ_SB_VERSION_DIRV2BIT |
			XFSJ_SB_VERSION_MOREBITSBIT;
	if (g->dsunit)
		g->versionnum |= XFSJ_SB_VERSION_DALIGNBIT;
	if (g->sectsize > 512 || g->logsectsize > 512)
		g->versionnum |= XFSJ_SB_VERSION_SECTORBIT;
	if (f->parent || r->root_attr)
		g->versionnum |= XFSJ_SB_VERSION_ATTRBIT;
	g->features2 = XFSJ_SB_VERSION2_LAZYSBCOUNT | XFSJ_SB_VERSION2_ATTR2 |
		       XFSJ_SB_VERSION2_PROJID32 | XFSJ_SB_VERSION2_CRC;
	g->ro_compat = (f->finobt ? XFSJ_RO_COMPAT_FINOBT : 0) |
		       (f->rmapbt ? XFSJ_RO_COMPAT_RMAPBT : 0) |
		       (f->reflink ? XFSJ_RO_COMPAT_REFLINK : 0) |
		       (f->inobtcount ? XFSJ_RO_COMPAT_INOBTCNT : 0);
	g->incompat = XFSJ_INCOMPAT_FTYPE |
		      (f->sparse ? XFSJ_INCOMPAT_SPINODES : 0) |
		      (f->bigtime ? XFSJ_INCOMPAT_BIGTIME : 0) |
		      (f->nrext64 ? XFSJ_INCOMPAT_NREXT64 : 0) |
		      (f->exchange ? XFSJ_INCOMPAT_EXCHRANGE : 0) |
		      (f->parent ? XFSJ_INCOMPAT_PARENT : 0);
}

uint32_t xfsj_geom_min_logblocks(const struct xfsj_geometry *g);

uint32_t xfsj_geom_min_logblocks(const struct xfsj_geometry *g)
{
	struct xfsj_resv_geom rg = {
		.blocksize = g->blocksize,
		.sectsize = g->sectsize,
		.inodesize = g->inodesize,
		.dirblocksize = g->dirblocksize,
		.agblocks = g->agblocks,
		.agcount = g->agcount,
		.dblocks = g->dblocks,
		.logsunit = g->lsunit ? g->lsunit * g->blocksize : 1,
		.finobt = g->feat.finobt,
		.rmapbt = g->feat.rmapbt,
		.reflink = g->feat.reflink,
		.sparse_inodes = g->feat.sparse,
		.nrext64 = g->feat.nrext64,
		.parent = g->feat.parent,
		.exchange = g->feat.exchange,
		.bigtime = g->feat.bigtime,
		.inobtcount = g->feat.inobtcount,
	};

	return xfsj_log_min_blocks(&rg);
}

static bool fsbext_ok(const struct xfsj_geometry *g, uint64_t start,
		      uint64_t len)
{
	uint64_t agno = start >> g->agblklog;
	uint64_t agbno = start & ((1ULL << g->agblklog) - 1);

	if (agno >= g->agcount)
		return false;
	return agbno + len <= xfsj_geom_ag_blocks(g, (uint32_t)agno) &&
	       len > 0;
}

static int align_log(const struct xfsj_mkfs_req *r, struct xfsj_geometry *g,
		     uint32_t sunit, uint64_t max_logblocks, char *msg,
		     size_t len)
{
	uint64_t lb = g->logblocks;

	g->logstart = roundup_u64(g->logstart, sunit);
	if (!fsbext_ok(g, g->logstart, 1))
		return fail(msg, len, XFSJ_E_RANGE,
			    "Due to stripe alignment, the internal log start (%llu) cannot be aligned within an allocation group.",
			    (unsigned long long)g->logstart);
	if (lb % sunit) {
		uint64_t tmp;

		if (r->logsize)
			return fail(msg, len, XFSJ_E_RANGE,
				    "log size %llu is not a multiple of the log stripe unit %u",
				    (unsigned long long)lb, sunit);
		tmp = roundup_u64(lb, sunit);
		if (tmp > XFSJ_MAX_LOG_BLOCKS ||
		    (tmp << g->blocklog) > XFSJ_MAX_LOG_BYTES ||
		    tmp > max_logblocks)
			tmp = lb / sunit * sunit;
		lb = tmp;
	}
	if (!fsbext_ok(g, g->logstart, lb) && lb > sunit)
		lb -= sunit;
	if (!fsbext_ok(g, g->logstart, lb))
		return fail(msg, len, XFSJ_E_RANGE,
			    "Due to stripe alignment, the internal log size (%llu) is too large. Must fit within an allocation group.",
			    (unsigned long long)lb);
	g->logblocks = (uint32_t)lb;
	return 0;
}

static int check_log_size(const struct xfsj_geometry *g, uint64_t lb,
			  uint32_t min, char *msg, size_t len)
{
	if (lb < min)
		return fail(msg, len, XFSJ_E_TOOSMALL,
			    "log size %llu blocks too small, minimum size is %u blocks",
			    (unsigned long long)lb, min);
	if (lb > XFSJ_MAX_LOG_BLOCKS)
		return fail(msg, len, XFSJ_E_RANGE,
			    "log size %llu blocks too large, maximum size is %u blocks",
			    (unsigned long long)lb, XFSJ_MAX_LOG_BLOCKS);
	if ((lb << g->blocklog) > XFSJ_MAX_LOG_BYTES)
		return fail(msg, len, XFSJ_E_RANGE,
			    "log size %llu bytes too large, maximum size is %llu bytes",
			    (unsigned long long)(lb << g->blocklog),
			    (unsigned long long)XFSJ_MAX_LOG_BYTES);
	return 0;
}

/* The least log: what the reservations need, at least 512 blocks. */
static uint64_t log_min_blocks(const struct xfsj_geometry *g)
{
	uint64_t min = xfsj_geom_min_logblocks(g);

	return min < XFSJ_MIN_LOG_BLOCKS ? XFSJ_MIN_LOG_BLOCKS : min;
}

/* -l size=, in blocks: a whole number of them. */
static int asked_log_blocks(const struct xfsj_mkfs_req *r,
			    const struct xfsj_geometry *g, uint64_t *lb,
			    char *msg, size_t len)
{
	if (r->logsize % g->blocksize)
		return fail(msg, len, XFSJ_E_RANGE,
			    "log size %llu is not a multiple of the block size %u",
			    (unsigned long long)r->logsize, g->blocksize);
	*lb = r->logsize >> g->blocklog;
	return 0;
}

/*
 * An external log: at the start of the log device, all of it unless
 * size= says less (mkfs.xfs refuses, rather than trims, a device past the
 * maximum log size).  No data stripe alignment, no AG to fit in.
 */
static int set_log_external(const struct xfsj_mkfs_req *r,
			    const struct xfsj_topology *t,
			    struct xfsj_geometry *g, char *msg, size_t len)
{
	uint64_t devblocks = t->logdev_size >> g->blocklog, lb = 0;
	uint64_t min = log_min_blocks(g);
	int err;

	g->min_logblocks = (uint32_t)min;
	if (t->logdev_lsectsize > g->logsectsize)
		return fail(msg, len, XFSJ_E_RANGE,
			    "log sector size %u is smaller than the log device's logical sector size %u",
			    g->logsectsize, t->logdev_lsectsize);
	if (r->logsize) {
		err = asked_log_blocks(r, g, &lb, msg, len);
		if (err)
			return err;
		if (lb > devblocks)
			return fail(msg, len, XFSJ_E_RANGE,
				    "size %llu specified for log subvolume is too large, maximum is %llu blocks",
				    (unsigned long long)r->logsize,
				    (unsigned long long)devblocks);
	} else {
		lb = devblocks;
		if (g->lsunit)
			lb -= lb % g->lsunit;
	}
	if (g->lsunit && lb % g->lsunit)
		return fail(msg, len, XFSJ_E_RANGE,
			    "log size %llu is not a multiple of the log stripe unit %u",
			    (unsigned long long)lb, g->lsunit);
	if (lb < min)
		return fail(msg, len, XFSJ_E_TOOSMALL,
			    "external log device size %llu blocks too small, must be at least %llu blocks",
			    (unsigned long long)lb, (unsigned long long)min);
	err = check_log_size(g, lb, (uint32_t)min, msg, len);
	if (err)
		return err;
	g->logexternal = true;
	g->logblocks = (uint32_t)lb;
	g->logstart = 0;
	g->logagno = 0;
	return 0;
}

static int set_log(const struct xfsj_mkfs_req *r, struct xfsj_geometry *g,
		   char *msg, size_t len)
{
	const uint32_t hdr_blocks = (4 * g->sectsize + g->blocksize - 1) /
				    g->blocksize;
	uint64_t min, max, lb = 0;
	int err;

	min = log_min_blocks(g);
	if (!r->logsize && g->dblocks >= ((1ULL << 30) >> g->blocklog) &&
	    min < (XFSJ_MIN_LOG_BYTES >> g->blocklog))
		min = XFSJ_MIN_LOG_BYTES >> g->blocklog;
	g->min_logblocks = (uint32_t)min;

	/*
	 * The most an AG can give the log: all but the headers, the fixed
	 * btree roots and the AGFL reserve, less one block so that the AG
	 * keeps some free space.
	 */
	max = g->agblocks - (hdr_blocks + 4 + 3 + g->feat.finobt +
			     g->feat.rmapbt + g->feat.reflink) - 1;
	if (max < min)
		return fail(msg, len, XFSJ_E_TOOSMALL,
			    "max log size %llu smaller than min log size %llu, filesystem is too small",
			    (unsigned long long)max, (unsigned long long)min);

	if (!r->logsize) {
		lb = (g->dblocks << g->blocklog) / 2048 >> g->blocklog;
		if (lb < (XFSJ_MIN_REALISTIC_LOG >> g->blocklog))
			lb = XFSJ_MIN_REALISTIC_LOG >> g->blocklog;
		if (g->dblocks < (XFSJ_MIN_FS_BYTES >> g->blocklog))
			lb = min;
		if (lb < min)
			lb = min;
		if (lb > max)
			lb = max;
		if (lb > XFSJ_MAX_LOG_BLOCKS)
			lb = XFSJ_MAX_LOG_BLOCKS;
		if ((lb << g->blocklog) > XFSJ_MAX_LOG_BYTES)
			lb = XFSJ_MAX_LOG_BYTES >> g->blocklog;
		err = check_log_size(g, lb, (uint32_t)min, msg, len);
		if (err)
			return err;
	} else {
		err = asked_log_blocks(r, g, &lb, msg, len);
		if (err)
			return err;
		if (lb > max)
			return fail(msg, len, XFSJ_E_RANGE,
				    "internal log size %llu too large, must be less than %llu",
				    (unsigned long long)lb,
				    (unsigned long long)max);
	}
	if (lb > g->agblocks - g->prealloc_blocks)
		return fail(msg, len, XFSJ_E_RANGE,
			    "internal log size %llu too large, must fit in allocation group",
			    (unsigned long long)lb);

	if (r->logagno >= 0) {
		if ((uint64_t)r->logagno >= g->agcount)
			return fail(msg, len, XFSJ_E_RANGE,
				    "log ag number %lld too large, must be less than %u",
				    (long long)r->logagno, g->agcount);
		g->logagno = (uint32_t)r->logagno;
	} else {
		g->logagno = g->agcount / 2;
	}
	if (g->logagno == 0) {
		/*
		 * In AG 0 the log must leave room for the root inode chunk
		 * (and the AGFL refill an aligned allocation may need).
		 */
		uint64_t backoff = (64ULL * g->inodesize >> g->blocklog) * 4;

		if (backoff < 2ULL * g->dsunit)
			backoff = 2ULL * g->dsunit;
		max = max > backoff ? max - backoff : 0;
		if (r->logsize && lb > max)
			return fail(msg, len, XFSJ_E_RANGE,
				    "internal log size %llu too large, must be less than %llu",
				    (unsigned long long)lb,
				    (unsigned long long)max);
		if (lb > max)
			lb = max;
	}
	g->logblocks = (uint32_t)lb;
	g->logstart = ((uint64_t)g->logagno << g->agblklog) | g->prealloc_blocks;
	if (g->lsunit)
		err = align_log(r, g, g->lsunit, max, msg, len);
	else if (g->dsunit)
		err = align_log(r, g, g->dsunit, max, msg, len);
	else
		err = 0;
	if (err)
		return err;
	return check_log_size(g, g->logblocks, (uint32_t)min, msg, len);
}

static void set_rootino(struct xfsj_geometry *g)
{
	uint32_t per_cluster = XFSJ_INODE_BIG_CLUSTER * (g->inodesize / 256) /
			       g->blocksize;
	uint32_t cluster_align, mask, ialloc_align;
	uint64_t first;

	if (!per_cluster)
		per_cluster = 1;
	cluster_align = g->inoalignmt >= per_cluster ? g->inoalignmt : 1;
	mask = cluster_align - 1;
	ialloc_align = g->dsunit && mask && !(g->dsunit & mask) ? g->dsunit : 0;

	/* Headers, bno/cnt/ino roots, the AGFL, the optional roots. */
	first = (4 * g->sectsize + g->blocksize - 1) / g->blocksize + 3 +
		g->min_freelist + g->feat.finobt + g->feat.rmapbt +
		g->feat.reflink;
	if (g->logagno == 0 && !g->logexternal)
		first += g->logblocks;
	if (ialloc_align)
		g->chunk_align = ialloc_align;
	else if (g->inoalignmt > 1)
		g->chunk_align = g->inoalignmt;
	else
		g->chunk_align = 1;
	first = roundup_u64(first, g->chunk_align);
	g->rootino = first << g->inopblog;
}

int xfsj_geometry_compute(const struct xfsj_mkfs_req *r,
			  const struct xfsj_topology *t,
			  struct xfsj_geometry *g, char *msg, size_t len)
{
	int err;

	memset(g, 0, sizeof(*g));
	if (msg && len)
		msg[0] = 0;
	err = set_sizes(r, t, g, msg, len);
	if (!err)
		err = set_dblocks(r, t, g, msg, len);
	if (!err)
		err = set_stripes(r, t, g, msg, len);
	if (!err)
		err = set_ag_geometry(r, g, msg, len);
	if (err)
		return err;

	if (r->imaxpct_set) {
		if (r->imaxpct > 100)
			return fail(msg, len, XFSJ_E_RANGE,
				    "illegal imaxpct %u", r->imaxpct);
		g->imaxpct = r->imaxpct;
	} else if (g->dblocks < (1ULL << (40 - g->blocklog))) {
		g->imaxpct = 25;
	} else if (g->dblocks < (50ULL << (40 - g->blocklog))) {
		g->imaxpct = 5;
	} else {
		g->imaxpct = 1;
	}
	set_sb_features(r, g);
	set_inode_geometry(g);
	g->prealloc_blocks = 3 * g->sectsize / g->blocksize + 1 + 3 +
			     g->feat.finobt + g->feat.rmapbt + g->feat.reflink;
	g->min_freelist = min_freelist(g);

	if (r->logdev)
		err = set_log_external(r, t, g, msg, len);
	else
		err = set_log(r, g, msg, len);
	if (err)
		return err;
	set_rootino(g);

	if (!r->small) {
		if ((g->dblocks << g->blocklog) < XFSJ_MIN_FS_BYTES)
			return fail(msg, len, XFSJ_E_TOOSMALL,
				    "Filesystem must be larger than 300MB.");
		if (((uint64_t)g->logblocks << g->blocklog) <
		    XFSJ_MIN_REALISTIC_LOG)
			return fail(msg, len, XFSJ_E_TOOSMALL,
				    "Log size must be at least 64MB.");
		if (g->agcount < 2)
			return fail(msg, len, XFSJ_E_TOOSMALL,
				    "Filesystem must have at least 2 superblocks for redundancy!");
	}
	return 0;
}
