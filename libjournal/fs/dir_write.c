/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The directory writer: a directory rewritten from scratch around a list
 * of entries, in the smallest format that holds them.
 *
 * - Short form, in the inode's literal area, when the encoded entries fit
 *   the data fork and would fit one block too (the checker's rule: the
 *   kernel turns a short form into a block before it outgrows one).
 * - Block format otherwise: one directory block holding the header, "."
 *   and "..", the entries, one unused region, the leaf entries sorted by
 *   hash and the tail.
 * - Leaf format when the leaf entries and the data blocks' bests fit one
 *   leaf1 block: data blocks filled in order (each ending with one unused
 *   region), the leaf1 block at the start of the leaf space.
 * - Node format beyond: the same data blocks, leafn blocks under a da
 *   btree of as many node levels as they need (each level's blocks
 *   linked), free index blocks for every data block.
 *
 * The new blocks are mapped a region at a time (the data blocks, the
 * leaf space, the free index) from xfsj_bmap_alloc, in extents as long as
 * the free space holds.  While the old blocks are still mapped, the new
 * ones go in above every directory segment and move down only once all
 * are written: a write that fails on the way (an allocation meeting a
 * damaged btree) takes its blocks out again and leaves the directory as
 * it was, as the kernel's online repair writes into a temporary file and
 * exchanges the forks.  The old blocks then leave the fork (freed through
 * the deferred work, or only unmapped when the caller says the free space
 * cannot be trusted: the AG stage's rebuild reclaims them).  When there
 * is no room for both, the old blocks leave first and the new ones take
 * their space.  The flush stamps the CRC and LSN.
 */
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"
#include "fs/bmap.h"
#include "fs/bmbt.h"
#include "fs/defer.h"
#include "fs/attr.h"
#include "fs/iget.h"
#include "ondisk/dir_block.h"
#include "ondisk/meta.h"
#include "fs/dir_write.h"

/* "." and ".." in a v5 block: 16 bytes each with or without ftype. */
/* A short-form header at its largest: count, i8count, an 8-byte parent. */
#define SF_HDR_MAX	10
#define DOT_BYTES(ft)	(2 * xfsj_dir2_data_entsize(2, (ft)))

static int unmap_data(struct xfsj_fs *fs, struct xfsj_iref *ip,
		      bool keep_blocks, struct xfsj_fault *f)
{
	struct xfsj_bmbt_irec *ext = NULL;
	size_t n = 0;
	uint64_t done;
	int err;

	if (ip->di.format != XFSJ_DINODE_FMT_EXTENTS &&
	    ip->di.format != XFSJ_DINODE_FMT_BTREE)
		return 0;
	err = xfsj_bmap_read(fs, ip, XFSJ_DATA_FORK, &ext, &n, f);
	/*
	 * One unmap of the whole mapped range: the fork is read and written
	 * once, not once an extent (a directory of thousands of extents).
	 */
	if (!err && n)
		err = xfsj_bmap_unmap(fs, ip, XFSJ_DATA_FORK, ext[0].startoff,
				      ext[n - 1].startoff +
				      ext[n - 1].blockcount - ext[0].startoff,
				      keep_blocks, &done, f);
	free(ext);
	return err;
}

static int lent_cmp(const void *a, const void *b)
{
	const struct xfsj_dir2_leaf_ent *x = a, *y = b;

	if (x->hashval != y->hashval)
		return x->hashval < y->hashval ? -1 : 1;
	return x->address < y->address ? -1 : x->address > y->address;
}

/* File blocks [off, off + len) mapped to [fsb, fsb + len). */
struct dw_run {
	uint64_t off, fsb, len;
};

/* One directory being written. */
struct dw {
	struct xfsj_fs *fs;
	const struct xfsj_sb *sb;
	struct xfsj_iref *ip;
	struct xfsj_fault *f;
	bool ftype;
	uint32_t bs, fsbs;
	unsigned int bytelog;
	uint64_t dir, parent;
	const struct xfsj_dirent *ents;
	size_t n;			/* entries, "." and ".." left out */
	struct xfsj_dir2_leaf_ent *le;	/* n + 2: every entry's leaf entry */
	struct xfsj_buf **bufs;		/* the blocks written (dir_buf.c) */
	size_t nbufs, capbufs;
	struct dw_run *runs;		/* the space mapped, by offset */
	size_t nruns, capruns;
	uint64_t want;			/* the longest run to ask for next */
	uint64_t stage;			/* added to each offset mapped while
					 * the old blocks are still there */
	bool old_gone;			/* past undoing */
};

/* Entry @k of the directory: "." and ".." first. */
static void dw_entry(const struct dw *w, size_t k, uint64_t *ino,
		     const uint8_t **name, uint8_t *namelen, uint8_t *ft)
{
	if (k < 2) {
		*ino = k ? w->parent : w->dir;
		*name = (const uint8_t *)"..";
		*namelen = (uint8_t)(k + 1);
		*ft = XFSJ_FT_DIR;
		return;
	}
	*ino = w->ents[k - 2].ino;
	*name = (const uint8_t *)w->ents[k - 2].name;
	*namelen = w->ents[k - 2].namelen;
	*ft = w->ents[k - 2].ftype;
}

static uint32_t put_entry(uint8_t *b, uint32_t off, uint64_t ino,
			  const uint8_t *name, uint8_t namelen, uint8_t ftype,
			  bool has_ftype)
{
	uint32_t len = xfsj_dir2_data_entsize(namelen, has_ftype);

	xfsj_put_be64(b + off, ino);
	b[off + 8] = namelen;
	memcpy(b + off + 9, name, namelen);
	if (has_ftype)
		b[off + 9 + namelen] = ftype;
	xfsj_put_be16(b + off + len - 2, (uint16_t)off);
	return len;
}

/*
 * Fill the data area of data block @db, [64, @end) of @b, from entry *@k
 * on, as many as fit; the rest is one unused region (bestfree[0]).
 * Returns the unused region's length.  @b NULL: only count.
 */
static uint32_t fill_data(struct dw *w, uint8_t *b, uint64_t db,
			  size_t *k, uint32_t end)
{
	uint32_t off = XFSJ_DIR3_HDR_SIZE;

	for (; *k < w->n + 2; (*k)++) {
		const uint8_t *name;
		uint8_t namelen, ft;
		uint64_t ino;

		dw_entry(w, *k, &ino, &name, &namelen, &ft);
		if (off + xfsj_dir2_data_entsize(namelen, w->ftype) > end)
			break;
		if (!b) {
			off += xfsj_dir2_data_entsize(namelen, w->ftype);
			continue;
		}
		w->le[*k].hashval = xfsj_da_hashname(name, namelen);
		w->le[*k].address = xfsj_dir2_dataptr(w->bytelog, db, off);
		off += put_entry(b, off, ino, name, namelen, ft, w->ftype);
	}
	if (b && off < end) {
		xfsj_put_be16(b + off, XFSJ_DIR2_FREE_TAG);
		xfsj_put_be16(b + off + 2, (uint16_t)(end - off));
		xfsj_put_be16(b + end - 2, (uint16_t)off);
		xfsj_put_be16(b + 48, (uint16_t)off);
		xfsj_put_be16(b + 50, (uint16_t)(end - off));
	}
	return end - off;
}

/*
 * Map file blocks [@off, @off + @len) of the directory before its blocks
 * are written: in as few extents as the free space holds (a run as long
 * as the last one that could be had, halved while none is free), each
 * a whole number of directory blocks.  One allocation and one fork
 * change per extent, not per directory block: a directory of millions
 * of entries no longer reloads its fork for each of its blocks.
 */
static int map_range(struct dw *w, uint64_t off, uint64_t len)
{
	while (len) {
		uint64_t want = len < w->want ? len : w->want;
		struct xfsj_fault before = *w->f;
		uint64_t fsb;
		int err;

		want -= want % w->fsbs;
		for (;;) {
			err = xfsj_bmap_alloc(w->fs, w->ip, XFSJ_DATA_FORK,
					      w->stage + off, (uint32_t)want,
					      &fsb, w->f);
			if (err != -XFSJ_E_NOSPC || want == w->fsbs)
				break;
			/* Not this long: the fault says nothing yet. */
			*w->f = before;
			want /= 2;
			want = want < w->fsbs ? w->fsbs : want - want % w->fsbs;
		}
		if (err)
			return err;
		if (xfsj_grow(&w->runs, &w->capruns, w->nruns, 1,
			      sizeof(*w->runs), 8))
			return -XFSJ_E_NOMEM;
		w->runs[w->nruns++] = (struct dw_run){ off, fsb, want };
		w->want = want;
		off += want;
		len -= want;
	}
	return 0;
}

/* The filesystem block that file block @fileoff was mapped to. */
static int run_of(const struct dw *w, uint64_t fileoff, uint64_t *fsb)
{
	size_t lo = 0, hi = w->nruns;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct dw_run *r = &w->runs[mid];

		if (fileoff < r->off)
			hi = mid;
		else if (fileoff >= r->off + r->len)
			lo = mid + 1;
		else {
			*fsb = r->fsb + (fileoff - r->off);
			return 0;
		}
	}
	return -XFSJ_E_INVAL;
}

