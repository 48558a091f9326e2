/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Truncating an inode's forks to nothing (itruncate.h), as the kernel's
 * xfs_itruncate_extents does at inactivation.  The inode buffer is the
 * filesystem block holding the inode: the core changed here gets its CRC
 * recomputed at once (xfsj_iput).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/crc32c.h"
#include "fs/defer.h"
#include "fs/iget.h"
#include "fs/itruncate.h"

#define DIFLAG_REALTIME		0x0001
#define BMDR_HDR		4
#define BMBT_REC_SIZE		16
#define MAX_FILEOFF		((1ULL << 54) - 1)
/* Extents the kernel unmaps per truncate transaction. */
#define ITRUNC_MAX_EXTENTS	2

/* ---- a set of block numbers (bmbt blocks seen) ---- */

struct u64set {
	uint64_t *v;
	size_t n, cap;		/* cap: a power of two, or 0 */
};

static int u64set_add(struct u64set *s, uint64_t x, bool *dup)
{
	/* Stored as x + 1 so that 0 marks an empty slot. */
	if ((s->n + 1) * 2 > s->cap) {
		size_t ncap = s->cap ? s->cap * 2 : 64;
		uint64_t *nv = calloc(ncap, sizeof(*nv));

		if (!nv)
			return -XFSJ_E_NOMEM;
		for (size_t i = 0; i < s->cap; i++) {
			size_t h;

			if (!s->v[i])
				continue;
			h = (size_t)(s->v[i] * 0x9e3779b97f4a7c15ULL) & (ncap - 1);
			while (nv[h])
				h = (h + 1) & (ncap - 1);
			nv[h] = s->v[i];
		}
		free(s->v);
		s->v = nv;
		s->cap = ncap;
	}
	size_t h = (size_t)((x + 1) * 0x9e3779b97f4a7c15ULL) & (s->cap - 1);

	while (s->v[h]) {
		if (s->v[h] == x + 1) {
			*dup = true;
			return 0;
		}
		h = (h + 1) & (s->cap - 1);
	}
	s->v[h] = x + 1;
	s->n++;
	*dup = false;
	return 0;
}

/* ---- fork mappings ---- */

struct bext {
	uint64_t startoff;
	uint64_t startblock;	/* fsbno */
	uint32_t len;
	bool unwritten;
};

struct bblock {
	uint64_t fsbno;
	unsigned int count;	/* records or children */
	bool freed;
};

struct fork_map {
	struct bext *ext;
	size_t n, cap;
	/* The bmbt blocks of each level, left to right; the root in the
	 * inode is level @height and holds @rootcnt pointers. */
	struct bblock *lv[XFSJ_BTREE_MAXLEVELS];
	size_t nlv[XFSJ_BTREE_MAXLEVELS], caplv[XFSJ_BTREE_MAXLEVELS];
	unsigned int height, rootcnt;
	unsigned int dmaxr;	/* pointers the inode root can hold */
	uint64_t want;		/* extent count the inode claims */
	struct u64set seen;
};

static void fork_map_free(struct fork_map *m)
{
	free(m->ext);
	for (unsigned int i = 0; i < XFSJ_BTREE_MAXLEVELS; i++)
		free(m->lv[i]);
	free(m->seen.v);
}

