/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Transaction reservations and minimum log size (see xfsj/trans_resv.h).
 *
 * Every figure here must equal what the kernel computes bit for bit: a log
 * one block smaller than the kernel's minimum is refused at mount, and one
 * block larger than mkfs.xfs's choice makes our filesystems differ from the
 * reference tool's.  So the arithmetic follows the kernel's rounding
 * exactly, including over-estimates it keeps for compatibility.
 *
 * Internally everything is uint64_t: the kernel uses 32-bit unsigned sums,
 * and for every valid geometry the totals stay far below 2^32, so the
 * results agree while intermediate products cannot wrap.
 */
#include <string.h>

#include "xfsj/errors.h"
#include "ondisk/format.h"
#include "ondisk/trans_resv.h"
#include "ondisk/dir_block.h"
#include "ondisk/log.h"

/*
 * The on-disk and log record sizes the formulas are built from (bytes),
 * under the names the formulas use; each is defined in a format header.
 */
enum {
	BBSIZE = XFSJ_BBSIZE,
	SBLOCK_HDR = XFSJ_SBLOCK_HDR_SIZE,
	LBLOCK_HDR = XFSJ_LBLOCK_HDR_SIZE,
	OPHDR = XFSJ_LOG_OPHDR_SIZE,
	TRANS_HDR = XFSJ_LOG_TRANS_HDR_SIZE,
	INODE_LOGFMT = XFSJ_INODE_LOGFMT_SIZE,
	/* op header + buffer log format item, rounded up to 128 */
	BUF_OVERHEAD = (OPHDR + XFSJ_BLF_HDR_SIZE + 4 * XFSJ_BLF_MAP_MAX +
			XFSJ_BLF_CHUNK - 1) / XFSJ_BLF_CHUNK * XFSJ_BLF_CHUNK,
	/* one dquot log format + on-disk dquot, 6 of them */
	DISK_DQUOT = XFSJ_DQUOT_DISK_SIZE,
	DQUOT_LOGRES = 6 * (XFSJ_DQUOT_LOGFMT_SIZE + DISK_DQUOT),
	SYMLINK_MAXLEN = XFSJ_SYMLINK_MAXLEN,
	DA_NODE_MAXDEPTH = XFSJ_DA_NODE_MAXDEPTH,
	BIG_CLUSTER = XFSJ_INODE_BIG_CLUSTER,
	INODES_PER_CHUNK_LOG = XFSJ_INODES_PER_CHUNK_LOG,
	MAXNAMELEN = XFSJ_MAXNAMELEN,
	ATTRI_LOGFMT = XFSJ_ATTRI_FMT_SIZE,
	PARENT_REC = XFSJ_ATTR_PPTR_VALUE_LEN,
	ICLOG_SIZE = XFSJ_LOG_MAX_RECORD,	/* the largest v2 iclog */
	ICLOG_HDR = 4096,		/* header sectors of such an iclog */
};

/* Policy of the formulas (the kernel's), not on-disk facts. */
enum {
	OLD_REFLINK_RMAP_LEVELS = 9,
	MIN_LOG_FACTOR = 3,		/* log must hold ~3 max transactions */
};

/* Permanent log counts (how often each transaction may roll). */
enum {
	LC_DEFAULT = 1,
	LC_DEFAULT_PERM = 2,
	LC_ITRUNCATE = 2,
	LC_ITRUNCATE_REFLINK_OLD = 8,
	LC_INACTIVE = 2,
	LC_CREATE = 2,
	LC_CREATE_TMPFILE = 2,
	LC_MKDIR = 3,
	LC_SYMLINK = 3,
	LC_REMOVE = 2,
	LC_LINK = 2,
	LC_RENAME = 2,
	LC_WRITE = 2,
	LC_WRITE_REFLINK_OLD = 8,
	LC_ADDAFORK = 2,
	LC_ATTRINVAL = 1,
	LC_ATTRSET = 3,
	LC_ATTRRM = 3,
};