/* A new directory block at file block @fileoff (mapped by map_range),
 * zeroed, its header set. */
static int new_block(struct dw *w, uint64_t fileoff, uint32_t magic,
		     uint32_t crc_off, struct xfsj_buf **bp)
{
	struct xfsj_dir3_hdr h = { .magic = magic, .owner = w->ip->ino,
				   .crc_off = crc_off };
	uint64_t fsb;
	int err;

	if (run_of(w, fileoff, &fsb))
		return xfsj_fault_set(w->f, XFSJ_E_INVAL, "directory block",
				      "not mapped", fileoff, w->ip->ino);
	h.blkno = xfsj_fsb_daddr(w->sb, fsb);
	if (xfsj_grow(&w->bufs, &w->capbufs, w->nbufs, 1, sizeof(*w->bufs),
		      16))
		return -XFSJ_E_NOMEM;
	err = xfsj_dirbuf_get(w->fs, h.blkno, w->sb->blocksize, w->fsbs, true,
			     bp, w->f);
	if (err)
		return xfsj_fault_set(w->f, err, "directory block", "get",
				      h.blkno << 9, w->ip->ino);
	w->bufs[w->nbufs++] = *bp;
	memset((*bp)->data, 0, w->bs);
	memcpy(h.uuid, xfsj_meta_fs_uuid(w->sb), sizeof(h.uuid));
	xfsj_dir3_hdr_encode((*bp)->data, &h);
	xfsj_buf_dirty(*bp);
	return 0;
}

