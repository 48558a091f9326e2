/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Op parsing and transaction reassembly: regions split over records,
 * interleaved transactions, a continuation that comes after another
 * transaction's ops, r_lsn, bounded memory, and hostile op headers
 * (lengths past the record, op counts far too large, region counts of 0
 * or more than 257): reported as faults, the walk goes on, no crash.
 */
#include <stdlib.h>
#include <string.h>

#include "log_synth.h"
#include "suites.h"
#include "xfsj/layout.h"
#include "xfsj/logread.h"

struct seen {
	uint32_t trans, items, faults, records, ops;
	uint32_t tids[64];
	uint64_t lsns[64], commits[64];
	uint32_t nitems[64];
	uint32_t reglen[64][4];
	uint8_t first_byte[64][4];
	uint64_t max_open;
	const char *fault_field;
};

static int on_trans(void *arg, const struct xfsj_log_trans *t)
{
	struct seen *s = arg;

	if (s->trans < 64) {
		s->tids[s->trans] = t->rt.tid;
		s->lsns[s->trans] = t->rt.lsn;
		s->commits[s->trans] = t->commit_lsn;
		s->nitems[s->trans] = t->rt.nitems;
		for (uint32_t i = 0; i < t->rt.nitems && i < 1; i++)
			for (uint16_t r = 0; r < t->rt.items[i].nreg && r < 4; r++) {
				s->reglen[s->trans][r] = t->rt.items[i].reg[r].len;
				s->first_byte[s->trans][r] =
					t->rt.items[i].reg[r].p[t->rt.items[i].reg[r].len - 1];
			}
	}
	s->trans++;
	s->items += t->rt.nitems;
	return 0;
}

static int on_fault(void *arg, const struct xfsj_fault *f, uint32_t blk)
{
	struct seen *s = arg;

	(void)blk;
	ck_assert_ptr_nonnull(f->structure);
	ck_assert_ptr_nonnull(f->field);
	if (!s->faults)
		s->fault_field = f->field;
	s->faults++;
	return 0;
}

static int walk(struct synth *sy, struct seen *s)
{
	struct xfsj_io *io = synth_io(sy);
	struct xfsj_log *log;
	struct xfsj_log_ht ht;
	struct xfsj_fault f = { 0 };
	struct xfsj_log_walk_stats st;
	struct xfsj_log_visitor v = { 0 };
	int err;

	memset(s, 0, sizeof(*s));
	v.arg = s;
	v.trans = on_trans;
	v.fault = on_fault;
	v.flags = XFSJ_LOGW_DECODE;
	v.stats = &st;
	ck_assert_int_eq(xfsj_log_open(io, NULL, 0, &log, &f), 0);
	err = xfsj_log_find_head_tail(log, &ht, &f);
	if (!err)
		err = xfsj_log_walk(log, 0, sy->blk, &v, &f);
	s->max_open = st.max_open_bytes;
	s->records = (uint32_t)st.records;
	s->ops = (uint32_t)st.ops;
	xfsj_log_close(log);
	xfsj_io_close(io);
	return err;
}

static void buf_item(struct synth *sy, uint32_t tid, uint64_t blkno,
		     uint32_t bytes, uint8_t fill)
{
	uint8_t fmt[128];
	uint8_t *d = malloc(bytes);
	uint32_t n = synth_buf_fmt(fmt, blkno, (uint16_t)(bytes / 512 ? bytes / 512 : 1),
				   0, bytes / 128, 2);

	memset(d, fill, bytes);
	synth_region(sy, tid, fmt, n);
	synth_region(sy, tid, d, bytes);
	free(d);
}

START_TEST(split_regions)
{
	struct synth sy;
	struct seen s;

	synth_init(&sy, 4096, 16384);
	synth_start(&sy, 0x11, 2);
	buf_item(&sy, 0x11, 800, 40960, 0x77);	/* spans three records */
	synth_commit(&sy, 0x11);
	synth_flush(&sy);
	ck_assert_int_eq(walk(&sy, &s), 0);
	ck_assert_uint_eq(s.faults, 0);
	ck_assert_uint_eq(s.trans, 1);
	ck_assert_uint_eq(s.nitems[0], 1);
	ck_assert_uint_eq(s.reglen[0][1], 40960);
	ck_assert_uint_eq(s.first_byte[0][1], 0x77);
	ck_assert_uint_ge(s.records, 3);
	ck_assert_uint_eq(s.lsns[0], xfsj_lsn(1, 0));
	ck_assert_uint_gt(s.commits[0], s.lsns[0]);
	synth_free(&sy);
}
END_TEST

