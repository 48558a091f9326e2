/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The replay passes of log recovery (see shared/reference/xfs-log.md §9).
 *
 * Pass 1 only builds the buffer cancellation table: a buffer freed by a
 * later transaction must not be overwritten by an earlier copy, because
 * the block may since have been reused for something else.
 *
 * Pass 2 replays each committed transaction in log order, its items
 * reordered the way the kernel does (the reorder class of each decoded
 * item, logread.h: buffers first, inode buffers and cancellations last),
 * with the v5 rule that metadata already stamped with an LSN at or beyond
 * the transaction's is left alone.
 *
 * This file is the driver: it decodes each item once with the log
 * layer's decoder and hands it to its type's row of the replay table
 * (replay_ops.c); the families do the rest (item_buf.c, item_inode.c,
 * item_icreate.c, item_quota.c, item_intent.c).
 *
 * Log item format structures are in the byte order of the host that wrote
 * the log; Linux on x86 and arm64 writes little-endian, which is all we
 * accept (the caller checks h_fmt).
 */
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"
#include "recover/recover_priv.h"

int xrec_corrupt(struct xfsj_fault *f, const char *structure,
		 const char *field, uint64_t off, uint64_t val)
{
	return xfsj_fault_set(f, XFSJ_E_CORRUPT, structure, field, off, val);
}

int xrec_item_fault(struct xfsj_fault *f, const struct xfsj_item_info *in,
		    const char *structure)
{
	*f = in->fault;
	f->structure = structure;
	return in->err;
}

int xfsj_recover_create(struct xfsj_overlay *ov, const struct xfsj_sb *sb,
			struct xfsj_recover **out)
{
	struct xfsj_recover *rc = calloc(1, sizeof(*rc));

	if (!rc)
		return -XFSJ_E_NOMEM;
	rc->ov = ov;
	rc->sb = *sb;
	*out = rc;
	return 0;
}

void xfsj_recover_free(struct xfsj_recover *rc)
{
	if (!rc)
		return;
	free(rc->buf);
	free(rc->cancels);
	free(rc->order);
	xrec_intents_free(rc);
	xrec_group_free(rc);
	free(rc);
}

const struct xfsj_recover_stats *xfsj_recover_stats(const struct xfsj_recover *rc)
{
	return &rc->st;
}

const struct xfsj_sb *xfsj_recover_sb(const struct xfsj_recover *rc)
{
	return &rc->sb;
}

int xrec_scratch(struct xfsj_recover *rc, size_t len)
{
	if (len <= rc->bufsize)
		return 0;
	uint8_t *n = realloc(rc->buf, len);

	if (!n)
		return -XFSJ_E_NOMEM;
	rc->buf = n;
	rc->bufsize = len;
	return 0;
}

bool xrec_quota_on(const struct xfsj_recover *rc)
{
	/*
	 * The kernel replays dquots when the mount has quotas on; without a
	 * mount, a quota type accounted when the filesystem was last
	 * mounted (sb_qflags) stands for it: user, group or project.
	 */
	return rc->sb.qflags & (XFSJ_UQUOTA_ACCT | XFSJ_GQUOTA_ACCT |
				XFSJ_PQUOTA_ACCT);
}

/*
 * Is [daddr, daddr + len) (512-byte units) a place no metadata can be:
 * past the end of the filesystem (dblocks, as last replayed), or inside
 * the internal log?  Only a damaged log names such a place.  The kernel
 * refuses the first; it would replay the second, writing over the log it
 * is replaying; we refuse both.
 */
bool xrec_daddr_bad(const struct xfsj_recover *rc, uint64_t daddr,
		    uint64_t len)
{
	const struct xfsj_sb *sb = &rc->sb;
	uint64_t end = sb->dblocks << (sb->blocklog - 9);

	if (daddr >= end || len > end - daddr)
		return true;
	if (sb->logstart) {
		uint64_t agno = sb->logstart >> sb->agblklog;
		uint64_t agbno = sb->logstart & ((1ULL << sb->agblklog) - 1);
		uint64_t ls = (agno * sb->agblocks + agbno) << (sb->blocklog - 9);
		uint64_t le = ls + ((uint64_t)sb->logblocks << (sb->blocklog - 9));

		if (daddr < le && daddr + len > ls)
			return true;
	}
	return false;
}

/* ---- passes ---- */

void xfsj_recover_salvage(struct xfsj_recover *rc, bool on)
{
	rc->salvage = on;
}

/* Salvage: an item that cannot land is passed over; other errors stop. */
static bool salvage_pass(struct xfsj_recover *rc, int err)
{
	if (!rc->salvage || (err != -XFSJ_E_CORRUPT &&
			     err != -XFSJ_E_BADMAGIC &&
			     err != -XFSJ_E_BADCRC && err != -XFSJ_E_RANGE))
		return false;
	rc->st.salvage_passed++;
	return true;
}

int xfsj_recover_pass1(struct xfsj_recover *rc, const struct xfsj_rtrans *t,
		       struct xfsj_fault *f)
{
	struct xfsj_item_info in;

	for (uint32_t i = 0; i < t->nitems; i++) {
		const struct xfsj_ritem *it = &t->items[i];
		const struct xrec_ops *ops = xrec_ops(it->type);
		int err;

		if (!it->nreg || !ops || !ops->pass1)
			continue;
		xfsj_item_decode_brief(it, &in);
		err = ops->pass1(rc, it, &in, f);
		if (err)
			return err;
	}
	return 0;
}

/*
 * The reorder class of every item, a byte each: each item is decoded once,
 * when its class comes, and only one decoded item is alive at a time (a
 * checkpoint can hold a hundred thousand items).
 */
static int classify(struct xfsj_recover *rc, const struct xfsj_rtrans *t)
{
	if (xfsj_grow(&rc->order, &rc->caporder, 0, t->nitems, 1, 64))
		return -XFSJ_E_NOMEM;
	/* An item without regions is in no class: it is passed over. */
	for (uint32_t i = 0; i < t->nitems; i++)
		rc->order[i] = t->items[i].nreg ?
			       xfsj_item_order(&t->items[i]) : XFSJ_ORDER_N;
	return 0;
}

int xfsj_recover_pass2(struct xfsj_recover *rc, const struct xfsj_rtrans *t,
		       struct xfsj_fault *f)
{
	int err;

	rc->st.trans++;
	xrec_group_start(rc, t->lsn);
	if (t->lsn > rc->st.max_lsn)
		rc->st.max_lsn = t->lsn;
	err = classify(rc, t);
	if (err)
		return err;
	for (int cls = 0; cls < XFSJ_ORDER_N; cls++) {
		for (uint32_t i = 0; i < t->nitems; i++) {
			const struct xfsj_ritem *it = &t->items[i];
			struct xfsj_item_info in;
			const struct xrec_ops *ops;

			if (rc->order[i] != cls)
				continue;
			if (it->type >= XFSJ_LI_FIRST &&
			    it->type < XFSJ_LI_FIRST + XFSJ_LI_SPAN)
				rc->st.items[it->type - XFSJ_LI_FIRST]++;
			ops = xrec_ops(it->type);
			if (!ops || !ops->pass2)
				return xfsj_fault_set(f, XFSJ_E_UNSUPP,
						      "log item", "type", 0,
						      it->type);
			xfsj_item_decode_brief(it, &in);
			err = ops->pass2(rc, it, &in, t->lsn, f);
			if (err && !salvage_pass(rc, err))
				return err;
		}
	}
	return 0;
}
