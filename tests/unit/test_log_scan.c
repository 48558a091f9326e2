/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Head and tail search and record reading on synthetic logs: zeroed,
 * freshly made, clean, dirty, wrapped several times, torn at the head,
 * partially written, with out-of-order completion, extended headers, and
 * with hostile bytes (bit flips everywhere in the headers): a clear fault
 * or a sane answer, never a crash or a hang.
 */
#include <stdlib.h>
#include <string.h>

#include "log_synth.h"
#include "suites.h"
#include "core/layout.h"
#include "ondisk/log.h"
#include "xfsj/logread.h"

static int find(struct synth *s, struct xfsj_log_ht *ht, struct xfsj_fault *f)
{
	struct xfsj_io *io = synth_io(s);
	struct xfsj_log *log;
	int err;

	ck_assert_ptr_nonnull(io);
	err = xfsj_log_open(io, NULL, 0, &log, f);
	ck_assert_int_eq(err, 0);
	err = xfsj_log_find_head_tail(log, ht, f);
	xfsj_log_close(log);
	xfsj_io_close(io);
	return err;
}

/* One small checkpoint: START, header, a BUF item of one region, COMMIT. */
static void small_trans(struct synth *s, uint32_t tid, uint64_t blkno)
{
	uint8_t fmt[128], data[128];
	uint32_t n = synth_buf_fmt(fmt, blkno, 8, 0, 1, 2);

	memset(data, 0xab, sizeof(data));
	synth_start(s, tid, 2);
	synth_region(s, tid, fmt, n);
	synth_region(s, tid, data, sizeof(data));
	synth_commit(s, tid);
}

START_TEST(zeroed_log)
{
	struct synth s;
	struct xfsj_log_ht ht;
	struct xfsj_fault f = { 0 };

	synth_init(&s, 1024, 32768);
	ck_assert_int_eq(find(&s, &ht, &f), 0);
	ck_assert(ht.zeroed);
	ck_assert_uint_eq(ht.head_blk, 0);
	ck_assert_uint_eq(ht.tail_blk, 0);
	synth_free(&s);
}
END_TEST

START_TEST(fresh_mkfs_log)
{
	struct synth s;
	struct xfsj_log_ht ht;
	struct xfsj_fault f = { 0 };
	uint8_t rec[1024];

	/* What mkfs writes: one unmount record at block 0, zeros after. */
	synth_init(&s, 1024, 32768);
	ck_assert_int_eq(xfsj_log_build_unmount_record(rec, 1, 0, s.uuid, 1, 0,
						       xfsj_lsn(1, 0), false), 0);
	memcpy(s.img + synth_boff(&s, 0), rec, 1024);
	ck_assert_int_eq(find(&s, &ht, &f), 0);
	ck_assert(!ht.zeroed);
	ck_assert(ht.clean);
	ck_assert_uint_eq(ht.head_blk, 2);
	ck_assert_uint_eq(ht.tail_blk, 2);
	ck_assert_uint_eq(ht.cycle, 1);
	synth_free(&s);
}
END_TEST

START_TEST(dirty_then_clean)
{
	struct synth s;
	struct xfsj_log_ht ht;
	struct xfsj_fault f = { 0 };
	uint32_t end;

	synth_init(&s, 2048, 32768);
	for (uint32_t i = 0; i < 10; i++) {
		small_trans(&s, 0x100 + i, 64 + 8 * i);
		synth_flush(&s);
	}
	end = s.blk;
	ck_assert_int_eq(find(&s, &ht, &f), 0);
	ck_assert(!ht.clean);
	ck_assert_uint_eq(ht.head_blk, end);
	ck_assert_uint_eq(ht.tail_blk, 0);
	ck_assert(!ht.torn);

	synth_unmount(&s);
	ck_assert_int_eq(find(&s, &ht, &f), 0);
	ck_assert(ht.clean);
	ck_assert_uint_eq(ht.head_blk, s.blk);
	ck_assert_uint_eq(ht.tail_blk, s.blk);
	synth_free(&s);
}
END_TEST

static void fill_wrapping(struct synth *s, uint32_t rounds, uint32_t *ntrans)
{
	uint32_t tid = 0x1000;

	/* The tail follows a few records behind, as the AIL moves it. */
	s->auto_tail = false;
	while (s->cycle <= rounds) {
		uint32_t lag = s->blk > 40 ? s->blk - 40 : 0;

		s->tail_lsn = xfsj_lsn(s->cycle, lag);
		small_trans(s, tid, 64 + (tid % 32) * 8);
		tid++;
		synth_flush(s);
	}
	*ntrans = tid - 0x1000;
}

