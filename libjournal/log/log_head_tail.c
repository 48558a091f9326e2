/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Finding the head and tail of the log.
 *
 * The search follows the kernel's recovery step by step
 * (shared/reference/xfs-log.md §5), because the repair tool replays what
 * this finds and must replay exactly what the kernel would: a different
 * head means different metadata.  Every loop below is bounded by the log
 * size or by a fixed scan width, whatever the blocks contain.
 */
#include <stdlib.h>
#include <string.h>

#include "core/layout.h"
#include "log/logread_priv.h"

/* ---- head search (§5.1, §5.2) ---- */

/*
 * Binary search in [first, *last] for the first block of cycle @cycle,
 * given that *last has it and first does not.
 */
static int find_cycle_start(struct xfsj_log *l, uint32_t first,
			    uint32_t *last, uint32_t cycle,
			    struct xfsj_fault *f)
{
	uint32_t end = *last, mid = first + (end - first) / 2;

	while (mid != first && mid != end) {
		uint32_t c;
		int err = xfsj_log_block_cycle(l, mid, &c, f);

		if (err)
			return err;
		if (c == cycle)
			end = mid;
		else
			first = mid;
		mid = first + (end - first) / 2;
	}
	*last = end;
	return 0;
}

/* First block in [start, start + n) whose cycle is @stop, or -1. */
static int verify_cycle(struct xfsj_log *l, uint32_t start, uint32_t n,
			uint32_t stop, int64_t *found, struct xfsj_fault *f)
{
	*found = -1;
	while (n) {
		uint32_t chunk = n < LOG_WIN_BBS ? n : LOG_WIN_BBS;
		const uint8_t *p;
		int err = xlog_blocks(l, start, chunk, false, &p, f);

		if (err)
			return err;
		for (uint32_t i = 0; i < chunk; i++) {
			if (xlog_cycle_of(p + (size_t)i * XFSJ_BBSIZE) == stop) {
				*found = start + i;
				return 0;
			}
		}
		start += chunk;
		n -= chunk;
	}
	return 0;
}

static bool uuid_null(const uint8_t *u)
{
	for (int i = 0; i < 16; i++)
		if (u[i])
			return false;
	return true;
}

/*
 * Back up over a partially written record: search backwards from *last - 1
 * down to @start for a header; if the record it starts does not end
 * exactly at *last (@extra blocks accounting for a wrap), *last moves to
 * that header.  Returns 1 when no header is found.
 */
static int verify_log_record(struct xfsj_log *l, uint32_t start,
			     uint32_t *last, uint32_t extra,
			     struct xfsj_fault *f)
{
	const uint8_t *h = NULL;
	int64_t i;
	uint32_t hblks, len;

	for (i = (int64_t)*last - 1; i >= 0; i--) {
		int err;

		if (i < start)
			return 1;
		err = xlog_blocks(l, (uint32_t)i, 1, true, &h, f);
		if (err)
			return err;
		if (xfsj_get_be32(h) == XFSJ_LOG_MAGIC)
			break;
	}
	if (i < 0)
		return 1;
	if (!l->g.raw && !uuid_null(h + XLOG_HDR_UUID_OFF) &&
	    memcmp(h + XLOG_HDR_UUID_OFF, l->g.sb.uuid, 16))
		return xfsj_fault_set(f, XFSJ_E_CORRUPT, "log record header",
				      "h_fs_uuid", l->g.dev_off +
				      (uint64_t)i * XFSJ_BBSIZE + XLOG_HDR_UUID_OFF,
				      (uint64_t)i);
	hblks = xlog_hdr_hblks(xfsj_get_be32(h + XLOG_HDR_VERSION_OFF),
			  xfsj_get_be32(h + XLOG_HDR_SIZE_OFF));
	len = xfsj_get_be32(h + XLOG_HDR_LEN_OFF);
	if ((uint64_t)*last - (uint64_t)i + extra !=
	    (uint64_t)(len + XFSJ_BBSIZE - 1) / XFSJ_BBSIZE + hblks)
		*last = (uint32_t)i;
	return 0;
}

