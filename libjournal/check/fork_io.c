/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Reading file blocks of a fork through its checked mappings: directory
 * and attribute blocks, remote values and symlink targets.
 */
#include <stdlib.h>
#include <string.h>

#include "check/check_priv.h"
#include "fs/bmbt.h"

const struct xfsj_bmbt_irec *xck_fork_lookup(const struct xck_icheck *ic,
					     int whichfork, uint64_t fileoff)
{
	const struct xfsj_bmbt_irec *m = ic->map[whichfork];
	size_t lo = 0, hi = ic->nmap[whichfork];

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (fileoff < m[mid].startoff)
			hi = mid;
		else if (fileoff >= m[mid].startoff + m[mid].blockcount)
			lo = mid + 1;
		else
			return &m[mid];
	}
	return NULL;
}

int xck_fork_read(struct xck *ck, struct xck_icheck *ic, int whichfork,
		  uint64_t fileoff, uint32_t nblocks, uint8_t **out)
{
	const struct xfsj_sb *sb = ck->sb;
	uint32_t bsize = sb->blocksize;
	uint8_t *buf;
	uint32_t done = 0;

	*out = NULL;
	xck_pf_fork_more(ck, ic, whichfork, fileoff);
	buf = malloc((size_t)nblocks * bsize);
	if (!buf)
		return -XFSJ_E_NOMEM;
	while (done < nblocks) {
		const struct xfsj_bmbt_irec *m;
		uint64_t fsb, run;
		int err;

		m = xck_fork_lookup(ic, whichfork, fileoff + done);
		if (!m) {
			free(buf);
			return 1;
		}
		fsb = m->startblock + (fileoff + done - m->startoff);
		run = m->startoff + m->blockcount - (fileoff + done);
		if (run > nblocks - done)
			run = nblocks - done;
		/* Stay inside one AG: an extent never crosses one. */
		if (xfsj_fsb_agbno(sb, fsb) + run >
		    xfsj_fs_ag_blocks(ck->fs, xfsj_fsb_agno(sb, fsb))) {
			free(buf);
			return 1;
		}
		/*
		 * Block by block, so that a block some other reader cached
		 * is looked up with the length it was cached with; what is
		 * not cached is read without caching it (each block of a
		 * fork is read once).
		 */
		for (uint64_t i = 0; i < run; i++) {
			err = xfsj_buf_read_copy(ck->fs,
						 xfsj_fsb_daddr(sb, fsb + i),
						 bsize, buf + (size_t)(done + i) *
						 bsize);
			if (err) {
				free(buf);
				/*
				 * Another structure's buffer at that address
				 * (an AG header sector): not file blocks.
				 */
				return err == -XFSJ_E_INVAL ? 1 : err;
			}
		}
		done += (uint32_t)run;
	}
	*out = buf;
	return 0;
}