START_TEST(wrapped_log)
{
	struct synth s;
	struct xfsj_log_ht ht;
	struct xfsj_fault f = { 0 };
	uint32_t n;

	synth_init(&s, 1000, 32768);	/* not a multiple of the record size */
	fill_wrapping(&s, 3, &n);
	ck_assert_int_eq(find(&s, &ht, &f), 0);
	ck_assert_uint_eq(ht.head_blk, s.blk);
	ck_assert_uint_eq(ht.cycle, s.cycle);
	ck_assert_uint_eq(ht.tail_blk, xfsj_lsn_block(s.tail_lsn));
	ck_assert(!ht.clean);
	synth_free(&s);
}
END_TEST

START_TEST(wrapping_record)
{
	struct synth s;
	struct xfsj_log_ht ht;
	struct xfsj_fault f = { 0 };
	uint8_t big[20000];
	uint8_t fmt[128];
	uint32_t n;

	/* Put a record across the physical end, with extended headers. */
	synth_init(&s, 1024, 65536);
	s.auto_tail = false;
	s.tail_lsn = xfsj_lsn(1, 0);
	for (uint32_t i = 0; s.blk < 990; i++) {
		small_trans(&s, 0x900 + i, 64);
		synth_flush(&s);
	}
	s.tail_lsn = xfsj_lsn(1, s.blk);
	memset(big, 0x5a, sizeof(big));
	n = synth_buf_fmt(fmt, 128, 40, 0, 156, 2);
	synth_start(&s, 7, 2);
	synth_region(&s, 7, fmt, n);
	synth_region(&s, 7, big, 19968);
	synth_commit(&s, 7);
	synth_flush(&s);
	ck_assert_uint_eq(s.cycle, 2);
	ck_assert_uint_lt(s.blk, 100);
	ck_assert_int_eq(find(&s, &ht, &f), 0);
	ck_assert_uint_eq(ht.head_blk, s.blk);
	ck_assert_uint_eq(ht.tail_blk, s.last_blk);
	ck_assert_uint_eq(ht.cycle, 2);
	ck_assert(!ht.torn);
	synth_free(&s);
}
END_TEST

START_TEST(torn_head)
{
	struct synth s;
	struct xfsj_log_ht ht;
	struct xfsj_fault f = { 0 };
	uint32_t good_end, last;

	synth_init(&s, 2048, 32768);
	for (uint32_t i = 0; i < 6; i++) {
		small_trans(&s, 0x200 + i, 64);
		synth_flush(&s);
	}
	good_end = s.blk;
	small_trans(&s, 0x300, 64);
	synth_flush(&s);
	last = s.last_blk;
	ck_assert_uint_eq(last, good_end);
	/* Flip a payload byte of the last record: its CRC no longer holds. */
	s.img[synth_boff(&s, last + 1) + 100] ^= 0x40;
	ck_assert_int_eq(find(&s, &ht, &f), 0);
	ck_assert(ht.torn);
	ck_assert_uint_eq(ht.head_blk, good_end);
	ck_assert_uint_eq(ht.orig_head, s.blk);
	synth_free(&s);
}
END_TEST

START_TEST(partial_record)
{
	struct synth s;
	struct xfsj_log_ht ht;
	struct xfsj_fault f = { 0 };
	uint32_t good_end;
	uint8_t big[3000];

	synth_init(&s, 2048, 32768);
	for (uint32_t i = 0; i < 4; i++) {
		small_trans(&s, 0x400 + i, 64);
		synth_flush(&s);
	}
	good_end = s.blk;
	memset(big, 1, sizeof(big));
	synth_start(&s, 0x500, 1);
	synth_region(&s, 0x500, big, sizeof(big));
	synth_flush(&s);
	/* Only the first two blocks of the 8-block record reached the disk. */
	memset(s.img + synth_boff(&s, good_end + 2), 0,
	       (size_t)(s.blk - good_end - 2) * 512);
	ck_assert_int_eq(find(&s, &ht, &f), 0);
	ck_assert_uint_eq(ht.head_blk, good_end);
	synth_free(&s);
}
END_TEST

