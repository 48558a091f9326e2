/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The unmount record mkfs writes at the start of the log (format reference
 * §9.4, log reference §2-§4): header fields, extended headers, cycle
 * stamping and its undoing, the optional record CRC.
 */
#include <stdlib.h>
#include <string.h>

#include "suites.h"
#include "core/crc32c.h"
#include "ondisk/log.h"

static const uint8_t fs_uuid[16] = { 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77,
				     0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee,
				     0xff, 0x00 };

/* The unmount op as it must read once the cycle stamp is undone. */
static const uint8_t unmount_op[20] = {
	0xB0, 0xC0, 0xD0, 0xD0,		/* tid */
	0x00, 0x00, 0x00, 0x08,		/* oh_len */
	0xAA, 0x20, 0x00, 0x00,		/* clientid, flags, pad */
	0x6E, 0x55, 0, 0, 0, 0, 0, 0,	/* magic 0x556e, little-endian */
};

static uint8_t *build(uint32_t su, uint32_t lss, uint32_t cycle, uint32_t block,
		      uint64_t tail, bool crc, uint32_t *bytes)
{
	uint32_t n = xfsj_log_unmount_record_size(su, lss);
	uint8_t *buf = malloc(n);	/* exact size: ASan sees overruns */

	ck_assert_ptr_nonnull(buf);
	memset(buf, 0xC5, n);		/* the builder must clear it */
	ck_assert_int_eq(xfsj_log_build_unmount_record(buf, su, lss, fs_uuid,
						       cycle, block, tail, crc),
			 0);
	*bytes = n;
	return buf;
}

/* Put the saved first words back into every data sector (log ref §3). */
static void unstamp(uint8_t *rec, uint32_t hdrs, uint32_t h_len)
{
	uint32_t bbs = h_len / XFSJ_BBSIZE;

	for (uint32_t i = 0; i < bbs; i++) {
		uint8_t *bb = rec + (size_t)(hdrs + i) * XFSJ_BBSIZE;
		const uint8_t *slot;

		if (i < 64)
			slot = rec + 44 + 4 * i;
		else
			slot = rec + (size_t)(i / 64) * XFSJ_BBSIZE + 4 +
			       4 * (i % 64);
		memcpy(bb, slot, 4);
	}
}

/* Record CRC as the kernel computes it (log reference §4). */
static uint32_t kernel_crc(const uint8_t *rec, uint32_t hdrs, uint32_t h_len)
{
	static const uint8_t zero[4];
	uint32_t xh = (h_len + 32767) / 32768;
	uint32_t crc;

	crc = xfsj_crc32c_update(~0U, rec, 32);
	crc = xfsj_crc32c_update(crc, zero, 4);
	crc = xfsj_crc32c_update(crc, rec + 36, 328 - 36);
	for (uint32_t k = 1; k < xh && k < hdrs; k++)
		crc = xfsj_crc32c_update(crc, rec + (size_t)k * XFSJ_BBSIZE, 260);
	crc = xfsj_crc32c_update(crc, rec + (size_t)hdrs * XFSJ_BBSIZE, h_len);
	return ~crc;
}

START_TEST(record_sizes)
{
	ck_assert_uint_eq(xfsj_log_unmount_record_size(0, 0), 1024);
	ck_assert_uint_eq(xfsj_log_unmount_record_size(1, 0), 1024);
	ck_assert_uint_eq(xfsj_log_unmount_record_size(1, 512), 1024);
	ck_assert_uint_eq(xfsj_log_unmount_record_size(1, 4096), 4096);
	ck_assert_uint_eq(xfsj_log_unmount_record_size(4096, 4096), 4096);
	ck_assert_uint_eq(xfsj_log_unmount_record_size(16384, 0), 16384);
	ck_assert_uint_eq(xfsj_log_unmount_record_size(40960, 512), 40960);
	ck_assert_uint_eq(xfsj_log_unmount_record_size(262144, 0), 262144);
}
END_TEST