/* The leaf entries, sorted, from @b + @at. */
static void put_leaves(struct dw *w, uint8_t *b, uint32_t at)
{
	qsort(w->le, w->n + 2, sizeof(*w->le), lent_cmp);
	for (size_t i = 0; i < w->n + 2; i++) {
		xfsj_put_be32(b + at + 8 * i, w->le[i].hashval);
		xfsj_put_be32(b + at + 8 * i + 4, w->le[i].address);
	}
}

/* Block format: one block, the leaf entries and the tail at its end. */
static int write_block(struct dw *w)
{
	uint32_t nl = (uint32_t)w->n + 2;
	uint32_t leaf = w->bs - XFSJ_DIR2_BLOCK_TAIL -
			nl * XFSJ_DIR2_LEAF_ENT_SIZE;
	struct xfsj_buf *bp;
	size_t k = 0;
	int err;

	err = map_range(w, 0, w->fsbs);
	if (!err)
		err = new_block(w, 0, XFSJ_DIR3_BLOCK_MAGIC, 4, &bp);
	if (err)
		return err;
	fill_data(w, bp->data, 0, &k, leaf);
	put_leaves(w, bp->data, leaf);
	xfsj_put_be32(bp->data + w->bs - 8, nl);
	xfsj_put_be32(bp->data + w->bs - 4, 0);
	w->ip->di.size = w->bs;
	return 0;
}

/* Data blocks the entries fill in leaf format. */
static uint64_t leaf_data_blocks(struct dw *w)
{
	uint64_t ndb = 0;
	size_t k = 0;

	while (k < w->n + 2) {
		size_t k0 = k;

		fill_data(w, NULL, ndb, &k, w->bs);
		if (k == k0)
			return UINT64_MAX;
		ndb++;
	}
	return ndb;
}

static bool leaf_fits(const struct dw *w, uint64_t ndb)
{
	return ndb < w->bs &&
	       XFSJ_DIR3_HDR_SIZE + (w->n + 2) * XFSJ_DIR2_LEAF_ENT_SIZE +
	       2 * ndb + XFSJ_DIR2_LEAF_TAIL <= w->bs;
}

/* Full data blocks from block 0: @bests gets each one's free length. */
static int write_data(struct dw *w, uint64_t ndb, uint16_t *bests)
{
	struct xfsj_buf *bp;
	size_t k = 0;
	int err = map_range(w, 0, ndb * w->fsbs);

	for (uint64_t db = 0; db < ndb && !err; db++) {
		err = new_block(w, db * w->fsbs, XFSJ_DIR3_DATA_MAGIC, 4, &bp);
		if (!err)
			bests[db] = (uint16_t)fill_data(w, bp->data, db, &k,
							w->bs);
	}
	w->ip->di.size = ndb * w->bs;
	return err;
}

