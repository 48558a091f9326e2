/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Directory blocks of several filesystem blocks as one buffer
 * (fs/dir_buf.c), on the fixture filesystem: the check caches such a
 * block a filesystem block at a time, which hides the whole block from a
 * lookup of its length; xfsj_dirbuf_get writes the pieces' pending changes
 * and drops them, so the whole block is read with those changes;
 * xfsj_dirbuf_put writes the whole block and drops it, so the pieces read
 * again see what it changed.
 */
#include <string.h>

#include "suites.h"
#include "fs_fixture.h"
#include "repair/repair_priv.h"

#define PIECE	1024U
#define PIECES	4U
/* A place in the middle of the 64 MiB fixture, past what mkfs wrote. */
#define DADDR	(32ULL << 11)

static void read_pieces(struct fs_fixture *fx, struct xfsj_buf **bp)
{
	for (uint32_t i = 0; i < PIECES; i++)
		ck_assert_int_eq(xfsj_buf_read(fx->fs, DADDR + i * (PIECE >> 9),
					       PIECE, &bp[i]), 0);
}

START_TEST(whole_and_pieces)
{
	struct fs_fixture fx;
	struct xfsj_buf *piece[PIECES], *whole;

	fs_fixture_make(&fx, 64ULL << 20, 1024, 0, false, false);
	/* The check's view: four pieces, one changed and not yet written. */
	read_pieces(&fx, piece);
	memset(piece[1]->data, 0xab, PIECE);
	xfsj_buf_dirty(piece[1]);
	/* The whole block cannot be looked up beside its first piece. */
	ck_assert_int_eq(xfsj_buf_read(fx.fs, DADDR, PIECE * PIECES, &whole),
			 -XFSJ_E_INVAL);
	ck_assert_int_eq(xfsj_dirbuf_get(fx.fs, DADDR, PIECE, PIECES, false,
					&whole, &fx.f), 0);
	ck_assert_uint_eq(whole->len, PIECE * PIECES);
	ck_assert_uint_eq(whole->data[PIECE], 0xab);
	ck_assert_uint_eq(whole->data[2 * PIECE - 1], 0xab);
	ck_assert_uint_ne(whole->data[2 * PIECE], 0xab);
	/* Changed whole, then put: the pieces read again see it. */
	memset(whole->data + 3 * PIECE, 0xcd, PIECE);
	xfsj_buf_dirty(whole);
	ck_assert_int_eq(xfsj_dirbuf_put(fx.fs, whole, PIECES, &fx.f), 0);
	read_pieces(&fx, piece);
	ck_assert_uint_eq(piece[1]->data[0], 0xab);
	ck_assert_uint_eq(piece[3]->data[0], 0xcd);
	ck_assert_uint_eq(piece[3]->data[PIECE - 1], 0xcd);
	/* Survives the flush and a new handle. */
	fs_fixture_reopen(&fx);
	read_pieces(&fx, piece);
	ck_assert_uint_eq(piece[3]->data[7], 0xcd);
	fs_fixture_free(&fx);
}
END_TEST

START_TEST(zeroed_and_single)
{
	struct fs_fixture fx;
	struct xfsj_buf *piece[PIECES], *bp;

	fs_fixture_make(&fx, 64ULL << 20, 1024, 0, false, false);
	read_pieces(&fx, piece);
	memset(piece[2]->data, 0x11, PIECE);
	xfsj_buf_dirty(piece[2]);
	/* A new block: zero-filled whatever the pieces held. */
	ck_assert_int_eq(xfsj_dirbuf_get(fx.fs, DADDR, PIECE, PIECES, true,
					&bp, &fx.f), 0);
	for (uint32_t i = 0; i < PIECE * PIECES; i++)
		ck_assert_uint_eq(bp->data[i], 0);
	ck_assert_int_eq(xfsj_dirbuf_put(fx.fs, bp, PIECES, &fx.f), 0);
	read_pieces(&fx, piece);
	ck_assert_uint_eq(piece[2]->data[0], 0);
	/* One filesystem block: the cache's own buffer, kept after put. */
	ck_assert_int_eq(xfsj_dirbuf_get(fx.fs, DADDR, PIECE, 1, false, &bp,
					&fx.f), 0);
	ck_assert_ptr_eq(bp, piece[0]);
	ck_assert_int_eq(xfsj_dirbuf_put(fx.fs, bp, 1, &fx.f), 0);
	ck_assert_int_eq(xfsj_dirbuf_put(fx.fs, NULL, PIECES, &fx.f), 0);
	fs_fixture_free(&fx);
}
END_TEST

Suite *repair_dir2_suite(void)
{
	Suite *s = suite_create("repair_dir2");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, whole_and_pieces);
	tcase_add_test(tc, zeroed_and_single);
	suite_add_tcase(s, tc);
	return s;
}