/* No stripe unit: the 2-BB record of §9.4, byte for byte. */
START_TEST(no_stripe)
{
	uint32_t n;
	uint8_t *r = build(1, 0, 1, 0, xfsj_lsn(1, 0), false, &n);
	struct xfsj_logrec h;

	ck_assert_uint_eq(n, 1024);
	ck_assert_mem_eq(r, "\xFE\xED\xBA\xBE\0\0\0\x01\0\0\0\x02\0\0\x02\0", 16);
	ck_assert_mem_eq(r + 16, "\0\0\0\x01\0\0\0\0\0\0\0\x01\0\0\0\0", 16);
	ck_assert_mem_eq(r + 32, "\0\0\0\0\xFF\xFF\xFF\xFF\0\0\0\x01", 12);
	ck_assert_mem_eq(r + 44, "\xB0\xC0\xD0\xD0", 4);
	for (int i = 48; i < 300; i++)
		ck_assert_uint_eq(r[i], 0);
	ck_assert_mem_eq(r + 300, "\0\0\0\x01", 4);
	ck_assert_mem_eq(r + 304, fs_uuid, 16);
	ck_assert_mem_eq(r + 320, "\0\0\x80\0", 4);
	for (int i = 324; i < 512; i++)
		ck_assert_uint_eq(r[i], 0);
	/* BB 1 after stamping: 00000001 00000008 AA 20 0000 6E55 000000000000 */
	ck_assert_mem_eq(r + 512,
			 "\0\0\0\x01\0\0\0\x08\xAA\x20\0\0\x6E\x55\0\0\0\0\0\0",
			 20);
	for (int i = 532; i < 1024; i++)
		ck_assert_uint_eq(r[i], 0);

	xfsj_logrec_decode(r, &h);
	ck_assert_uint_eq(h.magicno, XFSJ_LOG_MAGIC);
	ck_assert_uint_eq(h.cycle, 1);
	ck_assert_uint_eq(h.version, 2);
	ck_assert_uint_eq(h.len, 512);
	ck_assert_uint_eq(h.lsn, xfsj_lsn(1, 0));
	ck_assert_uint_eq(h.tail_lsn, xfsj_lsn(1, 0));
	ck_assert_uint_eq(h.crc, 0);
	ck_assert_uint_eq(h.prev_block, 0xFFFFFFFFU);
	ck_assert_uint_eq(h.num_logops, 1);
	ck_assert_uint_eq(h.cycle_data[0], XFSJ_LOG_UNMOUNT_TID);
	ck_assert_uint_eq(h.fmt, XFSJ_LOG_FMT_LINUX_LE);
	ck_assert_uint_eq(h.size, 32768);

	/* Re-encoding the decoded header gives the same bytes. */
	{
		uint8_t again[XFSJ_LOGREC_HDR_SIZE];

		xfsj_logrec_encode(&h, again);
		ck_assert_mem_eq(again, r, XFSJ_LOGREC_HDR_SIZE);
	}
	/* Undo the stamp: the op header is back. */
	unstamp(r, 1, h.len);
	ck_assert_mem_eq(r + 512, unmount_op, sizeof(unmount_op));
	free(r);

	/* 0 as the stripe unit and a 512-byte log sector mean the same. */
	{
		uint32_t n2;
		uint8_t *a = build(0, 512, 1, 0, xfsj_lsn(1, 0), false, &n2);
		uint8_t *b = build(1, 0, 1, 0, xfsj_lsn(1, 0), false, &n);

		ck_assert_uint_eq(n2, n);
		ck_assert_mem_eq(a, b, n);
		free(a);
		free(b);
	}
}
END_TEST

/* The lsn and tail come from the arguments. */
START_TEST(lsn_and_tail)
{
	uint32_t n;
	uint8_t *r = build(1, 0, 9, 1234, xfsj_lsn(8, 777), false, &n);
	struct xfsj_logrec h;

	xfsj_logrec_decode(r, &h);
	ck_assert_uint_eq(h.cycle, 9);
	ck_assert_uint_eq(h.lsn, 0x00000009000004D2ULL);
	ck_assert_uint_eq(h.tail_lsn, 0x0000000800000309ULL);
	/* Data sectors carry the record's cycle. */
	ck_assert_uint_eq(xfsj_get_be32(r + 512), 9);
	ck_assert_uint_eq(h.cycle_data[0], XFSJ_LOG_UNMOUNT_TID);
	free(r);
}
END_TEST

struct geom {
	uint32_t su, lss;
	uint32_t bytes, hdrs, h_len, h_size;
};

static const struct geom geoms[] = {
	{ 1, 0, 1024, 1, 512, 32768 },		/* no stripe */
	{ 1, 4096, 4096, 1, 3584, 32768 },	/* 4 KiB log sectors */
	{ 4096, 4096, 4096, 1, 3584, 32768 },	/* sb_logsunit 4096 */
	{ 16384, 0, 16384, 1, 15872, 32768 },	/* su=16k: 32 BBs */
	{ 32768, 0, 32768, 1, 32256, 32768 },	/* su=32k: one header */
	{ 40960, 0, 40960, 2, 39936, 40960 },	/* su=40k */
	{ 65536, 0, 65536, 2, 64512, 65536 },	/* su=64k */
	{ 262144, 0, 262144, 8, 258048, 262144 },	/* su=256k */
};
#define NGEOMS (sizeof(geoms) / sizeof(geoms[0]))

