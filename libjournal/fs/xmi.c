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
 *  - the exchange state is rebuilt from the item and the inodes *now*
 *    (xfs_exchmaps_init_intent): only ATTR_FORK, SET_SIZES and
 *    INO1_WRITTEN are taken from the log.  An attribute-fork exchange
 *    stops there, but for the "inode 2 back to short form" mark.  A
 *    data-fork exchange sets the sizes to set at the end to the inodes'
 *    current sizes crossed over, and the reflink flags are cleared at
 *    the end only when exactly one inode has the flag and the
 *    (remaining) range is both files whole from offset 0 -- the logged
 *    isize and CLEAR_*_REFLINK values are not used; a directory or
 *    symlink inode 2 gets the short-form mark too.
 *  - before the first step, whichever the fork: if either inode has the
 *    reflink flag, the other gets it too; with large extent counters on
 *    the filesystem, both inodes move to the large counters.
 *  - each step: find the next pair of mappings at (startoff1, startoff2)
 *    -- skipping, with INO1_WRITTEN, holes and unwritten extents of file
 *    1, and skipping pairs that are both holes or the same blocks -- cut
 *    both to the shorter, unmap both (keeping the blocks), map each into
 *    the other file at the same offsets (with its written state), raise
 *    each file's size up to the end of what it received (data fork only,
 *    never beyond its target size, and only when sizes are being set),
 *    advance.  The fork read (xfs_bmapi_read) must have mappings: a
 *    missing attribute fork or a local-format fork is corruption.
 *  - when the range is done, in that same step: set both sizes when
 *    SET_SIZES.
 *  - then, as one more step of its own (xfs_exchmaps_do_postop_work),
 *    when there is anything left to do: inode 2 back to short form if
 *    marked so (xfs_exchmaps_attr_to_sf: a one-block leaf attribute fork
 *    whose entries all fit in short form, converted as the attribute
 *    code converts it, the leaf block unmapped and freed;
 *    xfs_exchmaps_link_to_sf: a symlink in blocks whose size fits in the
 *    data fork, its target read from the remote block(s), the blocks
 *    unmapped and freed as a truncation frees them, the target copied
 *    into the fork in local format), then the reflink flags chosen
 *    above are cleared.
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
 * work before the next step, and the first step's mapping work last --
 * after the end-of-exchange step too, which so looks at inode 2 without
 * the first step's mappings, as the kernel's does.
 *
 * Not done (XFSJ_E_UNSUPP, nothing is changed): a data-fork exchange
 * whose second inode is a directory (the kernel turns a block-form
 * directory back to short form at the end; that needs a directory block
 * reader), and an attribute-fork exchange with SET_SIZES (the kernel
 * never logs one; its recovery would set both sizes to -1).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fs/attr.h"
#include "fs/attri.h"
#include "fs/bmap.h"
#include "core/crc32c.h"
#include "fs/defer.h"
#include "core/layout.h"

#define HOLE		UINT64_MAX
#define XMI_PARAMS	(XFSJ_XMI_ATTR_FORK | XFSJ_XMI_SET_SIZES | \
			 XFSJ_XMI_INO1_WRITTEN)
/* What is left for the end-of-exchange step (xmi_has_postop_work). */
#define XMI_POSTOP	(XFSJ_XMI_CLEAR_INO1_REFLINK | \
			 XFSJ_XMI_CLEAR_INO2_REFLINK | XFSJ_XMI_INO2_SHORTFORM)

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

/*
 * The format (ondisk/xmi_fmt.c decodes it and checks its structural
 * rules), the feature and both inode numbers.
 */
static int decode(const struct xfsj_fs *fs, const struct xfsj_pending_intent *pi,
		  struct xmi *x, struct xfsj_fault *f)
{
	struct xfsj_xmi_fmt fmt;
	const char *field;
	uint64_t val;

