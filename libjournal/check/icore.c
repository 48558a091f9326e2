/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The fields of an inode core, one rule at a time: the rules of the
 * kernel's inode verifier (xfs_dinode_verify and the fork, fork offset,
 * extent size hint checks it calls) and those xfs_repair adds (flags on
 * the wrong file type, nanoseconds, the unlinked pointer).  Each broken
 * rule is reported on its own; the checks go on after one fails unless
 * what follows would read the forks through a bad format or offset.
 */
#include <string.h>
#include <sys/stat.h>

#include "check/inode_priv.h"
#include "core/crc32c.h"
#include "fs/iget.h"

/* di_flags bits (xfs_format.h's XFS_DIFLAG_*). */
enum {
	DF_RTINHERIT	= 0x0100,
	DF_PROJINHERIT	= 0x0200,
	DF_NOSYMLINKS	= 0x0400,
	DF_EXTSIZE	= 0x0800,
	DF_EXTSZINHERIT	= 0x1000,
	DF_ALL		= 0x7fff,
};

/* di_flags2 bits. */
enum {
	DF2_DAX		= 0x01,
	DF2_METADATA	= 0x20,
	DF2_ALL		= 0x3f,
};

#define NSEC_PER_SEC		1000000000U
#define DEV_FORKOFF		1	/* a dev_t rounded up to 8 bytes */

static bool has_incompat(const struct xck *ck, uint32_t bit)
{
	return ck->sb->features_incompat & bit;
}

static bool has_ro(const struct xck *ck, uint32_t bit)
{
	return ck->sb->features_ro_compat & bit;
}

bool xck_icore_header(struct xck *ck, const struct xck_icheck *ic)
{
	const struct xfsj_dinode *di = &ic->di;
	const uint8_t *uuid = ck->sb->uuid;
	bool ok = true;

	if (has_incompat(ck, XFSJ_INCOMPAT_META_UUID))
		uuid = ck->sb->meta_uuid;
	if (di->magic != XFSJ_DINODE_MAGIC) {
		/* Nothing else of a slot without its magic is believed. */
		xck_ino_report(ck, INO_MAGIC, ic->ino, "magic",
			       XFSJ_DINODE_MAGIC, di->magic);
		return false;
	}
	if (di->version != 3) {
		xck_ino_report(ck, INO_VERSION, ic->ino, "version", 3,
			       di->version);
		ok = false;
	}
	if (!xfsj_cksum_ok(ic->dip, ck->sb->inodesize, XFSJ_DINODE_CRC_OFF)) {
		xck_ino_report(ck, INO_CRC, ic->ino, "crc",
			       xfsj_cksum(ic->dip, ck->sb->inodesize,
					       XFSJ_DINODE_CRC_OFF), di->crc);
		ok = false;
	}
	if (di->ino != ic->ino) {
		xck_ino_report(ck, INO_INUM, ic->ino, "ino", ic->ino, di->ino);
		ok = false;
	}
	if (memcmp(di->uuid, uuid, 16)) {
		xck_ino_report(ck, INO_UUID, ic->ino, "uuid", 0, 0);
		ok = false;
	}
	return ok;
}

/* The data fork format a file type allows (kernel: verify_fork). */
static bool format_ok(const struct xfsj_dinode *di, uint32_t dsize)
{
	switch (di->mode & S_IFMT) {
	case S_IFREG:
		return di->format == XFSJ_DINODE_FMT_EXTENTS ||
		       di->format == XFSJ_DINODE_FMT_BTREE;
	case S_IFDIR:
		/* A directory that fits in the inode is kept there. */
		if (di->size <= dsize)
			return di->format == XFSJ_DINODE_FMT_LOCAL;
		return di->format == XFSJ_DINODE_FMT_EXTENTS ||
		       di->format == XFSJ_DINODE_FMT_BTREE;
	case S_IFLNK:
		/* A short target may sit in a block after an attr fork
		 * came and went. */
		if (di->size <= dsize)
			return di->format == XFSJ_DINODE_FMT_LOCAL ||
			       di->format == XFSJ_DINODE_FMT_EXTENTS;
		return di->format == XFSJ_DINODE_FMT_EXTENTS ||
		       di->format == XFSJ_DINODE_FMT_BTREE;
	default:
		return di->format == XFSJ_DINODE_FMT_DEV;
	}
}