static const char *const resv_names[XFSJ_TR_NR] = {
	[XFSJ_TR_WRITE] = "write",
	[XFSJ_TR_ITRUNCATE] = "itruncate",
	[XFSJ_TR_RENAME] = "rename",
	[XFSJ_TR_LINK] = "link",
	[XFSJ_TR_REMOVE] = "remove",
	[XFSJ_TR_SYMLINK] = "symlink",
	[XFSJ_TR_CREATE] = "create",
	[XFSJ_TR_CREATE_TMPFILE] = "create_tmpfile",
	[XFSJ_TR_MKDIR] = "mkdir",
	[XFSJ_TR_IFREE] = "ifree",
	[XFSJ_TR_ICHANGE] = "ichange",
	[XFSJ_TR_GROWDATA] = "growdata",
	[XFSJ_TR_ADDAFORK] = "addafork",
	[XFSJ_TR_WRITEID] = "writeid",
	[XFSJ_TR_ATTRINVAL] = "attrinval",
	[XFSJ_TR_ATTRSETM] = "attrsetm",
	[XFSJ_TR_ATTRSETRT] = "attrsetrt",
	[XFSJ_TR_ATTRRM] = "attrrm",
	[XFSJ_TR_CLEARAGI] = "clearagi",
	[XFSJ_TR_GROWRTALLOC] = "growrtalloc",
	[XFSJ_TR_GROWRTZERO] = "growrtzero",
	[XFSJ_TR_GROWRTFREE] = "growrtfree",
	[XFSJ_TR_QM_SETQLIM] = "qm_setqlim",
	[XFSJ_TR_QM_DQALLOC] = "qm_dqalloc",
	[XFSJ_TR_SB] = "sb",
	[XFSJ_TR_FSYNCTS] = "fsyncts",
};

const char *xfsj_resv_name(unsigned int type)
{
	return type < XFSJ_TR_NR ? resv_names[type] : "?";
}

static uint64_t div_up(uint64_t n, uint64_t d)
{
	return n / d + (n % d != 0);
}

