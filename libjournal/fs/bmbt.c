/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The bmbt (bmbt.h): its ops row for the generic engine, and the one
 * reader that walks a bmbt level by level from the root in the inode.
 *
 * Layout (xfs_bmap_btree.h, as facts): a block is the long v5 header,
 * then 16-byte records (leaf) or 8-byte keys (the first file offset under
 * the child) followed, after room for maxrecs keys, by 8-byte fsbno
 * pointers.  The inode root is a 4-byte header (level, numrecs), then
 * keys and pointers the same way, with room for as many keys as the
 * fork's bytes can hold.
 */
#include <stdlib.h>
#include <string.h>

#include "core/crc32c.h"
#include "core/grow.h"
#include "core/u64set.h"
#include "fs/bmbt.h"
#include "fs/btree_priv.h"
#include "ondisk/bmdr.h"

/* btree_priv.h's HDR is the short header's. */
#undef HDR
#define HDR		XFSJ_LBLOCK_HDR_SIZE
#define LB(field)	XFSJ_LB_OFF(field)
#define BMAP_MAGIC	(xfsj_btree_shape(XFSJ_BT_BMAP)->magic)
#define REC_SIZE	XFSJ_BMBT_REC_SIZE
#define MAXLEVELS	XFSJ_BTREE_MAXLEVELS

/* ---- the engine's ops row ---- */

static void bmbt_rec_encode(const struct xfsj_btree_cur *cur,
			    const union xfsj_btree_irec *irec, uint8_t *rec)
{
	(void)cur;
	xfsj_bmbt_rec_encode(&irec->b, rec);
}

static void bmbt_rec_decode(const struct xfsj_btree_cur *cur,
			    const uint8_t *rec, union xfsj_btree_irec *irec)
{
	(void)cur;
	memset(irec, 0, sizeof(*irec));
	xfsj_bmbt_rec_decode(rec, &irec->b);
}

static void bmbt_key_from_rec(uint8_t *key, const uint8_t *rec)
{
	struct xfsj_bmbt_irec r;

	xfsj_bmbt_rec_decode(rec, &r);
	xfsj_put_be64(key, r.startoff);
}

static void bmbt_high_key_from_rec(uint8_t *key, const uint8_t *rec)
{
	struct xfsj_bmbt_irec r;

	xfsj_bmbt_rec_decode(rec, &r);
	xfsj_put_be64(key, r.startoff + r.blockcount - 1);
}

static int bmbt_cmp_keys(const uint8_t *k1, const uint8_t *k2)
{
	uint64_t a = xfsj_get_be64(k1), b = xfsj_get_be64(k2);

	return a < b ? -1 : a > b;
}

static bool bmbt_recs_inorder(const uint8_t *r1, const uint8_t *r2)
{
	struct xfsj_bmbt_irec a, b;

	xfsj_bmbt_rec_decode(r1, &a);
	xfsj_bmbt_rec_decode(r2, &b);
	return a.startoff + a.blockcount <= b.startoff;
}

/* No AG header holds its root: the root hooks stay empty. */
const struct xfsj_btree_ops xfsj_bmbt_ops = {
	.bt = XFSJ_BT_BMAP,
	.rec_encode = bmbt_rec_encode,
	.rec_decode = bmbt_rec_decode,
	.key_from_rec = bmbt_key_from_rec,
	.high_key_from_rec = bmbt_high_key_from_rec,
	.cmp_keys = bmbt_cmp_keys,
	.recs_inorder = bmbt_recs_inorder,
};

/* ---- the level-by-level walk ---- */

/* A pointer still to follow, with its parent's key for the child. */
struct pend {
	uint64_t fsb;
	uint8_t key[8];
	uint64_t ptr_off, key_off;	/* device byte offsets, for faults */
};

struct pendq {
	struct pend *v;
	size_t n, cap;
};

/* Queue the @n children of a node (or the root) whose keys are at @keys
 * (device offset @koff) and pointers @gap bytes further. */
static int queue_children(struct pendq *q, const uint8_t *keys, size_t gap,
			  unsigned int n, uint64_t koff)
{
	int err = xfsj_grow(&q->v, &q->cap, q->n, n, sizeof(*q->v), 16);

	if (err)
		return err;
	for (unsigned int i = 0; i < n; i++) {
		struct pend *p = &q->v[q->n++];

		p->fsb = xfsj_get_be64(keys + gap + i * 8);
		memcpy(p->key, keys + i * 8, 8);
		p->key_off = koff + i * 8;
		p->ptr_off = koff + gap + i * 8;
	}
	return 0;
}