/* Leaf format: full data blocks, then one leaf1 block with the bests. */
static int write_leaf(struct dw *w, uint64_t ndb)
{
	uint16_t *bests = calloc(ndb, sizeof(*bests));
	struct xfsj_buf *bp;
	int err;

	if (!bests)
		return -XFSJ_E_NOMEM;
	err = write_data(w, ndb, bests);
	if (!err)
		err = map_range(w, XFSJ_DIR2_LEAF_OFFSET >> w->sb->blocklog,
				w->fsbs);
	if (!err)
		err = new_block(w, XFSJ_DIR2_LEAF_OFFSET >> w->sb->blocklog,
				XFSJ_DIR3_LEAF1_MAGIC, 12, &bp);
	if (!err) {
		uint8_t *b = bp->data;

		xfsj_put_be16(b + 56, (uint16_t)(w->n + 2));
		xfsj_put_be16(b + 58, 0);
		put_leaves(w, b, XFSJ_DIR3_HDR_SIZE);
		for (uint64_t db = 0; db < ndb; db++)
			xfsj_put_be16(b + w->bs - XFSJ_DIR2_LEAF_TAIL -
				      2 * (ndb - db), bests[db]);
		xfsj_put_be32(b + w->bs - XFSJ_DIR2_LEAF_TAIL, (uint32_t)ndb);
	}
	free(bests);
	return err;
}

/* Leaf blocks of the node format, children of a node block. */
static uint64_t node_leaves(const struct dw *w)
{
	uint64_t per = xfsj_dir3_leaf_max_ents(w->bs);

	return (w->n + 2 + per - 1) / per;
}

static uint64_t node_per(const struct dw *w)
{
	return (w->bs - XFSJ_DA3_NODE_HDR_SIZE) / XFSJ_DA3_NODE_ENTRY_SIZE;
}

/* The root's level: 1 when it holds every leaf, one more a node level. */
static unsigned int node_levels(const struct dw *w)
{
	uint64_t cnt = node_leaves(w), per = node_per(w);
	unsigned int level = 1;

	while (cnt > per) {
		cnt = (cnt + per - 1) / per;
		level++;
	}
	return level;
}

/* Blocks of the leaf space in node format: the root, the leaves and
 * the node levels between them. */
static uint64_t leaf_space_blocks(const struct dw *w)
{
	uint64_t cnt = node_leaves(w), per = node_per(w), total = 1 + cnt;

	while (cnt > per) {
		cnt = (cnt + per - 1) / per;
		total += cnt;
	}
	return total;
}

/* The data blocks end below the leaf space, the tree below the maximum
 * depth. */
static bool node_fits(const struct dw *w, uint64_t ndb)
{
	return ndb != UINT64_MAX &&
	       ndb <= (XFSJ_DIR2_LEAF_OFFSET >> w->bytelog) &&
	       node_levels(w) < XFSJ_DA_NODE_MAXDEPTH;
}

/* One child of a node block: its greatest hash and its block. */
struct dkey {
	uint32_t hash, blk;
};

/* A node block at @blk of level @level over the @cnt children @k, its
 * siblings @forw and @back (0: none). */
static int put_node(struct dw *w, uint32_t blk, unsigned int level,
		    const struct dkey *k, uint64_t cnt, uint32_t forw,
		    uint32_t back)
{
	struct xfsj_buf *bp;
	uint8_t *b;
	int err;

	err = new_block(w, blk, XFSJ_DIR3_NODE_MAGIC, 12, &bp);
	if (err)
		return err;
	b = bp->data;
	xfsj_put_be32(b, forw);
	xfsj_put_be32(b + 4, back);
	xfsj_put_be16(b + XFSJ_DA3_NODE_OFF_COUNT, (uint16_t)cnt);
	xfsj_put_be16(b + XFSJ_DA3_NODE_OFF_LEVEL, (uint16_t)level);
	for (uint64_t i = 0; i < cnt; i++) {
		xfsj_put_be32(b + XFSJ_DA3_NODE_HDR_SIZE + 8 * i, k[i].hash);
		xfsj_put_be32(b + XFSJ_DA3_NODE_HDR_SIZE + 8 * i + 4,
			      k[i].blk);
	}
	return 0;
}

