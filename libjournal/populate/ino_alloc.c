/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Inodes for a filesystem being filled: the lowest free inode of an AG's
 * chunks, and a new chunk when none is left (aligned as the superblock
 * asks, its inodes written free, its records in the inobt and finobt,
 * the AGI counted).  Everything goes through the modification layer, so
 * the choice depends only on the filesystem's state: the same sequence
 * of requests gives the same inode numbers.
 */
#include <string.h>

#include "fs/alloc.h"
#include "fs/btree.h"
#include "ondisk/meta.h"
#include "populate/pop_priv.h"

static bool has_finobt(struct xfsj_fs *fs)
{
	return xfsj_fs_has(fs, XFSJ_RO_COMPAT_FINOBT);
}

/* Add @delta to the AGI's count and freecount (count only when @both). */
static int agi_count(struct xfsj_fs *fs, uint32_t agno, int32_t dcount,
		     int32_t dfree, uint32_t newino, struct xfsj_fault *f)
{
	struct xfsj_buf *bp;
	uint8_t *p;
	int err = xfsj_agi_read(fs, agno, &bp, f);

	if (err)
		return err;
	p = bp->data;
	xfsj_put_be32(p + XFSJ_AGI_OFF(count),
		      xfsj_get_be32(p + XFSJ_AGI_OFF(count)) + (uint32_t)dcount);
	xfsj_put_be32(p + XFSJ_AGI_OFF(freecount),
		      xfsj_get_be32(p + XFSJ_AGI_OFF(freecount)) +
		      (uint32_t)dfree);
	if (newino != XFSJ_NULLAGINO)
		xfsj_put_be32(p + XFSJ_AGI_OFF(newino), newino);
	xfsj_buf_dirty(bp);
	return 0;
}

static int tree_insert(struct xfsj_fs *fs, enum xfsj_btnum bt, uint32_t agno,
		       const struct xfsj_inobt_rec *r, struct xfsj_fault *f)
{
	struct xfsj_btree_cur *cur;
	union xfsj_btree_irec rec = { .i = *r };
	int stat, err;

	err = xfsj_btree_cur_new(fs, bt, agno, xfsj_alloc_block_source(bt), f,
				 &cur);
	if (err)
		return err;
	err = xfsj_btree_lookup(cur, XFSJ_LOOKUP_EQ, &rec, &stat);
	if (!err && stat)
		err = xfsj_fault_set(f, XFSJ_E_CORRUPT, "inobt", "startino",
				     agno, r->startino);
	if (!err)
		err = xfsj_btree_insert(cur, &rec, &stat);
	xfsj_btree_cur_free(cur);
	return err;
}

/* The first block at or after @from where an aligned chunk is free. */
struct fit {
	uint32_t from, len, align, found;
};

static int fit_rec(struct xfsj_btree_cur *cur, const union xfsj_btree_irec *r,
		   void *arg)
{
	struct fit *ft = arg;
	uint32_t s = r->a.startblock, e = s + r->a.blockcount, a;

	(void)cur;
	if (ft->found != XFSJ_NULLAGBLOCK || e <= ft->from)
		return 0;
	if (s < ft->from)
		s = ft->from;
	a = (s + ft->align - 1) / ft->align * ft->align;
	if (a + ft->len <= e)
		ft->found = a;
	return 0;
}

static int find_aligned(struct xfsj_fs *fs, uint32_t agno, struct fit *ft,
			struct xfsj_fault *f)
{
	struct xfsj_btree_cur *cur;
	int err;

	err = xfsj_btree_cur_new(fs, XFSJ_BT_BNO, agno, NULL, f, &cur);
	if (err)
		return err;
	err = xfsj_btree_query_all(cur, fit_rec, ft);
	xfsj_btree_cur_free(cur);
	return err;
}