static int grow(void **v, size_t *cap, size_t n, size_t size)
{
	void *nv;
	size_t ncap;

	if (n < *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 16;
	nv = realloc(*v, ncap * size);
	if (!nv)
		return -XFSJ_E_NOMEM;
	*v = nv;
	*cap = ncap;
	return 0;
}

static void bmbt_rec_get(const uint8_t *p, struct bext *e)
{
	uint64_t l0 = xfsj_get_be64(p), l1 = xfsj_get_be64(p + 8);

	e->unwritten = l0 >> 63;
	e->startoff = (l0 >> 9) & MAX_FILEOFF;
	e->startblock = (l0 & 0x1ff) << 43 | l1 >> 21;
	e->len = (uint32_t)(l1 & ((1U << 21) - 1));
}

/* A data-device extent inside one AG; false when it is not. */
static bool fsbext_ok(const struct xfsj_fs *fs, uint64_t fsb, uint64_t len)
{
	const struct xfsj_sb *sb = xfsj_fs_sb(fs);
	uint32_t agno = xfsj_fsb_agno(sb, fsb);

	if (len == 0 || (fsb >> sb->agblklog) >= sb->agcount)
		return false;
	return (uint64_t)xfsj_fsb_agbno(sb, fsb) + len <=
	       xfsj_fs_ag_blocks(fs, agno);
}

/* Append the records at @p (@n of them, at device offset @off). */
static int add_records(struct xfsj_fs *fs, struct fork_map *m,
		       const uint8_t *p, size_t n, uint64_t off,
		       struct xfsj_fault *f)
{
	for (size_t i = 0; i < n; i++) {
		struct bext e;
		int err;

		bmbt_rec_get(p + i * BMBT_REC_SIZE, &e);
		if (m->n >= m->want)
			return xfsj_fault_set(f, XFSJ_E_CORRUPT, "bmap",
					      "more extents than nextents",
					      off + i * BMBT_REC_SIZE, m->want);
		if (!fsbext_ok(fs, e.startblock, e.len))
			return xfsj_fault_set(f, XFSJ_E_CORRUPT, "bmap extent",
					      "startblock",
					      off + i * BMBT_REC_SIZE,
					      e.startblock);
		if (e.startoff + e.len > MAX_FILEOFF ||
		    (m->n && e.startoff < m->ext[m->n - 1].startoff +
					  m->ext[m->n - 1].len))
			return xfsj_fault_set(f, XFSJ_E_CORRUPT, "bmap extent",
					      "startoff",
					      off + i * BMBT_REC_SIZE,
					      e.startoff);
		err = grow((void **)&m->ext, &m->cap, m->n, sizeof(*m->ext));
		if (err)
			return err;
		m->ext[m->n++] = e;
	}
	return 0;
}

static int bmbt_bad(struct xfsj_fault *f, int err, const char *field,
		    uint64_t daddr, size_t off, uint64_t val)
{
	return xfsj_fault_set(f, err, "bmap btree block", field,
			      (daddr << 9) + off, val);
}

static int bmbt_block(struct xfsj_fs *fs, uint64_t ino, uint64_t fsb,
		      unsigned int level, struct fork_map *m,
		      struct xfsj_fault *f);

/* Walk the children named by @n pointers at @ptrs. */
static int bmbt_children(struct xfsj_fs *fs, uint64_t ino,
			 const uint8_t *ptrs, size_t n, unsigned int level,
			 uint64_t off, struct fork_map *m,
			 struct xfsj_fault *f)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t fsb = xfsj_get_be64(ptrs + i * 8);
		int err;

		if (!fsbext_ok(fs, fsb, 1))
			return xfsj_fault_set(f, XFSJ_E_CORRUPT, "bmap btree",
					      "ptr", off + i * 8, fsb);
		err = bmbt_block(fs, ino, fsb, level, m, f);
		if (err)
			return err;
	}
	return 0;
}

static int bmbt_block(struct xfsj_fs *fs, uint64_t ino, uint64_t fsb,
		      unsigned int level, struct fork_map *m,
		      struct xfsj_fault *f)
{
	const struct xfsj_sb *sb = xfsj_fs_sb(fs);
	uint32_t agno = xfsj_fsb_agno(sb, fsb);
	uint64_t daddr = xfsj_agb_to_daddr(sb, agno, xfsj_fsb_agbno(sb, fsb));
	unsigned int maxr = xfsj_btree_maxrecs(XFSJ_BT_BMAP, sb->blocksize,
					       level == 0);
	struct xfsj_lblock h;
	struct xfsj_buf *bp;
	struct xfsj_vctx c;
	struct bblock blk = { fsb, 0, false };
	bool dup;
	int err;

