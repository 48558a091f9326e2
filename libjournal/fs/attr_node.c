/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Attribute forks in node (dabtree) format (attr.h): lookups down any
 * number of node levels, and the kernel's xfs_da_btree.c rules for
 * growing (leaf and node splits, a new root level) and shrinking (node
 * joins, root collapse).  The leaf blocks themselves are attr_leaf.c's;
 * block layouts are described there.
 */
#include <stdlib.h>
#include <string.h>

#include "fs/attr.h"
#include "fs/bmap.h"
#include "core/crc32c.h"
#include "core/layout.h"

/* ---- dabtree: reading nodes ---- */

#define DA_NODE_HDR	XFSJ_DA3_NODE_HDR_SIZE
#define DA_NODE_ENT	XFSJ_DA3_NODE_ENTRY_SIZE
#define N_MAGIC		XFSJ_DA3_OFF_MAGIC
#define N_COUNT		XFSJ_DA3_NODE_OFF_COUNT
#define N_LEVEL		XFSJ_DA3_NODE_OFF_LEVEL

/* A sibling chain longer than the fork has blocks must loop. */
int xfsj_attr_chain_max(struct xfsj_attr_ctx *c, uint64_t *max,
			struct xfsj_fault *f)
{
	struct xfsj_bmbt_irec *ext;
	size_t n;
	int err;

	*max = 0;
	err = xfsj_bmap_read(c->fs, c->ip, XFSJ_ATTR_FORK, &ext, &n, f);
	if (err)
		return err;
	for (size_t i = 0; i < n; i++)
		*max += ext[i].blockcount;
	free(ext);
	return 0;
}

/* Read attribute fork block @lblk (one filesystem block). */
static int ablock_read(struct xfsj_attr_ctx *c, uint64_t lblk,
		       struct xfsj_buf **bp, struct xfsj_fault *f)
{
	const struct xfsj_sb *sb = xfsj_fs_sb(c->fs);
	uint64_t fsb, daddr;
	int err;

	err = xfsj_attr_bmap(c->fs, c->ip, lblk, &fsb, f);
	if (err)
		return err;
	daddr = xfsj_agb_to_daddr(sb, xfsj_fsb_agno(sb, fsb),
				  xfsj_fsb_agbno(sb, fsb));
	err = xfsj_buf_read(c->fs, daddr, c->bs, bp);
	if (err)
		return xfsj_fault_set(f, err, "attr block", "read", daddr << 9,
				      c->ip->ino);
	return 0;
}

/* The da3 node checks that matter for walking it safely. */
int xfsj_attr_node_verify(struct xfsj_attr_ctx *c, const uint8_t *b,
			  uint64_t daddr, struct xfsj_fault *f)
{
	uint64_t off = daddr << 9;
	uint32_t count = xfsj_get_be16(b + N_COUNT);
	uint32_t level = xfsj_get_be16(b + N_LEVEL);
	struct xfsj_vctx v;

	if (!xfsj_cksum_ok(b, c->bs, 12))
		return xfsj_fault_set(f, XFSJ_E_BADCRC, "attr node", "crc",
				      off + 12, c->ip->ino);
	xfsj_fs_vctx(c->fs, 0, &v);
	if (memcmp(b + 32, v.uuid, 16))
		return xfsj_fault_set(f, XFSJ_E_CORRUPT, "attr node", "uuid",
				      off + 32, 0);
	if (xfsj_get_be64(b + 16) != daddr)
		return xfsj_fault_set(f, XFSJ_E_CORRUPT, "attr node", "blkno",
				      off + 16, xfsj_get_be64(b + 16));
	if (xfsj_get_be64(b + 48) != c->ip->ino)
		return xfsj_fault_set(f, XFSJ_E_CORRUPT, "attr node", "owner",
				      off + 48, xfsj_get_be64(b + 48));
	if (count == 0 || count > (c->bs - DA_NODE_HDR) / DA_NODE_ENT)
		return xfsj_fault_set(f, XFSJ_E_CORRUPT, "attr node", "count",
				      off + N_COUNT, count);
	if (level == 0 || level > XFSJ_ATTR_DA_MAXDEPTH)
		return xfsj_fault_set(f, XFSJ_E_CORRUPT, "attr node", "level",
				      off + N_LEVEL, level);
	return 0;
}

int xfsj_attr_leaf_read(struct xfsj_attr_ctx *c, uint64_t lblk,
			struct xfsj_buf **bp, struct xfsj_fault *f)
{
	int err = ablock_read(c, lblk, bp, f);

	if (err)
		return err;
	return xfsj_attr_leaf_verify(c->fs, c->ip->ino, (*bp)->data,
				     (*bp)->daddr, f);
}

/*
 * From the root node down to the leaf where @hash belongs (the first
 * entry whose hash is not below it), or the leftmost leaf.
 */