/*
 * Visit the block @p leads to at @level.  0 with *blk (and its device
 * byte offset, record count) to go on below it; XFSJ_BMBT_SKIP to leave
 * its subtree; or an error.
 */
typedef int (*visit_fn)(void *ctx, unsigned int level, const struct pend *p,
			const uint8_t **blk, uint64_t *boff,
			unsigned int *nrecs);

/*
 * The one walk: the root's children, then theirs, level by level, each
 * level in key order.  @maxr: keys a node block has room for.
 */
static int walk_levels(const uint8_t *root, unsigned int dmaxr,
		       unsigned int nroot, uint64_t root_off,
		       unsigned int height, unsigned int maxr, visit_fn visit,
		       void *ctx)
{
	struct pendq cur = { NULL, 0, 0 }, next = { NULL, 0, 0 };
	int err;

	err = queue_children(&cur, root + XFSJ_BMDR_HDR_SIZE, (size_t)dmaxr * 8,
			     nroot, root_off + XFSJ_BMDR_HDR_SIZE);
	for (unsigned int level = height; !err && level-- > 0;) {
		next.n = 0;
		for (size_t i = 0; !err && i < cur.n; i++) {
			const uint8_t *b;
			uint64_t boff;
			unsigned int nrecs;

			err = visit(ctx, level, &cur.v[i], &b, &boff, &nrecs);
			if (err == XFSJ_BMBT_SKIP) {
				err = 0;
				continue;
			}
			if (!err && level > 0)
				err = queue_children(&next, b + HDR,
						     (size_t)maxr * 8, nrecs,
						     boff + HDR);
		}
		struct pendq t = cur;

		cur = next;
		next = t;
	}
	free(cur.v);
	free(next.v);
	return err;
}

/* ---- reading a fork whole ---- */

struct fork_ctx {
	struct xfsj_fs *fs;
	const struct xfsj_iref *ip;
	struct xfsj_bmbt_fork *bf;
	uint64_t want;		/* the extent count the inode claims */
	struct xfsj_u64set seen;	/* blocks reached */
	struct xfsj_fault *f;
};

bool xfsj_fsbext_ok(const struct xfsj_fs *fs, uint64_t fsb, uint64_t len)
{
	const struct xfsj_sb *sb = xfsj_fs_sb(fs);

	if (len == 0 || (fsb >> sb->agblklog) >= sb->agcount)
		return false;
	return (uint64_t)xfsj_fsb_agbno(sb, fsb) + len <=
	       xfsj_fs_ag_blocks(fs, xfsj_fsb_agno(sb, fsb));
}

static int bad_block(struct xfsj_fault *f, int err, const char *field,
		     uint64_t daddr, size_t off, uint64_t val)
{
	return xfsj_fault_set(f, err, "bmap btree block", field,
			      (daddr << 9) + off, val);
}

int xfsj_bmbt_fork_insert(struct xfsj_bmbt_fork *bf, size_t k,
			  const struct xfsj_bmbt_irec *r)
{
	int err = xfsj_grow(&bf->ext, &bf->cap, bf->n, 1, sizeof(*bf->ext),
			    16);

	if (err)
		return err;
	memmove(&bf->ext[k + 1], &bf->ext[k], (bf->n - k) * sizeof(*bf->ext));
	bf->ext[k] = *r;
	bf->n++;
	return 0;
}

int xfsj_bmbt_fork_insert_blk(struct xfsj_bmbt_fork *bf, unsigned int l,
			      size_t at, const struct xfsj_bmbt_blk *b)
{
	int err = xfsj_grow(&bf->lv[l], &bf->caplv[l], bf->nlv[l], 1,
			    sizeof(*b), 16);

	if (err)
		return err;
	memmove(&bf->lv[l][at + 1], &bf->lv[l][at],
		(bf->nlv[l] - at) * sizeof(*b));
	bf->lv[l][at] = *b;
	bf->nlv[l]++;
	return 0;
}

