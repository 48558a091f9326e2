/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Inode fork mappings (bmap.h).
 *
 * A fork is loaded whole by the one bmbt reader (bmbt.h): its records
 * in offset order and, for a btree fork, the shape of the tree (the
 * blocks of each level with their record or child counts, left to
 * right).  Changes are made on the record array the way the kernel's
 * xfs_bmap makes them on its cursor (update, insert after a lookup,
 * delete), each one charged to the leaf the kernel's cursor would be on;
 * then every block is rebuilt from the array and the shape and written
 * back only where its bytes changed, so blocks the kernel would not
 * touch keep their LSN.  The layout of the inode root and the blocks is
 * described in bmbt.h.
 *
 * The bmbt's shape follows the generic btree rules the kernel applies to
 * it (shift to a sibling, split, new inode root; borrow, join, kill the
 * inode root) on the block entry counts alone: the engine's cursor
 * (btree.h) changes AG trees only, and the record contents of every
 * block follow from the counts and the record array.
 */
#include <stdlib.h>
#include <string.h>

#include "fs/bmap.h"
#include "fs/bmbt.h"
#include "core/crc32c.h"
#include "core/layout.h"
#include "fs/refcount.h"
#include "ondisk/bmdr.h"

#define LB(field)	XFSJ_LB_OFF(field)

#define REC_SIZE	XFSJ_BMBT_REC_SIZE
#define MAXLEVELS	XFSJ_BTREE_MAXLEVELS


struct bm_fork {
	struct xfsj_fs *fs;
	struct xfsj_iref *ip;
	int whichfork;
	uint8_t *area;		/* the fork in the inode */
	uint32_t size;
	unsigned int format;
	/* Records and, for a btree fork, its blocks (bmbt.h). */
	struct xfsj_bmbt_fork t;
	uint64_t unmapped;	/* blocks unmapped so far */
	bool reflink;		/* a reflink inode's data fork */
	bool rmapbt;
};

static void bm_free(struct bm_fork *bf)
{
	xfsj_bmbt_fork_free(&bf->t);
	memset(bf, 0, sizeof(*bf));
}

/* ---- records ---- */

static uint64_t rec_end(const struct xfsj_bmbt_irec *r)
{
	return r->startoff + r->blockcount;
}

/* ---- inode counters ---- */

static uint64_t fork_nextents(const struct xfsj_dinode *di, int whichfork)
{
	return whichfork == XFSJ_ATTR_FORK ? xfsj_dinode_anextents(di) :
					     xfsj_dinode_nextents(di);
}

/* The kernel's extent count limits (xfs_iext_max_nextents). */
static uint64_t max_nextents(const struct xfsj_dinode *di, int whichfork)
{
	bool big = di->flags2 & XFSJ_DIFLAG2_NREXT64;

	if (whichfork == XFSJ_ATTR_FORK)
		return big ? (1ULL << 32) - 1 : (1ULL << 15) - 1;
	return big ? (1ULL << 48) - 1 : (1ULL << 31) - 1;
}

/* ---- loading ---- */

static int fork_load(struct xfsj_fs *fs, struct xfsj_iref *ip, int whichfork,
		     struct bm_fork *bf, struct xfsj_fault *f)
{
	struct xfsj_dinode *di = &ip->di;
	bool attr = whichfork == XFSJ_ATTR_FORK;
	uint64_t want = fork_nextents(di, whichfork);

	memset(bf, 0, sizeof(*bf));
	bf->fs = fs;
	bf->ip = ip;
	bf->whichfork = whichfork;
	bf->area = xfsj_ifork(fs, ip, whichfork, &bf->size);
	bf->format = attr ? di->aformat : di->format;
	bf->reflink = !attr && (di->flags2 & XFSJ_DIFLAG2_REFLINK);
	bf->rmapbt = xfsj_fs_has(fs, XFSJ_RO_COMPAT_RMAPBT);
	if (attr && !di->forkoff) {
		if (want)
			return xfsj_fault_set(f, XFSJ_E_CORRUPT, "inode",
					      "anextents", ip->byte_off, want);
		bf->format = XFSJ_DINODE_FMT_EXTENTS;
		return 0;
	}
	if (!attr && (di->flags & XFSJ_DIFLAG_REALTIME))
		return xfsj_fault_set(f, XFSJ_E_UNSUPP, "inode",
				      "realtime data fork", ip->byte_off + 90,
				      di->flags);
	/* xfs_iformat_btree: a btree fork holds more than the inode could. */
	if (bf->format == XFSJ_DINODE_FMT_BTREE &&
	    (want <= bf->size / REC_SIZE || want > max_nextents(di, whichfork)))
		return xfsj_fault_set(f, XFSJ_E_CORRUPT, "inode",
				      attr ? "anextents" : "nextents",
				      ip->byte_off, want);
	return xfsj_bmbt_fork_read(fs, ip, whichfork, &bf->t, f);
}

/* ---- writing back ---- */

/* Copy @len bytes to @dst; mark the buffer dirty only when they differ. */
static void put_bytes(struct xfsj_buf *bp, uint8_t *dst, const void *src,
		      size_t len)
{
	if (memcmp(dst, src, len)) {
		memcpy(dst, src, len);
		xfsj_buf_dirty(bp);
	}
}

static void put64(struct xfsj_buf *bp, uint8_t *dst, uint64_t v)
{
	uint8_t b[8];

	xfsj_put_be64(b, v);
	put_bytes(bp, dst, b, 8);
}

static void put16(struct xfsj_buf *bp, uint8_t *dst, uint16_t v)
{
	uint8_t b[2];

	xfsj_put_be16(b, v);
	put_bytes(bp, dst, b, 2);
}

/*
 * Rebuild every block from the record array and the shape (only the
 * bytes that differ are written, so untouched blocks stay clean; a
 * block's magic, level, blkno, UUID and owner are already there).
 * @first[l][j] is the index of the first record under block j of level l.
 */