START_TEST(out_of_order_completion)
{
	struct synth s;
	struct xfsj_log_ht ht;
	struct xfsj_fault f = { 0 };
	uint32_t n, hole = 0, hole_len = 0;
	uint8_t *save;

	/* Second cycle; the record before the last one never completed. */
	synth_init(&s, 1024, 32768);
	fill_wrapping(&s, 1, &n);
	for (uint32_t i = 0; i < 8; i++) {
		small_trans(&s, 0x600 + i, 64);
		synth_flush(&s);
		if (i == 5) {
			hole = s.last_blk;
			hole_len = s.last_bbs;
		}
	}
	ck_assert_uint_eq(s.cycle, 2);
	/* Put back what the previous cycle had there. */
	save = calloc(hole_len, 512);
	for (uint32_t b = 0; b < hole_len; b++)
		xfsj_put_be32(save + (size_t)b * 512, 1);
	memcpy(s.img + synth_boff(&s, hole), save, (size_t)hole_len * 512);
	free(save);
	ck_assert_int_eq(find(&s, &ht, &f), 0);
	ck_assert_uint_eq(ht.head_blk, hole);
	synth_free(&s);
}
END_TEST

START_TEST(extended_headers_and_crc)
{
	struct synth s;
	struct xfsj_io *io;
	struct xfsj_log *log;
	struct xfsj_log_rec r;
	struct xfsj_fault f = { 0 };
	uint8_t *big = malloc(200000);
	uint8_t fmt[128];
	uint32_t n;

	synth_init(&s, 4096, 262144);
	for (uint32_t i = 0; i < 200000; i++)
		big[i] = (uint8_t)(i * 13);
	n = synth_buf_fmt(fmt, 512, 128, 0, 512, 3);
	synth_start(&s, 9, 3);
	synth_region(&s, 9, fmt, n);
	synth_region(&s, 9, big, 65536);
	synth_region(&s, 9, big + 65536, 65536);
	synth_commit(&s, 9);
	synth_flush(&s);
	io = synth_io(&s);
	ck_assert_int_eq(xfsj_log_open(io, NULL, 0, &log, &f), 0);
	ck_assert_int_eq(xfsj_log_read_record(log, 0, true, &r, &f), 0);
	ck_assert_uint_eq(r.hblks, 8);
	ck_assert_int_eq(r.crc_state, XFSJ_CRC_OK);
	/* The data is unpacked: the region bytes are back. */
	ck_assert_int_eq(memcmp(r.data + 12 + 16 + 12 + 12 + n + 12, big, 1000), 0);
	xfsj_log_close(log);
	xfsj_io_close(io);
	free(big);
	synth_free(&s);
}
END_TEST

/* Flip every bit of the first two header blocks of each record in turn. */
START_TEST(hostile_header_bits)
{
	struct synth s;
	struct xfsj_log_ht ht;
	struct xfsj_fault f;
	uint32_t n;

	synth_init(&s, 512, 16384);
	fill_wrapping(&s, 2, &n);
	for (uint32_t byte = 0; byte < 330; byte += 3) {
		for (int bit = 0; bit < 8; bit += 3) {
			struct xfsj_io *io;
			struct xfsj_log *log;
			uint8_t *p = s.img + synth_boff(&s, s.last_blk) + byte;
			struct xfsj_log_visitor v = { 0 };

			*p ^= (uint8_t)(1 << bit);
			io = synth_io(&s);
			ck_assert_int_eq(xfsj_log_open(io, NULL, 0, &log, &f), 0);
			memset(&f, 0, sizeof(f));
			if (!xfsj_log_find_head_tail(log, &ht, &f)) {
				ck_assert_uint_lt(ht.head_blk, s.log_bb);
				ck_assert_uint_lt(ht.tail_blk, s.log_bb);
				xfsj_log_walk_live(log, &v, &f);
			} else {
				ck_assert_ptr_nonnull(f.structure);
			}
			xfsj_log_close(log);
			xfsj_io_close(io);
			*p ^= (uint8_t)(1 << bit);
		}
	}
	synth_free(&s);
}
END_TEST

START_TEST(zeroed_blocks_in_the_middle)
{
	struct synth s;
	struct xfsj_log_ht ht;
	struct xfsj_fault f = { 0 };
	uint32_t n;

	synth_init(&s, 1024, 32768);
	fill_wrapping(&s, 2, &n);
	/* A hole of zeroes in the live log: a fault, not a crash. */
	memset(s.img + synth_boff(&s, 300), 0, 40 * 512);
	memset(s.img + synth_boff(&s, 0), 0, 512);
	find(&s, &ht, &f);
	memset(s.img + synth_boff(&s, s.log_bb - 1), 0, 512);
	find(&s, &ht, &f);
	synth_free(&s);
}
END_TEST

