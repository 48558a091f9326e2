/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The inode phase's look-ahead: while inodes.c checks chunk i of an AG,
 * the device is already reading what the chunks after it will need, so
 * that a cold scan waits on few reads and the device serves many at once
 * in its own order.  Three distances:
 *
 *   PF_CHUNKS_AHEAD  the inode blocks of the chunks up to this far ahead
 *                    are hinted (xfsj_buf_prefetch: the kernel reads
 *                    them into its page cache, or the device's read-ahead
 *                    pool into its own, core/rapool.h);
 *   PF_FORKS_AHEAD   the chunks up to this far ahead are read into the
 *                    buffer cache (xfsj_buf_readahead, as the scan reads
 *                    them) and their inodes' fork roots decoded: the
 *                    blocks a check will read through them are hinted,
 *                    sorted by address: the bmbt blocks under a root in
 *                    the inode, and the first PF_INODE_BLOCKS mapped
 *                    blocks of a directory, symlink or attribute fork
 *                    held as an extent list;
 *   the fork itself  once forks.c has walked an inode's forks, the
 *                    mapped blocks of the forks the check reads
 *                    (directories, symlinks, attributes): the first
 *                    PF_FORK_BYTES (xck_pf_fork), then half that again
 *                    each time the check has read half of what was
 *                    hinted (xck_pf_fork_more), to the fork's end.
 *
 * Nothing here judges what it reads: a hint at a wrong address costs a
 * read, never a result (the check reads and verifies every block itself
 * later).  Only addresses inside the filesystem are hinted.  Memory: the
 * buffer cache holds at most PF_FORKS_AHEAD chunks more than before (64
 * inodes each: 32 KiB with 512-byte inodes, 512 KiB in all), and a list
 * of addresses per chunk (64 inodes x 2 forks x at most 32 entries x 16
 * bytes: 64 KiB at most).  The page cache holds what is hinted until the
 * check reads it: at most PF_CHUNKS_AHEAD chunks (4 MiB with 512-byte
 * inodes), their fork blocks and PF_FORK_BYTES of one fork.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check/check_priv.h"
#include "core/grow.h"
#include "fs/bmbt.h"

#define PF_CHUNKS_AHEAD	256
#define PF_FORKS_AHEAD	64
#define PF_INODE_BLOCKS	32
#define PF_FORK_BYTES	(4U << 20)

static int push(struct xck_pf *pf, const struct xck *ck, uint64_t fsb)
{
	if (pf->n == pf->cap &&
	    xfsj_grow(&pf->ra, &pf->cap, pf->n, 1, sizeof(*pf->ra), 256))
		return -XFSJ_E_NOMEM;
	pf->ra[pf->n].daddr = xfsj_fsb_daddr(ck->sb, fsb);
	pf->ra[pf->n].len = ck->sb->blocksize;
	pf->n++;
	return 0;
}

/* The bmbt blocks a root in the inode points at. */
static int hint_root(struct xck_pf *pf, const struct xck *ck,
		     const uint8_t *root, uint32_t size)
{
	unsigned int maxr, n, i;
	unsigned int level = xfsj_get_be16(root);

	if (size < XFSJ_BMDR_HDR_SIZE + 16 || level == 0 ||
	    level >= XFSJ_BTREE_MAXLEVELS)
		return 0;
	maxr = (size - XFSJ_BMDR_HDR_SIZE) / 16;
	n = xfsj_get_be16(root + 2);
	if (n > maxr)
		n = maxr;
	for (i = 0; i < n && i < PF_INODE_BLOCKS; i++) {
		uint64_t p = xfsj_get_be64(root + XFSJ_BMDR_HDR_SIZE +
					   (size_t)maxr * 8 + (size_t)i * 8);
		int err;

		if (!xfsj_fsbext_ok(ck->fs, p, 1))
			continue;
		err = push(pf, ck, p);
		if (err)
			return err;
	}
	return 0;
}

/* The first PF_INODE_BLOCKS blocks an extent list in the inode maps. */
static int hint_list(struct xck_pf *pf, const struct xck *ck,
		     const uint8_t *p, uint32_t size, uint64_t nrecs)
{
	uint64_t room = size / XFSJ_BMBT_REC_SIZE, i, done = 0;

	if (nrecs > room)
		nrecs = room;
	for (i = 0; i < nrecs && done < PF_INODE_BLOCKS; i++) {
		struct xfsj_bmbt_irec r;

		xfsj_bmbt_rec_decode(p + i * XFSJ_BMBT_REC_SIZE, &r);
		if (!r.blockcount || !xfsj_fsbext_ok(ck->fs, r.startblock,
						     r.blockcount))
			continue;
		for (uint64_t b = 0; b < r.blockcount &&
		     done < PF_INODE_BLOCKS; b++, done++) {
			int err = push(pf, ck, r.startblock + b);

			if (err)
				return err;
		}
	}
	return 0;
}

