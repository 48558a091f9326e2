/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The Unix backend: regular files (extend, zero, discard, map, read-soon
 * hints through the hint thread), read-only
 * refusal, files that shrink under an open device, open errors, and what
 * the mounted and exclusive checks say without a mount.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "suites.h"
#include "xfsj/errors.h"
#include "xfsj/io.h"

static char *make_temp(void)
{
	char *path = strdup("/tmp/xfsj-io-test-XXXXXX");
	int fd;

	ck_assert_ptr_nonnull(path);
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	close(fd);
	return path;
}

START_TEST(unix_file)
{
	char *path = make_temp();
	struct xfsj_io *io = NULL;
	uint8_t buf[8192], back[8192];
	struct stat st;

	ck_assert_int_eq(xfsj_io_open(path, 0, &io), 0);
	ck_assert_ptr_nonnull(io);
	ck_assert_str_eq(io->name, path);
	ck_assert_uint_eq(io->size, 0);
	ck_assert(!io->is_bdev);
	ck_assert(!io->readonly);
	ck_assert_ptr_null(xfsj_io_mem_buffer(io));
	/* Reading an empty file is short. */
	ck_assert_int_eq(xfsj_pread(io, back, 1, 0), -XFSJ_E_SHORTIO);
	/* Extend, then write and read back. */
	ck_assert_int_eq(xfsj_io_extend(io, 1 << 20), 0);
	ck_assert_uint_eq(io->size, 1 << 20);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_eq(st.st_size, 1 << 20);
	/* Extending to a smaller size does not shrink. */
	ck_assert_int_eq(xfsj_io_extend(io, 4096), 0);
	ck_assert_uint_eq(io->size, 1 << 20);
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)(i * 7 + 11);
	ck_assert_int_eq(xfsj_pwrite(io, buf, sizeof(buf), 4096), 0);
	memset(back, 0, sizeof(back));
	ck_assert_int_eq(xfsj_pread(io, back, sizeof(back), 4096), 0);
	ck_assert_mem_eq(back, buf, sizeof(buf));
	/* The extended part reads back as zeroes. */
	ck_assert_int_eq(xfsj_pread(io, back, 4096, 0), 0);
	for (int i = 0; i < 4096; i++)
		ck_assert_uint_eq(back[i], 0);
	/* Zero (punch) part of the written range. */
	ck_assert_int_eq(xfsj_io_zero(io, 4096, 4096), 0);
	ck_assert_int_eq(xfsj_pread(io, back, sizeof(back), 4096), 0);
	for (int i = 0; i < 4096; i++)
		ck_assert_uint_eq(back[i], 0);
	ck_assert_mem_eq(back + 4096, buf + 4096, 4096);
	/* An unaligned zero range. */
	ck_assert_int_eq(xfsj_io_zero(io, 8192 + 100, 50), 0);
	ck_assert_int_eq(xfsj_pread(io, back, 200, 8192), 0);
	ck_assert_mem_eq(back, buf + 4096, 100);
	for (int i = 100; i < 150; i++)
		ck_assert_uint_eq(back[i], 0);
	ck_assert_mem_eq(back + 150, buf + 4096 + 150, 50);
	ck_assert_int_eq(xfsj_io_zero(io, 0, 0), 0);
	/* The file keeps its size when zeroed. */
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_eq(st.st_size, 1 << 20);
	/* Zero past the end is refused. */
	ck_assert_int_eq(xfsj_io_zero(io, (1 << 20) - 10, 20), -XFSJ_E_RANGE);
	/* Writing past the end grows the file and the recorded size. */
	ck_assert_int_eq(xfsj_pwrite(io, buf, 100, (1 << 20) + 50), 0);
	ck_assert_uint_eq(io->size, (1 << 20) + 150);
	ck_assert_int_eq(xfsj_pread(io, back, 100, (1 << 20) + 50), 0);
	ck_assert_mem_eq(back, buf, 100);
	/* Reading past the end is short. */
	ck_assert_int_eq(xfsj_pread(io, back, 200, (1 << 20) + 50),
			 -XFSJ_E_SHORTIO);
	ck_assert_int_eq(xfsj_io_discard(io, 0, 4096), 0);
	ck_assert_int_eq(xfsj_io_sync(io), 0);
	xfsj_io_close(io);

	/* Reopen: the data is on disk. */
	ck_assert_int_eq(xfsj_io_open(path, XFSJ_IO_RDONLY, &io), 0);
	ck_assert_uint_eq(io->size, (1 << 20) + 150);
	ck_assert_int_eq(xfsj_pread(io, back, 4096, 8192), 0);
	ck_assert_mem_eq(back + 150, buf + 4096 + 150, 4096 - 150);
	xfsj_io_close(io);
	ck_assert(!xfsj_path_mounted(path));
	unlink(path);
	free(path);
}
END_TEST

