/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * populate: a small tree of every kind copied into an in-memory
 * filesystem checks clean; the same tree twice gives the same bytes; an
 * uncopyable source names its path and leaves the needs-repair flag; the
 * POSIX ACL conversion; directories spread over the AGs, files with their
 * parent; the device under the overlay reads free space as zeroes.
 */
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <check.h>

#include "fs_fixture.h"
#include "suites.h"
#include "fs/bmbt.h"
#include "populate/pop_priv.h"
#include "xfsj/check.h"

#define MB (1024ULL * 1024)

static char src[64];

static void put(const char *rel, const char *data, off_t at)
{
	char path[256];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", src, rel);
	fd = open(path, O_WRONLY | O_CREAT, 0644);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(pwrite(fd, data, strlen(data), at),
			 (ssize_t)strlen(data));
	close(fd);
}

static void make_tree(void)
{
	char path[256], name[64];
	int fd;

	strcpy(src, "/tmp/xfsj-unit-pop.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(src));
	put("small", "hello\n", 0);
	/* A hole before and between two runs of data. */
	put("holes", "a", 1 * MB);
	put("holes", "b", 3 * MB);
	snprintf(path, sizeof(path), "%s/d", src);
	ck_assert_int_eq(mkdir(path, 0755), 0);
	for (int i = 0; i < 300; i++) {
		snprintf(name, sizeof(name), "d/entry-with-a-longer-name-%04d", i);
		put(name, "", 0);
	}
	snprintf(path, sizeof(path), "%s/link", src);
	ck_assert_int_eq(symlink("small", path), 0);
	snprintf(path, sizeof(path), "%s/fifo", src);
	ck_assert_int_eq(mkfifo(path, 0600), 0);
	snprintf(path, sizeof(path), "%s/small", src);
	snprintf(name, sizeof(name), "%s/d/hard", src);
	ck_assert_int_eq(link(path, name), 0);
	fd = open(path, O_RDONLY);
	ck_assert_int_ge(fd, 0);
	close(fd);
}

static int rm_one(const char *p, const struct stat *st, int flag,
		  struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(p);
}

static void drop_tree(void)
{
	nftw(src, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static bool mkfs_unfinished;	/* sb.primary.mkfs_unfinished reported */

static void on_problem(void *arg, const struct xfsj_problem *p)
{
	char msg[256];

	(void)arg;
	if (!strcmp(p->def->code, "sb.primary.mkfs_unfinished"))
		mkfs_unfinished = true;
	xfsj_problem_format(p, msg, sizeof(msg));
	fprintf(stderr, "populate: %s\n", msg);
}

/* Populate the fixture's device from @dir; the fixture reopened after. */
static int run(struct fs_fixture *fx, const char *dir,
	       struct xfsj_populate_err *e)
{
	struct xfsj_populate_opts o = { .source = dir, .have_epoch = true,
					.epoch = 1600000000 };
	uint8_t sect[512];
	int err;

	xfsj_fs_close(fx->fs);
	xfsj_overlay_free(fx->ov);
	err = xfsj_populate(fx->io, &o, e, &fx->f);
	ck_assert_int_eq(xfsj_overlay_create(fx->io, &fx->ov), 0);
	ck_assert_int_eq(xfsj_overlay_read(fx->ov, sect, 512, 0), 0);
	xfsj_sb_decode(sect, &fx->sb);
	ck_assert_int_eq(xfsj_fs_open(fx->ov, &fx->sb, 1ULL << 32, &fx->fs),
			 0);
	return err;
}

START_TEST(test_tree_checks_clean)
{
	struct xfsj_check_cb cb = { .problem = on_problem };
	struct xfsj_check_result res;
	struct xfsj_populate_err e;
	struct fs_fixture fx;

	make_tree();
	fs_fixture_make(&fx, 64 * MB, 4096, 2, true, false);
	ck_assert_int_eq(run(&fx, src, &e), 0);
	ck_assert(!(fx.sb.features_incompat & XFSJ_INCOMPAT_NEEDSREPAIR));
	ck_assert_uint_eq(fx.sb.inprogress, 0);
	ck_assert_int_eq(xfsj_check(fx.fs, NULL, &cb, &res), 0);
	ck_assert_uint_eq(res.problems, 0);
	/* root, rbm, rsum; small (+ hard), holes, d, 300, link, fifo */
	ck_assert_uint_eq(res.inodes, 3 + 5 + 300);
	fs_fixture_free(&fx);
	drop_tree();
}
END_TEST

START_TEST(test_same_tree_same_bytes)
{
	struct xfsj_populate_err e;
	struct fs_fixture a, b;

	make_tree();
	fs_fixture_make(&a, 64 * MB, 4096, 2, true, false);
	fs_fixture_make(&b, 64 * MB, 4096, 2, true, false);
	ck_assert_int_eq(run(&a, src, &e), 0);
	ck_assert_int_eq(run(&b, src, &e), 0);
	ck_assert(!memcmp(xfsj_io_mem_buffer(a.io), xfsj_io_mem_buffer(b.io),
			  64 * MB));
	fs_fixture_free(&a);
	fs_fixture_free(&b);
	drop_tree();
}
END_TEST

START_TEST(test_missing_source)
{
	struct xfsj_check_cb cb = { .problem = on_problem };
	struct xfsj_check_result res;
	struct xfsj_populate_err e;
	struct fs_fixture fx;

	fs_fixture_make(&fx, 64 * MB, 4096, 2, true, false);
	ck_assert_int_ne(run(&fx, "/nonexistent/xfsj-unit-pop", &e), 0);
	ck_assert_str_eq(e.path, "/nonexistent/xfsj-unit-pop");
	ck_assert_int_ne(e.sys_errno, 0);
	ck_assert(fx.sb.features_incompat & XFSJ_INCOMPAT_NEEDSREPAIR);
	/* sb_inprogress with it: the check names an unfinished mkfs -p */
	ck_assert_uint_eq(fx.sb.inprogress, 1);
	ck_assert_int_eq(xfsj_check(fx.fs, NULL, &cb, &res), 0);
	ck_assert(mkfs_unfinished);
	fs_fixture_free(&fx);
}
END_TEST

START_TEST(test_protofile)
{
	struct xfsj_check_cb cb = { .problem = on_problem };
	struct xfsj_check_result res;
	struct xfsj_populate_err e;
	struct fs_fixture fx;
	char proto[128], text[1024];
	FILE *fp;

	make_tree();
	snprintf(proto, sizeof(proto), "%s.proto", src);
	snprintf(text, sizeof(text),
		 "/boot\n0 0\nd--755 0 0\n: a comment\n"
		 " f --g2750 1000 1000 %s/holes\n"
		 " dev c--644 0 0 1 3\n"
		 " sub du-755 0 0\n  l l--777 0 0 ../f\n  p p--600 0 0\n $\n$\n",
		 src);
	fp = fopen(proto, "w");
	ck_assert_ptr_nonnull(fp);
	fputs(text, fp);
	fclose(fp);
	fs_fixture_make(&fx, 64 * MB, 4096, 2, true, false);
	ck_assert_int_eq(run(&fx, proto, &e), 0);
	ck_assert_int_eq(xfsj_check(fx.fs, NULL, &cb, &res), 0);
	ck_assert_uint_eq(res.problems, 0);
	ck_assert_uint_eq(res.inodes, 3 + 5);
	fs_fixture_free(&fx);
	/* A protofile cut short: its name and line in the error. */
	fp = fopen(proto, "w");
	fputs("/boot\n0 0\nd--755 0 0\n x -zz644 0 0\n", fp);
	fclose(fp);
	fs_fixture_make(&fx, 64 * MB, 4096, 2, true, false);
	ck_assert_int_ne(run(&fx, proto, &e), 0);
	ck_assert_ptr_nonnull(strstr(e.path, ".proto:4"));
	fs_fixture_free(&fx);
	remove(proto);
	drop_tree();
}
END_TEST

/* The AGI inode count of AG @agno. */
static uint32_t ag_inodes(struct fs_fixture *fx, uint32_t agno)
{
	struct xfsj_buf *bp;

	ck_assert_int_eq(xfsj_agi_read(fx->fs, agno, &bp, &fx->f), 0);
	return xfsj_get_be32(bp->data + XFSJ_AGI_OFF(count));
}

START_TEST(test_dirs_spread)
{
	struct xfsj_check_cb cb = { .problem = on_problem };
	struct xfsj_check_result res;
	struct xfsj_populate_err e;
	struct fs_fixture fx;
	char path[256];

	strcpy(src, "/tmp/xfsj-unit-pop.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(src));
	/* a: AG 0 (the rotor starts there), b: AG 1, b's files: AG 1. */
	snprintf(path, sizeof(path), "%s/a", src);
	ck_assert_int_eq(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/b", src);
	ck_assert_int_eq(mkdir(path, 0755), 0);
	put("b/f1", "one", 0);
	put("b/f2", "two", 0);
	fs_fixture_make(&fx, 64 * MB, 4096, 2, true, false);
	ck_assert_uint_eq(ag_inodes(&fx, 1), 0);
	ck_assert_int_eq(run(&fx, src, &e), 0);
	ck_assert_int_eq(xfsj_check(fx.fs, NULL, &cb, &res), 0);
	ck_assert_uint_eq(res.problems, 0);
	ck_assert_uint_eq(ag_inodes(&fx, 1), 64);
	ck_assert_uint_eq(ag_inodes(&fx, 0), 64);
	fs_fixture_free(&fx);
	drop_tree();
}
END_TEST

START_TEST(test_blank_reads)
{
	struct fs_fixture fx;
	struct pop p = { 0 };
	struct xfsj_io *bio;
	uint8_t junk[4096], got[4096], below[512];
	uint64_t fsb, off;

	fs_fixture_make(&fx, 64 * MB, 4096, 2, true, false);
	p.fs = fx.fs;
	p.sb = xfsj_fs_sb(fx.fs);
	p.f = &fx.f;
	/* The last block of AG 1 is free: junk on the device there. */
	fsb = xfsj_agb_to_fsb(p.sb, 1, p.sb->agblocks - 1);
	ck_assert(fs_fixture_is_free(&fx, fsb, 1));
	off = xfsj_fsb_daddr(p.sb, fsb) << 9;
	memset(junk, 0xab, sizeof(junk));
	ck_assert_int_eq(xfsj_pwrite(fx.io, junk, sizeof(junk), off), 0);
	ck_assert_int_eq(xfsj_pop_blank_open(fx.io, &bio), 0);
	/* Nothing learnt yet: the device's bytes. */
	ck_assert_int_eq(xfsj_pread(bio, got, sizeof(got), off), 0);
	ck_assert(!memcmp(got, junk, sizeof(got)));
	ck_assert_int_eq(xfsj_pop_blank_learn(&p, bio), 0);
	ck_assert_int_eq(xfsj_pread(bio, got, sizeof(got), off), 0);
	ck_assert(got[0] == 0 && !memcmp(got, got + 1, sizeof(got) - 1));
	/* The superblock is not free space: read from the device. */
	ck_assert_int_eq(xfsj_pread(bio, got, 512, 0), 0);
	ck_assert_int_eq(xfsj_pread(fx.io, below, 512, 0), 0);
	ck_assert(!memcmp(got, below, 512));
	/* Writes reach the device; reads past its end are refused. */
	ck_assert_int_eq(xfsj_pwrite(bio, junk, 512, 0), 0);
	ck_assert_int_eq(xfsj_pread(fx.io, below, 512, 0), 0);
	ck_assert(!memcmp(below, junk, 512));
	ck_assert_int_ne(xfsj_pread(bio, got, 512, bio->size), 0);
	xfsj_io_close(bio);
	fs_fixture_free(&fx);
}
END_TEST

START_TEST(test_acl_to_disk)
{
	/* version 2; USER_OBJ rwx; USER 1000 r-x; MASK r-x; OTHER --- */
	static const uint8_t in[] = {
		2, 0, 0, 0,
		0x01, 0, 7, 0, 0xff, 0xff, 0xff, 0xff,
		0x02, 0, 5, 0, 0xe8, 0x03, 0, 0,
		0x10, 0, 5, 0, 0xff, 0xff, 0xff, 0xff,
		0x20, 0, 0, 0, 0xff, 0xff, 0xff, 0xff,
	};
	uint8_t out[64];

	ck_assert_int_eq(xfsj_pop_acl_to_disk(in, sizeof(in), out,
					      sizeof(out)), 4 + 4 * 12);
	ck_assert_uint_eq(xfsj_get_be32(out), 4);
	ck_assert_uint_eq(xfsj_get_be32(out + 4), 0x01);
	ck_assert_uint_eq(xfsj_get_be32(out + 8), 0xffffffffU);
	ck_assert_uint_eq(xfsj_get_be16(out + 12), 7);
	ck_assert_uint_eq(xfsj_get_be32(out + 16), 0x02);
	ck_assert_uint_eq(xfsj_get_be32(out + 20), 1000);
	ck_assert_uint_eq(xfsj_get_be16(out + 24), 5);
	ck_assert_uint_eq(xfsj_get_be32(out + 40), 0x20);
	/* A wrong version, a torn entry, too small a buffer. */
	ck_assert_int_lt(xfsj_pop_acl_to_disk((const uint8_t *)"\1\0\0\0", 4,
					      out, sizeof(out)), 0);
	ck_assert_int_lt(xfsj_pop_acl_to_disk(in, sizeof(in) - 1, out,
					      sizeof(out)), 0);
	ck_assert_int_lt(xfsj_pop_acl_to_disk(in, sizeof(in), out, 20), 0);
}
END_TEST

Suite *populate_suite(void)
{
	Suite *s = suite_create("populate");
	TCase *tc = tcase_create("populate");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_tree_checks_clean);
	tcase_add_test(tc, test_same_tree_same_bytes);
	tcase_add_test(tc, test_missing_source);
	tcase_add_test(tc, test_protofile);
	tcase_add_test(tc, test_acl_to_disk);
	tcase_add_test(tc, test_dirs_spread);
	tcase_add_test(tc, test_blank_reads);
	suite_add_tcase(s, tc);
	return s;
}