/* Fork offset and the formats (the extent counts: forks.c). */
static bool check_forks(struct xck *ck, struct xck_icheck *ic)
{
	const struct xfsj_dinode *di = &ic->di;
	uint32_t lit = ck->sb->inodesize - XFSJ_DINODE_CORE_SIZE;
	bool big = di->flags2 & XFSJ_DIFLAG2_NREXT64;
	uint32_t dsize, asize;
	bool ok = true;

	if (di->forkoff &&
	    (di->format == XFSJ_DINODE_FMT_DEV ? di->forkoff != DEV_FORKOFF
					       : di->forkoff * 8U >= lit)) {
		xck_ino_report(ck, INO_FORKOFF, ic->ino, "forkoff",
			       lit / 8 - 1, di->forkoff);
		return false;
	}
	dsize = di->forkoff ? di->forkoff * 8U : lit;
	asize = di->forkoff ? lit - dsize : 0;
	ic->fork[XFSJ_DATA_FORK] = ic->dip + XFSJ_DINODE_CORE_SIZE;
	ic->forksize[XFSJ_DATA_FORK] = dsize;
	ic->fork[XFSJ_ATTR_FORK] = asize ? ic->fork[0] + dsize : NULL;
	ic->forksize[XFSJ_ATTR_FORK] = asize;

	if (!format_ok(di, dsize)) {
		xck_ino_report(ck, INO_FORMAT, ic->ino, "format", 0,
			       di->format);
		ok = false;
	}
	if (!big && di->big_nextents) {
		xck_ino_report(ck, INO_BIGNEXT, ic->ino, "big_nextents", 0,
			       di->big_nextents);
		ok = false;
	}
	/* (The extent counts: one rule, the forks' walk's.) */
	if (!di->forkoff) {
		/*
		 * No attr fork: the kernel's verifier also takes 0 (a core
		 * never used), but an inode in use always says extents, and
		 * xfs_repair holds it to that.
		 */
		if (di->aformat != XFSJ_DINODE_FMT_EXTENTS) {
			xck_ino_report(ck, INO_AFORMAT, ic->ino, "aformat",
				       XFSJ_DINODE_FMT_EXTENTS, di->aformat);
			ok = false;
		}
		return ok;
	}
	if (di->aformat != XFSJ_DINODE_FMT_LOCAL &&
	    di->aformat != XFSJ_DINODE_FMT_EXTENTS &&
	    di->aformat != XFSJ_DINODE_FMT_BTREE) {
		xck_ino_report(ck, INO_AFORMAT, ic->ino, "aformat",
			       XFSJ_DINODE_FMT_LOCAL, di->aformat);
		ok = false;
	}
	return ok;
}

/* A hint in blocks: legal size, and only with its flag (kernel rules). */
static void check_hint(struct xck *ck, const struct xck_icheck *ic, int row,
		       const char *field, uint32_t hint, bool flag, bool legal)
{
	uint64_t max = XFSJ_BMBT_MAX_EXTLEN;

	if (!(ic->di.flags & XFSJ_DIFLAG_REALTIME) && ck->sb->agblocks / 2 < max)
		max = ck->sb->agblocks / 2;
	if (flag && !legal)
		xck_ino_report(ck, row, ic->ino, field, 0, hint);
	else if (flag && hint == 0)
		xck_ino_report(ck, row, ic->ino, field, 1, hint);
	else if (!flag && hint != 0)
		xck_ino_report(ck, row, ic->ino, field, 0, hint);
	else if (hint > max)
		xck_ino_report(ck, row, ic->ino, field, max, hint);
}

static void check_flags(struct xck *ck, const struct xck_icheck *ic)
{
	const struct xfsj_dinode *di = &ic->di;
	uint16_t type = di->mode & S_IFMT;
	bool reg = type == S_IFREG, dir = type == S_IFDIR;
	uint16_t fl = di->flags;
	uint64_t fl2 = di->flags2;
	uint16_t dironly = DF_RTINHERIT | DF_PROJINHERIT | DF_NOSYMLINKS |
			   DF_EXTSZINHERIT;
	uint64_t fl2_ok = DF2_ALL;

	if (fl & ~DF_ALL)
		xck_ino_report(ck, INO_FLAGS, ic->ino, "flags",
			       fl & DF_ALL, fl);
	else if (!dir && (fl & dironly))
		xck_ino_report(ck, INO_FLAGS, ic->ino, "flags",
			       fl & ~dironly, fl);
	else if ((fl & DF_EXTSIZE) && !reg)
		xck_ino_report(ck, INO_FLAGS, ic->ino, "flags",
			       fl & ~DF_EXTSIZE, fl);
	else if ((fl & XFSJ_DIFLAG_NEWRTBM) && ic->ino != ck->sb->rbmino)
		/* The realtime bitmap's format flag (xfs_repair's rule). */
		xck_ino_report(ck, INO_FLAGS, ic->ino, "flags",
			       fl & ~XFSJ_DIFLAG_NEWRTBM, fl);
	else if ((fl & XFSJ_DIFLAG_REALTIME) && (ck->sb->rblocks == 0 || !reg))
		/* No realtime device: nothing can live on it. */
		xck_ino_report(ck, INO_FLAGS, ic->ino, "flags",
			       fl & ~XFSJ_DIFLAG_REALTIME, fl);

	if (!has_incompat(ck, XFSJ_INCOMPAT_BIGTIME))
		fl2_ok &= ~XFSJ_DIFLAG2_BIGTIME;
	if (!has_incompat(ck, XFSJ_INCOMPAT_NREXT64))
		fl2_ok &= ~XFSJ_DIFLAG2_NREXT64;
	if (!has_incompat(ck, XFSJ_INCOMPAT_METADIR))
		fl2_ok &= ~DF2_METADATA;
	if (!has_ro(ck, XFSJ_RO_COMPAT_REFLINK))
		fl2_ok &= ~(XFSJ_DIFLAG2_REFLINK | XFSJ_DIFLAG2_COWEXTSIZE);
	if (!reg)
		fl2_ok &= ~XFSJ_DIFLAG2_REFLINK;
	if (!reg && !dir)
		fl2_ok &= ~(XFSJ_DIFLAG2_COWEXTSIZE | DF2_DAX);
	if (fl & XFSJ_DIFLAG_REALTIME)
		fl2_ok &= ~XFSJ_DIFLAG2_REFLINK;
	if (fl2 & ~fl2_ok)
		xck_ino_report(ck, INO_FLAGS2, ic->ino, "flags2",
			       fl2 & fl2_ok, fl2);

	check_hint(ck, ic, INO_EXTSIZE, "extsize", di->extsize,
		   fl & (DF_EXTSIZE | DF_EXTSZINHERIT), reg || dir);
	if (fl2 & XFSJ_DIFLAG2_COWEXTSIZE || di->cowextsize)
		check_hint(ck, ic, INO_COWEXTSIZE, "cowextsize",
			   di->cowextsize, fl2 & XFSJ_DIFLAG2_COWEXTSIZE,
			   reg || dir);
}