/* §5.1: 1 with *blk set when the log is (partially) zero, 0 if not. */
static int find_zeroed(struct xfsj_log *l, uint32_t *blk, struct xfsj_fault *f)
{
	uint32_t size = l->g.size_bb, c = 0, last;
	uint32_t nscan, start;
	int64_t nb;
	int err;

	err = xfsj_log_block_cycle(l, 0, &c, f);
	if (err)
		return err;
	if (c == 0) {
		*blk = 0;
		return 1;
	}
	err = xfsj_log_block_cycle(l, size - 1, &c, f);
	if (err)
		return err;
	if (c != 0)
		return 0;
	last = size - 1;
	err = find_cycle_start(l, 0, &last, 0, f);
	if (err)
		return err;
	nscan = XFSJ_LOG_TOTAL_REC_BBS;
	if (last < nscan)
		nscan = last;
	start = last - nscan;
	err = verify_cycle(l, start, nscan, 0, &nb, f);
	if (err)
		return err;
	if (nb != -1)
		last = (uint32_t)nb;
	err = verify_log_record(l, start, &last, 0, f);
	if (err == 1)
		return xfsj_fault_set(f, XFSJ_E_CORRUPT, "log", "head",
				      l->g.dev_off + (uint64_t)last * XFSJ_BBSIZE,
				      last);
	if (err)
		return err;
	*blk = last;
	return 1;
}

static int find_head(struct xfsj_log *l, uint32_t *head_out, bool *zeroed,
		     struct xfsj_fault *f)
{
	uint32_t size = l->g.size_bb;
	uint32_t first_cycle, last_cycle, stop, head = 0, nscan, start;
	int64_t nb;
	int err;

	*zeroed = false;
	err = find_zeroed(l, &head, f);
	if (err < 0)
		return err;
	if (err == 1) {
		*head_out = head;
		*zeroed = head == 0;
		return 0;
	}
	err = xfsj_log_block_cycle(l, 0, &first_cycle, f);
	if (!err)
		err = xfsj_log_block_cycle(l, size - 1, &last_cycle, f);
	if (err)
		return err;
	if (first_cycle == last_cycle) {
		/* One cycle everywhere: the head is (about) the log end. */
		head = size;
		stop = last_cycle - 1;
	} else {
		head = size - 1;
		stop = last_cycle;
		err = find_cycle_start(l, 0, &head, last_cycle, f);
		if (err)
			return err;
	}

	/*
	 * Up to eight iclogs may complete out of order: a block with the
	 * stop cycle in the 4096 blocks before the candidate is the head.
	 */
	nscan = size < XFSJ_LOG_TOTAL_REC_BBS ? size : XFSJ_LOG_TOTAL_REC_BBS;
	if (head >= nscan) {
		start = head - nscan;
		err = verify_cycle(l, start, nscan, stop, &nb, f);
		if (err)
			return err;
		if (nb != -1)
			head = (uint32_t)nb;
	} else {
		start = size - (nscan - head);
		err = verify_cycle(l, start, nscan - head, stop - 1, &nb, f);
		if (err)
			return err;
		if (nb != -1) {
			head = (uint32_t)nb;
			goto validate;
		}
		err = verify_cycle(l, 0, head, stop, &nb, f);
		if (err)
			return err;
		if (nb != -1)
			head = (uint32_t)nb;
	}
validate:
	nscan = XFSJ_LOG_REC_BBS;
	if (head >= nscan) {
		err = verify_log_record(l, head - nscan, &head, 0, f);
		if (err == 1)
			goto nohdr;
		if (err)
			return err;
	} else {
		err = verify_log_record(l, 0, &head, 0, f);
		if (err < 0)
			return err;
		if (err == 1) {
			uint32_t nh = size;

			start = nscan - head > size ? 0 : size - (nscan - head);
			err = verify_log_record(l, start, &nh, head, f);
			if (err == 1)
				goto nohdr;
			if (err)
				return err;
			if (nh != size)
				head = nh;
		}
	}
	*head_out = head == size ? 0 : head;
	return 0;
nohdr:
	return xfsj_fault_set(f, XFSJ_E_CORRUPT, "log", "head",
			      l->g.dev_off + (uint64_t)head * XFSJ_BBSIZE, head);
}

/* ---- tail, clean check, torn writes (§5.3) ---- */

/*
 * Record headers among the blocks @from to @to (both included; backwards
 * when @back), counted into *found up to @count; the last one found is in
 * *rblk.  Returns 1 when @count were found, 0 when the range ended first.
 */