int xfsj_attr_node_descend(struct xfsj_attr_ctx *c, uint32_t hash,
			   bool leftmost, struct xfsj_fault *f)
{
	uint64_t lblk = 0;
	struct xfsj_buf *bp;
	int err;

	for (int depth = 0; depth <= XFSJ_ATTR_DA_MAXDEPTH; depth++) {
		const uint8_t *b;
		uint32_t count, i = 0;
		uint16_t magic;

		err = ablock_read(c, lblk, &bp, f);
		if (err)
			return err;
		b = bp->data;
		magic = xfsj_get_be16(b + N_MAGIC);
		if (magic == XFSJ_ATTR3_LEAF_MAGIC && depth) {
			err = xfsj_attr_leaf_verify(c->fs, c->ip->ino, b,
						    bp->daddr, f);
			if (err)
				return err;
			c->leaf = bp;
			return 0;
		}
		if (magic != XFSJ_DA3_NODE_MAGIC)
			return xfsj_fault_set(f, XFSJ_E_BADMAGIC, "attr node",
					      "magic",
					      (bp->daddr << 9) + N_MAGIC,
					      magic);
		err = xfsj_attr_node_verify(c, b, bp->daddr, f);
		if (err)
			return err;
		count = xfsj_get_be16(b + N_COUNT);
		if (!leftmost) {
			while (i < count - 1 &&
			       xfsj_get_be32(b + DA_NODE_HDR +
					     DA_NODE_ENT * i) < hash)
				i++;
		}
		lblk = xfsj_get_be32(b + DA_NODE_HDR + DA_NODE_ENT * i + 4);
	}
	return xfsj_fault_set(f, XFSJ_E_CORRUPT, "attr node", "level",
			      c->ip->byte_off, XFSJ_ATTR_DA_MAXDEPTH);
}

/* ---- changing a dabtree (the kernel's xfs_da_btree.c rules) ---- */

#define DA_NODE_ENTS(bs)	(((bs) - DA_NODE_HDR) / DA_NODE_ENT)

static uint8_t *nent(uint8_t *b, uint32_t i)
{
	return b + DA_NODE_HDR + DA_NODE_ENT * (size_t)i;
}

static uint32_t ncount(const uint8_t *b)
{
	return xfsj_get_be16(b + N_COUNT);
}

static uint32_t nlevel(const uint8_t *b)
{
	return xfsj_get_be16(b + N_LEVEL);
}

static uint32_t nchild(uint8_t *b, uint32_t i)
{
	return xfsj_get_be32(nent(b, i) + 4);
}

static bool is_leaf(const uint8_t *b)
{
	return xfsj_get_be16(b + N_MAGIC) == XFSJ_ATTR3_LEAF_MAGIC;
}

static uint32_t blk_count(const uint8_t *b)
{
	return is_leaf(b) ? xfsj_attr_leaf_count(b) : ncount(b);
}

static uint32_t blk_lasthash(uint8_t *b)
{
	uint32_t n = blk_count(b);

	if (is_leaf(b))
		return xfsj_attr_leaf_lasthash(b);
	return n ? xfsj_get_be32(nent(b, n - 1)) : 0;
}

/* The kernel's xfs_attr3_leaf_order and xfs_da3_node_order. */
static bool blk_order(uint8_t *b1, uint8_t *b2)
{
	uint32_t c1 = ncount(b1), c2 = ncount(b2);

	if (is_leaf(b1))
		return xfsj_attr_leaf_order(b1, b2);
	return c1 && c2 &&
	       (xfsj_get_be32(nent(b2, 0)) < xfsj_get_be32(nent(b1, 0)) ||
		xfsj_get_be32(nent(b2, c2 - 1)) <
		xfsj_get_be32(nent(b1, c1 - 1)));
}

static void blk_dirty(struct xfsj_attr_ctx *c, struct xfsj_buf *bp)
{
	xfsj_cksum_update(bp->data, c->bs, 12);
	xfsj_buf_dirty(bp);
}

/*
 * Read tree block @lblk expected at tree @level (0: a leaf).  Block 0
 * is the root, never a child; a level that does not fall by one per
 * step would let a hostile tree loop.
 */
static int tree_read(struct xfsj_attr_ctx *c, uint32_t lblk, uint32_t level,
		     struct xfsj_buf **bp, struct xfsj_fault *f)
{
	const uint8_t *b;
	int err;

	if (lblk == 0)
		return xfsj_fault_set(f, XFSJ_E_CORRUPT, "attr node",
				      "before (points at the root)",
				      c->ip->byte_off, 0);
	if (level == 0)
		return xfsj_attr_leaf_read(c, lblk, bp, f);
	err = ablock_read(c, lblk, bp, f);
	if (err)
		return err;
	b = (*bp)->data;
	if (xfsj_get_be16(b + N_MAGIC) != XFSJ_DA3_NODE_MAGIC)
		return xfsj_fault_set(f, XFSJ_E_BADMAGIC, "attr node",
				      "magic", ((*bp)->daddr << 9) + N_MAGIC,
				      xfsj_get_be16(b + N_MAGIC));
	err = xfsj_attr_node_verify(c, b, (*bp)->daddr, f);
	if (err)
		return err;
	if (nlevel(b) != level)
		return xfsj_fault_set(f, XFSJ_E_CORRUPT, "attr node", "level",
				      ((*bp)->daddr << 9) + N_LEVEL, nlevel(b));
	return 0;
}