static uint64_t max2(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

static uint64_t max3(uint64_t a, uint64_t b, uint64_t c)
{
	return max2(a, max2(b, c));
}

static bool is_pow2(uint32_t v)
{
	return v != 0 && (v & (v - 1)) == 0;
}

static unsigned int log2_u32(uint32_t v)
{
	unsigned int l = 0;

	while (v > 1) {
		v >>= 1;
		l++;
	}
	return l;
}

/* Smallest l with 2^l >= v: the superblock's sb_agblklog. */
static unsigned int log2_roundup(uint32_t v)
{
	unsigned int l = 0;

	while (l < 32 && (UINT64_C(1) << l) < v)
		l++;
	return l;
}

/*
 * Height of a btree holding @records when every block is only minimally
 * full: the kernel sizes reservations for a tree that split as often as
 * possible.  @leaf_min and @node_min are the minimum records per block.
 */
static unsigned int height_for_records(uint64_t records, uint64_t leaf_min,
				       uint64_t node_min)
{
	uint64_t blocks;
	unsigned int h = 1;

	if (leaf_min == 0 || node_min < 2)
		return 0;
	blocks = div_up(records, leaf_min);
	while (blocks > 1) {
		blocks = div_up(blocks, node_min);
		h++;
	}
	return h;
}

/*
 * Height a btree reaches before it could have consumed @blocks blocks.
 * Used for the reflink rmapbt, whose record count is bounded only by the
 * space in the AG.  The root may hold just two pointers, so the widest
 * level grows 2, 2n, 2n^2, ...
 */
static unsigned int height_for_space(uint64_t blocks, uint64_t node_min)
{
	uint64_t width = 2, left;
	unsigned int h = 1;

	if (blocks == 0 || node_min < 2)
		return 0;
	left = blocks - 1;
	while (width < left) {
		left -= width;
		width *= node_min;
		h++;
	}
	return h;
}

static bool bs_ok(uint32_t blocksize)
{
	return is_pow2(blocksize) && blocksize >= 512 && blocksize <= 65536;
}

/* Free-space btrees: 8-byte records, 4-byte keys + 4-byte pointers. */
static uint64_t alloc_leaf_max(uint32_t blocksize)
{
	return (blocksize - SBLOCK_HDR) / 8;
}

unsigned int xfsj_alloc_maxlevels(uint32_t blocksize, uint32_t agblocks)
{
	if (!bs_ok(blocksize))
		return 0;
	return height_for_records(((uint64_t)agblocks + 1) / 2,
				  alloc_leaf_max(blocksize) / 2,
				  (blocksize - SBLOCK_HDR) / 12 / 2);
}

/* rmapbt: 24-byte records; nodes hold low+high keys (2 x 20) + pointer. */
unsigned int xfsj_rmap_maxlevels(uint32_t blocksize, uint32_t agblocks,
				 bool reflink)
{
	uint64_t node_min;

	if (!bs_ok(blocksize))
		return 0;
	node_min = (blocksize - SBLOCK_HDR) / 44 / 2;
	/*
	 * With shared blocks one AG block can carry many owners, so the
	 * record count gives no bound; only the AG's size does.
	 */
	if (reflink)
		return height_for_space(agblocks, node_min);
	return height_for_records(agblocks, (blocksize - SBLOCK_HDR) / 24 / 2,
				  node_min);
}

/* refcountbt: 12-byte records, 4-byte keys + 4-byte pointers. */
unsigned int xfsj_refcount_maxlevels(uint32_t blocksize, uint32_t agblocks)
{
	if (!bs_ok(blocksize))
		return 0;
	return height_for_records(agblocks, (blocksize - SBLOCK_HDR) / 12 / 2,
				  (blocksize - SBLOCK_HDR) / 8 / 2);
}

/*
 * inobt/finobt: 16-byte records, 4-byte keys + 4-byte pointers.  The bound
 * is every chunk of 64 inodes an AG inode number could address, which is
 * why it depends on the AG size rounded up to a power of two.
 */
unsigned int xfsj_inobt_maxlevels(uint32_t blocksize, uint32_t inodesize,
				  uint32_t agblocks)
{
	unsigned int agino_bits;

	if (!bs_ok(blocksize) || !is_pow2(inodesize) || inodesize < 256 ||
	    inodesize > blocksize || agblocks == 0)
		return 0;
	agino_bits = log2_roundup(agblocks) +
		     log2_u32(blocksize / inodesize);
	return height_for_records((UINT64_C(1) << agino_bits) >>
				  INODES_PER_CHUNK_LOG,
				  (blocksize - SBLOCK_HDR) / 16 / 2,
				  (blocksize - SBLOCK_HDR) / 8 / 2);
}

/*
 * bmbt: 16-byte records, 8-byte keys + 8-byte pointers, long headers.
 * The bound is the fork's maximum extent count.  The root lives in the
 * inode and is assumed to hold only 3 (data) or 2 (attr) pointers, the
 * least room a fork is guaranteed.
 */
unsigned int xfsj_bmbt_maxlevels(uint32_t blocksize, bool attr_fork,
				 bool nrext64)
{
	uint64_t per_block, blocks, root_recs;
	unsigned int h;

	if (!bs_ok(blocksize))
		return 0;
	per_block = (blocksize - LBLOCK_HDR) / 16 / 2;
	if (attr_fork) {
		blocks = nrext64 ? XFSJ_MAX_ATTR_EXTENTS_LARGE :
				 XFSJ_MAX_ATTR_EXTENTS_SMALL;
		root_recs = 2;
	} else {
		blocks = nrext64 ? XFSJ_MAX_DATA_EXTENTS_LARGE :
				 XFSJ_MAX_DATA_EXTENTS_SMALL;
		root_recs = 3;
	}
	blocks = div_up(blocks, per_block);
	for (h = 1; blocks > 1; h++)
		blocks = blocks <= root_recs ? 1 : div_up(blocks, per_block);
	return h;
}

bool xfsj_resv_geom_valid(const struct xfsj_resv_geom *g)
{
	return g && bs_ok(g->blocksize) &&
	       is_pow2(g->sectsize) && g->sectsize >= 512 &&
	       g->sectsize <= g->blocksize &&
	       is_pow2(g->inodesize) && g->inodesize >= 256 &&
	       g->inodesize <= g->blocksize &&
	       is_pow2(g->dirblocksize) && g->dirblocksize >= g->blocksize &&
	       g->dirblocksize <= 65536 && g->agblocks >= 2;
}

/* Everything derived once from the geometry that the formulas reuse. */
struct resv_ctx {
	uint64_t bs, sect;
	uint64_t inode_item;		/* log space of one inode */
	uint64_t dirblksize;
	uint64_t dir_fsbcount;		/* fs blocks per directory block */
	uint64_t ext_per_block;		/* bnobt leaf max - min records */
	uint64_t cluster_bytes;		/* inode cluster buffer */
	uint64_t ialloc_blks;		/* blocks per inode chunk */
	unsigned int alloc_levels, rmap_levels, refc_levels, inobt_levels;
	unsigned int bm_data_levels, bm_attr_levels;
	bool finobt, rmapbt, reflink, parent;
};

static void ctx_init(struct resv_ctx *c, const struct xfsj_resv_geom *g)
{
	uint64_t leaf_max = alloc_leaf_max(g->blocksize);

	memset(c, 0, sizeof(*c));
	c->bs = g->blocksize;
	c->sect = g->sectsize;
	/*
	 * Inodes are logged in their in-memory form: op headers for the
	 * format item, core and both forks, the format item, the inode, and
	 * a full bmbt block header per fork that the on-disk root omits.
	 */
	c->inode_item = 4 * OPHDR + INODE_LOGFMT + g->inodesize +
			2 * LBLOCK_HDR;
	c->dirblksize = g->dirblocksize;
	c->dir_fsbcount = g->dirblocksize / g->blocksize;
	c->ext_per_block = leaf_max - leaf_max / 2;
	/*
	 * mkfs sets sb_inoalignmt to the v5 cluster size (8 KiB scaled by
	 * inode size / 256) in blocks, so the kernel always uses the scaled
	 * size; a cluster is never smaller than one block.
	 */
	c->cluster_bytes = max2(g->blocksize,
				(uint64_t)BIG_CLUSTER * (g->inodesize / 256));
	c->ialloc_blks = max2(1, ((uint64_t)64 * g->inodesize) / g->blocksize);
	c->alloc_levels = xfsj_alloc_maxlevels(g->blocksize, g->agblocks);
	c->rmap_levels = g->rmapbt ? xfsj_rmap_maxlevels(g->blocksize,
							 g->agblocks,
							 g->reflink) : 0;
	c->refc_levels = g->reflink ?
			 xfsj_refcount_maxlevels(g->blocksize, g->agblocks) : 0;
	c->inobt_levels = xfsj_inobt_maxlevels(g->blocksize, g->inodesize,
					       g->agblocks);
	c->bm_data_levels = xfsj_bmbt_maxlevels(g->blocksize, false,
						g->nrext64);
	c->bm_attr_levels = xfsj_bmbt_maxlevels(g->blocksize, true,
						g->nrext64);
	c->finobt = g->finobt;
	c->rmapbt = g->rmapbt;
	c->reflink = g->reflink;
	c->parent = g->parent;
}

/* @n logged buffers of @size bytes each, with their log item overhead. */
static uint64_t bufs(uint64_t n, uint64_t size)
{
	return n * (size + BUF_OVERHEAD);
}

static uint64_t inodes(const struct resv_ctx *c, uint64_t n)
{
	return n * c->inode_item;
}

/*
 * Blocks touched by @ops extent allocations or frees: each may split or
 * join every level of bnobt and cntbt (and rmapbt) on its way down and
 * back up, hence 2 x height - 1 per tree.
 */
static uint64_t allocfree_blocks(const struct resv_ctx *c, uint64_t ops)
{
	uint64_t n = ops * 2 * (2 * (uint64_t)c->alloc_levels - 1);

	if (c->rmapbt)
		n += ops * (2 * (uint64_t)c->rmap_levels - 1);
	return n;
}

static uint64_t refcount_blocks(const struct resv_ctx *c, uint64_t ops)
{
	return ops * (2 * (uint64_t)c->refc_levels - 1);
}

static uint64_t allocfree_res(const struct resv_ctx *c, uint64_t ops)
{
	return bufs(allocfree_blocks(c, ops), c->bs);
}

/* A deferred refcount update: its AGF plus a refcountbt split per op. */
static uint64_t refcount_update_res(const struct resv_ctx *c, uint64_t ops)
{
	if (!c->reflink)
		return 0;
	return bufs(ops, c->sect) + bufs(refcount_blocks(c, ops), c->bs);
}

/* Inserting or removing an inobt record: the tree plus its allocations. */
static uint64_t inobt_res(const struct resv_ctx *c)
{
	return bufs(c->inobt_levels, c->bs) + allocfree_res(c, 1);
}

static uint64_t finobt_res(const struct resv_ctx *c)
{
	return c->finobt ? inobt_res(c) : 0;
}

/*
 * Allocating an inode chunk on v5 logs no inode buffers (they are
 * initialised through ordered buffers); freeing one logs only headers of
 * the invalidated cluster buffers.
 */
static uint64_t chunk_res(const struct resv_ctx *c, bool alloc)
{
	uint64_t res = allocfree_res(c, 1);

	if (!alloc)
		res += bufs(c->ialloc_blks, 0);
	return res;
}

/* Adding one extent of @len blocks may split the bmbt below its root. */
static uint64_t extents_add_blocks(const struct resv_ctx *c, uint64_t len,
				   unsigned int fork_levels)
{
	return div_up(len, c->ext_per_block) * (fork_levels - 1);
}

/* Blocks a directory (data fork) or xattr (attr fork) insert may dirty. */
static uint64_t daenter_blocks(const struct resv_ctx *c, bool attr)
{
	/* a da-btree path plus, for directories, a data and a free block */
	uint64_t per_level = attr ? 1 : c->dir_fsbcount;
	uint64_t levels = DA_NODE_MAXDEPTH + (attr ? 0 : 2);

	return per_level * levels;
}

static uint64_t daenter_bmap1b(const struct resv_ctx *c, bool attr)
{
	if (attr)
		return extents_add_blocks(c, 1, c->bm_attr_levels);
	return extents_add_blocks(c, c->dir_fsbcount, c->bm_data_levels);
}

static uint64_t daenter_bmaps(const struct resv_ctx *c, bool attr)
{
	uint64_t levels = DA_NODE_MAXDEPTH + (attr ? 0 : 2);

	return levels * daenter_bmap1b(c, attr);
}

/* Blocks one directory entry change logs: da path, bmbt, one extra. */
static uint64_t dirop_blocks(const struct resv_ctx *c)
{
	return daenter_blocks(c, false) + daenter_bmaps(c, false) + 1;
}

static uint64_t iunlink_remove_res(const struct resv_ctx *c)
{
	/* AGI bucket, plus the inode before ours and ours on the list */
	return bufs(1, c->sect) + 2 * c->cluster_bytes;
}

static uint64_t iunlink_add_res(const struct resv_ctx *c)
{
	return bufs(1, c->sect) + c->cluster_bytes;
}

/*
 * Parent pointer xattr intents that namespace transactions keep relogging:
 * a format item, the parent record and a maximal name (each region padded
 * to 4 bytes).  A replace carries old and new name/record.
 */
static uint64_t pptr_single_overhead(void)
{
	return ATTRI_LOGFMT + PARENT_REC + MAXNAMELEN;
}

static uint64_t pptr_replace_overhead(void)
{
	return ATTRI_LOGFMT + 2 * (PARENT_REC + MAXNAMELEN);
}

/*
 * Writing allocates at most two extents (t1); freeing bmbt blocks in the
 * follow-up touches AGF/AGFL/sb per extent (t3).  Refcount updates run in
 * their own transaction (t4) — except in the 2023-era minimum-log figure,
 * which still folds two refcountbt splits into t1 and t3.
 */
static uint64_t write_res(const struct resv_ctx *c, bool old_style)
{
	uint64_t t1, t3;

	t1 = inodes(c, 1) + bufs(c->bm_data_levels, c->bs) +
	     bufs(3, c->sect) + allocfree_res(c, 2);
	t3 = bufs(5, c->sect) + allocfree_res(c, 2);
	if (old_style) {
		uint64_t adj = 0;

		if (c->reflink)
			adj = bufs(refcount_blocks(c, 2), c->bs);
		return DQUOT_LOGRES + max2(t1 + adj, t3 + adj);
	}
	return DQUOT_LOGRES + max3(refcount_update_res(c, 1), t1, t3);
}

/*
 * Truncation frees up to four extents per roll: the inode and its bmbt
 * (t1) or the AG headers and free-space trees of four frees (t2).
 */
static uint64_t itruncate_res(const struct resv_ctx *c, bool old_style)
{
	uint64_t t1, t2;

	t1 = inodes(c, 1) + bufs(c->bm_data_levels + 1, c->bs);
	t2 = bufs(9, c->sect) + allocfree_res(c, 4);
	if (old_style) {
		if (c->reflink)
			t2 += bufs(refcount_blocks(c, 4), c->bs);
		return DQUOT_LOGRES + max2(t1, t2);
	}
	return DQUOT_LOGRES + max3(refcount_update_res(c, 2), t1, t2);
}

static uint64_t qm_dqalloc_res(const struct resv_ctx *c, bool old_style)
{
	/* one dquot cluster (a single fs block) on top of the allocation */
	return write_res(c, old_style) + bufs(1, c->bs - 1);
}

static uint64_t attrsetm_res(const struct resv_ctx *c)
{
	return DQUOT_LOGRES + inodes(c, 1) + bufs(1, c->sect) +
	       bufs(DA_NODE_MAXDEPTH, c->bs);
}

/* Per block of xattr value: the sb and the attr fork's bmbt. */
static uint64_t attrsetrt_res(const struct resv_ctx *c)
{
	return bufs(1, c->sect) + bufs(c->bm_attr_levels, c->bs);
}

static uint64_t attrrm_res(const struct resv_ctx *c)
{
	uint64_t t1, t2;

	t1 = inodes(c, 1) + bufs(DA_NODE_MAXDEPTH, c->bs) +
	     (uint64_t)c->bm_attr_levels * c->bs +
	     bufs(c->bm_data_levels, 0);
	t2 = bufs(5, c->sect) + allocfree_res(c, 2);
	return DQUOT_LOGRES + max2(t1, t2);
}

static uint64_t create_modify_res(const struct resv_ctx *c)
{
	/* the inobt record block is counted without log overhead */
	return inodes(c, 2) + bufs(1, c->sect) + c->bs +
	       bufs(dirop_blocks(c), c->bs) + finobt_res(c);
}

static uint64_t icreate_alloc_res(const struct resv_ctx *c)
{
	/* AGI + AGF logged, the sb counted without overhead */
	return bufs(2, c->sect) + c->sect + chunk_res(c, true) +
	       inobt_res(c) + finobt_res(c);
}

static uint64_t icreate_res(const struct resv_ctx *c,
			    const struct xfsj_trans_resv *t)
{
	uint64_t over = DQUOT_LOGRES, t3 = 0;

	if (c->parent) {
		t3 = t->r[XFSJ_TR_ATTRSETM].logres;
		over += pptr_single_overhead();
	}
	return over + max3(icreate_alloc_res(c), create_modify_res(c), t3);
}

static uint64_t rename_res(const struct resv_ctx *c,
			   const struct xfsj_trans_resv *t)
{
	uint64_t over = DQUOT_LOGRES, t1, t2, t3 = 0;

	t1 = inodes(c, 5) + bufs(2 * dirop_blocks(c), c->bs);
	t2 = bufs(7, c->sect) + allocfree_res(c, 3);
	if (c->parent) {
		/*
		 * A rename relogs three pptr intents (replace source, remove
		 * target, add whiteout); an exchange relogs two replaces.
		 */
		uint64_t ren = pptr_replace_overhead() +
			       2 * pptr_single_overhead();
		uint64_t xchg = 2 * pptr_replace_overhead();

		t3 = max2(t->r[XFSJ_TR_ATTRSETM].logres,
			  t->r[XFSJ_TR_ATTRRM].logres);
		over += max2(ren, xchg);
	}
	return over + max3(t1, t2, t3);
}

static uint64_t link_res(const struct resv_ctx *c,
			 const struct xfsj_trans_resv *t)
{
	uint64_t over = DQUOT_LOGRES + iunlink_remove_res(c), t1, t2, t3 = 0;

	t1 = inodes(c, 2) + bufs(dirop_blocks(c), c->bs);
	t2 = bufs(3, c->sect) + allocfree_res(c, 1);
	if (c->parent) {
		t3 = t->r[XFSJ_TR_ATTRSETM].logres;
		over += pptr_single_overhead();
	}
	return over + max3(t1, t2, t3);
}

static uint64_t remove_res(const struct resv_ctx *c,
			   const struct xfsj_trans_resv *t)
{
	uint64_t over = DQUOT_LOGRES + iunlink_add_res(c), t1, t2, t3 = 0;

	t1 = inodes(c, 2) + bufs(dirop_blocks(c), c->bs);
	t2 = bufs(4, c->sect) + allocfree_res(c, 2);
	if (c->parent) {
		t3 = t->r[XFSJ_TR_ATTRRM].logres;
		over += pptr_single_overhead();
	}
	return over + max3(t1, t2, t3);
}

static void put(struct xfsj_trans_resv *t, enum xfsj_resv_type type,
		uint64_t logres, uint32_t logcount)
{
	t->r[type].logres = (uint32_t)logres;
	t->r[type].logcount = logcount;
}

/* The whole table, in the kernel's order of computation. */
static void compute_table(const struct resv_ctx *c,
			  struct xfsj_trans_resv *t)
{
	uint32_t attrset_lc, attrrm_lc, adj = 0;

	memset(t, 0, sizeof(*t));
	put(t, XFSJ_TR_WRITE, write_res(c, false), LC_WRITE);
	put(t, XFSJ_TR_ITRUNCATE, itruncate_res(c, false), LC_ITRUNCATE);
	put(t, XFSJ_TR_CREATE_TMPFILE,
	    DQUOT_LOGRES + icreate_alloc_res(c) + iunlink_add_res(c),
	    LC_CREATE_TMPFILE);
	put(t, XFSJ_TR_IFREE,
	    DQUOT_LOGRES + inodes(c, 1) + bufs(3, c->sect) +
	    iunlink_remove_res(c) + chunk_res(c, false) + inobt_res(c) +
	    finobt_res(c), LC_INACTIVE);
	put(t, XFSJ_TR_ADDAFORK,
	    DQUOT_LOGRES + inodes(c, 1) + bufs(2, c->sect) +
	    bufs(1, c->dirblksize) + bufs(daenter_bmap1b(c, false) + 1, c->bs) +
	    allocfree_res(c, 1), LC_ADDAFORK);
	put(t, XFSJ_TR_ATTRINVAL,
	    max2(inodes(c, 1) + bufs(c->bm_attr_levels, c->bs),
		 bufs(9, c->sect) + allocfree_res(c, 4)), LC_ATTRINVAL);
	put(t, XFSJ_TR_ATTRSETM, attrsetm_res(c), LC_ATTRSET);
	put(t, XFSJ_TR_ATTRRM, attrrm_res(c), LC_ATTRRM);
	put(t, XFSJ_TR_GROWRTALLOC,
	    bufs(2, c->sect) + bufs(c->bm_data_levels, c->bs) + inodes(c, 1) +
	    allocfree_res(c, 1), LC_DEFAULT_PERM);
	put(t, XFSJ_TR_QM_DQALLOC, qm_dqalloc_res(c, false), LC_WRITE);

	/*
	 * Namespace operations need the xattr figures: with parent
	 * pointers each may also set or remove a pptr xattr and must be
	 * able to roll as often as that does.
	 */
	attrset_lc = c->parent ? t->r[XFSJ_TR_ATTRSETM].logcount : 0;
	attrrm_lc = c->parent ? t->r[XFSJ_TR_ATTRRM].logcount : 0;
	put(t, XFSJ_TR_RENAME, rename_res(c, t),
	    LC_RENAME + (attrset_lc > attrrm_lc ? attrset_lc : attrrm_lc));
	put(t, XFSJ_TR_LINK, link_res(c, t), LC_LINK + attrset_lc);
	put(t, XFSJ_TR_REMOVE, remove_res(c, t), LC_REMOVE + attrrm_lc);
	put(t, XFSJ_TR_SYMLINK,
	    icreate_res(c, t) + bufs(1, SYMLINK_MAXLEN),
	    LC_SYMLINK + attrset_lc);
	put(t, XFSJ_TR_CREATE, icreate_res(c, t), LC_CREATE + attrset_lc);
	put(t, XFSJ_TR_MKDIR, icreate_res(c, t), LC_MKDIR + attrset_lc);

	put(t, XFSJ_TR_QM_SETQLIM, bufs(1, DISK_DQUOT), LC_DEFAULT);
	put(t, XFSJ_TR_SB, bufs(1, c->sect), LC_DEFAULT);
	put(t, XFSJ_TR_GROWDATA, bufs(3, c->sect) + allocfree_res(c, 1),
	    LC_DEFAULT_PERM);

	/* logged in logical format: no permanent count */
	put(t, XFSJ_TR_ICHANGE,
	    DQUOT_LOGRES + inodes(c, 1) + bufs(1, c->sect), 0);
	put(t, XFSJ_TR_FSYNCTS, inodes(c, 1), 0);
	put(t, XFSJ_TR_WRITEID, inodes(c, 1), 0);
	put(t, XFSJ_TR_ATTRSETRT, attrsetrt_res(c), 0);
	put(t, XFSJ_TR_CLEARAGI, bufs(1, c->sect), 0);
	put(t, XFSJ_TR_GROWRTZERO, bufs(1, c->bs), 0);
	/* sb, bitmap and summary inodes, a bitmap block, no summary here */
	put(t, XFSJ_TR_GROWRTFREE,
	    bufs(1, c->sect) + inodes(c, 2) + bufs(1, c->bs) + bufs(1, 0), 0);

	/*
	 * Deferred intent items (BUI with rmap or reflink, CUI, RUI) each
	 * need one more roll of the transactions that map or free extents.
	 */
	if (c->reflink || c->rmapbt)
		adj++;
	if (c->reflink)
		adj++;
	if (c->rmapbt)
		adj++;
	t->r[XFSJ_TR_ITRUNCATE].logcount += adj;
	t->r[XFSJ_TR_WRITE].logcount += adj;
	t->r[XFSJ_TR_QM_DQALLOC].logcount += adj;
}

int xfsj_trans_resv_compute(const struct xfsj_resv_geom *g,
			    struct xfsj_trans_resv *out)
{
	struct resv_ctx c;

	if (!out)
		return -XFSJ_E_INVAL;
	if (!xfsj_resv_geom_valid(g)) {
		memset(out, 0, sizeof(*out));
		return -XFSJ_E_INVAL;
	}
	ctx_init(&c, g);
	compute_table(&c, out);
	return 0;
}

int xfsj_trans_resv_for_minlog(const struct xfsj_resv_geom *g,
			       struct xfsj_trans_resv *out)
{
	struct resv_ctx c;

	if (!out)
		return -XFSJ_E_INVAL;
	if (!xfsj_resv_geom_valid(g)) {
		memset(out, 0, sizeof(*out));
		return -XFSJ_E_INVAL;
	}
	ctx_init(&c, g);
	/*
	 * Parent pointers are newer than every log-size bug fix, so such
	 * filesystems can use the true figures without an older kernel
	 * ever seeing a log it considers too small.
	 */
	if (c.parent) {
		compute_table(&c, out);
		return 0;
	}

	/* Early rmap+reflink code always assumed a 9-level rmapbt. */
	if (c.rmapbt && c.reflink)
		c.rmap_levels = OLD_REFLINK_RMAP_LEVELS;
	compute_table(&c, out);

	if (c.reflink) {
		/* early reflink overestimated how often these roll */
		out->r[XFSJ_TR_WRITE].logcount = LC_WRITE_REFLINK_OLD;
		out->r[XFSJ_TR_ITRUNCATE].logcount = LC_ITRUNCATE_REFLINK_OLD;
		out->r[XFSJ_TR_QM_DQALLOC].logcount = LC_WRITE_REFLINK_OLD;
	} else if (c.rmapbt) {
		/* early rmap-only code did not count the extra rolls */
		out->r[XFSJ_TR_WRITE].logcount = LC_WRITE;
		out->r[XFSJ_TR_ITRUNCATE].logcount = LC_ITRUNCATE;
		out->r[XFSJ_TR_QM_DQALLOC].logcount = LC_WRITE;
	}
	out->r[XFSJ_TR_WRITE].logres = (uint32_t)write_res(&c, true);
	out->r[XFSJ_TR_ITRUNCATE].logres = (uint32_t)itruncate_res(&c, true);
	out->r[XFSJ_TR_QM_DQALLOC].logres = (uint32_t)qm_dqalloc_res(&c, true);
	return 0;
}

/*
 * Worst case for setting one xattr whose value is the largest that still
 * fits in a leaf block (bigger values are written unlogged to remote
 * blocks): attrsetm plus attrsetrt for every block the set may dirty.
 */
static uint64_t max_attrset_res(const struct resv_ctx *c,
				const struct xfsj_trans_resv *mounted)
{
	uint64_t value = c->bs / 2 + c->bs / 4 - MAXNAMELEN - 1;
	uint64_t nblks, extent_len;

	nblks = daenter_blocks(c, true) + daenter_bmaps(c, true) +
		div_up(value, c->bs);
	/*
	 * Older code passed the value's byte count where a block count was
	 * meant; it is kept (overestimating) unless PARENT guarantees that
	 * no pre-fix kernel will ever check this log.
	 */
	extent_len = c->parent ? div_up(value, c->bs) : value;
	nblks += extents_add_blocks(c, extent_len, c->bm_attr_levels);
	return mounted->r[XFSJ_TR_ATTRSETM].logres +
	       mounted->r[XFSJ_TR_ATTRSETRT].logres * nblks;
}

struct xfsj_resv xfsj_log_max_resv(const struct xfsj_resv_geom *g)
{
	struct xfsj_resv best = { 0, 0 };
	struct xfsj_trans_resv mounted, minlog;
	struct resv_ctx c;
	uint64_t best_space = 0, attr_space;
	unsigned int i;

	if (xfsj_trans_resv_compute(g, &mounted) ||
	    xfsj_trans_resv_for_minlog(g, &minlog))
		return best;
	ctx_init(&c, g);
	attr_space = max_attrset_res(&c, &mounted);

	/* the first of equal candidates wins, as in the kernel's scan */
	for (i = 0; i < XFSJ_TR_NR; i++) {
		const struct xfsj_resv *r = &minlog.r[i];
		uint64_t space = r->logcount > 1 ?
				 (uint64_t)r->logres * r->logcount : r->logres;

		if (space > best_space) {
			best_space = space;
			best = *r;
		}
	}
	/* compared by logres alone, but it rolls like attrsetm */
	if (attr_space > best_space) {
		best = minlog.r[XFSJ_TR_ATTRSETM];
		best.logres = (uint32_t)attr_space;
	}
	return best;
}

/*
 * Log space one ticket of @logres bytes really occupies (the libxfs
 * variant of xlog_calc_unit_res, which assumes the largest iclogs).
 */
static uint64_t log_unit_bytes(uint64_t logres, uint32_t logsunit)
{
	const uint64_t space = ICLOG_SIZE - ICLOG_HDR;
	uint64_t u, nhdr;

	/* transaction header op + header, and the start record op */
	u = logres + OPHDR + TRANS_HDR + OPHDR;
	/* every record the ticket spans adds an op header for the split */
	nhdr = div_up(u, space);
	u += OPHDR * nhdr;
	while (nhdr == 0 || div_up(u, space) > nhdr) {
		u += OPHDR;
		nhdr++;
	}
	u += ICLOG_HDR * nhdr;
	/* the commit record may land in a record of its own */
	u += ICLOG_HDR;
	/* data and commit record may each be padded to the stripe unit */
	if (logsunit > 1)
		u += 2 * (uint64_t)logsunit;
	else
		u += 2 * BBSIZE;
	return u;
}

uint32_t xfsj_log_min_blocks(const struct xfsj_resv_geom *g)
{
	struct xfsj_resv max;
	uint64_t bytes, bb, bb_per_block;

	if (!xfsj_resv_geom_valid(g))
		return 0;
	max = xfsj_log_max_resv(g);
	bytes = log_unit_bytes(max.logres, g->logsunit);
	if (max.logcount > 1)
		bytes *= max.logcount;

	bb = div_up(bytes, BBSIZE);
	if (g->logsunit > 1) {
		/* whole stripe units, plus two for padding in flight */
		uint64_t su_bb = div_up(g->logsunit, BBSIZE);

		bb = div_up(bb, su_bb) * su_bb + 2 * su_bb;
	} else {
		/*
		 * The kernel adds 2 x BBSIZE here although the unit is basic
		 * blocks, i.e. 1024 BBs rather than two; kept for equality.
		 */
		bb += 2 * BBSIZE;
	}
	bb *= MIN_LOG_FACTOR;
	bb_per_block = g->blocksize / BBSIZE;
	return (uint32_t)div_up(bb, bb_per_block);
}