static int write_btree(const struct xfsj_bmbt_fork *t, uint8_t *area)
{
	size_t *first[MAXLEVELS] = { NULL };
	uint8_t rb[REC_SIZE];
	int err = 0;

	for (unsigned int l = 0; l < t->height; l++) {
		size_t pos = 0;

		first[l] = calloc(t->nlv[l] + 1, sizeof(size_t));
		if (!first[l]) {
			err = -XFSJ_E_NOMEM;
			goto out;
		}
		for (size_t j = 0; j < t->nlv[l]; j++) {
			struct xfsj_bmbt_blk *b = &t->lv[l][j];
			uint8_t *d = b->bp->data;

			/* Only a tree the kernel never leaves has one. */
			if (!b->cnt) {
				err = -XFSJ_E_CORRUPT;
				goto out;
			}
			first[l][j] = l ? first[l - 1][pos] : pos;
			put16(b->bp, d + LB(numrecs), (uint16_t)b->cnt);
			put64(b->bp, d + LB(leftsib),
			      j ? t->lv[l][j - 1].fsbno : XFSJ_NULLFSBLOCK);
			put64(b->bp, d + LB(rightsib), j + 1 < t->nlv[l] ?
			      t->lv[l][j + 1].fsbno : XFSJ_NULLFSBLOCK);
			for (size_t i = 0; i < b->cnt; i++) {
				if (l == 0) {
					xfsj_bmbt_rec_encode(&t->ext[pos + i],
							     rb);
					put_bytes(b->bp, d +
						  XFSJ_LBLOCK_HDR_SIZE +
						  i * REC_SIZE, rb, REC_SIZE);
					continue;
				}
				put64(b->bp, d + XFSJ_LBLOCK_HDR_SIZE + i * 8,
				      t->ext[first[l - 1][pos + i]]
					      .startoff);
				put64(b->bp, d + XFSJ_LBLOCK_HDR_SIZE +
				      (size_t)t->maxr * 8 + i * 8,
				      t->lv[l - 1][pos + i].fsbno);
			}
			pos += b->cnt;
		}
		first[l][t->nlv[l]] = l ? first[l - 1][pos] : pos;
	}
	/* The inode root: keys, then pointers after room for dmaxr keys. */
	{
		unsigned int l = t->height - 1;
		uint8_t *p = area;

		xfsj_put_be16(p, (uint16_t)t->height);
		xfsj_put_be16(p + 2, (uint16_t)t->nlv[l]);
		for (size_t j = 0; j < t->nlv[l]; j++) {
			xfsj_put_be64(p + XFSJ_BMDR_HDR_SIZE + j * 8,
				      t->ext[first[l][j]].startoff);
			xfsj_put_be64(p + XFSJ_BMDR_HDR_SIZE +
				      t->dmaxr * 8U + j * 8,
				      t->lv[l][j].fsbno);
		}
	}
out:
	for (unsigned int l = 0; l < MAXLEVELS; l++)
		free(first[l]);
	return err;
}

int xfsj_bmap_fork_put(struct xfsj_fs *fs, struct xfsj_iref *ip,
		       int whichfork, const struct xfsj_bmbt_fork *t)
{
	struct xfsj_dinode *di = &ip->di;
	uint8_t fmt = t->height ? XFSJ_DINODE_FMT_BTREE :
				  XFSJ_DINODE_FMT_EXTENTS;
	uint32_t size = 0;
	uint8_t *area = xfsj_ifork(fs, ip, whichfork, &size);

	if (t->n && (!area || (!t->height && t->n > size / REC_SIZE) ||
		     (t->height && t->dmaxr > xfsj_bmdr_room(size))))
		return -XFSJ_E_CORRUPT;
	xfsj_dinode_set_nextents(di, whichfork == XFSJ_ATTR_FORK, t->n);
	if (whichfork == XFSJ_ATTR_FORK)
		di->aformat = fmt;
	else
		di->format = fmt;
	if (t->height)
		return write_btree(t, area);
	for (size_t i = 0; i < t->n; i++)
		xfsj_bmbt_rec_encode(&t->ext[i], area + i * REC_SIZE);
	return 0;
}

static int fork_write(struct bm_fork *bf)
{
	return xfsj_bmap_fork_put(bf->fs, bf->ip, bf->whichfork, &bf->t);
}

/* ---- a fork written afresh ---- */

/*
 * Block @b of level @l, a fresh zeroed buffer with its header's fixed
 * fields (the counts, siblings and entries are xfsj_bmap_fork_put's).
 */
static int fresh_block(struct xfsj_fs *fs, uint64_t ino, unsigned int l,
		       struct xfsj_bmbt_blk *b)
{
	const struct xfsj_sb *sb = xfsj_fs_sb(fs);
	uint64_t daddr = xfsj_fsb_daddr(sb, b->fsbno);
	struct xfsj_lblock h;
	struct xfsj_vctx c;
	int err;

	err = xfsj_buf_get_zero(fs, daddr, sb->blocksize, &b->bp);
	if (err)
		return err < 0 ? err : -err;
	xfsj_fs_vctx(fs, xfsj_fsb_agno(sb, b->fsbno), &c);
	memset(&h, 0, sizeof(h));
	h.magic = XFSJ_BMAP_MAGIC;
	h.level = (uint16_t)l;
	h.leftsib = XFSJ_NULLFSBLOCK;
	h.rightsib = XFSJ_NULLFSBLOCK;
	h.blkno = daddr;
	memcpy(h.uuid, c.uuid, sizeof(h.uuid));
	h.owner = ino;
	xfsj_lblock_encode(&h, b->bp->data);
	xfsj_buf_dirty(b->bp);
	return 0;
}

/*
 * The shape of a tree over @n records: the fewest blocks at each level
 * (the entries shared evenly, the first blocks taking one more while the
 * rest do not divide, so each holds at least half of what it can), levels
 * added until the inode root can point at the top one.  0, or 1 when it
 * would be too tall.
 */
static int plan_shape(struct xfsj_bmbt_fork *t, size_t n)
{
	size_t below = n;
	unsigned int l = 0;

	do {
		if (l + 1 >= MAXLEVELS)
			return 1;
		t->nlv[l] = (below + t->maxr - 1) / t->maxr;
		below = t->nlv[l++];
	} while (below > t->dmaxr);
	t->height = l;
	return 0;
}

