/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The I/O layer's generic part, the memory backend and the error table
 * (the Unix backend: test_io_unix.c).
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "suites.h"
#include "xfsj/errors.h"
#include "xfsj/io.h"

/* ---- memory backend ---- */

START_TEST(mem_basic)
{
	struct xfsj_io *io = NULL;
	uint8_t buf[64], back[64];
	uint8_t *mem;

	ck_assert_int_eq(xfsj_io_open_mem(4096, &io), 0);
	ck_assert_ptr_nonnull(io);
	ck_assert_uint_eq(io->size, 4096);
	ck_assert_uint_eq(io->lsectsize, 512);
	ck_assert_uint_eq(io->psectsize, 512);
	ck_assert(!io->is_bdev);
	ck_assert_ptr_nonnull(io->name);
	mem = xfsj_io_mem_buffer(io);
	ck_assert_ptr_nonnull(mem);
	/* Starts zeroed. */
	for (int i = 0; i < 4096; i++)
		ck_assert_uint_eq(mem[i], 0);
	for (int i = 0; i < 64; i++)
		buf[i] = (uint8_t)(i * 3 + 1);
	ck_assert_int_eq(xfsj_pwrite(io, buf, sizeof(buf), 100), 0);
	ck_assert_mem_eq(mem + 100, buf, sizeof(buf));
	ck_assert_uint_eq(mem[99], 0);
	ck_assert_uint_eq(mem[164], 0);
	memset(back, 0, sizeof(back));
	ck_assert_int_eq(xfsj_pread(io, back, sizeof(back), 100), 0);
	ck_assert_mem_eq(back, buf, sizeof(buf));
	/* Exactly up to the end is fine, as is an empty transfer there. */
	ck_assert_int_eq(xfsj_pwrite(io, buf, 64, 4096 - 64), 0);
	ck_assert_int_eq(xfsj_pread(io, back, 64, 4096 - 64), 0);
	ck_assert_int_eq(xfsj_pread(io, back, 0, 4096), 0);
	ck_assert_int_eq(xfsj_pwrite(io, buf, 0, 4096), 0);
	/* Zeroing. */
	ck_assert_int_eq(xfsj_io_zero(io, 110, 10), 0);
	ck_assert_uint_eq(mem[109], buf[9]);
	for (int i = 110; i < 120; i++)
		ck_assert_uint_eq(mem[i], 0);
	ck_assert_uint_eq(mem[120], buf[20]);
	ck_assert_int_eq(xfsj_io_zero(io, 0, 4096), 0);
	for (int i = 0; i < 4096; i++)
		ck_assert_uint_eq(mem[i], 0);
	/* No-ops that must succeed. */
	ck_assert_int_eq(xfsj_io_sync(io), 0);
	ck_assert_int_eq(xfsj_io_discard(io, 0, 4096), 0);
	ck_assert_int_eq(xfsj_io_extend(io, 4096), 0);
	ck_assert_int_eq(xfsj_io_extend(io, 100), 0);
	/* Memory cannot grow. */
	ck_assert_int_eq(xfsj_io_extend(io, 4097), -XFSJ_E_TOOSMALL);
	ck_assert_uint_eq(io->size, 4096);
	xfsj_io_close(io);
	xfsj_io_close(NULL);
}
END_TEST

