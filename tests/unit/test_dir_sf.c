/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Short-form directories (format reference §7.6): the reference example,
 * 8-byte inode numbers, walk round trips, and hostile input.  Hostile
 * buffers are always heap copies of exactly the claimed length so that
 * the sanitizer build catches any read past the end.
 */
#include <stdlib.h>
#include <string.h>

#include "suites.h"
#include "xfsj/ondisk.h"

#define NAME35 "a-name-of-exactly-thirty-five-bytes"

static const struct xfsj_dirent example[] = {
	{ "subdir", 6, XFSJ_FT_DIR, 131 },
	{ "file.txt", 8, XFSJ_FT_REG, 132 },
	{ NAME35, 35, XFSJ_FT_REG, 133 },
};
#define NEX 3
/* 6 header + (3+6+1+4) + (3+8+1+4) + (3+35+1+4) */
#define EX_SIZE 79

struct collected {
	unsigned int n;
	struct {
		char name[256];
		uint8_t namelen, ftype;
		uint64_t ino;
	} e[300];
};

static int collect(const struct xfsj_dirent *e, void *arg)
{
	struct collected *c = arg;

	ck_assert_uint_lt(c->n, 300);
	memcpy(c->e[c->n].name, e->name, e->namelen);
	c->e[c->n].name[e->namelen] = 0;
	c->e[c->n].namelen = e->namelen;
	c->e[c->n].ftype = e->ftype;
	c->e[c->n].ino = e->ino;
	c->n++;
	return 0;
}

static uint8_t *dup_exact(const void *src, size_t len)
{
	uint8_t *p = malloc(len ? len : 1);

	ck_assert_ptr_nonnull(p);
	if (len)
		memcpy(p, src, len);
	return p;
}

START_TEST(reference_example)
{
	uint8_t buf[256];
	struct collected got;
	uint64_t parent = 0;
	struct xfsj_fault f;
	int n;

	ck_assert_uint_eq(strlen(NAME35), 35);
	ck_assert_uint_eq(xfsj_dir_sf_size(128, example, NEX, true), EX_SIZE);
	memset(buf, 0xEE, sizeof(buf));
	n = xfsj_dir_sf_encode(128, example, NEX, true, buf, sizeof(buf));
	ck_assert_int_eq(n, EX_SIZE);
	/* header: count 3, i8count 0, parent 128 (BE32) */
	ck_assert_mem_eq(buf, "\x03\x00\x00\x00\x00\x80", 6);
	/* entry 1 at 6: namelen, offset 0x60, name, ftype, ino */
	ck_assert_mem_eq(buf + 6, "\x06\x00\x60" "subdir" "\x02\0\0\0\x83", 14);
	/* entry 2 at 20: offset 0x78 */
	ck_assert_mem_eq(buf + 20, "\x08\x00\x78" "file.txt" "\x01\0\0\0\x84",
			 16);
	/* entry 3 at 36: offset 0x90 */
	ck_assert_uint_eq(buf[36], 35);
	ck_assert_uint_eq(xfsj_get_be16(buf + 37), 0x90);
	ck_assert_mem_eq(buf + 39, NAME35, 35);
	ck_assert_uint_eq(buf[74], XFSJ_FT_REG);
	ck_assert_uint_eq(xfsj_get_be32(buf + 75), 133);
	ck_assert_uint_eq(buf[EX_SIZE], 0xEE);	/* nothing written after */

	memset(&got, 0, sizeof(got));
	memset(&f, 0, sizeof(f));
	ck_assert_int_eq(xfsj_dir_sf_walk(buf, EX_SIZE, true, &parent, collect,
					  &got, &f), 0);
	ck_assert_uint_eq(parent, 128);
	ck_assert_uint_eq(got.n, NEX);
	for (unsigned int i = 0; i < NEX; i++) {
		ck_assert_str_eq(got.e[i].name, example[i].name);
		ck_assert_uint_eq(got.e[i].namelen, example[i].namelen);
		ck_assert_uint_eq(got.e[i].ftype, example[i].ftype);
		ck_assert_uint_eq(got.e[i].ino, example[i].ino);
	}
	/* Walking without a callback or a parent pointer is fine too. */
	ck_assert_int_eq(xfsj_dir_sf_walk(buf, EX_SIZE, true, NULL, NULL, NULL,
					  NULL), 0);
}
END_TEST