/* A block at the same tree level as @like (a sibling). */
static int sib_read(struct xfsj_attr_ctx *c, uint8_t *like, uint32_t lblk,
		    struct xfsj_buf **bp, struct xfsj_fault *f)
{
	return tree_read(c, lblk, is_leaf(like) ? 0 : nlevel(like), bp, f);
}

static int node_unsupp(struct xfsj_attr_ctx *c, const char *why,
		       struct xfsj_fault *f)
{
	return xfsj_fault_set(f, XFSJ_E_UNSUPP, "attr node", why,
			      c->ip->byte_off + 83, c->ip->ino);
}

static void npath_sync(struct xfsj_attr_npath *np)
{
	np->root = np->blk[0].bp;
	np->leaf = np->blk[np->active - 1].bp;
}

/*
 * The kernel's xfs_da3_path_shift: the path's bottom block becomes its
 * neighbour at the same level (forward or back), through the lowest
 * ancestor that has one.  *moved is false at either end of the tree.
 */
static int path_shift(struct xfsj_attr_ctx *c, struct xfsj_attr_npath *p,
		      bool fwd, bool *moved, struct xfsj_fault *f)
{
	struct xfsj_attr_pblk *pb;
	uint32_t lblk;
	int lvl, err;

	*moved = false;
	for (lvl = p->active - 2; lvl >= 0; lvl--) {
		pb = &p->blk[lvl];
		if (fwd && pb->index + 1 < ncount(pb->bp->data)) {
			pb->index++;
			break;
		}
		if (!fwd && pb->index > 0) {
			pb->index--;
			break;
		}
	}
	if (lvl < 0)
		return 0;
	lblk = nchild(p->blk[lvl].bp->data, p->blk[lvl].index);
	for (lvl++; lvl < p->active; lvl++) {
		uint32_t level = nlevel(p->blk[lvl - 1].bp->data) - 1;

		pb = &p->blk[lvl];
		err = tree_read(c, lblk, level, &pb->bp, f);
		if (err)
			return err;
		pb->blkno = lblk;
		pb->index = 0;
		if (level) {
			if (!fwd)
				pb->index = ncount(pb->bp->data) - 1;
			lblk = nchild(pb->bp->data, pb->index);
		}
	}
	npath_sync(p);
	*moved = true;
	return 0;
}

/*
 * The kernel's node lookup: at each node the first entry whose hash is
 * not below ours (else the last), down to a leaf; a miss in a leaf whose
 * last hash is ours moves on to the next leaf (duplicate hashes may
 * continue there), which also decides where an insertion goes.
 */
int xfsj_attr_npath_lookup(struct xfsj_attr_ctx *c,
			   const struct xfsj_attr_arg *a, uint32_t hash,
			   struct xfsj_attr_npath *np, struct xfsj_fault *f)
{
	struct xfsj_attr_pblk *pb;
	uint32_t level;
	bool moved;
	int err;

	memset(np, 0, sizeof(*np));
	err = ablock_read(c, 0, &np->blk[0].bp, f);
	if (err)
		return err;
	err = xfsj_attr_node_verify(c, np->blk[0].bp->data,
				    np->blk[0].bp->daddr, f);
	if (err)
		return err;
	np->active = 1;
	level = nlevel(np->blk[0].bp->data);
	while (level > 0) {
		uint8_t *b;
		uint32_t count, i = 0;

		pb = &np->blk[np->active - 1];
		b = pb->bp->data;
		count = ncount(b);
		while (i < count - 1 && xfsj_get_be32(nent(b, i)) < hash)
			i++;
		pb->index = i;
		level--;
		pb = &np->blk[np->active];
		pb->blkno = nchild(b, i);
		err = tree_read(c, pb->blkno, level, &pb->bp, f);
		if (err)
			return err;
		np->active++;
	}
	npath_sync(np);
	for (;;) {
		xfsj_attr_leaf_lookup(np->leaf->data, c->bs, a, hash,
				      &np->index, &np->found);
		if (np->found ||
		    xfsj_attr_leaf_lasthash(np->leaf->data) != hash)
			return 0;
		err = path_shift(c, np, true, &moved, f);
		if (err || !moved)
			return err;
	}
}

