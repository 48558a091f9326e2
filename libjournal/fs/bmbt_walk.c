/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The one bmbt descent (bmbt_walk.h).
 *
 * Layout (xfs_bmap_btree.h, as facts): a block is the long v5 header,
 * then 16-byte records (a leaf) or 8-byte keys, each the first file
 * offset under its child, followed, after room for as many keys as the
 * block holds, by 8-byte fsbno pointers.  A leaf record's first 8 bytes
 * hold the unwritten flag (bit 63) and the file offset above bit 9.
 * The root in the inode is ondisk/bmdr.c's.
 */
#include <string.h>

#include "core/crc32c.h"
#include "core/layout.h"
#include "fs/bmbt_walk.h"
#include "fs/btree.h"
#include "ondisk/bmdr.h"
#include "xfsj/errors.h"
#include "xfsj/ondisk.h"

#define HDR		XFSJ_LBLOCK_HDR_SIZE
/* A 64-bit file offset that is never a key: nothing before the first. */
#define NO_KEY		UINT64_MAX

void xfsj_bmbt_walk_init(struct xfsj_bmbt_walk *w, const struct xfsj_sb *sb,
			 uint64_t owner, const struct xfsj_bmbt_walk_ops *ops,
			 void *arg)
{
	memset(w, 0, sizeof(*w));
	w->sb = sb;
	w->owner = owner;
	w->ops = ops;
	w->arg = arg;
	w->maxlevel = XFSJ_BTREE_MAXLEVELS - 1;
}

void xfsj_bmbt_walk_free(struct xfsj_bmbt_walk *w)
{
	xfsj_u64set_free(&w->seen);
}

/* Entries a block has room for (a leaf's records, a node's keys). */
static unsigned int room(const struct xfsj_bmbt_walk *w)
{
	return xfsj_btree_maxrecs(XFSJ_BT_BMAP, w->sb->blocksize, true);
}

static int fault(struct xfsj_bmbt_walk *w, struct xfsj_bmbt_wblk *b,
		 enum xfsj_bmbt_fault_kind kind, uint64_t fsbno,
		 unsigned int level, uint64_t expected, uint64_t found,
		 uint64_t where)
{
	const struct xfsj_bmbt_fault ft = { kind, fsbno, level, expected,
					    found, where };

	return w->ops->fault(w->arg, b, &ft);
}

/* Fold a callback's answer into a block's verdict; false to stop. */
static bool fold(int ret, int *verdict)
{
	if (ret < 0) {
		*verdict = ret;
		return false;
	}
	if (ret == XFSJ_BMBT_SKIP)
		*verdict = XFSJ_BMBT_SKIP;
	return true;
}

static int walk_block(struct xfsj_bmbt_walk *w, uint64_t fsb,
		      unsigned int level, uint64_t key, uint64_t key_where,
		      uint64_t lo, uint64_t hi);

/*
 * The @n children at @level - 1 of node @fsb (0: the root), whose keys
 * sit at @keys (device byte offset @koff) and pointers @gap bytes on;
 * child i covers [key i, key i + 1), the last one up to @hi.
 */
static int walk_children(struct xfsj_bmbt_walk *w, uint64_t fsb,
			 const uint8_t *keys, size_t gap, unsigned int n,
			 unsigned int level, uint64_t koff, uint64_t hi)
{
	uint64_t last = NO_KEY;
	int err;

	for (unsigned int i = 0; i < n; i++) {
		size_t at = (size_t)i * 8;
		uint64_t k = xfsj_get_be64(keys + at);
		uint64_t p = xfsj_get_be64(keys + gap + at);
		uint64_t next = i + 1 < n ? xfsj_get_be64(keys + at + 8) : hi;
		bool skip = false;

		if (last != NO_KEY && k <= last) {
			err = fault(w, NULL, XFSJ_BMBT_F_KEY_ORDER, fsb, level,
				    last + 1, k, koff + at);
			if (err < 0)
				return err;
			skip = err == XFSJ_BMBT_SKIP;
		}
		last = k;
		if (skip)
			continue;
		if (!w->ops->ptr_ok(w->arg, p)) {
			err = fault(w, NULL, XFSJ_BMBT_F_PTR, p, level - 1, 0,
				    p, koff + gap + at);
			if (err < 0)
				return err;
			continue;
		}
		err = walk_block(w, p, level - 1, k, koff + at, k, next);
		if (err)
			return err;
	}
	return 0;
}