START_TEST(geometries)
{
	const struct geom *g = &geoms[_i];
	const uint32_t cycle = 7;
	uint32_t n, data_bbs;
	uint8_t *r = build(g->su, g->lss, cycle, 0, xfsj_lsn(cycle, 0), false,
			   &n);
	struct xfsj_logrec h;

	ck_assert_uint_eq(n, g->bytes);
	xfsj_logrec_decode(r, &h);
	ck_assert_uint_eq(h.len, g->h_len);
	ck_assert_uint_eq(h.size, g->h_size);
	ck_assert_uint_eq(g->hdrs * 512 + h.len, n);
	ck_assert_uint_eq((h.size + 32767) / 32768, g->hdrs);
	data_bbs = h.len / 512;
	/* Header sector: nothing after h_size. */
	for (int i = 324; i < 512; i++)
		ck_assert_uint_eq(r[i], 0);
	/* Extended headers: xh_cycle, saved (zero) words, then zeroes. */
	for (uint32_t k = 1; k < g->hdrs; k++) {
		const uint8_t *xh = r + (size_t)k * 512;

		ck_assert_uint_eq(xfsj_get_be32(xh), cycle);
		for (int i = 4; i < 512; i++)
			ck_assert_msg(xh[i] == 0, "ext hdr %u byte %d", k, i);
	}
	/* Every data BB begins with the cycle. */
	for (uint32_t i = 0; i < data_bbs; i++)
		ck_assert_msg(xfsj_get_be32(r + (size_t)(g->hdrs + i) * 512) ==
			      cycle, "data BB %u not stamped", i);
	/* Saved words: the op's tid in slot 0, zeroes in the others. */
	ck_assert_uint_eq(h.cycle_data[0], XFSJ_LOG_UNMOUNT_TID);
	for (int i = 1; i < 64; i++)
		ck_assert_uint_eq(h.cycle_data[i], 0);
	/* Unstamped, the data area is the op followed by zeroes. */
	unstamp(r, g->hdrs, h.len);
	ck_assert_mem_eq(r + g->hdrs * 512, unmount_op, sizeof(unmount_op));
	for (uint32_t b = g->hdrs * 512 + sizeof(unmount_op); b < n; b++)
		ck_assert_msg(r[b] == 0, "byte %u not zero after unstamping", b);
	free(r);
}
END_TEST

/*
 * The extended-header slots are where the reader looks: put a marker in a
 * data BB's first word through the slot and read it back via unstamp().
 */
START_TEST(extended_header_slots)
{
	uint32_t n;
	uint8_t *r = build(262144, 0, 3, 0, xfsj_lsn(3, 0), false, &n);

	ck_assert_uint_eq(n, 262144);
	/* data BB 503 (the last) is saved in ext header 7, slot 55 */
	ck_assert_uint_eq(503 / 64, 7);
	ck_assert_uint_eq(xfsj_get_be32(r + (8 + 503) * 512), 3);
	xfsj_put_be32(r + 7 * 512 + 4 + 4 * (503 % 64), 0x12345678);
	/* data BB 64 in ext header 1, slot 0 */
	xfsj_put_be32(r + 1 * 512 + 4, 0x9ABCDEF0);
	unstamp(r, 8, 258048);
	ck_assert_uint_eq(xfsj_get_be32(r + (8 + 503) * 512), 0x12345678);
	ck_assert_uint_eq(xfsj_get_be32(r + (8 + 64) * 512), 0x9ABCDEF0);
	ck_assert_uint_eq(xfsj_get_be32(r + (8 + 63) * 512), 0);
	ck_assert_mem_eq(r + 8 * 512, unmount_op, sizeof(unmount_op));
	/* all 7 extended headers carry the cycle */
	for (int k = 1; k < 8; k++)
		ck_assert_uint_eq(xfsj_get_be32(r + k * 512), 3);
	free(r);
}
END_TEST

START_TEST(invalid_sizes)
{
	uint8_t buf[1024];

	/* A stripe unit that is not whole sectors, or leaves no data BB. */
	ck_assert_int_eq(xfsj_log_build_unmount_record(buf, 1000, 0, fs_uuid,
						       1, 0, 0, false),
			 -XFSJ_E_INVAL);
	ck_assert_int_eq(xfsj_log_build_unmount_record(buf, 512, 0, fs_uuid,
						       1, 0, 0, false),
			 -XFSJ_E_INVAL);
}
END_TEST