START_TEST(empty_directory)
{
	uint8_t buf[16];
	uint64_t parent = 0;
	struct collected got;

	ck_assert_uint_eq(xfsj_dir_sf_size(128, NULL, 0, true), 6);
	ck_assert_int_eq(xfsj_dir_sf_encode(128, NULL, 0, true, buf, 6), 6);
	ck_assert_mem_eq(buf, "\0\0\0\0\0\x80", 6);
	memset(&got, 0, sizeof(got));
	ck_assert_int_eq(xfsj_dir_sf_walk(buf, 6, true, &parent, collect, &got,
					  NULL), 0);
	ck_assert_uint_eq(parent, 128);
	ck_assert_uint_eq(got.n, 0);
}
END_TEST

START_TEST(without_ftype)
{
	uint8_t buf[128];
	struct collected got;
	uint64_t parent;

	/* 6 + (3+6+4) + (3+8+4) + (3+35+4) */
	ck_assert_uint_eq(xfsj_dir_sf_size(128, example, NEX, false), 76);
	ck_assert_int_eq(xfsj_dir_sf_encode(128, example, NEX, false, buf,
					    sizeof(buf)), 76);
	/* Without the ftype byte "subdir" still takes 24 bytes (17 -> 24). */
	ck_assert_uint_eq(xfsj_get_be16(buf + 7), 0x60);
	ck_assert_mem_eq(buf + 6 + 9, "\0\0\0\x83", 4);
	ck_assert_uint_eq(buf[19], 8);
	ck_assert_uint_eq(xfsj_get_be16(buf + 20), 0x78);
	/* "file.txt": 8+1+8+2 = 19 -> 24 */
	ck_assert_uint_eq(buf[34], 35);
	ck_assert_uint_eq(xfsj_get_be16(buf + 35), 0x90);
	memset(&got, 0, sizeof(got));
	ck_assert_int_eq(xfsj_dir_sf_walk(buf, 76, false, &parent, collect,
					  &got, NULL), 0);
	ck_assert_uint_eq(got.n, NEX);
	ck_assert_uint_eq(got.e[0].ftype, XFSJ_FT_UNKNOWN);
	ck_assert_uint_eq(got.e[2].ino, 133);
	ck_assert_str_eq(got.e[1].name, "file.txt");
	/* The same bytes read as an ftype directory are refused. */
	ck_assert_int_ne(xfsj_dir_sf_walk(buf, 76, true, NULL, NULL, NULL,
					  NULL), 0);
}
END_TEST

/* Offsets follow roundup(8 + 1 + namelen + 1 + 2, 8) of the predecessor. */
START_TEST(offsets_progression)
{
	static char names[40][41];
	struct xfsj_dirent ents[40];
	uint8_t buf[4096];
	struct collected got;
	unsigned int expect = 96;
	struct xfsj_fault f;

	for (unsigned int i = 0; i < 40; i++) {
		memset(names[i], 'a' + (i % 26), i + 1);
		ents[i].name = names[i];
		ents[i].namelen = (uint8_t)(i + 1);
		ents[i].ftype = (uint8_t)(i % 8);
		ents[i].ino = 1000 + i;
	}
	ck_assert_int_eq(xfsj_dir_sf_encode(1000, ents, 40, true, buf,
					    sizeof(buf)),
			 (int)xfsj_dir_sf_size(1000, ents, 40, true));
	memset(&got, 0, sizeof(got));
	memset(&f, 0, sizeof(f));
	ck_assert_int_eq(xfsj_dir_sf_walk(buf,
					  xfsj_dir_sf_size(1000, ents, 40, true),
					  true, NULL, collect, &got, &f), 0);
	ck_assert_uint_eq(got.n, 40);
	{
		const uint8_t *p = buf + 6;

		for (unsigned int i = 0; i < 40; i++) {
			ck_assert_uint_eq(p[0], i + 1);
			ck_assert_uint_eq(xfsj_get_be16(p + 1), expect);
			expect += (8 + 1 + (i + 1) + 1 + 2 + 7) & ~7U;
			p += 3 + (i + 1) + 1 + 4;
			ck_assert_uint_eq(got.e[i].ino, 1000 + i);
			ck_assert_uint_eq(got.e[i].ftype, i % 8);
		}
	}
}
END_TEST