/*
 * The leafn blocks (siblings linked) from the second block of the leaf
 * space, @k getting each one's key.
 */
static int write_leafn(struct dw *w, uint64_t leaf0, struct dkey *k)
{
	uint64_t per = xfsj_dir3_leaf_max_ents(w->bs);
	uint64_t nleaf = node_leaves(w), total = w->n + 2;
	struct xfsj_buf *bp;
	int err = 0;

	qsort(w->le, total, sizeof(*w->le), lent_cmp);
	for (uint64_t i = 0; i < nleaf && !err; i++) {
		uint64_t first = i * per;
		uint64_t cnt = total - first < per ? total - first : per;
		uint8_t *b;

		k[i].blk = (uint32_t)(leaf0 + (i + 1) * w->fsbs);
		k[i].hash = w->le[first + cnt - 1].hashval;
		err = new_block(w, k[i].blk, XFSJ_DIR3_LEAFN_MAGIC, 12, &bp);
		if (err)
			break;
		b = bp->data;
		xfsj_put_be32(b, i + 1 < nleaf ? k[i].blk + w->fsbs : 0);
		xfsj_put_be32(b + 4, i ? k[i].blk - w->fsbs : 0);
		xfsj_put_be16(b + 56, (uint16_t)cnt);
		for (uint64_t j = 0; j < cnt; j++) {
			xfsj_put_be32(b + XFSJ_DIR3_HDR_SIZE + 8 * j,
				      w->le[first + j].hashval);
			xfsj_put_be32(b + XFSJ_DIR3_HDR_SIZE + 8 * j + 4,
				      w->le[first + j].address);
		}
	}
	return err;
}

/*
 * The node levels over the @cnt keys @k: while they are more than a
 * node holds, a level of node blocks (siblings linked) after the leaves,
 * their keys taking the place of their children's; then the root at the
 * first block of the leaf space.
 */
static int write_nodes(struct dw *w, uint64_t leaf0, struct dkey *k,
		       uint64_t cnt)
{
	uint64_t per = node_per(w), next = leaf0 + (cnt + 1) * w->fsbs;
	unsigned int level = 1;
	int err = 0;

	while (cnt > per && !err) {
		uint64_t nnode = (cnt + per - 1) / per;

		for (uint64_t j = 0; j < nnode && !err; j++) {
			uint64_t c = cnt - j * per < per ? cnt - j * per : per;
			uint32_t blk = (uint32_t)(next + j * w->fsbs);
			uint32_t last = k[j * per + c - 1].hash;

			err = put_node(w, blk, level, k + j * per, c,
				       j + 1 < nnode ? blk + w->fsbs : 0,
				       j ? blk - w->fsbs : 0);
			k[j].hash = last;
			k[j].blk = blk;
		}
		next += nnode * w->fsbs;
		cnt = nnode;
		level++;
	}
	return err ? err : put_node(w, (uint32_t)leaf0, level, k, cnt, 0, 0);
}

/* The free index blocks from the start of the free space, each holding
 * the bests of its share of the @ndb data blocks. */
static int write_free(struct dw *w, uint64_t ndb, const uint16_t *bests)
{
	uint64_t maxb = xfsj_dir3_free_max_bests(w->bs);
	uint64_t free0 = (XFSJ_DIR2_FREE_OFFSET >> w->bytelog) * w->fsbs;
	struct xfsj_buf *bp;
	int err = 0;

	for (uint64_t first = 0, i = 0; first < ndb && !err;
	     first += maxb, i++) {
		uint64_t cnt = ndb - first < maxb ? ndb - first : maxb;
		uint8_t *b;

		err = new_block(w, free0 + i * w->fsbs, XFSJ_DIR3_FREE_MAGIC,
				4, &bp);
		if (err)
			break;
		b = bp->data;
		xfsj_put_be32(b + 48, (uint32_t)first);	/* firstdb */
		xfsj_put_be32(b + 52, (uint32_t)cnt);	/* nvalid */
		xfsj_put_be32(b + 56, (uint32_t)cnt);	/* nused */
		for (uint64_t j = 0; j < cnt; j++)
			xfsj_put_be16(b + XFSJ_DIR3_HDR_SIZE + 2 * j,
				      bests[first + j]);
	}
	return err;
}

/*
 * Node format: full data blocks; leafn blocks under a da btree of as
 * many node levels as they need, its root at the first block of the leaf
 * space; free index blocks at the start of the free space.
 */