int xfsj_bmap_fork_build(struct xfsj_fs *fs, struct xfsj_iref *ip,
			 int whichfork, const struct xfsj_bmbt_irec *m,
			 size_t n, const uint64_t *blocks, size_t nblocks,
			 size_t *used)
{
	struct xfsj_bmbt_fork t;
	uint32_t size = 0;
	uint8_t *area = xfsj_ifork(fs, ip, whichfork, &size);
	size_t need = 0, k = 0;
	int err;

	*used = 0;
	if (!area || !xfsj_bmdr_room(size))
		return 1;
	memset(&t, 0, sizeof(t));
	t.maxr = xfsj_btree_maxrecs(XFSJ_BT_BMAP, xfsj_fs_sb(fs)->blocksize,
				    true);
	t.dmaxr = xfsj_bmdr_room(size);
	if (n > size / REC_SIZE) {
		if (plan_shape(&t, n))
			return 1;
		for (unsigned int l = 0; l < t.height; l++)
			need += t.nlv[l];
		if (need > nblocks)
			return 1;
	}
	t.n = t.cap = n;
	t.ext = malloc((n ? n : 1) * sizeof(*m));
	if (!t.ext)
		return -XFSJ_E_NOMEM;
	if (n)
		memcpy(t.ext, m, n * sizeof(*m));
	for (unsigned int l = 0; l < t.height; l++) {
		size_t below = l ? t.nlv[l - 1] : n;

		t.lv[l] = calloc(t.nlv[l], sizeof(*t.lv[l]));
		if (!t.lv[l]) {
			err = -XFSJ_E_NOMEM;
			goto out;
		}
		t.caplv[l] = t.nlv[l];
		for (size_t j = 0; j < t.nlv[l]; j++) {
			struct xfsj_bmbt_blk *b = &t.lv[l][j];

			b->cnt = (uint32_t)(below / t.nlv[l] +
					    (j < below % t.nlv[l]));
			b->fsbno = blocks[k++];
			err = fresh_block(fs, ip->ino, l, b);
			if (err)
				goto out;
		}
	}
	memset(area, 0, size);
	err = xfsj_bmap_fork_put(fs, ip, whichfork, &t);
	if (!err)
		*used = need;
out:
	xfsj_bmbt_fork_free(&t);
	return err;
}

/* ---- queued work ---- */

static int queue_rmap(struct bm_fork *bf, const struct xfsj_bmbt_irec *r,
		      bool map)
{
	struct xfsj_work w;

	/* xfs_rmap_update_is_needed: only with an rmapbt. */
	if (!bf->rmapbt)
		return 0;
	memset(&w, 0, sizeof(w));
	w.kind = XFSJ_W_RMAP;
	w.fsbno = r->startblock;
	w.len = (uint32_t)r->blockcount;
	if (map)
		w.rmap.op = bf->reflink ? XFSJ_RMAP_MAP_SHARED : XFSJ_RMAP_MAP;
	else
		w.rmap.op = bf->reflink ? XFSJ_RMAP_UNMAP_SHARED :
					  XFSJ_RMAP_UNMAP;
	w.rmap.owner = bf->ip->ino;
	w.rmap.offset = r->startoff;
	w.rmap.attr_fork = bf->whichfork == XFSJ_ATTR_FORK;
	w.rmap.unwritten = r->unwritten;
	return xfsj_defer_add(bf->fs, &w);
}

/* What happens to the blocks of an unmapped extent (del_extent_real). */
static int queue_release(struct bm_fork *bf, const struct xfsj_bmbt_irec *r)
{
	struct xfsj_work w;

	if (bf->reflink)
		return xfsj_refcount_decrease_extent(bf->fs, r->startblock,
						     (uint32_t)r->blockcount);
	memset(&w, 0, sizeof(w));
	w.kind = XFSJ_W_FREE;
	w.fsbno = r->startblock;
	w.len = (uint32_t)r->blockcount;
	/* The reverse mapping goes with the rmap unmap queued first. */
	w.free.oi.owner = XFSJ_RMAP_OWN_NULL;
	return xfsj_defer_add(bf->fs, &w);
}

/* ---- record changes, charged to the leaf the kernel's cursor is on ---- */

static int unsupp_shape(struct bm_fork *bf, const char *why,
			struct xfsj_fault *f)
{
	return xfsj_fault_set(f, XFSJ_E_UNSUPP, "bmap btree", why,
			      bf->ip->byte_off, bf->ip->ino);
}

/* The leaf holding record @k; *start gets its first record's index. */
static size_t leaf_of(const struct bm_fork *bf, size_t k, size_t *start)
{
	size_t s = 0, j;

	for (j = 0; j + 1 < bf->t.nlv[0]; j++) {
		if (k < s + bf->t.lv[0][j].cnt)
			break;
		s += bf->t.lv[0][j].cnt;
	}
	*start = s;
	return j;
}

static int count_check(struct bm_fork *bf, size_t n, struct xfsj_fault *f)
{
	if (n > max_nextents(&bf->ip->di, bf->whichfork))
		return xfsj_fault_set(f, XFSJ_E_RANGE, "inode",
				      bf->whichfork ? "anextents (overflow)" :
						      "nextents (overflow)",
				      bf->ip->byte_off, n);
	return 0;
}

/*
 * The tree's shape under insertions and deletions, by the rules of the
 * kernel's generic btree (xfs_btree_insrec, xfs_btree_delrec): only the
 * entry counts of each block matter, since the blocks' contents are
 * rebuilt from the records at write time.  Levels are counted from the
 * leaves (0); the inode root is level @height.
 */

/* A new block of @level allocated near @near (xfs_bmbt_alloc_block). */
static int new_block(struct bm_fork *bf, unsigned int level, uint64_t near,
		     struct xfsj_bmbt_blk *b, struct xfsj_fault *f)
{
	struct xfsj_fs *fs = bf->fs;
	const struct xfsj_sb *sb = xfsj_fs_sb(fs);
	struct xfsj_owner oi = { bf->ip->ino, 0,
				 bf->whichfork == XFSJ_ATTR_FORK, true };
	uint32_t tagno = xfsj_fsb_agno(sb, near);
	uint32_t agno = tagno, agbno = XFSJ_NULLAGBLOCK;
	struct xfsj_lblock h;
	struct xfsj_vctx c;
	int err = -XFSJ_E_NOSPC;

