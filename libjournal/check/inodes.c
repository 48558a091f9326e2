/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Every inode of one AG's chunks: the slots the inobt names (not those in
 * the holes of a sparse chunk) are read straight from their blocks, with
 * a counted reference per filesystem block and the next chunk's blocks
 * read ahead; each slot's header, the inobt's free mask against the core,
 * then an in-use core's fields (icore.c), its forks (forks.c) and its
 * content (directories, attributes, symlinks).  The chunks' blocks are
 * claimed for OWN_INODES.
 *
 * The blocks are looked up one filesystem block at a time, as xfsj_iget
 * does (the cache keys a buffer by its address and refuses a second
 * length there), and read ahead a chunk at a time: adjacent blocks go to
 * the device in one read, so the inode clusters (8 KiB scaled by the
 * inode size on v5) are still read whole.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check/inode_priv.h"
#include "fs/iget.h"

#define R(code, num, msg, fix, ...) \
	{ code, num, XFSJ_SEV_CORRUPT, "inode", msg, fix, __VA_ARGS__ }

const struct xfsj_problem_def xck_inode_rows[INO__N] = {
	[INO_MAGIC] = R("inode.magic", 0x040001,
		"inode {ino}: magic {xfound}, expected {xexpected}",
		XFSJ_FIX_CLEAR_INODE,
		XFSJ_H_INODE_HEADER, 0),
	[INO_VERSION] = R("inode.version", 0x040002,
		"inode {ino}: version {found}, expected {expected}",
		XFSJ_FIX_CLEAR_INODE,
		XFSJ_H_INODE_HEADER, 0),
	[INO_CRC] = R("inode.crc", 0x040003,
		"inode {ino}: CRC {xfound} does not match the contents "
		"({xexpected})", XFSJ_FIX_CLEAR_INODE,
		XFSJ_H_INODE_HEADER, 0),
	[INO_INUM] = R("inode.ino", 0x040004,
		"inode {ino}: di_ino holds {found}", XFSJ_FIX_FIELD,
		XFSJ_H_INODE_INO, 0),
	[INO_UUID] = R("inode.uuid", 0x040005,
		"inode {ino}: UUID is not the filesystem's", XFSJ_FIX_FIELD,
		XFSJ_H_INODE_UUID, 0),
	[INO_FREE_INUSE] = R("inode.free_in_use", 0x040006,
		"inode {ino}: the inode btree calls it free but its mode is "
		"{xfound}", XFSJ_FIX_REBUILD_BTREE,
		XFSJ_H_AG_BTREES, XFSJ_T_INO_TREES),
	[INO_USED_FREE] = R("inode.used_free", 0x040007,
		"inode {ino}: the inode btree calls it in use but its mode "
		"is 0", XFSJ_FIX_REBUILD_BTREE,
		XFSJ_H_AG_BTREES, XFSJ_T_INO_TREES | XFSJ_T_WRITE_FREE),
	[INO_MODE] = R("inode.mode", 0x040008,
		"inode {ino}: mode {xfound} names no file type",
		XFSJ_FIX_CLEAR_INODE,
		XFSJ_H_CLEAR_INODE, 0),
	[INO_FORMAT] = R("inode.format", 0x040009,
		"inode {ino}: data fork format {found} is wrong for its "
		"file type and size", XFSJ_FIX_CLEAR_INODE,
		XFSJ_H_INODE_FORMAT, 0),
	[INO_FORKOFF] = R("inode.forkoff", 0x04000a,
		"inode {ino}: fork offset {found} is past the literal area "
		"(at most {expected})", XFSJ_FIX_CLEAR_INODE,
		XFSJ_H_CLEAR_INODE, 0),
	[INO_AFORMAT] = R("inode.aformat", 0x04000b,
		"inode {ino}: attribute fork format {found} is not allowed",
		XFSJ_FIX_CLEAR_FORK,
		XFSJ_H_ATTR_FORK_CLEAR, 0),
	[INO_BIGNEXT] = R("inode.big_nextents", 0x04000e,
		"inode {ino}: {field} is {found} without large extent "
		"counters", XFSJ_FIX_FIELD,
		XFSJ_H_INODE_BIG_NEXTENTS, 0),
	[INO_FLAGS] = R("inode.flags", 0x040010,
		"inode {ino}: {field} {xfound} holds bits not allowed here "
		"(allowed of them: {xexpected})", XFSJ_FIX_FIELD,
		XFSJ_H_INODE_FLAGS, 0),
	[INO_FLAGS2] = R("inode.flags2", 0x040011,
		"inode {ino}: {field} {xfound} holds bits not allowed here "
		"(allowed of them: {xexpected})", XFSJ_FIX_FIELD,
		XFSJ_H_INODE_FLAGS2, 0),
	[INO_SIZE] = R("inode.size", 0x040012,
		"inode {ino}: {field} {found} is not possible (expected "
		"{expected})", XFSJ_FIX_FIELD,
		XFSJ_H_INODE_SIZE, 0),
	[INO_EXTSIZE] = R("inode.extsize", 0x040013,
		"inode {ino}: extent size hint {found} is not legal "
		"(expected {expected})", XFSJ_FIX_FIELD,
		XFSJ_H_INODE_EXTSIZE, 0),
	[INO_COWEXTSIZE] = R("inode.cowextsize", 0x040014,
		"inode {ino}: CoW extent size hint {found} is not legal "
		"(expected {expected})", XFSJ_FIX_FIELD,
		XFSJ_H_INODE_COWEXTSIZE, 0),
	[INO_ONLINK] = R("inode.onlink", 0x040015,
		"inode {ino}: the old link count is {found} on a v3 inode",
		XFSJ_FIX_FIELD,
		XFSJ_H_INODE_ONLINK, 0),
	[INO_NLINK] = R("inode.nlink_zero", 0x040016,
		"inode {ino}: in use with no links, not on an unlinked list",
		XFSJ_FIX_NLINK,
		XFSJ_H_NLINK_ZERO, 0),
	[INO_NSEC] = R("inode.nsec", 0x040017,
		"inode {ino}: {field} nanoseconds {found} (at most "
		"{expected})", XFSJ_FIX_FIELD,
		XFSJ_H_INODE_NSEC, 0),
	[INO_TIME] = R("inode.time", 0x040018,
		"inode {ino}: {field} {found} is not a possible time",
		XFSJ_FIX_FIELD,
		XFSJ_H_INODE_TIME, 0),
	[INO_NEXT_UNLINKED] = R("inode.next_unlinked", 0x040019,
		"inode {ino}: next_unlinked {xfound} names no inode of its "
		"AG", XFSJ_FIX_UNLINKED,
		XFSJ_H_UNLINKED_NEXT, 0),
	[INO_NEXT_ORPHAN] = R("inode.next_orphan", 0x04001b,
		"inode {ino}: has a next_unlinked successor but is on no "
		"unlinked list", XFSJ_FIX_UNLINKED,
		XFSJ_H_UNLINKED_NEXT, 0),
	[INO_META] = R("inode.meta", 0x04001a,
		"inode {ino}: the superblock names it but its {field} is "
		"{xfound}", XFSJ_FIX_CLEAR_INODE,
		XFSJ_H_INODE_META, 0),
	[INO_SL_LOCAL] = R("symlink.local_size", 0x040020,
		"symlink {ino}: size {found} does not fit in the inode's "
		"{expected} bytes", XFSJ_FIX_CLEAR_INODE,
		XFSJ_H_CLEAR_INODE, 0),
	[INO_SL_NUL] = R("symlink.nul", 0x040021,
		"symlink {ino}: the target holds a NUL at byte {found}",
		XFSJ_FIX_CLEAR_INODE,
		XFSJ_H_CLEAR_INODE, 0),
	[INO_SL_BLOCK] = R("symlink.hole", 0x040022,
		"symlink {ino}: block {found} of the target is not mapped",
		XFSJ_FIX_CLEAR_INODE,
		XFSJ_H_CLEAR_INODE, 0),
	[INO_SL_HDR] = R("symlink.header", 0x040023,
		"symlink {ino}: block header {field} is {found}, expected "
		"{expected}", XFSJ_FIX_CLEAR_INODE,
		XFSJ_H_CLEAR_INODE, 0),
	[INO_SL_CRC] = R("symlink.crc", 0x040024,
		"symlink {ino}: block CRC {xfound} does not match the "
		"contents ({xexpected})", XFSJ_FIX_CLEAR_INODE,
		XFSJ_H_SYMLINK_CRC, 0),
	[INO_SL_LEN] = R("symlink.mapping", 0x040025,
		"symlink {ino}: mapped to block {found}, past its target's "
		"{expected} blocks", XFSJ_FIX_CLEAR_INODE,
		XFSJ_H_CLEAR_INODE, 0),
	[INO_CHUNK_RANGE] = R("inode.chunk_range", 0x040026,
		"AG {ag}: inode chunk at agino {found} lies outside the AG",
		XFSJ_FIX_REBUILD_BTREE,
		XFSJ_H_AG_BTREES, 0),
};
#undef R
const struct xck_table xck_inode_table = { xck_inode_rows, INO__N };