static int write_node(struct dw *w, uint64_t ndb)
{
	uint64_t leaf0 = (XFSJ_DIR2_LEAF_OFFSET >> w->bytelog) * w->fsbs;
	uint64_t nleaf = node_leaves(w);
	uint16_t *bests = calloc(ndb, sizeof(*bests));
	struct dkey *k = calloc(nleaf, sizeof(*k));
	int err = -XFSJ_E_NOMEM;

	if (bests && k) {
		uint64_t maxb = xfsj_dir3_free_max_bests(w->bs);
		uint64_t free0 = (XFSJ_DIR2_FREE_OFFSET >> w->bytelog) *
				 w->fsbs;

		err = write_data(w, ndb, bests);
		if (!err)
			err = map_range(w, leaf0,
					leaf_space_blocks(w) * w->fsbs);
		if (!err)
			err = map_range(w, free0,
					(ndb + maxb - 1) / maxb * w->fsbs);
		if (!err)
			err = write_leafn(w, leaf0, k);
		if (!err)
			err = write_nodes(w, leaf0, k, nleaf);
		if (!err)
			err = write_free(w, ndb, bests);
	}
	free(k);
	free(bests);
	return err;
}

bool xfsj_dir_fits_block(const struct xfsj_sb *sb,
			const struct xfsj_dirent *ents, size_t n)
{
	bool ftype = (sb->features_incompat & XFSJ_INCOMPAT_FTYPE) != 0;
	uint64_t bs = (uint64_t)sb->blocksize << sb->dirblklog;
	uint64_t sz = XFSJ_DIR3_HDR_SIZE + DOT_BYTES(ftype) +
		      (n + 2) * XFSJ_DIR2_LEAF_ENT_SIZE + XFSJ_DIR2_BLOCK_TAIL;

	for (size_t i = 0; i < n && sz <= bs; i++)
		sz += xfsj_dir2_data_entsize(ents[i].namelen, ftype);
	return sz <= bs;
}

bool xfsj_dir_fits(const struct xfsj_sb *sb, const struct xfsj_dirent *ents,
		  size_t n)
{
	struct dw w = {
		.sb = sb, .ents = ents, .n = n,
		.ftype = (sb->features_incompat & XFSJ_INCOMPAT_FTYPE) != 0,
		.bs = sb->blocksize << sb->dirblklog,
		.bytelog = sb->blocklog + sb->dirblklog,
	};
	uint64_t ndb;

	if (xfsj_dir_fits_block(sb, ents, n))
		return true;
	ndb = leaf_data_blocks(&w);
	return leaf_fits(&w, ndb) || node_fits(&w, ndb);
}

/*
 * What a failed write puts back: the fork as it was before the new blocks
 * went in (their mappings were never touched; a short form's bytes).
 */
struct dw_old {
	struct xfsj_bmbt_irec *ext;
	size_t n;
	uint64_t size;
	uint8_t format;
	uint8_t *local;
	uint32_t forksize;
};

static int old_save(struct dw *w, struct dw_old *o)
{
	struct xfsj_iref *ip = w->ip;
	uint8_t *fork = xfsj_ifork(w->fs, ip, XFSJ_DATA_FORK, &o->forksize);

	o->size = ip->di.size;
	o->format = ip->di.format;
	if (ip->di.format == XFSJ_DINODE_FMT_EXTENTS ||
	    ip->di.format == XFSJ_DINODE_FMT_BTREE)
		return xfsj_bmap_read(w->fs, ip, XFSJ_DATA_FORK, &o->ext,
				      &o->n, w->f);
	o->local = malloc(o->forksize ? o->forksize : 1);
	if (!o->local)
		return -XFSJ_E_NOMEM;
	memcpy(o->local, fork, o->forksize);
	return 0;
}

/*
 * Where the new blocks are mapped while the old ones stay: above the
 * free index space (the directory's highest segment) and above every old
 * mapping, so that nothing the fork maps changes until the new blocks
 * are written.  0: in place (no old block, or no room above them).
 */
static uint64_t stage_span(const struct xfsj_sb *sb)
{
	return (XFSJ_DIR2_FREE_OFFSET + XFSJ_DIR2_LEAF_OFFSET) >> sb->blocklog;
}