/* The header faults of block @b; its verdict. */
static int check_header(struct xfsj_bmbt_walk *w, struct xfsj_bmbt_wblk *b)
{
	const struct xfsj_sb *sb = w->sb;
	uint64_t at = b->daddr << 9;
	const struct xfsj_lblock *hp = &b->hdr;
	unsigned int max = room(w);
	int v = 0;

	xfsj_lblock_decode(b->data, &b->hdr);
	b->nrecs = hp->numrecs;
	if (hp->magic != XFSJ_BMAP_MAGIC) {
		v = fault(w, b, XFSJ_BMBT_F_MAGIC, b->fsbno, b->level,
			  XFSJ_BMAP_MAGIC, hp->magic, at);
		return v < 0 ? v : XFSJ_BMBT_SKIP;
	}
#define F(cond, kind, exp, val, off)					\
	do {								\
		if (!(cond) &&						\
		    !fold(fault(w, b, kind, b->fsbno, b->level, exp,	\
				val, at + (off)), &v))			\
			return v;					\
	} while (0)
	if (w->crc && !xfsj_cksum_ok(b->data, sb->blocksize,
				     XFSJ_LBLOCK_CRC_OFF))
		F(false, XFSJ_BMBT_F_CRC,
		  xfsj_cksum(b->data, sb->blocksize, XFSJ_LBLOCK_CRC_OFF),
		  hp->crc, XFSJ_LBLOCK_CRC_OFF);
	if (w->uuid)
		F(!memcmp(hp->uuid, w->uuid, 16), XFSJ_BMBT_F_UUID, 0, 1,
		  XFSJ_LB_OFF(uuid));
	F(hp->owner == w->owner, XFSJ_BMBT_F_OWNER, w->owner, hp->owner,
	  XFSJ_LB_OFF(owner));
	F(hp->blkno == b->daddr, XFSJ_BMBT_F_BLKNO, b->daddr, hp->blkno,
	  XFSJ_LB_OFF(blkno));
	F(hp->level == b->level, XFSJ_BMBT_F_LEVEL, b->level, hp->level,
	  XFSJ_LB_OFF(level));
	F(hp->numrecs >= 1, XFSJ_BMBT_F_NUMRECS, 1, hp->numrecs,
	  XFSJ_LB_OFF(numrecs));
	F(hp->numrecs <= max, XFSJ_BMBT_F_NUMRECS, max, hp->numrecs,
	  XFSJ_LB_OFF(numrecs));
#undef F
	/* Whatever a callback said, no more entries than the block holds. */
	if (b->nrecs > max)
		b->nrecs = max;
	return v;
}

/* The sibling chain of @b's level, and its first key; the verdict. */
static int check_links(struct xfsj_bmbt_walk *w, struct xfsj_bmbt_wblk *b,
		       uint64_t key_where)
{
	unsigned int l = b->level;
	uint64_t prev = w->prev[l], first;
	int v = 0;

	if (b->hdr.leftsib != prev &&
	    !fold(fault(w, b, XFSJ_BMBT_F_LEFTSIB, b->fsbno, l, prev,
			b->hdr.leftsib, (b->daddr << 9) + XFSJ_LB_OFF(leftsib)),
		  &v))
		return v;
	if (prev != XFSJ_NULLFSBLOCK && w->prev_right[l] != b->fsbno &&
	    !fold(fault(w, b, XFSJ_BMBT_F_RIGHTSIB, prev, l, b->fsbno,
			w->prev_right[l],
			(w->prev_daddr[l] << 9) + XFSJ_LB_OFF(rightsib)), &v))
		return v;
	w->prev[l] = b->fsbno;
	w->prev_right[l] = b->hdr.rightsib;
	w->prev_daddr[l] = b->daddr;
	first = xfsj_get_be64(b->data + HDR);
	if (l == 0)
		first = (first & ~(1ULL << 63)) >> 9;
	if (first != b->key &&
	    !fold(fault(w, b, XFSJ_BMBT_F_KEY, b->fsbno, l, b->key, first,
			key_where), &v))
		return v;
	return v;
}

/* The entries of block @b that its header and links let pass. */
static int walk_entries(struct xfsj_bmbt_walk *w, struct xfsj_bmbt_wblk *b)
{
	uint64_t at = (b->daddr << 9) + HDR;
	int err = 0;

	if (b->level > 0)
		return walk_children(w, b->fsbno, b->data + HDR,
				     (size_t)room(w) * 8, b->nrecs, b->level,
				     at, b->hi);
	for (unsigned int i = 0; i < b->nrecs && !err; i++) {
		size_t off = (size_t)i * XFSJ_BMBT_REC_SIZE;

		err = w->ops->rec(w->arg, b, i, b->data + HDR + off, at + off);
	}
	return err < 0 ? err : 0;
}