static int scan_hdrs(struct xfsj_log *l, int64_t from, int64_t to, bool back,
		     int count, int *found, uint32_t *rblk,
		     struct xfsj_fault *f)
{
	const uint8_t *p;
	int err;

	for (int64_t i = from; back ? i >= to : i <= to; i += back ? -1 : 1) {
		err = xlog_blocks(l, (uint32_t)i, 1, back, &p, f);
		if (err)
			return err;
		if (xfsj_get_be32(p) == XFSJ_LOG_MAGIC) {
			*rblk = (uint32_t)i;
			if (++*found == count)
				return 1;
		}
	}
	return 0;
}

/*
 * Backwards from @head - 1 for up to @count headers, not going below
 * @tail; wraps to the log end when tail >= head.  Returns how many were
 * found; the last one found is in *rblk.
 */
static int rseek_hdr(struct xfsj_log *l, uint32_t head, uint32_t tail,
		     int count, uint32_t *rblk, bool *wrapped,
		     struct xfsj_fault *f)
{
	uint32_t end = head > tail ? tail : 0;
	int found = 0, err;

	*wrapped = false;
	err = scan_hdrs(l, (int64_t)head - 1, end, true, count, &found, rblk,
			f);
	if (err)
		return err < 0 ? err : found;
	if (tail >= head) {
		int before = found;

		err = scan_hdrs(l, (int64_t)l->g.size_bb - 1, tail, true,
				count, &found, rblk, f);
		if (err < 0)
			return err;
		if (found > before)
			*wrapped = true;
	}
	return found;
}

/* Forwards from @tail for up to @count headers, up to @head (wrapping). */
static int seek_hdr(struct xfsj_log *l, uint32_t head, uint32_t tail,
		    int count, uint32_t *rblk, struct xfsj_fault *f)
{
	uint32_t end = head > tail ? head : l->g.size_bb - 1;
	int found = 0, err;

	err = scan_hdrs(l, tail, end, false, count, &found, rblk, f);
	if (err)
		return err < 0 ? err : found;
	if (tail > head) {
		err = scan_hdrs(l, 0, (int64_t)head - 1, false, count, &found,
				rblk, f);
		if (err < 0)
			return err;
	}
	return found;
}

/* No record failed (crc_pass()'s *first_bad). */
#define NO_BAD	UINT32_MAX

/*
 * May the failing record at @first_bad be a torn write (and move the head
 * or the tail)?  Not at log block 0: the kernel takes a failure there for
 * none (its first_bad is 0 both ways), and its recovery fails; it is
 * still a bad record in the middle, where it is reported.
 */
static bool torn_candidate(uint32_t first_bad)
{
	return first_bad != NO_BAD && first_bad != 0;
}

/*
 * The kernel's CRC pass from @tail to @head: every record must have a
 * valid header and a matching (or zero) CRC.  On failure *first_bad is the
 * header block of the failing record and the error is returned.
 */
static int crc_pass_run(struct xfsj_log *l, uint32_t head, uint32_t tail,
		    uint32_t stop, uint32_t *first_bad, struct xfsj_fault *f)
{
	uint32_t pos = tail, left = xfsj_log_distance(l, tail, head);
	struct xfsj_log_rec r;

	*first_bad = NO_BAD;
	while (left) {
		uint32_t n;
		bool stamped;
		int err;

		/* Deferred: the rest is checked by the walk. */
		if (stop && xfsj_log_distance(l, head, pos) > stop) {
			l->crc_deferred = true;
			return 0;
		}
		/* Only the CRC is wanted: the data may stay as on disk. */
		err = xlog_read_rec(l, pos, true, true, &r, &stamped, f);

		if (err == -XFSJ_E_NOMEM || err == -XFSJ_E_IO)
			return err;
		if (!err && r.crc_state == XFSJ_CRC_BAD)
			err = xfsj_fault_set(f, XFSJ_E_BADCRC,
					     "log record header", "h_crc",
					     r.dev_off + XLOG_HDR_CRC_OFF, r.crc);
		if (err) {
			*first_bad = pos;
			return err;
		}
		n = r.hblks + r.data_bbs;
		if (n >= left)
			break;
		left -= n;
		pos = (pos + n) % l->g.size_bb;
	}
	return 0;
}