/* Append the @n records at @p (device offset @off), checking each. */
static int add_records(struct fork_ctx *c, const uint8_t *p, size_t n,
		       uint64_t off)
{
	struct xfsj_bmbt_fork *bf = c->bf;
	struct xfsj_fault *f = c->f;

	if (bf->n + n > c->want)
		return xfsj_fault_set(f, XFSJ_E_CORRUPT, "bmap",
				      "more extents than nextents", off,
				      c->want);
	for (size_t i = 0; i < n; i++) {
		struct xfsj_bmbt_irec r;
		const struct xfsj_bmbt_irec *last = bf->n ?
						    &bf->ext[bf->n - 1] : NULL;
		int err;

		xfsj_bmbt_rec_decode(p + i * REC_SIZE, &r);
		if (!xfsj_fsbext_ok(c->fs, r.startblock, r.blockcount))
			return xfsj_fault_set(f, XFSJ_E_CORRUPT, "bmap extent",
					      "startblock", off + i * REC_SIZE,
					      r.startblock);
		if (r.startoff + r.blockcount > XFSJ_MAX_FILEOFF ||
		    (last && r.startoff < last->startoff + last->blockcount))
			return xfsj_fault_set(f, XFSJ_E_CORRUPT, "bmap extent",
					      "startoff", off + i * REC_SIZE,
					      r.startoff);
		err = xfsj_bmbt_fork_insert(bf, bf->n, &r);
		if (err)
			return err;
	}
	return 0;
}

/* The header of block @fsb (at @daddr) read for @level of @c's fork. */
static int check_header(struct fork_ctx *c, const struct xfsj_buf *bp,
			uint64_t fsb, unsigned int level)
{
	const struct xfsj_sb *sb = xfsj_fs_sb(c->fs);
	struct xfsj_bmbt_fork *bf = c->bf;
	uint64_t daddr = bp->daddr;
	struct xfsj_fault *f = c->f;
	struct xfsj_bmbt_blk *prev;
	struct xfsj_lblock h;
	struct xfsj_vctx vc;

	xfsj_lblock_decode(bp->data, &h);
	xfsj_fs_vctx(c->fs, xfsj_fsb_agno(sb, fsb), &vc);
	if (h.magic != BMAP_MAGIC)
		return bad_block(f, XFSJ_E_BADMAGIC, "magic", daddr, 0,
				 h.magic);
	/* A dirty buffer was changed here since it was read and verified;
	 * its CRC is computed again at flush. */
	if (!bp->dirty &&
	    !xfsj_cksum_ok(bp->data, sb->blocksize, XFSJ_LBLOCK_CRC_OFF))
		return bad_block(f, XFSJ_E_BADCRC, "crc", daddr,
				 XFSJ_LBLOCK_CRC_OFF, 0);
	if (memcmp(h.uuid, vc.uuid, 16))
		return bad_block(f, XFSJ_E_CORRUPT, "uuid", daddr, LB(uuid), 0);
	if (h.blkno != daddr)
		return bad_block(f, XFSJ_E_CORRUPT, "blkno", daddr, LB(blkno),
				 h.blkno);
	if (h.owner != c->ip->ino)
		return bad_block(f, XFSJ_E_CORRUPT, "owner", daddr, LB(owner),
				 h.owner);
	if (h.level != level)
		return bad_block(f, XFSJ_E_CORRUPT, "level", daddr, LB(level),
				 h.level);
	if (h.numrecs == 0 || h.numrecs > bf->maxr)
		return bad_block(f, XFSJ_E_CORRUPT, "numrecs", daddr,
				 LB(numrecs), h.numrecs);
	/* The sibling chain must match the order the tree gives. */
	prev = bf->nlv[level] ? &bf->lv[level][bf->nlv[level] - 1] : NULL;
	if (h.leftsib != (prev ? prev->fsbno : XFSJ_NULLFSBLOCK))
		return bad_block(f, XFSJ_E_CORRUPT, "leftsib", daddr,
				 LB(leftsib), h.leftsib);
	if (prev && xfsj_get_be64(prev->bp->data + LB(rightsib)) != fsb)
		return bad_block(f, XFSJ_E_CORRUPT, "rightsib",
				 prev->bp->daddr, LB(rightsib),
				 xfsj_get_be64(prev->bp->data + LB(rightsib)));
	return 0;
}

