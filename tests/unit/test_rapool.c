/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The read-ahead pool (core/rapool.c): what it serves is the file's bytes,
 * whatever the alignment and the pieces of the read; what it was not asked
 * for, or dropped to make room, or forgot when the file changed, it does
 * not serve; the end of a file that is no whole number of pages; many
 * threads hinting and reading at once.  And through the Unix backend: a
 * write is seen by the reads that follow.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "suites.h"
#include "core/rapool.h"
#include "xfsj/io.h"

#define MIB		(1ULL << 20)
#define FILE_BYTES	(48 * MIB + 1000)	/* more than the arena */

/* The byte at @off of the test file. */
static uint8_t pattern(uint64_t off)
{
	return (uint8_t)((off >> 12) * 31 + (off & 4095) * 7 + 3);
}

static char *make_file(uint64_t bytes)
{
	char *path = strdup("/var/tmp/xfsj-rapool-test-XXXXXX");
	uint8_t *buf = malloc(MIB);
	int fd;

	ck_assert_ptr_nonnull(path);
	ck_assert_ptr_nonnull(buf);
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	for (uint64_t off = 0; off < bytes; off += MIB) {
		size_t n = bytes - off < MIB ? (size_t)(bytes - off) : MIB;

		for (size_t i = 0; i < n; i++)
			buf[i] = pattern(off + i);
		ck_assert_int_eq(pwrite(fd, buf, n, (off_t)off), (ssize_t)n);
	}
	close(fd);
	free(buf);
	return path;
}

/* Each test's file and a pool reading it. */
static char *path;
static struct xfsj_rapool *rp;

static void setup(void)
{
	int dfd;

	path = make_file(FILE_BYTES);
	dfd = open(path, O_RDONLY | O_DIRECT);
	ck_assert_int_ge(dfd, 0);
	rp = xfsj_rapool_create(dfd, FILE_BYTES);
	ck_assert_ptr_nonnull(rp);
}

static void teardown(void)
{
	xfsj_rapool_free(rp);
	unlink(path);
	free(path);
}

/* (One assertion for the whole range: Check logs each one it passes.) */
static void assert_pattern(const uint8_t *p, uint64_t off, size_t len)
{
	size_t i = 0;

	while (i < len && p[i] == pattern(off + i))
		i++;
	ck_assert_uint_eq(i, len);
}

/* A served read of [@off, +@len) into one piece: 0, or 1 (a miss). */
static int read_one(uint64_t off, size_t len)
{
	uint8_t *buf = malloc(len);
	struct iovec v = { buf, len };
	int ret;

	ck_assert_ptr_nonnull(buf);
	memset(buf, 0xee, len);
	ret = xfsj_rapool_read(rp, &v, 1, off, len);
	if (!ret)
		assert_pattern(buf, off, len);
	free(buf);
	return ret;
}

START_TEST(serves_what_was_hinted)
{
	struct xfsj_rapool_stats st;
	uint8_t a[100], b[5000], c[3000];
	struct iovec v[3] = { { a, sizeof(a) }, { b, sizeof(b) },
			      { c, sizeof(c) } };

	ck_assert_uint_eq(xfsj_rapool_hint(rp, 0, MIB), MIB);
	ck_assert_int_eq(read_one(0, MIB), 0);
	/* Whole pages, a range across pages at odd offsets, pieces. */
	ck_assert_int_eq(read_one(8192, 4096), 0);
	ck_assert_int_eq(read_one(12345, 20000), 0);
	ck_assert_int_eq(xfsj_rapool_read(rp, v, 3, 4095, 8100), 0);
	assert_pattern(a, 4095, sizeof(a));
	assert_pattern(b, 4095 + sizeof(a), sizeof(b));
	assert_pattern(c, 4095 + sizeof(a) + sizeof(b), sizeof(c));
	/* Not hinted; past the end; crossing the end of what was. */
	ck_assert_int_eq(read_one(40 * MIB, 4096), 1);
	ck_assert_int_eq(read_one(FILE_BYTES - 10, 20), 1);
	ck_assert_int_eq(read_one(MIB - 4096, 8192), 1);
	xfsj_rapool_stats(rp, &st);
	ck_assert_uint_eq(st.served, 4);
	/* (Past the end is refused before any lookup.) */
	ck_assert_uint_eq(st.missed, 2);
	ck_assert_uint_ge(st.read_bytes, MIB);
	/* Hinted again: nothing more is read. */
	ck_assert_uint_eq(xfsj_rapool_hint(rp, 4096, 65536), 65536);
	ck_assert_int_eq(read_one(4096, 65536), 0);
	xfsj_rapool_stats(rp, &st);
	ck_assert_uint_eq(st.read_bytes, MIB);
}
END_TEST

START_TEST(drops_oldest_when_full)
{
	uint64_t off;

	/* 48 MiB of hints through a 32 MiB arena. */
	for (off = 0; off < 48 * MIB; off += MIB)
		ck_assert_uint_eq(xfsj_rapool_hint(rp, off, MIB), MIB);
	/* The first were dropped for the last; the last are there. */
	ck_assert_int_eq(read_one(0, 4096), 1);
	ck_assert_int_eq(read_one(47 * MIB, MIB), 0);
	/* Whatever is served anywhere is right. */
	for (off = 0; off < 48 * MIB; off += 3 * MIB + 4321)
		(void)read_one(off, 70000);
	/* One hint larger than the pool takes a part. */
	off = xfsj_rapool_hint(rp, 0, 40 * MIB);
	ck_assert_uint_gt(off, 0);
	ck_assert_uint_lt(off, 40 * MIB);
	ck_assert_int_eq(read_one(0, (size_t)off), 0);
}
END_TEST

