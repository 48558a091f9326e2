/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * io_copy.c: a device copied onto another, sparsely.  Memory devices (a
 * target holding junk: every byte, zeroes too, must come out as the
 * source's), and image files with holes (the copy keeps them).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "suites.h"
#include "xfsj/errors.h"
#include "xfsj/io.h"

#define SRC_SIZE	(3u << 20)

/* Data at a few places, one not block aligned; zeroes elsewhere. */
static void fill(uint8_t *p)
{
	memset(p, 0, SRC_SIZE);
	memset(p + 4096, 0xa5, 8192);
	memset(p + (1u << 20) - 100, 0x3c, 300);
	p[SRC_SIZE - 1] = 7;
}

static void progress(void *arg, uint64_t done, uint64_t total)
{
	uint64_t *last = arg;

	ck_assert_uint_ge(done, *last);
	ck_assert_uint_le(done, total);
	*last = done;
}

START_TEST(mem_onto_junk)
{
	struct xfsj_io *src, *dst;
	struct xfsj_copy_stats st;
	uint64_t last = 0;

	ck_assert_int_eq(xfsj_io_open_mem(SRC_SIZE, &src), 0);
	ck_assert_int_eq(xfsj_io_open_mem(SRC_SIZE + 4096, &dst), 0);
	fill(xfsj_io_mem_buffer(src));
	memset(xfsj_io_mem_buffer(dst), 0xff, SRC_SIZE + 4096);
	ck_assert_int_eq(xfsj_io_copy(src, dst, progress, &last, &st), 0);
	ck_assert_uint_eq(last, SRC_SIZE);
	ck_assert_uint_eq(st.bytes, SRC_SIZE);
	/* Written: the 2 blocks, the 2 blocks the unaligned run spans, 1. */
	ck_assert_uint_eq(st.data, 5 * 4096);
	ck_assert_int_eq(memcmp(xfsj_io_mem_buffer(src),
				xfsj_io_mem_buffer(dst), SRC_SIZE), 0);
	/* Past the source's end: left as it was. */
	ck_assert_uint_eq(((uint8_t *)xfsj_io_mem_buffer(dst))[SRC_SIZE], 0xff);
	xfsj_io_close(dst);
	xfsj_io_close(src);
}
END_TEST

START_TEST(refusals)
{
	struct xfsj_io *src, *dst;

	ck_assert_int_eq(xfsj_io_open_mem(SRC_SIZE, &src), 0);
	ck_assert_int_eq(xfsj_io_open_mem(SRC_SIZE - 4096, &dst), 0);
	/* A smaller target that cannot grow. */
	ck_assert_int_eq(xfsj_io_copy(src, dst, NULL, NULL, NULL),
			 -XFSJ_E_TOOSMALL);
	ck_assert_int_eq(xfsj_io_copy(src, src, NULL, NULL, NULL),
			 -XFSJ_E_INVAL);
	xfsj_io_close(dst);
	xfsj_io_close(src);
}
END_TEST

START_TEST(file_stays_sparse)
{
	char sp[64], dp[64];
	uint8_t *want = malloc(SRC_SIZE), *got = malloc(SRC_SIZE);
	struct xfsj_io *src, *dst;
	struct xfsj_copy_stats st;
	struct stat s;
	int fd;

	ck_assert_ptr_nonnull(want);
	ck_assert_ptr_nonnull(got);
	fill(want);
	snprintf(sp, sizeof(sp), "/tmp/xfsj-io-copy-%ld.src", (long)getpid());
	snprintf(dp, sizeof(dp), "/tmp/xfsj-io-copy-%ld.dst", (long)getpid());
	unlink(dp);
	/* The source: the data written, the rest left as holes. */
	fd = open(sp, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ftruncate(fd, SRC_SIZE), 0);
	ck_assert_int_eq(pwrite(fd, want + 4096, 8192, 4096), 8192);
	ck_assert_int_eq(pwrite(fd, want + (1u << 20) - 100, 300,
				(1u << 20) - 100), 300);
	ck_assert_int_eq(pwrite(fd, want + SRC_SIZE - 1, 1, SRC_SIZE - 1), 1);
	close(fd);
	ck_assert_int_eq(xfsj_io_open(sp, XFSJ_IO_RDONLY, &src), 0);
	ck_assert_int_eq(xfsj_io_open(dp, XFSJ_IO_CREATE, &dst), 0);
	ck_assert_int_eq(xfsj_io_copy(src, dst, NULL, NULL, &st), 0);
	ck_assert_uint_eq(dst->size, SRC_SIZE);
	ck_assert_uint_eq(st.data, 5 * 4096);
	ck_assert_int_eq(xfsj_pread(dst, got, SRC_SIZE, 0), 0);
	ck_assert_int_eq(memcmp(want, got, SRC_SIZE), 0);
	xfsj_io_close(dst);
	xfsj_io_close(src);
	ck_assert_int_eq(stat(dp, &s), 0);
	/* Far less than the 3 MiB it reads as (block size of the host). */
	ck_assert_int_lt((long long)s.st_blocks * 512, 1 << 20);
	unlink(sp);
	unlink(dp);
	free(want);
	free(got);
}
END_TEST

Suite *io_copy_suite(void)
{
	Suite *s = suite_create("io_copy");
	TCase *tc = tcase_create("copy");

	tcase_add_test(tc, mem_onto_junk);
	tcase_add_test(tc, refusals);
	tcase_add_test(tc, file_stays_sparse);
	suite_add_tcase(s, tc);
	return s;
}