/* Any inode number above 32 bits switches every number to 8 bytes. */
START_TEST(eight_byte_inodes)
{
	struct xfsj_dirent ents[3];
	uint8_t buf[256];
	struct collected got;
	uint64_t parent = 0;
	size_t size;

	memcpy(ents, example, sizeof(ents));
	ents[1].ino = 0x0000000200000084ULL;
	size = xfsj_dir_sf_size(128, ents, 3, true);
	/* 10 header + (3+6+1+8) + (3+8+1+8) + (3+35+1+8) */
	ck_assert_uint_eq(size, 95);
	ck_assert_int_eq(xfsj_dir_sf_encode(128, ents, 3, true, buf,
					    sizeof(buf)), 95);
	ck_assert_uint_eq(buf[0], 3);
	ck_assert_uint_eq(buf[1], 1);	/* one entry needs 8 bytes */
	ck_assert_mem_eq(buf + 2, "\0\0\0\0\0\0\0\x80", 8);
	ck_assert_mem_eq(buf + 10 + 10, "\0\0\0\0\0\0\0\x83", 8);
	ck_assert_mem_eq(buf + 28 + 12, "\0\0\0\x02\0\0\0\x84", 8);
	memset(&got, 0, sizeof(got));
	ck_assert_int_eq(xfsj_dir_sf_walk(buf, size, true, &parent, collect,
					  &got, NULL), 0);
	ck_assert_uint_eq(parent, 128);
	ck_assert_uint_eq(got.n, 3);
	ck_assert_uint_eq(got.e[0].ino, 131);
	ck_assert_uint_eq(got.e[1].ino, 0x0000000200000084ULL);
	ck_assert_uint_eq(got.e[2].ino, 133);
	ck_assert_str_eq(got.e[2].name, NAME35);

	/* Two big entries: i8count 2. */
	ents[2].ino = 0xFFFFFFFFFFULL;
	ck_assert_int_eq(xfsj_dir_sf_encode(128, ents, 3, true, buf,
					    sizeof(buf)), 95);
	ck_assert_uint_eq(buf[1], 2);
	memset(&got, 0, sizeof(got));
	ck_assert_int_eq(xfsj_dir_sf_walk(buf, 95, true, NULL, collect, &got,
					  NULL), 0);
	ck_assert_uint_eq(got.e[2].ino, 0xFFFFFFFFFFULL);
	/* 0xFFFFFFFF itself still fits in 4 bytes. */
	ents[1].ino = ents[2].ino = 0xFFFFFFFFULL;
	ck_assert_uint_eq(xfsj_dir_sf_size(128, ents, 3, true), EX_SIZE);
}
END_TEST

/*
 * Was a bug: libjournal/dir_sf.c xfsj_dir_sf_encode() leaves the parent out of
 * i8count.  The kernel (xfs_dir2_sf_verify, xfs_dir2_block_sfsize) counts
 * the parent too: i8count = (parent > 2^32-1) + number of such entries.
 * With a parent above 32 bits and only small entries the encoder writes
 * i8count 0 but stores 8-byte inode numbers, so both the kernel and
 * xfsj_dir_sf_walk() read the fork with 4-byte numbers (wrong parent,
 * garbage entries / "size" fault); with big entries as well, i8count is
 * one short and the kernel's verifier rejects the fork.
 */