void xck_ino_report(struct xck *ck, int row, uint64_t ino,
		    const char *field, uint64_t expected, uint64_t found)
{
	xck_report(ck, &(struct xfsj_problem){
		.def = &xck_inode_rows[row],
		.has = XFSJ_PF_INO | XFSJ_PF_EXPECTED | XFSJ_PF_FOUND,
		.ino = ino, .field = field, .expected = expected,
		.found = found });
}

/*
 * The free mask against the core: the AG's inobt is what a repair
 * rebuilds, so the problem names the AG too.
 */
static void mask_report(struct xck *ck, int row, uint32_t agno,
			uint64_t ino, uint64_t mode)
{
	xck_report(ck, &(struct xfsj_problem){
		.def = &xck_inode_rows[row],
		.has = XFSJ_PF_AG | XFSJ_PF_INO | XFSJ_PF_EXPECTED |
		       XFSJ_PF_FOUND,
		.agno = agno, .ino = ino, .field = "mode", .found = mode });
}

/*
 * Mark agino @agino of this AG as on an unlinked list; false when no
 * chunk holds it.
 */
static bool mark_unlinked(struct xck *ck, const struct xck_ag *ag,
			  uint32_t agino)
{
	struct xck_inode *st;

	if (agino == XFSJ_NULLAGINO)
		return true;
	st = xck_inode_find(ck, xfsj_agino_to_ino(ck->sb, ag->agno, agino),
			    NULL);
	if (st)
		st->flags |= XCK_I_UNLINKED;
	return st != NULL;
}

