/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Salvage reading of a damaged log: finding the next record that can be
 * trusted after a damaged one, and telling where a transaction that lost
 * some of its ops can be picked up again (the walk's XFSJ_LOGW_SALVAGE
 * mode, log_trans.c, uses both).
 *
 * A record is trusted again when its header passes the kernel's checks,
 * its h_lsn names the very block it sits in with the header's own cycle,
 * that LSN is newer than the last good record's (and at most one cycle
 * on, the log having wrapped once), the whole record lies in what is left
 * of the range and its CRC holds.  Stale records of an older cycle fail
 * the LSN test; a stray magic number in the data fails the block test.
 */
#include "core/layout.h"
#include "log/logread_priv.h"

/* Is the record at @blk one to go on from?  Fills *@lsn and *@nbb. */
static bool resync_ok(struct xfsj_log *l, uint32_t blk, uint32_t left,
		      uint64_t after_lsn, uint64_t *lsn, uint32_t *nbb,
		      int *err, struct xfsj_fault *f)
{
	struct xfsj_fault lf = { 0 };
	struct xfsj_log_rec r;
	const uint8_t *h;
	uint32_t hblks, dbbs, cycle;
	bool stamped;

	*err = xlog_blocks(l, blk, 1, false, &h, f);
	if (*err)
		return false;
	if (xfsj_get_be32(h) != XFSJ_LOG_MAGIC ||
	    xlog_hdr_check(l, h, blk, &hblks, &dbbs, &lf))
		return false;
	cycle = xfsj_get_be32(h + XLOG_HDR_CYCLE_OFF);
	*lsn = xfsj_get_be64(h + XLOG_HDR_LSN_OFF);
	if (xfsj_lsn_block(*lsn) != blk || xfsj_lsn_cycle(*lsn) != cycle ||
	    !cycle)
		return false;
	if (after_lsn && (*lsn <= after_lsn ||
			  cycle > xfsj_lsn_cycle(after_lsn) + 1))
		return false;
	if (hblks + dbbs > left)
		return false;
	*nbb = hblks + dbbs;
	/* Raw: the data stays as on disk, the walk reads it again. */
	*err = xlog_read_rec(l, blk, true, true, &r, &stamped, &lf);
	if (*err == -XFSJ_E_NOMEM || *err == -XFSJ_E_IO ||
	    *err == -XFSJ_E_SHORTIO) {
		*f = lf;
		return false;
	}
	if (*err) {
		*err = 0;
		return false;
	}
	return r.crc_state != XFSJ_CRC_BAD;
}

/* xfsj_log_resync(), with the length of the record found in *@nbb. */
static int resync(struct xfsj_log *log, uint32_t from, uint32_t left,
		  uint64_t after_lsn, uint32_t *next, uint64_t *next_lsn,
		  uint32_t *nbb, struct xfsj_fault *f)
{
	struct xfsj_fault lf = { 0 };
	uint32_t blk = from;

	if (!f)
		f = &lf;
	if (from >= log->g.size_bb)
		return xfsj_fault_set(f, XFSJ_E_RANGE, "log", "block", 0, from);
	for (; left; left--, blk = (blk + 1) % log->g.size_bb) {
		uint64_t lsn = 0;
		int err = 0;

		if (resync_ok(log, blk, left, after_lsn, &lsn, nbb, &err, f)) {
			*next = blk;
			*next_lsn = lsn;
			return 0;
		}
		if (err)
			return err;
	}
	return 1;
}

int xfsj_log_resync(struct xfsj_log *log, uint32_t from, uint32_t left,
		    uint64_t after_lsn, uint32_t *next, uint64_t *next_lsn,
		    struct xfsj_fault *f)
{
	uint32_t nbb;

	return resync(log, from, left, after_lsn, next, next_lsn, &nbb, f);
}

/*
 * Past the head the kernel found: the records that can be trusted (as
 * after a damage) and follow one another, each newer than the one before,
 * the first newer than @after_lsn.  Each is looked for within the
 * kernel's scan width of where the one before ended, never past @room
 * blocks from @head.  Their count in *@nrec; where the first one starts,
 * its LSN, and where the last one ends (the head they make).
 */
int xlog_find_lost(struct xfsj_log *l, uint32_t head, uint32_t room,
		   uint64_t after_lsn, struct xlog_lost *out,
		   struct xfsj_fault *f)
{
	uint32_t pos = head;

	memset(out, 0, sizeof(*out));
	while (room) {
		uint32_t next, nbb, step;
		uint64_t lsn;
		int err = resync(l, pos, room < XFSJ_LOG_TOTAL_REC_BBS ? room :
				 XFSJ_LOG_TOTAL_REC_BBS, after_lsn, &next, &lsn,
				 &nbb, f);

		if (err < 0)
			return err;
		if (err)
			break;
		if (!out->nrec++) {
			out->first_blk = next;
			out->first_lsn = lsn;
		}
		out->last_blk = next;
		after_lsn = lsn;
		step = xfsj_log_distance(l, pos, next) + nbb;
		pos = (uint32_t)(((uint64_t)next + nbb) % l->g.size_bb);
		out->end_blk = pos;
		if (step >= room)
			break;
		room -= step;
	}
	return 0;
}

bool xlog_item_head_plausible(const uint8_t *p, uint32_t len)
{
	const struct xfsj_item_type *k;
	uint16_t n;

	if (len < 4)
		return false;
	k = xfsj_item_type_lookup(xlog_le16(p));
	n = xlog_le16(p + 2);
	return k && n && n <= XFSJ_LOG_MAX_REGIONS;
}
