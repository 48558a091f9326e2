/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Recovery of XMI intents (attri.h): a file mapping exchange between two
 * inodes, resumed from the offsets the last logged XMI holds, the way
 * the kernel's exchange-maps recovery resumes it.
 *
 * What the kernel does, and so do we:
 *  - the item must be 88 bytes with a zero pad, the filesystem must have
 *    the exchange-range feature, no unknown flag may be set, both inode
 *    numbers must be possible and both ranges [startoff, startoff +
 *    blockcount) must be non-empty and inside the largest file offset.
 *    Anything else is corruption.
 *  - both inodes are looked up by handle: in use, with the logged
 *    generation; else corruption.
 *  - the exchange state is rebuilt from the item and the inodes *now*:
 *    only ATTR_FORK, SET_SIZES and INO1_WRITTEN are taken from the log;
 *    the sizes to set at the end are the inodes' current sizes crossed
 *    over, and the reflink flags are cleared at the end only when
 *    exactly one inode has the flag and the (remaining) range is both
 *    files whole from offset 0 -- the logged isize and CLEAR_*_REFLINK
 *    values are not used.
 *  - before the first step: if either inode has the reflink flag, the
 *    other gets it too; with large extent counters on the filesystem,
 *    both inodes move to the large counters.
 *  - each step: find the next pair of mappings at (startoff1, startoff2)
 *    -- skipping, with INO1_WRITTEN, holes and unwritten extents of file
 *    1, and skipping pairs that are both holes or the same blocks -- cut
 *    both to the shorter, unmap both (keeping the blocks), map each into
 *    the other file at the same offsets (with its written state), raise
 *    each file's size up to the end of what it received (never beyond
 *    its target size, and only when sizes are being set), advance.
 *  - at the end: set both sizes when SET_SIZES, then clear the reflink
 *    flags chosen above.
 *
 * Each step is deferred work (XFSJ_W_XMI) that queues its four mapping
 * changes as bmap work (unmap from file 1, unmap from file 2, map into
 * file 1, map into file 2; holes skipped), as the kernel's exchange does
 * through BUIs, and then the next step.  The order matters for the shape
 * of both files' bmap btrees, so it is the kernel's: recovery does the
 * first step when it meets the intent and keeps the step's work behind
 * the intent's continuation (recovered work stays at the head of the
 * list its new work is appended to); once every intent has had its first
 * step, the continuation runs the remaining steps, each one's mapping
 * work before the next step, and the first step's mapping work last.
 *
 * Not done (XFSJ_E_UNSUPP, nothing is changed): attribute-fork exchanges
 * and exchanges whose second inode is a directory or a symlink, where the
 * kernel converts inode 2 back to short form at the end (online repair
 * only; the exchange-range call moves regular files' data).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "xfsj/attri.h"
#include "xfsj/bmap.h"
#include "xfsj/defer.h"
#include "xfsj/layout.h"

#define MAX_FILEOFF	((1ULL << 54) - 1)
#define HOLE		UINT64_MAX
#define XMI_PARAMS	(XFSJ_XMI_ATTR_FORK | XFSJ_XMI_SET_SIZES | \
			 XFSJ_XMI_INO1_WRITTEN)

static const char ITEM[] = "XMI log item";

struct xmi {
	uint64_t ino1, ino2;
	uint32_t igen1, igen2;
	uint64_t startoff1, startoff2, blockcount;
	uint64_t flags;
	int64_t isize1, isize2;		/* -1: leave the size alone */
};

static int bad(const struct xfsj_pending_intent *pi, const char *field,
	       uint64_t val, struct xfsj_fault *f)
{
	return xfsj_fault_set(f, XFSJ_E_CORRUPT, ITEM, field, pi->lsn, val);
}

/* The kernel's xfs_verify_fileext: non-empty, inside the file offsets. */
static bool fileext_ok(uint64_t off, uint64_t len)
{
	return len != 0 && off <= MAX_FILEOFF && len <= MAX_FILEOFF - off + 1;
}

static int decode(const struct xfsj_fs *fs, const struct xfsj_pending_intent *pi,
		  struct xmi *x, struct xfsj_fault *f)
{
	const uint8_t *p = pi->fmt;