/* A new chunk of free inodes in AG @agno; 1 if the AG has no room. */
static int new_chunk(struct pop *p, uint32_t agno, struct xfsj_fault *f)
{
	const struct xfsj_sb *sb = xfsj_fs_sb(p->fs);
	const struct xfsj_owner own = { .owner = XFSJ_RMAP_OWN_INODES };
	uint32_t ipb = 1U << sb->inopblog;
	uint32_t len = XFSJ_INODES_PER_CHUNK / ipb ? XFSJ_INODES_PER_CHUNK / ipb
						   : 1;
	struct fit ft = { .len = len, .found = XFSJ_NULLAGBLOCK,
			  .align = sb->inoalignmt ? sb->inoalignmt : 1 };
	struct xfsj_inobt_rec r;
	uint32_t agbno;
	int err;

	/*
	 * The AGFL first: a refill during the allocation takes blocks from
	 * the smallest free extent that fits, which may be the spot found.
	 */
	err = xfsj_alloc_fix_freelist(p->fs, agno, f);
	if (err)
		return err;
	ft.from = p->chunk_near[agno];
	err = find_aligned(p->fs, agno, &ft, f);
	if (!err && ft.found == XFSJ_NULLAGBLOCK && ft.from) {
		ft.from = 0;
		err = find_aligned(p->fs, agno, &ft, f);
	}
	if (err)
		return err;
	if (ft.found == XFSJ_NULLAGBLOCK)
		return 1;
	err = xfsj_alloc_extent(p->fs, agno, ft.found, len, &own, &agbno, f);
	if (err)
		return err;
	if (agbno != ft.found)
		return xfsj_fault_set(f, XFSJ_E_NOSPC, "inode chunk", "agbno",
				      agno, agbno);
	p->chunk_near[agno] = agbno + len;
	for (uint32_t b = 0; b < len; b++) {
		struct xfsj_buf *bp;

		err = xfsj_buf_get_zero(p->fs, xfsj_agb_to_daddr(sb, agno,
								 agbno + b),
					sb->blocksize, &bp);
		if (err)
			return xfsj_fault_set(f, err, "inode chunk", "get",
					      agno, agbno + b);
		for (uint32_t i = 0; i < ipb && i < XFSJ_INODES_PER_CHUNK;
		     i++) {
			uint8_t *ip = bp->data + (size_t)i * sb->inodesize;
			struct xfsj_dinode di;

			memset(&di, 0, sizeof(di));
			di.magic = XFSJ_DINODE_MAGIC;
			di.version = 3;
			di.gen = p->gen;
			di.next_unlinked = XFSJ_NULLAGINO;
			di.ino = xfsj_agino_to_ino(sb, agno,
						   ((agbno + b) << sb->inopblog)
						   + i);
			memcpy(di.uuid, xfsj_meta_fs_uuid(sb), 16);
			xfsj_dinode_encode(&di, ip);
			xfsj_dinode_finish(ip, sb->inodesize);
		}
		xfsj_buf_dirty(bp);
	}
	memset(&r, 0, sizeof(r));
	r.startino = agbno << sb->inopblog;
	r.count = XFSJ_INODES_PER_CHUNK;
	r.freecount = XFSJ_INODES_PER_CHUNK;
	r.free = ~0ULL;
	if (r.startino < p->free_from[agno])
		p->free_from[agno] = r.startino;
	err = tree_insert(p->fs, XFSJ_BT_INO, agno, &r, f);
	if (!err && has_finobt(p->fs))
		err = tree_insert(p->fs, XFSJ_BT_FINO, agno, &r, f);
	if (!err)
		err = agi_count(p->fs, agno, XFSJ_INODES_PER_CHUNK,
				XFSJ_INODES_PER_CHUNK, r.startino, f);
	return err;
}

/*
 * The first record at or after @from with a free inode; *found false if
 * none.
 */
static int first_free(struct xfsj_btree_cur *cur, uint32_t from,
		      struct xfsj_inobt_rec *out, bool *found)
{
	union xfsj_btree_irec r;
	int stat, err;

	*found = false;
	memset(&r, 0, sizeof(r));
	r.i.startino = from;
	err = xfsj_btree_lookup(cur, XFSJ_LOOKUP_GE, &r, &stat);
	while (!err && stat) {
		err = xfsj_btree_get_rec(cur, &r, &stat);
		if (err || !stat)
			break;
		if (r.i.freecount) {
			*out = r.i;
			*found = true;
			return 0;
		}
		err = xfsj_btree_increment(cur, 0, &stat);
	}
	return err;
}

