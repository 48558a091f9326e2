/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A lost stretch of the log (XFSJ_HT_FIND_LOST): a record in the middle of
 * the live log whose blocks hold an older cycle, as a write that never
 * reached the disk leaves them.  The kernel's head search stops there;
 * with the flag the records after it are found, the head is where they
 * end and the stretch is a bad record in the middle.  The salvage walk
 * says the stretch is stale, and once a clean log is written at the new
 * head the stretch restamped keeps the kernel's search from stopping at
 * it again.
 */
#include <stdlib.h>
#include <string.h>

#include "log_synth.h"
#include "suites.h"
#include "core/layout.h"
#include "xfsj/logread.h"
#include "xfsj/redo.h"

#define LOGBB	6000
#define LAG	300		/* the tail this far behind each record */
#define MAXREC	4096

struct lostlog {
	struct synth s;
	uint32_t rec[MAXREC];	/* header blocks of the cycle-2 records */
	uint32_t nrec;
};

/* The tail @LAG blocks behind the next record, in the cycle it has there. */
static uint64_t lagging_tail(const struct synth *s)
{
	if (s->blk >= LAG)
		return xfsj_lsn(s->cycle, s->blk - LAG);
	if (s->cycle == 1)
		return xfsj_lsn(1, 0);
	return xfsj_lsn(s->cycle - 1, s->log_bb - (LAG - s->blk));
}

/* Cycle 1 over the whole log, then cycle 2 up to block @end. */
static void two_cycles_of(struct lostlog *ll, uint32_t logbb, uint32_t end)
{
	struct synth *s = &ll->s;
	uint32_t tid = 0x4000;

	memset(ll, 0, sizeof(*ll));
	synth_init(s, logbb, 32768);
	s->auto_tail = false;
	while (s->cycle < 2 || s->blk < end) {
		uint8_t fmt[128], data[300];
		uint32_t n = synth_buf_fmt(fmt, 32 + 8 * (uint64_t)(tid % 700),
					   8, 0, 1, 2);

		s->tail_lsn = lagging_tail(s);
		memset(data, (int)(tid & 0xff), sizeof(data));
		synth_start(s, tid, 2);
		synth_region(s, tid, fmt, n);
		synth_region(s, tid, data, sizeof(data));
		synth_commit(s, tid);
		synth_flush(s);
		if (s->cycle == 2 && s->last_blk < s->blk && ll->nrec < MAXREC)
			ll->rec[ll->nrec++] = s->last_blk;
		tid++;
	}
}

static void two_cycles(struct lostlog *ll, uint32_t end)
{
	two_cycles_of(ll, LOGBB, end);
}

/*
 * The record @back records before the head: its blocks get cycle 1 (the
 * header's h_cycle, every other block's first word) and lose the rest.
 * Returns its header block; *@nbb its length.
 */
static uint32_t make_stale(struct lostlog *ll, uint32_t back, uint32_t *nbb)
{
	uint32_t i = ll->nrec - back, blk = ll->rec[i];

	*nbb = (i + 1 < ll->nrec ? ll->rec[i + 1] : ll->s.blk) - blk;
	for (uint32_t b = 0; b < *nbb; b++) {
		uint8_t *p = ll->s.img + synth_boff(&ll->s, blk + b);
		uint32_t keep = b ? 4 : 8;

		xfsj_put_be32(p + keep - 4, 1);
		memset(p + keep, 0, 512 - keep);
	}
	return blk;
}

static void find_on(struct xfsj_io *io, unsigned int flags,
		    struct xfsj_log_ht *ht, struct xfsj_log **keep)
{
	struct xfsj_log *log;
	struct xfsj_fault f = { 0 };

	ck_assert_int_eq(xfsj_log_open(io, NULL, 0, &log, &f), 0);
	ck_assert_int_eq(xfsj_log_find_head_tail_ex(log, ht, flags, &f), 0);
	if (keep)
		*keep = log;
	else
		xfsj_log_close(log);
}

static void find(const struct lostlog *ll, unsigned int flags,
		 struct xfsj_log_ht *ht)
{
	struct xfsj_io *io = synth_io(&ll->s);

	find_on(io, flags, ht, NULL);
	xfsj_io_close(io);
}

