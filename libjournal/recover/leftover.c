/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * After the passes: the work the log leaves (pending intents, unlinked
 * inodes, CoW staging extents), listed for the caller, and the superblock
 * summary counters recomputed from the AG headers.
 */
#include <string.h>

#include "core/crc32c.h"
#include "core/layout.h"
#include "xfsj/ondisk.h"
#include "recover/recover_priv.h"

/*
 * Does AG @agno's refcount btree hold CoW staging extents?  They live in
 * their own key domain (startblock bit 31), after every shared-extent
 * record, so the last record of the rightmost leaf tells.  The kernel
 * frees them at mount after a crash.
 */
static int cow_leftover(struct xfsj_recover *rc, uint32_t agno,
			uint32_t *first)
{
	const struct xfsj_sb *sb = &rc->sb;
	const uint32_t bs = sb->blocksize;
	uint64_t agbase = (uint64_t)agno * sb->agblocks << sb->blocklog;
	uint32_t bno, level, nodemax = (bs - XFSJ_SBLOCK_HDR_SIZE) / 8;
	struct xfsj_agf agf;
	int err = xrec_scratch(rc, bs > sb->sectsize ? bs : sb->sectsize);

	if (err)
		return err;
	err = xfsj_overlay_read(rc->ov, rc->buf, sb->sectsize,
				agbase + sb->sectsize);
	if (err)
		return err;
	xfsj_agf_decode(rc->buf, &agf);
	bno = agf.refcount_root;
	level = agf.refcount_level;
	for (int depth = 0; depth < 16; depth++) {
		struct xfsj_sblock h;

		if (!bno || bno >= sb->agblocks)
			return -XFSJ_E_CORRUPT;
		err = xfsj_overlay_read(rc->ov, rc->buf, bs,
					agbase + ((uint64_t)bno << sb->blocklog));
		if (err)
			return err;
		xfsj_sblock_decode(rc->buf, &h);
		if (h.magic != XFSJ_REFC_MAGIC || h.level + 1 != level)
			return -XFSJ_E_CORRUPT;
		if (!h.numrecs)
			return 0;
		if (h.level == 0) {
			struct xfsj_refc_rec r;

			xfsj_refc_rec_get(rc->buf, h.numrecs - 1u, &r);
			*first = r.startblock & ~XFSJ_REFC_COWFLAG;
			return (r.startblock & XFSJ_REFC_COWFLAG) ? 1 : 0;
		}
		if (h.numrecs > nodemax)
			return -XFSJ_E_CORRUPT;
		bno = xfsj_get_be32(rc->buf + XFSJ_SBLOCK_HDR_SIZE + 4 * nodemax +
				    4 * (h.numrecs - 1u));
		level--;
	}
	return -XFSJ_E_CORRUPT;
}

int xfsj_recover_leftovers(struct xfsj_recover *rc, xfsj_leftover_fn fn,
			   void *arg)
{
	const struct xfsj_sb *sb = &rc->sb;
	uint8_t sect[512];
	int n = 0;

	for (size_t i = 0; i < rc->nintent; i++) {
		struct xfsj_leftover l = {
			.kind = XFSJ_LEFT_INTENT, .type = rc->intents[i].type,
			.id = rc->intents[i].id, .lsn = rc->intents[i].lsn,
		};

		if (fn)
			fn(arg, &l);
		n++;
	}
	for (uint32_t a = 0; a < sb->agcount; a++) {
		uint64_t off = ((uint64_t)a * sb->agblocks << sb->blocklog) +
			       2 * sb->sectsize;
		int err = xfsj_overlay_read(rc->ov, sect, sizeof(sect), off);

		if (err)
			return err;
		for (uint32_t b = 0; b < XFSJ_AGI_UNLINKED_BUCKETS; b++) {
			uint32_t agino = xfsj_get_be32(sect + 40 + 4 * b);
			struct xfsj_leftover l = {
				.kind = XFSJ_LEFT_UNLINKED, .agno = a,
				.bucket = b, .agino = agino,
			};

			if (agino == XFSJ_NULLAGINO)
				continue;
			if (fn)
				fn(arg, &l);
			n++;
		}
		if (sb->features_ro_compat & XFSJ_RO_COMPAT_REFLINK) {
			uint32_t first = 0;
			int cow = cow_leftover(rc, a, &first);
			struct xfsj_leftover l = {
				.kind = XFSJ_LEFT_COW, .agno = a, .agino = first,
			};

			if (cow < 0)
				return cow;
			if (cow) {
				if (fn)
					fn(arg, &l);
				n++;
			}
			/* cow_leftover used the scratch buffer; reread. */
			err = xfsj_overlay_read(rc->ov, sect, sizeof(sect), off);
			if (err)
				return err;
		}
	}
	return n;
}

int xfsj_recover_update_sb(struct xfsj_recover *rc, struct xfsj_fault *f)
{
	const uint32_t ss = rc->sb.sectsize;
	uint64_t icount = 0, ifree = 0, fdblocks = 0;
	struct xfsj_sb sb;
	int err;

	err = xrec_scratch(rc, ss);
	if (err)
		return err;
	for (uint32_t a = 0; a < rc->sb.agcount; a++) {
		uint64_t base = (uint64_t)a * rc->sb.agblocks << rc->sb.blocklog;
		struct xfsj_agf agf;
		struct xfsj_agi agi;

		err = xfsj_overlay_read(rc->ov, rc->buf, ss, base + ss);
		if (err)
			return err;
		xfsj_agf_decode(rc->buf, &agf);
		if (agf.magicnum != XFSJ_AGF_MAGIC)
			return xrec_corrupt(f, "AGF", "magicnum", base + ss, agf.magicnum);
		err = xfsj_overlay_read(rc->ov, rc->buf, ss, base + 2 * ss);
		if (err)
			return err;
		xfsj_agi_decode(rc->buf, &agi);
		if (agi.magicnum != XFSJ_AGI_MAGIC)
			return xrec_corrupt(f, "AGI", "magicnum", base + 2 * ss,
				       agi.magicnum);
		fdblocks += (uint64_t)agf.freeblks + agf.flcount + agf.btreeblks;
		icount += agi.count;
		ifree += agi.freecount;
	}
	err = xfsj_overlay_read(rc->ov, rc->buf, ss, 0);
	if (err)
		return err;
	xfsj_sb_decode(rc->buf, &sb);
	sb.icount = icount;
	sb.ifree = ifree;
	sb.fdblocks = fdblocks;
	/* Nothing left in the log needs logged xattrs any more. */
	sb.features_log_incompat = 0;
	/* Keep whatever lies past the fields we know. */
	xfsj_layout_encode(&xfsj_sb_layout, &sb, rc->buf);
	xfsj_cksum_update(rc->buf, ss, XFSJ_SB_CRC_OFF);
	rc->sb = sb;
	return xfsj_overlay_write(rc->ov, rc->buf, ss, 0);
}
