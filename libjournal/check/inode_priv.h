/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The inode phase's files (inodes.c: chunks and clusters, icore.c: the
 * core's fields, symlink.c: symlink targets and device numbers) share
 * one table of problem rows, xck_inode_table (0x04nnnn), defined in
 * inodes.c.
 */
#ifndef XFSJ_CHECK_INODE_PRIV_H
#define XFSJ_CHECK_INODE_PRIV_H

#include "check/check_priv.h"

enum {
	/* the header every slot of a chunk must carry */
	INO_MAGIC,
	INO_VERSION,
	INO_CRC,
	INO_INUM,
	INO_UUID,
	/* the inobt's free mask against the core */
	INO_FREE_INUSE,
	INO_USED_FREE,
	/* the core of an inode in use */
	INO_MODE,
	INO_FORMAT,
	INO_FORKOFF,
	INO_AFORMAT,
	INO_BIGNEXT,
	INO_FLAGS,
	INO_FLAGS2,
	INO_SIZE,
	INO_EXTSIZE,
	INO_COWEXTSIZE,
	INO_ONLINK,
	INO_NLINK,
	INO_NSEC,
	INO_TIME,
	INO_NEXT_UNLINKED,
	INO_NEXT_ORPHAN,
	INO_META,
	/* content: symlinks and device nodes (symlink.c) */
	INO_SL_LOCAL,
	INO_SL_NUL,
	INO_SL_BLOCK,
	INO_SL_HDR,
	INO_SL_CRC,
	INO_SL_LEN,
	INO_CHUNK_RANGE,
	INO__N
};

extern const struct xfsj_problem_def xck_inode_rows[INO__N];

/* Report row @row about inode @ino with one field and its values. */
void xck_ino_report(struct xck *ck, int row, uint64_t ino,
		    const char *field, uint64_t expected, uint64_t found);

/* The file type of a mode (XFSJ_FT_UNKNOWN when it names none). */

/*
 * icore.c: the header of a slot (magic, version, CRC, number, UUID);
 * false when the slot cannot be trusted at all.
 */
bool xck_icore_header(struct xck *ck, const struct xck_icheck *ic);
/*
 * icore.c: every field of the core of an inode in use; false when the
 * forks cannot be looked at (their format or size is not usable).
 */
bool xck_icore(struct xck *ck, struct xck_icheck *ic);
/* symlink.c: the target of a symlink, inline or in blocks. */
int xck_symlink(struct xck *ck, struct xck_icheck *ic);

#endif