START_TEST(eight_byte_parent)
{
	uint8_t buf[256];
	struct collected got;
	uint64_t parent = 0;
	int n;

	n = xfsj_dir_sf_encode(0x100000080ULL, example, 1, true, buf,
			       sizeof(buf));
	ck_assert_int_eq(n, 10 + 3 + 6 + 1 + 8);
	ck_assert_uint_eq(buf[1], 1);	/* the parent counts */
	memset(&got, 0, sizeof(got));
	ck_assert_int_eq(xfsj_dir_sf_walk(buf, (size_t)n, true, &parent,
					  collect, &got, NULL), 0);
	ck_assert_uint_eq(parent, 0x100000080ULL);
	ck_assert_uint_eq(got.n, 1);
	ck_assert_uint_eq(got.e[0].ino, 131);
	/* Empty directory whose parent needs 8 bytes. */
	n = xfsj_dir_sf_encode(0x100000080ULL, NULL, 0, true, buf, sizeof(buf));
	ck_assert_int_eq(n, 10);
	ck_assert_int_eq(xfsj_dir_sf_walk(buf, 10, true, &parent, NULL, NULL,
					  NULL), 0);
	ck_assert_uint_eq(parent, 0x100000080ULL);
}
END_TEST

START_TEST(encode_errors)
{
	struct xfsj_dirent e[2];
	static struct xfsj_dirent many[256];
	uint8_t buf[EX_SIZE];

	/* One byte short. */
	ck_assert_int_eq(xfsj_dir_sf_encode(128, example, NEX, true, buf,
					    EX_SIZE - 1), -XFSJ_E_NOSPC);
	ck_assert_int_eq(xfsj_dir_sf_encode(128, example, NEX, true, buf,
					    EX_SIZE), EX_SIZE);
	memcpy(e, example, sizeof(e));
	e[1].name = "a/b";
	e[1].namelen = 3;
	ck_assert_int_eq(xfsj_dir_sf_encode(128, e, 2, true, buf, sizeof(buf)),
			 -XFSJ_E_INVAL);
	e[1].name = "a\0b";
	ck_assert_int_eq(xfsj_dir_sf_encode(128, e, 2, true, buf, sizeof(buf)),
			 -XFSJ_E_INVAL);
	e[1].name = "";
	e[1].namelen = 0;
	ck_assert_int_eq(xfsj_dir_sf_encode(128, e, 2, true, buf, sizeof(buf)),
			 -XFSJ_E_INVAL);
	e[1].name = NULL;
	e[1].namelen = 1;
	ck_assert_int_eq(xfsj_dir_sf_encode(128, e, 2, true, buf, sizeof(buf)),
			 -XFSJ_E_INVAL);
	for (int i = 0; i < 256; i++) {
		many[i].name = "x";
		many[i].namelen = 1;
		many[i].ino = 200 + i;
	}
	ck_assert_int_eq(xfsj_dir_sf_encode(128, many, 256, true, buf,
					    sizeof(buf)), -XFSJ_E_RANGE);
}
END_TEST

/* 255 entries, the largest count, round-trip. */
START_TEST(max_entries)
{
	static struct xfsj_dirent ents[255];
	static char names[255][4];
	size_t size;
	uint8_t *buf;
	struct collected *got = calloc(1, sizeof(*got));

	ck_assert_ptr_nonnull(got);
	for (int i = 0; i < 255; i++) {
		names[i][0] = 'n';
		names[i][1] = (char)('0' + i / 100);
		names[i][2] = (char)('0' + (i / 10) % 10);
		names[i][3] = (char)('0' + i % 10);
		ents[i].name = names[i];
		ents[i].namelen = 4;
		ents[i].ftype = XFSJ_FT_REG;
		ents[i].ino = 500 + i;
	}
	size = xfsj_dir_sf_size(128, ents, 255, true);
	ck_assert_uint_eq(size, 6 + 255 * (3 + 4 + 1 + 4));
	buf = malloc(size);
	ck_assert_ptr_nonnull(buf);
	ck_assert_int_eq(xfsj_dir_sf_encode(128, ents, 255, true, buf, size),
			 (int)size);
	ck_assert_int_eq(xfsj_dir_sf_walk(buf, size, true, NULL, collect, got,
					  NULL), 0);
	ck_assert_uint_eq(got->n, 255);
	ck_assert_str_eq(got->e[254].name, "n254");
	ck_assert_uint_eq(got->e[254].ino, 754);
	free(buf);
	free(got);
}
END_TEST

