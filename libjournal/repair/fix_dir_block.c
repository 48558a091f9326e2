/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * FIX_CLEAR_ENTRY in the directory blocks outside the inode, for
 * single-block directories and leaf directories (one leaf block with its
 * bests).
 *
 * The entry becomes an unused region, merged with the unused regions
 * beside it (no two may touch), the block's bestfree table is recomputed
 * from its regions, and the leaf entry pointing at it goes stale (the
 * stale count grows); a leaf directory's bests entry for the block
 * follows its new largest region.  A directory block of several
 * filesystem blocks is read and written whole (fs/dir_buf.c).  What is left
 * here (node directories) the caller rebuilds (fix_dir.c).
 */
#include <stdlib.h>
#include <string.h>

#include "core/layout.h"
#include "fs/attr.h"
#include "fs/bmap.h"
#include "fs/bmbt.h"
#include "fs/iget.h"
#include "ondisk/dir_block.h"
#include "repair/repair_priv.h"

#define LEAF_HDR_COUNT	56
#define LEAF_HDR_STALE	58

struct dirw {
	struct xrp *rp;
	struct xfsj_iref *ip;
	struct xfsj_bmbt_irec *map;
	size_t nmap;
	uint32_t bsize;		/* directory block bytes */
	unsigned int bytelog;	/* log2 of it */
	uint32_t fsbs;		/* filesystem blocks in one */
	bool ftype;
	unsigned int changed;	/* entries changed */
};

/* The filesystem block at file offset @off of the data fork, or -1. */
static uint64_t map_fsb(const struct dirw *w, uint64_t off)
{
	size_t i;

	for (i = 0; i < w->nmap; i++) {
		const struct xfsj_bmbt_irec *m = &w->map[i];

		if (m->startoff <= off && off < m->startoff + m->blockcount)
			return m->startblock + (off - m->startoff);
	}
	return UINT64_MAX;
}

/* A directory block, whole (fs/dir_buf.c), edited in place. */
struct dblock {
	struct xfsj_buf *bp;
	uint8_t *b;
	bool dirty;
};

/* Done with it: written when changed, dropped when it spans several
 * filesystem blocks. */
static int dblock_free(struct dirw *w, struct dblock *d)
{
	struct xfsj_fault f = { 0 };
	int err;

	if (!d->bp)
		return 0;
	if (d->dirty)
		xfsj_buf_dirty(d->bp);
	err = xfsj_dirbuf_put(w->rp->fs, d->bp, w->fsbs, &f);
	d->bp = NULL;
	d->b = NULL;
	return err;
}

/* Directory block @db (its file offset in directory blocks): 0, 1 when
 * it is not mapped whole in one extent, or a negative XFSJ_E_*. */
static int dblock_read(struct dirw *w, uint64_t db, struct dblock *d)
{
	const struct xfsj_sb *sb = w->rp->sb;
	struct xfsj_fault f = { 0 };
	uint64_t fsb = map_fsb(w, db * w->fsbs);
	int err;

	if (fsb == UINT64_MAX || !xrp_blocks_ok(w->rp, fsb, w->fsbs))
		return 1;
	for (uint32_t i = 1; i < w->fsbs; i++)
		if (map_fsb(w, db * w->fsbs + i) != fsb + i)
			return 1;
	err = xfsj_dirbuf_get(w->rp->fs, xfsj_fsb_daddr(sb, fsb),
			     sb->blocksize, w->fsbs, false, &d->bp, &f);
	if (err)
		return err == -XFSJ_E_IO || err == -XFSJ_E_NOMEM ? err : 1;
	d->b = d->bp->data;
	d->dirty = false;
	return 0;
}

/* The block changed: the flush stamps its CRC. */
static void dblock_write(struct dblock *d)
{
	d->dirty = true;
}

/* The end of block @b's data area (0: not a data or block block). */
static uint32_t data_end(const struct dirw *w, const uint8_t *b)
{
	struct xfsj_dir2_area a;

	if (xfsj_dir2_data_area(b, w->bsize, &a) || !a.count_ok)
		return 0;
	return a.end;
}

/* Does item @it match what problem @pr names (at in-block @off)? */
static bool names_it(const struct xrp_prob *pr, const struct xfsj_dir2_item *it,
		     uint64_t doff)
{
	const struct xfsj_problem *p = &pr->p;

	if (it->unused)
		return false;
	if (xrp_by_child(pr))
		return it->ino == p->expected &&
		       xfsj_da_hashname(it->name, it->namelen) ==
		       (uint32_t)p->found;
	return doff == p->off && p->name && p->namelen == it->namelen &&
	       !memcmp(p->name, it->name, it->namelen);
}

/*
 * Find the entry in the data area of @b ([64, @end)); returns its offset
 * or 0.  The walk stops at an item that does not fit.
 */
static uint32_t find_entry(const struct dirw *w, const uint8_t *b,
			   uint32_t end, uint64_t db, const struct xrp_prob *pr,
			   struct xfsj_dir2_item *found)
{
	struct xfsj_dir2_walk dw;
	struct xfsj_dir2_item it;