	if (!p || pi->len != XFSJ_XMI_FMT_SIZE)
		return bad(pi, "size", pi->len, f);
	if (xfsj_get_le32(p + 4) != 0)
		return bad(pi, "pad", xfsj_get_le32(p + 4), f);
	if (!xfsj_fs_has_incompat(fs, XFSJ_INCOMPAT_EXCHRANGE))
		return bad(pi, "type (no exchange-range feature)", pi->type, f);
	memset(x, 0, sizeof(*x));
	x->ino1 = xfsj_get_le64(p + 16);
	x->ino2 = xfsj_get_le64(p + 24);
	x->igen1 = xfsj_get_le32(p + 32);
	x->igen2 = xfsj_get_le32(p + 36);
	x->startoff1 = xfsj_get_le64(p + 40);
	x->startoff2 = xfsj_get_le64(p + 48);
	x->blockcount = xfsj_get_le64(p + 56);
	x->flags = xfsj_get_le64(p + 64);
	if (x->flags & ~XFSJ_XMI_LOGGED_FLAGS)
		return bad(pi, "flags", x->flags, f);
	if (!xfsj_intent_ino_ok(fs, x->ino1))
		return bad(pi, "inode1", x->ino1, f);
	if (!xfsj_intent_ino_ok(fs, x->ino2))
		return bad(pi, "inode2", x->ino2, f);
	if (!fileext_ok(x->startoff1, x->blockcount))
		return bad(pi, "startoff1", x->startoff1, f);
	if (!fileext_ok(x->startoff2, x->blockcount))
		return bad(pi, "startoff2", x->startoff2, f);
	return 0;
}

/* xlog_recover_iget_handle: an inode in use, of the logged generation. */
static int iget_handle(struct xfsj_fs *fs, const struct xfsj_pending_intent *pi,
		       uint64_t ino, uint32_t gen, struct xfsj_iref *ip,
		       struct xfsj_fault *f)
{
	int err = xfsj_iget(fs, ino, false, ip, f);

	if (err)
		return err;
	if ((ip->di.mode & S_IFMT) == 0)
		return bad(pi, "inode (not in use)", ino, f);
	if (ip->di.gen != gen)
		return bad(pi, "igen", gen, f);
	if (ip->di.size > INT64_MAX)
		return xfsj_fault_set(f, XFSJ_E_CORRUPT, "inode", "size",
				      ip->byte_off + 56, ip->di.size);
	return 0;
}

static bool is_reflink(const struct xfsj_iref *ip)
{
	return ip->di.flags2 & XFSJ_DIFLAG2_REFLINK;
}

static uint64_t b_to_fsb(const struct xfsj_sb *sb, uint64_t bytes)
{
	return (bytes >> sb->blocklog) +
	       ((bytes & ((1ULL << sb->blocklog) - 1)) != 0);
}

/* The kernel's xfs_exchmaps_ensure_large_extent_counts. */
static void large_counts(struct xfsj_iref *ip)
{
	struct xfsj_dinode *di = &ip->di;
	uint64_t dn;
	uint32_t an;

	if (di->flags2 & XFSJ_DIFLAG2_NREXT64)
		return;
	dn = xfsj_dinode_nextents(di);
	an = xfsj_dinode_anextents(di);
	di->flags2 |= XFSJ_DIFLAG2_NREXT64;
	/* The wide layout: data count in 24..31, attr count in 76..79. */
	di->big_nextents = dn;
	di->nextents = an;
	di->anextents = 0;
}

/*
 * The mapping at @off (as xfs_bmapi_read for one record): the extent
 * covering @off cut to [off, off + len), or a hole up to the next extent.
 */
static void map_at(const struct xfsj_bmbt_irec *ext, size_t n, uint64_t off,
		   uint64_t len, struct xfsj_bmbt_irec *out)
{
	out->startoff = off;
	out->startblock = HOLE;
	out->blockcount = len;
	out->unwritten = false;
	for (size_t i = 0; i < n; i++) {
		const struct xfsj_bmbt_irec *r = &ext[i];
		uint64_t end = r->startoff + r->blockcount;

		if (end <= off)
			continue;
		if (r->startoff > off) {
			if (r->startoff - off < out->blockcount)
				out->blockcount = r->startoff - off;
			return;
		}
		out->startblock = r->startblock + (off - r->startoff);
		out->unwritten = r->unwritten;
		if (end - off < out->blockcount)
			out->blockcount = end - off;
		return;
	}
}