/* Content of an inode in use whose core is sound. */
static int check_content(struct xck *ck, struct xck_icheck *ic)
{
	int err = xck_forks(ck, ic);

	if (!err && (ic->st->ftype == XFSJ_FT_DIR ||
		     ic->st->ftype == XFSJ_FT_SYMLINK))
		xck_pf_fork(ck, ic, XFSJ_DATA_FORK);
	if (!err && ic->di.forkoff)
		xck_pf_fork(ck, ic, XFSJ_ATTR_FORK);
	if (!err && ic->st->ftype == XFSJ_FT_DIR)
		err = xck_dir(ck, ic);
	if (!err && ic->st->ftype == XFSJ_FT_SYMLINK)
		err = xck_symlink(ck, ic);
	if (!err && ic->di.forkoff)
		err = xck_attr(ck, ic);
	xck_forks_free(ic);
	return err;
}

static int check_slot(struct xck *ck, struct xck_ag *ag, struct xck_chunk *c,
		      unsigned int k, const uint8_t *dip,
		      struct xck_vec *linked)
{
	struct xck_inode *st = &c->ino[k];
	bool ifree = c->rec.free >> k & 1;
	uint64_t first;
	struct xck_icheck ic = {
		.ino = xfsj_agino_to_ino(ck->sb, ag->agno,
					 c->rec.startino + k),
		.dip = dip, .st = st,
	};

	st->flags |= XCK_I_SCANNED;
	xfsj_dinode_decode(dip, &ic.di);
	if (!xck_icore_header(ck, &ic)) {
		st->flags |= XCK_I_BAD;
		return 0;
	}
	if (c->guessed) {
		/* No free mask to hold the mode against: the mode is it. */
		ifree = ic.di.mode == 0;
		if (ifree) {
			c->rec.free |= 1ULL << k;
			c->rec.freecount++;
		}
	}
	if (ic.di.mode == 0) {
		if (!ifree)
			mask_report(ck, INO_USED_FREE, ag->agno, ic.ino, 0);
		return 0;
	}
	if (ifree)
		mask_report(ck, INO_FREE_INUSE, ag->agno, ic.ino,
			    ic.di.mode);
	st->flags |= XCK_I_INUSE;
	st->ftype = xfsj_mode_ftype(ic.di.mode);
	st->nlink = ic.di.nlink;
	st->gen = ic.di.gen;
	ck->res->inodes++;
	if (ic.di.next_unlinked != XFSJ_NULLAGINO) {
		int err = xck_vec_push(ck, linked, &ic.ino);

		if (err)
			return err;
		if (!mark_unlinked(ck, ag, ic.di.next_unlinked) &&
		    xck_ino_valid(ck, xfsj_agino_to_ino(ck->sb, ag->agno,
						       ic.di.next_unlinked)))
			xck_ino_report(ck, INO_NEXT_UNLINKED, ic.ino,
				       "next_unlinked", XFSJ_NULLAGINO,
				       ic.di.next_unlinked);
	}
	first = ck->next_id;
	if (!xck_icore(ck, &ic)) {
		st->flags |= XCK_I_BAD;
		/* A directory not read: what its children lack follows. */
		if (st->ftype == XFSJ_FT_DIR && ck->next_id > first)
			return xck_note_lossy(ck, ic.ino, first);
		return 0;
	}
	return check_content(ck, &ic);
}