/* The kernel's xfs_da3_fixhashpath: last hashes up from the bottom. */
static void fixhashpath(struct xfsj_attr_ctx *c, struct xfsj_attr_npath *p)
{
	int lvl = p->active - 1;
	uint8_t *b = p->blk[lvl].bp->data;
	uint32_t last;

	if (!blk_count(b))
		return;
	last = blk_lasthash(b);
	for (lvl--; lvl >= 0; lvl--) {
		struct xfsj_attr_pblk *pb = &p->blk[lvl];
		uint8_t *e = nent(pb->bp->data, pb->index);

		if (xfsj_get_be32(e) == last)
			break;
		xfsj_put_be32(e, last);
		blk_dirty(c, pb->bp);
		last = blk_lasthash(pb->bp->data);
	}
}

/* A new block of the fork where the kernel's xfs_da_grow_inode puts it. */
static int da_grow(struct xfsj_attr_ctx *c, uint32_t *lblk,
		   struct xfsj_buf **bp, struct xfsj_fault *f)
{
	const struct xfsj_sb *sb = xfsj_fs_sb(c->fs);
	uint64_t off, fsb, daddr;
	int err;

	err = xfsj_bmap_first_unused(c->fs, c->ip, XFSJ_ATTR_FORK, 1, 0, &off,
				     f);
	if (err)
		return err;
	if (off >= UINT32_MAX)
		return xfsj_fault_set(f, XFSJ_E_RANGE, "attr fork", "block",
				      c->ip->byte_off, off);
	err = xfsj_bmap_alloc(c->fs, c->ip, XFSJ_ATTR_FORK, off, 1, &fsb, f);
	if (err)
		return err;
	daddr = xfsj_agb_to_daddr(sb, xfsj_fsb_agno(sb, fsb),
				  xfsj_fsb_agbno(sb, fsb));
	err = xfsj_buf_get_zero(c->fs, daddr, c->bs, bp);
	if (err)
		return xfsj_fault_set(f, err, "attr block", "get", daddr << 9,
				      c->ip->ino);
	*lblk = (uint32_t)off;
	return 0;
}

/*
 * The kernel's xfs_da3_node_create: only the 64-byte header is written;
 * a reused buffer (block 0) keeps its old bytes past it.
 */
static void node_create(struct xfsj_attr_ctx *c, struct xfsj_buf *bp,
			uint32_t level)
{
	uint8_t *r = bp->data;
	struct xfsj_vctx v;

	memset(r, 0, DA_NODE_HDR);
	xfsj_put_be16(r + N_MAGIC, XFSJ_DA3_NODE_MAGIC);
	xfsj_put_be64(r + 16, bp->daddr);
	xfsj_fs_vctx(c->fs, 0, &v);
	memcpy(r + 32, v.uuid, 16);
	xfsj_put_be64(r + 48, c->ip->ino);
	xfsj_put_be16(r + N_LEVEL, (uint16_t)level);
}

/*
 * The kernel's xfs_attr3_leaf_to_node: the leaf moves to a new block and
 * block 0 becomes a root node pointing at it.  Only the node header and
 * its one entry are written: the rest of block 0 keeps the old leaf's
 * bytes, as the kernel reuses the buffer without clearing it.
 */
int xfsj_attr_leaf_to_node(struct xfsj_attr_ctx *c, struct xfsj_fault *f)
{
	struct xfsj_buf *nb;
	uint8_t *r = c->leaf->data;
	uint32_t lblk;
	int err;

	err = da_grow(c, &lblk, &nb, f);
	if (err)
		return err;
	memcpy(nb->data, r, c->bs);
	xfsj_put_be64(nb->data + 16, nb->daddr);
	blk_dirty(c, nb);
	node_create(c, c->leaf, 1);
	xfsj_put_be16(r + N_COUNT, 1);
	xfsj_put_be32(nent(r, 0), xfsj_attr_leaf_lasthash(nb->data));
	xfsj_put_be32(nent(r, 0) + 4, lblk);
	blk_dirty(c, c->leaf);
	c->leaf = NULL;
	c->st = XFSJ_AF_NODE;
	return 0;
}

/* The kernel's xfs_da3_blk_link: new block @nb by its old sibling @ob. */
static int blk_link(struct xfsj_attr_ctx *c, struct xfsj_buf *ob, uint32_t oblk,
		    struct xfsj_buf *nb, uint32_t nblk, struct xfsj_fault *f)
{
	uint8_t *o = ob->data, *n = nb->data;
	bool before = blk_order(o, n);
	struct xfsj_buf *sib;
	uint32_t other = xfsj_get_be32(o + (before ? 4 : 0));
	int err;

	/* forw at 0, back at 4: the new block takes one side of the old. */
	xfsj_put_be32(n + (before ? 0 : 4), oblk);
	xfsj_put_be32(n + (before ? 4 : 0), other);
	if (other) {
		err = sib_read(c, o, other, &sib, f);
		if (err)
			return err;
		xfsj_put_be32(sib->data + (before ? 0 : 4), nblk);
		blk_dirty(c, sib);
	}
	xfsj_put_be32(o + (before ? 4 : 0), nblk);
	blk_dirty(c, ob);
	blk_dirty(c, nb);
	return 0;
}