/*
 * The few fields of a raw inode the hints need, read in place (the scan
 * decodes the whole core later, once).
 */
struct raw_forks {
	uint16_t mode;
	uint8_t format, aformat, forkoff;
	uint64_t nextents, anextents;
};

static void raw_forks(const uint8_t *dip, struct raw_forks *r)
{
	bool big = xfsj_get_be64(dip + XFSJ_DI_OFF(flags2)) &
		   XFSJ_DIFLAG2_NREXT64;

	r->mode = xfsj_get_be16(dip + XFSJ_DI_OFF(mode));
	r->format = dip[XFSJ_DI_OFF(format)];
	r->aformat = dip[XFSJ_DI_OFF(aformat)];
	r->forkoff = dip[XFSJ_DI_OFF(forkoff)];
	if (big) {
		r->nextents = xfsj_get_be64(dip + XFSJ_DI_OFF(big_nextents));
		r->anextents = xfsj_get_be32(dip + XFSJ_DI_OFF(nextents));
	} else {
		r->nextents = xfsj_get_be32(dip + XFSJ_DI_OFF(nextents));
		r->anextents = xfsj_get_be16(dip + XFSJ_DI_OFF(anextents));
	}
}

/* One fork of a raw inode whose core is plausible enough to follow. */
static int hint_fork(struct xck_pf *pf, const struct xck *ck,
		     const struct raw_forks *di, const uint8_t *fork,
		     uint32_t size, int whichfork)
{
	uint8_t fmt = whichfork ? di->aformat : di->format;
	uint8_t ft = xfsj_mode_ftype(di->mode);

	if (fmt == XFSJ_DINODE_FMT_BTREE)
		return hint_root(pf, ck, fork, size);
	if (fmt != XFSJ_DINODE_FMT_EXTENTS)
		return 0;
	/* A regular file's data is not read by the check. */
	if (whichfork == XFSJ_DATA_FORK && ft != XFSJ_FT_DIR &&
	    ft != XFSJ_FT_SYMLINK)
		return 0;
	return hint_list(pf, ck, fork, size, whichfork ? di->anextents :
			 di->nextents);
}

static int hint_inode(struct xck_pf *pf, const struct xck *ck,
		      const uint8_t *dip)
{
	uint32_t lit = ck->sb->inodesize - XFSJ_DINODE_CORE_SIZE;
	struct raw_forks di;
	uint32_t dsize;
	bool read_data;
	int err;

	if (xfsj_get_be16(dip) != XFSJ_DINODE_MAGIC)
		return 0;
	raw_forks(dip, &di);
	if (!di.mode || di.forkoff * 8U >= lit)
		return 0;
	/* Nothing to follow in most files: no decoding at all. */
	read_data = S_ISDIR(di.mode) || S_ISLNK(di.mode) ||
		    di.format == XFSJ_DINODE_FMT_BTREE;
	if (!(read_data && di.format != XFSJ_DINODE_FMT_LOCAL) &&
	    !(di.forkoff && di.aformat != XFSJ_DINODE_FMT_LOCAL))
		return 0;
	dsize = di.forkoff ? di.forkoff * 8U : lit;
	err = hint_fork(pf, ck, &di, dip + XFSJ_DINODE_CORE_SIZE, dsize,
			XFSJ_DATA_FORK);
	if (!err && di.forkoff)
		err = hint_fork(pf, ck, &di, dip + XFSJ_DINODE_CORE_SIZE +
				dsize, lit - dsize, XFSJ_ATTR_FORK);
	return err;
}

struct hint {
	struct xck_pf *pf;
	const struct xck *ck;
};

static int hint_slot(void *arg, unsigned int k, const uint8_t *dip)
{
	struct hint *h = arg;

	(void)k;
	return hint_inode(h->pf, h->ck, dip);
}

/* Read chunk @c into the buffer cache and hint its inodes' fork blocks. */
static void hint_chunk_forks(struct xck *ck, struct xck_ag *ag,
			     struct xck_pf *pf, const struct xck_chunk *c)
{
	struct xfsj_buf_ra blk[XFSJ_INODES_PER_CHUNK];
	size_t nb = xck_chunk_blocks(ck, ag, c, blk);
	struct hint h = { pf, ck };

	if (!nb || xfsj_buf_readahead(ck->fs, blk, nb))
		return;
	pf->n = 0;
	(void)xck_chunk_each(ck, ag, c, hint_slot, &h);
	(void)xfsj_buf_prefetch(ck->fs, pf->ra, pf->n);
}

/*
 * The inode blocks of chunks [pf->chunks, @end) in one call: runs of
 * adjacent chunks become few large requests.
 */
