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

int xck_fork_read(struct xck *ck, const struct xck_icheck *ic, int whichfork,
		  uint64_t fileoff, uint32_t nblocks, uint8_t **out)
{
	const struct xfsj_sb *sb = ck->sb;
	uint32_t bsize = sb->blocksize;
	uint8_t *buf;
	uint32_t done = 0;

	*out = NULL;
	buf = malloc((size_t)nblocks * bsize);
	if (!buf)
		return -XFSJ_E_NOMEM;
	while (done < nblocks) {
		const struct xfsj_bmbt_irec *m;
		uint64_t fsb, run;
		struct xfsj_buf *bp;
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
		 * One buffer per filesystem block, so that every reader of a
		 * block looks it up with the same length.
		 */
		for (uint64_t i = 0; i < run; i++) {
			err = xfsj_buf_read_ref(ck->fs,
						xfsj_fsb_daddr(sb, fsb + i),
						bsize, &bp);
			if (err) {
				free(buf);
				/*
				 * Another structure's buffer at that address
				 * (an AG header sector): not file blocks.
				 */
				return err == -XFSJ_E_INVAL ? 1 : err;
			}
			memcpy(buf + (size_t)(done + i) * bsize, bp->data,
			       bsize);
			xfsj_buf_rele(ck->fs, bp);
		}
		done += (uint32_t)run;
	}
	*out = buf;
	return 0;
}
