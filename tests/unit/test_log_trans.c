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
#include "core/layout.h"
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

/* ---- where a bad item is, and damage behind a valid CRC ---- */

struct itemfault {
	uint32_t bad;
	uint64_t dev_off;
	uint32_t blk;
	uint16_t reg;
	const char *field;
};

static int on_trans_fault(void *arg, const struct xfsj_log_trans *t)
{
	struct itemfault *x = arg;

	for (uint32_t i = 0; i < t->rt.nitems; i++) {
		if (!t->info[i].err)
			continue;
		if (!x->bad++) {
			x->dev_off = t->info[i].fault_dev_off;
			x->blk = t->info[i].fault_blk;
			x->reg = t->info[i].fault_reg;
			x->field = t->info[i].fault.field;
		}
	}
	return 0;
}

/* The image offset of the first copy of @m (8 bytes) in the log. */
static uint64_t find_marker(const struct synth *sy, const uint8_t *m)
{
	for (uint64_t o = sy->log_off; o + 8 <= sy->size; o++)
		if (!memcmp(sy->img + o, m, 8))
			return o;
	return 0;
}

/*
 * An INODE item whose logged dinode is too short: the decoder's fault
 * names region 1, and the walk turns that into the device byte offset of
 * the region's first byte, also when the item sits in a later record.
 */
START_TEST(item_fault_device_offset)
{
	static const uint8_t marker[8] = {
		0xd1, 0x5e, 0xa5, 0xe0, 0x17, 0x42, 0x99, 0x3c,
	};

	for (int later = 0; later < 2; later++) {
		struct synth sy;
		struct itemfault x = { 0 };
		struct xfsj_log_visitor v = { 0 };
		struct xfsj_io *io;
		struct xfsj_log *log;
		struct xfsj_log_ht ht;
		struct xfsj_fault f = { 0 };
		uint8_t fmt[56] = { 0 }, core[40];
		uint64_t want;

		synth_init(&sy, 4096, 16384);
		synth_start(&sy, 0x51, later ? 4 : 2);
		if (later)
			buf_item(&sy, 0x51, 900, 20480, 0x33);
		synth_le16(fmt, XFSJ_LI_INODE);
		synth_le16(fmt + 2, 2);
		synth_le32(fmt + 4, 1);		/* the core only */
		synth_le64(fmt + 16, 0x1234);
		memset(core, 0x44, sizeof(core));
		memcpy(core + 8, marker, 8);
		synth_region(&sy, 0x51, fmt, sizeof(fmt));
		synth_region(&sy, 0x51, core, sizeof(core));
		synth_commit(&sy, 0x51);
		synth_flush(&sy);
		want = find_marker(&sy, marker);
		ck_assert_uint_gt(want, 0);
		want -= 8;

		v.arg = &x;
		v.trans = on_trans_fault;
		v.flags = XFSJ_LOGW_DECODE;
		io = synth_io(&sy);
		ck_assert_int_eq(xfsj_log_open(io, NULL, 0, &log, &f), 0);
		ck_assert_int_eq(xfsj_log_find_head_tail(log, &ht, &f), 0);
		ck_assert_int_eq(xfsj_log_walk_live(log, &v, &f), 0);
		ck_assert_uint_eq(x.bad, 1);
		ck_assert_str_eq(x.field, "length");
		ck_assert_uint_eq(x.reg, 1);
		ck_assert_uint_eq(x.dev_off, want);
		ck_assert_uint_eq(x.blk, later ? sy.last_blk : 0);
		xfsj_log_close(log);
		xfsj_io_close(io);
		synth_free(&sy);
	}
}
END_TEST

static int on_record(void *arg, const struct xfsj_log_rec *r)
{
	(void)arg;
	(void)r;
	return 0;
}

/*
 * An op length past the record, behind a valid CRC: a records-only walk
 * sees it with XFSJ_LOGW_CHECKOPS, not without.
 */