static uint64_t stage_at(const struct dw *w, const struct dw_old *o)
{
	uint64_t span = stage_span(w->sb);
	uint64_t at = span, end;

	if (!o->n)
		return 0;
	end = o->ext[o->n - 1].startoff + o->ext[o->n - 1].blockcount;
	if (end > at)
		at = end;
	at += w->fsbs - 1;
	at -= at % w->fsbs;
	return at + span < XFSJ_MAX_FILEOFF ? at : 0;
}

/*
 * The written blocks take the old ones' place: the old mappings leave the
 * fork (their blocks freed, or kept for the AG rebuild), the staged ones
 * move down to the offsets they were written for.
 */
static int stage_commit(struct dw *w, const struct dw_old *o,
			bool keep_blocks)
{
	uint64_t first = o->ext[0].startoff, done;
	int err;

	err = xfsj_bmap_unmap(w->fs, w->ip, XFSJ_DATA_FORK, first,
			      o->ext[o->n - 1].startoff +
			      o->ext[o->n - 1].blockcount - first,
			      keep_blocks, &done, w->f);
	w->old_gone = true;
	if (!err)
		err = xfsj_bmap_unmap(w->fs, w->ip, XFSJ_DATA_FORK, w->stage,
				      stage_span(w->sb), true,
				      &done, w->f);
	for (size_t i = 0; i < w->nruns && !err; i++) {
		struct xfsj_bmbt_irec r = {
			.startoff = w->runs[i].off,
			.startblock = w->runs[i].fsb,
			.blockcount = w->runs[i].len,
		};

		err = xfsj_bmap_map(w->fs, w->ip, XFSJ_DATA_FORK, &r, w->f);
	}
	return err;
}

/*
 * A staged write that failed: the staged blocks leave the fork again and
 * the old fork is as it was.  The caller's fault keeps the first error.
 */
static int stage_undo(struct dw *w, const struct dw_old *o, bool keep_blocks)
{
	struct xfsj_fault f = { 0 };
	uint32_t forksize;
	uint8_t *fork;
	uint64_t done;
	int err = 0;

	if (w->old_gone)
		return -XFSJ_E_INVAL;
	err = xfsj_bmap_unmap(w->fs, w->ip, XFSJ_DATA_FORK, w->stage,
			      stage_span(w->sb), keep_blocks, &done, &f);
	for (size_t i = 0; i < w->nbufs; i++)
		xfsj_buf_forget(w->fs, w->bufs[i]);
	w->nbufs = 0;
	if (err)
		return err;
	w->ip->di.size = o->size;
	if (o->local) {
		/* A short form written as blocks: its bytes back. */
		fork = xfsj_ifork(w->fs, w->ip, XFSJ_DATA_FORK, &forksize);
		if (forksize != o->forksize || w->ip->di.nextents)
			return -XFSJ_E_INVAL;
		memcpy(fork, o->local, forksize);
		w->ip->di.format = o->format;
	}
	return 0;
}

/* Every directory format but the short form, into @w->ip's data fork. */
static int write_blocks(struct dw *w, bool block, bool leaf, uint64_t ndb)
{
	int err;

	w->le = calloc(w->n + 2, sizeof(*w->le));
	if (!w->le)
		return -XFSJ_E_NOMEM;
	err = block ? write_block(w) : leaf ? write_leaf(w, ndb) :
	      write_node(w, ndb);
	free(w->le);
	w->le = NULL;
	return err;
}

/*
 * One write of the directory.  @staged: the new blocks are written while
 * the old ones stay mapped (stage_at), and take their place only once all
 * are written; a failure on the way leaves the directory as it was
 * (*@undone).  Otherwise, or for a short form (which allocates nothing),
 * the old blocks leave first (a short form written as blocks is put back
 * when that fails).
 */
static int dir_write(struct xfsj_fs *fs, uint64_t dir, uint64_t parent,
		     const struct xfsj_dirent *ents, size_t n,
		     bool keep_blocks, bool staged, bool *undone,
		     struct xfsj_fault *f)
{
	const struct xfsj_sb *sb = xfsj_fs_sb(fs);
	struct xfsj_iref ip;
	struct dw w = {
		.fs = fs, .sb = sb, .ip = &ip, .f = f, .dir = dir,
		.parent = parent,
		.ents = ents, .n = n,
		.ftype = (sb->features_incompat & XFSJ_INCOMPAT_FTYPE) != 0,
		.bs = sb->blocksize << sb->dirblklog, .fsbs = 1U << sb->dirblklog,
		.bytelog = sb->blocklog + sb->dirblklog,
		.want = XFSJ_BMBT_MAX_EXTLEN,
	};
	struct dw_old old = { 0 };
	bool block = xfsj_dir_fits_block(sb, ents, n);
	uint64_t ndb = block ? 1 : leaf_data_blocks(&w);
	bool leaf = !block && leaf_fits(&w, ndb);
	uint32_t forksize;
	uint8_t *fork;
	size_t sfsize;
	int err;