START_TEST(crc_field)
{
	uint32_t n1, n2, n3, n4;
	uint8_t *plain = build(1, 0, 1, 0, xfsj_lsn(1, 0), false, &n1);
	uint8_t *crc = build(1, 0, 1, 0, xfsj_lsn(1, 0), true, &n2);
	uint8_t *crc2 = build(1, 0, 2, 0, xfsj_lsn(1, 0), true, &n3);
	uint8_t *crc3 = build(1, 0, 1, 0, xfsj_lsn(1, 8), true, &n4);
	uint32_t c1 = xfsj_get_le32(crc + 32);

	/* mkfs leaves h_crc 0; with_crc only fills in those 4 bytes. */
	ck_assert_uint_eq(xfsj_get_le32(plain + 32), 0);
	ck_assert_uint_ne(c1, 0);
	ck_assert_mem_eq(plain, crc, 32);
	ck_assert_mem_eq(plain + 36, crc + 36, n1 - 36);
	/* Different data (cycle stamps) or header give a different CRC. */
	ck_assert_uint_ne(xfsj_get_le32(crc2 + 32), c1);
	ck_assert_uint_ne(xfsj_get_le32(crc3 + 32), c1);
	/* Deterministic. */
	{
		uint32_t n5;
		uint8_t *again = build(1, 0, 1, 0, xfsj_lsn(1, 0), true, &n5);

		ck_assert_mem_eq(again, crc, n2);
		free(again);
	}
	free(plain);
	free(crc);
	free(crc2);
	free(crc3);

	/* Extended-header records get a CRC as well. */
	crc = build(65536, 0, 1, 0, xfsj_lsn(1, 0), true, &n2);
	plain = build(65536, 0, 1, 0, xfsj_lsn(1, 0), false, &n1);
	ck_assert_uint_ne(xfsj_get_le32(crc + 32), 0);
	ck_assert_mem_eq(plain + 36, crc + 36, n1 - 36);
	free(plain);
	free(crc);
}
END_TEST

/*
 * Was a bug: libjournal/log_record.c xfsj_log_build_unmount_record() computes
 * the with_crc checksum over the whole 512-byte first header sector and
 * whole extended header sectors.  The kernel (xlog_cksum; log reference
 * §4, and log_scan.c's own rec_crc()) covers header bytes 0..327, only
 * the first 260 bytes of each extended header needed by h_len, then the
 * h_len data bytes.  The CRC written is therefore never the one the
 * kernel (or xfsj's own log reader) expects, and a record built with
 * with_crc fails CRC verification at mount.  libjournal/redo.c calls it
 * with with_crc = true for every non-wrapping record, so the unmount
 * record repair writes carries a wrong, non-zero h_crc.
 */
START_TEST(crc_matches_kernel_rule)
{
	static const struct { uint32_t su, hdrs; } cases[] = {
		{ 1, 1 }, { 16384, 1 }, { 40960, 2 }, { 262144, 8 },
	};

	for (unsigned int i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint32_t n;
		uint8_t *r = build(cases[i].su, 0, 1, 0, xfsj_lsn(1, 0), true,
				   &n);
		uint32_t h_len = xfsj_get_be32(r + 12);

		ck_assert_uint_eq(xfsj_get_le32(r + 32),
				  kernel_crc(r, cases[i].hdrs, h_len));
		free(r);
	}
}
END_TEST

/* The reference computation itself: the stored CRC field is excluded. */
START_TEST(kernel_crc_helper)
{
	uint32_t n;
	uint8_t *r = build(1, 0, 1, 0, xfsj_lsn(1, 0), false, &n);
	uint32_t c = kernel_crc(r, 1, 512);

	xfsj_put_le32(r + 32, 0xDEADBEEF);
	ck_assert_uint_eq(kernel_crc(r, 1, 512), c);
	r[600] ^= 1;
	ck_assert_uint_ne(kernel_crc(r, 1, 512), c);
	r[600] ^= 1;
	r[400] ^= 1;	/* past byte 328 of the header: not covered */
	ck_assert_uint_eq(kernel_crc(r, 1, 512), c);
	free(r);
}
END_TEST

Suite *log_record_suite(void)
{
	Suite *s = suite_create("log_record");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, record_sizes);
	tcase_add_test(tc, no_stripe);
	tcase_add_test(tc, lsn_and_tail);
	tcase_add_loop_test(tc, geometries, 0, NGEOMS);
	tcase_add_test(tc, extended_header_slots);
	tcase_add_test(tc, invalid_sizes);
	tcase_add_test(tc, crc_field);
	tcase_add_test(tc, crc_matches_kernel_rule);
	tcase_add_test(tc, kernel_crc_helper);
	suite_add_tcase(s, tc);
	return s;
}
