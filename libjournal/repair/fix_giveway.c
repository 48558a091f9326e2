// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Who gives way over a range of blocks two owners claim, whatever the
 * rmapbt says: the claims that cannot be right by what they are.  An
 * unwritten mapping over another file's data (the kernel shares no
 * unwritten extent, and it reads as zeroes); a file's data over a block
 * whose own header says it is another inode's attribute block (data has
 * no header to say anything).  Both are what a salvaged log leaves when
 * the transaction that freed the blocks was lost and a kept one gave
 * them away.  fix_fork.c drops the mapping that gives way.
 */
#include "core/layout.h"
#include "fs/iget.h"
#include "ondisk/attr_layout.h"
#include "ondisk/dir_block.h"
#include "repair/repair_priv.h"

/*
 * Is @c an unwritten mapping over [s, e) that another file's data claims
 * too?  The kernel shares no unwritten extent, and an unwritten mapping
 * reads as zeroes: it gives way (what a salvaged log leaves when the
 * transaction that freed it was lost and a kept one gave the blocks
 * away), whatever the rmapbt says.
 */
bool xrp_unwritten_over_data(const struct xck_ag *ag,
			     const struct xfsj_rmap_rec *c, uint64_t s,
			     uint64_t e)
{
	if (!(c->offset & XFSJ_RMAP_OFF_UNWRITTEN) ||
	    (c->offset & XRP_RMAP_FORK_FLAGS))
		return false;
	for (size_t k = 0; k < ag->claims.n; k++) {
		const struct xfsj_rmap_rec *m = xck_vec_at(&ag->claims, k);

		if (m->owner != c->owner && xrp_owner_inode(m->owner) &&
		    !(m->offset & XRP_RMAP_FORK_FLAGS) &&
		    xrp_claim_over(m, s, e))
			return true;
	}
	return false;
}

/*
 * Is the block at @agbno of AG @agno an attribute block of inode @ino by
 * its own header (a v5 leaf or node, or a remote value block, naming it
 * as owner)?
 */
static bool attr_block_of(const struct xrp *rp, uint32_t agno,
			  uint32_t agbno, uint64_t ino)
{
	const struct xfsj_sb *sb = rp->sb;
	struct xfsj_dir3_hdr h;
	struct xfsj_rmt_hdr rh;
	struct xfsj_buf *bp;
	bool own;

	if (xfsj_buf_read_ref(rp->fs, xfsj_agb_to_daddr(sb, agno, agbno),
			      sb->blocksize, &bp))
		return false;
	xfsj_dir3_blkinfo_decode(bp->data, &h);
	xfsj_rmt_hdr_decode(bp->data, &rh);
	own = ((h.magic == XFSJ_ATTR3_LEAF_MAGIC ||
		h.magic == XFSJ_DA3_NODE_MAGIC) && h.owner == ino) ||
	      (rh.magic == XFSJ_ATTR_RMT_MAGIC && rh.owner == ino);
	xfsj_buf_rele(rp->fs, bp);
	return own;
}

/*
 * Is @c a file's data mapping over [s, e) that another inode's attribute
 * fork claims too, the block at @s saying by its own header that it is
 * that fork's?  Data has no header to say so: it gives way (a file whose
 * freeing a salvaged log lost, the block since given to the attributes),
 * whatever the rmapbt says.
 */
bool xrp_data_over_attr_block(const struct xrp *rp, const struct xck_ag *ag,
			      const struct xfsj_rmap_rec *c, uint64_t s,
			      uint64_t e)
{
	if (c->offset & XRP_RMAP_FORK_FLAGS)
		return false;
	for (size_t k = 0; k < ag->claims.n; k++) {
		const struct xfsj_rmap_rec *m = xck_vec_at(&ag->claims, k);

		if (m->owner != c->owner && xrp_owner_inode(m->owner) &&
		    (m->offset & XRP_RMAP_FORK_FLAGS) ==
		    XFSJ_RMAP_OFF_ATTR_FORK &&
		    xrp_claim_over(m, s, e) &&
		    attr_block_of(rp, ag->agno, (uint32_t)s, m->owner))
			return true;
	}
	return false;
}