	err = u64set_add(&m->seen, fsb, &dup);
	if (err)
		return err;
	if (dup)
		return bmbt_bad(f, XFSJ_E_CORRUPT, "block used twice", daddr,
				0, fsb);
	err = xfsj_buf_read(fs, daddr, sb->blocksize, &bp);
	if (err)
		return bmbt_bad(f, err, "read", daddr, 0, fsb);
	xfsj_lblock_decode(bp->data, &h);
	xfsj_fs_vctx(fs, agno, &c);
	if (h.magic != XFSJ_BMAP_MAGIC)
		return bmbt_bad(f, XFSJ_E_BADMAGIC, "magic", daddr, 0, h.magic);
	if (!xfsj_cksum_ok(bp->data, sb->blocksize, XFSJ_LBLOCK_CRC_OFF))
		return bmbt_bad(f, XFSJ_E_BADCRC, "crc", daddr,
				XFSJ_LBLOCK_CRC_OFF, 0);
	if (memcmp(h.uuid, c.uuid, 16))
		return bmbt_bad(f, XFSJ_E_CORRUPT, "uuid", daddr, 40, 0);
	if (h.blkno != daddr)
		return bmbt_bad(f, XFSJ_E_CORRUPT, "blkno", daddr, 24, h.blkno);
	if (h.owner != ino)
		return bmbt_bad(f, XFSJ_E_CORRUPT, "owner", daddr, 56, h.owner);
	if (h.level != level)
		return bmbt_bad(f, XFSJ_E_CORRUPT, "level", daddr, 4, h.level);
	if (h.numrecs == 0 || h.numrecs > maxr)
		return bmbt_bad(f, XFSJ_E_CORRUPT, "numrecs", daddr, 6,
				h.numrecs);
	err = grow((void **)&m->lv[level], &m->caplv[level], m->nlv[level],
		   sizeof(*m->lv[level]));
	if (err)
		return err;
	blk.count = h.numrecs;
	m->lv[level][m->nlv[level]++] = blk;
	if (level == 0)
		return add_records(fs, m, bp->data + XFSJ_LBLOCK_HDR_SIZE,
				   h.numrecs,
				   (daddr << 9) + XFSJ_LBLOCK_HDR_SIZE, f);
	/* The pointer array starts after room for maxrecs keys. */
	return bmbt_children(fs, ino, bp->data + XFSJ_LBLOCK_HDR_SIZE +
				     (size_t)maxr * 8, h.numrecs, level - 1,
			     (daddr << 9) + XFSJ_LBLOCK_HDR_SIZE + maxr * 8ULL,
			     m, f);
}

/* Where a fork sits in the inode, and its size. */
static void fork_area(const struct xfsj_fs *fs, const struct xfsj_dinode *di,
		      bool attr, size_t *off, size_t *size)
{
	size_t lit = xfsj_fs_sb(fs)->inodesize - XFSJ_DINODE_CORE_SIZE;
	size_t boundary = di->forkoff ? di->forkoff * 8U : lit;

	*off = XFSJ_DINODE_CORE_SIZE + (attr ? boundary : 0);
	*size = attr ? lit - boundary : boundary;
}

/* Read every mapping of a fork (and, for a btree, its blocks). */
static int fork_read(struct xfsj_fs *fs, uint64_t ino, const struct xfsj_iref *ib,
		     bool attr, struct fork_map *m, struct xfsj_fault *f)
{
	const struct xfsj_dinode *di = &ib->di;
	unsigned int format = attr ? di->aformat : di->format;
	const char *fname = attr ? "aformat" : "format";
	size_t off, size;
	const uint8_t *p;
	uint16_t level, numrecs;
	size_t dmaxr;

	fork_area(fs, di, attr, &off, &size);
	p = ib->dip + off;
	m->want = attr ? xfsj_dinode_anextents(di) : xfsj_dinode_nextents(di);
	switch (format) {
	case XFSJ_DINODE_FMT_EXTENTS:
		if (m->want > size / BMBT_REC_SIZE)
			return xfsj_fault_set(f, XFSJ_E_CORRUPT, "inode",
					      attr ? "anextents" : "nextents",
					      ib->byte_off, m->want);
		return add_records(fs, m, p, (size_t)m->want,
				   ib->byte_off + off, f);
	case XFSJ_DINODE_FMT_BTREE:
		break;
	default:
		return xfsj_fault_set(f, XFSJ_E_CORRUPT, "inode", fname,
				      ib->byte_off + (attr ? 83 : 5), format);
	}
	level = xfsj_get_be16(p);
	numrecs = xfsj_get_be16(p + 2);
	dmaxr = size >= BMDR_HDR ? (size - BMDR_HDR) / 16 : 0;
	if (level == 0 || level >= XFSJ_BTREE_MAXLEVELS)
		return xfsj_fault_set(f, XFSJ_E_CORRUPT, "bmap root", "level",
				      ib->byte_off + off, level);
	if (numrecs == 0 || numrecs > dmaxr)
		return xfsj_fault_set(f, XFSJ_E_CORRUPT, "bmap root",
				      "numrecs", ib->byte_off + off + 2,
				      numrecs);
	m->height = level;
	m->rootcnt = numrecs;
	m->dmaxr = (unsigned int)dmaxr;
	return bmbt_children(fs, ino, p + BMDR_HDR + dmaxr * 8, numrecs,
			     level - 1U, ib->byte_off + off + BMDR_HDR +
			     dmaxr * 8, m, f);
}

