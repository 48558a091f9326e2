/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * When two reverse-mapping records are one.  The kernel never leaves two
 * rmapbt records it could have joined: mapping an extent merges it with
 * the record that ends where it starts and the one that starts where it
 * ends.  The checker reports such a pair, the check's canonical form and
 * the repair's rebuild join them, and the rmapbt code asks the first half
 * of the rule before it merges.
 *
 * Of one kind: the same owner (never the null owner, which no record
 * holds) and the same attr-fork, bmbt-block and unwritten flags.
 * Continuing: of one kind, the second starts at the first's end block,
 * the two lengths fit one record, and for an inode's file data the file
 * offset runs on as well (a metadata owner or a bmbt block has no offset
 * to run on).
 */
#include "ondisk/format.h"
#include "ondisk/rmap_merge.h"

#define RMAP_FLAG_BITS	(XFSJ_RMAP_OFF_ATTR_FORK | XFSJ_RMAP_OFF_BMBT_BLOCK | \
			 XFSJ_RMAP_OFF_UNWRITTEN)

bool xfsj_rmap_same_kind(const struct xfsj_rmap_rec *a,
			 const struct xfsj_rmap_rec *b)
{
	return a->owner != XFSJ_RMAP_OWN_NULL && a->owner == b->owner &&
	       (a->offset & RMAP_FLAG_BITS) == (b->offset & RMAP_FLAG_BITS);
}

bool xfsj_rmap_continues(const struct xfsj_rmap_rec *a,
			 const struct xfsj_rmap_rec *b)
{
	if (!xfsj_rmap_same_kind(a, b) ||
	    (uint64_t)a->startblock + a->blockcount != b->startblock ||
	    (uint64_t)a->blockcount + b->blockcount > XFSJ_RMAP_LEN_MAX)
		return false;
	if ((a->owner & XFSJ_RMAP_OWN_NON_INODE) ||
	    (a->offset & XFSJ_RMAP_OFF_BMBT_BLOCK))
		return true;
	return (a->offset & XFSJ_RMAP_OFF_MASK) + a->blockcount ==
	       (b->offset & XFSJ_RMAP_OFF_MASK);
}
