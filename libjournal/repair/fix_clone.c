/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Blocks two regular files claim as data with no evidence of their
 * rightful owner either way (the evidence model, evidence.h, ties them;
 * no reflink, so they may not share): as e2fsck's pass 1B clones
 * multiply-claimed blocks, one file keeps them (the model's keeper:
 * the sound one, then the lowest inode number) and each other one gets
 * fresh blocks holding a copy of what the shared ones hold, its fork
 * rewritten to map the copy (fix_fork.c rebuilds the fork).  Both files
 * survive, with the contents the blocks hold.
 *
 * The fresh blocks come from the free space btrees of the cloned
 * inode's AG (then of the AGs after it, and those before), as large as
 * there is (an extent cut in pieces when no free extent is that long),
 * only from AGs whose headers and free space btrees are sound.  When the
 * free space is short, what was taken is given back and the range is
 * left as it was (the caller says so in the summary).
 *
 * The copy is written straight into the overlay (a data block is no
 * metadata: the buffer cache's stamping must not touch it), any cached
 * buffer of the fresh block forgotten first.
 */
#include <stdlib.h>
#include <string.h>

#include "core/layout.h"
#include "core/overlay.h"
#include "fs/alloc.h"
#include "fs/bmbt.h"
#include "repair/repair_priv.h"

bool xrp_ino_suspect(const struct xrp *rp, uint64_t ino)
{
	size_t i;

	for (i = 0; i < rp->nsuspects; i++)
		if (rp->suspects[i] == ino)
			return true;
	return false;
}

bool xrp_ag_alloc_ok(const struct xrp *rp, uint32_t agno)
{
	return xck_ag_trusted(rp->ck, agno, XCK_TRUST_FREE | XCK_TRUST_AGFL |
			      XCK_TRUST_RMAP);
}

/* ... and no free space the scan found used, or held twice, in it. */
static bool free_space_sound(const struct xrp *rp, uint32_t agno)
{
	size_t i;

	if (!xrp_ag_alloc_ok(rp, agno))
		return false;
	for (i = 0; i < rp->nprobs; i++) {
		const struct xrp_prob *pr = &rp->probs[i];

		if ((pr->p.has & XFSJ_PF_AG) && pr->p.agno == agno &&
		    xrp_has(pr, XFSJ_T_DOUBTS_FREE))
			return false;
	}
	return true;
}

/* Copy block @src to block @dst (fsb), past the buffer cache. */
static int copy_block(struct xrp *rp, uint64_t src, uint64_t dst)
{
	const struct xfsj_sb *sb = rp->sb;
	struct xfsj_buf *bp;
	uint8_t *tmp;
	int err;

	tmp = malloc(sb->blocksize);
	if (!tmp)
		return -XFSJ_E_NOMEM;
	err = xfsj_buf_read_ref(rp->fs, xfsj_fsb_daddr(sb, src), sb->blocksize,
				&bp);
	if (err) {
		/* Unreadable: the copy holds zeroes (as a read would fail). */
		if (err == -XFSJ_E_NOMEM)
			goto out;
		memset(tmp, 0, sb->blocksize);
	} else {
		memcpy(tmp, bp->data, sb->blocksize);
		xfsj_buf_rele(rp->fs, bp);
	}
	err = xfsj_buf_get_zero_ref(rp->fs, xfsj_fsb_daddr(sb, dst),
				    sb->blocksize, &bp);
	if (err)
		goto out;
	xfsj_buf_forget(rp->fs, bp);
	xfsj_buf_rele(rp->fs, bp);
	err = xfsj_overlay_write(xfsj_fs_overlay(rp->fs), tmp, sb->blocksize,
				 xfsj_fsb_daddr(sb, dst) << 9);
out:
	free(tmp);
	return err;
}

static struct xfsj_owner clone_owner(uint64_t ino, uint64_t startoff)
{
	return (struct xfsj_owner){ .owner = ino, .offset = startoff };
}

/* Up to @want fresh blocks in AG @agno for the piece at @startoff. */
static int take(struct xrp *rp, uint32_t agno, uint64_t ino,
		uint64_t startoff, uint32_t want, uint32_t *agbno,
		uint32_t *got)
{
	struct xfsj_owner oi = clone_owner(ino, startoff);
	uint32_t len;

	for (len = want; len; len /= 2) {
		struct xfsj_fault f = { 0 };
		int err = xfsj_alloc_extent(rp->fs, agno, 0, len, &oi, agbno,
					    &f);

		if (!err) {
			*got = len;
			return 0;
		}
		if (err == -XFSJ_E_NOMEM)
			return err;
	}
	return 1;
}

void xrp_clone_undo(struct xrp *rp, uint64_t ino, struct xck_vec *taken)
{
	size_t i;

	for (i = 0; i < taken->n; i++) {
		const struct xfsj_bmbt_irec *t = xck_vec_at(taken, i);
		struct xfsj_owner oi = clone_owner(ino, t->startoff);
		struct xfsj_fault f = { 0 };

		/* A failure here leaves the blocks leaked: the next check
		 * finds them and the AG stage gives them back. */
		(void)xfsj_free_extent(rp->fs,
				       xfsj_fsb_agno(rp->sb, t->startblock),
				       xfsj_fsb_agbno(rp->sb, t->startblock),
				       (uint32_t)t->blockcount, &oi, &f);
	}
	taken->n = 0;
}

int xrp_clone_extent(struct xrp *rp, uint64_t ino,
		     const struct xfsj_bmbt_irec *piece, struct xck_vec *out,
		     struct xck_vec *taken)
{
	uint32_t agcount = rp->ck->agcount;
	uint32_t first = xfsj_ino_agno(rp->sb, ino);
	struct xfsj_bmbt_irec left = *piece;
	uint32_t k;
	int err;

	if (first >= agcount)
		first = 0;
	for (k = 0; k < agcount && left.blockcount; k++) {
		uint32_t agno = (first + k) % agcount;

		if (!free_space_sound(rp, agno))
			continue;
		while (left.blockcount) {
			struct xfsj_bmbt_irec m = left;
			uint32_t agbno, got, want;
			uint64_t b;

			want = left.blockcount > UINT32_MAX ? UINT32_MAX :
			       (uint32_t)left.blockcount;
			err = take(rp, agno, ino, left.startoff, want, &agbno,
				   &got);
			if (err < 0)
				return err;
			if (err)
				break;		/* this AG is full: the next */
			m.startblock = xfsj_agb_to_fsb(rp->sb, agno, agbno);
			m.blockcount = got;
			if (xck_vec_push(rp->ck, taken, &m) ||
			    xck_vec_push(rp->ck, out, &m))
				return -XFSJ_E_NOMEM;
			for (b = 0; b < got; b++) {
				err = copy_block(rp, left.startblock + b,
						 m.startblock + b);
				if (err)
					return err;
			}
			left.startblock += got;
			left.startoff += got;
			left.blockcount -= got;
		}
	}
	return left.blockcount ? 1 : 0;
}

/* The first of the ranges @clones over @p (the lowest start), or NULL. */
static const struct xrp_clone *first_clone(const struct xck_vec *clones,
					   const struct xfsj_bmbt_irec *p)
{
	const struct xrp_clone *best = NULL;
	size_t i;

	for (i = 0; i < clones->n; i++) {
		const struct xrp_clone *c = xck_vec_at(clones, i);

		if (c->fsb < p->startblock + p->blockcount &&
		    p->startblock < c->fsb + c->len &&
		    (!best || c->fsb < best->fsb))
			best = c;
	}
	return best;
}

int xrp_clone_rec(struct xrp *rp, uint64_t ino, const struct xck_vec *clones,
		  const struct xfsj_bmbt_irec *r, struct xck_vec *out,
		  struct xck_vec *taken, uint64_t *ncloned)
{
	struct xfsj_bmbt_irec p = *r;
	int err = 0;

	while (p.blockcount && !err) {
		const struct xrp_clone *c = first_clone(clones, &p);
		struct xfsj_bmbt_irec h = p;

		if (!c)
			return xck_vec_push(rp->ck, out, &p);
		if (c->fsb > p.startblock) {
			/* The piece before the range: as it is. */
			h.blockcount = c->fsb - p.startblock;
			err = xck_vec_push(rp->ck, out, &h);
		} else {
			if (c->fsb + c->len < p.startblock + p.blockcount)
				h.blockcount = c->fsb + c->len - p.startblock;
			err = xrp_clone_extent(rp, ino, &h, out, taken);
			*ncloned += h.blockcount;
		}
		p.startblock += h.blockcount;
		p.startoff += h.blockcount;
		p.blockcount -= h.blockcount;
	}
	return err;
}
