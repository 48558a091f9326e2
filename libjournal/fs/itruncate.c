/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Truncating an inode's forks to nothing (itruncate.h), as the kernel's
 * xfs_itruncate_extents does at inactivation.  The inode buffer is the
 * filesystem block holding the inode: the core changed here gets its CRC
 * recomputed at once (xfsj_iput).
 */
#include <string.h>
#include <sys/stat.h>

#include "fs/bmbt.h"
#include "fs/defer.h"
#include "fs/iget.h"
#include "fs/itruncate.h"

/* Extents the kernel unmaps per truncate transaction. */
#define ITRUNC_MAX_EXTENTS	2

/* ---- queueing the kernel's work ---- */

static int queue_unmap(struct xfsj_fs *fs, uint64_t ino,
		       const struct xfsj_bmbt_irec *e, bool attr, bool reflink)
{
	struct xfsj_work w;
	int err;

	if (xfsj_fs_has(fs, XFSJ_RO_COMPAT_RMAPBT)) {
		memset(&w, 0, sizeof(w));
		w.kind = XFSJ_W_RMAP;
		w.fsbno = e->startblock;
		w.len = (uint32_t)e->blockcount;
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
	w.len = (uint32_t)e->blockcount;
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
			   struct xfsj_bmbt_blk *b, bool attr, uint64_t *blocks)
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
	struct xfsj_bmbt_fork *m;
	bool attr;
	uint64_t *blocks;
	unsigned int maxr[2];	/* node, leaf */
};

static int sim_kill_iroot(struct bmbt_sim *s)
{
	struct xfsj_bmbt_fork *m = s->m;
	struct xfsj_bmbt_blk *child;

	if (m->height <= 1 || m->rootcnt != 1 || m->nlv[m->height - 1] != 1)
		return 0;
	child = &m->lv[m->height - 1][0];
	if (child->cnt > m->dmaxr)
		return 0;
	m->rootcnt = child->cnt;
	m->nlv[m->height - 1] = 0;
	m->height--;
	return queue_bmbt_free(s->fs, s->ino, child, s->attr, s->blocks);
}

/* One record leaves the right end of level @level. */
static int sim_delete(struct bmbt_sim *s, unsigned int level)
{
	struct xfsj_bmbt_fork *m = s->m;

	for (;;) {
		struct xfsj_bmbt_blk *v = m->lv[level], *cur, *left;
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
		if (cur->cnt)
			cur->cnt--;
		if (cur->cnt >= minr)
			return 0;
		if (n == 1)
			return level + 1 == m->height ? sim_kill_iroot(s) : 0;
		left = &v[n - 2];
		if (left->cnt > minr) {
			left->cnt--;
			cur->cnt++;
			return 0;
		}
		if (left->cnt + cur->cnt > maxr)
			return 0;
		left->cnt += cur->cnt;
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
	struct xfsj_bmbt_fork *m = s->m;
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
	struct xfsj_bmbt_fork m;
	struct bmbt_sim sim;
	bool reflink = !attr && (ib->di.flags2 & XFSJ_DIFLAG2_REFLINK);
	bool btree = (attr ? ib->di.aformat : ib->di.format) ==
		     XFSJ_DINODE_FMT_BTREE;
	uint32_t size;
	size_t maxext, round = 0;
	int err;

	err = xfsj_bmbt_fork_read(fs, ib, attr ? XFSJ_ATTR_FORK :
						 XFSJ_DATA_FORK, &m, f);
	if (err)
		goto out;
	xfsj_ifork(fs, ib, attr ? XFSJ_ATTR_FORK : XFSJ_DATA_FORK, &size);
	maxext = size / XFSJ_BMBT_REC_SIZE;
	sim = (struct bmbt_sim){ fs, ino, &m, attr, blocks,
		{ xfsj_btree_maxrecs(XFSJ_BT_BMAP, sb->blocksize, false),
		  xfsj_btree_maxrecs(XFSJ_BT_BMAP, sb->blocksize, true) } };
	for (size_t i = m.n; i-- > 0;) {
		const struct xfsj_bmbt_irec *e = &m.ext[i];

		if (btree && (err = sim_delete(&sim, 0)))
			goto fail;
		err = queue_unmap(fs, ino, e, attr, reflink);
		if (err)
			goto fail;
		*blocks += e->blockcount;
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
	xfsj_bmbt_fork_free(&m);
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
	err = xfsj_iget_used(fs, ino, &ib, f);
	if (err)
		return err;
	fmt = ib.di.format;
	had_extents = xfsj_dinode_nextents(&ib.di) > 0;
	has_attr = ib.di.forkoff != 0;
	if ((ib.di.flags & XFSJ_DIFLAG_REALTIME) && had_extents)
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