/*
 * The kernel's xfs_attr3_leaf_split: a new leaf linked by @xb (at
 * @xblk), half of @xb's bytes moved to it, then the entry added where
 * the balance put it.  *added is false when it still did not fit (the
 * caller splits again).
 */
static int leaf_split(struct xfsj_attr_ctx *c, struct xfsj_buf *xb,
		      uint32_t xblk, const struct xfsj_attr_arg *a,
		      uint32_t hash, uint32_t index, struct xfsj_attr_pblk *nw,
		      struct xfsj_buf **target, uint32_t *tindex, bool *remote,
		      bool *added, struct xfsj_fault *f)
{
	bool inleaf, nospc;
	int err;

	err = da_grow(c, &nw->blkno, &nw->bp, f);
	if (err)
		return err;
	xfsj_attr_leaf_init(c->fs, c->ip->ino, nw->bp->data, nw->bp->daddr);
	err = xfsj_attr_leaf_rebalance(xb->data, nw->bp->data, c->bs, a,
				       index, &inleaf, tindex);
	if (!err)
		err = blk_link(c, xb, xblk, nw->bp, nw->blkno, f);
	if (err)
		return err;
	*target = inleaf ? xb : nw->bp;
	err = xfsj_attr_leaf_add((*target)->data, c->bs, a, hash, *tindex,
				 &nospc, remote);
	blk_dirty(c, xb);
	blk_dirty(c, nw->bp);
	*added = !nospc;
	return err;
}

/* The kernel's xfs_da3_node_add: child @add's entry at @pb's index. */
static void node_add(struct xfsj_attr_ctx *c, struct xfsj_attr_pblk *pb,
		     const struct xfsj_attr_pblk *add)
{
	uint8_t *r = pb->bp->data;
	uint32_t count = ncount(r), at = pb->index;

	memmove(nent(r, at + 1), nent(r, at),
		(size_t)(count - at) * DA_NODE_ENT);
	xfsj_put_be32(nent(r, at), blk_lasthash(add->bp->data));
	xfsj_put_be32(nent(r, at) + 4, add->blkno);
	xfsj_put_be16(r + N_COUNT, (uint16_t)(count + 1));
	blk_dirty(c, pb->bp);
}

/*
 * The kernel's xfs_da3_node_split: node @pb takes @nadd new children
 * after its index; when they do not fit, a new node after it takes the
 * upper half of its entries first (xfs_da3_node_rebalance onto an empty
 * node), and the children go to whichever half holds the index.
 */
static int node_split(struct xfsj_attr_ctx *c, struct xfsj_attr_pblk *pb,
		      const struct xfsj_attr_pblk *add, int nadd,
		      bool extra_after, struct xfsj_attr_pblk *nw,
		      bool *split, struct xfsj_fault *f)
{
	uint8_t *b = pb->bp->data;
	uint32_t count = ncount(b), keep;
	struct xfsj_attr_pblk *tgt = pb;
	int err;

	*split = false;
	if (pb->index >= count)
		return xfsj_fault_set(f, XFSJ_E_CORRUPT, "attr node", "count",
				      (pb->bp->daddr << 9) + N_COUNT, count);
	if (count + nadd > DA_NODE_ENTS(c->bs)) {
		err = da_grow(c, &nw->blkno, &nw->bp, f);
		if (err)
			return err;
		node_create(c, nw->bp, nlevel(b));
		keep = count - count / 2;
		/* The moved entries stay behind in the old block's bytes. */
		memcpy(nent(nw->bp->data, 0), nent(b, keep),
		       (size_t)(count - keep) * DA_NODE_ENT);
		xfsj_put_be16(nw->bp->data + N_COUNT, (uint16_t)(count - keep));
		xfsj_put_be16(b + N_COUNT, (uint16_t)keep);
		nw->index = 0;
		if (pb->index >= keep) {
			nw->index = pb->index - keep;
			pb->index = keep + 1;
		}
		blk_dirty(c, pb->bp);
		blk_dirty(c, nw->bp);
		err = blk_link(c, pb->bp, pb->blkno, nw->bp, nw->blkno, f);
		if (err)
			return err;
		*split = true;
		if (pb->index > keep)
			tgt = nw;
	}
	tgt->index++;
	node_add(c, tgt, &add[0]);
	if (nadd > 1) {
		if (extra_after)
			tgt->index++;
		node_add(c, tgt, &add[1]);
	}
	return 0;
}

/*
 * The kernel's xfs_da3_root_split: the root's header and entries move to
 * a new block, and block 0 becomes a root one level higher over it and
 * its new sibling @add, which must point back at the moved block.
 */
