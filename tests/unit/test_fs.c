/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The modification handle: cached buffers are shared, flush stamps the
 * handle's LSN and a valid CRC, forgotten buffers are not written, and
 * AG headers are verified on the way in.
 */
#include <string.h>

#include "fs_fixture.h"
#include "suites.h"
#include "ondisk/meta.h"
#include "xfsj/ondisk.h"

START_TEST(test_cache_shared)
{
	struct fs_fixture fx;
	struct xfsj_buf *a, *b;

	fs_fixture_make(&fx, 64ULL << 20, 4096, 2, true, true);
	ck_assert_int_eq(xfsj_agf_read(fx.fs, 1, &a, &fx.f), 0);
	ck_assert_int_eq(xfsj_agf_read(fx.fs, 1, &b, &fx.f), 0);
	ck_assert_ptr_eq(a, b);
	ck_assert_uint_eq(a->len, fx.sb.sectsize);
	/* A different length for the same address is refused. */
	ck_assert_int_eq(xfsj_buf_read(fx.fs, a->daddr, 4096, &b), -XFSJ_E_INVAL);
	fs_fixture_free(&fx);
}
END_TEST

START_TEST(test_flush_stamps)
{
	struct fs_fixture fx;
	struct xfsj_buf *bp;
	struct xfsj_agf agf;
	uint8_t sect[512];
	struct xfsj_vctx c;

	fs_fixture_make(&fx, 64ULL << 20, 4096, 2, true, true);
	ck_assert_int_eq(xfsj_agf_read(fx.fs, 0, &bp, &fx.f), 0);
	xfsj_agf_decode(bp->data, &agf);
	agf.freeblks -= 1;
	xfsj_agf_encode(&agf, bp->data, bp->len);
	xfsj_buf_dirty(bp);
	/* Not in the overlay before the flush. */
	ck_assert_int_eq(xfsj_overlay_read(fx.ov, sect, 512, bp->daddr << 9), 0);
	xfsj_agf_decode(sect, &agf);
	ck_assert_uint_ne(agf.freeblks, 0);
	ck_assert_int_eq(xfsj_fs_flush(fx.fs, &fx.f), 0);
	ck_assert_int_eq(xfsj_overlay_read(fx.ov, sect, 512, bp->daddr << 9), 0);
	xfsj_fs_vctx(fx.fs, 0, &c);
	ck_assert_int_eq(xfsj_agf_verify(sect, &c, bp->daddr << 9, &fx.f), 0);
	ck_assert_uint_eq(xfsj_meta_lsn(sect, 512, c.uuid), 1ULL << 32);
	fs_fixture_free(&fx);
}
END_TEST

START_TEST(test_forget_and_zero)
{
	struct fs_fixture fx;
	struct xfsj_buf *bp;
	uint8_t blk[4096];
	uint64_t daddr;

	fs_fixture_make(&fx, 64ULL << 20, 4096, 2, true, true);
	daddr = xfsj_agb_to_daddr(&fx.sb, 1, 100);
	ck_assert_int_eq(xfsj_buf_get_zero(fx.fs, daddr, 4096, &bp), 0);
	memset(bp->data, 0xee, 4096);
	xfsj_buf_forget(fx.fs, bp);
	ck_assert_int_eq(xfsj_fs_flush(fx.fs, &fx.f), 0);
	ck_assert_int_eq(xfsj_overlay_read(fx.ov, blk, 4096, daddr << 9), 0);
	ck_assert_uint_ne(blk[0], 0xee);
	ck_assert_uint_eq(xfsj_overlay_dirty_pages(fx.ov), 0);
	fs_fixture_free(&fx);
}
END_TEST

START_TEST(test_bad_header)
{
	struct fs_fixture fx;
	struct xfsj_buf *bp;
	uint8_t sect[512];
	uint64_t off;

	fs_fixture_make(&fx, 64ULL << 20, 4096, 2, true, true);
	off = xfsj_agb_to_daddr(&fx.sb, 1, 0) * 512 + 2 * fx.sb.sectsize;
	ck_assert_int_eq(xfsj_overlay_read(fx.ov, sect, 512, off), 0);
	sect[100] ^= 1;
	ck_assert_int_eq(xfsj_overlay_write(fx.ov, sect, 512, off), 0);
	ck_assert_int_lt(xfsj_agi_read(fx.fs, 1, &bp, &fx.f), 0);
	ck_assert_uint_ge(fx.f.offset, off);
	ck_assert_uint_lt(fx.f.offset, off + 512);
	/* Still refused the second time (not served from the cache). */
	ck_assert_int_lt(xfsj_agi_read(fx.fs, 1, &bp, &fx.f), 0);
	ck_assert_int_lt(xfsj_agi_read(fx.fs, 2, &bp, &fx.f), 0);
	fs_fixture_free(&fx);
}
END_TEST

Suite *fs_suite(void)
{
	Suite *s = suite_create("fs");
	TCase *tc = tcase_create("fs");

	tcase_add_test(tc, test_cache_shared);
	tcase_add_test(tc, test_flush_stamps);
	tcase_add_test(tc, test_forget_and_zero);
	tcase_add_test(tc, test_bad_header);
	suite_add_tcase(s, tc);
	return s;
}