/* ---- queueing the kernel's work ---- */

static int queue_unmap(struct xfsj_fs *fs, uint64_t ino, const struct bext *e,
		       bool attr, bool reflink)
{
	struct xfsj_work w;
	int err;

	if (xfsj_fs_has(fs, XFSJ_RO_COMPAT_RMAPBT)) {
		memset(&w, 0, sizeof(w));
		w.kind = XFSJ_W_RMAP;
		w.fsbno = e->startblock;
		w.len = e->len;
		w.rmap.op = (!attr && reflink) ? XFSJ_RMAP_UNMAP_SHARED :
						 XFSJ_RMAP_UNMAP;
		w.rmap.owner = ino;
		w.rmap.offset = e->startoff;
		w.rmap.attr_fork = attr;
		w.rmap.unwritten = e->unwritten;
		err = xfsj_defer_add(fs, &w);
		if (err)
			return err;
	}
	memset(&w, 0, sizeof(w));
	w.fsbno = e->startblock;
	w.len = e->len;
	if (!attr && reflink) {
		w.kind = XFSJ_W_REFC;
		w.refc.op = XFSJ_REFC_DECREASE;
	} else {
		/* The reverse mapping went with the unmap above. */
		w.kind = XFSJ_W_FREE;
		w.free.oi.owner = XFSJ_RMAP_OWN_NULL;
	}
	return xfsj_defer_add(fs, &w);
}

static int queue_bmbt_free(struct xfsj_fs *fs, uint64_t ino,
			   struct bblock *b, bool attr, uint64_t *blocks)
{
	struct xfsj_work w;

	if (b->freed)
		return 0;
	b->freed = true;
	memset(&w, 0, sizeof(w));
	w.kind = XFSJ_W_FREE;
	w.fsbno = b->fsbno;
	w.len = 1;
	w.free.oi.owner = ino;
	w.free.oi.attr_fork = attr;
	w.free.oi.bmbt_block = true;
	(*blocks)++;
	return xfsj_defer_add(fs, &w);
}

/*
 * The bmbt while the kernel deletes its records from the right end.
 * Only the record counts matter for which blocks it frees and when, so
 * the tree is modelled by the counts of each level's blocks, changed by
 * the rules of the kernel's generic btree delete: a block falling below
 * half full borrows a record from its left sibling if that one can spare
 * it, else joins it (the right-hand block, ours, is freed and the parent
 * loses a pointer); the inode root with a single child takes that child's
 * pointers in when they fit (the child is freed); a root directly above
 * the leaves is left alone.
 */
struct bmbt_sim {
	struct xfsj_fs *fs;
	uint64_t ino;
	struct fork_map *m;
	bool attr;
	uint64_t *blocks;
	unsigned int maxr[2];	/* node, leaf */
};

static int sim_kill_iroot(struct bmbt_sim *s)
{
	struct fork_map *m = s->m;
	struct bblock *child;

	if (m->height <= 1 || m->rootcnt != 1 || m->nlv[m->height - 1] != 1)
		return 0;
	child = &m->lv[m->height - 1][0];
	if (child->count > m->dmaxr)
		return 0;
	m->rootcnt = child->count;
	m->nlv[m->height - 1] = 0;
	m->height--;
	return queue_bmbt_free(s->fs, s->ino, child, s->attr, s->blocks);
}

