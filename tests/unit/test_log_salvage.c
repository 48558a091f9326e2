/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The salvage walk (XFSJ_LOGW_SALVAGE) and xfsj_log_resync() on a
 * synthetic log with one damaged record in the middle: the damage is
 * reported once, the walk goes on at the next record, the transactions
 * that lost ops to it come out partial (with the items that could still
 * be reassembled, picked up again at the next item after the damage),
 * and the others whole.
 */
#include <stdlib.h>
#include <string.h>

#include "log_synth.h"
#include "suites.h"
#include "core/layout.h"
#include "xfsj/logread.h"
#include "xfsj/salvage.h"

#define MAXT 16

struct sal {
	uint32_t trans, faults, damages;
	uint32_t tids[MAXT], nitems[MAXT];
	bool partial[MAXT];
	uint32_t nranges[MAXT];		/* xfsj_salvage_collect() of it */
	uint64_t range0[MAXT];
	uint64_t blkno[MAXT][4];	/* each item's buffer, decoded */
	struct xfsj_log_damage d;
};

static int on_trans(void *arg, const struct xfsj_log_trans *t)
{
	struct sal *s = arg;

	if (s->trans < MAXT) {
		s->tids[s->trans] = t->rt.tid;
		s->nitems[s->trans] = t->rt.nitems;
		s->partial[s->trans] = t->partial;
		for (uint32_t i = 0; i < t->rt.nitems && i < 4; i++)
			s->blkno[s->trans][i] = t->info[i].u.buf.blkno;
		if (t->partial) {
			struct xfsj_salvage_trans st;

			ck_assert_int_eq(xfsj_salvage_collect(t, &st), 0);
			ck_assert_uint_eq(st.tid, t->rt.tid);
			ck_assert_uint_eq(st.nitems, t->rt.nitems);
			s->nranges[s->trans] = st.nranges;
			s->range0[s->trans] = st.nranges ? st.ranges[0].daddr : 0;
			xfsj_salvage_trans_free(&st);
		}
	}
	s->trans++;
	return 0;
}

static int on_fault(void *arg, const struct xfsj_fault *f, uint32_t blk)
{
	struct sal *s = arg;

	(void)blk;
	ck_assert_ptr_nonnull(f->structure);
	s->faults++;
	return 0;
}

static int on_damage(void *arg, const struct xfsj_log_damage *d)
{
	struct sal *s = arg;

	if (!s->damages++)
		s->d = *d;
	return 0;
}

static void buf_item(struct synth *sy, uint32_t tid, uint64_t blkno)
{
	uint8_t fmt[128], d[1024];
	uint32_t n = synth_buf_fmt(fmt, blkno, 2, 0, 8, 2);

	memset(d, (int)(blkno & 0xff), sizeof(d));
	synth_region(sy, tid, fmt, n);
	synth_region(sy, tid, d, sizeof(d));
}

/*
 * Records A..E: T1 whole in A; T2 starts in B, has an item in C and one
 * in D, commits in D; T5 starts in C (its START lost with C), commits in
 * D; T3 whole in D; T4 whole in E.  Returns the header block of C.
 */
static uint32_t build(struct synth *sy, uint32_t *blk_d)
{
	uint32_t c;

	synth_init(sy, 4096, 16384);
	synth_start(sy, 0x1, 2);
	buf_item(sy, 0x1, 100);
	synth_commit(sy, 0x1);
	synth_flush(sy);
	synth_start(sy, 0x2, 6);
	buf_item(sy, 0x2, 200);
	synth_flush(sy);
	buf_item(sy, 0x2, 201);
	synth_start(sy, 0x5, 2);
	synth_flush(sy);
	c = sy->last_blk;
	buf_item(sy, 0x5, 500);
	buf_item(sy, 0x2, 202);
	synth_commit(sy, 0x2);
	synth_commit(sy, 0x5);
	synth_start(sy, 0x3, 2);
	buf_item(sy, 0x3, 300);
	synth_commit(sy, 0x3);
	synth_flush(sy);
	*blk_d = sy->last_blk;
	synth_start(sy, 0x4, 2);
	buf_item(sy, 0x4, 400);
	synth_commit(sy, 0x4);
	synth_flush(sy);
	return c;
}

static int walk(struct synth *sy, unsigned int flags, struct sal *s)
{
	struct xfsj_io *io = synth_io(sy);
	struct xfsj_log *log;
	struct xfsj_fault f = { 0 };
	struct xfsj_log_visitor v = {
		.arg = s, .trans = on_trans, .fault = on_fault,
		.damage = on_damage, .flags = flags | XFSJ_LOGW_DECODE,
	};
	int err;

	memset(s, 0, sizeof(*s));
	ck_assert_int_eq(xfsj_log_open(io, NULL, 0, &log, &f), 0);
	err = xfsj_log_walk(log, 0, sy->blk, &v, &f);
	xfsj_log_close(log);
	xfsj_io_close(io);
	return err;
}

