/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Freeing inodes in the inode allocation btrees, as the kernel's
 * xfs_difree does: the inobt record gains the free bit, the finobt follows
 * it (a record appears when its chunk gains a first free inode and goes
 * when the chunk is freed), the AGI counts follow both, and a chunk whose
 * inodes are all free is deleted and its blocks freed (the kernel's ikeep
 * mount option, off by default, is not modelled).
 */
#include <string.h>

#include "fs/btree.h"
#include "fs/defer.h"
#include "fs/ialloc.h"
#include "fs/iunlink.h"

#define ALL_FREE		(~0ULL)

/* AGI fields changed here, by byte offset in the AGI sector. */
#define AGI(field)	XFSJ_AGI_OFF(field)

int xfsj_ichunk_extents(const struct xfsj_sb *sb, uint32_t startino,
			uint16_t holemask, xfsj_chunk_extent_fn fn, void *arg)
{
	uint32_t sagbno = startino >> sb->inopblog;
	unsigned int bit = 0;

	if (!holemask) {
		uint32_t len = (uint32_t)XFSJ_INODES_PER_CHUNK * sb->inodesize /
			       sb->blocksize;

		return fn(arg, sagbno, len ? len : 1);
	}
	/* Each run of clear holemask bits is one allocated extent. */
	while (bit < XFSJ_HOLEMASK_BITS) {
		unsigned int end;
		uint32_t first, last;
		int err;

		if (holemask & (1U << bit)) {
			bit++;
			continue;
		}
		end = bit;
		while (end + 1 < XFSJ_HOLEMASK_BITS &&
		       !(holemask & (1U << (end + 1))))
			end++;
		first = bit * XFSJ_INODES_PER_HOLEMASK_BIT;
		last = (end + 1) * XFSJ_INODES_PER_HOLEMASK_BIT;
		/* A block shared by inodes and a hole: no extent is right. */
		if (first % sb->inopblock || last % sb->inopblock)
			return -XFSJ_E_CORRUPT;
		first /= sb->inopblock;
		last /= sb->inopblock;
		err = fn(arg, sagbno + first, last - first);
		if (err)
			return err;
		bit = end + 1;
	}
	return 0;
}

struct chunk_free_arg {
	struct xfsj_fs *fs;
	uint32_t agno;
};

static int queue_chunk_free(void *arg, uint32_t agbno, uint32_t len)
{
	struct chunk_free_arg *a = arg;
	const struct xfsj_sb *sb = xfsj_fs_sb(a->fs);
	struct xfsj_work w;

	memset(&w, 0, sizeof(w));
	w.kind = XFSJ_W_FREE;
	w.fsbno = xfsj_agb_to_fsb(sb, a->agno, agbno);
	w.len = len;
	w.free.oi.owner = XFSJ_RMAP_OWN_INODES;
	return xfsj_defer_add(a->fs, &w);
}

static uint64_t agi_byte_off(const struct xfsj_fs *fs, uint32_t agno)
{
	const struct xfsj_sb *sb = xfsj_fs_sb(fs);

	return (xfsj_agb_to_daddr(sb, agno, 0) << 9) + 2ULL * sb->sectsize;
}

static int inobt_bad(struct xfsj_fs *fs, uint32_t agno, const char *tree,
		     const char *field, uint64_t value, struct xfsj_fault *f)
{
	return xfsj_fault_set(f, XFSJ_E_CORRUPT, tree, field,
			      agi_byte_off(fs, agno), value);
}

/* Count of allocated (not holed) inodes of a record. */
static unsigned int rec_inodes(const struct xfsj_inobt_rec *r)
{
	unsigned int holes = 0;

	for (unsigned int b = 0; b < XFSJ_HOLEMASK_BITS; b++)
		if (r->holemask & (1U << b))
			holes++;
	return XFSJ_INODES_PER_CHUNK - holes * XFSJ_INODES_PER_HOLEMASK_BIT;
}

/* The inobt part: returns the updated record in @out. */
static int difree_inobt(struct xfsj_fs *fs, uint32_t agno, uint32_t agino,
			struct xfsj_buf *agibp, bool may_free_chunk,
			struct xfsj_inobt_rec *out, bool *deleted,
			struct xfsj_fault *f)
{
	struct xfsj_btree_cur *cur;
	union xfsj_btree_irec rec;
	uint8_t *agi = agibp->data;
	uint32_t off;
	int stat, err;

	err = xfsj_btree_cur_new(fs, XFSJ_BT_INO, agno,
				 xfsj_alloc_block_source(XFSJ_BT_INO), f, &cur);
	if (err)
		return err;
	memset(&rec, 0, sizeof(rec));
	rec.i.startino = agino;
	err = xfsj_btree_lookup(cur, XFSJ_LOOKUP_LE, &rec, &stat);
	if (!err && !stat)
		err = inobt_bad(fs, agno, "inobt", "no record for inode", agino, f);
	if (!err)
		err = xfsj_btree_get_rec(cur, &rec, &stat);
	if (!err && !stat)
		err = inobt_bad(fs, agno, "inobt", "no record for inode", agino, f);
	if (err)
		goto out;
	off = agino - rec.i.startino;
	if (off >= XFSJ_INODES_PER_CHUNK) {
		err = inobt_bad(fs, agno, "inobt", "no record for inode", agino, f);
		goto out;
	}
	if (rec.i.holemask & (1U << (off / XFSJ_INODES_PER_HOLEMASK_BIT))) {
		err = inobt_bad(fs, agno, "inobt", "inode in a sparse hole",
				agino, f);
		goto out;
	}
	if (rec.i.free & (1ULL << off)) {
		err = inobt_bad(fs, agno, "inobt", "inode already free", agino, f);
		goto out;
	}
	if (rec.i.freecount >= rec_inodes(&rec.i)) {
		err = inobt_bad(fs, agno, "inobt", "freecount",
				rec.i.freecount, f);
		goto out;
	}
	rec.i.free |= 1ULL << off;
	rec.i.freecount++;

