/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The inode stage's fixes of an inode core:
 *
 * - FIX_FIELD of the structures "inode" and "inode fork": the field set
 *   to the value the check expected where that value is the right one
 *   (a count the fork walk made, the allowed flags); otherwise to the
 *   safe value (the inode's own number, the filesystem's uuid, a hint 0
 *   with its flag cleared, nanoseconds clamped, the reflink flag set).
 *   An extent count past what the fork can hold is recounted from the
 *   records (extents format) or zeroed so that the next round's bmbt walk
 *   counts it (btree format).
 * - FIX_NLINK: the link count set to the entries that name the inode; an
 *   inode in use that nothing names is left for lost+found.
 * - FIX_CLEAR_INODE: the core freed as the kernel's ifree leaves it (mode
 *   0, forks empty, a valid header) and, when the inode btrees are sound
 *   and the chunk keeps another inode, marked free there too; its blocks
 *   are left leaked for the AG stage's free space rebuild to give back.  A
 *   directory or symlink whose format disagrees with its size keeps its
 *   format when the size its content says agrees (xfs_repair mends the
 *   size too).
 *
 * Inodes are read whether their verifier passes or not (xrp_iget): a core
 * with a bad uuid or number is what some of these fixes are for.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fs/bmap.h"
#include "fs/bmbt.h"
#include "fs/defer.h"
#include "fs/ialloc.h"
#include "fs/iget.h"
#include "ondisk/meta.h"
#include "core/crc32c.h"
#include "core/layout.h"
#include "repair/repair_priv.h"

#define NSEC_MASK	0xffffffffULL
#define DF_EXTSIZE	0x0800	/* XFS_DIFLAG_EXTSIZE */
#define DF_EXTSZINHERIT	0x1000	/* XFS_DIFLAG_EXTSZINHERIT */

int xrp_iget(struct xrp *rp, uint64_t ino, struct xfsj_iref *ip)
{
	struct xfsj_fault f = { 0 };
	int err = xfsj_iget(rp->fs, ino, true, ip, &f);

	if (!err)
		return 0;
	/* A verifier's refusal still leaves the inode's bytes at hand. */
	if (err == -XFSJ_E_IO || err == -XFSJ_E_NOMEM)
		return err;
	if (!ip->bp || !ip->dip)
		return 1;
	xfsj_dinode_decode(ip->dip, &ip->di);
	return 0;
}

static void ino_action_v(struct xrp *rp, struct xrp_prob *pr,
			 enum xfsj_fix fix, uint64_t ino,
			 const struct xfsj_repair_why *why, const char *fmt,
			 va_list ap)
{
	char what[160];

	vsnprintf(what, sizeof(what), fmt, ap);
	if (pr)
		pr->done = true;
	xrp_action(rp, &(struct xfsj_repair_action){
		.fix = fix, .problem = pr ? &pr->p : NULL,
		.has = XFSJ_PF_INO, .ino = ino, .what = what, .why = why });
}

void xrp_ino_action(struct xrp *rp, struct xrp_prob *pr, enum xfsj_fix fix,
		    uint64_t ino, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ino_action_v(rp, pr, fix, ino, NULL, fmt, ap);
	va_end(ap);
}

void xrp_ino_action_why(struct xrp *rp, struct xrp_prob *pr,
			enum xfsj_fix fix, uint64_t ino,
			const struct xfsj_repair_why *why, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ino_action_v(rp, pr, fix, ino, why, fmt, ap);
	va_end(ap);
}

/* ---- sizes ---- */

/* The bytes of a short-form directory, from its header (0: unknown). */
static uint64_t sf_dir_size(struct xrp *rp, struct xfsj_iref *ip)
{
	bool ftype = xfsj_fs_has_incompat(rp->fs, XFSJ_INCOMPAT_FTYPE);
	uint32_t size, pos, i;
	const uint8_t *f = xfsj_ifork(rp->fs, ip, XFSJ_DATA_FORK, &size);
	unsigned int count, i8, inosz;

	if (size < 6)
		return 0;
	count = f[0];
	i8 = f[1];
	inosz = i8 ? 8 : 4;
	pos = 2 + inosz;
	for (i = 0; i < count && pos < size; i++)
		pos += 3 + f[pos] + (ftype ? 1 : 0) + inosz;
	return i == count && pos <= size ? pos : 0;
}