START_TEST(lost_stretch_found)
{
	struct lostlog *ll = malloc(sizeof(*ll));
	struct xfsj_log_ht ht, k;
	uint32_t nbb, g;

	two_cycles(ll, 5200);
	ck_assert_uint_gt(ll->nrec, 40);
	g = make_stale(ll, 20, &nbb);
	/* The kernel's view: the head is the stale record. */
	find(ll, 0, &k);
	ck_assert_uint_eq(k.head_blk, g);
	ck_assert(!k.lost);
	ck_assert(!k.verify_failed);
	/* Past it: 19 records up to the real head. */
	find(ll, XFSJ_HT_FIND_LOST, &ht);
	ck_assert(ht.lost);
	ck_assert_uint_eq(ht.lost_blk, g);
	ck_assert_uint_eq(ht.lost_next_blk, g + nbb);
	ck_assert_uint_eq(ht.lost_next_lsn, xfsj_lsn(2, g + nbb));
	ck_assert_uint_eq(ht.lost_records, 19);
	ck_assert_uint_eq(ht.head_blk, ll->s.blk);
	ck_assert_uint_eq(ht.cycle, 2);
	ck_assert_uint_eq(ht.tail_blk, k.tail_blk);
	ck_assert(ht.verify_failed);
	ck_assert_uint_eq(ht.bad_blk, g);
	ck_assert(!ht.clean);
	synth_free(&ll->s);
	free(ll);
}
END_TEST

START_TEST(torn_is_not_lost)
{
	struct lostlog *ll = malloc(sizeof(*ll));
	struct xfsj_log_ht ht;
	uint32_t nbb, g;

	/* Seven records after the hole: out-of-order log buffers can. */
	two_cycles(ll, 5200);
	g = make_stale(ll, 8, &nbb);
	find(ll, XFSJ_HT_FIND_LOST, &ht);
	ck_assert(!ht.lost);
	ck_assert_uint_eq(ht.head_blk, g);
	ck_assert(!ht.verify_failed);
	/* An undamaged log: nothing past the head. */
	synth_free(&ll->s);
	two_cycles(ll, 5200);
	find(ll, XFSJ_HT_FIND_LOST, &ht);
	ck_assert(!ht.lost);
	ck_assert_uint_eq(ht.head_blk, ll->s.blk);
	synth_free(&ll->s);
	free(ll);
}
END_TEST

static int on_damage(void *arg, const struct xfsj_log_damage *d)
{
	struct xfsj_log_damage *out = arg;

	if (!out->skipped_bbs)
		*out = *d;
	return 0;
}

static int on_fault(void *arg, const struct xfsj_fault *f, uint32_t blk)
{
	(void)arg;
	(void)f;
	(void)blk;
	return 0;
}

START_TEST(salvage_walk_says_stale)
{
	struct lostlog *ll = malloc(sizeof(*ll));
	struct xfsj_log_damage d = { 0 };
	struct xfsj_log_visitor v = {
		.arg = &d, .damage = on_damage, .fault = on_fault,
		.flags = XFSJ_LOGW_SALVAGE,
	};
	struct xfsj_fault f = { 0 };
	struct xfsj_log_ht ht;
	struct xfsj_log *log;
	struct xfsj_io *io;
	uint32_t nbb, g;

	two_cycles(ll, 5200);
	g = make_stale(ll, 20, &nbb);
	io = synth_io(&ll->s);
	find_on(io, XFSJ_HT_FIND_LOST, &ht, &log);
	ck_assert_int_eq(xfsj_log_walk_live(log, &v, &f), 0);
	ck_assert_uint_eq(d.bad_blk, g);
	ck_assert(d.stale);
	ck_assert(d.resumed);
	ck_assert_uint_eq(d.next_blk, g + nbb);
	ck_assert_uint_eq(d.skipped_bbs, nbb);
	xfsj_log_close(log);
	xfsj_io_close(io);
	/* A record of the same cycle damaged in place is not stale. */
	memset(&d, 0, sizeof(d));
	synth_free(&ll->s);
	two_cycles(ll, 5200);
	g = ll->rec[ll->nrec - 20];
	ll->s.img[synth_boff(&ll->s, g) + 600] ^= 0x5a;
	io = synth_io(&ll->s);
	find_on(io, 0, &ht, &log);
	ck_assert_int_eq(xfsj_log_walk_live(log, &v, &f), 0);
	ck_assert_uint_eq(d.bad_blk, g);
	ck_assert(!d.stale);
	xfsj_log_close(log);
	xfsj_io_close(io);
	synth_free(&ll->s);
	free(ll);
}
END_TEST