static void hint_chunks(struct xck *ck, struct xck_ag *ag, struct xck_pf *pf,
			size_t end)
{
	struct xfsj_buf_ra ra[XFSJ_INODES_PER_CHUNK];

	pf->n = 0;
	for (; pf->chunks < end; pf->chunks++) {
		size_t n = xck_chunk_blocks(ck, ag,
					    xck_vec_at(&ag->chunks, pf->chunks),
					    ra);

		for (size_t i = 0; i < n; i++) {
			if (pf->n == pf->cap &&
			    xfsj_grow(&pf->ra, &pf->cap, pf->n, 1,
				      sizeof(*pf->ra), 256))
				return;
			pf->ra[pf->n++] = ra[i];
		}
	}
	(void)xfsj_buf_prefetch(ck->fs, pf->ra, pf->n);
}

void xck_pf_advance(struct xck *ck, struct xck_ag *ag, struct xck_pf *pf,
		    size_t at)
{
	size_t end = at + PF_CHUNKS_AHEAD < ag->chunks.n ?
		     at + PF_CHUNKS_AHEAD : ag->chunks.n;

	/* Half the window at a time. */
	if (pf->chunks < end && pf->chunks <= at + PF_CHUNKS_AHEAD / 2)
		hint_chunks(ck, ag, pf, end);
	for (; pf->forks < ag->chunks.n && pf->forks <= at + PF_FORKS_AHEAD;
	     pf->forks++)
		hint_chunk_forks(ck, ag, pf, xck_vec_at(&ag->chunks,
							pf->forks));
}

/*
 * Hint the mapped blocks of the fork from file offset @from on, at most
 * @max of them; the file offset past the last one hinted, or UINT64_MAX
 * when none is left past it.
 */
static uint64_t hint_span(struct xck *ck, const struct xck_icheck *ic,
			  int whichfork, uint64_t from, uint64_t max)
{
	const struct xfsj_sb *sb = ck->sb;
	const struct xfsj_bmbt_irec *map = ic->map[whichfork];
	size_t nmap = ic->nmap[whichfork], lo = 0, hi = nmap;
	struct xfsj_buf_ra *ra;
	uint64_t n = 0, next = UINT64_MAX;

	/* The first mapping that ends past @from. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (map[mid].startoff + map[mid].blockcount <= from)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == nmap)
		return UINT64_MAX;
	ra = malloc(max * sizeof(*ra));
	if (!ra)
		return UINT64_MAX;
	for (size_t i = lo; i < nmap; i++) {
		const struct xfsj_bmbt_irec *m = &map[i];
		uint64_t b = from > m->startoff ? from - m->startoff : 0;

		for (; b < m->blockcount && n < max; b++, n++) {
			ra[n].daddr = xfsj_fsb_daddr(sb, m->startblock + b);
			ra[n].len = sb->blocksize;
		}
		if (n == max) {
			next = b < m->blockcount ? m->startoff + b :
			       (i + 1 < nmap ? map[i + 1].startoff :
				UINT64_MAX);
			break;
		}
	}
	(void)xfsj_buf_prefetch(ck->fs, ra, n);
	free(ra);
	return next;
}

void xck_pf_fork(struct xck *ck, struct xck_icheck *ic, int whichfork)
{
	uint64_t max = PF_FORK_BYTES / ck->sb->blocksize, n = 0;

	ic->pf_next[whichfork] = UINT64_MAX;
	for (size_t i = 0; i < ic->nmap[whichfork] && n <= PF_INODE_BLOCKS;
	     i++)
		n += ic->map[whichfork][i].blockcount;
	/* What the look-ahead hinted already is all there is. */
	if (n <= PF_INODE_BLOCKS && ic->di.format != XFSJ_DINODE_FMT_BTREE &&
	    (whichfork == XFSJ_DATA_FORK ||
	     ic->di.aformat != XFSJ_DINODE_FMT_BTREE))
		return;
	ic->pf_next[whichfork] = hint_span(ck, ic, whichfork, 0, max);
}

/*
 * A fork larger than PF_FORK_BYTES: once the check has read half of
 * what was hinted, the next half window is hinted, so that the device
 * stays ahead of the check all along a directory of millions of names.
 */
void xck_pf_fork_more(struct xck *ck, struct xck_icheck *ic, int whichfork,
		      uint64_t fileoff)
{
	uint64_t half = PF_FORK_BYTES / 2 / ck->sb->blocksize;
	uint64_t next = ic->pf_next[whichfork];

	if (!next || next == UINT64_MAX || fileoff + half < next)
		return;
	ic->pf_next[whichfork] = hint_span(ck, ic, whichfork, next, half);
}

void xck_pf_free(struct xck_pf *pf)
{
	free(pf->ra);
	memset(pf, 0, sizeof(*pf));
}