static int crc_pass(struct xfsj_log *l, uint32_t head, uint32_t tail,
		    uint32_t stop, uint32_t *first_bad, struct xfsj_fault *f)
{
	int err;

	if (!stop)
		xlog_stream_begin(l, tail, xfsj_log_distance(l, tail, head));
	err = crc_pass_run(l, head, tail, stop, first_bad, f);
	xlog_stream_end(l);
	return err;
}

static uint32_t block_lsn(uint64_t lsn)
{
	return (uint32_t)lsn;
}

struct lastrec {
	uint32_t blk;
	uint8_t hdr[XFSJ_BBSIZE];
	bool wrapped;
};

static int load_last(struct xfsj_log *l, uint32_t blk, bool wrapped,
		     struct lastrec *lr, struct xfsj_fault *f)
{
	const uint8_t *p;
	int err = xlog_read_one(l, blk, &p, f);

	if (err)
		return err;
	lr->blk = blk;
	lr->wrapped = wrapped;
	memcpy(lr->hdr, p, XFSJ_BBSIZE);
	return 0;
}

/* §5.3 step 3: is the last record an unmount record ending at the head? */
static int check_unmount(struct xfsj_log *l, uint32_t *head, uint32_t *tail,
			 const struct lastrec *lr, bool *clean,
			 struct xfsj_fault *f)
{
	const uint8_t *h = lr->hdr;
	uint32_t hblks = xlog_hdr_hblks(xfsj_get_be32(h + XLOG_HDR_VERSION_OFF),
				   xfsj_get_be32(h + XLOG_HDR_SIZE_OFF));
	uint64_t len = xfsj_get_be32(h + XLOG_HDR_LEN_OFF);
	uint32_t after, dblk;
	const uint8_t *p;
	int err;

	*clean = false;
	after = (uint32_t)(((uint64_t)lr->blk + hblks +
			    (len + XFSJ_BBSIZE - 1) / XFSJ_BBSIZE) %
			   l->g.size_bb);
	if (after != *head || xfsj_get_be32(h + XLOG_HDR_NUMOPS_OFF) != 1)
		return 0;
	dblk = (uint32_t)(((uint64_t)lr->blk + hblks) % l->g.size_bb);
	err = xlog_read_one(l, dblk, &p, f);
	if (err)
		return err;
	/* The op flags byte is not covered by the cycle stamp. */
	if (p[9] & XFSJ_OP_UNMOUNT) {
		*tail = after;
		*clean = true;
	}
	return 0;
}

static int verify_tail(struct xfsj_log *l, uint32_t head, uint32_t *tail,
		       uint32_t hsize, uint32_t *bad, struct xfsj_fault *f)
{
	uint32_t t, first_bad, reach, stop;
	int err, n;

	/*
	 * A bad record can move the tail only when the head may have
	 * overwritten it: within eight log buffers after the head.  Past
	 * that, a failure leaves head and tail as they are, so with
	 * deferral those records are left to the walk, which checks each
	 * one while it has its bytes at hand anyway.
	 */
	if (!hsize)
		hsize = XFSJ_LOG_HEADER_CYCLE_SIZE;
	reach = (uint32_t)((uint64_t)XFSJ_LOG_MAX_ICLOGS * hsize / XFSJ_BBSIZE);
	stop = l->defer_crc ? reach : 0;
	n = seek_hdr(l, head, *tail, 1, &t, f);
	if (n < 0)
		return n;
	if (n == 1)
		*tail = t;
	l->crc_deferred = false;
	err = crc_pass(l, head, *tail, stop, &first_bad, f);
	while ((err == -XFSJ_E_BADCRC || err == -XFSJ_E_CORRUPT ||
		err == -XFSJ_E_BADMAGIC) && torn_candidate(first_bad)) {
		/* Only the head may have overwritten the old tail. */
		uint32_t dist = xfsj_log_distance(l, head, first_bad);

		if (dist > reach)
			break;
		n = seek_hdr(l, head, first_bad, 2, &t, f);
		if (n < 0)
			return n;
		if (n < 2)
			break;
		*tail = t;
		l->crc_deferred = false;
		err = crc_pass(l, head, *tail, stop, &first_bad, f);
	}
	*bad = first_bad;
	return err;
}