START_TEST(interleaved_tids)
{
	struct synth sy;
	struct seen s;
	uint8_t fmt[64], d[256];
	uint32_t n = synth_buf_fmt(fmt, 16, 1, 0, 2, 2);

	synth_init(&sy, 2048, 32768);
	memset(d, 3, sizeof(d));
	synth_start(&sy, 0xa, 4);
	synth_start(&sy, 0xb, 2);
	synth_region(&sy, 0xa, fmt, n);
	synth_region(&sy, 0xb, fmt, n);
	synth_region(&sy, 0xa, d, 256);
	synth_flush(&sy);
	synth_region(&sy, 0xb, d, 256);
	synth_region(&sy, 0xa, fmt, n);
	synth_region(&sy, 0xa, d, 256);
	synth_commit(&sy, 0xb);
	synth_commit(&sy, 0xa);
	synth_flush(&sy);
	ck_assert_int_eq(walk(&sy, &s), 0);
	ck_assert_uint_eq(s.faults, 0);
	ck_assert_uint_eq(s.trans, 2);
	ck_assert_uint_eq(s.tids[0], 0xb);
	ck_assert_uint_eq(s.nitems[0], 1);
	ck_assert_uint_eq(s.tids[1], 0xa);
	ck_assert_uint_eq(s.nitems[1], 2);
	/* Both started in the first record. */
	ck_assert_uint_eq(s.lsns[0], xfsj_lsn(1, 0));
	ck_assert_uint_eq(s.lsns[1], xfsj_lsn(1, 0));
	synth_free(&sy);
}
END_TEST

START_TEST(continuation_after_other_tid)
{
	struct synth sy;
	struct seen s;
	uint8_t fmt[64], d[4096];
	uint32_t n = synth_buf_fmt(fmt, 16, 8, 0, 32, 2);

	synth_init(&sy, 2048, 32768);
	memset(d, 9, sizeof(d));
	synth_start(&sy, 0xc, 2);
	synth_region(&sy, 0xc, fmt, n);
	/* First piece of a region, flagged CONTINUE, ending the record. */
	synth_op(&sy, 0xc, 0x69, 0x04, d, 1000);
	synth_flush(&sy);
	/* A whole other checkpoint comes before the continuation. */
	synth_start(&sy, 0xd, 2);
	synth_region(&sy, 0xd, fmt, n);
	synth_region(&sy, 0xd, d, 4096);
	synth_commit(&sy, 0xd);
	synth_op(&sy, 0xc, 0x69, 0x08 | 0x10, d, 3096);
	synth_commit(&sy, 0xc);
	synth_flush(&sy);
	ck_assert_int_eq(walk(&sy, &s), 0);
	ck_assert_uint_eq(s.faults, 0);
	ck_assert_uint_eq(s.trans, 2);
	ck_assert_uint_eq(s.tids[1], 0xc);
	ck_assert_uint_eq(s.reglen[1][1], 4096);
	synth_free(&sy);
}
END_TEST

START_TEST(memory_bounded)
{
	struct synth sy;
	struct seen s;

	/* Many transactions one after another: the footprint is one. */
	synth_init(&sy, 16384, 32768);
	for (uint32_t i = 0; i < 300; i++) {
		synth_start(&sy, 0x1000 + i, 2);
		buf_item(&sy, 0x1000 + i, 64 + i, 4096, (uint8_t)i);
		synth_commit(&sy, 0x1000 + i);
	}
	synth_flush(&sy);
	ck_assert_int_eq(walk(&sy, &s), 0);
	ck_assert_uint_eq(s.trans, 300);
	ck_assert_uint_lt(s.max_open, 3 * 4096);
	synth_free(&sy);
}
END_TEST

START_TEST(hostile_lengths)
{
	struct synth sy;
	struct seen s;
	uint8_t fmt[64], d[512];
	uint32_t n = synth_buf_fmt(fmt, 16, 1, 0, 4, 2);
	uint8_t *rec;

	synth_init(&sy, 2048, 32768);
	memset(d, 1, sizeof(d));
	synth_start(&sy, 0xe, 2);
	synth_region(&sy, 0xe, fmt, n);
	synth_region(&sy, 0xe, d, 512);
	synth_commit(&sy, 0xe);
	synth_flush(&sy);
	synth_start(&sy, 0xf, 2);
	synth_region(&sy, 0xf, fmt, n);
	synth_region(&sy, 0xf, d, 512);
	synth_commit(&sy, 0xf);
	synth_flush(&sy);
	sy.no_crc = true;
	rec = sy.img + synth_boff(&sy, sy.last_blk);

	/* oh_len of the second op points past the record. */
	{
		uint8_t save[4];
		uint8_t *oh = sy.img + synth_boff(&sy, sy.last_blk + 1) + 12 + 4;

		memcpy(save, oh, 4);
		xfsj_put_be32(oh, 0x7fffffff);
		walk(&sy, &s);
		ck_assert_uint_ge(s.faults, 1);
		ck_assert_uint_eq(s.trans, 1);
		memcpy(oh, save, 4);
	}
	/* h_num_logops far too large: the ops stop at the record end. */
	xfsj_put_be32(rec + 40, 0xffffffff);
	memset(rec + 32, 0, 4);		/* no CRC */
	walk(&sy, &s);
	ck_assert_uint_eq(s.trans, 2);
	synth_free(&sy);
}
END_TEST