/* The end of the last mapping of an extents data fork below @limit. */
static uint64_t mapped_end(struct xrp *rp, struct xfsj_iref *ip,
			   uint64_t limit)
{
	uint64_t n = xfsj_dinode_nextents(&ip->di), i, end = 0;
	uint32_t size;
	const uint8_t *f = xfsj_ifork(rp->fs, ip, XFSJ_DATA_FORK, &size);

	if (ip->di.format != XFSJ_DINODE_FMT_EXTENTS)
		return 0;
	for (i = 0; i < n && (i + 1) * XFSJ_BMBT_REC_SIZE <= size; i++) {
		struct xfsj_bmbt_irec m;

		xfsj_bmbt_rec_decode(f + i * XFSJ_BMBT_REC_SIZE, &m);
		if (m.startoff + m.blockcount <= limit &&
		    m.startoff + m.blockcount > end)
			end = m.startoff + m.blockcount;
	}
	return end;
}

/*
 * A remote symlink's target length: the bytes its blocks' headers hold,
 * each block verified and owned by the inode (0: unknown).
 */
static uint64_t remote_link_size(struct xrp *rp, struct xfsj_iref *ip)
{
	const struct xfsj_sb *sb = rp->sb;
	struct xfsj_fault f = { 0 };
	struct xfsj_bmbt_irec *map;
	uint64_t total = 0, b;
	size_t n, i;

	if (xfsj_bmap_read(rp->fs, ip, XFSJ_DATA_FORK, &map, &n, &f))
		return 0;
	for (i = 0; i < n && total <= XFSJ_SYMLINK_MAXLEN; i++)
		for (b = 0; b < map[i].blockcount &&
		     total <= XFSJ_SYMLINK_MAXLEN; b++) {
			uint64_t daddr = xfsj_fsb_daddr(sb,
						map[i].startblock + b);
			struct xfsj_rmt_hdr h;
			struct xfsj_buf *bp;

			if (xfsj_buf_read(rp->fs, daddr, sb->blocksize, &bp) ||
			    xfsj_rmt_hdr_verify(bp->data, sb->blocksize,
				XFSJ_SYMLINK_MAGIC, xfsj_meta_fs_uuid(sb),
				daddr, XFSJ_SYMLINK_MAXLEN + 1, "symlink",
				&f)) {
				total = 0;
				goto out;
			}
			xfsj_rmt_hdr_decode(bp->data, &h);
			if (h.owner != ip->ino || h.offset != total) {
				total = 0;
				goto out;
			}
			total += h.bytes;
		}
out:
	free(map);
	return total <= XFSJ_SYMLINK_MAXLEN ? total : 0;
}

/* inode.size: the size the inode's content says, or 0 when unknown. */
static uint64_t right_size(struct xrp *rp, struct xfsj_iref *ip,
			   const struct xfsj_problem *p)
{
	const struct xfsj_sb *sb = rp->sb;
	uint32_t size;
	const uint8_t *f;

	switch (ip->di.mode & S_IFMT) {
	case S_IFDIR:
		if (ip->di.format == XFSJ_DINODE_FMT_LOCAL)
			return sf_dir_size(rp, ip);
		/* The data blocks sit below the leaf space (32 GiB). */
		return mapped_end(rp, ip, (32ULL << 30) >> sb->blocklog) <<
		       sb->blocklog;
	case S_IFLNK:
		if (ip->di.format != XFSJ_DINODE_FMT_LOCAL)
			return remote_link_size(rp, ip);
		f = xfsj_ifork(rp->fs, ip, XFSJ_DATA_FORK, &size);
		return strnlen((const char *)f, size);
	case S_IFREG:
		return mapped_end(rp, ip, UINT64_MAX) << sb->blocklog;
	default:
		return p->expected;	/* devices, fifos, sockets: 0 */
	}
}

/* ---- one field ---- */

/* The timestamp the check's field names. */
static uint64_t *time_field(struct xfsj_dinode *di, const char *name)
{
	static const char *const names[] = { "atime", "mtime", "ctime",
					     "crtime" };
	uint64_t *t[] = { &di->atime, &di->mtime, &di->ctime, &di->crtime };
	size_t i;

	for (i = 0; name && i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(names[i], name))
			return t[i];
	return NULL;
}

