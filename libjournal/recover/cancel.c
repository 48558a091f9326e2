/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The buffer cancellation table of the replay: pass 1 counts, for each
 * buffer (daddr and length), the cancel items the log holds for it; in
 * pass 2 each cancel item drops one reference, and while a buffer has
 * some, the buffer, inode and inode chunk items that would write it are
 * passed over (the buffer was freed later in the log).
 */
#include <stdlib.h>

#include "core/grow.h"
#include "recover/recover_priv.h"

struct cancel *xrec_cancel_find(struct xfsj_recover *rc, uint64_t blkno,
				uint32_t len)
{
	for (size_t i = 0; i < rc->ncancel; i++)
		if (rc->cancels[i].blkno == blkno && rc->cancels[i].len == len)
			return &rc->cancels[i];
	return NULL;
}

int xrec_cancel_add(struct xfsj_recover *rc, uint64_t blkno, uint32_t len)
{
	struct cancel *c = xrec_cancel_find(rc, blkno, len);

	if (c) {
		c->refs++;
		return 0;
	}
	if (xfsj_grow(&rc->cancels, &rc->capcancel, rc->ncancel, 1,
		      sizeof(*rc->cancels), 64))
		return -XFSJ_E_NOMEM;
	rc->cancels[rc->ncancel++] = (struct cancel){ blkno, len, 1 };
	return 0;
}

void xrec_cancel_drop(struct xfsj_recover *rc, uint64_t blkno, uint32_t len)
{
	struct cancel *c = xrec_cancel_find(rc, blkno, len);

	if (c && --c->refs == 0)
		*c = rc->cancels[--rc->ncancel];
}