START_TEST(checkops_behind_valid_crc)
{
	struct synth sy;
	struct seen s = { 0 };
	struct xfsj_log_visitor v = { 0 };
	struct xfsj_io *io;
	struct xfsj_log *log;
	struct xfsj_log_ht ht;
	struct xfsj_fault f = { 0 };

	synth_init(&sy, 2048, 32768);
	synth_start(&sy, 0x61, 2);
	buf_item(&sy, 0x61, 64, 1024, 0x5a);
	synth_commit(&sy, 0x61);
	/* The second op's length, before the record is written (and summed). */
	synth_le32(sy.data + 12 + 4, 0);
	sy.data[12 + 4] = 0xf0;
	sy.data[12 + 5] = 0xff;
	sy.data[12 + 6] = 0xff;
	sy.data[12 + 7] = 0x7f;
	synth_flush(&sy);
	io = synth_io(&sy);
	ck_assert_int_eq(xfsj_log_open(io, NULL, 0, &log, &f), 0);
	ck_assert_int_eq(xfsj_log_find_head_tail(log, &ht, &f), 0);
	v.arg = &s;
	v.record = on_record;
	v.fault = on_fault;
	ck_assert_int_eq(xfsj_log_walk_live(log, &v, &f), 0);
	ck_assert_uint_eq(s.faults, 0);
	v.flags = XFSJ_LOGW_CHECKOPS;
	ck_assert_int_eq(xfsj_log_walk_live(log, &v, &f), 0);
	ck_assert_uint_eq(s.faults, 1);
	ck_assert_str_eq(s.fault_field, "oh_len");
	xfsj_log_close(log);
	xfsj_io_close(io);
	synth_free(&sy);
}
END_TEST

struct crcfault {
	uint32_t n, blk;
	const char *field;
};

static int on_crc_fault(void *arg, const struct xfsj_fault *f, uint32_t blk)
{
	struct crcfault *c = arg;

	if (!c->n++) {
		c->blk = blk;
		c->field = f->field;
	}
	return 0;
}

static int on_trans_none(void *arg, const struct xfsj_log_trans *t)
{
	(void)arg;
	(void)t;
	return 0;
}

/*
 * A bad record far from the head: without deferral the head and tail
 * search says verify_failed; with XFSJ_HT_DEFER_VERIFY head and tail are
 * the same, the check is deferred, and the walk of the live log reports
 * that record.
 */