/*
 * One field's fix: change @ip->di for problem @p and say what in @what
 * (the caller names the inode).  Returns false when the right value is
 * not known (the problem is left).
 */
typedef bool (*field_fix)(struct xrp *rp, const struct xfsj_problem *p,
			  struct xfsj_iref *ip, char *what, size_t len);

static bool fix_ino(struct xrp *rp, const struct xfsj_problem *p,
		    struct xfsj_iref *ip, char *what, size_t len)
{
	(void)p;
	ip->di.ino = ip->ino;
	/*
	 * The check read nothing of an inode whose number is wrong (a
	 * directory's entries, the blocks it owns): what it found of them
	 * is stale, the next round checks again.
	 */
	rp->recheck = true;
	snprintf(what, len, "set di_ino to the inode's number");
	return true;
}

static bool fix_uuid(struct xrp *rp, const struct xfsj_problem *p,
		     struct xfsj_iref *ip, char *what, size_t len)
{
	(void)p;
	memcpy(ip->di.uuid, xfsj_meta_fs_uuid(rp->sb), sizeof(ip->di.uuid));
	rp->recheck = true;	/* as for di_ino */
	snprintf(what, len, "set the uuid to the filesystem's");
	return true;
}

/* fork.nextents: the mappings the fork holds (the check counted them). */
static bool fix_count(struct xrp *rp, const struct xfsj_problem *p,
		      struct xfsj_iref *ip, char *what, size_t len)
{
	bool attr = p->field && strstr(p->field, "anextents");

	(void)rp;
	xfsj_dinode_set_nextents(&ip->di, attr, p->expected);
	snprintf(what, len, "set %s to %llu", attr ? "anextents" : "nextents",
		 (unsigned long long)p->expected);
	return true;
}

/* big_nextents without the large extent counters flag. */
static bool fix_big(struct xrp *rp, const struct xfsj_problem *p,
		    struct xfsj_iref *ip, char *what, size_t len)
{
	(void)p;
	if (xfsj_fs_has_incompat(rp->fs, XFSJ_INCOMPAT_NREXT64)) {
		/*
		 * The counts are laid out large: the flag is what was lost.
		 * The check read the forks with the small counts, so what
		 * it found in them (a directory's entries, the blocks'
		 * owners) is stale: the next round checks again.
		 */
		ip->di.flags2 |= XFSJ_DIFLAG2_NREXT64;
		rp->recheck = true;
		snprintf(what, len, "set the large extent counters flag");
	} else {
		ip->di.big_nextents = 0;
		snprintf(what, len, "cleared big_nextents");
	}
	return true;
}

static bool fix_nblocks(struct xrp *rp, const struct xfsj_problem *p,
			struct xfsj_iref *ip, char *what, size_t len)
{
	(void)rp;
	ip->di.nblocks = p->expected;
	snprintf(what, len, "set nblocks to %llu",
		 (unsigned long long)p->expected);
	return true;
}

/* flags, flags2: the allowed bits the check kept. */
static bool fix_flags(struct xrp *rp, const struct xfsj_problem *p,
		      struct xfsj_iref *ip, char *what, size_t len)
{
	bool two = p->def->handler == XFSJ_H_INODE_FLAGS2;

	(void)rp;
	if (two)
		ip->di.flags2 = p->expected;
	else
		ip->di.flags = (uint16_t)p->expected;
	snprintf(what, len, "set %s to %#llx", two ? "flags2" : "flags",
		 (unsigned long long)p->expected);
	return true;
}

static bool fix_size(struct xrp *rp, const struct xfsj_problem *p,
		     struct xfsj_iref *ip, char *what, size_t len)
{
	uint16_t type = ip->di.mode & S_IFMT;
	uint64_t v = right_size(rp, ip, p);

	if (!v && (type == S_IFDIR || type == S_IFLNK))
		return false;
	ip->di.size = v;
	snprintf(what, len, "set the size to %llu", (unsigned long long)v);
	return true;
}

/* A hint: 0, and its flag cleared. */
static bool fix_hint(struct xrp *rp, const struct xfsj_problem *p,
		     struct xfsj_iref *ip, char *what, size_t len)
{
	bool cow = p->def->handler == XFSJ_H_INODE_COWEXTSIZE;