/*
 * A clean log written at the new head: with the stretch left stale the
 * kernel's search still stops at it (a dirty log ending there); restamped,
 * it finds the clean log.
 */
static void clean_after(struct lostlog *ll, bool restamp, uint32_t g,
			uint32_t nbb, struct xfsj_log_ht *out)
{
	struct xfsj_io *io = synth_io(&ll->s), *oio;
	struct xfsj_fault f = { 0 };
	struct xfsj_overlay *ov;
	struct xfsj_log_ht ht;
	struct xfsj_log *log;
	const struct xfsj_log_geom *lg;

	find_on(io, XFSJ_HT_FIND_LOST, &ht, &log);
	lg = xfsj_log_geom(log);
	ck_assert_int_eq(xfsj_overlay_create(io, &ov), 0);
	ck_assert_int_eq(xfsj_log_write_clean(ov, &lg->sb, lg->dev_off,
					      ht.head_blk, ht.cycle, &f), 0);
	if (restamp)
		ck_assert_int_eq(xfsj_log_restamp(ov, &lg->sb, lg->dev_off, g,
						  nbb, 2, ht.head_blk,
						  ht.cycle, &f), 0);
	ck_assert_int_eq(xfsj_overlay_io(ov, &oio), 0);
	find_on(oio, 0, out, NULL);
	xfsj_io_close(oio);
	xfsj_overlay_free(ov);
	xfsj_log_close(log);
	xfsj_io_close(io);
}

START_TEST(restamped_stretch)
{
	struct lostlog *ll = malloc(sizeof(*ll));
	struct xfsj_log_ht ht;
	uint32_t nbb, g;

	two_cycles(ll, 5200);
	g = make_stale(ll, 20, &nbb);
	clean_after(ll, false, g, nbb, &ht);
	ck_assert_uint_eq(ht.head_blk, g);
	ck_assert(!ht.clean);
	clean_after(ll, true, g, nbb, &ht);
	ck_assert(ht.clean);
	ck_assert_uint_gt(ht.head_blk, ll->s.blk);
	ck_assert_uint_eq(ht.tail_blk, ht.head_blk);
	synth_free(&ll->s);
	free(ll);
}
END_TEST

/*
 * A bad record at log block 0 in the middle of the live log (the records
 * all of one length, the log a multiple of it): the kernel takes a
 * failure there for no failure and its recovery fails; it is a bad
 * record in the middle all the same, named.
 */
START_TEST(bad_record_at_block_zero)
{
	struct lostlog *ll = malloc(sizeof(*ll));
	struct xfsj_log_ht ht;
	uint32_t r;

	two_cycles(ll, 64);
	r = ll->rec[1] - ll->rec[0];
	ck_assert_uint_eq(ll->rec[2] - ll->rec[1], r);
	synth_free(&ll->s);
	two_cycles_of(ll, LOGBB / r * r, 40 * r);
	ck_assert_uint_eq(ll->rec[0], 0);
	ll->s.img[synth_boff(&ll->s, 0) + 600] ^= 0x5a;
	find(ll, 0, &ht);
	ck_assert_uint_eq(ht.head_blk, ll->s.blk);
	ck_assert(ht.verify_failed);
	ck_assert_uint_eq(ht.bad_blk, 0);
	synth_free(&ll->s);
	free(ll);
}
END_TEST

Suite *log_lost_suite(void)
{
	Suite *s = suite_create("log_lost");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, lost_stretch_found);
	tcase_add_test(tc, torn_is_not_lost);
	tcase_add_test(tc, salvage_walk_says_stale);
	tcase_add_test(tc, restamped_stretch);
	tcase_add_test(tc, bad_record_at_block_zero);
	suite_add_tcase(s, tc);
	return s;
}