	xfsj_dir2_walk_init(&dw, b, end, w->ftype);
	while (xfsj_dir2_walk_next(&dw, &it))
		if (names_it(pr, &it, (db << w->bytelog) + it.off)) {
			*found = it;
			return it.off;
		}
	return 0;
}

/*
 * Make [@off, @off + @len) of the data area unused, merged with its
 * unused neighbours, and recompute the bestfree table.  Returns the
 * largest unused region's length.
 */
static uint16_t make_unused(const struct dirw *w, uint8_t *b, uint32_t end,
			    uint32_t off, uint32_t len)
{
	struct xfsj_dir2_bestfree bf[XFSJ_DIR2_BEST_FREE] = { { 0, 0 } };
	uint32_t start = off, stop = off + len;
	struct xfsj_dir2_walk dw;
	struct xfsj_dir2_item it;

	/* The neighbours: one ending at @off, one starting at its end. */
	xfsj_dir2_walk_init(&dw, b, end, w->ftype);
	while (xfsj_dir2_walk_next(&dw, &it)) {
		if (it.unused && it.off + it.len == off)
			start = it.off;
		if (it.unused && it.off == stop)
			stop = it.off + it.len;
	}
	memset(b + start, 0, stop - start);
	xfsj_put_be16(b + start, XFSJ_DIR2_FREE_TAG);
	xfsj_put_be16(b + start + 2, (uint16_t)(stop - start));
	xfsj_put_be16(b + stop - 2, (uint16_t)start);

	/* The three largest regions, largest first. */
	xfsj_dir2_walk_init(&dw, b, end, w->ftype);
	while (xfsj_dir2_walk_next(&dw, &it))
		if (it.unused)
			xfsj_dir2_bestfree_add(bf, it.off, it.len);
	xfsj_dir3_bestfree_put(b, bf);
	return bf[0].length;
}

/* Stale the leaf entry of @dataptr among @n entries at @ents. */
static bool stale_leaf(uint8_t *ents, uint32_t n, uint32_t dataptr)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		if (xfsj_get_be32(ents + i * XFSJ_DIR2_LEAF_ENT_SIZE + 4) ==
		    dataptr) {
			xfsj_put_be32(ents + i * XFSJ_DIR2_LEAF_ENT_SIZE + 4, 0);
			return true;
		}
	return false;
}

/*
 * The leaf block of a leaf directory (LEAF1), checked for what the
 * removal touches: its entries and bests inside the block.
 */
static int leaf1(struct dirw *w, struct dblock *l, uint32_t *nents,
		 uint32_t *nbests)
{
	int err = dblock_read(w, XFSJ_DIR2_LEAF_OFFSET >> w->bytelog, l);

	if (err)
		return err;
	if (xfsj_get_be16(l->b + 8) != XFSJ_DIR3_LEAF1_MAGIC)
		return 1;
	*nents = xfsj_get_be16(l->b + LEAF_HDR_COUNT);
	*nbests = xfsj_get_be32(l->b + w->bsize - XFSJ_DIR2_LEAF_TAIL);
	if ((uint64_t)*nents * XFSJ_DIR2_LEAF_ENT_SIZE + 2ULL * *nbests +
	    XFSJ_DIR3_HDR_SIZE + XFSJ_DIR2_LEAF_TAIL > w->bsize)
		return 1;
	return 0;
}

/* Remove the entry from data block @db (read into @d), if it is there;
 * 1: not there. */
static int remove_from(struct dirw *w, struct xrp_prob *pr, uint64_t db,
		       struct dblock *d, struct dblock *l)
{
	struct xfsj_dir2_item it;
	uint32_t end, off, dataptr, nents = 0, nbests = 0;
	uint8_t *b = d->b;
	uint16_t best;
	char name[256];
	bool block;
	int err;

	end = data_end(w, b);
	if (!end || !(off = find_entry(w, b, end, db, pr, &it)))
		return 1;
	block = xfsj_get_be32(b) == XFSJ_DIR3_BLOCK_MAGIC;
	if (!block) {
		err = leaf1(w, l, &nents, &nbests);
		if (err || db >= nbests)
			return err < 0 ? err : 1;	/* node form: left */
	}
	dataptr = xfsj_dir2_dataptr(w->bytelog, db, off);
	if (block && !stale_leaf(b + end, (w->bsize - XFSJ_DIR2_BLOCK_TAIL -
					     end) / XFSJ_DIR2_LEAF_ENT_SIZE,
				 dataptr))
		return 1;
	if (!block && !stale_leaf(l->b + XFSJ_DIR3_HDR_SIZE, nents, dataptr))
		return 1;
	memcpy(name, it.name, it.namelen);
	name[it.namelen] = '\0';
	best = make_unused(w, b, end, off, it.len);
	if (block) {
		xfsj_put_be32(b + w->bsize - 4,
			      xfsj_get_be32(b + w->bsize - 4) + 1);
	} else {
		xfsj_put_be16(l->b + LEAF_HDR_STALE,
			      xfsj_get_be16(l->b + LEAF_HDR_STALE) + 1);
		xfsj_put_be16(l->b + w->bsize - XFSJ_DIR2_LEAF_TAIL -
			      2 * (nbests - db), best);
		dblock_write(l);
	}
	dblock_write(d);
	xrp_ino_action(w->rp, pr, XFSJ_FIX_CLEAR_ENTRY, w->ip->ino,
		       "removed entry '%s' (inode %llu) from directory %llu",
		       name, (unsigned long long)it.ino,
		       (unsigned long long)w->ip->ino);
	return 0;
}