/* Without bigtime the low 32 bits of a timestamp are nanoseconds. */
static void check_times(struct xck *ck, const struct xck_icheck *ic)
{
	static const struct { const char *name; size_t off; } t[] = {
		{ "atime", XFSJ_DI_OFF(atime) },
		{ "mtime", XFSJ_DI_OFF(mtime) },
		{ "ctime", XFSJ_DI_OFF(ctime) },
		{ "crtime", XFSJ_DI_OFF(crtime) },
	};
	size_t i;

	if (ic->di.flags2 & XFSJ_DIFLAG2_BIGTIME)
		return;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		uint32_t nsec = xfsj_get_be32(ic->dip + t[i].off + 4);

		if (nsec >= NSEC_PER_SEC)
			xck_ino_report(ck, INO_NSEC, ic->ino, t[i].name,
				       NSEC_PER_SEC - 1, nsec);
	}
}

static void check_size(struct xck *ck, const struct xck_icheck *ic)
{
	const struct xfsj_dinode *di = &ic->di;
	uint16_t type = di->mode & S_IFMT;

	if (di->size >> 63) {
		xck_ino_report(ck, INO_SIZE, ic->ino, "size", 0, di->size);
		return;
	}
	switch (type) {
	case S_IFDIR:
		if (di->size == 0)
			xck_ino_report(ck, INO_SIZE, ic->ino, "size", 1, 0);
		break;
	case S_IFLNK:
		if (di->size == 0 || di->size > XFSJ_SYMLINK_MAXLEN)
			xck_ino_report(ck, INO_SIZE, ic->ino, "size",
				       XFSJ_SYMLINK_MAXLEN, di->size);
		break;
	case S_IFREG:
		break;
	default:
		/* Device nodes, fifos and sockets hold no data (repair). */
		if (di->size)
			xck_ino_report(ck, INO_SIZE, ic->ino, "size", 0,
				       di->size);
		/*
		 * Their nblocks is their attribute fork's blocks: one rule,
		 * the forks' walk (fork.nblocks), decides it for every
		 * file.
		 */
		break;
	}
}

/* The inodes the superblock names are regular files (quota, realtime). */
static void check_meta(struct xck *ck, struct xck_icheck *ic)
{
	const struct xfsj_sb *sb = ck->sb;
	uint64_t ino = ic->ino;

	if (ino != sb->rbmino && ino != sb->rsumino && ino != sb->uquotino &&
	    ino != sb->gquotino && ino != sb->pquotino)
		return;
	ic->st->flags |= XCK_I_META;
	if ((ic->di.mode & S_IFMT) != S_IFREG)
		xck_ino_report(ck, INO_META, ino, "mode", S_IFREG,
			       ic->di.mode);
}

bool xck_icore(struct xck *ck, struct xck_icheck *ic)
{
	const struct xfsj_dinode *di = &ic->di;
	bool ok;

	if (xfsj_mode_ftype(di->mode) == XFSJ_FT_UNKNOWN) {
		xck_ino_report(ck, INO_MODE, ic->ino, "mode", 0, di->mode);
		return false;
	}
	ok = check_forks(ck, ic);
	check_flags(ck, ic);
	check_size(ck, ic);
	check_times(ck, ic);
	check_meta(ck, ic);
	if (di->onlink)
		xck_ino_report(ck, INO_ONLINK, ic->ino, "onlink", 0,
			       di->onlink);
	if (di->next_unlinked != XFSJ_NULLAGINO &&
	    !xck_ino_valid(ck, xfsj_agino_to_ino(ck->sb,
			xfsj_ino_agno(ck->sb, ic->ino), di->next_unlinked)))
		xck_ino_report(ck, INO_NEXT_UNLINKED, ic->ino,
			       "next_unlinked", XFSJ_NULLAGINO,
			       di->next_unlinked);
	return ok;
}