struct xstate {
	struct xfsj_fs *fs;
	const struct xfsj_pending_intent *pi;
	struct xfsj_iref *ip1, *ip2;
	struct xmi *x;
	struct xfsj_fault *f;
};

static int read_map(struct xstate *s, struct xfsj_iref *ip, uint64_t off,
		    uint64_t len, struct xfsj_bmbt_irec *out)
{
	struct xfsj_bmbt_irec *ext;
	size_t n;
	int err;

	err = xfsj_bmap_read(s->fs, ip, XFSJ_DATA_FORK, &ext, &n, s->f);
	if (err)
		return err;
	map_at(ext, n, off, len, out);
	free(ext);
	return 0;
}

static void advance(struct xmi *x, uint64_t len)
{
	x->startoff1 += len;
	x->startoff2 += len;
	x->blockcount -= len;
}

/*
 * xfs_exchmaps_find_mappings: walk until two different mappings are
 * found (returned in @r1/@r2, cut to the same length) or the range ends.
 */
static int find_mappings(struct xstate *s, struct xfsj_bmbt_irec *r1,
			 struct xfsj_bmbt_irec *r2)
{
	struct xmi *x = s->x;
	int err;

	for (; x->blockcount > 0; advance(x, r1->blockcount)) {
		err = read_map(s, s->ip1, x->startoff1, x->blockcount, r1);
		if (err)
			return err;
		/* With INO1_WRITTEN only written blocks of file 1 move. */
		if ((x->flags & XFSJ_XMI_INO1_WRITTEN) &&
		    (r1->startblock == HOLE || r1->unwritten))
			continue;
		err = read_map(s, s->ip2, x->startoff2, r1->blockcount, r2);
		if (err)
			return err;
		if (r2->blockcount < r1->blockcount)
			r1->blockcount = r2->blockcount;
		r2->blockcount = r1->blockcount;
		if (r1->startblock != r2->startblock)
			return 0;
		/* The same blocks in two states: corruption. */
		if (r1->startblock != HOLE && r1->unwritten != r2->unwritten)
			return xfsj_fault_set(s->f, XFSJ_E_CORRUPT, "inode",
					      "data fork (shared blocks in two states)",
					      s->ip1->byte_off, r1->startblock);
	}
	return 0;
}

/* The kernel's xfs_exchmaps_update_size: no mappings past EOF. */
static void update_size(const struct xfsj_sb *sb, struct xfsj_iref *ip,
			const struct xfsj_bmbt_irec *r, int64_t new_isize)
{
	uint64_t end = r->startoff + r->blockcount;
	uint64_t len;

	if (new_isize < 0)
		return;
	if (end > (UINT64_MAX >> sb->blocklog) ||
	    (end << sb->blocklog) > (uint64_t)new_isize)
		len = (uint64_t)new_isize;
	else
		len = end << sb->blocklog;
	if (len > ip->di.size)
		ip->di.size = len;
}

/*
 * xfs_bmap_unmap_extent / xfs_bmap_map_extent: one bmap work item for one
 * mapping (never longer than an extent can be), holes skipped.
 */
static int queue_bmap(struct xfsj_fs *fs, enum xfsj_bmap_op op, uint64_t ino,
		      const struct xfsj_bmbt_irec *r)
{
	struct xfsj_work w = { .kind = XFSJ_W_BMAP };

	if (r->startblock == HOLE)
		return 0;
	w.fsbno = r->startblock;
	w.len = (uint32_t)r->blockcount;
	w.bmap.op = op;
	w.bmap.ino = ino;
	w.bmap.startoff = r->startoff;
	w.bmap.unwritten = r->unwritten;
	return xfsj_defer_add(fs, &w);
}

/*
 * xfs_exchmaps_one_step: queue the exchange of @r1 (file 1) and @r2
 * (file 2), update the sizes, advance.
 */