	if (tagno >= sb->agcount)
		tagno = agno = 0;
	/* The start AG first, near the target, then the others. */
	for (uint32_t i = 0; i < sb->agcount && err == -XFSJ_E_NOSPC; i++) {
		agno = (tagno + i) % sb->agcount;
		err = xfsj_alloc_extent(fs, agno, agno == tagno ?
					xfsj_fsb_agbno(sb, near) : 0, 1, &oi,
					&agbno, f);
	}
	if (err)
		return err;
	b->fsbno = xfsj_agb_to_fsb(sb, agno, agbno);
	b->cnt = 0;
	err = xfsj_buf_get_zero(fs, xfsj_fsb_daddr(sb, b->fsbno), sb->blocksize,
				&b->bp);
	if (err)
		return xfsj_fault_set(f, -err, "bmap btree block", "get",
				      xfsj_fsb_daddr(sb, b->fsbno) << 9,
				      b->fsbno);
	xfsj_fs_vctx(fs, agno, &c);
	memset(&h, 0, sizeof(h));
	h.magic = XFSJ_BMAP_MAGIC;
	h.level = (uint16_t)level;
	h.leftsib = h.rightsib = XFSJ_NULLFSBLOCK;
	h.blkno = xfsj_fsb_daddr(sb, b->fsbno);
	memcpy(h.uuid, c.uuid, 16);
	h.owner = bf->ip->ino;
	xfsj_lblock_encode(&h, b->bp->data);
	xfsj_buf_dirty(b->bp);
	bf->ip->di.nblocks++;
	return 0;
}

/* xfs_bmbt_free_block: deferred free with the bmbt owner, nblocks - 1. */
static int blk_free(struct bm_fork *bf, unsigned int l, size_t at,
		    struct xfsj_fault *f)
{
	struct xfsj_bmbt_blk *b = &bf->t.lv[l][at];
	struct xfsj_work w;
	int err;

	memset(&w, 0, sizeof(w));
	w.kind = XFSJ_W_FREE;
	w.fsbno = b->fsbno;
	w.len = 1;
	w.free.oi.owner = bf->ip->ino;
	w.free.oi.attr_fork = bf->whichfork == XFSJ_ATTR_FORK;
	w.free.oi.bmbt_block = true;
	err = xfsj_defer_add(bf->fs, &w);
	if (err)
		return xfsj_fault_set(f, -err, "deferred work", "queue",
				      bf->ip->byte_off, bf->ip->ino);
	if (!bf->ip->di.nblocks)
		return xfsj_fault_set(f, XFSJ_E_CORRUPT, "inode", "nblocks",
				      bf->ip->byte_off + 64, 0);
	bf->ip->di.nblocks--;
	xfsj_buf_forget(bf->fs, b->bp);
	memmove(b, b + 1, (bf->t.nlv[l] - at - 1) * sizeof(*b));
	bf->t.nlv[l]--;
	return 0;
}

/* The parent (at level l + 1) of block @j of level @l, and j's 1-based
 * place in it; the parent is the inode root when l + 1 is the height. */
static size_t parent_of(const struct bm_fork *bf, unsigned int l, size_t j,
			unsigned int *ptr)
{
	size_t s = 0, p;

	if (l + 1 >= bf->t.height) {
		*ptr = (unsigned int)j + 1;
		return 0;
	}
	for (p = 0; p + 1 < bf->t.nlv[l + 1]; p++) {
		if (j < s + bf->t.lv[l + 1][p].cnt)
			break;
		s += bf->t.lv[l + 1][p].cnt;
	}
	*ptr = (unsigned int)(j - s) + 1;
	return p;
}

/*
 * One more entry at 1-based place @ptr of block @j of level @l: a full
 * block shifts an entry to its right sibling, else to its left, else
 * splits (the new block goes to its right and its pointer up a level);
 * a full inode root moves into a new block of its own (new_iroot).
 */
static int shape_insert(struct bm_fork *bf, unsigned int l, size_t j,
			unsigned int ptr, struct xfsj_fault *f)
{
	struct xfsj_bmbt_blk nb;
	unsigned int c, rrecs, pptr;
	size_t p;
	int err;

	if (l >= MAXLEVELS - 1)
		return xfsj_fault_set(f, XFSJ_E_CORRUPT, "bmap btree", "level",
				      bf->ip->byte_off, l);
	if (l == bf->t.height) {
		/* The root: its entries are the blocks of level l - 1. */
		if (bf->t.nlv[l - 1] <= bf->t.dmaxr)
			return 0;
		err = new_block(bf, l, bf->t.lv[l - 1][0].fsbno, &nb, f);
		if (err)
			return err;
		nb.cnt = (uint32_t)bf->t.nlv[l - 1];
		bf->t.nlv[l] = 0;
		err = xfsj_bmbt_fork_insert_blk(&bf->t, l, 0, &nb);
		if (!err)
			bf->t.height++;
		return err;
	}
	c = bf->t.lv[l][j].cnt;
	if (c < bf->t.maxr) {
		bf->t.lv[l][j].cnt++;
		return 0;
	}
	if (j + 1 < bf->t.nlv[l] && ptr < c &&
	    bf->t.lv[l][j + 1].cnt < bf->t.maxr) {
		bf->t.lv[l][j + 1].cnt++;	/* rshift, then insert */
		return 0;
	}
	if (j > 0 && ptr > 1 && bf->t.lv[l][j - 1].cnt < bf->t.maxr) {
		bf->t.lv[l][j - 1].cnt++;	/* lshift, then insert */
		return 0;
	}
	p = parent_of(bf, l, j, &pptr);
	err = new_block(bf, l, bf->t.lv[l][j].fsbno, &nb, f);
	if (err)
		return err;
	rrecs = c / 2;
	if ((c & 1) && ptr <= rrecs + 1)
		rrecs++;
	bf->t.lv[l][j].cnt = c - rrecs;
	nb.cnt = rrecs;
	/* Just past the left block's last entry still goes to the left. */
	if (ptr > c - rrecs + 1)
		nb.cnt++;
	else
		bf->t.lv[l][j].cnt++;
	err = xfsj_bmbt_fork_insert_blk(&bf->t, l, j + 1, &nb);
	if (err)
		return err;
	return shape_insert(bf, l + 1, p, pptr + 1, f);
}