/* Remove the entry from data block @db, if it is there; 1: not there. */
static int remove_in(struct dirw *w, struct xrp_prob *pr, uint64_t db)
{
	struct dblock d = { 0 }, l = { 0 };
	int err = dblock_read(w, db, &d);

	int e2;

	if (!err)
		err = remove_from(w, pr, db, &d, &l);
	e2 = dblock_free(w, &l);
	if (!e2)
		e2 = dblock_free(w, &d);
	return e2 ? e2 : err;
}

/* Set the file type of the entries of data block @db naming the child
 * the problem names with the type found to the type expected; 1: next. */
static int ftype_in(struct dirw *w, struct xrp_prob *pr, uint64_t db)
{
	struct dblock d = { 0 };
	struct xfsj_dir2_walk dw;
	struct xfsj_dir2_item it;
	int err = dblock_read(w, db, &d);

	if (err)
		return err;
	xfsj_dir2_walk_init(&dw, d.b, data_end(w, d.b), true);
	while (xfsj_dir2_walk_next(&dw, &it)) {
		if (it.unused || it.ino != pr->p.off ||
		    it.ftype != pr->p.found)
			continue;
		d.b[it.off + 9 + it.namelen] = (uint8_t)pr->p.expected;
		dblock_write(&d);
		w->changed++;
	}
	err = dblock_free(w, &d);
	return err ? err : 1;
}

/* @fn on every data block until it returns other than 1. */
static int each_data_block(struct dirw *w, struct xrp_prob *pr,
			   int (*fn)(struct dirw *, struct xrp_prob *,
				     uint64_t))
{
	uint64_t db, last;
	int err = 1;

	for (size_t i = 0; i < w->nmap && err == 1; i++) {
		const struct xfsj_bmbt_irec *m = &w->map[i];

		last = (m->startoff + m->blockcount) / w->fsbs;
		for (db = (m->startoff + w->fsbs - 1) / w->fsbs;
		     db < last && err == 1 &&
		     (db << w->bytelog) < XFSJ_DIR2_LEAF_OFFSET; db++)
			err = fn(w, pr, db);
	}
	return err;
}

/* The directory @ip's geometry and data fork: 0, 1 when the fork does
 * not read, or a negative XFSJ_E_*. */
static int dirw_open(struct dirw *w, struct xrp *rp, struct xfsj_iref *ip)
{
	const struct xfsj_sb *sb = rp->sb;
	struct xfsj_fault f = { 0 };
	int err;

	*w = (struct dirw){
		.rp = rp, .ip = ip,
		.bsize = sb->blocksize << sb->dirblklog,
		.bytelog = sb->blocklog + sb->dirblklog,
		.fsbs = 1U << sb->dirblklog,
		.ftype = xfsj_fs_has_incompat(rp->fs, XFSJ_INCOMPAT_FTYPE),
	};
	err = xfsj_bmap_read(rp->fs, ip, XFSJ_DATA_FORK, &w->map, &w->nmap, &f);
	if (err)
		return err == -XFSJ_E_IO || err == -XFSJ_E_NOMEM ? err : 1;
	return 0;
}

int xrp_clear_block_entry(struct xrp *rp, struct xrp_prob *pr,
			  struct xfsj_iref *ip)
{
	struct dirw w;
	int err = dirw_open(&w, rp, ip);

	if (err)
		return err < 0 ? err : 0;
	if (!xrp_by_child(pr)) {
		if (pr->p.has & XFSJ_PF_OFF)
			err = remove_in(&w, pr, pr->p.off >> w.bytelog);
		goto out;
	}
	/* By the inode it names: every data block in turn. */
	err = each_data_block(&w, pr, remove_in);
out:
	free(w.map);
	return err < 0 ? err : 0;
}

int xrp_block_dirent_ftype(struct xrp *rp, struct xrp_prob *pr,
			   struct xfsj_iref *ip)
{
	struct dirw w;
	int err = dirw_open(&w, rp, ip);

	if (err)
		return err < 0 ? err : 0;
	err = each_data_block(&w, pr, ftype_in);
	free(w.map);
	if (err < 0)
		return err == -XFSJ_E_IO || err == -XFSJ_E_NOMEM ? err : 0;
	return w.changed ? 1 : 0;
}