static int one_step(struct xstate *s, struct xfsj_bmbt_irec *r1,
		    struct xfsj_bmbt_irec *r2)
{
	const struct xfsj_sb *sb = xfsj_fs_sb(s->fs);
	struct xfsj_bmbt_irec to1 = *r2, to2 = *r1;
	int err;

	to1.startoff = r1->startoff;
	to2.startoff = r2->startoff;
	err = queue_bmap(s->fs, XFSJ_BMAP_UNMAP, s->x->ino1, r1);
	if (!err)
		err = queue_bmap(s->fs, XFSJ_BMAP_UNMAP, s->x->ino2, r2);
	if (!err)
		err = queue_bmap(s->fs, XFSJ_BMAP_MAP, s->x->ino1, &to1);
	if (!err)
		err = queue_bmap(s->fs, XFSJ_BMAP_MAP, s->x->ino2, &to2);
	if (err)
		return err;
	update_size(sb, s->ip1, &to1, s->x->isize1);
	update_size(sb, s->ip2, &to2, s->x->isize2);
	advance(s->x, r1->blockcount);
	return 0;
}

/* Sizes and reflink flags once the whole range has been exchanged. */
static void finish_exchange(struct xstate *s)
{
	const struct xmi *x = s->x;

	if (x->flags & XFSJ_XMI_SET_SIZES) {
		s->ip1->di.size = (uint64_t)x->isize1;
		s->ip2->di.size = (uint64_t)x->isize2;
	}
	if (x->flags & XFSJ_XMI_CLEAR_INO1_REFLINK)
		s->ip1->di.flags2 &= ~XFSJ_DIFLAG2_REFLINK;
	if (x->flags & XFSJ_XMI_CLEAR_INO2_REFLINK)
		s->ip2->di.flags2 &= ~XFSJ_DIFLAG2_REFLINK;
}

static void to_work(const struct xmi *x, bool first, struct xfsj_work *w)
{
	memset(w, 0, sizeof(*w));
	w->kind = XFSJ_W_XMI;
	w->xmi.ino1 = x->ino1;
	w->xmi.ino2 = x->ino2;
	w->xmi.startoff1 = x->startoff1;
	w->xmi.startoff2 = x->startoff2;
	w->xmi.blockcount = x->blockcount;
	w->xmi.flags = x->flags;
	w->xmi.isize1 = x->isize1;
	w->xmi.isize2 = x->isize2;
	w->xmi.first = first;
}

/*
 * One step on inodes @ip1 and @ip2 (the same reference when the files
 * are one): the next pair of mappings exchanged through bmap work and the
 * exchange queued again, or the end of the exchange.
 */
static int step(struct xfsj_fs *fs, struct xmi *x, bool first,
		struct xfsj_iref *ip1, struct xfsj_iref *ip2,
		struct xfsj_fault *f)
{
	struct xstate s = { fs, NULL, ip1, ip2, x, f };
	struct xfsj_bmbt_irec r1, r2;
	struct xfsj_work next;
	int err;

	err = find_mappings(&s, &r1, &r2);
	if (err)
		return err;
	if (x->blockcount == 0) {
		finish_exchange(&s);
		return 0;
	}
	/*
	 * Recovery's first step keeps the intent ahead of the work the step
	 * queues; later steps queue their work, then the intent again.
	 */
	if (first && x->blockcount > r1.blockcount) {
		struct xmi after = *x;

		advance(&after, r1.blockcount);
		to_work(&after, false, &next);
		err = xfsj_defer_add(fs, &next);
		if (err)
			return err;
	}
	err = one_step(&s, &r1, &r2);
	if (err)
		return err;
	if (x->blockcount == 0) {
		finish_exchange(&s);
		return 0;
	}
	if (first)
		return 0;
	to_work(x, false, &next);
	return xfsj_defer_add(fs, &next);
}

int xfsj_xmi_finish(struct xfsj_fs *fs, const struct xfsj_work *w,
		    struct xfsj_fault *f)
{
	struct xfsj_iref i1, i2, *ip2 = &i2;
	struct xmi x = { 0 };
	int err;

