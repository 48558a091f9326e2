/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Inode cores through the modification layer (fs/iget.c): where an inode
 * is (its byte offset from the geometry, computed here), inodes of one
 * block sharing its buffer, the core written back with the handle's LSN
 * and a good CRC, the fork areas by fork offset (hostile ones
 * included), and refusals: impossible numbers, a block past the end of a
 * short last AG, bad CRC or magic, a directory truncated to size 0
 * (only when asked to be lenient).
 */
#include <string.h>
#include <sys/stat.h>

#include "fs_fixture.h"
#include "suites.h"
#include "core/crc32c.h"
#include "core/layout.h"

#define MB	(1ULL << 20)
#define LSN0	(1ULL << 32)	/* the fixture's handle LSN */

/* The byte offset of @ino on the device, from the geometry alone. */
static uint64_t ino_offset(const struct xfsj_sb *sb, uint64_t ino)
{
	uint64_t agno = ino >> (sb->agblklog + sb->inopblog);
	uint64_t agino = ino & ((1ULL << (sb->agblklog + sb->inopblog)) - 1);
	uint64_t agbno = agino / sb->inopblock;

	return (agno * sb->agblocks + agbno) * sb->blocksize +
	       (agino % sb->inopblock) * sb->inodesize;
}

static void ov_read(struct fs_fixture *fx, void *buf, size_t len,
		    uint64_t off)
{
	ck_assert_int_eq(xfsj_overlay_read(fx->ov, buf, len, off), 0);
}

/*
 * Put the inode @raw at @off on the device behind the handle's back (with
 * a fresh CRC when @crc) and read inode @ino again from there.
 */
static int put_get(struct fs_fixture *fx, uint8_t *raw, uint64_t off,
		   bool crc, uint64_t ino, bool lenient, struct xfsj_iref *ip)
{
	if (crc)
		xfsj_cksum_update(raw, fx->sb.inodesize, 100);
	ck_assert_int_eq(xfsj_overlay_write(fx->ov, raw, fx->sb.inodesize,
					    off), 0);
	fs_fixture_reopen(fx);
	memset(&fx->f, 0, sizeof(fx->f));
	return xfsj_iget(fx->fs, ino, lenient, ip, &fx->f);
}

START_TEST(root_where_the_geometry_says)
{
	struct fs_fixture fx;
	struct xfsj_iref ip;
	uint8_t raw[512];

	fs_fixture_make(&fx, 64 * MB, 4096, 2, false, false);
	ck_assert_int_eq(xfsj_iget(fx.fs, fx.sb.rootino, false, &ip, &fx.f), 0);
	ck_assert_uint_eq(ip.ino, fx.sb.rootino);
	ck_assert_uint_eq(ip.byte_off, ino_offset(&fx.sb, fx.sb.rootino));
	ck_assert(S_ISDIR(ip.di.mode));
	ck_assert_uint_eq(ip.di.ino, fx.sb.rootino);
	ck_assert_uint_eq(ip.bp->len, fx.sb.blocksize);
	ck_assert_uint_le(fx.sb.inodesize, sizeof(raw));
	ov_read(&fx, raw, fx.sb.inodesize, ip.byte_off);
	ck_assert(memcmp(raw, ip.dip, fx.sb.inodesize) == 0);
	/* "IN", version 3, di_ino at 152. */
	ck_assert_uint_eq(xfsj_get_be16(raw), 0x494e);
	ck_assert_uint_eq(raw[4], 3);
	ck_assert_uint_eq(xfsj_get_be64(raw + 152), fx.sb.rootino);
	fs_fixture_free(&fx);
}
END_TEST