START_TEST(deferred_verification)
{
	struct synth sy;
	struct xfsj_io *io;
	struct xfsj_log *log;
	struct xfsj_log_ht ht, hd;
	struct xfsj_fault f = { 0 };
	struct xfsj_log_visitor v = { 0 };
	struct crcfault c = { 0 };
	uint32_t bad = 0;

	synth_init(&sy, 8192, 32768);
	for (uint32_t i = 0; i < 60; i++) {
		synth_start(&sy, 0x700 + i, 2);
		buf_item(&sy, 0x700 + i, 64 + 8 * i, 24576, (uint8_t)i);
		synth_commit(&sy, 0x700 + i);
		if (i == 3) {
			synth_flush(&sy);
			bad = sy.last_blk;
		}
	}
	synth_flush(&sy);
	ck_assert_uint_gt(bad, 0);
	/* One bit of that record's data. */
	sy.img[synth_boff(&sy, bad + 1) + 100] ^= 4;
	io = synth_io(&sy);
	ck_assert_int_eq(xfsj_log_open(io, NULL, 0, &log, &f), 0);
	ck_assert_int_eq(xfsj_log_find_head_tail(log, &ht, &f), 0);
	ck_assert(ht.verify_failed);
	ck_assert_uint_eq(ht.bad_blk, bad);
	ck_assert(!ht.crc_deferred);
	ck_assert_int_eq(xfsj_log_find_head_tail_ex(log, &hd,
						    XFSJ_HT_DEFER_VERIFY, &f), 0);
	ck_assert(!hd.verify_failed);
	ck_assert(hd.crc_deferred);
	ck_assert_uint_eq(hd.head_blk, ht.head_blk);
	ck_assert_uint_eq(hd.tail_blk, ht.tail_blk);
	v.arg = &c;
	v.trans = on_trans_none;
	v.fault = on_crc_fault;
	ck_assert_int_eq(xfsj_log_walk_live(log, &v, &f), 0);
	ck_assert_uint_ge(c.n, 1);
	ck_assert_uint_eq(c.blk, bad);
	ck_assert_str_eq(c.field, "h_crc");
	xfsj_log_close(log);
	xfsj_io_close(io);
	/* The pristine log: deferred, and the walk finds nothing. */
	sy.img[synth_boff(&sy, bad + 1) + 100] ^= 4;
	memset(&c, 0, sizeof(c));
	io = synth_io(&sy);
	ck_assert_int_eq(xfsj_log_open(io, NULL, 0, &log, &f), 0);
	ck_assert_int_eq(xfsj_log_find_head_tail_ex(log, &hd,
						    XFSJ_HT_DEFER_VERIFY, &f), 0);
	ck_assert(hd.crc_deferred);
	ck_assert_int_eq(xfsj_log_walk_live(log, &v, &f), 0);
	ck_assert_uint_eq(c.n, 0);
	xfsj_log_close(log);
	xfsj_io_close(io);
	synth_free(&sy);
}
END_TEST

/* ---- a live log long enough for the read-ahead thread ---- */

struct longseen {
	uint32_t trans, first_tid, last_tid, bad_order, bad_data;
	uint32_t faults, fault_blk;
};

static int on_long_trans(void *arg, const struct xfsj_log_trans *t)
{
	struct longseen *x = arg;

	if (!x->trans)
		x->first_tid = t->rt.tid;
	else if (t->rt.tid != x->last_tid + 1)
		x->bad_order++;
	x->last_tid = t->rt.tid;
	x->trans++;
	for (uint32_t i = 0; i < t->rt.nitems; i++) {
		const struct xfsj_ritem *it = &t->rt.items[i];

		if (it->nreg < 2)
			continue;
		/* Every byte of the data region is the tid's low byte. */
		for (uint32_t k = 0; k < it->reg[1].len; k++)
			if (it->reg[1].p[k] != (uint8_t)t->rt.tid) {
				x->bad_data++;
				break;
			}
	}
	return 0;
}

static int on_long_fault(void *arg, const struct xfsj_fault *f, uint32_t blk)
{
	struct longseen *x = arg;

	(void)f;
	if (!x->faults++)
		x->fault_blk = blk;
	return 0;
}

/*
 * 50000 blocks, written around twice, the tail some 45000 blocks behind
 * the head: the walk and the CRC pass read it through the read-ahead
 * thread in chunks that wrap at the physical end.  Every transaction
 * comes out once, in order, with its bytes intact; a bad record far from
 * the head is found by the full check and by the deferred one alike.
 */