static int verify_head(struct xfsj_log *l, uint32_t *head, uint32_t *tail,
		       struct lastrec *lr, bool *torn, struct xfsj_log_ht *ht,
		       struct xfsj_fault *f)
{
	uint32_t bad = NO_BAD;
	uint32_t blk, first_bad;
	bool wrapped;
	int n, err;

	*torn = false;
	n = rseek_hdr(l, *head, *tail, XFSJ_LOG_MAX_ICLOGS, &blk, &wrapped, f);
	if (n < 0)
		return n;
	if (n == 0)
		return xfsj_fault_set(f, XFSJ_E_CORRUPT, "log", "head",
				      l->g.dev_off + (uint64_t)*head *
				      XFSJ_BBSIZE, *head);
	err = crc_pass(l, *head, blk, 0, &first_bad, f);
	if ((err == -XFSJ_E_BADCRC || err == -XFSJ_E_CORRUPT ||
	     err == -XFSJ_E_BADMAGIC) && torn_candidate(first_bad)) {
		/* A torn write: the head goes back to the bad record. */
		n = rseek_hdr(l, first_bad, *tail, 1, &blk, &wrapped, f);
		if (n < 0)
			return n;
		if (n == 0)
			return xfsj_fault_set(f, XFSJ_E_CORRUPT, "log", "head",
					      l->g.dev_off + (uint64_t)first_bad *
					      XFSJ_BBSIZE, first_bad);
		err = load_last(l, blk, wrapped, lr, f);
		if (err)
			return err;
		*head = first_bad;
		*tail = block_lsn(xfsj_get_be64(lr->hdr + XLOG_HDR_TAIL_OFF));
		*torn = true;
		if (*head == *tail)
			return xfsj_fault_set(f, XFSJ_E_CORRUPT, "log", "tail",
					      l->g.dev_off + (uint64_t)*head *
					      XFSJ_BBSIZE, *tail);
	} else if (err) {
		return err;
	}
	err = verify_tail(l, *head, tail, xfsj_get_be32(lr->hdr + XLOG_HDR_SIZE_OFF),
			  &bad, f);
	if ((err == -XFSJ_E_BADCRC || err == -XFSJ_E_CORRUPT ||
	     err == -XFSJ_E_BADMAGIC) && bad != NO_BAD) {
		/* Not a torn write: recovery would fail here.  Say where. */
		ht->verify_failed = true;
		ht->bad_blk = bad;
		return 0;
	}
	if (!err && !l->crc_deferred)
		l->live_crc_ok = true;
	ht->crc_deferred = !err && l->crc_deferred;
	return err;
}

static void set_state(struct xfsj_log_ht *ht, const struct lastrec *lr)
{
	ht->have_last = true;
	ht->last_blk = lr->blk;
	ht->last_lsn = xfsj_get_be64(lr->hdr + XLOG_HDR_LSN_OFF);
	ht->last_hsize = xfsj_get_be32(lr->hdr + XLOG_HDR_SIZE_OFF);
	ht->cycle = xfsj_get_be32(lr->hdr + XLOG_HDR_CYCLE_OFF) + lr->wrapped;
	ht->tail_lsn = xfsj_get_be64(lr->hdr + XLOG_HDR_TAIL_OFF);
}

int xfsj_log_find_head_tail(struct xfsj_log *log, struct xfsj_log_ht *ht,
			    struct xfsj_fault *f)
{
	return xfsj_log_find_head_tail_ex(log, ht, 0, f);
}

/*
 * From the head: the last record, the tail it names (or @tail_blk when not
 * UINT32_MAX), the unmount check, the torn-write check at the head and
 * the tail verification.
 */