static int root_split(struct xfsj_attr_ctx *c, struct xfsj_attr_pblk *root,
		      struct xfsj_attr_pblk *add, struct xfsj_fault *f)
{
	uint8_t *r = root->bp->data, *m, *n = add->bp->data;
	uint32_t level = nlevel(r), mblk;
	struct xfsj_buf *mb;
	int err;

	if (level >= XFSJ_ATTR_DA_MAXDEPTH - 1)
		return xfsj_fault_set(f, XFSJ_E_UNSUPP, "attr node",
				      "level (tree at its maximum depth)",
				      (root->bp->daddr << 9) + N_LEVEL, level);
	err = da_grow(c, &mblk, &mb, f);
	if (err)
		return err;
	m = mb->data;
	memcpy(m, r, DA_NODE_HDR + DA_NODE_ENT * (size_t)ncount(r));
	xfsj_put_be64(m + 16, mb->daddr);
	blk_dirty(c, mb);
	node_create(c, root->bp, level + 1);
	xfsj_put_be16(r + N_COUNT, 2);
	xfsj_put_be32(nent(r, 0), blk_lasthash(m));
	xfsj_put_be32(nent(r, 0) + 4, mblk);
	xfsj_put_be32(nent(r, 1), blk_lasthash(n));
	xfsj_put_be32(nent(r, 1) + 4, add->blkno);
	blk_dirty(c, root->bp);
	for (int side = 0; side < 2; side++) {
		uint32_t s = xfsj_get_be32(m + 4 * side);

		if (!s)
			continue;
		if (s != add->blkno)
			return xfsj_fault_set(f, XFSJ_E_CORRUPT, "attr node",
					      side ? "back" : "forw",
					      (mb->daddr << 9) + 4 * side, s);
		xfsj_put_be32(n + 4 * (1 - side), mblk);
		blk_dirty(c, add->bp);
	}
	return 0;
}

/*
 * The kernel's node add (xfs_da3_split): into the leaf if it fits, else
 * split the leaf, and if the entry still does not fit split again (the
 * half that should have taken it); then each node up the path takes the
 * new blocks, splitting in turn when full, and a split root gives the
 * tree a new level.
 */
int xfsj_attr_node_addname(struct xfsj_attr_ctx *c,
			   const struct xfsj_attr_arg *a, uint32_t hash,
			   struct xfsj_fault *f)
{
	struct xfsj_attr_pblk add[2], nw = { 0 }, *lp;
	struct xfsj_attr_npath np;
	struct xfsj_buf *target;
	uint32_t index, lblk;
	bool nospc, remote, added, split, extra_after = false;
	int nadd = 1, err, i;

	err = xfsj_attr_npath_lookup(c, a, hash, &np, f);
	if (err)
		return err;
	err = xfsj_attr_leaf_add(np.leaf->data, c->bs, a, hash, np.index,
				 &nospc, &remote);
	if (err)
		return err;
	blk_dirty(c, np.leaf);
	target = np.leaf;
	index = np.index;
	if (!nospc) {
		fixhashpath(c, &np);
		goto rmt;
	}
	lp = &np.blk[np.active - 1];
	err = leaf_split(c, lp->bp, lp->blkno, a, hash, np.index, &add[0],
			 &target, &index, &remote, &added, f);
	if (err)
		return err;
	if (!added) {
		/* Split whichever half was to take it (xfs_da3_split). */
		bool in_old = target == lp->bp;

		extra_after = !in_old;
		err = leaf_split(c, target, in_old ? lp->blkno : add[0].blkno,
				 a, hash, index, &add[1], &target, &index,
				 &remote, &added, f);
		if (err)
			return err;
		/* The kernel gives up here too: an entry is < 3/4 block. */
		if (!added)
			return node_unsupp(c, "leaf needs a third split", f);
		nadd = 2;
	}
	fixhashpath(c, &np);
	for (i = np.active - 2; i >= 0 && nadd; i--) {
		np.active = i + 1;
		err = node_split(c, &np.blk[i], add, nadd, extra_after, &nw,
				 &split, f);
		if (err)
			return err;
		fixhashpath(c, &np);
		nadd = split;
		add[0] = nw;
		extra_after = false;
	}
	if (nadd) {
		err = root_split(c, &np.blk[0], &add[0], f);
		if (err)
			return err;
	}
rmt:
	if (!remote)
		return 0;
	err = xfsj_attr_rmt_set(c->fs, c->ip, a->value, a->valuelen, &lblk, f);
	if (err)
		return err;
	xfsj_attr_leaf_set_rmt(target->data, c->bs, index, lblk, a->valuelen);
	blk_dirty(c, target);
	return 0;
}