/* One record leaves the right end of level @level. */
static int sim_delete(struct bmbt_sim *s, unsigned int level)
{
	struct fork_map *m = s->m;

	for (;;) {
		struct bblock *v = m->lv[level], *cur, *left;
		size_t n = m->nlv[level];
		unsigned int maxr = s->maxr[level == 0], minr = maxr / 2;
		int err;

		if (level >= m->height) {
			if (m->rootcnt)
				m->rootcnt--;
			return sim_kill_iroot(s);
		}
		if (!n)
			return 0;
		cur = &v[n - 1];
		if (cur->count)
			cur->count--;
		if (cur->count >= minr)
			return 0;
		if (n == 1)
			return level + 1 == m->height ? sim_kill_iroot(s) : 0;
		left = &v[n - 2];
		if (left->count > minr) {
			left->count--;
			cur->count++;
			return 0;
		}
		if (left->count + cur->count > maxr)
			return 0;
		left->count += cur->count;
		m->nlv[level]--;
		err = queue_bmbt_free(s->fs, s->ino, cur, s->attr, s->blocks);
		if (err)
			return err;
		level++;
	}
}

/*
 * Back to extents format: the kernel frees the root's only child.  Any
 * other block still counted (a tree the kernel would not have left) goes
 * too, rather than leaking.
 */
static int sim_to_extents(struct bmbt_sim *s)
{
	struct fork_map *m = s->m;
	int err;

	for (unsigned int lv = 0; lv < m->height; lv++) {
		for (size_t i = 0; i < m->nlv[lv]; i++) {
			err = queue_bmbt_free(s->fs, s->ino, &m->lv[lv][i],
					      s->attr, s->blocks);
			if (err)
				return err;
		}
		m->nlv[lv] = 0;
	}
	m->height = 0;
	return 0;
}

/*
 * Unmap every extent of a fork from the last one backwards, two per round
 * with the deferred work finished after each round, as the kernel's
 * xfs_itruncate_extents does; per extent the bmbt record goes first (which
 * may free bmbt blocks), then the reverse mapping, then the reference or
 * the space.  After a round the fork goes back to extents format once the
 * remaining extents fit in the inode.
 */
static int fork_truncate(struct xfsj_fs *fs, uint64_t ino, struct xfsj_iref *ib,
			 bool attr, uint64_t *blocks, struct xfsj_fault *f)
{
	const struct xfsj_sb *sb = xfsj_fs_sb(fs);
	struct fork_map m;
	struct bmbt_sim sim;
	bool reflink = !attr && (ib->di.flags2 & XFSJ_DIFLAG2_REFLINK);
	bool btree = (attr ? ib->di.aformat : ib->di.format) ==
		     XFSJ_DINODE_FMT_BTREE;
	size_t off, size, maxext, round = 0;
	int err;

	memset(&m, 0, sizeof(m));
	err = fork_read(fs, ino, ib, attr, &m, f);
	if (!err && m.n != m.want)
		err = xfsj_fault_set(f, XFSJ_E_CORRUPT, "inode",
				     attr ? "anextents" : "nextents",
				     ib->byte_off, m.want);
	if (err)
		goto out;
	fork_area(fs, &ib->di, attr, &off, &size);
	maxext = size / BMBT_REC_SIZE;
	sim = (struct bmbt_sim){ fs, ino, &m, attr, blocks,
		{ xfsj_btree_maxrecs(XFSJ_BT_BMAP, sb->blocksize, false),
		  xfsj_btree_maxrecs(XFSJ_BT_BMAP, sb->blocksize, true) } };
	for (size_t i = m.n; i-- > 0;) {
		const struct bext *e = &m.ext[i];

		if (btree && (err = sim_delete(&sim, 0)))
			goto fail;
		err = queue_unmap(fs, ino, e, attr, reflink);
		if (err)
			goto fail;
		*blocks += e->len;
		if (++round < ITRUNC_MAX_EXTENTS && i > 0)
			continue;
		round = 0;
		if (btree && i <= maxext) {
			err = sim_to_extents(&sim);
			if (err)
				goto fail;
			btree = false;
		}
		err = xfsj_defer_finish(fs, f);
		if (err)
			goto out;
	}
	if (btree) {
		/* A root with nothing under it but empty blocks. */
		err = sim_to_extents(&sim);
		if (err)
			goto fail;
		err = xfsj_defer_finish(fs, f);
	}
	goto out;
fail:
	xfsj_fault_set(f, err, "deferred work", "queue", ib->byte_off, ino);
out:
	fork_map_free(&m);
	return err;
}