	(void)rp;
	if (cow) {
		ip->di.cowextsize = 0;
		ip->di.flags2 &= ~XFSJ_DIFLAG2_COWEXTSIZE;
	} else {
		ip->di.extsize = 0;
		ip->di.flags &= (uint16_t)~(DF_EXTSIZE | DF_EXTSZINHERIT);
	}
	snprintf(what, len, "cleared the %sextent size hint",
		 cow ? "CoW " : "");
	return true;
}

static bool fix_onlink(struct xrp *rp, const struct xfsj_problem *p,
		       struct xfsj_iref *ip, char *what, size_t len)
{
	(void)rp;
	(void)p;
	ip->di.onlink = 0;
	snprintf(what, len, "cleared the old link count");
	return true;
}

/* inode.nsec: clamped; inode.time: cleared. */
static bool fix_time(struct xrp *rp, const struct xfsj_problem *p,
		     struct xfsj_iref *ip, char *what, size_t len)
{
	uint64_t *t = time_field(&ip->di, p->field);

	(void)rp;
	if (!t)
		return false;
	if (p->def->handler == XFSJ_H_INODE_NSEC) {
		*t = (*t & ~NSEC_MASK) | (p->expected & NSEC_MASK);
		snprintf(what, len, "set the %s nanoseconds to %llu",
			 p->field, (unsigned long long)p->expected);
	} else {
		*t = 0;
		snprintf(what, len, "cleared the %s", p->field);
	}
	return true;
}

static bool fix_reflink(struct xrp *rp, const struct xfsj_problem *p,
			struct xfsj_iref *ip, char *what, size_t len)
{
	(void)rp;
	(void)p;
	ip->di.flags2 |= XFSJ_DIFLAG2_REFLINK;
	snprintf(what, len, "set the reflink flag");
	return true;
}

static const struct {
	enum xfsj_handler h;
	field_fix fix;
} field_fixes[] = {
	{ XFSJ_H_INODE_INO, fix_ino },
	{ XFSJ_H_INODE_UUID, fix_uuid },
	{ XFSJ_H_FORK_NEXTENTS, fix_count },
	{ XFSJ_H_INODE_BIG_NEXTENTS, fix_big },
	{ XFSJ_H_INODE_NBLOCKS, fix_nblocks },
	{ XFSJ_H_INODE_FLAGS, fix_flags },
	{ XFSJ_H_INODE_FLAGS2, fix_flags },
	{ XFSJ_H_INODE_SIZE, fix_size },
	{ XFSJ_H_INODE_EXTSIZE, fix_hint },
	{ XFSJ_H_INODE_COWEXTSIZE, fix_hint },
	{ XFSJ_H_INODE_ONLINK, fix_onlink },
	{ XFSJ_H_INODE_NSEC, fix_time },
	{ XFSJ_H_INODE_TIME, fix_time },
	{ XFSJ_H_INODE_REFLINK, fix_reflink },
};

int xrp_field_inode(struct xrp *rp, struct xrp_prob *pr)
{
	struct xfsj_iref ip;
	char what[112];
	size_t i;
	int err;

	if (!(pr->p.has & XFSJ_PF_INO))
		return 0;
	for (i = 0; i < sizeof(field_fixes) / sizeof(field_fixes[0]); i++)
		if (xrp_names(pr, field_fixes[i].h))
			break;
	if (i == sizeof(field_fixes) / sizeof(field_fixes[0]))
		return 0;
	err = xrp_iget(rp, pr->p.ino, &ip);
	if (err)
		return err < 0 ? err : 0;
	if (!field_fixes[i].fix(rp, &pr->p, &ip, what, sizeof(what)))
		return 0;
	xfsj_iput(rp->fs, &ip, false);
	xrp_ino_action(rp, pr, XFSJ_FIX_FIELD, pr->p.ino, "inode %llu: %s",
		       (unsigned long long)pr->p.ino, what);
	return 0;
}

/* ---- link counts ---- */