START_TEST(truncated_device)
{
	struct synth s;
	struct xfsj_io *io;
	struct xfsj_log *log = NULL;
	struct xfsj_fault f = { 0 };

	synth_init(&s, 1024, 32768);
	ck_assert_int_eq(xfsj_io_open_mem_copy(s.img, (size_t)s.log_off + 4096,
					       &io), 0);
	ck_assert_int_eq(xfsj_log_open(io, NULL, 0, &log, &f), -XFSJ_E_SHORTIO);
	ck_assert_str_eq(f.structure, "log");
	ck_assert_int_eq(f.reason, XFSJ_FR_LOG_PAST_END);
	ck_assert_uint_eq(f.offset, s.log_off);
	ck_assert_uint_eq(f.value, s.log_off + 4096);
	ck_assert_ptr_null(log);
	xfsj_io_close(io);
	/* No superblock at all: a fault of another reason clears it. */
	memset(s.img, 0, 512);
	io = synth_io(&s);
	ck_assert_int_eq(xfsj_log_open(io, NULL, 0, &log, &f), -XFSJ_E_BADMAGIC);
	ck_assert_str_eq(f.structure, "superblock");
	ck_assert_int_eq(f.reason, XFSJ_FR_NONE);
	xfsj_io_close(io);
	synth_free(&s);
}
END_TEST

/* An external log (sb_logstart 0) needs its device. */
START_TEST(external_log_needed)
{
	struct synth s;
	struct xfsj_io *io, *logio;
	struct xfsj_log *log = NULL;
	struct xfsj_fault f = { 0 };
	struct xfsj_sb sb;

	synth_init(&s, 1024, 32768);
	xfsj_sb_decode(s.img, &sb);
	sb.logstart = 0;
	xfsj_sb_encode(&sb, s.img, 512);
	io = synth_io(&s);
	ck_assert_int_eq(xfsj_log_open(io, NULL, 0, &log, &f), -XFSJ_E_UNSUPP);
	ck_assert_int_eq(f.reason, XFSJ_FR_EXTLOG_NEEDED);
	ck_assert_ptr_null(log);
	/* Given a log device too short for the log. */
	ck_assert_int_eq(xfsj_io_open_mem_copy(s.img + s.log_off, 4096,
					       &logio), 0);
	ck_assert_int_eq(xfsj_log_open(io, logio, 0, &log, &f),
			 -XFSJ_E_SHORTIO);
	ck_assert_int_eq(f.reason, XFSJ_FR_LOG_PAST_END);
	ck_assert_uint_eq(f.offset, 0);
	ck_assert_uint_eq(f.value, 4096);
	xfsj_io_close(logio);
	xfsj_io_close(io);
	synth_free(&s);
}
END_TEST

START_TEST(raw_log_copy)
{
	struct synth s;
	struct xfsj_io *io;
	struct xfsj_log *log;
	struct xfsj_log_ht ht;
	struct xfsj_fault f = { 0 };

	synth_init(&s, 1024, 32768);
	for (uint32_t i = 0; i < 5; i++) {
		small_trans(&s, 0x700 + i, 64);
		synth_flush(&s);
	}
	ck_assert_int_eq(xfsj_io_open_mem_copy(s.img + s.log_off,
					       (size_t)s.log_bb * 512, &io), 0);
	ck_assert_int_eq(xfsj_log_open(io, NULL, XFSJ_LOGOPEN_RAW, &log, &f), 0);
	ck_assert_int_eq(xfsj_log_find_head_tail(log, &ht, &f), 0);
	ck_assert_uint_eq(ht.head_blk, s.blk);
	xfsj_log_close(log);
	xfsj_io_close(io);
	synth_free(&s);
}
END_TEST

Suite *log_scan_suite(void)
{
	Suite *s = suite_create("log_scan");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, zeroed_log);
	tcase_add_test(tc, fresh_mkfs_log);
	tcase_add_test(tc, dirty_then_clean);
	tcase_add_test(tc, wrapped_log);
	tcase_add_test(tc, wrapping_record);
	tcase_add_test(tc, torn_head);
	tcase_add_test(tc, partial_record);
	tcase_add_test(tc, out_of_order_completion);
	tcase_add_test(tc, extended_headers_and_crc);
	tcase_add_test(tc, hostile_header_bits);
	tcase_add_test(tc, zeroed_blocks_in_the_middle);
	tcase_add_test(tc, truncated_device);
	tcase_add_test(tc, external_log_needed);
	tcase_add_test(tc, raw_log_copy);
	suite_add_tcase(s, tc);
	return s;
}