int xfsj_inode_truncate_forks(struct xfsj_fs *fs, uint64_t ino,
			      uint64_t *blocks, struct xfsj_fault *f)
{
	struct xfsj_iref ib;
	uint64_t dblocks = 0, ablocks = 0;
	bool had_extents, has_attr;
	unsigned int fmt;
	int err;

	*blocks = 0;
	err = xfsj_iget(fs, ino, true, &ib, f);
	if (err)
		return err;
	if (ib.di.mode == 0)
		return xfsj_fault_set(f, XFSJ_E_CORRUPT, "inode", "mode",
				      ib.byte_off + 2, 0);
	fmt = ib.di.format;
	had_extents = xfsj_dinode_nextents(&ib.di) > 0;
	has_attr = ib.di.forkoff != 0;
	if ((ib.di.flags & DIFLAG_REALTIME) && had_extents)
		return xfsj_fault_set(f, XFSJ_E_UNSUPP, "inode",
				      "realtime data fork", ib.byte_off + 90,
				      ib.di.flags);
	if (fmt == XFSJ_DINODE_FMT_EXTENTS || fmt == XFSJ_DINODE_FMT_BTREE) {
		err = fork_truncate(fs, ino, &ib, false, &dblocks, f);
		if (err)
			return err;
	}
	if (has_attr && (ib.di.aformat == XFSJ_DINODE_FMT_EXTENTS ||
			 ib.di.aformat == XFSJ_DINODE_FMT_BTREE)) {
		/* The data fork's deferred work ran in between. */
		err = xfsj_iget(fs, ino, true, &ib, f);
		if (!err)
			err = fork_truncate(fs, ino, &ib, true, &ablocks, f);
		if (err)
			return err;
	}
	err = xfsj_iget(fs, ino, true, &ib, f);
	if (err)
		return err;
	if (dblocks + ablocks > ib.di.nblocks)
		return xfsj_fault_set(f, XFSJ_E_CORRUPT, "inode", "nblocks",
				      ib.byte_off + 64, ib.di.nblocks);
	ib.di.nblocks -= dblocks + ablocks;
	if (fmt == XFSJ_DINODE_FMT_EXTENTS || fmt == XFSJ_DINODE_FMT_BTREE) {
		ib.di.format = XFSJ_DINODE_FMT_EXTENTS;
		if (ib.di.flags2 & XFSJ_DIFLAG2_NREXT64)
			ib.di.big_nextents = 0;
		else
			ib.di.nextents = 0;
		/* A file left with no blocks shares none. */
		ib.di.flags2 &= ~XFSJ_DIFLAG2_REFLINK;
	}
	/* What the kernel's core flush writes whatever the inode held. */
	ib.di.onlink = 0;
	if (ib.di.flags2 & XFSJ_DIFLAG2_NREXT64)
		ib.di.anextents = 0;	/* the pad after the attr count */
	else
		ib.di.big_nextents = 0;
	/*
	 * The kernel sets the size to zero where it truncates: regular files
	 * always, directories with blocks, symlinks kept in blocks; inline
	 * directories and symlinks keep theirs.
	 */
	switch (ib.di.mode & S_IFMT) {
	case S_IFREG:
		ib.di.size = 0;
		break;
	case S_IFDIR:
		if (had_extents)
			ib.di.size = 0;
		break;
	case S_IFLNK:
		if (fmt != XFSJ_DINODE_FMT_LOCAL)
			ib.di.size = 0;
		break;
	default:
		break;
	}
	if (has_attr) {
		/* The attribute fork is removed, whatever its format. */
		if (ib.di.flags2 & XFSJ_DIFLAG2_NREXT64)
			ib.di.nextents = 0;
		else
			ib.di.anextents = 0;
		ib.di.forkoff = 0;
		ib.di.aformat = XFSJ_DINODE_FMT_EXTENTS;
	}
	/* The kernel's flush stamps the LSN of the work; ours is the handle's. */
	ib.di.lsn = xfsj_fs_lsn(fs);
	xfsj_iput(fs, &ib, false);
	*blocks = dblocks + ablocks;
	return 0;
}