/* xfs_btree_kill_iroot: a root over a single block takes its entries. */
static int kill_iroot(struct bm_fork *bf, struct xfsj_fault *f)
{
	unsigned int h = bf->t.height;
	int err;

	if (h <= 1 || bf->t.nlv[h - 1] != 1 ||
	    bf->t.lv[h - 1][0].cnt > bf->t.dmaxr)
		return 0;
	err = blk_free(bf, h - 1, 0, f);
	if (!err)
		bf->t.height--;
	return err;
}

/* One entry fewer in block @j of level @l (xfs_btree_delrec). */
static int shape_delete(struct bm_fork *bf, unsigned int l, size_t j,
			struct xfsj_fault *f)
{
	unsigned int minr = bf->t.maxr / 2, c, pptr;
	struct xfsj_bmbt_blk *v;
	size_t p, gone;
	int err;

	if (l == bf->t.height)
		return kill_iroot(bf, f);
	v = bf->t.lv[l];
	c = --v[j].cnt;
	if (c >= minr)
		return 0;
	if (bf->t.nlv[l] == 1)
		return l + 1 == bf->t.height ? kill_iroot(bf, f) : 0;
	/* Borrow from the right sibling, then from the left. */
	if (j + 1 < bf->t.nlv[l] && v[j + 1].cnt - 1 >= minr &&
	    v[j + 1].cnt > 1) {
		v[j + 1].cnt--;
		v[j].cnt++;
		return 0;
	}
	if (j > 0 && v[j - 1].cnt - 1 >= minr && v[j - 1].cnt > 1) {
		v[j - 1].cnt--;
		v[j].cnt++;
		return 0;
	}
	/* Join with the left sibling, else the right; the right one goes. */
	if (j > 0 && v[j - 1].cnt + c <= bf->t.maxr) {
		v[j - 1].cnt += c;
		gone = j;
	} else if (j + 1 < bf->t.nlv[l] && v[j + 1].cnt + c <= bf->t.maxr) {
		v[j].cnt += v[j + 1].cnt;
		gone = j + 1;
	} else {
		return 0;
	}
	p = parent_of(bf, l, gone, &pptr);
	err = blk_free(bf, l, gone, f);
	if (err)
		return err;
	return shape_delete(bf, l + 1, p, f);
}

/*
 * Insert @r as record @k.  @after_cur: the kernel's cursor was moved on
 * from record k - 1 with an increment (the middle of an unmap), which
 * puts it at the start of the next leaf when k - 1 ended its leaf;
 * otherwise it comes from a lookup, which stops in the leaf of k - 1.
 */
static int rec_insert(struct bm_fork *bf, size_t k,
		      const struct xfsj_bmbt_irec *r, bool after_cur,
		      struct xfsj_fault *f)
{
	int err = count_check(bf, bf->t.n + 1, f);

	if (err)
		return err;
	if (bf->format == XFSJ_DINODE_FMT_BTREE) {
		size_t s, j = leaf_of(bf, k ? k - 1 : 0, &s);

		unsigned int ptr = (unsigned int)(k - s) + 1;

		if (after_cur && k && k == s + bf->t.lv[0][j].cnt &&
		    j + 1 < bf->t.nlv[0]) {
			j++;
			ptr = 1;
		}
		err = shape_insert(bf, 0, j, ptr, f);
		if (err)
			return err;
	}
	return xfsj_bmbt_fork_insert(&bf->t, k, r);
}

static int rec_delete(struct bm_fork *bf, size_t k, struct xfsj_fault *f)
{
	if (bf->format == XFSJ_DINODE_FMT_BTREE) {
		size_t s, j = leaf_of(bf, k, &s);
		int err = shape_delete(bf, 0, j, f);

		if (err)
			return err;
	}
	memmove(&bf->t.ext[k], &bf->t.ext[k + 1], (bf->t.n - k - 1) *
		sizeof(*bf->t.ext));
	bf->t.n--;
	return 0;
}

/* ---- format changes ---- */

static uint32_t maxext(const struct bm_fork *bf)
{
	return bf->size / REC_SIZE;
}

/*
 * xfs_bmap_extents_to_btree: one leaf holding every record, allocated
 * near the inode (its AG first, then the others, as a start-AG
 * allocation does) with the inode as bmbt-block owner in the rmap, and a
 * root of one pointer in the inode.
 */
static int to_btree(struct bm_fork *bf, struct xfsj_fault *f)
{
	const struct xfsj_sb *sb = xfsj_fs_sb(bf->fs);
	uint64_t ino = bf->ip->ino;
	struct xfsj_bmbt_blk b;
	int err;

	if (bf->t.dmaxr < 1 || bf->t.n > bf->t.maxr)
		return unsupp_shape(bf, "fork too small for a btree root", f);
	err = new_block(bf, 0, xfsj_agb_to_fsb(sb, xfsj_ino_agno(sb, ino),
					       xfsj_ino_agino(sb, ino) >>
					       sb->inopblog), &b, f);
	if (err)
		return err;
	b.cnt = (uint32_t)bf->t.n;
	bf->t.nlv[0] = 0;
	err = xfsj_bmbt_fork_insert_blk(&bf->t, 0, 0, &b);
	if (err)
		return err;
	bf->t.height = 1;
	bf->format = XFSJ_DINODE_FMT_BTREE;
	return 0;
}

/*
 * xfs_bmap_btree_to_extents: when the records fit in the inode again,
 * the root's only leaf is freed (deferred, with its bmbt-block rmap).
 */