size_t xck_chunk_blocks(const struct xck *ck, const struct xck_ag *ag,
			const struct xck_chunk *c, struct xfsj_buf_ra *ra)
{
	const struct xfsj_sb *sb = ck->sb;
	uint32_t last = XFSJ_NULLAGBLOCK;
	size_t n = 0;
	unsigned int k;

	if (!xck_chunk_inside(ck, ag, c))
		return 0;
	for (k = 0; k < XFSJ_INODES_PER_CHUNK; k++) {
		uint32_t agbno = (c->rec.startino + k) >> sb->inopblog;

		if (xck_chunk_in_hole(c, k) || agbno == last)
			continue;
		last = agbno;
		ra[n].daddr = xfsj_agb_to_daddr(sb, ag->agno, agbno);
		ra[n].len = sb->blocksize;
		n++;
	}
	return n;
}

bool xck_chunk_inside(const struct xck *ck, const struct xck_ag *ag,
		      const struct xck_chunk *c)
{
	uint64_t first = c->rec.startino >> ck->sb->inopblog;
	uint64_t last = ((uint64_t)c->rec.startino + XFSJ_INODES_PER_CHUNK -
			 1) >> ck->sb->inopblog;

	return first > 0 && last < ag->agblocks;
}

int xck_chunk_each(struct xck *ck, const struct xck_ag *ag,
		   const struct xck_chunk *c, xck_slot_fn fn, void *arg)
{
	const struct xfsj_sb *sb = ck->sb;
	struct xfsj_buf *bp = NULL;
	uint32_t cur = XFSJ_NULLAGBLOCK;
	unsigned int k;
	int err = 0;

	for (k = 0; k < XFSJ_INODES_PER_CHUNK && !err; k++) {
		uint32_t agino = c->rec.startino + k;
		uint32_t agbno = agino >> sb->inopblog;
		size_t slot = agino & (sb->inopblock - 1);

		if (xck_chunk_in_hole(c, k))
			continue;
		if (agbno != cur) {
			xfsj_buf_rele(ck->fs, bp);
			bp = NULL;
			err = xfsj_buf_read_ref(ck->fs,
				xfsj_agb_to_daddr(sb, ag->agno, agbno),
				sb->blocksize, &bp);
			if (err)
				break;
			cur = agbno;
		}
		err = fn(arg, k, bp->data + slot * sb->inodesize);
	}
	xfsj_buf_rele(ck->fs, bp);
	return err;
}

struct scan {
	struct xck *ck;
	struct xck_ag *ag;
	struct xck_chunk *c;
	struct xck_vec *linked;
};

static int scan_slot(void *arg, unsigned int k, const uint8_t *dip)
{
	struct scan *s = arg;

	s->ck->res->work[XFSJ_WK_INODES]++;
	return check_slot(s->ck, s->ag, s->c, k, dip, s->linked);
}

static int scan_chunk(struct xck *ck, struct xck_ag *ag, struct xck_chunk *c,
		      struct xck_vec *linked)
{
	struct scan s = { ck, ag, c, linked };

	if (!xck_chunk_inside(ck, ag, c)) {
		xck_report(ck, &(struct xfsj_problem){
			.def = &xck_inode_rows[INO_CHUNK_RANGE],
			.has = XFSJ_PF_AG | XFSJ_PF_FOUND, .agno = ag->agno,
			.found = c->rec.startino });
		return 0;
	}
	return xck_chunk_each(ck, ag, c, scan_slot, &s);
}

/*
 * The unlinked lists, once every slot is scanned: an inode in use with no
 * links must be on one (or the kernel never frees it), and an inode with
 * a successor must be on one too (a pointer from nowhere: xfs_repair
 * clears it); the successor must be an inode of a chunk.
 */
static void check_linkless(struct xck *ck, uint64_t ino,
			   const struct xck_inode *st)
{
	if ((st->flags & (XCK_I_INUSE | XCK_I_BAD | XCK_I_UNLINKED)) ==
	    XCK_I_INUSE && st->nlink == 0)
		xck_ino_report(ck, INO_NLINK, ino, "nlink", 1, 0);
}