static int settle(struct xfsj_log *l, struct xfsj_log_ht *ht, uint32_t head,
		  uint32_t tail_blk, struct xfsj_fault *f)
{
	struct lastrec lr;
	uint32_t tail, blk = 0;
	bool wrapped, clean;
	int n, err;

	n = rseek_hdr(l, head, head, 1, &blk, &wrapped, f);
	if (n < 0)
		return n;
	if (n == 0)
		return xfsj_fault_set(f, XFSJ_E_CORRUPT, "log", "last record",
				      l->g.dev_off + (uint64_t)head * XFSJ_BBSIZE,
				      head);
	err = load_last(l, blk, wrapped, &lr, f);
	if (err)
		return err;
	tail = block_lsn(xfsj_get_be64(lr.hdr + XLOG_HDR_TAIL_OFF));
	if (tail >= l->g.size_bb)
		return xfsj_fault_set(f, XFSJ_E_CORRUPT, "log record header",
				      "h_tail_lsn", l->g.dev_off +
				      (uint64_t)blk * XFSJ_BBSIZE + XLOG_HDR_TAIL_OFF,
				      tail);
	if (tail_blk != UINT32_MAX)
		tail = tail_blk;
	set_state(ht, &lr);
	ht->orig_head = head;
	ht->orig_tail = tail;
	err = check_unmount(l, &head, &tail, &lr, &clean, f);
	if (err)
		return err;
	if (!clean) {
		uint32_t orig = head;
		bool torn;

		err = verify_head(l, &head, &tail, &lr, &torn, ht, f);
		if (err)
			return err;
		ht->torn = torn;
		if (head != orig) {
			set_state(ht, &lr);
			err = check_unmount(l, &head, &tail, &lr, &clean, f);
			if (err)
				return err;
		}
		if (tail != block_lsn(ht->tail_lsn) && !clean) {
			ht->tail_moved = true;
			ht->orig_tail = block_lsn(ht->tail_lsn);
		}
	}
	ht->clean = clean;
	if (clean)
		ht->tail_lsn = xfsj_lsn(ht->cycle, tail);
	ht->head_blk = head;
	ht->tail_blk = tail;
	return 0;
}

/*
 * XFSJ_HT_FIND_LOST: more records of the log follow the head the kernel
 * found than the in-core log buffers can explain (up to eight may be
 * written out of order and leave a hole before the last ones): a stretch
 * of the log was lost, its blocks holding an older cycle, and the kernel
 * would stop there.  Then the head is where those records end, the tail
 * the kernel's (replaying from an older tail is harmless), and the tail
 * verification meets the lost stretch as a bad record in the middle.
 */
static int find_lost(struct xfsj_log *l, struct xfsj_log_ht *ht,
		     struct xfsj_fault *f)
{
	struct xfsj_log_ht k = *ht;
	struct xlog_lost lost;
	uint32_t room;
	int err;

	if (!ht->have_last)
		return 0;
	room = ht->head_blk == ht->tail_blk ? l->g.size_bb :
	       xfsj_log_distance(l, ht->head_blk, ht->tail_blk);
	err = xlog_find_lost(l, ht->head_blk, room, ht->last_lsn, &lost, f);
	if (err || lost.nrec < XFSJ_LOG_MAX_ICLOGS)
		return err;
	memset(ht, 0, sizeof(*ht));
	l->live_crc_ok = false;
	l->crc_deferred = false;
	err = settle(l, ht, lost.end_blk, k.tail_blk, f);
	if (err)
		return err;
	ht->lost = true;
	ht->lost_blk = k.head_blk;
	ht->lost_next_blk = lost.first_blk;
	ht->lost_next_lsn = lost.first_lsn;
	ht->lost_records = lost.nrec;
	ht->lost_prev_lsn = k.last_lsn;
	return 0;
}

int xfsj_log_find_head_tail_ex(struct xfsj_log *log, struct xfsj_log_ht *ht,
			       unsigned int flags, struct xfsj_fault *f)
{
	struct xfsj_log *l = log;
	uint32_t head = 0, c;
	bool zeroed;
	int err;

	memset(ht, 0, sizeof(*ht));
	l->have_ht = false;
	l->live_crc_ok = false;
	l->crc_deferred = false;
	l->defer_crc = flags & XFSJ_HT_DEFER_VERIFY;
	err = find_head(l, &head, &zeroed, f);
	if (err)
		return err;
	if (head == 0) {
		err = xfsj_log_block_cycle(l, 0, &c, f);
		if (err)
			return err;
		if (c == 0) {
			ht->zeroed = true;
			ht->clean = true;
			ht->cycle = 1;
			ht->head_blk = head;
			goto done;
		}
	}
	err = settle(l, ht, head, UINT32_MAX, f);
	if (!err && (flags & XFSJ_HT_FIND_LOST))
		err = find_lost(l, ht, f);
	if (err)
		return err;
done:
	l->ht = *ht;
	l->have_ht = true;
	return 0;
}