static int to_extents(struct bm_fork *bf, struct xfsj_fault *f)
{
	int err;

	if (bf->t.height != 1 || bf->t.nlv[0] != 1)
		return unsupp_shape(bf, "records fit the inode but the tree "
				    "has more than one leaf", f);
	err = blk_free(bf, 0, 0, f);
	if (err)
		return err;
	bf->t.height = 0;
	bf->format = XFSJ_DINODE_FMT_EXTENTS;
	return 0;
}

/* What the kernel does at the end of a map or unmap. */
static int fix_format(struct bm_fork *bf, struct xfsj_fault *f)
{
	if (bf->format == XFSJ_DINODE_FMT_EXTENTS && bf->t.n > maxext(bf))
		return to_btree(bf, f);
	if (bf->format == XFSJ_DINODE_FMT_BTREE && bf->t.n <= maxext(bf))
		return to_extents(bf, f);
	return 0;
}

/* ---- map ---- */

/* Index of the first record starting after @off. */
static size_t upper_bound(const struct bm_fork *bf, uint64_t off)
{
	size_t lo = 0, hi = bf->t.n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (bf->t.ext[mid].startoff <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static bool contiguous(const struct xfsj_bmbt_irec *a,
		       const struct xfsj_bmbt_irec *b)
{
	return rec_end(a) == b->startoff &&
	       a->startblock + a->blockcount == b->startblock &&
	       a->unwritten == b->unwritten;
}

static int queue_err(struct bm_fork *bf, int err, struct xfsj_fault *f)
{
	return xfsj_fault_set(f, -err, "deferred work", "queue",
			      bf->ip->byte_off, bf->ip->ino);
}

/* xfs_bmap_add_extent_hole_real: the four merge cases. */
static int map_hole(struct bm_fork *bf, const struct xfsj_bmbt_irec *nw,
		    struct xfsj_fault *f)
{
	size_t k = upper_bound(bf, nw->startoff);
	struct xfsj_bmbt_irec *left = k ? &bf->t.ext[k - 1] : NULL;
	struct xfsj_bmbt_irec *right = k < bf->t.n ? &bf->t.ext[k] : NULL;
	bool lc, rc;
	int err;

	if ((left && rec_end(left) > nw->startoff) ||
	    (right && right->startoff < rec_end(nw)))
		return xfsj_fault_set(f, XFSJ_E_CORRUPT, "bmap",
				      "mapping over an existing extent",
				      bf->ip->byte_off, nw->startoff);
	lc = left && contiguous(left, nw) &&
	     left->blockcount + nw->blockcount <= XFSJ_BMBT_MAX_EXTLEN;
	rc = right && contiguous(nw, right) &&
	     nw->blockcount + right->blockcount <= XFSJ_BMBT_MAX_EXTLEN &&
	     (!lc || left->blockcount + nw->blockcount +
		     right->blockcount <= XFSJ_BMBT_MAX_EXTLEN);
	if (lc && rc) {
		uint64_t total = left->blockcount + nw->blockcount +
				 right->blockcount;

		err = rec_delete(bf, k, f);
		if (err)
			return err;
		bf->t.ext[k - 1].blockcount = total;
	} else if (lc) {
		left->blockcount += nw->blockcount;
	} else if (rc) {
		right->startoff = nw->startoff;
		right->startblock = nw->startblock;
		right->blockcount += nw->blockcount;
	} else {
		err = rec_insert(bf, k, nw, false, f);
		if (err)
			return err;
	}
	err = queue_rmap(bf, nw, true);
	return err ? queue_err(bf, err, f) : 0;
}

static int check_rec(struct bm_fork *bf, const struct xfsj_bmbt_irec *r,
		     struct xfsj_fault *f)
{
	if (r->blockcount > XFSJ_BMBT_MAX_EXTLEN)
		return xfsj_fault_set(f, XFSJ_E_RANGE, "bmap", "blockcount",
				      bf->ip->byte_off, r->blockcount);
	if (!xfsj_fsbext_ok(bf->fs, r->startblock, r->blockcount))
		return xfsj_fault_set(f, XFSJ_E_RANGE, "bmap", "startblock",
				      bf->ip->byte_off, r->startblock);
	if (r->startoff > XFSJ_MAX_FILEOFF || rec_end(r) > XFSJ_MAX_FILEOFF)
		return xfsj_fault_set(f, XFSJ_E_RANGE, "bmap", "startoff",
				      bf->ip->byte_off, r->startoff);
	return 0;
}

static int fork_usable(struct bm_fork *bf, struct xfsj_fault *f)
{
	if (bf->whichfork == XFSJ_ATTR_FORK && !bf->ip->di.forkoff)
		return xfsj_fault_set(f, XFSJ_E_CORRUPT, "inode",
				      "forkoff (no attribute fork)",
				      bf->ip->byte_off + 82, 0);
	return 0;
}

int xfsj_bmap_map(struct xfsj_fs *fs, struct xfsj_iref *ip, int whichfork,
		  const struct xfsj_bmbt_irec *rec, struct xfsj_fault *f)
{
	struct bm_fork bf;
	int err;

	err = fork_load(fs, ip, whichfork, &bf, f);
	if (!err)
		err = fork_usable(&bf, f);
	if (!err)
		err = check_rec(&bf, rec, f);
	if (!err)
		err = map_hole(&bf, rec, f);
	if (!err)
		err = fix_format(&bf, f);
	if (!err) {
		ip->di.nblocks += rec->blockcount;
		err = fork_write(&bf);
	}
	bm_free(&bf);
	return err;
}

/* ---- unmap ---- */

/* xfs_bmap_del_extent_real on record @k: whole, front, back or middle. */
static int del_extent(struct bm_fork *bf, size_t k,
		      const struct xfsj_bmbt_irec *del, bool keep_blocks,
		      struct xfsj_fault *f)
{
	struct xfsj_bmbt_irec *got = &bf->t.ext[k];
	uint64_t got_end = rec_end(got), del_end = rec_end(del);
	int err = 0;

	if (bf->ip->di.nblocks < del->blockcount)
		return xfsj_fault_set(f, XFSJ_E_CORRUPT, "inode", "nblocks",
				      bf->ip->byte_off + 64,
				      bf->ip->di.nblocks);
	if (got->startoff == del->startoff && got_end == del_end) {
		err = rec_delete(bf, k, f);
	} else if (got->startoff == del->startoff) {
		got->startoff = del_end;
		got->startblock += del->blockcount;
		got->blockcount -= del->blockcount;
	} else if (got_end == del_end) {
		got->blockcount -= del->blockcount;
	} else {
		struct xfsj_bmbt_irec right = *got;

		right.startoff = del_end;
		right.startblock = got->startblock +
				   (del_end - got->startoff);
		right.blockcount = got_end - del_end;
		/* Checked before the left part changes, as the kernel does. */
		err = count_check(bf, bf->t.n + 1, f);
		if (!err) {
			got->blockcount = del->startoff - got->startoff;
			err = rec_insert(bf, k + 1, &right, true, f);
		}
	}
	if (err)
		return err;
	bf->ip->di.nblocks -= del->blockcount;
	bf->unmapped += del->blockcount;
	err = queue_rmap(bf, del, false);
	if (!err && !keep_blocks)
		err = queue_release(bf, del);
	return err ? queue_err(bf, err, f) : 0;
}

/*
 * __xfs_bunmapi: walk backwards from the end of the range, unmapping the
 * part of each extent inside it; @nexts limits the extents touched (0:
 * no limit).  *left gets what is still to do (0 when done).
 */
static int bunmapi(struct bm_fork *bf, uint64_t start, uint64_t len,
		   bool keep_blocks, unsigned int nexts, uint64_t *left,
		   struct xfsj_fault *f)
{
	uint64_t end = start + len - 1;
	unsigned int extno = 0;
	size_t k;
	int err;

	*left = 0;
	k = upper_bound(bf, end);
	while (k > 0 && (nexts == 0 || extno < nexts)) {
		struct xfsj_bmbt_irec del = bf->t.ext[k - 1];

		if (rec_end(&del) - 1 < end)
			end = rec_end(&del) - 1;
		if (end < start)
			break;
		if (del.startoff < start) {
			del.startblock += start - del.startoff;
			del.blockcount -= start - del.startoff;
			del.startoff = start;
		}
		if (rec_end(&del) > end + 1)
			del.blockcount = end + 1 - del.startoff;
		err = del_extent(bf, k - 1, &del, keep_blocks, f);
		if (err)
			return err;
		extno++;
		if (del.startoff == 0 || del.startoff - 1 < start)
			return 0;
		end = del.startoff - 1;
		/* The records before the deleted part are still in place. */
		k = upper_bound(bf, end);
	}
	if (k > 0 && end >= start && rec_end(&bf->t.ext[k - 1]) > start)
		*left = end - start + 1;
	return 0;
}

int xfsj_bmap_unmap(struct xfsj_fs *fs, struct xfsj_iref *ip, int whichfork,
		    uint64_t off, uint64_t len, bool keep_blocks,
		    uint64_t *done, struct xfsj_fault *f)
{
	struct bm_fork bf;
	uint64_t left;
	int err;

	*done = 0;
	if (!len)
		return 0;
	if (off > XFSJ_MAX_FILEOFF || len > XFSJ_MAX_FILEOFF - off)
		return xfsj_fault_set(f, XFSJ_E_RANGE, "bmap", "startoff",
				      ip->byte_off, off);
	err = fork_load(fs, ip, whichfork, &bf, f);
	if (!err)
		err = bunmapi(&bf, off, len, keep_blocks, 0, &left, f);
	if (!err)
		err = fix_format(&bf, f);
	if (!err) {
		*done = bf.unmapped;
		err = fork_write(&bf);
	}
	bm_free(&bf);
	return err;
}

/* ---- allocation and holes ---- */

int xfsj_bmap_first_unused(struct xfsj_fs *fs, struct xfsj_iref *ip,
			   int whichfork, uint32_t len, uint64_t from,
			   uint64_t *off, struct xfsj_fault *f)
{
	struct bm_fork bf;
	uint64_t lowest = from, max = from;
	int err;

	err = fork_load(fs, ip, whichfork, &bf, f);
	if (err)
		goto out;
	/* As xfs_bmap_first_unused: the first gap of @len past @from. */
	for (size_t i = 0; i < bf.t.n; i++) {
		const struct xfsj_bmbt_irec *r = &bf.t.ext[i];

		if (r->startoff >= lowest + len && r->startoff - max >= len)
			break;
		max = rec_end(r) > lowest ? rec_end(r) : lowest;
	}
	*off = max;
out:
	bm_free(&bf);
	return err;
}

int xfsj_bmap_alloc(struct xfsj_fs *fs, struct xfsj_iref *ip, int whichfork,
		    uint64_t off, uint32_t len, uint64_t *fsbno,
		    struct xfsj_fault *f)
{
	const struct xfsj_sb *sb = xfsj_fs_sb(fs);
	struct xfsj_bmbt_irec rec;
	struct bm_fork bf;
	uint64_t target;
	uint32_t tagno, tagbno, agno = 0, agbno = XFSJ_NULLAGBLOCK;
	size_t k;
	int err;

	if (!len || len > XFSJ_BMBT_MAX_EXTLEN)
		return xfsj_fault_set(f, XFSJ_E_INVAL, "allocation", "len", 0,
				      len);
	err = fork_load(fs, ip, whichfork, &bf, f);
	if (!err)
		err = fork_usable(&bf, f);
	if (err)
		goto out;
	/*
	 * xfs_bmap_adjacent: right after the extent before @off when there
	 * is one, else the inode's own block.
	 */
	k = upper_bound(&bf, off);
	if (k)
		target = bf.t.ext[k - 1].startblock +
			 bf.t.ext[k - 1].blockcount;
	else
		target = xfsj_agb_to_fsb(sb, xfsj_ino_agno(sb, ip->ino),
					 xfsj_ino_agino(sb, ip->ino) >>
					 sb->inopblog);
	tagno = xfsj_fsb_agno(sb, target);
	tagbno = xfsj_fsb_agbno(sb, target);
	if (tagno >= sb->agcount || tagbno >= xfsj_fs_ag_blocks(fs, tagno)) {
		tagno = xfsj_ino_agno(sb, ip->ino);
		tagbno = 0;
	}
	/* Rmap through the deferred map below, as xfs_bmap_btalloc does. */
	err = -XFSJ_E_NOSPC;
	for (uint32_t i = 0; i < sb->agcount && err == -XFSJ_E_NOSPC; i++) {
		agno = (tagno + i) % sb->agcount;
		err = xfsj_alloc_extent(fs, agno, agno == tagno ? tagbno : 0,
					len, NULL, &agbno, f);
	}
	if (err)
		goto out;
	bm_free(&bf);
	rec.startoff = off;
	rec.startblock = xfsj_agb_to_fsb(sb, agno, agbno);
	rec.blockcount = len;
	rec.unwritten = false;
	*fsbno = rec.startblock;
	return xfsj_bmap_map(fs, ip, whichfork, &rec, f);
out:
	bm_free(&bf);
	return err;
}

int xfsj_bmap_read(struct xfsj_fs *fs, struct xfsj_iref *ip, int whichfork,
		   struct xfsj_bmbt_irec **ext, size_t *n,
		   struct xfsj_fault *f)
{
	struct bm_fork bf;
	int err;

	*ext = NULL;
	*n = 0;
	err = fork_load(fs, ip, whichfork, &bf, f);
	if (!err) {
		*ext = bf.t.ext;
		*n = bf.t.n;
		bf.t.ext = NULL;
	}
	bm_free(&bf);
	return err;
}

/* ---- BUI work ---- */

/*
 * xfs_iext_count_extend: room for @delta more extents, moving the inode
 * to the large counters when the filesystem has them.
 */
static int count_extend(struct xfsj_fs *fs, struct xfsj_iref *ip,
			int whichfork, uint64_t delta, struct xfsj_fault *f)
{
	struct xfsj_dinode *di = &ip->di;
	uint64_t n = fork_nextents(di, whichfork);

	if (n + delta <= max_nextents(di, whichfork))
		return 0;
	if ((di->flags2 & XFSJ_DIFLAG2_NREXT64) ||
	    !xfsj_fs_has_incompat(fs, XFSJ_INCOMPAT_NREXT64))
		return xfsj_fault_set(f, XFSJ_E_RANGE, "inode",
				      whichfork ? "anextents (overflow)" :
						  "nextents (overflow)",
				      ip->byte_off, n);
	{
		uint64_t dn = xfsj_dinode_nextents(di);
		uint32_t an = xfsj_dinode_anextents(di);

		di->flags2 |= XFSJ_DIFLAG2_NREXT64;
		di->big_nextents = dn;
		di->nextents = an;
		di->anextents = 0;
	}
	return 0;
}

int xfsj_bmap_finish(struct xfsj_fs *fs, const struct xfsj_work *w,
		     struct xfsj_fault *f)
{
	int whichfork = w->bmap.attr_fork ? XFSJ_ATTR_FORK : XFSJ_DATA_FORK;
	struct xfsj_iref ip;
	struct bm_fork bf;
	uint64_t left = 0;
	int err;

	if (w->kind != XFSJ_W_BMAP ||
	    (w->bmap.op != XFSJ_BMAP_MAP && w->bmap.op != XFSJ_BMAP_UNMAP))
		return xfsj_fault_set(f, XFSJ_E_CORRUPT, "bmap intent", "type",
				      0, w->bmap.op);
	/* xfs_bui_validate: one AG's blocks, a file range in bounds. */
	if (!xfsj_fsbext_ok(fs, w->fsbno, w->len))
		return xfsj_fault_set(f, XFSJ_E_CORRUPT, "bmap intent",
				      "startblock", 0, w->fsbno);
	if (w->bmap.op == XFSJ_BMAP_MAP && w->len > XFSJ_BMBT_MAX_EXTLEN)
		return xfsj_fault_set(f, XFSJ_E_CORRUPT, "bmap intent", "len",
				      0, w->len);
	if (w->bmap.startoff > XFSJ_MAX_FILEOFF ||
	    w->bmap.startoff + w->len > XFSJ_MAX_FILEOFF)
		return xfsj_fault_set(f, XFSJ_E_CORRUPT, "bmap intent",
				      "startoff", 0, w->bmap.startoff);
	err = xfsj_iget(fs, w->bmap.ino, true, &ip, f);
	if (err)
		return err;
	if (ip.di.mode == 0)
		return xfsj_fault_set(f, XFSJ_E_CORRUPT, "inode",
				      "mode (free inode in a bmap intent)",
				      ip.byte_off + 2, 0);
	err = count_extend(fs, &ip, whichfork, 1, f);
	if (err)
		return err;
	err = fork_load(fs, &ip, whichfork, &bf, f);
	if (!err)
		err = fork_usable(&bf, f);
	if (err)
		goto out;
	if (w->bmap.op == XFSJ_BMAP_MAP) {
		struct xfsj_bmbt_irec rec = {
			w->bmap.startoff, w->fsbno, w->len, w->bmap.unwritten
		};

		err = map_hole(&bf, &rec, f);
		if (!err)
			ip.di.nblocks += w->len;
	} else {
		/*
		 * __xfs_bunmapi with XFS_BMAPI_REMAP over one extent: the
		 * blocks stay where they are (their owner-to-be takes them);
		 * what is left is queued again, as the kernel relogs the
		 * intent for the rest.
		 */
		err = bunmapi(&bf, w->bmap.startoff, w->len, true, 1, &left,
			      f);
	}
	if (!err)
		err = fix_format(&bf, f);
	if (!err)
		err = fork_write(&bf);
	if (!err)
		xfsj_iput(fs, &ip, true);
	if (!err && left) {
		struct xfsj_work rest = *w;

		rest.len = (uint32_t)left;
		err = xfsj_defer_add(fs, &rest);
		if (err)
			err = queue_err(&bf, err, f);
	}
out:
	bm_free(&bf);
	return err;
}
