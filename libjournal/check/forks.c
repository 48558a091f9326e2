/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The forks of one inode: extent lists and bmbt forks, walked and checked
 * here rather than through the fs layer's reader (which stops at the
 * first fault).
 *
 * Every mapping record: a length, a file range below the largest file
 * offset, a start block inside one AG past its headers, in offset order
 * without overlap, unwritten only in the data fork of a regular file.
 * Every bmbt block (the root in the inode: level, record count against
 * the fork's room): magic, CRC, UUID, owner, its own address, level,
 * record count, the sibling chain of its level, keys in order and equal
 * to each child's first offset, no block reached twice.  The sane
 * mappings are claimed for their owner (a reflinked extent is claimed
 * by each owner; space.c judges sharing) and kept, by offset, for the
 * content checkers; the bmbt blocks are claimed too.  A regular file
 * with shared blocks (by the refcount btree) has the reflink flag.  A fork walked
 * whole must hold the extent count of the core, and the two forks and
 * their bmbt blocks the core's block count.
 *
 * A mapping whose blocks (some of them) both free space btrees of a sound
 * AG hold as free, and that a sound rmapbt has no record of for the
 * inode, is the mapping's fault (a start block gone wrong), not the free
 * space's: it is reported against the inode and not claimed, so that
 * the repair mends the fork rather than the free space.  So is one over
 * blocks a sound rmapbt gives to filesystem metadata (the log, an AG
 * btree...) when the scan found that metadata there too.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check/check_priv.h"
#include "core/grow.h"
#include "fs/bmbt.h"
#include "fs/bmbt_walk.h"
#include "ondisk/meta.h"

enum {
	FORK_REC_LEN,
	FORK_REC_OFF,
	FORK_REC_ORDER,
	FORK_REC_BLOCK,
	FORK_REC_UNWRITTEN,
	FORK_ROOT,
	FORK_PTR,
	FORK_BLK_MAGIC,
	FORK_BLK_CRC,
	FORK_BLK_HDR,
	FORK_BLK_SIB,
	FORK_BLK_KEY,
	FORK_BLK_DUP,
	FORK_NEXTENTS,
	FORK_NBLOCKS,
	FORK_TOO_FEW,
	FORK_REFLINK,
	FORK_REC_FREE,
	FORK_REC_META,
	FORK__N
};

#define R(code, num, msg, fix, ...) \
	{ code, num, XFSJ_SEV_CORRUPT, "inode fork", msg, fix, __VA_ARGS__ }

static const struct xfsj_problem_def rows[FORK__N] = {
	[FORK_REC_LEN] = R("fork.ext_len", 0x040101,
		"inode {ino}: {field} fork mapping at offset {off} has "
		"length 0", XFSJ_FIX_CLEAR_FORK,
		XFSJ_H_FORK_TRIM, XFSJ_T_FORK_MAP),
	[FORK_REC_OFF] = R("fork.ext_offset", 0x040102,
		"inode {ino}: {field} fork mapping at offset {off} of "
		"{found} blocks ends past the largest file offset",
		XFSJ_FIX_CLEAR_FORK,
		XFSJ_H_FORK_TRIM, XFSJ_T_FORK_MAP),
	[FORK_REC_ORDER] = R("fork.ext_order", 0x040103,
		"inode {ino}: {field} fork mapping at offset {off} overlaps "
		"or precedes the one before (which ends at {expected})",
		XFSJ_FIX_CLEAR_FORK,
		XFSJ_H_FORK_TRIM, XFSJ_T_FORK_MAP),
	[FORK_REC_BLOCK] = R("fork.ext_block", 0x040104,
		"inode {ino}: {field} fork mapping at offset {off} names "
		"blocks {fsbno}+{found}, outside an AG or over its headers",
		XFSJ_FIX_CLEAR_FORK,
		XFSJ_H_FORK_TRIM, XFSJ_T_FORK_MAP),
	[FORK_REC_UNWRITTEN] = R("fork.ext_unwritten", 0x040105,
		"inode {ino}: {field} fork mapping at offset {off} is "
		"unwritten, which only a regular file's data may be",
		XFSJ_FIX_CLEAR_FORK,
		XFSJ_H_FORK_TRIM, XFSJ_T_FORK_MAP),
	[FORK_ROOT] = R("fork.bmbt_root", 0x040106,
		"inode {ino}: bmbt root of the {field} fork: {found} is not "
		"possible (at most {expected})", XFSJ_FIX_REBUILD_BMBT,
		XFSJ_H_FORK_MAP, XFSJ_T_FORK_MAP),
	[FORK_PTR] = R("fork.bmbt_ptr", 0x040107,
		"inode {ino}: {field} fork bmbt pointer {fsbno} leads outside "
		"an AG or into its headers", XFSJ_FIX_REBUILD_BMBT,
		XFSJ_H_FORK_MAP, XFSJ_T_FORK_MAP),
	[FORK_BLK_MAGIC] = R("fork.bmbt_magic", 0x040108,
		"inode {ino}: {field} fork bmbt block {fsbno}: magic "
		"{xfound}, expected {xexpected}", XFSJ_FIX_REBUILD_BMBT,
		XFSJ_H_FORK_MAP, XFSJ_T_FORK_MAP),
	[FORK_BLK_CRC] = R("fork.bmbt_crc", 0x040109,
		"inode {ino}: {field} fork bmbt block {fsbno}: CRC {xfound} "
		"does not match the contents ({xexpected})",
		XFSJ_FIX_REBUILD_BMBT,
		XFSJ_H_FORK_MAP, XFSJ_T_FORK_MAP),
	[FORK_BLK_HDR] = R("fork.bmbt_header", 0x04010a,
		"inode {ino}: bmbt block {fsbno}: {field} is {found}, "
		"expected {expected}", XFSJ_FIX_REBUILD_BMBT,
		XFSJ_H_FORK_MAP, XFSJ_T_FORK_MAP),
	[FORK_BLK_SIB] = R("fork.bmbt_sibling", 0x04010b,
		"inode {ino}: bmbt block {fsbno}: {field} is {found}, "
		"expected {expected}", XFSJ_FIX_REBUILD_BMBT,
		XFSJ_H_FORK_MAP, XFSJ_T_FORK_MAP),
	[FORK_BLK_KEY] = R("fork.bmbt_key", 0x04010c,
		"inode {ino}: bmbt block {fsbno}: {field} {found}, expected "
		"{expected}", XFSJ_FIX_REBUILD_BMBT,
		XFSJ_H_FORK_MAP, XFSJ_T_FORK_MAP),
	[FORK_BLK_DUP] = R("fork.bmbt_dup", 0x04010d,
		"inode {ino}: {field} fork bmbt block {fsbno} is reached "
		"twice", XFSJ_FIX_REBUILD_BMBT,
		XFSJ_H_FORK_MAP, XFSJ_T_FORK_MAP),
	[FORK_NEXTENTS] = R("fork.nextents", 0x04010e,
		"inode {ino}: {field} is {found}, the fork maps {expected} "
		"extents", XFSJ_FIX_FIELD,
		XFSJ_H_FORK_NEXTENTS, XFSJ_T_FORK_MAP),
	[FORK_NBLOCKS] = R("fork.nblocks", 0x04010f,
		"inode {ino}: nblocks is {found}, the forks and their bmbt "
		"blocks take {expected}", XFSJ_FIX_FIELD,
		XFSJ_H_INODE_NBLOCKS, 0),
	[FORK_TOO_FEW] = R("fork.btree_too_few", 0x040110,
		"inode {ino}: {field} fork is a btree of {found} mappings, "
		"which fit in the inode (a btree holds at least {expected})",
		XFSJ_FIX_REBUILD_BMBT,
		XFSJ_H_FORK_MAP, XFSJ_T_FORK_MAP),
	[FORK_REFLINK] = R("fork.reflink_flag", 0x040111,
		"inode {ino}: data at offset {off} (block {fsbno}) is shared "
		"but the inode has no reflink flag", XFSJ_FIX_FIELD,
		XFSJ_H_INODE_REFLINK, XFSJ_T_FORK_MAP),
	[FORK_REC_FREE] = R("fork.ext_free", 0x040112,
		"inode {ino}: {field} fork mapping at offset {off} names "
		"blocks {fsbno}+{found} that both free space btrees hold as "
		"free and the rmapbt (if any) has no record of for the inode",
		XFSJ_FIX_REBUILD_BMBT,
		XFSJ_H_FORK_MAP, XFSJ_T_FORK_MAP | XFSJ_T_FOREIGN_BLOCKS),
	[FORK_REC_META] = R("fork.ext_meta", 0x040113,
		"inode {ino}: {field} fork mapping at offset {off} names "
		"blocks {fsbno}+{found} that the rmapbt and the scan both give "
		"to filesystem metadata",
		XFSJ_FIX_REBUILD_BMBT,
		XFSJ_H_FORK_MAP, XFSJ_T_FORK_MAP | XFSJ_T_FOREIGN_BLOCKS),
};
#undef R
const struct xck_table xck_fork_table = { rows, FORK__N };

#define LB_OFF_KEYS	XFSJ_LBLOCK_HDR_SIZE
#define KEY_SIZE	8
#define PTR_SIZE	8

/* One fork being walked. */
struct fwalk {
	struct xck *ck;
	struct xck_icheck *ic;
	int whichfork;
	const char *name;		/* "data" or "attr" */
	struct xfsj_bmbt_irec *map;	/* the sane mappings */
	size_t n, cap;
	uint64_t recs;			/* records seen */
	uint64_t blocks;		/* blocks they map, and bmbt blocks */
	uint64_t next_off;		/* the last record's end */
	bool damaged;			/* some record or block failed */
	uint64_t bmbt_blocks;		/* bmbt blocks reached */
};

static void report(struct fwalk *w, int row, const char *field,
		   unsigned int has, uint64_t fsbno, uint64_t off,
		   uint64_t expected, uint64_t found)
{
	xck_report(w->ck, &(struct xfsj_problem){
		.def = &rows[row],
		.has = XFSJ_PF_INO | has, .ino = w->ic->ino,
		.field = field ? field : w->name, .fsbno = fsbno, .off = off,
		.expected = expected, .found = found });
	w->damaged = true;
}

/* The lowest AG block past the headers (sb, AGF, AGI, AGFL sectors). */
static uint32_t first_agbno(const struct xfsj_sb *sb)
{
	uint32_t agfl_block = (4U * sb->sectsize - 1) >> sb->blocklog;

	return agfl_block + 1;
}

/* @fsb for @len blocks stays in one AG, past the headers. */
static bool ext_ok(const struct xck *ck, uint64_t fsb, uint64_t len)
{
	return xfsj_fsbext_ok(ck->fs, fsb, len) &&
	       xfsj_fsb_agbno(ck->sb, fsb) >= first_agbno(ck->sb);
}

static int push_map(struct fwalk *w, const struct xfsj_bmbt_irec *r)
{
	if (xfsj_grow(&w->map, &w->cap, w->n, 1, sizeof(*w->map), 16))
		return -XFSJ_E_NOMEM;
	w->map[w->n++] = *r;
	return 0;
}

/* ---- a mapping into free space ---- */

/*
 * The last record of @v (sorted by start; struct xfsj_alloc_rec or
 * xfsj_rmap_rec, whose first field is the start) starting before @s,
 * else the first: a free extent, or a metadata record, over @s starts
 * there at the latest (nothing else starts inside one).
 */
static size_t start_before(const struct xck_vec *v, uint32_t s)
{
	size_t lo = 0, hi = v->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const uint32_t *start = xck_vec_at(v, mid);

		if (*start < s)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? lo - 1 : 0;
}

/* Mapping @r's AG and its AG blocks [*s, *e). */
static struct xck_ag *rec_span(const struct fwalk *w,
				     const struct xfsj_bmbt_irec *r,
				     uint32_t *s, uint32_t *e)
{
	const struct xck *ck = w->ck;

	*s = xfsj_fsb_agbno(ck->sb, r->startblock);
	*e = *s + (uint32_t)r->blockcount;
	return &ck->ags[xfsj_fsb_agno(ck->sb, r->startblock)];
}

/*
 * The part of [s, e) that [@start, @start + @len) covers: *ps, *pe; false
 * when nothing.
 */
static bool piece(uint32_t start, uint32_t len, uint32_t s, uint32_t e,
		  uint32_t *ps, uint32_t *pe)
{
	uint64_t end = (uint64_t)start + len;

	*ps = start > s ? start : s;
	*pe = end < e ? (uint32_t)end : e;
	return *ps < *pe;
}

/* Is [ps, pe) of free extent @rec free in the cntbt too? */
static int free_piece_ok(struct xck *ck, struct xck_ag *ag, const void *rec,
			 uint32_t ps, uint32_t pe)
{
	(void)rec;
	return xck_ix_cnt_holds(ck, ag, ps, pe);
}

/* Is rmapbt record @rec metadata the scan found over [ps, pe) too? */
static int meta_piece_ok(struct xck *ck, struct xck_ag *ag, const void *rec,
			 uint32_t ps, uint32_t pe)
{
	const struct xfsj_rmap_rec *m = rec;

	return xck_ix_meta_claim_over(ck, ag, m->owner, ps, pe);
}

/*
 * The first piece [*ps, *pe) of AG blocks [s, e) that a record of @v
 * (sorted by start; struct xfsj_alloc_rec or xfsj_rmap_rec, both opening
 * with start and length) covers and @ok accepts: 1, 0 when none, or
 * -XFSJ_E_NOMEM.  With @next, only the records it leads to are looked
 * at (next[i]: the first index at or after i worth asking @ok about).
 */
static int first_piece(struct xck *ck, struct xck_ag *ag,
		       const struct xck_vec *v, const uint32_t *next,
		       uint32_t s, uint32_t e,
		       int (*ok)(struct xck *, struct xck_ag *, const void *,
				 uint32_t, uint32_t),
		       uint32_t *ps, uint32_t *pe)
{
	size_t i = start_before(v, s);
	int ret;

	ck->res->work[XFSJ_WK_LOOKUPS]++;
	for (i = next ? next[i] : i; i < v->n; i = next ? next[i + 1] : i + 1) {
		const uint32_t *x = xck_vec_at(v, i);

		ck->res->work[XFSJ_WK_LOOKUPS]++;
		if (x[0] >= e)
			break;
		if (!piece(x[0], x[1], s, e, ps, pe))
			continue;
		ret = ok(ck, ag, x, *ps, *pe);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * Is mapping @r's start block gone wrong?  FORK_REC_FREE: a piece of it
 * both free space btrees of a sound AG hold as free, and a sound rmapbt
 * (if the filesystem has one) has no record of the inode over the
 * mapping; FORK_REC_META: a piece a sound rmapbt gives to metadata (an
 * owner that is no inode) which the scan found there too.  The piece
 * into *fsb and *len, the row into *@row (-1 when neither); returns 0
 * or -XFSJ_E_NOMEM.
 * The bnobt and rmapbt are sorted by start when they were walked whole;
 * the rest is looked at only for the pieces they point at, through the
 * AG's indexes (ag_index.c): no table is walked whole per mapping.
 */
static int misplaced(const struct fwalk *w, const struct xfsj_bmbt_irec *r,
		     int *prow, uint64_t *fsb, uint64_t *len)
{
	struct xck *ck = w->ck;
	uint32_t s, e, ps, pe;
	struct xck_ag *ag = rec_span(w, r, &s, &e);
	bool rmapbt = xfsj_fs_has(ck->fs, XFSJ_RO_COMPAT_RMAPBT);
	const uint32_t *next;
	int row = -1, ret = 0;

	*prow = -1;
	if (!xck_ag_trusted(ck, ag->agno, XCK_TRUST_RMAP))
		return 0;
	if (xck_ag_trusted(ck, ag->agno, XCK_TRUST_FREE)) {
		ret = first_piece(ck, ag, &ag->bno_free, NULL, s, e,
				  free_piece_ok, &ps, &pe);
		if (ret > 0) {
			ret = xck_ix_rmap_owner_over(ck, ag, w->ic->ino, s, e);
			if (ret == 0)
				row = FORK_REC_FREE;
		}
		if (ret < 0)
			return ret;
	}
	if (row < 0 && rmapbt) {
		ret = xck_ix_rmap_next_meta(ck, ag, &next);
		if (!ret)
			ret = first_piece(ck, ag, &ag->rmaps, next, s, e,
					  meta_piece_ok, &ps, &pe);
		if (ret < 0)
			return ret;
		if (ret > 0)
			row = FORK_REC_META;
	}
	if (row >= 0) {
		*fsb = r->startblock + (ps - s);
		*len = pe - ps;
	}
	*prow = row;
	return 0;
}

/* One mapping record. */
static int check_rec(struct fwalk *w, const uint8_t *p)
{
	struct xck *ck = w->ck;
	struct xfsj_bmbt_irec r;
	uint64_t off;
	bool bad = false;

	xfsj_bmbt_rec_decode(p, &r);
	w->recs++;
	ck->res->work[XFSJ_WK_MAPS]++;
	w->blocks += r.blockcount;
	if (r.blockcount == 0) {
		report(w, FORK_REC_LEN, NULL, XFSJ_PF_OFF, 0, r.startoff, 0,
		       0);
		return 0;
	}
	if (r.startoff + r.blockcount > XFSJ_MAX_FILEOFF + 1) {
		report(w, FORK_REC_OFF, NULL, XFSJ_PF_OFF | XFSJ_PF_FOUND, 0,
		       r.startoff, 0, r.blockcount);
		return 0;
	}
	if (r.startoff < w->next_off) {
		report(w, FORK_REC_ORDER, NULL, XFSJ_PF_OFF |
		       XFSJ_PF_EXPECTED, 0, r.startoff, w->next_off, 0);
		bad = true;
	} else {
		w->next_off = r.startoff + r.blockcount;
	}
	if (!ext_ok(ck, r.startblock, r.blockcount)) {
		report(w, FORK_REC_BLOCK, NULL, XFSJ_PF_OFF | XFSJ_PF_FSBNO |
		       XFSJ_PF_FOUND, r.startblock, r.startoff, 0,
		       r.blockcount);
		bad = true;
	}
	if (r.unwritten && (w->whichfork == XFSJ_ATTR_FORK ||
			    (w->ic->di.mode & S_IFMT) != S_IFREG)) {
		report(w, FORK_REC_UNWRITTEN, NULL, XFSJ_PF_OFF, 0,
		       r.startoff, 0, 0);
		bad = true;
	}
	if (!bad && (w->whichfork == XFSJ_ATTR_FORK ||
		     !(w->ic->di.flags & XFSJ_DIFLAG_REALTIME))) {
		uint64_t ffsb, flen;
		int row, err = misplaced(w, &r, &row, &ffsb, &flen);

		if (err)
			return err;
		if (row >= 0) {
			report(w, row, NULL, XFSJ_PF_OFF | XFSJ_PF_FSBNO |
			       XFSJ_PF_FOUND, ffsb, r.startoff, 0, flen);
			bad = true;
		}
	}
	if (bad)
		return 0;
	off = r.startoff |
	      (w->whichfork ? XFSJ_RMAP_OFF_ATTR_FORK : 0) |
	      (r.unwritten ? XFSJ_RMAP_OFF_UNWRITTEN : 0);
	if (w->whichfork)
		off &= ~XFSJ_RMAP_OFF_UNWRITTEN;
	{
		int err = xck_claim(ck, xfsj_fsb_agno(ck->sb, r.startblock),
				    xfsj_fsb_agbno(ck->sb, r.startblock),
				    (uint32_t)r.blockcount, w->ic->ino, off);

		if (err)
			return err;
	}
	return push_map(w, &r);
}

/*
 * The children of a bmbt node, hinted to the device before the walk
 * reads them one by one (those of the root in the inode were, by the
 * look-ahead of prefetch.c).
 */
static void hint_children(struct fwalk *w, const uint8_t *ptrs,
			  unsigned int n)
{
	const struct xfsj_sb *sb = w->ck->sb;
	struct xfsj_buf_ra ra[64];
	unsigned int i, m = 0;

	for (i = 0; i < n; i++) {
		uint64_t p = xfsj_get_be64(ptrs + (size_t)i * PTR_SIZE);

		if (!ext_ok(w->ck, p, 1))
			continue;
		ra[m].daddr = xfsj_fsb_daddr(sb, p);
		ra[m++].len = sb->blocksize;
		if (m == 64) {
			(void)xfsj_buf_prefetch(w->ck->fs, ra, m);
			m = 0;
		}
	}
	if (m > 1)
		(void)xfsj_buf_prefetch(w->ck->fs, ra, m);
}

/* ---- the bmbt, through the one descent (fs/bmbt_walk.h) ---- */

static bool bt_ptr_ok(void *arg, uint64_t fsb)
{
	struct fwalk *w = arg;

	return ext_ok(w->ck, fsb, 1);
}

/* A block reached once: claimed for the fork, then read. */
static int bt_read(void *arg, struct xfsj_bmbt_wblk *b)
{
	struct fwalk *w = arg;
	struct xck *ck = w->ck;
	const struct xfsj_sb *sb = ck->sb;
	int err;

	w->blocks++;
	err = xck_claim(ck, xfsj_fsb_agno(sb, b->fsbno),
			xfsj_fsb_agbno(sb, b->fsbno), 1, w->ic->ino,
			XFSJ_RMAP_OFF_BMBT_BLOCK |
			(w->whichfork ? XFSJ_RMAP_OFF_ATTR_FORK : 0));
	return err ? err : xfsj_bmbt_wblk_read(ck->fs, b);
}

static void bt_put(void *arg, struct xfsj_bmbt_wblk *b)
{
	xfsj_bmbt_wblk_put(((struct fwalk *)arg)->ck->fs, b);
}

/*
 * How the check says each finding of the descent: its row, the field it
 * names (NULL: the fork's name) and whether the block's entries are left
 * (the walk goes on past every other finding).
 */
static const struct {
	int row;
	const char *field;
	bool has_expected;
	bool leave;
} bt_says[] = {
	[XFSJ_BMBT_F_ROOT_SIZE] = { FORK_ROOT, "fork size", true, true },
	[XFSJ_BMBT_F_ROOT_LEVEL] = { FORK_ROOT, "level", true, true },
	[XFSJ_BMBT_F_ROOT_NUMRECS] = { FORK_ROOT, "numrecs", true, true },
	[XFSJ_BMBT_F_KEY_ORDER] = { FORK_BLK_KEY, "key order", true, false },
	[XFSJ_BMBT_F_PTR] = { FORK_PTR, NULL, false, true },
	[XFSJ_BMBT_F_LIMIT] = { FORK_BLK_DUP, NULL, false, true },
	[XFSJ_BMBT_F_DUP] = { FORK_BLK_DUP, NULL, false, true },
	[XFSJ_BMBT_F_MAGIC] = { FORK_BLK_MAGIC, NULL, true, true },
	[XFSJ_BMBT_F_CRC] = { FORK_BLK_CRC, NULL, true, false },
	[XFSJ_BMBT_F_UUID] = { FORK_BLK_HDR, "uuid", true, false },
	[XFSJ_BMBT_F_OWNER] = { FORK_BLK_HDR, "owner", true, false },
	[XFSJ_BMBT_F_BLKNO] = { FORK_BLK_HDR, "blkno", true, false },
	[XFSJ_BMBT_F_LEVEL] = { FORK_BLK_HDR, "level", true, true },
	[XFSJ_BMBT_F_NUMRECS] = { FORK_BLK_HDR, "numrecs", true, true },
	[XFSJ_BMBT_F_LEFTSIB] = { FORK_BLK_SIB, "leftsib", true, false },
	[XFSJ_BMBT_F_RIGHTSIB] = { FORK_BLK_SIB, "rightsib", true, false },
	[XFSJ_BMBT_F_KEY] = { FORK_BLK_KEY, "first offset", true, false },
};

static int bt_fault(void *arg, struct xfsj_bmbt_wblk *b,
		    const struct xfsj_bmbt_fault *ft)
{
	struct fwalk *w = arg;
	bool root = ft->kind <= XFSJ_BMBT_F_ROOT_NUMRECS;
	unsigned int has = bt_says[ft->kind].has_expected ?
			   XFSJ_PF_EXPECTED | XFSJ_PF_FOUND : 0;

	(void)b;
	report(w, bt_says[ft->kind].row, bt_says[ft->kind].field,
	       has | (root ? 0 : XFSJ_PF_FSBNO), ft->fsbno, 0, ft->expected,
	       ft->found);
	return bt_says[ft->kind].leave ? XFSJ_BMBT_SKIP : 0;
}

static int bt_node(void *arg, struct xfsj_bmbt_wblk *b)
{
	struct fwalk *w = arg;

	if (b->level > 0)
		hint_children(w, b->data + LB_OFF_KEYS + (size_t)
			      xfsj_btree_maxrecs(XFSJ_BT_BMAP,
						 w->ck->sb->blocksize, false) *
			      KEY_SIZE, b->nrecs);
	return 0;
}

static int bt_rec(void *arg, const struct xfsj_bmbt_wblk *b, unsigned int i,
		  const uint8_t *rec, uint64_t where)
{
	(void)b;
	(void)i;
	(void)where;
	return check_rec(arg, rec);
}

static const struct xfsj_bmbt_walk_ops bt_ops = {
	.ptr_ok = bt_ptr_ok,
	.read = bt_read,
	.put = bt_put,
	.fault = bt_fault,
	.node = bt_node,
	.rec = bt_rec,
};

/* A btree fork: the root in the inode, then the blocks under it. */
static int walk_btree(struct fwalk *w)
{
	const struct xck_icheck *ic = w->ic;
	struct xfsj_bmbt_walk bw;
	int err;

	xfsj_bmbt_walk_init(&bw, w->ck->sb, ic->ino, &bt_ops, w);
	bw.uuid = xfsj_meta_fs_uuid(w->ck->sb);
	bw.crc = true;
	err = xfsj_bmbt_descend(&bw, ic->fork[w->whichfork],
				ic->forksize[w->whichfork]);
	w->bmbt_blocks = xfsj_u64set_count(&bw.seen);
	xfsj_bmbt_walk_free(&bw);
	return err;
}

static int walk_extents(struct fwalk *w, uint64_t nrecs)
{
	const uint8_t *p = w->ic->fork[w->whichfork];
	uint64_t i, room = w->ic->forksize[w->whichfork] / XFSJ_BMBT_REC_SIZE;
	int err;

	/* (walk_fork counted what it holds: never more than its room) */
	if (nrecs > room)
		nrecs = room;
	for (i = 0; i < nrecs; i++) {
		err = check_rec(w, p + i * XFSJ_BMBT_REC_SIZE);
		if (err)
			return err;
	}
	return 0;
}

/* fork.nextents: the count the core holds is not @holds. */
static void report_count(struct xck *ck, const struct xck_icheck *ic,
			 int whichfork, uint64_t holds)
{
	const struct xfsj_dinode *di = &ic->di;

	xck_report(ck, &(struct xfsj_problem){
		.def = &rows[FORK_NEXTENTS],
		.has = XFSJ_PF_INO | XFSJ_PF_EXPECTED | XFSJ_PF_FOUND,
		.ino = ic->ino,
		.field = whichfork ? "anextents" : "nextents",
		.expected = holds,
		.found = whichfork ? xfsj_dinode_anextents(di)
				   : xfsj_dinode_nextents(di) });
}

/*
 * The mappings an extents fork holds: of the records the core counts
 * (at most the fork's room), those before a run of records of length 0
 * (no mapping has that length) that reaches the end.  A record of
 * length 0 among sound ones is that record's fault (fork.ext_len).
 */
static uint64_t extents_held(const struct xck_icheck *ic, int whichfork,
			     uint64_t want)
{
	uint64_t n = ic->forksize[whichfork] / XFSJ_BMBT_REC_SIZE;
	struct xfsj_bmbt_irec m;

	if (n > want)
		n = want;
	for (; n; n--) {
		xfsj_bmbt_rec_decode(ic->fork[whichfork] +
				     (n - 1) * XFSJ_BMBT_REC_SIZE, &m);
		if (m.blockcount)
			break;
	}
	return n;
}

/* Walk one fork; *@blocks gets what it takes; false if not whole. */
static int walk_fork(struct xck *ck, struct xck_icheck *ic, int whichfork,
		     uint64_t *blocks, bool *whole)
{
	const struct xfsj_dinode *di = &ic->di;
	uint8_t fmt = whichfork ? di->aformat : di->format;
	uint64_t want = whichfork ? xfsj_dinode_anextents(di)
				  : xfsj_dinode_nextents(di);
	struct fwalk w = {
		.ck = ck, .ic = ic, .whichfork = whichfork,
		.name = whichfork ? "attr" : "data",
	};
	int err;

	/*
	 * One rule for an extent count (its only row, fork.nextents): the
	 * number of mappings the fork holds.  None in a device or local
	 * fork or a missing attribute fork; an extents fork's are counted
	 * before the walk (the count may exceed its room), a btree fork's
	 * by the walk.  (A format no fork has is the format's row.)
	 */
	*blocks = 0;
	*whole = true;
	if (whichfork && !di->forkoff)
		fmt = XFSJ_DINODE_FMT_DEV;
	if (fmt == XFSJ_DINODE_FMT_EXTENTS) {
		uint64_t held = extents_held(ic, whichfork, want);

		if (held != want)
			report_count(ck, ic, whichfork, held);
		err = walk_extents(&w, held);
		want = held;
	} else if (fmt == XFSJ_DINODE_FMT_BTREE) {
		err = walk_btree(&w);
	} else {
		if ((fmt == XFSJ_DINODE_FMT_DEV ||
		     fmt == XFSJ_DINODE_FMT_LOCAL) && want)
			report_count(ck, ic, whichfork, 0);
		return 0;
	}
	if (err) {
		free(w.map);
		return err;
	}
	ic->map[whichfork] = w.map;
	ic->nmap[whichfork] = w.n;
	ck->res->extents += w.n;
	ck->res->btree_blocks += w.bmbt_blocks;
	*blocks = w.blocks;
	*whole = !w.damaged;
	if (!w.damaged && w.recs != want)
		report_count(ck, ic, whichfork, w.recs);
	/*
	 * Mappings that fit in the inode are kept there: the kernel turns
	 * a btree fork back into a list when they fit, and xfs_repair
	 * calls a btree fork holding so few corrupt.
	 */
	if (!w.damaged && fmt == XFSJ_DINODE_FMT_BTREE &&
	    w.recs <= ic->forksize[whichfork] / XFSJ_BMBT_REC_SIZE)
		xck_report(ck, &(struct xfsj_problem){
			.def = &rows[FORK_TOO_FEW],
			.has = XFSJ_PF_INO | XFSJ_PF_EXPECTED | XFSJ_PF_FOUND,
			.ino = ic->ino, .field = whichfork ? "attr" : "data",
			.expected = ic->forksize[whichfork] /
				    XFSJ_BMBT_REC_SIZE + 1,
			.found = w.recs });
	return 0;
}

/*
 * Does the refcount btree of the mapping's AG call any of its blocks
 * shared?  (The AG phase has read every AG's records, by start block;
 * CoW staging records, their start with the CoW bit, sort last.)
 */
static bool ext_shared(const struct xck *ck, const struct xfsj_bmbt_irec *m)
{
	uint32_t agno = xfsj_fsb_agno(ck->sb, m->startblock);
	uint32_t agbno = xfsj_fsb_agbno(ck->sb, m->startblock);
	uint64_t end = (uint64_t)agbno + m->blockcount;
	const struct xck_ag *ag = &ck->ags[agno];
	const struct xfsj_refc_rec *r = ag->refcs.v;
	size_t lo = 0, hi = ag->refcs.n;

	if (!ag->tree_ok[XFSJ_BT_REFC])
		return false;
	/* The first record that ends past agbno. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if ((uint64_t)r[mid].startblock + r[mid].blockcount <= agbno)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < ag->refcs.n && r[lo].startblock < end; lo++)
		if (!(r[lo].startblock & XFSJ_REFC_COWFLAG) &&
		    r[lo].refcount > 1)
			return true;
	return false;
}

/*
 * A regular file whose data blocks are shared must carry the reflink
 * flag: the kernel writes in place (no copy on write) into the blocks of
 * a file without it (xfs_repair sets the flag).
 */
static void check_reflink(struct xck *ck, const struct xck_icheck *ic)
{
	size_t i;

	if (!(ck->sb->features_ro_compat & XFSJ_RO_COMPAT_REFLINK) ||
	    (ic->di.mode & S_IFMT) != S_IFREG ||
	    (ic->di.flags2 & XFSJ_DIFLAG2_REFLINK))
		return;
	for (i = 0; i < ic->nmap[XFSJ_DATA_FORK]; i++) {
		const struct xfsj_bmbt_irec *m = &ic->map[XFSJ_DATA_FORK][i];

		if (ext_shared(ck, m)) {
			xck_report(ck, &(struct xfsj_problem){
				.def = &rows[FORK_REFLINK],
				.has = XFSJ_PF_INO | XFSJ_PF_OFF |
				       XFSJ_PF_FSBNO,
				.ino = ic->ino, .off = m->startoff,
				.fsbno = m->startblock });
			return;
		}
	}
}

int xck_forks(struct xck *ck, struct xck_icheck *ic)
{
	uint64_t blocks[2];
	bool whole[2];
	int err;

	err = walk_fork(ck, ic, XFSJ_DATA_FORK, &blocks[0], &whole[0]);
	if (!err)
		err = walk_fork(ck, ic, XFSJ_ATTR_FORK, &blocks[1], &whole[1]);
	if (err)
		return err;
	check_reflink(ck, ic);
	if (whole[0] && whole[1] && blocks[0] + blocks[1] != ic->di.nblocks &&
	    !(ic->di.flags & XFSJ_DIFLAG_REALTIME))
		xck_report(ck, &(struct xfsj_problem){
			.def = &rows[FORK_NBLOCKS],
			.has = XFSJ_PF_INO | XFSJ_PF_EXPECTED | XFSJ_PF_FOUND,
			.ino = ic->ino, .expected = blocks[0] + blocks[1],
			.found = ic->di.nblocks });
	return 0;
}

void xck_forks_free(struct xck_icheck *ic)
{
	free(ic->map[0]);
	free(ic->map[1]);
	ic->map[0] = ic->map[1] = NULL;
	ic->nmap[0] = ic->nmap[1] = 0;
}