static int find(const struct sal *s, uint32_t tid)
{
	for (uint32_t i = 0; i < s->trans && i < MAXT; i++)
		if (s->tids[i] == tid)
			return (int)i;
	return -1;
}

START_TEST(undamaged_is_whole)
{
	struct synth sy;
	struct sal s;
	uint32_t d;

	build(&sy, &d);
	ck_assert_int_eq(walk(&sy, XFSJ_LOGW_SALVAGE, &s), 0);
	ck_assert_uint_eq(s.faults, 0);
	ck_assert_uint_eq(s.damages, 0);
	ck_assert_uint_eq(s.trans, 5);
	for (uint32_t i = 0; i < 5; i++)
		ck_assert(!s.partial[i]);
	synth_free(&sy);
}
END_TEST

static void check_common(const struct sal *s, uint32_t c, uint32_t d)
{
	int i1 = find(s, 0x1), i2 = find(s, 0x2), i3 = find(s, 0x3);
	int i4 = find(s, 0x4), i5 = find(s, 0x5);

	ck_assert_uint_eq(s->faults, 1);
	ck_assert_uint_eq(s->damages, 1);
	ck_assert_uint_eq(s->d.bad_blk, c);
	ck_assert(s->d.resumed);
	ck_assert_uint_eq(s->d.next_blk, d);
	ck_assert_uint_eq(s->d.next_lsn, xfsj_lsn(1, d));
	ck_assert_uint_eq(s->d.open_trans, s->d.bad_crc ? 2 : 1);
	ck_assert_int_ge(i1, 0);
	ck_assert_int_ge(i2, 0);
	ck_assert_int_ge(i3, 0);
	ck_assert_int_ge(i4, 0);
	ck_assert_int_ge(i5, 0);
	ck_assert(!s->partial[i1] && !s->partial[i3] && !s->partial[i4]);
	ck_assert(s->partial[i2] && s->partial[i5]);
	/* T2: its item before the damage and the one after it. */
	ck_assert_uint_eq(s->blkno[i2][0], 200);
	ck_assert_uint_eq(s->blkno[i2][s->nitems[i2] - 1], 202);
	ck_assert_uint_eq(s->blkno[i5][s->nitems[i5] - 1], 500);
	ck_assert_uint_eq(s->blkno[i3][0], 300);
}

START_TEST(bad_crc_record)
{
	struct synth sy;
	struct sal s;
	uint32_t d, c = build(&sy, &d);

	sy.img[synth_boff(&sy, c) + 512 + 700] ^= 0x5a;
	/* Without salvage the damage stops a walk whose fault says stop. */
	ck_assert_int_eq(walk(&sy, XFSJ_LOGW_SALVAGE, &s), 0);
	ck_assert(s.d.bad_crc);
	ck_assert_uint_eq(s.d.bad_lsn, xfsj_lsn(1, c));
	check_common(&s, c, d);
	/* T2's item in the damaged record is reported (read from it). */
	ck_assert_uint_eq(s.nitems[find(&s, 0x2)], 3);
	/* What the loss report gets: the three buffers, in log order. */
	ck_assert_uint_eq(s.nranges[find(&s, 0x2)], 3);
	ck_assert_uint_eq(s.range0[find(&s, 0x2)], 200);
	synth_free(&sy);
}
END_TEST

START_TEST(zeroed_record)
{
	struct synth sy;
	struct sal s;
	uint32_t d, c = build(&sy, &d);

	memset(sy.img + synth_boff(&sy, c), 0, (size_t)(d - c) * 512);
	ck_assert_int_eq(walk(&sy, XFSJ_LOGW_SALVAGE, &s), 0);
	ck_assert(!s.d.bad_crc);
	ck_assert_uint_eq(s.d.skipped_bbs, d - c);
	check_common(&s, c, d);
	ck_assert_uint_eq(s.nitems[find(&s, 0x2)], 2);
	ck_assert_uint_eq(s.nitems[find(&s, 0x5)], 1);
	synth_free(&sy);
}
END_TEST

/*
 * Records A..D: T1 whole in A; T@tid starts in B with buffer items
 * @tid * 100 and @tid * 100 + 1, the data of the second split into C,
 * where it commits; T3 whole in D.  Fills the header blocks of B, C, D.
 */