START_TEST(mem_bounds)
{
	struct xfsj_io *io;
	uint8_t buf[128];
	uint8_t *mem;

	ck_assert_int_eq(xfsj_io_open_mem(1024, &io), 0);
	mem = xfsj_io_mem_buffer(io);
	memset(buf, 0x5A, sizeof(buf));
	/* Past the end. */
	ck_assert_int_eq(xfsj_pread(io, buf, 1, 1024), -XFSJ_E_SHORTIO);
	ck_assert_int_eq(xfsj_pread(io, buf, 2, 1023), -XFSJ_E_SHORTIO);
	ck_assert_int_eq(xfsj_pread(io, buf, 128, 1000), -XFSJ_E_SHORTIO);
	ck_assert_int_eq(xfsj_pwrite(io, buf, 128, 1000), -XFSJ_E_SHORTIO);
	ck_assert_int_eq(xfsj_pwrite(io, buf, 1, 1024), -XFSJ_E_SHORTIO);
	ck_assert_int_eq(xfsj_pread(io, buf, 0, 1025), -XFSJ_E_SHORTIO);
	/* A refused write leaves the buffer alone. */
	for (int i = 0; i < 1024; i++)
		ck_assert_uint_eq(mem[i], 0);
	/* Offsets that would overflow off + len. */
	ck_assert_int_eq(xfsj_pread(io, buf, 16, UINT64_MAX), -XFSJ_E_SHORTIO);
	ck_assert_int_eq(xfsj_pread(io, buf, 16, UINT64_MAX - 8),
			 -XFSJ_E_SHORTIO);
	ck_assert_int_eq(xfsj_pwrite(io, buf, 16, UINT64_MAX - 15),
			 -XFSJ_E_SHORTIO);
	ck_assert_int_eq(xfsj_pwrite(io, buf, SIZE_MAX, 8), -XFSJ_E_SHORTIO);
	ck_assert_int_eq(xfsj_pread(io, buf, SIZE_MAX, 0), -XFSJ_E_SHORTIO);
	/* Zero refuses ranges outside the device, overflowing ones too. */
	ck_assert_int_eq(xfsj_io_zero(io, 1000, 25), -XFSJ_E_RANGE);
	ck_assert_int_eq(xfsj_io_zero(io, 1025, 0), -XFSJ_E_RANGE);
	ck_assert_int_eq(xfsj_io_zero(io, UINT64_MAX, 2), -XFSJ_E_RANGE);
	ck_assert_int_eq(xfsj_io_zero(io, 8, UINT64_MAX), -XFSJ_E_RANGE);
	ck_assert_int_eq(xfsj_io_zero(io, 1024, 0), 0);
	ck_assert_int_eq(xfsj_io_zero(io, 1000, 24), 0);
	xfsj_io_close(io);
}
END_TEST

START_TEST(mem_copy_and_empty)
{
	struct xfsj_io *io;
	uint8_t src[700], back[700];

	for (int i = 0; i < 700; i++)
		src[i] = (uint8_t)(i ^ 0x3C);
	ck_assert_int_eq(xfsj_io_open_mem_copy(src, sizeof(src), &io), 0);
	ck_assert_uint_eq(io->size, 700);
	ck_assert_mem_eq(xfsj_io_mem_buffer(io), src, sizeof(src));
	/* A copy: changing the device leaves the source alone. */
	ck_assert_int_eq(xfsj_io_zero(io, 0, 700), 0);
	ck_assert_uint_eq(src[1], 1 ^ 0x3C);
	ck_assert_int_eq(xfsj_pread(io, back, 700, 0), 0);
	for (int i = 0; i < 700; i++)
		ck_assert_uint_eq(back[i], 0);
	xfsj_io_close(io);

	/* Zero-sized memory device: everything is out of range. */
	ck_assert_int_eq(xfsj_io_open_mem(0, &io), 0);
	ck_assert_uint_eq(io->size, 0);
	ck_assert_int_eq(xfsj_pread(io, back, 1, 0), -XFSJ_E_SHORTIO);
	ck_assert_int_eq(xfsj_pread(io, back, 0, 0), 0);
	xfsj_io_close(io);
	ck_assert_int_eq(xfsj_io_open_mem_copy(src, 0, &io), 0);
	ck_assert_uint_eq(io->size, 0);
	xfsj_io_close(io);
}
END_TEST

/* ---- errors ---- */

START_TEST(strerror_every_code)
{
	for (int e = 0; e < XFSJ_E__COUNT; e++) {
		const char *m = xfsj_strerror(e);
		const char *n = xfsj_errname(e);

		ck_assert_ptr_nonnull(m);
		ck_assert_ptr_nonnull(n);
		ck_assert_uint_gt(strlen(m), 0);
		ck_assert_uint_gt(strlen(n), 0);
		/* Both signs map to the same message. */
		ck_assert_str_eq(xfsj_strerror(-e), m);
		ck_assert_str_eq(xfsj_errname(-e), n);
		ck_assert_str_ne(m, "unknown error");
		/* Messages are distinct. */
		for (int o = 0; o < e; o++)
			ck_assert_str_ne(xfsj_strerror(o), m);
	}
	ck_assert_str_eq(xfsj_strerror(0), "success");
	ck_assert_str_eq(xfsj_errname(-XFSJ_E_BADCRC), "BADCRC");
	ck_assert_str_eq(xfsj_strerror(-XFSJ_E_BADCRC), "checksum mismatch");
	ck_assert_str_eq(xfsj_errname(XFSJ_E_SHORTIO), "SHORTIO");
	ck_assert_str_eq(xfsj_errname(-XFSJ_E_CONFLICT), "CONFLICT");
	/* The numbering is fixed. */
	ck_assert_int_eq(XFSJ_E_OK, 0);
	ck_assert_int_eq(XFSJ_E_NOMEM, 1);
	ck_assert_int_eq(XFSJ_E_CONFLICT, 15);
	ck_assert_int_eq(XFSJ_E_STALE, 16);
	ck_assert_int_eq(XFSJ_E_SCRATCH, 17);
	ck_assert_int_eq(XFSJ_E__COUNT, 18);
}
END_TEST