static int stop_at_second(const struct xfsj_dirent *e, void *arg)
{
	int *seen = arg;

	(void)e;
	return ++*seen == 2 ? 42 : 0;
}

START_TEST(callback_stops_walk)
{
	uint8_t buf[EX_SIZE];
	int seen = 0;

	xfsj_dir_sf_encode(128, example, NEX, true, buf, sizeof(buf));
	ck_assert_int_eq(xfsj_dir_sf_walk(buf, EX_SIZE, true, NULL,
					  stop_at_second, &seen, NULL), 42);
	ck_assert_int_eq(seen, 2);
}
END_TEST

static void expect_walk_fault(const uint8_t *img, size_t len, bool ftype,
			      const char *field, uint64_t off)
{
	uint8_t *p = dup_exact(img, len);
	struct xfsj_fault f;
	int err;

	memset(&f, 0, sizeof(f));
	err = xfsj_dir_sf_walk(p, len, ftype, NULL, NULL, NULL, &f);
	ck_assert_int_eq(err, -XFSJ_E_CORRUPT);
	ck_assert_int_eq(f.err, XFSJ_E_CORRUPT);
	ck_assert_str_eq(f.structure, "short-form directory");
	ck_assert_ptr_nonnull(f.field);
	ck_assert_msg(!strcmp(f.field, field), "field %s, want %s", f.field,
		      field);
	ck_assert_msg(f.offset == off, "%s: offset %llu, want %llu", field,
		      (unsigned long long)f.offset, (unsigned long long)off);
	free(p);
}

/* Every truncation of a valid fork is an error, never an over-read. */
START_TEST(truncated_at_every_length)
{
	uint8_t img[EX_SIZE + 1];
	uint8_t img8[128];
	struct xfsj_dirent ents[3];
	int n8;

	ck_assert_int_eq(xfsj_dir_sf_encode(128, example, NEX, true, img,
					    EX_SIZE), EX_SIZE);
	for (size_t len = 0; len < EX_SIZE; len++) {
		uint8_t *p = dup_exact(img, len);
		struct xfsj_fault f;
		struct collected got;
		int err;

		memset(&f, 0, sizeof(f));
		memset(&got, 0, sizeof(got));
		err = xfsj_dir_sf_walk(p, len, true, NULL, collect, &got, &f);
		ck_assert_msg(err == -XFSJ_E_CORRUPT, "len %zu: %d", len, err);
		ck_assert_ptr_nonnull(f.field);
		ck_assert_uint_le(f.offset, len);
		ck_assert_uint_lt(got.n, NEX);
		free(p);
	}
	/* One byte too many is also refused. */
	img[EX_SIZE] = 0;
	expect_walk_fault(img, EX_SIZE + 1, true, "size", 0);
	expect_walk_fault(img, 5, true, "size", 0);
	expect_walk_fault(img, 6 + 2, true, "namelen", 6);
	/* Cut inside the last entry's inode number. */
	expect_walk_fault(img, EX_SIZE - 1, true, "namelen", 36);

	memcpy(ents, example, sizeof(ents));
	ents[0].ino = 1ULL << 40;
	n8 = xfsj_dir_sf_encode(128, ents, 3, true, img8, sizeof(img8));
	ck_assert_int_gt(n8, 0);
	for (int len = 0; len < n8; len++) {
		uint8_t *p = dup_exact(img8, (size_t)len);
		struct xfsj_fault f;

		memset(&f, 0, sizeof(f));
		ck_assert_int_eq(xfsj_dir_sf_walk(p, (size_t)len, true, NULL,
						  NULL, NULL, &f),
				 -XFSJ_E_CORRUPT);
		ck_assert_ptr_nonnull(f.field);
		free(p);
	}
	/* The 8-byte header needs 10 bytes. */
	expect_walk_fault(img8, 9, true, "i8count", 1);
}
END_TEST