/* The optional in-place read path, when the backend has one. */
/*
 * Read-soon hints go through a ring of 1024 to the hint thread: many more
 * than it holds, from two threads at once, neither lose a read nor hang,
 * and closing the file with hints still queued stops the thread.
 */
struct hinter {
	struct xfsj_io *io;
	unsigned int salt;
};

static void *hint_many(void *arg)
{
	struct hinter *h = arg;

	for (unsigned int i = 0; i < 5000; i++)
		xfsj_io_advise(h->io, (uint64_t)((i * 7 + h->salt) % 256) *
			       4096, 4096);
	return NULL;
}

/* preadv through a file: pieces filled in order from the offset, the
 * end of the file short, too many pieces refused. */
START_TEST(unix_preadv)
{
	char *path = make_temp();
	static uint8_t buf[3 * 4096], a[1000], b[5000], c[4096];
	struct iovec iov[3] = { { a, sizeof(a) }, { b, sizeof(b) },
				{ c, sizeof(c) } };
	struct xfsj_io *io = NULL;

	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)(i * 13 + i / 4096);
	ck_assert_int_eq(xfsj_io_open(path, 0, &io), 0);
	ck_assert_int_eq(xfsj_io_extend(io, sizeof(buf) + 4096), 0);
	ck_assert_int_eq(xfsj_pwrite(io, buf, sizeof(buf), 0), 0);
	ck_assert_ptr_nonnull(io->ops->preadv);
	ck_assert_int_eq(xfsj_preadv(io, iov, 3, 100), 0);
	ck_assert_mem_eq(a, buf + 100, sizeof(a));
	ck_assert_mem_eq(b, buf + 1100, sizeof(b));
	ck_assert_mem_eq(c, buf + 6100, sizeof(c));
	ck_assert_int_eq(xfsj_preadv(io, iov, 3, sizeof(buf)),
			 -XFSJ_E_SHORTIO);
	ck_assert_int_eq(xfsj_preadv(io, iov, XFSJ_IOV_MAX + 1, 0),
			 -XFSJ_E_INVAL);
	xfsj_io_close(io);
	unlink(path);
	free(path);
}
END_TEST

START_TEST(unix_advise_ring)
{
	char *path = make_temp();
	struct xfsj_io *io = NULL;
	struct hinter h[2];
	pthread_t t;
	uint8_t buf[4096], back[4096];

	ck_assert_int_eq(xfsj_io_open(path, 0, &io), 0);
	ck_assert_int_eq(xfsj_io_extend(io, 1 << 20), 0);
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)(i * 3 + 1);
	ck_assert_int_eq(xfsj_pwrite(io, buf, sizeof(buf), 65536), 0);
	h[0] = (struct hinter){ io, 0 };
	h[1] = (struct hinter){ io, 3 };
	ck_assert_int_eq(pthread_create(&t, NULL, hint_many, &h[0]), 0);
	hint_many(&h[1]);
	ck_assert_int_eq(pthread_join(t, NULL), 0);
	ck_assert_int_eq(xfsj_pread(io, back, sizeof(back), 65536), 0);
	ck_assert_mem_eq(back, buf, sizeof(buf));
	/* Hints queued at the close are dropped, the thread joined. */
	for (unsigned int i = 0; i < 2000; i++)
		xfsj_io_advise(io, (uint64_t)(i % 256) * 4096, 4096);
	xfsj_io_close(io);
	unlink(path);
	free(path);
}
END_TEST