	if (w->kind != XFSJ_W_XMI)
		return xfsj_fault_set(f, XFSJ_E_INVAL, "exchange work", "kind",
				      0, w->kind);
	x.ino1 = w->xmi.ino1;
	x.ino2 = w->xmi.ino2;
	x.startoff1 = w->xmi.startoff1;
	x.startoff2 = w->xmi.startoff2;
	x.blockcount = w->xmi.blockcount;
	x.flags = w->xmi.flags;
	x.isize1 = w->xmi.isize1;
	x.isize2 = w->xmi.isize2;
	err = xfsj_iget(fs, x.ino1, false, &i1, f);
	if (err)
		return err;
	if (x.ino2 == x.ino1)
		ip2 = &i1;
	else if ((err = xfsj_iget(fs, x.ino2, false, &i2, f)))
		return err;
	err = step(fs, &x, w->xmi.first, &i1, ip2, f);
	if (err)
		return err;
	xfsj_iput(fs, &i1, true);
	if (ip2 != &i1)
		xfsj_iput(fs, ip2, true);
	return 0;
}

int xfsj_xmi_recover(struct xfsj_fs *fs, const struct xfsj_pending_intent *pi,
		     struct xfsj_fault *f)
{
	const struct xfsj_sb *sb = xfsj_fs_sb(fs);
	struct xfsj_iref i1, i2, *ip2 = &i2;
	struct xfsj_work w;
	struct xmi x;
	unsigned int rs = 0;
	int err;

	err = decode(fs, pi, &x, f);
	if (err)
		return err;
	err = iget_handle(fs, pi, x.ino1, x.igen1, &i1, f);
	if (err)
		return err;
	if (x.ino2 == x.ino1) {
		if (i1.di.gen != x.igen2)
			return bad(pi, "igen2", x.igen2, f);
		ip2 = &i1;
	} else {
		err = iget_handle(fs, pi, x.ino2, x.igen2, &i2, f);
		if (err)
			return err;
	}

	/* Inode 2 would be converted back to short form at the end. */
	if (x.flags & XFSJ_XMI_ATTR_FORK)
		return xfsj_fault_set(f, XFSJ_E_UNSUPP, ITEM,
				      "flags (attribute fork exchange)",
				      pi->lsn, x.flags);
	if (S_ISDIR(ip2->di.mode) || S_ISLNK(ip2->di.mode))
		return xfsj_fault_set(f, XFSJ_E_UNSUPP, ITEM,
				      "inode2 (directory or symlink exchange)",
				      pi->lsn, x.ino2);

	/* The state the kernel rebuilds from the item and the inodes. */
	x.flags &= XMI_PARAMS;
	x.isize1 = x.isize2 = -1;
	if (x.flags & XFSJ_XMI_SET_SIZES) {
		x.isize1 = (int64_t)ip2->di.size;
		x.isize2 = (int64_t)i1.di.size;
	}
	if (is_reflink(&i1))
		rs |= 1;
	if (is_reflink(ip2))
		rs |= 2;
	if ((rs == 1 || rs == 2) && x.startoff1 == 0 && x.startoff2 == 0 &&
	    x.blockcount == b_to_fsb(sb, i1.di.size) &&
	    x.blockcount == b_to_fsb(sb, ip2->di.size))
		x.flags |= rs == 1 ? XFSJ_XMI_CLEAR_INO1_REFLINK :
				     XFSJ_XMI_CLEAR_INO2_REFLINK;

	/* Before the first step: shared blocks may move to the other file. */
	if (rs & 1)
		ip2->di.flags2 |= XFSJ_DIFLAG2_REFLINK;
	if (rs & 2)
		i1.di.flags2 |= XFSJ_DIFLAG2_REFLINK;
	if (xfsj_fs_has_incompat(fs, XFSJ_INCOMPAT_NREXT64)) {
		large_counts(&i1);
		large_counts(ip2);
	}
	xfsj_iput(fs, &i1, true);
	if (ip2 != &i1)
		xfsj_iput(fs, ip2, true);
	/* The first step runs when the caller finishes what is queued. */
	to_work(&x, true, &w);
	return xfsj_defer_add(fs, &w);
}