	if (rec.i.free == ALL_FREE && may_free_chunk) {
		uint32_t n = rec.i.freecount;
		uint32_t count = xfsj_get_be32(agi + AGI(count));
		uint32_t freecount = xfsj_get_be32(agi + AGI(freecount));

		if (count < n || freecount < n - 1) {
			err = inobt_bad(fs, agno, "AGI", "count", count, f);
			goto out;
		}
		xfsj_put_be32(agi + AGI(count), count - n);
		xfsj_put_be32(agi + AGI(freecount), freecount - (n - 1));
		xfsj_buf_dirty(agibp);
		err = xfsj_btree_delete(cur, &stat);
		if (!err && !stat)
			err = inobt_bad(fs, agno, "inobt", "delete", agino, f);
		*deleted = true;
	} else {
		uint32_t freecount = xfsj_get_be32(agi + AGI(freecount));

		err = xfsj_btree_update(cur, &rec);
		xfsj_put_be32(agi + AGI(freecount), freecount + 1);
		xfsj_buf_dirty(agibp);
		*deleted = false;
	}
	*out = rec.i;
out:
	xfsj_btree_cur_free(cur);
	return err;
}

static int difree_finobt(struct xfsj_fs *fs, uint32_t agno, uint32_t agino,
			 const struct xfsj_inobt_rec *ir, bool deleted,
			 struct xfsj_fault *f)
{
	struct xfsj_btree_cur *cur;
	union xfsj_btree_irec rec;
	int stat, err;

	err = xfsj_btree_cur_new(fs, XFSJ_BT_FINO, agno,
				 xfsj_alloc_block_source(XFSJ_BT_FINO), f, &cur);
	if (err)
		return err;
	memset(&rec, 0, sizeof(rec));
	rec.i.startino = ir->startino;
	err = xfsj_btree_lookup(cur, XFSJ_LOOKUP_EQ, &rec, &stat);
	if (err)
		goto out;
	if (!stat) {
		/* Only a chunk that had no free inode is missing here. */
		if (ir->freecount != 1) {
			err = inobt_bad(fs, agno, "finobt", "missing record",
					ir->startino, f);
			goto out;
		}
		rec.i = *ir;
		err = xfsj_btree_insert(cur, &rec, &stat);
		if (!err && !stat)
			err = inobt_bad(fs, agno, "finobt", "insert",
					ir->startino, f);
		goto out;
	}
	err = xfsj_btree_get_rec(cur, &rec, &stat);
	if (!err && !stat)
		err = inobt_bad(fs, agno, "finobt", "record", ir->startino, f);
	if (err)
		goto out;
	/* Changed on its own, then compared: the trees must agree. */
	rec.i.free |= 1ULL << (agino - ir->startino);
	rec.i.freecount++;
	if (rec.i.free != ir->free || rec.i.freecount != ir->freecount) {
		err = inobt_bad(fs, agno, "finobt", "record differs from inobt",
				ir->startino, f);
		goto out;
	}
	if (deleted) {
		err = xfsj_btree_delete(cur, &stat);
		if (!err && !stat)
			err = inobt_bad(fs, agno, "finobt", "delete",
					ir->startino, f);
	} else {
		err = xfsj_btree_update(cur, &rec);
	}
out:
	xfsj_btree_cur_free(cur);
	return err;
}

int xfsj_difree(struct xfsj_fs *fs, uint32_t agno, uint32_t agino,
		struct xfsj_difree_res *res, struct xfsj_fault *f)
{
	const struct xfsj_sb *sb = xfsj_fs_sb(fs);
	struct xfsj_inobt_rec ir;
	struct xfsj_buf *agibp;
	bool deleted = false;
	int err;

	memset(res, 0, sizeof(*res));
	if (agno >= sb->agcount ||
	    (agino >> sb->inopblog) >= xfsj_fs_ag_blocks(fs, agno))
		return xfsj_fault_set(f, XFSJ_E_RANGE, "inode", "agino",
				      agi_byte_off(fs, agno < sb->agcount ?
						   agno : 0), agino);
	err = xfsj_agi_read(fs, agno, &agibp, f);
	if (err)
		return err;
	/*
	 * A block holding more than one chunk is never freed with one of
	 * them: its other chunks may still be in use.
	 */
	err = difree_inobt(fs, agno, agino, agibp,
			   sb->inopblock <= XFSJ_INODES_PER_CHUNK, &ir, &deleted,
			   f);
	if (err)
		return err;
	if (xfsj_fs_has(fs, XFSJ_RO_COMPAT_FINOBT)) {
		err = difree_finobt(fs, agno, agino, &ir, deleted, f);
		if (err)
			return err;
	}
	res->startino = ir.startino;
	res->holemask = ir.holemask;
	res->chunk_freed = deleted;
	if (deleted) {
		struct chunk_free_arg a = { fs, agno };

		err = xfsj_ichunk_extents(sb, ir.startino, ir.holemask,
					  queue_chunk_free, &a);
		if (err == -XFSJ_E_CORRUPT)
			return inobt_bad(fs, agno, "inobt", "holemask",
					 ir.holemask, f);
		if (err)
			return xfsj_fault_set(f, err, "inode chunk", "free",
					      agi_byte_off(fs, agno),
					      ir.startino);
	}
	return 0;
}