START_TEST(unix_map)
{
	char *path = make_temp();
	struct xfsj_io *io;
	uint8_t *buf = malloc(3 * 4096);
	const void *p = NULL;

	ck_assert_ptr_nonnull(buf);
	for (int i = 0; i < 3 * 4096; i++)
		buf[i] = (uint8_t)(i * 13 + 5);
	ck_assert_int_eq(xfsj_io_open(path, 0, &io), 0);
	ck_assert_int_eq(xfsj_pwrite(io, buf, 3 * 4096, 0), 0);
	xfsj_io_close(io);
	ck_assert_int_eq(xfsj_io_open(path, XFSJ_IO_RDONLY, &io), 0);
	if (io->ops->map) {
		ck_assert_ptr_nonnull(io->ops->unmap);
		/* Page-aligned and unaligned starts, up to the last byte. */
		ck_assert_int_eq(io->ops->map(io, 4096, 4096, &p), 0);
		ck_assert_mem_eq(p, buf + 4096, 4096);
		io->ops->unmap(io, p, 4096);
		ck_assert_int_eq(io->ops->map(io, 1000, 3 * 4096 - 1000, &p), 0);
		ck_assert_mem_eq(p, buf + 1000, 3 * 4096 - 1000);
		io->ops->unmap(io, p, 3 * 4096 - 1000);
		/* Past the end is refused, not mapped. */
		ck_assert_int_ne(io->ops->map(io, 3 * 4096 - 10, 11, &p), 0);
		ck_assert_int_ne(io->ops->map(io, UINT64_MAX - 4, 16, &p), 0);
	}
	xfsj_io_close(io);
	unlink(path);
	free(path);
	free(buf);
}
END_TEST

START_TEST(unix_readonly)
{
	char *path = make_temp();
	struct xfsj_io *io;
	uint8_t buf[512], back[512];

	ck_assert_int_eq(xfsj_io_open(path, 0, &io), 0);
	memset(buf, 0x42, sizeof(buf));
	ck_assert_int_eq(xfsj_pwrite(io, buf, sizeof(buf), 0), 0);
	xfsj_io_close(io);

	ck_assert_int_eq(xfsj_io_open(path, XFSJ_IO_RDONLY, &io), 0);
	ck_assert(io->readonly);
	ck_assert_uint_eq(io->size, 512);
	memset(back, 0, sizeof(back));
	ck_assert_int_eq(xfsj_pread(io, back, sizeof(back), 0), 0);
	ck_assert_mem_eq(back, buf, sizeof(buf));
	/* Every way of changing the file is refused. */
	memset(buf, 0x17, sizeof(buf));
	ck_assert_int_eq(xfsj_pwrite(io, buf, sizeof(buf), 0), -XFSJ_E_INVAL);
	ck_assert_int_eq(xfsj_io_zero(io, 0, 512), -XFSJ_E_INVAL);
	ck_assert_int_eq(xfsj_io_extend(io, 1 << 20), -XFSJ_E_TOOSMALL);
	ck_assert_int_eq(xfsj_io_discard(io, 0, 512), 0);	/* a no-op */
	ck_assert_int_eq(xfsj_io_sync(io), 0);
	ck_assert_uint_eq(io->size, 512);
	ck_assert_int_eq(xfsj_pread(io, back, sizeof(back), 0), 0);
	for (int i = 0; i < 512; i++)
		ck_assert_uint_eq(back[i], 0x42);
	xfsj_io_close(io);
	unlink(path);
	free(path);
}
END_TEST

