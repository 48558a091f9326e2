/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The forks of one inode: extent lists and bmbt forks.
 *
 * FIRST CUT (skeleton): the mappings come from the fs layer's bmbt reader
 * and are claimed as they are; a fork it cannot read is reported whole.
 * The checks of every mapping and bmbt block come next.
 */
#include <stdlib.h>
#include <string.h>

#include "check/check_priv.h"
#include "fs/bmbt.h"

enum { FORK_UNREADABLE, FORK__N };

static const struct xfsj_problem_def rows[FORK__N] = {
	[FORK_UNREADABLE] = { "fork.unreadable", 0x040101, XFSJ_SEV_CORRUPT,
		"inode fork", "inode {ino}: {field} fork mapping cannot be read",
		XFSJ_FIX_REBUILD_BMBT },
};
const struct xck_table xck_fork_table = { rows, FORK__N };

static int read_fork(struct xck *ck, struct xck_icheck *ic, int whichfork)
{
	struct xfsj_fault f = { 0 };
	struct xfsj_bmbt_fork bf = { 0 };
	struct xfsj_iref ip = { .ino = ic->ino, .dip = (uint8_t *)ic->dip,
				.di = ic->di };
	uint8_t fmt = whichfork ? ic->di.aformat : ic->di.format;
	size_t i;
	int err;

	if (fmt != XFSJ_DINODE_FMT_EXTENTS && fmt != XFSJ_DINODE_FMT_BTREE)
		return 0;
	err = xfsj_bmbt_fork_read(ck->fs, &ip, whichfork, &bf, &f);
	if (err == -XFSJ_E_NOMEM || err == -XFSJ_E_IO)
		return err;
	if (err) {
		xck_report(ck, &(struct xfsj_problem){
			.def = &rows[FORK_UNREADABLE], .has = XFSJ_PF_INO,
			.ino = ic->ino, .field = whichfork ? "attr" : "data" });
		xfsj_bmbt_fork_free(&bf);
		return 0;
	}
	for (i = 0; i < bf.n; i++) {
		const struct xfsj_bmbt_irec *r = &bf.ext[i];
		uint64_t off = r->startoff |
			(whichfork ? XFSJ_RMAP_OFF_ATTR_FORK : 0) |
			(r->unwritten ? XFSJ_RMAP_OFF_UNWRITTEN : 0);

		err = xck_claim(ck, xfsj_fsb_agno(ck->sb, r->startblock),
				xfsj_fsb_agbno(ck->sb, r->startblock),
				(uint32_t)r->blockcount, ic->ino, off);
		if (err)
			break;
	}
	ic->map[whichfork] = bf.ext;
	ic->nmap[whichfork] = bf.n;
	bf.ext = NULL;
	xfsj_bmbt_fork_free(&bf);
	ck->res->extents += ic->nmap[whichfork];
	return err;
}

int xck_forks(struct xck *ck, struct xck_icheck *ic)
{
	int err = read_fork(ck, ic, XFSJ_DATA_FORK);

	if (!err && ic->di.forkoff)
		err = read_fork(ck, ic, XFSJ_ATTR_FORK);
	return err;
}

void xck_forks_free(struct xck_icheck *ic)
{
	free(ic->map[0]);
	free(ic->map[1]);
	ic->map[0] = ic->map[1] = NULL;
}