/* Two inodes of one block: one buffer, neither change lost. */
START_TEST(one_buffer_per_block)
{
	struct fs_fixture fx;
	struct xfsj_iref a, b;
	uint64_t ia, ib;
	uint8_t raw[512];

	fs_fixture_make(&fx, 64 * MB, 4096, 2, false, false);
	ia = fs_fixture_make_file(&fx, 4, 11, 0, 0, &a);
	ib = fs_fixture_make_file(&fx, 5, 12, 0, 0, &b);
	ck_assert_uint_eq(ia / fx.sb.inopblock, ib / fx.sb.inopblock);
	ck_assert_int_eq(xfsj_iget(fx.fs, ia, false, &a, &fx.f), 0);
	ck_assert_int_eq(xfsj_iget(fx.fs, ib, false, &b, &fx.f), 0);
	ck_assert_ptr_eq(a.bp, b.bp);
	ck_assert_uint_eq(b.byte_off - a.byte_off, fx.sb.inodesize);
	a.di.size = 1111;
	b.di.size = 2222;
	xfsj_iput(fx.fs, &a, true);
	xfsj_iput(fx.fs, &b, false);
	fs_fixture_reopen(&fx);

	/* On the device: both sizes, a's LSN stamped, b's not, CRCs good. */
	ov_read(&fx, raw, fx.sb.inodesize, ino_offset(&fx.sb, ia));
	ck_assert_uint_eq(xfsj_get_be64(raw + 56), 1111);
	ck_assert_uint_eq(xfsj_get_be64(raw + 112), LSN0);
	ck_assert(xfsj_cksum_ok(raw, fx.sb.inodesize, 100));
	ov_read(&fx, raw, fx.sb.inodesize, ino_offset(&fx.sb, ib));
	ck_assert_uint_eq(xfsj_get_be64(raw + 56), 2222);
	ck_assert_uint_eq(xfsj_get_be32(raw + 92), 12);
	ck_assert(xfsj_cksum_ok(raw, fx.sb.inodesize, 100));
	ck_assert_int_eq(xfsj_iget(fx.fs, ia, false, &a, &fx.f), 0);
	ck_assert_uint_eq(a.di.size, 1111);
	ck_assert_uint_eq(a.di.lsn, LSN0);
	fs_fixture_free(&fx);
}
END_TEST

/* Fork areas: 512-byte inodes have 336 bytes after the 176-byte core. */
START_TEST(fork_areas)
{
	struct fs_fixture fx;
	struct xfsj_iref ip;
	uint32_t size;
	uint8_t *p;

	fs_fixture_make(&fx, 64 * MB, 4096, 2, false, false);
	ck_assert_uint_eq(fx.sb.inodesize, 512);
	fs_fixture_make_file(&fx, 4, 1, 0, 0, &ip);
	p = xfsj_ifork(fx.fs, &ip, XFSJ_DATA_FORK, &size);
	ck_assert_ptr_eq(p, ip.dip + 176);
	ck_assert_uint_eq(size, 336);
	xfsj_ifork(fx.fs, &ip, XFSJ_ATTR_FORK, &size);
	ck_assert_uint_eq(size, 0);

	ip.di.forkoff = 15;			/* 120 bytes of data fork */
	p = xfsj_ifork(fx.fs, &ip, XFSJ_DATA_FORK, &size);
	ck_assert_uint_eq(size, 120);
	p = xfsj_ifork(fx.fs, &ip, XFSJ_ATTR_FORK, &size);
	ck_assert_ptr_eq(p, ip.dip + 176 + 120);
	ck_assert_uint_eq(size, 216);

	/* A fork offset past the inode: no room, nothing out of bounds. */
	ip.di.forkoff = 255;
	p = xfsj_ifork(fx.fs, &ip, XFSJ_DATA_FORK, &size);
	ck_assert_uint_eq(size, 336);
	p = xfsj_ifork(fx.fs, &ip, XFSJ_ATTR_FORK, &size);
	ck_assert_uint_eq(size, 0);
	ck_assert_ptr_eq(p, ip.dip + 512);
	fs_fixture_free(&fx);
}
END_TEST

/* Numbers no inode can have. */
START_TEST(impossible_numbers)
{
	struct fs_fixture fx;
	struct xfsj_iref ip;
	const struct xfsj_sb *sb;
	uint32_t last;
	uint64_t ino;

	/* 70 MB in 3 AGs: the last AG is shorter than the others. */
	fs_fixture_make(&fx, 70 * MB, 4096, 3, false, false);
	sb = &fx.sb;
	last = sb->agcount - 1;
	ck_assert_uint_lt(xfsj_fs_ag_blocks(fx.fs, last), sb->agblocks);

#define RANGE(i) do { \
		memset(&fx.f, 0, sizeof(fx.f)); \
		ck_assert_int_eq(xfsj_iget(fx.fs, (i), false, &ip, &fx.f), \
				 -XFSJ_E_RANGE); \
		ck_assert_str_eq(fx.f.field, "ino"); \
		ck_assert_uint_eq(fx.f.value, (i)); \
	} while (0)
	RANGE(xfsj_agino_to_ino(sb, sb->agcount, 64));
	RANGE(xfsj_agino_to_ino(sb, 0, sb->agblocks << sb->inopblog));
	ino = xfsj_agino_to_ino(sb, last,
		xfsj_fs_ag_blocks(fx.fs, last) << sb->inopblog);
	RANGE(ino);
	/* Bits above any AG number this geometry can hold. */
	RANGE(fx.sb.rootino | (1ULL << 63));