	memset(x, 0, sizeof(*x));
	if (!xfsj_xmi_fmt_decode(pi->fmt, pi->len, &fmt))
		return bad(pi, "size", pi->len, f);
	field = xfsj_xmi_fmt_verify(&fmt, &val);
	if (field)
		return bad(pi, field, val, f);
	if (!xfsj_fs_has_incompat(fs, XFSJ_INCOMPAT_EXCHRANGE))
		return bad(pi, "type (no exchange-range feature)", pi->type, f);
	if (!xfsj_intent_ino_ok(fs, fmt.ino1))
		return bad(pi, "inode1", fmt.ino1, f);
	if (!xfsj_intent_ino_ok(fs, fmt.ino2))
		return bad(pi, "inode2", fmt.ino2, f);
	x->ino1 = fmt.ino1;
	x->ino2 = fmt.ino2;
	x->igen1 = fmt.igen1;
	x->igen2 = fmt.igen2;
	x->startoff1 = fmt.startoff1;
	x->startoff2 = fmt.startoff2;
	x->blockcount = fmt.blockcount;
	x->flags = fmt.flags;
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

static int xmi_fork(const struct xmi *x)
{
	return (x->flags & XFSJ_XMI_ATTR_FORK) ? XFSJ_ATTR_FORK :
						 XFSJ_DATA_FORK;
}

/* Is there anything left, range or end-of-exchange work? */
static bool xmi_more(const struct xmi *x)
{
	return x->blockcount > 0 || (x->flags & XMI_POSTOP);
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
	int whichfork = xmi_fork(s->x);
	struct xfsj_bmbt_irec *ext;
	size_t n;
	int err;

	/* xfs_bmapi_read: a fork that is not there is corruption. */
	if (whichfork == XFSJ_ATTR_FORK && !ip->di.forkoff)
		return xfsj_fault_set(s->f, XFSJ_E_CORRUPT, "inode",
				      "attr fork (none to exchange)",
				      ip->byte_off + 82, ip->ino);
	err = xfsj_bmap_read(s->fs, ip, whichfork, &ext, &n, s->f);
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
					      "fork (shared blocks in two states)",
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
		      bool attr_fork, const struct xfsj_bmbt_irec *r)
{
	struct xfsj_work w = { .kind = XFSJ_W_BMAP };

	if (r->startblock == HOLE)
		return 0;
	w.fsbno = r->startblock;
	w.len = (uint32_t)r->blockcount;
	w.bmap.op = op;
	w.bmap.ino = ino;
	w.bmap.startoff = r->startoff;
	w.bmap.attr_fork = attr_fork;
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
	bool attr = xmi_fork(s->x) == XFSJ_ATTR_FORK;
	int err;

	to1.startoff = r1->startoff;
	to2.startoff = r2->startoff;
	err = queue_bmap(s->fs, XFSJ_BMAP_UNMAP, s->x->ino1, attr, r1);
	if (!err)
		err = queue_bmap(s->fs, XFSJ_BMAP_UNMAP, s->x->ino2, attr, r2);
	if (!err)
		err = queue_bmap(s->fs, XFSJ_BMAP_MAP, s->x->ino1, attr, &to1);
	if (!err)
		err = queue_bmap(s->fs, XFSJ_BMAP_MAP, s->x->ino2, attr, &to2);
	if (err)
		return err;
	if (!attr) {
		update_size(sb, s->ip1, &to1, s->x->isize1);
		update_size(sb, s->ip2, &to2, s->x->isize2);
	}
	advance(s->x, r1->blockcount);
	return 0;
}

/*
 * xfs_exchmaps_attr_to_sf: inode 2's attribute fork, when it is one leaf
 * block at offset 0 (xfs_attr_is_leaf) whose entries all fit in short
 * form, goes back to short form the way the attribute code shrinks a
 * leaf (the block unmapped and freed, the fork removed if empty).
 */
static int attr_to_sf(struct xstate *s)
{
	struct xfsj_iref *ip = s->ip2;
	struct xfsj_bmbt_irec *ext;
	struct xfsj_attr_ctx c;
	size_t n;
	bool leaf;
	int err;

	if (!ip->di.forkoff || ip->di.aformat != XFSJ_DINODE_FMT_EXTENTS ||
	    xfsj_dinode_anextents(&ip->di) != 1)
		return 0;
	err = xfsj_bmap_read(s->fs, ip, XFSJ_ATTR_FORK, &ext, &n, s->f);
	if (err)
		return err;
	leaf = n == 1 && ext[0].startoff == 0 && ext[0].blockcount == 1;
	free(ext);
	if (!leaf)
		return 0;
	/* Block 0 read as a leaf (xfs_attr3_leaf_read): verified. */
	err = xfsj_attr_ctx_open(&c, s->fs, ip, s->f);
	if (!err && c.st != XFSJ_AF_LEAF)
		err = xfsj_fault_set(s->f, XFSJ_E_CORRUPT, "attr leaf",
				     "magic (block 0 of a one-block fork)",
				     ip->byte_off, ip->ino);
	if (!err)
		err = xfsj_attr_leaf_shrink(&c, false, s->f);
	xfsj_attr_ctx_close(&c);
	return err;
}

static uint64_t fsb_to_daddr(const struct xfsj_sb *sb, uint64_t fsb)
{
	return xfsj_agb_to_daddr(sb, xfsj_fsb_agno(sb, fsb),
				 xfsj_fsb_agbno(sb, fsb));
}

/* xfs_symlink_verify and xfs_symlink_hdr_ok on one buffer. */
static int symlink_check(struct xstate *s, const struct xfsj_buf *bp,
			 uint32_t offset, uint32_t cnt)
{
	uint64_t where = bp->daddr << XFSJ_BBSHIFT;
	struct xfsj_rmt_hdr h;
	struct xfsj_vctx c;
	int err;

	xfsj_fs_vctx(s->fs, 0, &c);
	err = xfsj_rmt_hdr_verify(bp->data, bp->len, XFSJ_SYMLINK_MAGIC,
				  c.uuid, bp->daddr, XFSJ_SYMLINK_MAXLEN,
				  "symlink", s->f);
	if (err)
		return err;
	xfsj_rmt_hdr_decode(bp->data, &h);
	if (h.owner == 0)
		return xfsj_fault_set(s->f, XFSJ_E_CORRUPT, "symlink", "owner",
				      where + XFSJ_RMT_OFF(owner), 0);
	if (h.offset != offset || h.bytes != cnt || h.owner != s->ip2->ino)
		return xfsj_fault_set(s->f, XFSJ_E_CORRUPT, "symlink",
				      "header (offset/bytes/owner)", where,
				      s->ip2->ino);
	return 0;
}

/*
 * xfs_symlink_remote_read: the blocks holding @len bytes, up to three
 * mappings, one buffer and one header per mapping.  The buffers read go
 * to @bps (to be invalidated with the blocks).
 */
static int symlink_read(struct xstate *s, const struct xfsj_bmbt_irec *ext,
			size_t n, uint8_t *buf, uint32_t len,
			struct xfsj_buf *bps[XFSJ_SYMLINK_MAPS],
			unsigned int *nbp)
{
	const struct xfsj_sb *sb = xfsj_fs_sb(s->fs);
	uint32_t space = sb->blocksize - XFSJ_RMT_HDR_SIZE;
	uint64_t fsblocks = (len + space - 1) / space, fblk = 0;
	uint32_t offset = 0;
	int err;

	*nbp = 0;
	for (unsigned int i = 0;
	     i < XFSJ_SYMLINK_MAPS && fblk < fsblocks; i++) {
		struct xfsj_bmbt_irec m;
		struct xfsj_buf *bp;
		uint64_t daddr;
		uint32_t bytes, cnt;

		map_at(ext, n, fblk, fsblocks - fblk, &m);
		if (m.startblock == HOLE)
			return xfsj_fault_set(s->f, XFSJ_E_CORRUPT, "symlink",
					      "target block (a hole)",
					      s->ip2->byte_off, fblk);
		daddr = fsb_to_daddr(sb, m.startblock);
		bytes = (uint32_t)m.blockcount << sb->blocklog;
		err = xfsj_buf_read(s->fs, daddr, bytes, &bp);
		if (err)
			return xfsj_fault_set(s->f, err, "symlink", "read",
					      daddr << 9, s->ip2->ino);
		bps[(*nbp)++] = bp;
		cnt = bytes - XFSJ_RMT_HDR_SIZE;
		if (cnt > len - offset)
			cnt = len - offset;
		err = symlink_check(s, bp, offset, cnt);
		if (err)
			return err;
		memcpy(buf + offset, bp->data + XFSJ_RMT_HDR_SIZE, cnt);
		offset += cnt;
		fblk += m.blockcount;
	}
	if (offset != len)
		return xfsj_fault_set(s->f, XFSJ_E_CORRUPT, "symlink",
				      "target (more than three mappings)",
				      s->ip2->byte_off, len);
	return 0;
}

/*
 * xfs_symlink_remote_truncate: xfs_bunmapi over the whole file, limited
 * to as many extents as the mappings read from offset 0 (at most three,
 * holes included) -- so more than three extents cannot all go, which is
 * corruption.  The blocks are freed the usual way (rmap, then refcount
 * or free work).
 */
static int symlink_truncate(struct xstate *s, size_t n)
{
	uint64_t done;

	if (n > XFSJ_SYMLINK_MAPS)
		return xfsj_fault_set(s->f, XFSJ_E_CORRUPT, "symlink",
				      "extents (truncation not done)",
				      s->ip2->byte_off, n);
	return xfsj_bmap_unmap(s->fs, s->ip2, XFSJ_DATA_FORK, 0, XFSJ_MAX_FILEOFF,
			       false, &done, s->f);
}

/*
 * xfs_exchmaps_link_to_sf: a symlink kept in blocks whose target fits in
 * the data fork gets it back inline; the size is the target's length.
 */
static int link_to_sf(struct xstate *s)
{
	struct xfsj_iref *ip = s->ip2;
	struct xfsj_buf *bps[XFSJ_SYMLINK_MAPS];
	struct xfsj_bmbt_irec *ext;
	unsigned int nbp = 0;
	uint32_t dsize, len;
	uint8_t *area = xfsj_ifork(s->fs, ip, XFSJ_DATA_FORK, &dsize);
	uint8_t *buf;
	size_t n;
	int err;

	if (ip->di.format == XFSJ_DINODE_FMT_LOCAL || ip->di.size > dsize)
		return 0;
	len = (uint32_t)ip->di.size;
	buf = malloc(len + 1);
	if (!buf)
		return -XFSJ_E_NOMEM;
	err = xfsj_bmap_read(s->fs, ip, XFSJ_DATA_FORK, &ext, &n, s->f);
	if (err)
		goto out_buf;
	err = symlink_read(s, ext, n, buf, len, bps, &nbp);
	if (!err)
		err = symlink_truncate(s, n);
	free(ext);
	if (err)
		goto out_buf;
	/* The blocks are gone: their buffers must not be written. */
	for (unsigned int i = 0; i < nbp; i++)
		xfsj_buf_forget(s->fs, bps[i]);
	/* Only the target's bytes are written, as an inode flush does. */
	ip->di.format = XFSJ_DINODE_FMT_LOCAL;
	memcpy(area, buf, len);
	xfsj_buf_dirty(ip->bp);
out_buf:
	free(buf);
	return err;
}

/* xfs_exchmaps_do_postop_work: the end of the exchange. */
static int postop(struct xstate *s)
{
	struct xmi *x = s->x;

	if (x->flags & XFSJ_XMI_INO2_SHORTFORM) {
		int err = 0;

		if (x->flags & XFSJ_XMI_ATTR_FORK)
			err = attr_to_sf(s);
		else if (S_ISDIR(s->ip2->di.mode))
			err = xfsj_fault_set(s->f, XFSJ_E_UNSUPP, ITEM,
					     "inode2 (directory to short form)",
					     s->ip2->byte_off, x->ino2);
		else if (S_ISLNK(s->ip2->di.mode))
			err = link_to_sf(s);
		x->flags &= ~XFSJ_XMI_INO2_SHORTFORM;
		if (err)
			return err;
	}
	if (x->flags & XFSJ_XMI_CLEAR_INO1_REFLINK) {
		s->ip1->di.flags2 &= ~XFSJ_DIFLAG2_REFLINK;
		x->flags &= ~XFSJ_XMI_CLEAR_INO1_REFLINK;
	}
	if (x->flags & XFSJ_XMI_CLEAR_INO2_REFLINK) {
		s->ip2->di.flags2 &= ~XFSJ_DIFLAG2_REFLINK;
		x->flags &= ~XFSJ_XMI_CLEAR_INO2_REFLINK;
	}
	return 0;
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
 * One call of xfs_exchmaps_finish_one on inodes @ip1 and @ip2 (the same
 * reference when the files are one): the next pair of mappings exchanged
 * through bmap work (and the sizes set once the range is done), or, once
 * it is, the end-of-exchange work; then the exchange queued again while
 * anything is left.
 */
static int step(struct xfsj_fs *fs, struct xmi *x, bool first,
		struct xfsj_iref *ip1, struct xfsj_iref *ip2,
		struct xfsj_fault *f)
{
	struct xstate s = { fs, NULL, ip1, ip2, x, f };
	struct xfsj_bmbt_irec r1, r2;
	struct xfsj_work next;
	bool queued = false;
	int err;

	if (x->blockcount > 0) {
		err = find_mappings(&s, &r1, &r2);
		if (err)
			return err;
		if (x->blockcount > 0) {
			struct xmi after = *x;

			/*
			 * Recovery's first step keeps the intent ahead of
			 * the work the step queues; later steps queue their
			 * work, then the intent again.
			 */
			advance(&after, r1.blockcount);
			if (first && xmi_more(&after)) {
				to_work(&after, false, &next);
				err = xfsj_defer_add(fs, &next);
				if (err)
					return err;
				queued = true;
			}
			err = one_step(&s, &r1, &r2);
			if (err)
				return err;
		}
		if ((x->flags & XFSJ_XMI_SET_SIZES) && x->blockcount == 0) {
			ip1->di.size = (uint64_t)x->isize1;
			ip2->di.size = (uint64_t)x->isize2;
		}
	} else if (x->flags & XMI_POSTOP) {
		err = postop(&s);
		if (err)
			return err;
	}
	if (!xmi_more(x) || queued)
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

	/*
	 * Not done here: a directory converted back to short form at the
	 * end, and sizes "set" on an attribute-fork exchange (to -1: the
	 * kernel never logs that).
	 */
	if ((x.flags & XFSJ_XMI_ATTR_FORK) && (x.flags & XFSJ_XMI_SET_SIZES))
		return xfsj_fault_set(f, XFSJ_E_UNSUPP, ITEM,
				      "flags (attribute fork with SET_SIZES)",
				      pi->lsn, x.flags);
	if (!(x.flags & XFSJ_XMI_ATTR_FORK) && S_ISDIR(ip2->di.mode))
		return xfsj_fault_set(f, XFSJ_E_UNSUPP, ITEM,
				      "inode2 (directory exchange)",
				      pi->lsn, x.ino2);

	/* The state the kernel rebuilds from the item and the inodes. */
	x.flags &= XMI_PARAMS;
	x.isize1 = x.isize2 = -1;
	if (x.flags & XFSJ_XMI_ATTR_FORK) {
		x.flags |= XFSJ_XMI_INO2_SHORTFORM;
	} else if (x.flags & XFSJ_XMI_SET_SIZES) {
		x.isize1 = (int64_t)ip2->di.size;
		x.isize2 = (int64_t)i1.di.size;
	}
	if (is_reflink(&i1))
		rs |= 1;
	if (is_reflink(ip2))
		rs |= 2;
	if (!(x.flags & XFSJ_XMI_ATTR_FORK)) {
		if ((rs == 1 || rs == 2) && x.startoff1 == 0 &&
		    x.startoff2 == 0 &&
		    x.blockcount == b_to_fsb(sb, i1.di.size) &&
		    x.blockcount == b_to_fsb(sb, ip2->di.size))
			x.flags |= rs == 1 ? XFSJ_XMI_CLEAR_INO1_REFLINK :
					     XFSJ_XMI_CLEAR_INO2_REFLINK;
		if (S_ISLNK(ip2->di.mode))
			x.flags |= XFSJ_XMI_INO2_SHORTFORM;
	}

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