static int walk_block(struct xfsj_bmbt_walk *w, uint64_t fsb,
		      unsigned int level, uint64_t key, uint64_t key_where,
		      uint64_t lo, uint64_t hi)
{
	const struct xfsj_sb *sb = w->sb;
	struct xfsj_bmbt_wblk b = {
		.fsbno = fsb, .level = level, .key = key, .lo = lo, .hi = hi,
		.daddr = xfsj_agb_to_daddr(sb, xfsj_fsb_agno(sb, fsb),
					   xfsj_fsb_agbno(sb, fsb)),
	};
	int v;

	if (w->max_blocks && w->nvisits >= w->max_blocks) {
		v = fault(w, NULL, XFSJ_BMBT_F_LIMIT, fsb, level, w->max_blocks,
			  w->nvisits, key_where);
		return v < 0 ? v : 0;
	}
	w->nvisits++;
	v = xfsj_u64set_add(&w->seen, fsb);
	if (v < 0)
		return v;
	if (v) {
		v = fault(w, NULL, XFSJ_BMBT_F_DUP, fsb, level, 0, fsb,
			  b.daddr << 9);
		if (v)
			return v < 0 ? v : 0;
	}
	v = w->ops->read(w->arg, &b);
	if (v)
		return v < 0 ? v : 0;
	v = check_header(w, &b);
	if (v == XFSJ_BMBT_SKIP) {
		v = w->ops->bad_block ? w->ops->bad_block(w->arg, &b) : 0;
	} else {
		if (!v)
			v = check_links(w, &b, key_where);
		if (!v && w->ops->node)
			v = w->ops->node(w->arg, &b);
		if (!v)
			v = walk_entries(w, &b);
	}
	if (w->ops->put)
		w->ops->put(w->arg, &b);
	return v < 0 ? v : 0;
}

int xfsj_bmbt_descend_block(struct xfsj_bmbt_walk *w, uint64_t fsbno,
			    unsigned int level, uint64_t lo, uint64_t hi)
{
	if (level >= XFSJ_BMBT_WALK_LEVELS)
		return 0;
	return walk_block(w, fsbno, level, lo, 0, lo, hi);
}

int xfsj_bmbt_descend(struct xfsj_bmbt_walk *w, const uint8_t *root,
		      uint32_t size)
{
	unsigned int maxlevel = w->maxlevel < XFSJ_BMBT_WALK_LEVELS ?
				w->maxlevel : XFSJ_BMBT_WALK_LEVELS;
	struct xfsj_bmdr r;
	unsigned int n;
	int err;

	if (!xfsj_bmdr_decode(root, size, &r)) {
		err = fault(w, NULL, XFSJ_BMBT_F_ROOT_SIZE, 0, 0,
			    XFSJ_BMDR_HDR_SIZE + XFSJ_BMDR_PAIR, size,
			    w->root_off);
		return err < 0 ? err : 0;
	}
	if (r.level == 0 || r.level > maxlevel) {
		err = fault(w, NULL, XFSJ_BMBT_F_ROOT_LEVEL, 0, r.level,
			    maxlevel, r.level, w->root_off);
		return err < 0 ? err : 0;
	}
	n = r.numrecs;
	if (n == 0 || n > r.maxr) {
		err = fault(w, NULL, XFSJ_BMBT_F_ROOT_NUMRECS, 0, r.level,
			    r.maxr, n, w->root_off + 2);
		if (err)
			return err < 0 ? err : 0;
		if (n > r.maxr)
			n = r.maxr;
	}
	w->height = r.level;
	w->rootcnt = n;
	for (unsigned int l = 0; l < XFSJ_BMBT_WALK_LEVELS; l++)
		w->prev[l] = w->prev_right[l] = XFSJ_NULLFSBLOCK;
	err = walk_children(w, 0, r.keys, (size_t)(r.ptrs - r.keys), n,
			    r.level, w->root_off + XFSJ_BMDR_HDR_SIZE,
			    UINT64_MAX);
	if (err)
		return err;
	/* The last block of each level ends its chain. */
	for (unsigned int l = 0; l < r.level; l++) {
		if (w->prev[l] == XFSJ_NULLFSBLOCK ||
		    w->prev_right[l] == XFSJ_NULLFSBLOCK)
			continue;
		err = fault(w, NULL, XFSJ_BMBT_F_RIGHTSIB, w->prev[l], l,
			    XFSJ_NULLFSBLOCK, w->prev_right[l],
			    (w->prev_daddr[l] << 9) + XFSJ_LB_OFF(rightsib));
		if (err < 0)
			return err;
	}
	return 0;
}