START_TEST(long_wrapped_walk)
{
	struct synth sy;
	static uint32_t starts[4096], cycles[4096];
	uint32_t nrec = 0, tid = 0x10000, tail_i = 0, bad = 0;

	synth_init(&sy, 50000, 65536);
	sy.auto_tail = false;
	while (sy.cycle < 3 || sy.blk < 20000) {
		uint32_t size = 1024 + (tid * 7919) % 40000;
		uint64_t back;

		/* The tail: the oldest record within 45000 blocks. */
		while (tail_i < nrec) {
			back = ((uint64_t)sy.cycle * 50000 + sy.blk) -
			       ((uint64_t)cycles[tail_i % 4096] * 50000 +
				starts[tail_i % 4096]);
			if (back <= 45000)
				break;
			tail_i++;
		}
		sy.tail_lsn = tail_i < nrec ?
			      xfsj_lsn(cycles[tail_i % 4096], starts[tail_i % 4096]) :
			      xfsj_lsn(sy.cycle, sy.blk);
		starts[nrec % 4096] = sy.blk;
		cycles[nrec % 4096] = sy.cycle;
		nrec++;
		synth_start(&sy, tid, 2);
		buf_item(&sy, tid, 64 + (tid % 64) * 8, size & ~127U,
			 (uint8_t)tid);
		synth_commit(&sy, tid);
		synth_flush(&sy);
		tid++;
		ck_assert_uint_lt(nrec - tail_i, 4096);
	}
	for (int damaged = 0; damaged < 2; damaged++) {
		struct xfsj_io *io;
		struct xfsj_log *log;
		struct xfsj_log_ht ht;
		struct xfsj_fault f = { 0 };
		struct xfsj_log_visitor v = { 0 };
		struct longseen x = { 0 };

		if (damaged) {
			/* A record a third of the way from the tail. */
			uint32_t i = tail_i + (nrec - tail_i) / 3;

			bad = starts[i % 4096];
			sy.img[synth_boff(&sy, bad + 2) + 200] ^= 0x10;
		}
		io = synth_io(&sy);
		ck_assert_int_eq(xfsj_log_open(io, NULL, 0, &log, &f), 0);
		ck_assert_int_eq(xfsj_log_find_head_tail(log, &ht, &f), 0);
		ck_assert_uint_eq(ht.head_blk, sy.blk);
		ck_assert_uint_eq(ht.tail_blk, xfsj_lsn_block(sy.tail_lsn));
		ck_assert_uint_gt(xfsj_log_distance(log, ht.tail_blk,
						    ht.head_blk), 40000);
		ck_assert_int_eq(ht.verify_failed, damaged);
		if (damaged)
			ck_assert_uint_eq(ht.bad_blk, bad);
		v.arg = &x;
		v.trans = on_long_trans;
		v.fault = on_long_fault;
		ck_assert_int_eq(xfsj_log_walk_live(log, &v, &f), 0);
		ck_assert_uint_eq(x.bad_order, 0);
		/* The damaged record's bytes are still given (the fault
		 * callback said go on). */
		ck_assert_uint_eq(x.bad_data, (uint32_t)damaged);
		ck_assert_uint_eq(x.last_tid, tid - 1);
		if (!damaged) {
			ck_assert_uint_eq(x.faults, 0);
			ck_assert_uint_eq(x.trans, nrec - tail_i);
		} else {
			ck_assert_uint_ge(x.faults, 1);
			ck_assert_uint_eq(x.fault_blk, bad);
		}
		/* Deferred: the same head and tail, the same walk. */
		memset(&x, 0, sizeof(x));
		ck_assert_int_eq(xfsj_log_find_head_tail_ex(log, &ht,
							    XFSJ_HT_DEFER_VERIFY,
							    &f), 0);
		ck_assert(!ht.verify_failed);
		ck_assert(ht.crc_deferred);
		ck_assert_uint_eq(ht.head_blk, sy.blk);
		ck_assert_int_eq(xfsj_log_walk_live(log, &v, &f), 0);
		ck_assert_uint_eq(x.bad_data, (uint32_t)damaged);
		ck_assert_uint_eq(x.faults, (uint32_t)damaged);
		if (damaged)
			ck_assert_uint_eq(x.fault_blk, bad);
		else
			ck_assert_uint_eq(x.trans, nrec - tail_i);
		xfsj_log_close(log);
		xfsj_io_close(io);
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
	tcase_add_test(tc, item_fault_device_offset);
	tcase_add_test(tc, checkops_behind_valid_crc);
	tcase_add_test(tc, deferred_verification);
	tcase_add_test(tc, long_wrapped_walk);
	suite_add_tcase(s, tc);
	return s;
}