int xrp_fix_nlink(struct xrp *rp)
{
	struct xrp_prob *pr;
	struct xfsj_iref ip;
	int err;

	xrp_for_each(rp, pr, XFSJ_FIX_NLINK) {
		const struct xck_inode *st;
		uint64_t want;

		if (!(pr->p.has & XFSJ_PF_INO))
			continue;
		st = xck_inode_find(rp->ck, pr->p.ino, NULL);
		if (!st || !(st->flags & XCK_I_INUSE))
			continue;
		/* The entries that name it (inode.nlink_zero carries 1,
		 * "at least one", not a count). */
		want = xrp_names(pr, XFSJ_H_NLINK) ? pr->p.expected : st->refs;
		if (!want)
			continue;	/* named by nothing: lost+found */
		err = xrp_iget(rp, pr->p.ino, &ip);
		if (err < 0)
			return err;
		if (err)
			continue;
		if (ip.di.nlink == want) {
			pr->done = true;	/* a problem before did it */
			continue;
		}
		ip.di.nlink = (uint32_t)want;
		xfsj_iput(rp->fs, &ip, false);
		xrp_ino_action(rp, pr, XFSJ_FIX_NLINK, pr->p.ino,
			       "set nlink of inode %llu to %llu",
			       (unsigned long long)pr->p.ino,
			       (unsigned long long)want);
	}
	return 0;
}

/* ---- clearing an inode ---- */

/* The core of a free inode, as the kernel's ifree leaves it. */
static void free_core(struct xrp *rp, struct xfsj_iref *ip)
{
	const struct xfsj_sb *sb = rp->sb;
	struct xfsj_dinode *di = &ip->di;
	uint32_t gen = di->gen + 1;
	uint64_t lsn = di->lsn;

	memset(di, 0, sizeof(*di));
	di->magic = XFSJ_DINODE_MAGIC;
	di->version = 3;
	di->format = XFSJ_DINODE_FMT_EXTENTS;
	di->aformat = XFSJ_DINODE_FMT_EXTENTS;
	di->gen = gen;
	di->lsn = lsn;
	di->next_unlinked = XFSJ_NULLAGINO;
	di->ino = ip->ino;
	memcpy(di->uuid, xfsj_meta_fs_uuid(sb), sizeof(di->uuid));
	if (sb->features_incompat & XFSJ_INCOMPAT_BIGTIME)
		di->flags2 |= XFSJ_DIFLAG2_BIGTIME;
	if (sb->features_incompat & XFSJ_INCOMPAT_NREXT64)
		di->flags2 |= XFSJ_DIFLAG2_NREXT64;
	/* The forks' bytes go too. */
	memset(ip->dip + XFSJ_DINODE_CORE_SIZE, 0,
	       sb->inodesize - XFSJ_DINODE_CORE_SIZE);
}

int xrp_inode_make_free(struct xrp *rp, uint64_t ino)
{
	struct xfsj_iref ip;
	int err = xrp_iget(rp, ino, &ip);

	if (err)
		return err < 0 ? err : 0;
	free_core(rp, &ip);
	xfsj_iput(rp->fs, &ip, false);
	return 0;
}

/* Does a directory's or symlink's format agree with its size? */
static bool format_fits(const struct xfsj_dinode *di, uint32_t dsize)
{
	if (di->format == XFSJ_DINODE_FMT_LOCAL)
		return di->size && di->size <= dsize;
	if (di->format != XFSJ_DINODE_FMT_EXTENTS &&
	    di->format != XFSJ_DINODE_FMT_BTREE)
		return false;
	if ((di->mode & S_IFMT) == S_IFLNK)
		return di->format == XFSJ_DINODE_FMT_EXTENTS ||
		       di->size > dsize;
	return di->size > dsize;
}

/*
 * inode.format of a directory or symlink whose size, not its format, is
 * wrong: the size its content says makes the format right, and the inode
 * is kept (the next round checks it whole).  Returns 1 when the inode was
 * kept, 0 when it must be cleared.
 */
static int size_rescue(struct xrp *rp, struct xrp_prob *pr,
		       struct xfsj_iref *ip)
{
	uint16_t type = ip->di.mode & S_IFMT;
	uint64_t old = ip->di.size, v;
	uint32_t dsize;

	if (!xrp_names(pr, XFSJ_H_INODE_FORMAT) ||
	    (type != S_IFDIR && type != S_IFLNK))
		return 0;
	xfsj_ifork(rp->fs, ip, XFSJ_DATA_FORK, &dsize);
	if (format_fits(&ip->di, dsize)) {
		pr->done = true;	/* a size fix before this one did it */
		return 1;
	}
	v = right_size(rp, ip, &pr->p);
	ip->di.size = v;
	if (!v || !format_fits(&ip->di, dsize)) {
		ip->di.size = old;
		return 0;
	}
	xfsj_iput(rp->fs, ip, false);
	xrp_ino_action(rp, pr, XFSJ_FIX_FIELD, ip->ino,
		       "set the size of inode %llu to %llu, which its format "
		       "and content say", (unsigned long long)ip->ino,
		       (unsigned long long)v);
	return 1;
}