/* Unmap one block of the fork (the kernel's xfs_da_shrink_inode). */
static int da_shrink(struct xfsj_attr_ctx *c, struct xfsj_buf *bp,
		     uint32_t lblk, struct xfsj_fault *f)
{
	uint64_t done = 0;
	int err;

	xfsj_buf_forget(c->fs, bp);
	err = xfsj_bmap_unmap(c->fs, c->ip, XFSJ_ATTR_FORK, lblk, 1, false,
			      &done, f);
	if (!err && done != 1)
		err = xfsj_fault_set(f, XFSJ_E_CORRUPT, "attr fork",
				     "block unmap", c->ip->byte_off, lblk);
	return err;
}

/* The kernel's xfs_da3_node_remove: the entry at @pb's index goes. */
static void node_remove(struct xfsj_attr_ctx *c, struct xfsj_attr_pblk *pb)
{
	uint8_t *r = pb->bp->data;
	uint32_t count = ncount(r), at = pb->index;

	memmove(nent(r, at), nent(r, at + 1),
		(size_t)(count - at - 1) * DA_NODE_ENT);
	memset(nent(r, count - 1), 0, DA_NODE_ENT);
	xfsj_put_be16(r + N_COUNT, (uint16_t)(count - 1));
	blk_dirty(c, pb->bp);
}

/* The kernel's xfs_da3_node_unbalance: @d's entries into @s, in order. */
static void node_unbalance(struct xfsj_attr_ctx *c, struct xfsj_buf *d,
			   struct xfsj_buf *s)
{
	uint8_t *db = d->data, *sb = s->data;
	uint32_t dc = ncount(db), sc = ncount(sb), at = sc;

	if (!dc)
		return;
	if (xfsj_get_be32(nent(db, 0)) < xfsj_get_be32(nent(sb, 0)) ||
	    xfsj_get_be32(nent(db, dc - 1)) <
	    xfsj_get_be32(nent(sb, sc - 1))) {
		memmove(nent(sb, dc), nent(sb, 0), (size_t)sc * DA_NODE_ENT);
		at = 0;
	}
	memcpy(nent(sb, at), nent(db, 0), (size_t)dc * DA_NODE_ENT);
	xfsj_put_be16(sb + N_COUNT, (uint16_t)(sc + dc));
	blk_dirty(c, s);
}

/* The kernel's xfs_da3_blk_unlink: @drop leaves the sibling chain. */
static int blk_unlink(struct xfsj_attr_ctx *c, struct xfsj_attr_pblk *drop,
		      struct xfsj_attr_pblk *save, struct xfsj_fault *f)
{
	uint8_t *d = drop->bp->data, *s = save->bp->data;
	int side = xfsj_get_be32(s + 4) == drop->blkno ? 4 : 0;
	uint32_t other = xfsj_get_be32(d + side);
	struct xfsj_buf *ob;
	int err;

	/* The kernel only asserts these; a hostile chain must not pass. */
	if (xfsj_get_be32(s + side) != drop->blkno)
		return xfsj_fault_set(f, XFSJ_E_CORRUPT, "attr block", "forw",
				      save->bp->daddr << 9,
				      xfsj_get_be32(s + side));
	xfsj_put_be32(s + side, other);
	blk_dirty(c, save->bp);
	if (!other)
		return 0;
	err = sib_read(c, d, other, &ob, f);
	if (err)
		return err;
	if (xfsj_get_be32(ob->data + (4 - side)) != drop->blkno)
		return xfsj_fault_set(f, XFSJ_E_CORRUPT, "attr block",
				      side ? "forw" : "back",
				      (ob->daddr << 9) + (4 - side),
				      xfsj_get_be32(ob->data + (4 - side)));
	xfsj_put_be32(ob->data + (4 - side), save->blkno);
	blk_dirty(c, ob);
	return 0;
}

/*
 * The kernel's xfs_attr3_leaf_toosmall / xfs_da3_node_toosmall: whether
 * the path's bottom block should merge with a neighbour.  On yes, the
 * block to drop is at the bottom of @np and the one to keep at the
 * bottom of @alt (the higher block number goes; an empty one always).
 */
static int toosmall(struct xfsj_attr_ctx *c, struct xfsj_attr_npath *np,
		    struct xfsj_attr_npath *alt, bool *join,
		    struct xfsj_fault *f)
{
	struct xfsj_attr_pblk *pb = &np->blk[np->active - 1];
	uint8_t *b = pb->bp->data;
	bool leaf = is_leaf(b), fwd, moved;
	uint32_t count = blk_count(b), forw = xfsj_get_be32(b);
	uint32_t back = xfsj_get_be32(b + 4), blkno = 0, ents;
	uint32_t used = leaf ? xfsj_attr_leaf_used(b) : 0;
	struct xfsj_attr_npath *sp;
	struct xfsj_buf *sb;
	int err, i;