START_TEST(strerror_unknown)
{
	static const int unknown[] = { XFSJ_E__COUNT, -XFSJ_E__COUNT, 1000,
				       -1000, INT_MAX, -INT_MAX };

	for (unsigned int i = 0; i < sizeof(unknown) / sizeof(unknown[0]); i++) {
		const char *m = xfsj_strerror(unknown[i]);

		ck_assert_ptr_nonnull(m);
		ck_assert_uint_gt(strlen(m), 0);
		ck_assert_str_eq(m, "unknown error");
		ck_assert_str_eq(xfsj_errname(unknown[i]), "UNKNOWN");
	}
}
END_TEST

/*
 * Was a bug: libjournal/errors.c err_index() negates its argument
 * (`err = -err`), which overflows for INT_MIN (undefined behaviour; the
 * sanitizer build aborts).  xfsj_fault_set() has the same negation.
 * xfsj_strerror(INT_MIN) should just be "unknown error".
 */
START_TEST(strerror_int_min)
{
	ck_assert_str_eq(xfsj_strerror(INT_MIN), "unknown error");
	ck_assert_str_eq(xfsj_errname(INT_MIN), "UNKNOWN");
}
END_TEST

START_TEST(fault_set)
{
	struct xfsj_fault f;

	memset(&f, 0, sizeof(f));
	ck_assert_int_eq(xfsj_fault_set(&f, XFSJ_E_CORRUPT, "AGF", "seqno",
					1024 + 8, 7), -XFSJ_E_CORRUPT);
	ck_assert_str_eq(f.structure, "AGF");
	ck_assert_str_eq(f.field, "seqno");
	ck_assert_uint_eq(f.offset, 1032);
	ck_assert_uint_eq(f.value, 7);
	ck_assert_int_eq(f.err, XFSJ_E_CORRUPT);
	/* Either sign of err; NULL fault is allowed. */
	ck_assert_int_eq(xfsj_fault_set(&f, -XFSJ_E_BADCRC, "AGI", "crc", 0, 0),
			 -XFSJ_E_BADCRC);
	ck_assert_int_eq(f.err, XFSJ_E_BADCRC);
	/* A reason is set on its own, and cleared by the next fault. */
	ck_assert_int_eq(xfsj_fault_reason(&f, XFSJ_FR_LOG_PAST_END, -5), -5);
	ck_assert_int_eq(f.reason, XFSJ_FR_LOG_PAST_END);
	xfsj_fault_set(&f, XFSJ_E_IO, "x", "y", 0, 0);
	ck_assert_int_eq(f.reason, XFSJ_FR_NONE);
	ck_assert_int_eq(xfsj_fault_reason(NULL, XFSJ_FR_EXTLOG_NEEDED, 0), 0);
	ck_assert_int_eq(xfsj_fault_set(NULL, XFSJ_E_IO, "x", "y", 0, 0),
			 -XFSJ_E_IO);
}
END_TEST

Suite *io_suite(void)
{
	Suite *s = suite_create("io");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, mem_basic);
	tcase_add_test(tc, mem_bounds);
	tcase_add_test(tc, mem_copy_and_empty);
	suite_add_tcase(s, tc);
	return s;
}

Suite *errors_suite(void)
{
	Suite *s = suite_create("errors");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, strerror_every_code);
	tcase_add_test(tc, strerror_unknown);
	tcase_add_test(tc, strerror_int_min);
	tcase_add_test(tc, fault_set);
	suite_add_tcase(s, tc);
	return s;
}