/*
 * inode.meta of an inode a directory entry names: the superblock's
 * pointer is what is wrong, not the file.
 */
static bool named_meta(struct xrp *rp, const struct xrp_prob *pr)
{
	const struct xck_inode *st;

	if (!xrp_names(pr, XFSJ_H_INODE_META))
		return false;
	st = xck_inode_find(rp->ck, pr->p.ino, NULL);
	return st && (st->refs || (st->flags & XCK_I_INDIR));
}

/*
 * The cleared inode marked free in the inobt, the finobt and the AGI, as
 * the kernel's ifree does, when those trees were read whole and sound and
 * the chunk keeps another inode in use (a chunk that would go free, or a
 * tree in doubt, is left for the AG stage's inobt rebuild).  Returns 0
 * or a negative XFSJ_E_* (I/O, memory).
 */
static int free_in_btrees(struct xrp *rp, uint64_t ino)
{
	const struct xfsj_sb *sb = rp->sb;
	uint32_t agno = xfsj_ino_agno(sb, ino);
	uint32_t agino = xfsj_ino_agino(sb, ino);
	struct xfsj_difree_res res;
	struct xfsj_fault f = { 0 };
	struct xck_chunk *c;
	uint64_t others;
	int err;

	if (agno >= rp->ck->agcount || !xck_inode_find(rp->ck, ino, &c) || !c)
		return 0;
	if (!xck_ag_trusted(rp->ck, agno, XCK_TRUST_INODES))
		return 0;
	if (agino < c->rec.startino ||
	    agino >= c->rec.startino + XFSJ_INODES_PER_CHUNK ||
	    (c->rec.free >> (agino - c->rec.startino) & 1))
		return 0;	/* already free there */
	others = ~c->rec.free & ~(1ULL << (agino - c->rec.startino));
	if (!others)
		return 0;	/* the chunk would go */
	err = xfsj_difree(rp->fs, agno, agino, &res, &f);
	if (!err && res.chunk_freed)
		err = xfsj_defer_finish(rp->fs, &f);
	if (err == -XFSJ_E_IO || err == -XFSJ_E_NOMEM)
		return err;
	return 0;
}

/*
 * An inode whose only damage is in its header: the magic, the version
 * (3 on a v5 filesystem) or the CRC.  With "IN" and version 3 put back
 * and the CRC recomputed (a fuzzer or a bit flip before the CRC leaves
 * the one or the other wrong), it passes the kernel's verifier, so it is
 * kept as xfs_repair keeps it.  Returns 1 when the inode was kept.
 */
static int header_rescue(struct xrp *rp, struct xrp_prob *pr,
			 struct xfsj_iref *ip)
{
	uint32_t isz = rp->sb->inodesize;
	const char *what = "magic, version and CRC put back";
	struct xfsj_vctx c;
	uint8_t *tmp;
	int bad;

	if (!xrp_names(pr, XFSJ_H_INODE_HEADER))
		return 0;
	tmp = malloc(isz);
	if (!tmp)
		return -XFSJ_E_NOMEM;
	memcpy(tmp, ip->dip, isz);
	xfsj_put_be16(tmp + XFSJ_DI_OFF(magic), XFSJ_DINODE_MAGIC);
	tmp[XFSJ_DI_OFF(version)] = 3;
	xfsj_dinode_finish(tmp, isz);
	xfsj_fs_vctx(rp->fs, xfsj_ino_agno(rp->sb, pr->p.ino), &c);
	bad = xfsj_dinode_verify(tmp, &c, pr->p.ino, ip->byte_off, NULL);
	if (!bad)
		memcpy(ip->dip, tmp, isz);
	free(tmp);
	if (bad)
		return 0;
	xfsj_buf_dirty(ip->bp);
	rp->recheck = true;
	xrp_ino_action(rp, pr, XFSJ_FIX_FIELD, pr->p.ino,
		       "inode %llu: %s (the rest passes the verifier)",
		       (unsigned long long)pr->p.ino, what);
	return 1;
}