static int fork_visit(void *ctx, unsigned int level, const struct pend *p,
		      const uint8_t **blk, uint64_t *boff, unsigned int *nrecs)
{
	struct fork_ctx *c = ctx;
	struct xfsj_bmbt_fork *bf = c->bf;
	const struct xfsj_sb *sb = xfsj_fs_sb(c->fs);
	uint64_t daddr = xfsj_fsb_daddr(sb, p->fsb);
	uint8_t first[8];
	struct xfsj_buf *bp;
	unsigned int n;
	int err;

	if (!xfsj_fsbext_ok(c->fs, p->fsb, 1))
		return xfsj_fault_set(c->f, XFSJ_E_CORRUPT, "bmap btree",
				      "ptr", p->ptr_off, p->fsb);
	err = xfsj_u64set_add(&c->seen, p->fsb);
	if (err < 0)
		return err;
	if (err)
		return bad_block(c->f, XFSJ_E_CORRUPT, "block used twice",
				 daddr, 0, p->fsb);
	err = xfsj_buf_read(c->fs, daddr, sb->blocksize, &bp);
	if (err)
		return bad_block(c->f, -err, "read", daddr, 0, p->fsb);
	err = check_header(c, bp, p->fsb, level);
	if (err)
		return err;
	n = xfsj_get_be16(bp->data + LB(numrecs));
	err = xfsj_bmbt_fork_insert_blk(bf, level, bf->nlv[level],
					&(struct xfsj_bmbt_blk){ p->fsb, bp,
								 n, false });
	if (err)
		return err;
	/* The parent's key is the first offset under the child. */
	if (level == 0)
		xfsj_bmbt_ops.key_from_rec(first, bp->data + HDR);
	else
		memcpy(first, bp->data + HDR, 8);
	if (xfsj_bmbt_ops.cmp_keys(first, p->key))
		return xfsj_fault_set(c->f, XFSJ_E_CORRUPT, "bmap btree", "key",
				      p->key_off, xfsj_get_be64(p->key));
	if (level == 0) {
		err = add_records(c, bp->data + HDR, n, (daddr << 9) + HDR);
		if (err)
			return err;
	}
	*blk = bp->data;
	*boff = daddr << 9;
	*nrecs = n;
	return 0;
}

/* The last block of each level must end its sibling chain. */
static int check_chain_ends(const struct xfsj_bmbt_fork *bf,
			    struct xfsj_fault *f)
{
	for (unsigned int l = 0; l < bf->height; l++) {
		const struct xfsj_bmbt_blk *b;
		uint64_t right;

		if (!bf->nlv[l])
			continue;
		b = &bf->lv[l][bf->nlv[l] - 1];
		right = xfsj_get_be64(b->bp->data + LB(rightsib));
		if (right != XFSJ_NULLFSBLOCK)
			return bad_block(f, XFSJ_E_CORRUPT, "rightsib",
					 b->bp->daddr, LB(rightsib), right);
	}
	return 0;
}

static int read_btree(struct fork_ctx *c, const uint8_t *area, uint64_t off)
{
	struct xfsj_bmbt_fork *bf = c->bf;
	uint16_t level = xfsj_get_be16(area);
	uint16_t numrecs = xfsj_get_be16(area + 2);
	int err;

	if (level == 0 || level >= MAXLEVELS)
		return xfsj_fault_set(c->f, XFSJ_E_CORRUPT, "bmap root",
				      "level", off, level);
	if (numrecs == 0 || numrecs > bf->dmaxr)
		return xfsj_fault_set(c->f, XFSJ_E_CORRUPT, "bmap root",
				      "numrecs", off + 2, numrecs);
	bf->height = level;
	bf->rootcnt = numrecs;
	err = walk_levels(area, bf->dmaxr, numrecs, off, level, bf->maxr,
			  fork_visit, c);
	if (!err)
		err = check_chain_ends(bf, c->f);
	return err;
}

int xfsj_bmbt_fork_read(struct xfsj_fs *fs, const struct xfsj_iref *ip,
			int whichfork, struct xfsj_bmbt_fork *bf,
			struct xfsj_fault *f)
{
	const struct xfsj_dinode *di = &ip->di;
	bool attr = whichfork == XFSJ_ATTR_FORK;
	unsigned int format = attr ? di->aformat : di->format;
	const char *count = attr ? "anextents" : "nextents";
	struct fork_ctx c = { fs, ip, bf, 0, { 0 }, f };
	const uint8_t *area;
	uint32_t size;
	uint64_t off;
	int err;