static void build_split(struct synth *sy, uint32_t tid, uint32_t *b,
			uint32_t *c, uint32_t *d)
{
	synth_init(sy, 4096, 2048);
	synth_start(sy, 0x1, 2);
	buf_item(sy, 0x1, 100);
	synth_commit(sy, 0x1);
	synth_flush(sy);
	*b = sy->blk;
	synth_start(sy, tid, 4);
	buf_item(sy, tid, tid * 100);
	buf_item(sy, tid, tid * 100 + 1);
	synth_commit(sy, tid);
	synth_flush(sy);
	*c = sy->last_blk;
	ck_assert_uint_ne(*c, *b);
	synth_start(sy, 0x3, 2);
	buf_item(sy, 0x3, 300);
	synth_commit(sy, 0x3);
	synth_flush(sy);
	*d = sy->last_blk;
}

/* The salvage walk of build_split()'s log: T@tid partial, both items. */
static void walk_split(struct synth *sy, uint32_t tid, struct sal *s)
{
	int i;

	ck_assert_int_eq(walk(sy, XFSJ_LOGW_SALVAGE, s), 0);
	ck_assert_uint_eq(s->damages, 1);
	i = find(s, tid);
	ck_assert_int_ge(i, 0);
	ck_assert(s->partial[i]);
	ck_assert_uint_eq(s->nitems[i], 2);
	ck_assert_uint_eq(s->blkno[i][1], tid * 100 + 1);
	ck_assert_uint_eq(s->nranges[i], 2);
	ck_assert(!s->partial[find(s, 0x3)]);
}

/*
 * A region split across a record whose CRC failed and the next record,
 * good and right after it: the op stream is unbroken, so the item is
 * whole for the loss report (the transaction is still partial).
 */
START_TEST(split_region_kept)
{
	struct synth sy;
	struct sal s;
	uint32_t b, c, d;

	build_split(&sy, 6, &b, &c, &d);
	sy.img[synth_boff(&sy, b) + 512 + 600] ^= 0x5a;
	walk_split(&sy, 6, &s);
	ck_assert(s.d.bad_crc);
	ck_assert_uint_eq(s.d.bad_blk, b);
	synth_free(&sy);
}
END_TEST

/*
 * A region split across a good record and a zeroed one: the item is cut
 * short where the damage begins, but what its format says (the buffer)
 * still goes to the loss report.
 */
START_TEST(cut_item_reported)
{
	struct synth sy;
	struct sal s;
	uint32_t b, c, d;

	build_split(&sy, 7, &b, &c, &d);
	memset(sy.img + synth_boff(&sy, c), 0, (size_t)(d - c) * 512);
	walk_split(&sy, 7, &s);
	ck_assert(!s.d.bad_crc);
	ck_assert_uint_eq(s.d.bad_blk, c);
	synth_free(&sy);
}
END_TEST

START_TEST(resync_rules)
{
	struct synth sy;
	struct xfsj_io *io;
	struct xfsj_log *log;
	struct xfsj_fault f = { 0 };
	uint32_t d, next = 0, c = build(&sy, &d);
	uint64_t lsn = 0;

	io = synth_io(&sy);
	ck_assert_int_eq(xfsj_log_open(io, NULL, 0, &log, &f), 0);
	/* From inside record C: the next header is D's. */
	ck_assert_int_eq(xfsj_log_resync(log, c + 1, sy.blk - c - 1, 0,
					 &next, &lsn, &f), 0);
	ck_assert_uint_eq(next, d);
	ck_assert_uint_eq(lsn, xfsj_lsn(1, d));
	/* Nothing newer than the last record: none. */
	ck_assert_int_eq(xfsj_log_resync(log, c + 1, sy.blk - c - 1,
					 xfsj_lsn(1, sy.last_blk), &next, &lsn,
					 &f), 1);
	/* A record that does not fit in what is left is not taken. */
	ck_assert_int_eq(xfsj_log_resync(log, d, 1, 0, &next, &lsn, &f), 1);
	xfsj_log_close(log);
	xfsj_io_close(io);

	/* A stray header whose LSN names another block is not a record. */
	memcpy(sy.img + synth_boff(&sy, c + 1), sy.img + synth_boff(&sy, d),
	       512);
	io = synth_io(&sy);
	ck_assert_int_eq(xfsj_log_open(io, NULL, 0, &log, &f), 0);
	ck_assert_int_eq(xfsj_log_resync(log, c + 1, sy.blk - c - 1, 0,
					 &next, &lsn, &f), 0);
	ck_assert_uint_eq(next, d);
	xfsj_log_close(log);
	xfsj_io_close(io);
	synth_free(&sy);
}
END_TEST

Suite *log_salvage_suite(void)
{
	Suite *s = suite_create("log_salvage");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, undamaged_is_whole);
	tcase_add_test(tc, bad_crc_record);
	tcase_add_test(tc, zeroed_record);
	tcase_add_test(tc, split_region_kept);
	tcase_add_test(tc, cut_item_reported);
	tcase_add_test(tc, resync_rules);
	suite_add_tcase(s, tc);
	return s;
}