START_TEST(hostile_fields)
{
	uint8_t good[EX_SIZE], img[EX_SIZE];

	ck_assert_int_eq(xfsj_dir_sf_encode(128, example, NEX, true, good,
					    EX_SIZE), EX_SIZE);

	/* namelen of the last entry runs past the end */
	memcpy(img, good, EX_SIZE);
	img[36] = 200;
	expect_walk_fault(img, EX_SIZE, true, "namelen", 36);
	img[36] = 255;
	expect_walk_fault(img, EX_SIZE, true, "namelen", 36);
	/* namelen of the first entry swallowing the others */
	memcpy(img, good, EX_SIZE);
	img[6] = 255;
	expect_walk_fault(img, EX_SIZE, true, "namelen", 6);
	/* zero namelen */
	memcpy(img, good, EX_SIZE);
	img[20] = 0;
	expect_walk_fault(img, EX_SIZE, true, "namelen", 20);
	/* count larger than the entries present */
	memcpy(img, good, EX_SIZE);
	img[0] = 4;
	expect_walk_fault(img, EX_SIZE, true, "namelen", EX_SIZE);
	/* count smaller: bytes left over */
	memcpy(img, good, EX_SIZE);
	img[0] = 2;
	expect_walk_fault(img, EX_SIZE, true, "size", 0);
	/* offsets not increasing */
	memcpy(img, good, EX_SIZE);
	xfsj_put_be16(img + 21, 0x60);		/* equal to the first */
	expect_walk_fault(img, EX_SIZE, true, "offset", 21);
	xfsj_put_be16(img + 21, 0x50);		/* smaller */
	expect_walk_fault(img, EX_SIZE, true, "offset", 21);
	/* the first offset below the data area start */
	memcpy(img, good, EX_SIZE);
	xfsj_put_be16(img + 7, 95);
	expect_walk_fault(img, EX_SIZE, true, "offset", 7);
	xfsj_put_be16(img + 7, 0);
	expect_walk_fault(img, EX_SIZE, true, "offset", 7);
	/* '/' and NUL inside a name */
	memcpy(img, good, EX_SIZE);
	img[9 + 2] = '/';
	expect_walk_fault(img, EX_SIZE, true, "name", 9);
	memcpy(img, good, EX_SIZE);
	img[39 + 34] = '/';
	expect_walk_fault(img, EX_SIZE, true, "name", 39);
	memcpy(img, good, EX_SIZE);
	img[23] = 0;
	expect_walk_fault(img, EX_SIZE, true, "name", 23);
	/* bad file types */
	memcpy(img, good, EX_SIZE);
	img[15] = XFSJ_FT__MAX;
	expect_walk_fault(img, EX_SIZE, true, "ftype", 15);
	img[15] = 0xFF;
	expect_walk_fault(img, EX_SIZE, true, "ftype", 15);
	memcpy(img, good, EX_SIZE);
	img[74] = 9;
	expect_walk_fault(img, EX_SIZE, true, "ftype", 74);
	/* the whiteout type is the last valid one */
	memcpy(img, good, EX_SIZE);
	img[15] = XFSJ_FT_WHT;
	{
		uint8_t *p = dup_exact(img, EX_SIZE);

		ck_assert_int_eq(xfsj_dir_sf_walk(p, EX_SIZE, true, NULL, NULL,
						  NULL, NULL), 0);
		free(p);
	}
	/* i8count set on a 4-byte fork: everything shifts and fails */
	memcpy(img, good, EX_SIZE);
	img[1] = 1;
	{
		uint8_t *p = dup_exact(img, EX_SIZE);
		struct xfsj_fault f;

		memset(&f, 0, sizeof(f));
		ck_assert_int_eq(xfsj_dir_sf_walk(p, EX_SIZE, true, NULL, NULL,
						  NULL, &f), -XFSJ_E_CORRUPT);
		ck_assert_ptr_nonnull(f.field);
		free(p);
	}
}
END_TEST