	*undone = false;
	if (!block && !leaf && !node_fits(&w, ndb))
		return xfsj_fault_set(f, XFSJ_E_NOSPC, "directory", "entries",
				      dir, n);
	err = xfsj_iget(fs, dir, true, &ip, f);
	if (err)
		return err;
	fork = xfsj_ifork(fs, &ip, XFSJ_DATA_FORK, &forksize);
	sfsize = xfsj_dir_sf_size(parent, ents, (unsigned int)n, w.ftype);
	if (block && n <= 255 && sfsize <= forksize)
		staged = false;
	/* A directory with no entry and no block keeps nothing (a new one
	 * of mkfs -p: no copy of it made). */
	if (ip.di.format == XFSJ_DINODE_FMT_LOCAL ?
	    ip.di.size <= SF_HDR_MAX :
	    !xfsj_dinode_nextents(&ip.di))
		staged = false;
	if (staged) {
		err = old_save(&w, &old);
		if (err)
			goto out;
		w.stage = stage_at(&w, &old);
	}
	if (!w.stage) {
		err = unmap_data(fs, &ip, keep_blocks, f);
		if (err)
			goto out;
		xfsj_iput(fs, &ip, true);
		err = xfsj_defer_finish(fs, f);
		if (!err)
			err = xfsj_iget(fs, dir, true, &ip, f);
		if (err)
			goto out;
		fork = xfsj_ifork(fs, &ip, XFSJ_DATA_FORK, &forksize);
	}
	if (block && n <= 255 && sfsize <= forksize) {
		int len;

		memset(fork, 0, forksize);
		len = xfsj_dir_sf_encode(parent, ents, (unsigned int)n,
					 w.ftype, fork, forksize);
		if (len < 0) {
			err = xfsj_fault_set(f, -len, "directory",
					     "short form", dir, n);
			goto out;
		}
		ip.di.format = XFSJ_DINODE_FMT_LOCAL;
		ip.di.size = (uint64_t)len;
		xfsj_iput(fs, &ip, true);
		goto out;
	}
	if (ip.di.format != XFSJ_DINODE_FMT_EXTENTS &&
	    ip.di.format != XFSJ_DINODE_FMT_BTREE) {
		memset(fork, 0, forksize);
		ip.di.format = XFSJ_DINODE_FMT_EXTENTS;
	}
	err = write_blocks(&w, block, leaf, ndb);
	if (!err && w.stage)
		err = stage_commit(&w, &old, keep_blocks);
	if (err && (w.stage || old.local)) {
		/* (what cannot be undone is left to the next check) */
		bool back = !stage_undo(&w, &old, keep_blocks);

		xfsj_iput(fs, &ip, true);
		*undone = !xfsj_defer_finish(fs, &(struct xfsj_fault){ 0 }) &&
			  back && w.stage;
		goto out;
	}
	xfsj_iput(fs, &ip, true);
	if (!err)
		err = xfsj_defer_finish(fs, f);
	for (size_t i = 0; i < w.nbufs && !err; i++)
		err = xfsj_dirbuf_put(fs, w.bufs[i], w.fsbs, f);
out:
	free(w.bufs);
	free(w.runs);
	free(old.ext);
	free(old.local);
	return err;
}

int xfsj_dir_write(struct xfsj_fs *fs, uint64_t dir, uint64_t parent,
		  const struct xfsj_dirent *ents, size_t n, bool keep_blocks,
		  struct xfsj_fault *f)
{
	struct xfsj_fault first = *f;
	bool undone;
	int err;

	err = dir_write(fs, dir, parent, ents, n, keep_blocks, true, &undone,
			f);
	/*
	 * No room for the new blocks beside the old ones: in place, the old
	 * blocks freed first, as xfs_repair rebuilds a directory (not when
	 * they are kept: that frees nothing).
	 */
	if (err == -XFSJ_E_NOSPC && undone && !keep_blocks) {
		*f = first;
		err = dir_write(fs, dir, parent, ents, n, keep_blocks, false,
				&undone, f);
	}
	return err;
}