/* Mark @bit of the chunk at @startino used in tree @bt. */
static int take_bit(struct xfsj_fs *fs, enum xfsj_btnum bt, uint32_t agno,
		    uint32_t startino, unsigned int bit, struct xfsj_fault *f)
{
	struct xfsj_btree_cur *cur;
	union xfsj_btree_irec r;
	int stat, err;

	err = xfsj_btree_cur_new(fs, bt, agno, xfsj_alloc_block_source(bt), f,
				 &cur);
	if (err)
		return err;
	memset(&r, 0, sizeof(r));
	r.i.startino = startino;
	err = xfsj_btree_lookup(cur, XFSJ_LOOKUP_EQ, &r, &stat);
	if (!err && stat)
		err = xfsj_btree_get_rec(cur, &r, &stat);
	if (!err && (!stat || !(r.i.free & (1ULL << bit))))
		err = xfsj_fault_set(f, XFSJ_E_CORRUPT, "inobt", "free", agno,
				     startino + bit);
	if (!err) {
		r.i.free &= ~(1ULL << bit);
		r.i.freecount--;
		if (bt == XFSJ_BT_FINO && !r.i.freecount)
			err = xfsj_btree_delete(cur, &stat);
		else
			err = xfsj_btree_update(cur, &r);
	}
	xfsj_btree_cur_free(cur);
	return err;
}

static int take_in_ag(struct pop *p, uint32_t agno, uint64_t *ino,
		      struct xfsj_fault *f)
{
	const struct xfsj_sb *sb = xfsj_fs_sb(p->fs);
	struct xfsj_btree_cur *cur;
	struct xfsj_inobt_rec r;
	bool found;
	unsigned int bit;
	int err;

	err = xfsj_btree_cur_new(p->fs, XFSJ_BT_INO, agno, NULL, f, &cur);
	if (err)
		return err;
	err = first_free(cur, p->free_from[agno], &r, &found);
	xfsj_btree_cur_free(cur);
	if (err)
		return err;
	if (found)
		p->free_from[agno] = r.startino;
	if (!found) {
		err = new_chunk(p, agno, f);
		return err ? err : take_in_ag(p, agno, ino, f);
	}
	for (bit = 0; bit < XFSJ_INODES_PER_CHUNK; bit++)
		if ((r.free & (1ULL << bit)) &&
		    !(r.holemask & (1U << (bit / 4))))
			break;
	if (bit == XFSJ_INODES_PER_CHUNK)
		return xfsj_fault_set(f, XFSJ_E_CORRUPT, "inobt", "freecount",
				      agno, r.startino);
	err = take_bit(p->fs, XFSJ_BT_INO, agno, r.startino, bit, f);
	if (!err && has_finobt(p->fs))
		err = take_bit(p->fs, XFSJ_BT_FINO, agno, r.startino, bit, f);
	if (!err)
		err = agi_count(p->fs, agno, 0, -1, XFSJ_NULLAGINO, f);
	if (!err)
		*ino = xfsj_agino_to_ino(sb, agno, r.startino + bit);
	return err;
}

int xfsj_pop_ialloc(struct pop *p, uint64_t parent, bool dir, uint64_t *ino,
		    struct xfsj_fault *f)
{
	const struct xfsj_sb *sb = xfsj_fs_sb(p->fs);
	uint32_t start = xfsj_ino_agno(sb, parent);
	int err = 1;

	/*
	 * As the kernel: directories take the AGs in turn, files their
	 * parent's AG; the next AGs when that one is full.
	 */
	if (dir) {
		start = p->dir_rotor;
		p->dir_rotor = (p->dir_rotor + 1) % sb->agcount;
	}
	if (start >= sb->agcount)
		start = 0;
	for (uint32_t i = 0; i < sb->agcount && err == 1; i++)
		err = take_in_ag(p, (start + i) % sb->agcount, ino, f);
	if (err == 1)
		err = xfsj_fault_set(f, XFSJ_E_NOSPC, "inode", "chunk", 0, 0);
	return err;
}
