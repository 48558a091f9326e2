// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The facts the evidence model (evidence.c) weighs, read from the
 * check's tables and the filesystem for each claim over a range claimed
 * twice:
 * - the rmapbt (only when every AG's was read whole and trusted): a
 *   record of the claim's owner and fork over the range, at the same
 *   file offset for the same block and with the same unwritten flag;
 *   else whether its records there name other owners only;
 * - the block's own header, read at the first block of the range: a
 *   bmbt block of the inode, an attribute leaf, node or remote value
 *   block of its attribute fork, a directory block of the directory, a
 *   remote symlink block, an AG btree block of the tree its owner names
 *   (the AG's number as owner), an inode chunk's inode of its number;
 *   each with its block number and the filesystem's metadata UUID;
 * - the layout: AG header sectors, the internal log;
 * - the refcountbt (read whole): records over the whole range with a
 *   count of two or more;
 * - the claiming inode: its file type as the check saw it, and whether
 *   any problem of any round named it (not sound).
 */
#include <string.h>

#include "core/layout.h"
#include "fs/iget.h"
#include "ondisk/attr_layout.h"
#include "ondisk/dir_block.h"
#include "ondisk/meta.h"
#include "repair/repair_priv.h"

bool xrp_rmapbt_whole(const struct xrp *rp)
{
	return xfsj_fs_has(rp->fs, XFSJ_RO_COMPAT_RMAPBT) &&
	       xck_ags_trusted(rp->ck, XCK_TRUST_RMAP);
}

uint8_t xrp_ino_ftype(const struct xrp *rp, uint64_t ino)
{
	const struct xck_inode *st = xck_inode_find(rp->ck, ino, NULL);

	return st ? st->ftype : 0;
}

/* ---- the header ---- */

/* What the header check of one kind of claim gets. */
struct hdr_ctx {
	const uint8_t *b;
	const uint8_t *uuid;	/* the filesystem's metadata UUID */
	uint64_t daddr;		/* of the block */
	uint64_t owner;		/* the claim's */
	uint32_t agno, agbno;
	const struct xfsj_sb *sb;
};

static bool uuid_is(const uint8_t *u, const struct hdr_ctx *x)
{
	return !memcmp(u, x->uuid, 16);
}

static bool rmt_names(const struct hdr_ctx *x, uint32_t magic)
{
	struct xfsj_rmt_hdr h;

	xfsj_rmt_hdr_decode(x->b, &h);
	return h.magic == magic && h.owner == x->owner &&
	       h.blkno == x->daddr && uuid_is(h.uuid, x);
}

static bool da_names(const struct xfsj_dir3_hdr *h, const struct hdr_ctx *x)
{
	return h->owner == x->owner && h->blkno == x->daddr &&
	       uuid_is(h->uuid, x);
}

static bool hdr_bmbt(const struct hdr_ctx *x)
{
	struct xfsj_lblock h;

	xfsj_lblock_decode(x->b, &h);
	return h.magic == XFSJ_BMAP_MAGIC && h.owner == x->owner &&
	       h.blkno == x->daddr && uuid_is(h.uuid, x);
}

static bool hdr_attr(const struct hdr_ctx *x)
{
	struct xfsj_dir3_hdr h;

	xfsj_dir3_blkinfo_decode(x->b, &h);
	if ((h.magic == XFSJ_ATTR3_LEAF_MAGIC ||
	     h.magic == XFSJ_DA3_NODE_MAGIC) && da_names(&h, x))
		return true;
	return rmt_names(x, XFSJ_ATTR_RMT_MAGIC);
}

static bool hdr_dir(const struct hdr_ctx *x)
{
	struct xfsj_dir3_hdr h;

	return xfsj_dir3_hdr_decode_any(x->b, &h) && da_names(&h, x);
}

static bool hdr_symlink(const struct hdr_ctx *x)
{
	return rmt_names(x, XFSJ_SYMLINK_MAGIC);
}

/* An AG btree block of one of the trees of the claim's owner. */
static bool hdr_agbtree(const struct hdr_ctx *x)
{
	static const struct {
		uint64_t owner;
		uint32_t magic[3];
	} trees[] = {
		{ XFSJ_RMAP_OWN_AG,
		  { XFSJ_BNO_MAGIC, XFSJ_CNT_MAGIC, XFSJ_RMAP_MAGIC } },
		{ XFSJ_RMAP_OWN_INOBT, { XFSJ_INO_MAGIC, XFSJ_FINO_MAGIC } },
		{ XFSJ_RMAP_OWN_REFC, { XFSJ_REFC_MAGIC } },
	};
	struct xfsj_sblock h;

	xfsj_sblock_decode(x->b, &h);
	if (h.owner != x->agno || h.blkno != x->daddr || !uuid_is(h.uuid, x))
		return false;
	for (size_t t = 0; t < sizeof(trees) / sizeof(trees[0]); t++)
		for (size_t k = 0; trees[t].owner == x->owner && k < 3; k++)
			if (trees[t].magic[k] && trees[t].magic[k] == h.magic)
				return true;
	return false;
}

/* The first inode of an inode chunk's block, by its own core. */
static bool hdr_inodes(const struct hdr_ctx *x)
{
	struct xfsj_dinode di;
	uint64_t ino = xfsj_agino_to_ino(x->sb, x->agno,
					 x->agbno << x->sb->inopblog);

	xfsj_dinode_decode(x->b, &di);
	return di.magic == XFSJ_DINODE_MAGIC && di.version == 3 &&
	       di.ino == ino && uuid_is(di.uuid, x);
}

static bool is_bmbt(uint64_t owner, uint64_t off, uint8_t ft)
{
	(void)ft;
	return xrp_owner_inode(owner) && (off & XFSJ_RMAP_OFF_BMBT_BLOCK);
}

static bool is_attr(uint64_t owner, uint64_t off, uint8_t ft)
{
	(void)ft;
	return xrp_owner_inode(owner) && (off & XRP_RMAP_FORK_FLAGS) ==
	       XFSJ_RMAP_OFF_ATTR_FORK;
}

static bool is_dir(uint64_t owner, uint64_t off, uint8_t ft)
{
	return xrp_owner_inode(owner) && !(off & XRP_RMAP_FORK_FLAGS) &&
	       ft == XFSJ_FT_DIR;
}

static bool is_symlink(uint64_t owner, uint64_t off, uint8_t ft)
{
	return xrp_owner_inode(owner) && !(off & XRP_RMAP_FORK_FLAGS) &&
	       ft == XFSJ_FT_SYMLINK;
}

static bool is_agbtree(uint64_t owner, uint64_t off, uint8_t ft)
{
	(void)off;
	(void)ft;
	return owner == XFSJ_RMAP_OWN_AG || owner == XFSJ_RMAP_OWN_INOBT ||
	       owner == XFSJ_RMAP_OWN_REFC;
}

static bool is_inodes(uint64_t owner, uint64_t off, uint8_t ft)
{
	(void)off;
	(void)ft;
	return owner == XFSJ_RMAP_OWN_INODES;
}

/* The header kinds: which claims each one judges, and its check. */
static const struct {
	bool (*is)(uint64_t owner, uint64_t offset, uint8_t ftype);
	bool (*names)(const struct hdr_ctx *x);
} hdr_kinds[] = {
	{ is_bmbt, hdr_bmbt },
	{ is_attr, hdr_attr },
	{ is_dir, hdr_dir },
	{ is_symlink, hdr_symlink },
	{ is_agbtree, hdr_agbtree },
	{ is_inodes, hdr_inodes },
};

bool xrp_claim_header(const struct xrp *rp, uint32_t agno, uint32_t agbno,
		      uint64_t owner, uint64_t offset, uint8_t ftype)
{
	const struct xfsj_sb *sb = rp->sb;
	struct hdr_ctx x = { .uuid = xfsj_meta_fs_uuid(sb),
			     .daddr = xfsj_agb_to_daddr(sb, agno, agbno),
			     .owner = owner, .agno = agno, .agbno = agbno,
			     .sb = sb };
	struct xfsj_buf *bp;
	bool named = false;
	size_t k;

	for (k = 0; k < sizeof(hdr_kinds) / sizeof(hdr_kinds[0]); k++)
		if (hdr_kinds[k].is(owner, offset, ftype))
			break;
	if (k == sizeof(hdr_kinds) / sizeof(hdr_kinds[0]) ||
	    !xrp_blocks_ok(rp, xfsj_agb_to_fsb(sb, agno, agbno), 1) ||
	    xfsj_buf_read_ref(rp->fs, x.daddr, sb->blocksize, &bp))
		return false;
	x.b = bp->data;
	named = hdr_kinds[k].names(&x);
	xfsj_buf_rele(rp->fs, bp);
	return named;
}

/* ---- the rmapbt, the layout, the refcountbt ---- */

/* Does rmapbt record @r agree with claim @c (owner, fork, offset,
 * unwritten)? */
static bool rmap_agrees(const struct xfsj_rmap_rec *r,
			const struct xfsj_rmap_rec *c)
{
	uint64_t ro = r->offset & XFSJ_RMAP_OFF_MASK;
	uint64_t co = c->offset & XFSJ_RMAP_OFF_MASK;

	if (r->owner != c->owner ||
	    (r->offset & XRP_RMAP_FORK_FLAGS) !=
	    (c->offset & XRP_RMAP_FORK_FLAGS))
		return false;
	if (!xrp_owner_inode(c->owner) ||
	    (c->offset & XFSJ_RMAP_OFF_BMBT_BLOCK))
		return true;
	/* the same file offset for the same block */
	return ro + c->startblock == co + r->startblock &&
	       (r->offset & XFSJ_RMAP_OFF_UNWRITTEN) ==
	       (c->offset & XFSJ_RMAP_OFF_UNWRITTEN);
}

static void rmap_facts(const struct xck_ag *ag, const struct xfsj_rmap_rec *c,
		       uint64_t s, uint64_t e, struct xrp_claim *f)
{
	for (size_t k = 0; k < ag->rmaps.n; k++) {
		const struct xfsj_rmap_rec *r = xck_vec_at(&ag->rmaps, k);

		if (!xrp_claim_over(r, s, e))
			continue;
		if (rmap_agrees(r, c))
			f->rmap_backs = true;
		else if (r->owner != c->owner)
			f->rmap_other = true;
	}
	if (f->rmap_backs)
		f->rmap_other = false;
}

static bool in_layout(const struct xrp *rp, uint32_t agno,
		      const struct xfsj_rmap_rec *c, uint64_t s, uint64_t e)
{
	const struct xfsj_sb *sb = rp->sb;

	(void)s;
	if (c->owner == XFSJ_RMAP_OWN_FS)
		return e <= xfsj_ag_hdr_blocks(sb->sectsize, sb->blocklog);
	if (c->owner == XFSJ_RMAP_OWN_LOG && sb->logstart &&
	    xfsj_fsb_agno(sb, sb->logstart) == agno) {
		uint64_t ls = xfsj_fsb_agbno(sb, sb->logstart);

		return s >= ls && e <= ls + sb->logblocks;
	}
	return false;
}

/* Do the refcountbt's records cover all of [s, e) with counts >= 2? */
static bool refcount_shared(const struct xck_ag *ag, uint64_t s, uint64_t e)
{
	uint64_t pos = s;

	if (!ag->tree_ok[XFSJ_BT_REFC])
		return false;
	/* Sorted and apart: each record in turn must go on from @pos. */
	for (size_t k = xrp_refc_from(ag, s); k < ag->refcs.n && pos < e;
	     k++) {
		const struct xfsj_refc_rec *r = xck_vec_at(&ag->refcs, k);

		if (r->startblock > pos || r->refcount < 2)
			break;
		pos = (uint64_t)r->startblock + r->blockcount;
	}
	return pos >= e;
}

void xrp_claim_fill(struct xrp *rp, const struct xck_ag *ag,
		    const struct xfsj_rmap_rec *c, uint64_t s, uint64_t e,
		    struct xrp_claim *x)
{
	bool ino = xrp_owner_inode(c->owner);

	*x = (struct xrp_claim){
		.owner = c->owner, .offset = c->offset,
		.ftype = ino ? xrp_ino_ftype(rp, c->owner) : 0,
		.refcount = xfsj_fs_has(rp->fs, XFSJ_RO_COMPAT_REFLINK) &&
			    refcount_shared(ag, s, e),
		.sound = ino && !xrp_ino_suspect(rp, c->owner),
	};
	if (xrp_rmapbt_whole(rp))
		rmap_facts(ag, c, s, e, x);
	x->layout = in_layout(rp, ag->agno, c, s, e);
	x->header = xrp_claim_header(rp, ag->agno,
				     c->startblock > s ? c->startblock :
				     (uint32_t)s, c->owner, c->offset,
				     x->ftype);
}

struct gather {
	struct xrp *rp;
	const struct xck_ag *ag;
	uint64_t s, e;
	struct xrp_claim *f;
	const struct xfsj_rmap_rec **rec;
	size_t max, *n;
};

static int gather_one(void *arg, const struct xfsj_rmap_rec *c)
{
	struct gather *g = arg;

	if (*g->n == g->max)
		return 1;
	g->rec[*g->n] = c;
	xrp_claim_fill(g->rp, g->ag, c, g->s, g->e, &g->f[(*g->n)++]);
	return 0;
}

int xrp_claims_gather(struct xrp *rp, const struct xck_ag *ag, uint64_t s,
		      uint64_t e, struct xrp_claim *f,
		      const struct xfsj_rmap_rec **rec, size_t max,
		      size_t *n)
{
	struct gather g = { rp, ag, s, e, f, rec, max, n };

	*n = 0;
	return xrp_recs_over(rp, ag, XRP_TAB_CLAIMS, s, e,
			     &(struct xrp_claims_cb){ gather_one, &g });
}