	*join = false;
	ents = DA_NODE_ENTS(c->bs);
	if (leaf ? used > c->bs / 2 : count > ents / 2)
		return 0;
	if (count == 0) {
		fwd = forw != 0;
		blkno = fwd ? forw : back;
		sp = alt;
	} else {
		fwd = forw < back;
		for (i = 0; i < 2; i++, fwd = !fwd) {
			int64_t room;

			blkno = fwd ? forw : back;
			if (!blkno)
				continue;
			err = sib_read(c, b, blkno, &sb, f);
			if (err)
				return err;
			if (leaf)
				room = (int64_t)c->bs - c->bs / 4 -
				       used + XFSJ_ATTR3_LEAF_HDR_SIZE -
				       xfsj_attr_leaf_used(sb->data);
			else
				room = (int64_t)ents - ents / 4 - count -
				       ncount(sb->data);
			if (room >= 0)
				break;
		}
		if (i >= 2)
			return 0;
		sp = blkno < pb->blkno ? alt : np;
	}
	*alt = *np;
	err = path_shift(c, sp, fwd, &moved, f);
	if (err || !moved)
		return err;
	/* The tree's neighbour must be the one the sibling chain names. */
	if (sp->blk[sp->active - 1].blkno != blkno)
		return xfsj_fault_set(f, XFSJ_E_CORRUPT, "attr block",
				      fwd ? "forw" : "back",
				      (pb->bp->daddr << 9) + (fwd ? 0 : 4),
				      blkno);
	*join = true;
	return 0;
}

/*
 * The kernel's xfs_da3_join: from the leaf up, a block small enough
 * empties into a neighbour and leaves the chain, the fork and its
 * parent; the parent may then be small enough in turn.  A root left
 * with one child becomes that child (xfs_da3_root_join).
 */
static int da_join(struct xfsj_attr_ctx *c, struct xfsj_attr_npath *np,
		   struct xfsj_fault *f)
{
	struct xfsj_attr_npath alt;
	struct xfsj_attr_pblk *drop, *save, *root = &np->blk[0];
	struct xfsj_buf *cb;
	uint8_t *r;
	uint32_t child, level;
	bool join;
	int err;

	for (; np->active >= 2; np->active--) {
		drop = &np->blk[np->active - 1];
		if (!is_leaf(drop->bp->data)) {
			node_remove(c, drop);
			fixhashpath(c, np);
		}
		err = toosmall(c, np, &alt, &join, f);
		if (err || !join)
			return err;
		save = &alt.blk[np->active - 1];
		if (is_leaf(drop->bp->data)) {
			err = xfsj_attr_leaf_unbalance(drop->bp->data,
						       save->bp->data, c->bs);
			if (err)
				return err;
			blk_dirty(c, save->bp);
		} else {
			node_unbalance(c, drop->bp, save->bp);
		}
		alt.active = np->active;
		fixhashpath(c, &alt);
		err = blk_unlink(c, drop, save, f);
		if (!err)
			err = da_shrink(c, drop->bp, drop->blkno, f);
		if (err)
			return err;
	}
	node_remove(c, root);
	r = root->bp->data;
	if (ncount(r) > 1)
		return 0;
	child = nchild(r, 0);
	level = nlevel(r);
	err = tree_read(c, child, level - 1, &cb, f);
	if (err)
		return err;
	/* An only child has no siblings (the kernel's DEBUG check). */
	if (xfsj_get_be32(cb->data) || xfsj_get_be32(cb->data + 4))
		return xfsj_fault_set(f, XFSJ_E_CORRUPT, "attr block",
				      "forw/back (only child)",
				      cb->daddr << 9, child);
	memcpy(r, cb->data, c->bs);
	xfsj_put_be64(r + 16, root->bp->daddr);
	blk_dirty(c, root->bp);
	err = da_shrink(c, cb, child, f);
	if (err)
		return err;
	if (level == 1) {
		c->st = XFSJ_AF_LEAF;
		c->leaf = root->bp;
	}
	return 0;
}

/*
 * The kernel's node remove: out of the leaf, the hashes fixed up the
 * path, then the join pass.  The kernel (xfs_attr_node_remove_attr)
 * tests the lookup's result, not the leaf's "below 37%" answer, before
 * trying a join: so the join runs after every removal from a tree.
 */
int xfsj_attr_node_removename(struct xfsj_attr_ctx *c,
			      struct xfsj_attr_npath *np, bool keep_fork,
			      struct xfsj_fault *f)
{
	struct xfsj_attr_lent e;
	uint8_t *l = np->leaf->data;
	int err;

	xfsj_attr_leaf_get_ent(l, c->bs, np->index, &e);
	if (!(e.flags & XFSJ_ATTR_FLAG_LOCAL) && e.valueblk) {
		err = xfsj_attr_rmt_remove(c->fs, c->ip, e.valueblk,
					   e.valuelen, f);
		if (err)
			return err;
	}
	xfsj_attr_leaf_remove(l, c->bs, np->index);
	blk_dirty(c, np->leaf);
	fixhashpath(c, np);
	err = da_join(c, np, f);
	if (err || c->st != XFSJ_AF_LEAF)
		return err;
	return xfsj_attr_leaf_shrink(c, keep_fork, f);
}