#undef RANGE
	/* The last block of the short AG is still fine. */
	ino = xfsj_agino_to_ino(sb, last,
		(xfsj_fs_ag_blocks(fx.fs, last) - 1) << sb->inopblog);
	memset(&fx.f, 0, sizeof(fx.f));
	ck_assert_int_ne(xfsj_iget(fx.fs, ino, false, &ip, &fx.f),
			 -XFSJ_E_RANGE);
	fs_fixture_free(&fx);
}
END_TEST

/* A new filesystem with an empty file in @slot at byte *off. */
static uint64_t fixture_with_file(struct fs_fixture *fx, unsigned int slot,
				  struct xfsj_iref *ip, uint64_t *off)
{
	uint64_t ino;

	fs_fixture_make(fx, 64 * MB, 4096, 2, false, false);
	ino = fs_fixture_make_file(fx, slot, 1, 0, 0, ip);
	*off = ino_offset(&fx->sb, ino);
	return ino;
}

/* A damaged inode on the device: refused, naming the field. */
START_TEST(damaged_refused)
{
	struct fs_fixture fx;
	struct xfsj_iref ip;
	uint8_t raw[512];
	uint64_t ino, off;

	ino = fixture_with_file(&fx, 6, &ip, &off);
	fs_fixture_reopen(&fx);
	ov_read(&fx, raw, 512, off);
	raw[60] ^= 1;				/* size, CRC left stale */
	ck_assert_int_eq(put_get(&fx, raw, off, false, ino, false, &ip),
			 -XFSJ_E_BADCRC);
	ck_assert_str_eq(fx.f.field, "crc");
	xfsj_put_be16(raw, 0x4e49);		/* magic, CRC good */
	ck_assert_int_ne(put_get(&fx, raw, off, true, ino, false, &ip), 0);
	ck_assert_ptr_nonnull(strstr(fx.f.field, "magic"));
	/* di_ino naming another inode. */
	xfsj_put_be16(raw, 0x494e);
	xfsj_put_be64(raw + 152, ino + 1);
	ck_assert_int_ne(put_get(&fx, raw, off, true, ino, false, &ip), 0);
	ck_assert_ptr_nonnull(strstr(fx.f.field, "ino"));
	fs_fixture_free(&fx);
}
END_TEST

/*
 * A directory whose blocks a truncation removed (size 0): the verifier
 * refuses it, the lenient read (an inode being freed) takes it -- but
 * not with a bad CRC, and not a regular file's other damage.
 */
START_TEST(lenient_truncated_dir)
{
	struct fs_fixture fx;
	struct xfsj_iref ip;
	uint8_t raw[512];
	uint64_t ino, off;

	ino = fixture_with_file(&fx, 7, &ip, &off);
	ip.di.mode = S_IFDIR | 0755;
	ip.di.size = 0;
	xfsj_iput(fx.fs, &ip, false);
	fs_fixture_reopen(&fx);
	ck_assert_int_ne(xfsj_iget(fx.fs, ino, false, &ip, &fx.f), 0);
	ck_assert_int_eq(xfsj_iget(fx.fs, ino, true, &ip, &fx.f), 0);
	ck_assert_uint_eq(ip.di.size, 0);
	ck_assert(S_ISDIR(ip.di.mode));
	/* The buffer itself is untouched by the lenient check. */
	ov_read(&fx, raw, 512, off);
	ck_assert(memcmp(raw, ip.dip, 512) == 0);

	raw[200] ^= 0x40;
	ck_assert_int_eq(put_get(&fx, raw, off, false, ino, true, &ip),
			 -XFSJ_E_BADCRC);
	fs_fixture_free(&fx);
}
END_TEST

Suite *iget_suite(void)
{
	Suite *s = suite_create("iget");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, root_where_the_geometry_says);
	tcase_add_test(tc, one_buffer_per_block);
	tcase_add_test(tc, fork_areas);
	tcase_add_test(tc, impossible_numbers);
	tcase_add_test(tc, damaged_refused);
	tcase_add_test(tc, lenient_truncated_dir);
	suite_add_tcase(s, tc);
	return s;
}