/* Does inode @ino have a problem other than @pr this round still to fix? */
static bool other_problem(struct xrp *rp, const struct xrp_prob *pr)
{
	const struct xrp_prob *o;

	for (o = rp->probs; o < rp->probs + rp->nprobs; o++)
		if (o != pr && !o->done && (o->p.has & XFSJ_PF_INO) &&
		    o->p.ino == pr->p.ino &&
		    xrp_stage_of(o->p.def) == rp->stage &&
		    o->p.def != pr->p.def)
			return true;
	return false;
}

/*
 * symlink.crc alone: a remote target whose blocks' headers, lengths and
 * bytes all pass and only a CRC is wrong keeps its blocks, each buffer
 * (one a mapping, as the kernel reads it) restamped by the flush, as
 * xfs_repair corrects the CRC.  Returns 1 when the symlink was kept.
 */
static int symlink_crc_rescue(struct xrp *rp, struct xrp_prob *pr,
			      struct xfsj_iref *ip)
{
	const struct xfsj_sb *sb = rp->sb;
	struct xfsj_fault f = { 0 };
	struct xfsj_bmbt_irec *map;
	size_t n, i, fixed = 0;
	int err = 0;

	if (!xrp_names(pr, XFSJ_H_SYMLINK_CRC) || other_problem(rp, pr) ||
	    (ip->di.mode & S_IFMT) != S_IFLNK ||
	    ip->di.format != XFSJ_DINODE_FMT_EXTENTS)
		return 0;
	if (xfsj_bmap_read(rp->fs, ip, XFSJ_DATA_FORK, &map, &n, &f))
		return 0;
	for (i = 0; i < n; i++) {
		uint64_t bytes = map[i].blockcount * (uint64_t)sb->blocksize;
		struct xfsj_buf *bp;

		if (bytes > XFSJ_SYMLINK_MAXLEN + (uint64_t)sb->blocksize)
			break;
		err = xfsj_buf_read(rp->fs,
				    xfsj_fsb_daddr(sb, map[i].startblock),
				    (uint32_t)bytes, &bp);
		if (err)
			break;
		if (xfsj_get_be32(bp->data) == XFSJ_SYMLINK_MAGIC &&
		    !xfsj_cksum_ok(bp->data, bytes, XFSJ_RMT_OFF(crc))) {
			xfsj_buf_dirty(bp);
			fixed++;
		}
	}
	free(map);
	if (err == -XFSJ_E_IO || err == -XFSJ_E_NOMEM)
		return err;
	if (err || !fixed)
		return 0;
	xrp_ino_action(rp, pr, XFSJ_FIX_FIELD, pr->p.ino,
		       "symlink %llu: CRC of %zu block(s) recomputed (the "
		       "rest passes)", (unsigned long long)pr->p.ino, fixed);
	return 1;
}

int xrp_fix_clear_inode(struct xrp *rp)
{
	struct xrp_prob *pr, *other;
	struct xfsj_iref ip;
	int err;

	xrp_for_each(rp, pr, XFSJ_FIX_CLEAR_INODE) {
		if (pr->done || !(pr->p.has & XFSJ_PF_INO) ||
		    named_meta(rp, pr))
			continue;
		err = xrp_iget(rp, pr->p.ino, &ip);
		if (err < 0)
			return err;
		if (err || size_rescue(rp, pr, &ip))
			continue;
		err = header_rescue(rp, pr, &ip);
		if (!err)
			err = symlink_crc_rescue(rp, pr, &ip);
		if (err < 0)
			return err;
		if (err)
			continue;
		free_core(rp, &ip);
		xfsj_iput(rp->fs, &ip, false);
		err = free_in_btrees(rp, pr->p.ino);
		if (err)
			return err;
		xrp_ino_action(rp, pr, XFSJ_FIX_CLEAR_INODE, pr->p.ino,
			       "cleared inode %llu (%s)",
			       (unsigned long long)pr->p.ino, pr->p.def->code);
		/* One clearing answers every problem of the inode. */
		for (other = rp->probs; other < rp->probs + rp->nprobs;
		     other++)
			if ((other->p.has & XFSJ_PF_INO) &&
			    other->p.ino == pr->p.ino &&
			    xrp_stage_of(other->p.def) == rp->stage)
				other->done = true;
	}
	return 0;
}
