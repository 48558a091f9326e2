/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Every inode of one AG's chunks: the core, then its forks and content.
 *
 * FIRST CUT (skeleton): each inode of each inobt record is read with the
 * fs layer's verifier; a failing core is reported once with the fault's
 * field; in-use inodes get their forks and content checked.  The core's
 * fields one by one, the chunk masks against the cores, cluster reads
 * with read-ahead come next.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check/check_priv.h"
#include "fs/iget.h"

enum { INO_CORE_BAD, INO__N };

static const struct xfsj_problem_def rows[INO__N] = {
	[INO_CORE_BAD] = { "inode.verify", 0x040001, XFSJ_SEV_CORRUPT,
		"inode", "inode {ino}: {field} is wrong ({found})",
		XFSJ_FIX_CLEAR_INODE },
};
const struct xck_table xck_inode_table = { rows, INO__N };

static uint8_t mode_ftype(uint16_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFREG: return XFSJ_FT_REG;
	case S_IFDIR: return XFSJ_FT_DIR;
	case S_IFCHR: return XFSJ_FT_CHRDEV;
	case S_IFBLK: return XFSJ_FT_BLKDEV;
	case S_IFIFO: return XFSJ_FT_FIFO;
	case S_IFSOCK: return XFSJ_FT_SOCK;
	case S_IFLNK: return XFSJ_FT_SYMLINK;
	default: return XFSJ_FT_UNKNOWN;
	}
}

static int check_inode(struct xck *ck, struct xck_ag *ag, uint64_t ino,
		       struct xck_inode *st)
{
	struct xfsj_fault f = { 0 };
	struct xck_icheck ic = { .ino = ino, .st = st };
	struct xfsj_iref ip;
	int err;

	(void)ag;
	st->parent = XFSJ_NULLFSINO;
	st->flags |= XCK_I_SCANNED;
	err = xfsj_iget(ck->fs, ino, false, &ip, &f);
	if (err == -XFSJ_E_IO || err == -XFSJ_E_NOMEM)
		return err;
	if (err) {
		/* A free slot with a zeroed or stale core is no problem. */
		if (ip.dip && xfsj_get_be16(ip.dip + XFSJ_DI_OFF(mode)) == 0)
			return 0;
		st->flags |= XCK_I_BAD;
		xck_report(ck, &(struct xfsj_problem){
			.def = &rows[INO_CORE_BAD],
			.has = XFSJ_PF_INO | XFSJ_PF_FOUND, .ino = ino,
			.field = f.field ? f.field : "core", .found = f.value });
		return 0;
	}
	/* (read-only: no xfsj_iput, which would dirty and pin the buffer) */
	if (ip.di.mode == 0)
		return 0;
	st->flags |= XCK_I_INUSE;
	st->ftype = mode_ftype(ip.di.mode);
	st->nlink = ip.di.nlink;
	st->gen = ip.di.gen;
	ck->res->inodes++;
	ic.dip = ip.dip;
	ic.di = ip.di;
	ic.fork[XFSJ_DATA_FORK] = xfsj_ifork(ck->fs, &ip, XFSJ_DATA_FORK,
					     &ic.forksize[XFSJ_DATA_FORK]);
	ic.fork[XFSJ_ATTR_FORK] = xfsj_ifork(ck->fs, &ip, XFSJ_ATTR_FORK,
					     &ic.forksize[XFSJ_ATTR_FORK]);
	err = xck_forks(ck, &ic);
	if (!err && st->ftype == XFSJ_FT_DIR)
		err = xck_dir(ck, &ic);
	if (!err && ic.di.forkoff)
		err = xck_attr(ck, &ic);
	xck_forks_free(&ic);
	return err;
}

int xck_inodes(struct xck *ck, struct xck_ag *ag)
{
	size_t i;
	int err;

	for (i = 0; i < ag->chunks.n; i++) {
		struct xck_chunk *c = xck_vec_at(&ag->chunks, i);
		unsigned int k;

		c->ino = calloc(XFSJ_INODES_PER_CHUNK, sizeof(*c->ino));
		if (!c->ino)
			return -XFSJ_E_NOMEM;
		ck->state_bytes += XFSJ_INODES_PER_CHUNK * sizeof(*c->ino);
		for (k = 0; k < XFSJ_INODES_PER_CHUNK; k++) {
			uint32_t agino = c->rec.startino + k;

			c->ino[k].parent = XFSJ_NULLFSINO;
			/* A hole of a sparse chunk holds no inodes. */
			if (c->rec.holemask &
			    (1U << (k / XFSJ_INODES_PER_HOLEMASK_BIT)))
				continue;
			err = check_inode(ck, ag,
				xfsj_agino_to_ino(ck->sb, ag->agno, agino),
				&c->ino[k]);
			if (err)
				return err;
		}
		xck_release_buffers(ck);
	}
	return 0;
}