START_TEST(unix_open_errors)
{
	char *path = make_temp();
	struct xfsj_io *io = (struct xfsj_io *)0x1;
	struct stat st;

	unlink(path);
	/* Missing file. */
	ck_assert_int_eq(xfsj_io_open(path, 0, &io), -XFSJ_E_OPEN);
	ck_assert_int_eq(xfsj_io_open(path, XFSJ_IO_RDONLY, &io), -XFSJ_E_OPEN);
	ck_assert_int_eq(xfsj_io_open("/nonexistent-dir/xfsj/img", 0, &io),
			 -XFSJ_E_OPEN);
	ck_assert_ptr_eq(io, (struct xfsj_io *)0x1);	/* untouched */
	/* Read-only never creates. */
	ck_assert_int_eq(xfsj_io_open(path, XFSJ_IO_RDONLY | XFSJ_IO_CREATE, &io),
			 -XFSJ_E_OPEN);
	ck_assert_int_ne(stat(path, &st), 0);
	/* CREATE makes a new, empty regular file. */
	ck_assert_int_eq(xfsj_io_open(path, XFSJ_IO_CREATE, &io), 0);
	ck_assert_uint_eq(io->size, 0);
	xfsj_io_close(io);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert(S_ISREG(st.st_mode));
	unlink(path);
	/* A directory is neither a file nor a block device. */
	ck_assert_int_eq(xfsj_io_open("/tmp", XFSJ_IO_RDONLY, &io),
			 -XFSJ_E_UNSUPP);
	ck_assert_int_eq(xfsj_io_open("/tmp", 0, &io), -XFSJ_E_OPEN);
	ck_assert(!xfsj_path_mounted(path));
	free(path);
}
END_TEST

/* Discarding keeps the size and the bytes around the range. */
START_TEST(unix_discard)
{
	char *path = make_temp();
	struct xfsj_io *io;
	uint8_t *buf = malloc(64 * 1024), *back = malloc(64 * 1024);
	struct stat st;

	ck_assert_ptr_nonnull(buf);
	ck_assert_ptr_nonnull(back);
	memset(buf, 0x6B, 64 * 1024);
	ck_assert_int_eq(xfsj_io_open(path, 0, &io), 0);
	ck_assert_int_eq(xfsj_pwrite(io, buf, 64 * 1024, 0), 0);
	ck_assert_int_eq(xfsj_io_discard(io, 8192, 16384), 0);
	ck_assert_int_eq(xfsj_io_discard(io, 0, 0), 0);
	ck_assert_uint_eq(io->size, 64 * 1024);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_eq(st.st_size, 64 * 1024);
	ck_assert_int_eq(xfsj_pread(io, back, 64 * 1024, 0), 0);
	ck_assert_mem_eq(back, buf, 8192);
	ck_assert_mem_eq(back + 8192 + 16384, buf, 64 * 1024 - 8192 - 16384);
	/* The discarded range reads as the old bytes or as zeroes. */
	for (int i = 8192; i < 8192 + 16384; i++)
		ck_assert(back[i] == 0 || back[i] == 0x6B);
	/* A large zero range: whatever path the file system takes. */
	ck_assert_int_eq(xfsj_io_extend(io, 3 << 20), 0);
	ck_assert_int_eq(xfsj_pwrite(io, buf, 64 * 1024, (3 << 20) - 65536),
			 0);
	ck_assert_int_eq(xfsj_io_zero(io, 4096, (3 << 20) - 8192), 0);
	ck_assert_int_eq(xfsj_pread(io, back, 8192, (3 << 20) - 8192), 0);
	for (int i = 0; i < 4096; i++)
		ck_assert_uint_eq(back[i], 0);
	ck_assert_mem_eq(back + 4096, buf, 4096);
	ck_assert_int_eq(xfsj_pread(io, back, 4096, 0), 0);
	ck_assert_mem_eq(back, buf, 4096);
	xfsj_io_close(io);
	unlink(path);
	free(path);
	free(buf);
	free(back);
}
END_TEST