START_TEST(end_of_file)
{
	uint64_t last = FILE_BYTES & ~4095ULL;

	ck_assert_uint_eq(xfsj_rapool_hint(rp, last - 8192, 1 << 20),
			  FILE_BYTES - (last - 8192));
	ck_assert_int_eq(read_one(last - 100, 1100), 0);
	ck_assert_int_eq(read_one(FILE_BYTES - 1, 1), 0);
	ck_assert_int_eq(read_one(FILE_BYTES - 1, 2), 1);
}
END_TEST

START_TEST(forgets_on_change)
{
	uint8_t zero[4096] = { 0 }, back[4096];
	struct iovec v = { back, sizeof(back) };
	int fd;

	ck_assert_uint_eq(xfsj_rapool_hint(rp, 0, 65536), 65536);
	ck_assert_int_eq(read_one(16384, 4096), 0);
	fd = open(path, O_WRONLY);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(pwrite(fd, zero, sizeof(zero), 16384), 4096);
	close(fd);
	xfsj_rapool_forget(rp);
	ck_assert_int_eq(read_one(16384, 4096), 1);
	ck_assert_uint_eq(xfsj_rapool_hint(rp, 0, 65536), 65536);
	ck_assert_int_eq(xfsj_rapool_read(rp, &v, 1, 16384, sizeof(back)), 0);
	ck_assert_mem_eq(back, zero, sizeof(zero));
}
END_TEST

struct racer {
	struct xfsj_rapool *rp;
	unsigned int seed;
	unsigned int served;
};

/* Hint a random range, read a random part of it, check what came. */
static void *race(void *arg)
{
	struct racer *r = arg;
	uint8_t *buf = malloc(96 * 1024);

	for (int i = 0; i < 3000; i++) {
		uint64_t off = ((uint64_t)rand_r(&r->seed) << 8) %
			       (FILE_BYTES - 200000);
		size_t len = 1 + (size_t)rand_r(&r->seed) % (96 * 1024);
		struct iovec v = { buf, len };

		if (rand_r(&r->seed) % 4)
			(void)xfsj_rapool_hint(r->rp, off, 2 * len);
		if (!xfsj_rapool_read(r->rp, &v, 1, off, len)) {
			for (size_t k = 0; k < len; k++)
				if (buf[k] != pattern(off + k))
					return (void *)1;
			r->served++;
		}
	}
	free(buf);
	return NULL;
}

START_TEST(threads_at_once)
{
	struct racer r[3];
	pthread_t t[3];
	void *bad;

	for (int i = 0; i < 3; i++) {
		r[i] = (struct racer){ rp, 17U + (unsigned int)i * 101, 0 };
		ck_assert_int_eq(pthread_create(&t[i], NULL, race, &r[i]), 0);
	}
	for (int i = 0; i < 3; i++) {
		ck_assert_int_eq(pthread_join(t[i], &bad), 0);
		ck_assert_ptr_null(bad);
		/* Most reads follow their hint: they are served. */
		ck_assert_uint_gt(r[i].served, 1000);
	}
}
END_TEST

/* Through the Unix backend: a write through the device is read back. */
START_TEST(unix_writes_seen)
{
	struct xfsj_io *io = NULL;
	uint8_t buf[8192], back[8192];

	ck_assert_int_eq(xfsj_io_open(path, 0, &io), 0);
	ck_assert(!io->ra_exact);
	ck_assert(xfsj_io_direct_readahead(io));
	ck_assert(io->ra_exact);
	xfsj_io_advise(io, 0, MIB);
	ck_assert_int_eq(xfsj_pread(io, back, sizeof(back), 4096), 0);
	assert_pattern(back, 4096, sizeof(back));
	memset(buf, 0x5a, sizeof(buf));
	ck_assert_int_eq(xfsj_pwrite(io, buf, sizeof(buf), 8192), 0);
	xfsj_io_advise(io, 0, MIB);
	ck_assert_int_eq(xfsj_pread(io, back, sizeof(back), 8192), 0);
	ck_assert_mem_eq(back, buf, sizeof(buf));
	ck_assert_int_eq(xfsj_io_zero(io, 8192, 4096), 0);
	ck_assert_int_eq(xfsj_pread(io, back, 4096, 8192), 0);
	memset(buf, 0, 4096);
	ck_assert_mem_eq(back, buf, 4096);
	xfsj_io_close(io);
}
END_TEST

Suite *rapool_suite(void)
{
	Suite *s = suite_create("rapool");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, serves_what_was_hinted);
	tcase_add_test(tc, drops_oldest_when_full);
	tcase_add_test(tc, end_of_file);
	tcase_add_test(tc, forgets_on_change);
	tcase_add_test(tc, threads_at_once);
	tcase_add_test(tc, unix_writes_seen);
	tcase_set_timeout(tc, 120);
	suite_add_tcase(s, tc);
	return s;
}
