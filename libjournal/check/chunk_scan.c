/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The inode chunks of an AG whose inobt cannot be trusted and that has no
 * sound rmapbt to name them: found by reading the AG's used blocks where
 * chunks may be (agbtree_recs.c turns the blocks into chunks).
 *
 * A block holds inodes when one of its slots is an inode of this place:
 * the magic, version 3, a CRC that matches, the filesystem's uuid and the
 * slot's own inode number (v5 only: a v4 inode names no place).  A chunk
 * is taken only when one of its inodes is in use: the blocks of a chunk
 * the kernel freed keep their free inodes, valid as they were, until
 * written again (a preallocated file over them), and must not come back.
 */

#include "check/agbtree.h"

struct scan {
	struct xck *ck;
	struct xck_ag *ag;
	size_t nfree;		/* the next free extent, by start */
};

/* Is @agbno free in the bnobt (the extents by start, @agbno rising)? */
static bool block_free(struct scan *sc, uint32_t agbno)
{
	const struct xck_vec *v = &sc->ag->bno_free;

	while (sc->nfree < v->n) {
		const struct xfsj_alloc_rec *r = xck_vec_at(v, sc->nfree);

		if ((uint64_t)r->startblock + r->blockcount > agbno)
			return r->startblock <= agbno;
		sc->nfree++;
	}
	return false;
}

/*
 * Does block @agbno hold inodes of its place?  @inuse: one of them is in
 * use.
 */
static int block_inodes(struct scan *sc, uint32_t agbno, bool *holds,
			bool *inuse)
{
	const struct xfsj_sb *sb = sc->ck->sb;
	struct xfsj_vctx c;
	struct xfsj_buf *bp;
	int err;

	*holds = *inuse = false;
	err = xfsj_buf_read_ref(sc->ck->fs,
				xfsj_agb_to_daddr(sb, sc->ag->agno, agbno),
				sb->blocksize, &bp);
	if (err)
		return 0;	/* an unreadable block holds no inode found */
	xfsj_fs_vctx(sc->ck->fs, sc->ag->agno, &c);
	for (uint32_t k = 0; k < sb->inopblock; k++) {
		const uint8_t *dip = bp->data + (size_t)k * sb->inodesize;
		uint64_t ino = xfsj_agino_to_ino(sb, sc->ag->agno,
			(agbno << sb->inopblog) + k);
		if (xfsj_dinode_verify_place(dip, &c, ino, 0, NULL))
			continue;
		*holds = true;
		if (xfsj_get_be16(dip + XFSJ_DI_OFF(mode)))
			*inuse = true;
	}
	xfsj_buf_rele(sc->ck->fs, bp);
	return 0;
}

static int push_run(struct xck *ck, struct xck_vec *out, uint32_t start,
		    uint32_t len)
{
	struct xfsj_rmap_rec r = {
		.startblock = start, .blockcount = len,
		.owner = XFSJ_RMAP_OWN_INODES,
	};

	return len ? xck_vec_push(ck, out, &r) : 0;
}

int agbt_chunks_scan(struct xck *ck, struct xck_ag *ag, uint32_t first,
		     uint32_t align, struct xck_vec *out)
{
	const struct xfsj_sb *sb = ck->sb;
	uint32_t cblocks = XFSJ_INODES_PER_CHUNK / sb->inopblock;
	struct scan sc = { .ck = ck, .ag = ag };
	int err = 0;

	for (uint32_t s = (first + align - 1) / align * align;
	     !err && (uint64_t)s + cblocks <= ag->agblocks; s += align) {
		uint32_t run = 0, start = s;
		bool any_inuse = false;
		size_t mark = out->n;

		for (uint32_t j = 0; j < cblocks && !err; j++) {
			bool holds = false, inuse = false;

			if (!block_free(&sc, s + j))
				err = block_inodes(&sc, s + j, &holds, &inuse);
			any_inuse |= inuse;
			if (holds) {
				if (!run)
					start = s + j;
				run++;
				continue;
			}
			if (!err)
				err = push_run(ck, out, start, run);
			run = 0;
		}
		if (!err)
			err = push_run(ck, out, start, run);
		xck_release_buffers(ck);
		/* A chunk with no inode in use may be one freed. */
		if (!any_inuse)
			out->n = mark;
	}
	return err;
}