START_TEST(bad_region_counts)
{
	uint16_t counts[] = { 0, 258, 0xffff };

	for (unsigned int c = 0; c < 3; c++) {
		struct synth sy;
		struct seen s;
		uint8_t fmt[64], d[128];
		uint32_t n = synth_buf_fmt(fmt, 16, 1, 0, 1, counts[c]);

		synth_init(&sy, 2048, 32768);
		memset(d, 1, sizeof(d));
		synth_start(&sy, 0x21, 2);
		synth_region(&sy, 0x21, fmt, n);
		synth_region(&sy, 0x21, d, 128);
		synth_commit(&sy, 0x21);
		synth_start(&sy, 0x22, 2);
		synth_region(&sy, 0x22, fmt, synth_buf_fmt(fmt, 16, 1, 0, 1, 2));
		synth_region(&sy, 0x22, d, 128);
		synth_commit(&sy, 0x22);
		synth_flush(&sy);
		ck_assert_int_eq(walk(&sy, &s), 0);
		ck_assert_uint_eq(s.faults, 1);
		ck_assert_str_eq(s.fault_field, "size");
		/* The bad one is dropped, the next one is intact. */
		ck_assert_uint_eq(s.trans, 1);
		ck_assert_uint_eq(s.tids[0], 0x22);
		synth_free(&sy);
	}
}
END_TEST

START_TEST(bad_trans_header_and_flags)
{
	struct synth sy;
	struct seen s;
	uint8_t junk[16] = { 1, 2, 3, 4 };

	synth_init(&sy, 2048, 32768);
	synth_op(&sy, 0x31, 0x69, 0x01, NULL, 0);
	synth_op(&sy, 0x31, 0x69, 0, junk, 16);		/* no TRAN magic */
	synth_commit(&sy, 0x31);
	synth_op(&sy, 0x32, 0x69, 0x01, NULL, 0);
	synth_op(&sy, 0x32, 0x69, 0x01, NULL, 0);	/* START twice */
	synth_op(&sy, 0x33, 0x55, 0, junk, 16);		/* bad client id */
	synth_flush(&sy);
	ck_assert_int_eq(walk(&sy, &s), 0);
	ck_assert_uint_eq(s.faults, 3);
	ck_assert_uint_eq(s.trans, 0);
	synth_free(&sy);
}
END_TEST

/* Random bytes in the data of a record: whatever happens, it ends. */
START_TEST(random_payload_bits)
{
	struct synth sy;
	struct seen s;

	synth_init(&sy, 4096, 32768);
	sy.no_crc = true;
	for (uint32_t i = 0; i < 40; i++) {
		synth_start(&sy, 0x2000 + i, 2);
		buf_item(&sy, 0x2000 + i, 64 + i, 2048, (uint8_t)i);
		synth_commit(&sy, 0x2000 + i);
	}
	synth_flush(&sy);
	srand(12345);
	for (int round = 0; round < 200; round++) {
		uint32_t blk = (uint32_t)rand() % sy.blk;
		uint32_t off = 4 + (uint32_t)rand() % 508;
		uint8_t *p = sy.img + synth_boff(&sy, blk) + off;
		uint8_t old = *p;

		/* Leave the record headers alone: payload bytes only. */
		if (xfsj_get_be32(sy.img + synth_boff(&sy, blk)) == 0xfeedbabe)
			continue;
		*p ^= (uint8_t)(1 << (rand() % 8));
		walk(&sy, &s);
		*p = old;
	}
	synth_free(&sy);
}
END_TEST

Suite *log_trans_suite(void)
{
	Suite *s = suite_create("log_trans");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, split_regions);
	tcase_add_test(tc, interleaved_tids);
	tcase_add_test(tc, continuation_after_other_tid);
	tcase_add_test(tc, memory_bounded);
	tcase_add_test(tc, hostile_lengths);
	tcase_add_test(tc, bad_region_counts);
	tcase_add_test(tc, bad_trans_header_and_flags);
	tcase_add_test(tc, random_payload_bits);
	suite_add_tcase(s, tc);
	return s;
}