/*
 * The file shrinks under an open device (another program truncated
 * it): reads past its new end are short, never garbage.
 */
START_TEST(unix_short_file)
{
	char *path = make_temp();
	struct xfsj_io *io;
	uint8_t buf[8192];

	memset(buf, 0x19, sizeof(buf));
	ck_assert_int_eq(xfsj_io_open(path, 0, &io), 0);
	ck_assert_int_eq(xfsj_pwrite(io, buf, sizeof(buf), 0), 0);
	ck_assert_int_eq(truncate(path, 4096), 0);
	ck_assert_uint_eq(io->size, 8192);		/* as opened */
	ck_assert_int_eq(xfsj_pread(io, buf, 4096, 0), 0);
	ck_assert_int_eq(xfsj_pread(io, buf, 200, 4000), -XFSJ_E_SHORTIO);
	ck_assert_int_eq(xfsj_pread(io, buf, 4096, 4096), -XFSJ_E_SHORTIO);
	xfsj_io_close(io);
	/* Reopened, the size is the file's. */
	ck_assert_int_eq(xfsj_io_open(path, XFSJ_IO_RDONLY, &io), 0);
	ck_assert_uint_eq(io->size, 4096);
	xfsj_io_close(io);
	unlink(path);
	free(path);
}
END_TEST

/* An extension the file system cannot make fails and changes nothing. */
START_TEST(unix_extend_refused)
{
	char *path = make_temp();
	struct xfsj_io *io;

	ck_assert_int_eq(xfsj_io_open(path, 0, &io), 0);
	ck_assert_int_eq(xfsj_io_extend(io, 4096), 0);
	ck_assert_int_ne(xfsj_io_extend(io, (uint64_t)INT64_MAX + 1), 0);
	ck_assert_int_ne(xfsj_io_extend(io, UINT64_MAX), 0);
	ck_assert_uint_eq(io->size, 4096);
	xfsj_io_close(io);
	unlink(path);
	free(path);
}
END_TEST

/*
 * What the in-use checks can say without a mount: nothing is mounted
 * from or held on a plain file, a directory, a character device or a
 * missing path, and EXCL on a regular file is not an error.
 */
START_TEST(unix_not_in_use)
{
	char *path = make_temp();
	struct xfsj_io *io;

	ck_assert(!xfsj_path_mounted(path));
	ck_assert(!xfsj_path_held(path));
	ck_assert(!xfsj_path_mounted("/tmp"));
	ck_assert(!xfsj_path_held("/tmp"));
	ck_assert(!xfsj_path_mounted("/dev/null"));
	ck_assert(!xfsj_path_held("/dev/null"));
	ck_assert(!xfsj_path_mounted("/nonexistent-dir/xfsj"));
	ck_assert(!xfsj_path_held("/nonexistent-dir/xfsj"));
	ck_assert_int_eq(xfsj_io_open(path, XFSJ_IO_EXCL, &io), 0);
	ck_assert(!io->is_bdev);
	xfsj_io_close(io);
	/* Neither a file nor a block device. */
	ck_assert_int_eq(xfsj_io_open("/dev/null", XFSJ_IO_RDONLY, &io),
			 -XFSJ_E_UNSUPP);
	unlink(path);
	free(path);
}
END_TEST

Suite *io_unix_suite(void)
{
	Suite *s = suite_create("io_unix");
	TCase *tc = tcase_create("unix");

	tcase_add_test(tc, unix_file);
	tcase_add_test(tc, unix_preadv);
	tcase_add_test(tc, unix_map);
	tcase_add_test(tc, unix_advise_ring);
	tcase_add_test(tc, unix_readonly);
	tcase_add_test(tc, unix_open_errors);
	tcase_add_test(tc, unix_discard);
	tcase_add_test(tc, unix_short_file);
	tcase_add_test(tc, unix_extend_refused);
	tcase_add_test(tc, unix_not_in_use);
	suite_add_tcase(s, tc);
	return s;
}
