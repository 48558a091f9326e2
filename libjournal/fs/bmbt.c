/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The bmbt (bmbt.h): its ops row for the generic engine, the reader of
 * a whole fork and log recovery's walk of the device, both on the one
 * descent (bmbt_walk.c).
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

#include "core/grow.h"
#include "fs/bmbt.h"
#include "fs/bmbt_walk.h"
#include "fs/btree_priv.h"
#include "ondisk/bmdr.h"
#include "ondisk/meta.h"

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

/* ---- reading a fork whole ---- */

struct fork_ctx {
	struct xfsj_fs *fs;
	const struct xfsj_iref *ip;
	struct xfsj_bmbt_fork *bf;
	uint64_t want;		/* the extent count the inode claims */
	struct xfsj_buf *bp;	/* the block being walked */
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

/* Append the record at @p (device offset @off), checking it. */
static int add_record(struct fork_ctx *c, const uint8_t *p, uint64_t off)
{
	struct xfsj_bmbt_fork *bf = c->bf;
	const struct xfsj_bmbt_irec *last = bf->n ? &bf->ext[bf->n - 1] : NULL;
	struct xfsj_fault *f = c->f;
	struct xfsj_bmbt_irec r;

	if (bf->n + 1 > c->want)
		return xfsj_fault_set(f, XFSJ_E_CORRUPT, "bmap",
				      "more extents than nextents", off,
				      c->want);
	xfsj_bmbt_rec_decode(p, &r);
	if (!xfsj_fsbext_ok(c->fs, r.startblock, r.blockcount))
		return xfsj_fault_set(f, XFSJ_E_CORRUPT, "bmap extent",
				      "startblock", off, r.startblock);
	if (r.startoff + r.blockcount > XFSJ_MAX_FILEOFF ||
	    (last && r.startoff < last->startoff + last->blockcount))
		return xfsj_fault_set(f, XFSJ_E_CORRUPT, "bmap extent",
				      "startoff", off, r.startoff);
	return xfsj_bmbt_fork_insert(bf, bf->n, &r);
}

int xfsj_bmbt_wblk_read(struct xfsj_fs *fs, struct xfsj_bmbt_wblk *b)
{
	struct xfsj_buf *bp;
	int err = xfsj_buf_read_ref(fs, b->daddr, xfsj_fs_sb(fs)->blocksize,
				    &bp);

	if (err)
		return err;
	b->data = bp->data;
	b->priv = bp;
	return 0;
}

void xfsj_bmbt_wblk_put(struct xfsj_fs *fs, struct xfsj_bmbt_wblk *b)
{
	xfsj_buf_rele(fs, b->priv);
}

static bool fork_ptr_ok(void *arg, uint64_t fsb)
{
	struct fork_ctx *c = arg;

	return xfsj_fsbext_ok(c->fs, fsb, 1);
}

static int fork_read_blk(void *arg, struct xfsj_bmbt_wblk *b)
{
	struct fork_ctx *c = arg;
	int err = xfsj_buf_read(c->fs, b->daddr, xfsj_fs_sb(c->fs)->blocksize,
				&c->bp);

	if (err)
		return xfsj_fault_set(c->f, -err, "bmap btree block", "read",
				      b->daddr << 9, b->fsbno);
	b->data = c->bp->data;
	return 0;
}

/* What each finding is called; every one stops the reader. */
static const char *const fork_fault_field[] = {
	[XFSJ_BMBT_F_ROOT_SIZE] = "numrecs",
	[XFSJ_BMBT_F_ROOT_LEVEL] = "level",
	[XFSJ_BMBT_F_ROOT_NUMRECS] = "numrecs",
	[XFSJ_BMBT_F_PTR] = "ptr",
	[XFSJ_BMBT_F_LIMIT] = "size (a loop?)",
	[XFSJ_BMBT_F_DUP] = "block used twice",
	[XFSJ_BMBT_F_MAGIC] = "magic",
	[XFSJ_BMBT_F_CRC] = "crc",
	[XFSJ_BMBT_F_UUID] = "uuid",
	[XFSJ_BMBT_F_OWNER] = "owner",
	[XFSJ_BMBT_F_BLKNO] = "blkno",
	[XFSJ_BMBT_F_LEVEL] = "level",
	[XFSJ_BMBT_F_NUMRECS] = "numrecs",
	[XFSJ_BMBT_F_LEFTSIB] = "leftsib",
	[XFSJ_BMBT_F_RIGHTSIB] = "rightsib",
	[XFSJ_BMBT_F_KEY] = "key",
};

static int fork_fault(void *arg, struct xfsj_bmbt_wblk *b,
		      const struct xfsj_bmbt_fault *ft)
{
	struct fork_ctx *c = arg;
	const char *what = "bmap btree block";
	int err = XFSJ_E_CORRUPT;

	switch (ft->kind) {
	case XFSJ_BMBT_F_KEY_ORDER:	/* the records' order is checked */
		return 0;
	case XFSJ_BMBT_F_CRC:
		/* A dirty buffer was changed here since it was read and
		 * verified; its CRC is computed again at flush. */
		if (b && c->bp->dirty)
			return 0;
		err = XFSJ_E_BADCRC;
		break;
	case XFSJ_BMBT_F_MAGIC:
		err = XFSJ_E_BADMAGIC;
		break;
	case XFSJ_BMBT_F_ROOT_SIZE:
	case XFSJ_BMBT_F_ROOT_LEVEL:
	case XFSJ_BMBT_F_ROOT_NUMRECS:
		what = "bmap root";
		break;
	case XFSJ_BMBT_F_PTR:
	case XFSJ_BMBT_F_LIMIT:
	case XFSJ_BMBT_F_KEY:
		what = "bmap btree";
		break;
	default:
		break;
	}
	return xfsj_fault_set(c->f, err, what, fork_fault_field[ft->kind],
			      ft->where, ft->kind == XFSJ_BMBT_F_KEY ?
					 ft->expected : ft->found);
}

static int fork_node(void *arg, struct xfsj_bmbt_wblk *b)
{
	struct fork_ctx *c = arg;
	struct xfsj_bmbt_fork *bf = c->bf;

	return xfsj_bmbt_fork_insert_blk(bf, b->level, bf->nlv[b->level],
					 &(struct xfsj_bmbt_blk){
						b->fsbno, c->bp, b->nrecs,
						false });
}

static int fork_rec(void *arg, const struct xfsj_bmbt_wblk *b, unsigned int i,
		    const uint8_t *rec, uint64_t where)
{
	(void)b;
	(void)i;
	return add_record(arg, rec, where);
}

static const struct xfsj_bmbt_walk_ops fork_walk_ops = {
	.ptr_ok = fork_ptr_ok,
	.read = fork_read_blk,
	.fault = fork_fault,
	.node = fork_node,
	.rec = fork_rec,
};

static int read_btree(struct fork_ctx *c, const uint8_t *area, uint32_t size,
		      uint64_t off)
{
	const struct xfsj_sb *sb = xfsj_fs_sb(c->fs);
	struct xfsj_bmbt_walk w;
	int err;

	xfsj_bmbt_walk_init(&w, sb, c->ip->ino, &fork_walk_ops, c);
	w.uuid = xfsj_meta_fs_uuid(sb);
	w.crc = true;
	w.root_off = off;
	err = xfsj_bmbt_descend(&w, area, size);
	xfsj_bmbt_walk_free(&w);
	c->bf->height = w.height;
	c->bf->rootcnt = w.rootcnt;
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
	struct fork_ctx c = { fs, ip, bf, 0, NULL, f };
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
		for (uint64_t i = 0; i < c.want; i++) {
			err = add_record(&c, area + i * REC_SIZE,
					 off + i * REC_SIZE);
			if (err)
				return err;
		}
		return 0;
	case XFSJ_DINODE_FMT_BTREE:
		err = read_btree(&c, area, size, off);
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
	const char *rootname;
	uint8_t *buf;		/* a block for each level */
	xfsj_bmbt_disk_fn fn;
	void *arg;
	struct xfsj_fault *f;
};

static bool disk_ptr_ok(void *arg, uint64_t fsb)
{
	const struct xfsj_sb *sb = ((struct disk_ctx *)arg)->sb;

	return xfsj_fsb_agno(sb, fsb) < sb->agcount &&
	       xfsj_fsb_agbno(sb, fsb) < sb->agblocks;
}

static int disk_read(void *arg, struct xfsj_bmbt_wblk *b)
{
	struct disk_ctx *c = arg;
	uint32_t bs = c->sb->blocksize;
	uint8_t *buf = c->buf + (size_t)b->level * bs;
	int err = xfsj_overlay_read(c->ov, buf, bs, b->daddr << 9);

	if (err)
		return xfsj_fault_set(c->f, err, "bmap btree block", "read",
				      b->daddr << 9, b->fsbno);
	b->data = buf;
	return 0;
}

/* Hand the user a block: @data NULL when it is not one to go into. */
static int disk_give(struct disk_ctx *c, uint64_t fsb, uint64_t daddr,
		     unsigned int level, uint8_t *data)
{
	struct xfsj_bmbt_disk_blk b = { fsb, daddr, level, data };
	int err = c->fn(c->arg, &b, c->f);

	if (err < 0)
		return err;
	return err == XFSJ_BMBT_SKIP || !data ? XFSJ_BMBT_SKIP : 0;
}

/* Past a block that is not a bmbt block of its level with a possible
 * count, or a pointer outside the filesystem: the user is told. */
static int disk_fault(void *arg, struct xfsj_bmbt_wblk *b,
		      const struct xfsj_bmbt_fault *ft)
{
	struct disk_ctx *c = arg;

	switch (ft->kind) {
	case XFSJ_BMBT_F_ROOT_SIZE:
		return xfsj_fault_set(c->f, XFSJ_E_CORRUPT, c->rootname,
				      "bmdr root size", 0, ft->found);
	case XFSJ_BMBT_F_ROOT_NUMRECS:
		if (!ft->found)
			return 0;
		/* fall through */
	case XFSJ_BMBT_F_ROOT_LEVEL:
		return xfsj_fault_set(c->f, XFSJ_E_CORRUPT, c->rootname,
				      "bmdr root", 0, ft->level);
	case XFSJ_BMBT_F_LIMIT:
		return xfsj_fault_set(c->f, XFSJ_E_CORRUPT, "bmap btree",
				      "size (a loop?)", ft->where, ft->fsbno);
	case XFSJ_BMBT_F_PTR:
		return disk_give(c, ft->fsbno, 0, ft->level, NULL);
	case XFSJ_BMBT_F_MAGIC:
	case XFSJ_BMBT_F_LEVEL:
	case XFSJ_BMBT_F_DUP:
		return XFSJ_BMBT_SKIP;
	case XFSJ_BMBT_F_NUMRECS:
		return b->hdr.numrecs ? XFSJ_BMBT_SKIP : 0;
	default:
		return 0;
	}
}

static int disk_bad_block(void *arg, const struct xfsj_bmbt_wblk *b)
{
	int err = disk_give(arg, b->fsbno, b->daddr, b->level, NULL);

	return err < 0 ? err : 0;
}

static int disk_node(void *arg, struct xfsj_bmbt_wblk *b)
{
	return disk_give(arg, b->fsbno, b->daddr, b->level,
			 (uint8_t *)b->data);
}

static int disk_rec(void *arg, const struct xfsj_bmbt_wblk *b, unsigned int i,
		    const uint8_t *rec, uint64_t where)
{
	(void)arg;
	(void)b;
	(void)i;
	(void)rec;
	(void)where;
	return 0;
}

static const struct xfsj_bmbt_walk_ops disk_walk_ops = {
	.ptr_ok = disk_ptr_ok,
	.read = disk_read,
	.fault = disk_fault,
	.node = disk_node,
	.rec = disk_rec,
	.bad_block = disk_bad_block,
};

int xfsj_bmbt_walk_disk(struct xfsj_overlay *ov, const struct xfsj_sb *sb,
			const uint8_t *root, uint32_t rootsize,
			const char *rootname, xfsj_bmbt_disk_fn fn, void *arg,
			struct xfsj_fault *f)
{
	struct disk_ctx c = { ov, sb, rootname, NULL, fn, arg, f };
	struct xfsj_bmbt_walk w;
	int err;

	c.buf = malloc((size_t)XFSJ_BMBT_WALK_LEVELS * sb->blocksize);
	if (!c.buf)
		return xfsj_fault_set(f, XFSJ_E_NOMEM, "bmap btree", "block",
				      0, sb->blocksize);
	xfsj_bmbt_walk_init(&w, sb, 0, &disk_walk_ops, &c);
	w.maxlevel = XFSJ_BMBT_DISK_MAXLEVELS;
	w.max_blocks = sb->dblocks;
	err = xfsj_bmbt_descend(&w, root, rootsize);
	xfsj_bmbt_walk_free(&w);
	free(c.buf);
	return err;
}