static void check_unlinked(struct xck *ck, struct xck_ag *ag,
			   const struct xck_vec *linked)
{
	size_t i;
	unsigned int k;

	for (i = 0; ag && i < ag->chunks.n; i++) {
		struct xck_chunk *c = xck_vec_at(&ag->chunks, i);

		for (k = 0; k < XFSJ_INODES_PER_CHUNK; k++)
			check_linkless(ck, xfsj_agino_to_ino(ck->sb, ag->agno,
						c->rec.startino + k),
				       &c->ino[k]);
	}
	for (i = 0; i < linked->n; i++) {
		uint64_t ino = *(const uint64_t *)xck_vec_at(linked, i);
		const struct xck_inode *st = xck_inode_find(ck, ino, NULL);

		if (st && !(st->flags & XCK_I_UNLINKED))
			xck_ino_report(ck, INO_NEXT_ORPHAN, ino,
				       "next_unlinked", XFSJ_NULLAGINO, 0);
	}
}

int xck_inodes(struct xck *ck, struct xck_ag *ag)
{
	struct xck_vec linked;	/* inodes with a successor, by number */
	struct xck_pf pf = { 0 };
	size_t i;
	unsigned int k;
	int err;

	/* All chunks get their state first: unlinked pointers look ahead. */
	for (i = 0; i < ag->chunks.n; i++) {
		struct xck_chunk *c = xck_vec_at(&ag->chunks, i);

		c->ino = xfsj_spill_zalloc(ck->spill, ck->ino_arena,
					   XFSJ_INODES_PER_CHUNK *
					   sizeof(*c->ino), &err);
		if (!c->ino)
			return err;
		xck_account(ck, XFSJ_INODES_PER_CHUNK * sizeof(*c->ino));
		for (k = 0; k < XFSJ_INODES_PER_CHUNK; k++)
			c->ino[k].parent = XFSJ_NULLFSINO;
	}
	if (ag->agi_ok)
		for (k = 0; k < XFSJ_AGI_UNLINKED_BUCKETS; k++)
			(void)mark_unlinked(ck, ag, ag->agi.unlinked[k]);

	xck_vec_init(&linked, sizeof(uint64_t));
	for (i = 0, err = 0; i < ag->chunks.n && !err; i++) {
		struct xck_chunk *c = xck_vec_at(&ag->chunks, i);

		xck_pf_advance(ck, ag, &pf, i);
		if (i % 64 == 0)
			xck_progress_in_ag(ck, i, ag->chunks.n);
		err = scan_chunk(ck, ag, c, &linked);
		/* The inode blocks are claimed with the inobt (agbtree.c). */
		xck_release_buffers(ck);
	}
	xck_pf_free(&pf);
	if (!err)
		check_unlinked(ck, ag, &linked);
	xck_vec_free(ck, &linked);
	return err;
}

int xck_inodes_again(struct xck *ck, struct xck_ag *ag,
		     const uint64_t *inos, size_t n)
{
	const struct xfsj_sb *sb = ck->sb;
	struct xck_vec linked;
	size_t i;
	int err = 0;

	xck_vec_init(&linked, sizeof(uint64_t));
	for (i = 0; i < n && !err; i++) {
		struct xck_chunk *c;
		struct xck_inode *st = xck_inode_find(ck, inos[i], &c);
		uint32_t agino = xfsj_ino_agino(sb, inos[i]);
		struct xfsj_buf *bp = NULL;
		unsigned int k;

		if (!st || !c->ino || !xck_chunk_inside(ck, ag, c))
			continue;
		k = agino - c->rec.startino;
		if (xck_chunk_in_hole(c, k))
			continue;
		err = xfsj_buf_read_ref(ck->fs, xfsj_agb_to_daddr(sb,
				ag->agno, agino >> sb->inopblog),
				sb->blocksize, &bp);
		if (err)
			break;
		ck->res->work[XFSJ_WK_INODES]++;
		err = check_slot(ck, ag, c, k, bp->data +
				 (agino & (sb->inopblock - 1)) *
				 sb->inodesize, &linked);
		xfsj_buf_rele(ck->fs, bp);
		if (!err)
			check_linkless(ck, inos[i], st);
	}
	xck_release_buffers(ck);
	if (!err)
		check_unlinked(ck, NULL, &linked);
	xck_vec_free(ck, &linked);
	return err;
}