/*
 * Was a bug (verification gap): libjournal/dir_sf.c xfsj_dir_sf_walk() never
 * checks i8count against the inode numbers it holds.  The kernel's
 * xfs_dir2_sf_verify() requires i8count == (parent > 2^32-1) + number of
 * entries above 2^32-1; a fork with i8count 5 and one 8-byte entry is
 * accepted here although the kernel refuses it.
 */
START_TEST(i8count_mismatch)
{
	struct xfsj_dirent ents[1];
	uint8_t buf[64];
	struct xfsj_fault f;
	int n;

	memcpy(ents, example, sizeof(ents));
	ents[0].ino = 1ULL << 33;
	n = xfsj_dir_sf_encode(128, ents, 1, true, buf, sizeof(buf));
	ck_assert_int_gt(n, 0);
	buf[1] = 5;
	memset(&f, 0, sizeof(f));
	ck_assert_int_eq(xfsj_dir_sf_walk(buf, (size_t)n, true, NULL, NULL,
					  NULL, &f), -XFSJ_E_CORRUPT);
	ck_assert_str_eq(f.field, "i8count");
	/* 8-byte numbers that all fit in 32 bits: i8count must be 0. */
	buf[1] = 1;
	xfsj_put_be64(buf + 10 + 3 + 6 + 1, 131);
	ck_assert_int_ne(xfsj_dir_sf_walk(buf, (size_t)n, true, NULL, NULL,
					  NULL, NULL), 0);
}
END_TEST

/* Random mutations: the walk either succeeds or reports a fault. */
START_TEST(fuzz_mutations)
{
	uint8_t good[EX_SIZE];
	uint64_t x = 0x0123456789ABCDEFULL;

	ck_assert_int_eq(xfsj_dir_sf_encode(128, example, NEX, true, good,
					    EX_SIZE), EX_SIZE);
	for (int iter = 0; iter < 20000; iter++) {
		uint8_t img[EX_SIZE];
		size_t len;
		int flips;

		memcpy(img, good, EX_SIZE);
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		flips = 1 + (int)(x % 4);
		for (int k = 0; k < flips; k++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			img[(x >> 8) % EX_SIZE] = (uint8_t)(x >> 32);
		}
		len = (x >> 40) % 8 == 0 ? (size_t)((x >> 48) % EX_SIZE)
					 : EX_SIZE;
		{
			uint8_t *p = dup_exact(img, len);
			struct xfsj_fault f;
			struct collected *got = malloc(sizeof(*got));
			int err;

			ck_assert_ptr_nonnull(got);
			got->n = 0;
			memset(&f, 0, sizeof(f));
			err = xfsj_dir_sf_walk(p, len, iter & 1, NULL, collect,
					       got, &f);
			if (err) {
				ck_assert_int_eq(err, -XFSJ_E_CORRUPT);
				ck_assert_ptr_nonnull(f.field);
				ck_assert_uint_le(f.offset, len);
			} else {
				ck_assert_uint_eq(got->n, p[0]);
			}
			free(got);
			free(p);
		}
	}
}
END_TEST

Suite *dir_sf_suite(void)
{
	Suite *s = suite_create("dir_sf");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, reference_example);
	tcase_add_test(tc, empty_directory);
	tcase_add_test(tc, without_ftype);
	tcase_add_test(tc, offsets_progression);
	tcase_add_test(tc, eight_byte_inodes);
	tcase_add_test(tc, eight_byte_parent);
	tcase_add_test(tc, encode_errors);
	tcase_add_test(tc, max_entries);
	tcase_add_test(tc, callback_stops_walk);
	tcase_add_test(tc, truncated_at_every_length);
	tcase_add_test(tc, hostile_fields);
	tcase_add_test(tc, i8count_mismatch);
	tcase_add_test(tc, fuzz_mutations);
	suite_add_tcase(s, tc);
	return s;
}