	memset(bf, 0, sizeof(*bf));
	c.want = attr ? xfsj_dinode_anextents(di) : xfsj_dinode_nextents(di);
	area = xfsj_ifork(fs, ip, whichfork, &size);
	off = ip->byte_off + (uint64_t)(area - ip->dip);
	bf->maxr = xfsj_btree_maxrecs(XFSJ_BT_BMAP, xfsj_fs_sb(fs)->blocksize,
				      true);
	bf->dmaxr = xfsj_bmdr_room(size);
	switch (format) {
	case XFSJ_DINODE_FMT_EXTENTS:
		if (c.want > size / REC_SIZE)
			return xfsj_fault_set(f, XFSJ_E_CORRUPT, "inode", count,
					      ip->byte_off, c.want);
		return add_records(&c, area, (size_t)c.want, off);
	case XFSJ_DINODE_FMT_BTREE:
		err = read_btree(&c, area, off);
		xfsj_u64set_free(&c.seen);
		if (!err && bf->n != c.want)
			err = xfsj_fault_set(f, XFSJ_E_CORRUPT, "inode", count,
					     ip->byte_off, c.want);
		return err;
	default:
		return xfsj_fault_set(f, XFSJ_E_CORRUPT, "inode",
				      attr ? "aformat" : "format",
				      ip->byte_off + (attr ? 83 : 5), format);
	}
}

void xfsj_bmbt_fork_free(struct xfsj_bmbt_fork *bf)
{
	free(bf->ext);
	for (unsigned int l = 0; l < MAXLEVELS; l++)
		free(bf->lv[l]);
	memset(bf, 0, sizeof(*bf));
}

/* ---- walking what the device holds (log recovery) ---- */

struct disk_ctx {
	struct xfsj_overlay *ov;
	const struct xfsj_sb *sb;
	uint64_t budget;
	unsigned int maxr;
	uint8_t *buf;
	xfsj_bmbt_disk_fn fn;
	void *arg;
	struct xfsj_fault *f;
};

static int disk_visit(void *ctx, unsigned int level, const struct pend *p,
		      const uint8_t **blk, uint64_t *boff, unsigned int *nrecs)
{
	struct disk_ctx *c = ctx;
	const struct xfsj_sb *sb = c->sb;
	struct xfsj_bmbt_disk_blk b = { p->fsb, 0, level, NULL };
	unsigned int n = 0;
	int err;

	if (!c->budget--)
		return xfsj_fault_set(c->f, XFSJ_E_CORRUPT, "bmap btree",
				      "size (a loop?)", p->ptr_off, p->fsb);
	if (xfsj_fsb_agno(sb, p->fsb) < sb->agcount &&
	    xfsj_fsb_agbno(sb, p->fsb) < sb->agblocks) {
		b.daddr = xfsj_fsb_daddr(sb, p->fsb);
		err = xfsj_overlay_read(c->ov, c->buf, sb->blocksize,
					b.daddr << 9);
		if (err)
			return xfsj_fault_set(c->f, err, "bmap btree block",
					      "read", b.daddr << 9, p->fsb);
		n = xfsj_get_be16(c->buf + LB(numrecs));
		if (xfsj_get_be32(c->buf) == BMAP_MAGIC &&
		    xfsj_get_be16(c->buf + LB(level)) == level && n <= c->maxr)
			b.data = c->buf;
	}
	err = c->fn(c->arg, &b, c->f);
	if (err < 0)
		return err;
	if (err == XFSJ_BMBT_SKIP || !b.data)
		return XFSJ_BMBT_SKIP;
	*blk = c->buf;
	*boff = b.daddr << 9;
	*nrecs = n;
	return 0;
}

int xfsj_bmbt_walk_disk(struct xfsj_overlay *ov, const struct xfsj_sb *sb,
			const uint8_t *root, uint32_t rootsize,
			const char *rootname, xfsj_bmbt_disk_fn fn, void *arg,
			struct xfsj_fault *f)
{
	struct disk_ctx c = { ov, sb, sb->dblocks,
			      xfsj_btree_maxrecs(XFSJ_BT_BMAP, sb->blocksize,
						 false),
			      NULL, fn, arg, f };
	struct xfsj_bmdr r;
	int err;

	if (!xfsj_bmdr_decode(root, rootsize, &r))
		return xfsj_fault_set(f, XFSJ_E_CORRUPT, rootname,
				      "bmdr root size", 0, rootsize);
	if (!r.level || r.level > XFSJ_BMBT_DISK_MAXLEVELS ||
	    r.numrecs > r.maxr)
		return xfsj_fault_set(f, XFSJ_E_CORRUPT, rootname, "bmdr root",
				      0, r.level);
	c.buf = malloc(sb->blocksize);
	if (!c.buf)
		return xfsj_fault_set(f, XFSJ_E_NOMEM, "bmap btree", "block",
				      0, sb->blocksize);
	err = walk_levels(root, r.maxr, r.numrecs, 0, r.level, c.maxr,
			  disk_visit, &c);
	free(c.buf);
	return err;
}
