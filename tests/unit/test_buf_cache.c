/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The buffer cache's memory bound: a scan of more blocks than the bound
 * stays inside it and reads the right bytes again after eviction; dirty,
 * held and kept buffers are never evicted; readahead fills the cache in
 * one pass without going over the bound; the statistics add up.
 */
#include <string.h>

#include "fs_fixture.h"
#include "suites.h"
#include "ondisk/meta.h"
#include "xfsj/ondisk.h"

#define BS		4096U
#define SCAN		4000U	/* blocks read by a scan */
#define FIRST_AGBNO	1000U	/* in AG 1, clear of every header */

static uint64_t blk(struct fs_fixture *fx, uint32_t i)
{
	return xfsj_agb_to_daddr(&fx->sb, 1, FIRST_AGBNO + i);
}

/* Contents that differ in every block and every word. */
static void pattern(uint64_t daddr, uint32_t salt, uint8_t *buf)
{
	for (uint32_t w = 0; w < BS / 8; w++) {
		uint64_t v = daddr * 0x9e3779b97f4a7c15ULL ^ w ^
			     (uint64_t)salt << 48;

		memcpy(buf + w * 8, &v, 8);
	}
}

static bool has_pattern(const struct xfsj_buf *bp, uint32_t salt)
{
	uint8_t want[BS];

	pattern(bp->daddr, salt, want);
	return bp->len == BS && !memcmp(bp->data, want, BS);
}

/* A filesystem whose scanned blocks carry pattern(salt 0) in the overlay. */
static void make(struct fs_fixture *fx, uint64_t bound)
{
	uint8_t b[BS];

	fs_fixture_make(fx, 64ULL << 20, BS, 2, true, true);
	for (uint32_t i = 0; i < SCAN; i++) {
		pattern(blk(fx, i), 0, b);
		ck_assert_int_eq(xfsj_overlay_write(fx->ov, b, BS,
						    blk(fx, i) << 9), 0);
	}
	xfsj_fs_set_cache_bound(fx->fs, bound);
}

/* Read blocks [from, to) one at a time, held only while checked. */
static void scan(struct fs_fixture *fx, uint32_t from, uint32_t to)
{
	struct xfsj_buf *bp;

	for (uint32_t i = from; i < to; i++) {
		ck_assert_int_eq(xfsj_buf_read_ref(fx->fs, blk(fx, i), BS,
						   &bp), 0);
		ck_assert_msg(has_pattern(bp, 0), "block %u", i);
		xfsj_buf_rele(fx->fs, bp);
	}
}

static struct xfsj_cache_stats stats(struct fs_fixture *fx)
{
	struct xfsj_cache_stats st;

	xfsj_fs_cache_stats(fx->fs, &st);
	return st;
}

START_TEST(test_default_bound)
{
	struct fs_fixture fx;

	fs_fixture_make(&fx, 64ULL << 20, BS, 2, true, true);
	ck_assert_uint_eq(stats(&fx).bound, XFSJ_FS_CACHE_DEFAULT);
	ck_assert_uint_eq(XFSJ_FS_CACHE_DEFAULT, 64ULL << 20);
	fs_fixture_free(&fx);
}
END_TEST

START_TEST(test_scan_stays_bounded)
{
	struct fs_fixture fx;
	struct xfsj_cache_stats st;

	make(&fx, 8 * BS);
	scan(&fx, 0, SCAN);
	st = stats(&fx);
	ck_assert_uint_le(st.peak_bytes, 8 * BS);
	ck_assert_uint_le(st.bytes, 8 * BS);
	ck_assert_uint_eq(st.buffers, 8);
	ck_assert_uint_eq(st.misses, SCAN);
	ck_assert_uint_eq(st.hits, 0);
	ck_assert_uint_eq(st.evictions, SCAN - 8);
	ck_assert_uint_eq(st.over_bound, 0);
	/* Evicted long ago: read again from the overlay, the same bytes. */
	scan(&fx, 0, 100);
	/* The last eight are still there: hits, least recent evicted last. */
	scan(&fx, 92, 100);
	st = stats(&fx);
	ck_assert_uint_eq(st.misses, SCAN + 100);
	ck_assert_uint_eq(st.hits, 8);
	ck_assert_uint_le(st.peak_bytes, 8 * BS);
	fs_fixture_free(&fx);
}
END_TEST

START_TEST(test_dirty_pinned)
{
	struct fs_fixture fx;
	struct xfsj_cache_stats st;
	struct xfsj_buf *bp, *dirty[20];
	uint8_t b[BS], want[BS];

	make(&fx, 4 * BS);
	/* Twenty blocks changed, marked dirty and released. */
	for (uint32_t i = 0; i < 20; i++) {
		ck_assert_int_eq(xfsj_buf_read_ref(fx.fs, blk(&fx, i), BS,
						   &dirty[i]), 0);
		pattern(dirty[i]->daddr, 1, dirty[i]->data);
		xfsj_buf_dirty(dirty[i]);
		xfsj_buf_rele(fx.fs, dirty[i]);
	}
	/* Pressure: everything else that passes through is evicted. */
	scan(&fx, 100, SCAN);
	st = stats(&fx);
	ck_assert_uint_ge(st.bytes, 20 * BS);
	ck_assert_uint_le(st.bytes, 24 * BS);
	ck_assert_uint_gt(st.over_bound, 0);
	/* Still the same memory, still changed, still unwritten. */
	for (uint32_t i = 0; i < 20; i++) {
		ck_assert_int_eq(xfsj_buf_read_ref(fx.fs, blk(&fx, i), BS,
						   &bp), 0);
		ck_assert_ptr_eq(bp, dirty[i]);
		ck_assert(bp->dirty);
		ck_assert(has_pattern(bp, 1));
		xfsj_buf_rele(fx.fs, bp);
		ck_assert_int_eq(xfsj_overlay_read(fx.ov, b, BS,
						   blk(&fx, i) << 9), 0);
		pattern(blk(&fx, i), 0, want);
		ck_assert(!memcmp(b, want, BS));
	}
	ck_assert_int_eq(xfsj_fs_flush(fx.fs, &fx.f), 0);
	/* Written, clean, and so evictable: back inside the bound. */
	st = stats(&fx);
	ck_assert_uint_le(st.bytes, 4 * BS);
	for (uint32_t i = 0; i < 20; i++) {
		ck_assert_int_eq(xfsj_overlay_read(fx.ov, b, BS,
						   blk(&fx, i) << 9), 0);
		pattern(blk(&fx, i), 1, want);
		ck_assert(!memcmp(b, want, BS));
	}
	/* Evicted by now, read back from the overlay: the flushed bytes. */
	for (uint32_t i = 0; i < 20; i++) {
		ck_assert_int_eq(xfsj_buf_read_ref(fx.fs, blk(&fx, i), BS,
						   &bp), 0);
		ck_assert(has_pattern(bp, 1));
		ck_assert(!bp->dirty);
		xfsj_buf_rele(fx.fs, bp);
	}
	fs_fixture_free(&fx);
}
END_TEST

/* A real header changed under pressure is stamped and checksummed. */
START_TEST(test_dirty_header_flushed)
{
	struct fs_fixture fx;
	struct xfsj_buf *bp;
	struct xfsj_agf agf;
	struct xfsj_vctx c;
	uint8_t sect[512];
	uint64_t daddr;
	uint32_t freeblks;

	make(&fx, 2 * BS);
	ck_assert_int_eq(xfsj_agf_read(fx.fs, 0, &bp, &fx.f), 0);
	daddr = bp->daddr;
	xfsj_fs_release_kept(fx.fs);
	ck_assert_int_eq(xfsj_buf_read_ref(fx.fs, daddr, fx.sb.sectsize, &bp),
			 0);
	xfsj_agf_decode(bp->data, &agf);
	freeblks = --agf.freeblks;
	xfsj_agf_encode(&agf, bp->data, bp->len);
	xfsj_buf_dirty(bp);
	xfsj_buf_rele(fx.fs, bp);
	scan(&fx, 0, 1000);
	ck_assert_int_eq(xfsj_fs_flush(fx.fs, &fx.f), 0);
	ck_assert_uint_le(stats(&fx).bytes, 2 * BS);
	ck_assert_int_eq(xfsj_overlay_read(fx.ov, sect, 512, daddr << 9), 0);
	xfsj_fs_vctx(fx.fs, 0, &c);
	ck_assert_msg(xfsj_agf_verify(sect, &c, daddr << 9, &fx.f) == 0, "%s",
		      fx.f.field);
	ck_assert_uint_eq(xfsj_meta_lsn(sect, 512, c.uuid), 1ULL << 32);
	/* Clean now, so a bound of 0 evicts it; read and verified again. */
	xfsj_fs_set_cache_bound(fx.fs, 0);
	ck_assert_uint_eq(stats(&fx).buffers, 0);
	ck_assert_int_eq(xfsj_agf_read(fx.fs, 0, &bp, &fx.f), 0);
	xfsj_agf_decode(bp->data, &agf);
	ck_assert_uint_eq(agf.freeblks, freeblks);
	fs_fixture_free(&fx);
}
END_TEST

START_TEST(test_held_and_kept_stay)
{
	struct fs_fixture fx;
	struct xfsj_cache_stats st;
	struct xfsj_buf *held[10], *kept[10], *bp;

	make(&fx, 2 * BS);
	for (uint32_t i = 0; i < 10; i++) {
		ck_assert_int_eq(xfsj_buf_read_ref(fx.fs, blk(&fx, i), BS,
						   &held[i]), 0);
		ck_assert_int_eq(xfsj_buf_read(fx.fs, blk(&fx, 10 + i), BS,
					       &kept[i]), 0);
	}
	/* Two references to the first one: one release keeps it held. */
	xfsj_buf_hold(fx.fs, held[0]);
	xfsj_buf_rele(fx.fs, held[0]);
	scan(&fx, 100, 1100);
	st = stats(&fx);
	ck_assert_uint_eq(st.buffers, 20);
	ck_assert_uint_eq(st.bytes, 20 * BS);
	ck_assert_uint_ge(st.over_bound, 1000);
	ck_assert_uint_eq(st.evictions, 1000);
	for (uint32_t i = 0; i < 10; i++) {
		ck_assert(has_pattern(held[i], 0));
		ck_assert(has_pattern(kept[i], 0));
		/* A lookup finds the same memory. */
		ck_assert_int_eq(xfsj_buf_read_ref(fx.fs, blk(&fx, i), BS,
						   &bp), 0);
		ck_assert_ptr_eq(bp, held[i]);
		xfsj_buf_rele(fx.fs, bp);
		ck_assert_int_eq(xfsj_buf_read(fx.fs, blk(&fx, 10 + i), BS,
					       &bp), 0);
		ck_assert_ptr_eq(bp, kept[i]);
	}
	/* Released: the cache comes back inside its bound. */
	for (uint32_t i = 0; i < 10; i++)
		xfsj_buf_rele(fx.fs, held[i]);
	ck_assert_uint_eq(stats(&fx).bytes, 10 * BS);
	xfsj_fs_release_kept(fx.fs);
	ck_assert_uint_eq(stats(&fx).bytes, 2 * BS);
	scan(&fx, 0, 20);
	ck_assert_uint_le(stats(&fx).bytes, 2 * BS);
	fs_fixture_free(&fx);
}
END_TEST

START_TEST(test_forget_held)
{
	struct fs_fixture fx;
	struct xfsj_buf *bp, *again;
	uint8_t b[BS];

	make(&fx, 2 * BS);
	ck_assert_int_eq(xfsj_buf_get_zero_ref(fx.fs, blk(&fx, 0), BS, &bp),
			 0);
	ck_assert(bp->dirty);
	memset(bp->data, 0xee, BS);
	xfsj_buf_forget(fx.fs, bp);
	/* The holder may still look at it; a lookup no longer finds it. */
	ck_assert_uint_eq(bp->data[BS - 1], 0xee);
	ck_assert_int_eq(xfsj_buf_read_ref(fx.fs, blk(&fx, 0), BS, &again),
			 0);
	ck_assert_ptr_ne(again, bp);
	ck_assert(has_pattern(again, 0));
	xfsj_buf_rele(fx.fs, again);
	xfsj_buf_rele(fx.fs, bp);
	ck_assert_int_eq(xfsj_fs_flush(fx.fs, &fx.f), 0);
	ck_assert_int_eq(xfsj_overlay_read(fx.ov, b, BS, blk(&fx, 0) << 9),
			 0);
	ck_assert_uint_ne(b[0], 0xee);
	ck_assert_uint_eq(stats(&fx).buffers, 1);
	fs_fixture_free(&fx);
}
END_TEST

START_TEST(test_readahead)
{
	struct fs_fixture fx;
	struct xfsj_cache_stats st;
	struct xfsj_buf_ra ra[SCAN];
	struct xfsj_buf *bp;

	make(&fx, 64 * BS);
	/* 32 adjacent blocks and 8 scattered ones, in no order. */
	for (uint32_t i = 0; i < 32; i++)
		ra[i] = (struct xfsj_buf_ra){ blk(&fx, 31 - i), BS };
	for (uint32_t i = 0; i < 8; i++)
		ra[32 + i] = (struct xfsj_buf_ra){ blk(&fx, 500 + 97 * i), BS };
	ra[40] = ra[3];		/* repeated: read once */
	ck_assert_int_eq(xfsj_buf_readahead(fx.fs, ra, 41), 0);
	st = stats(&fx);
	ck_assert_uint_eq(st.readahead, 40);
	ck_assert_uint_eq(st.misses, 0);
	ck_assert_uint_eq(st.bytes, 40 * BS);
	for (uint32_t i = 0; i < 40; i++) {
		ck_assert_int_eq(xfsj_buf_read_ref(fx.fs, ra[i].daddr, BS,
						   &bp), 0);
		ck_assert_msg(has_pattern(bp, 0), "entry %u", i);
		xfsj_buf_rele(fx.fs, bp);
	}
	st = stats(&fx);
	ck_assert_uint_eq(st.hits, 40);
	ck_assert_uint_eq(st.misses, 0);

	/* More than the bound: only what fits beside the held buffers. */
	ck_assert_int_eq(xfsj_buf_read_ref(fx.fs, blk(&fx, 0), BS, &bp), 0);
	for (uint32_t i = 0; i < SCAN; i++)
		ra[i] = (struct xfsj_buf_ra){ blk(&fx, i), BS };
	ck_assert_int_eq(xfsj_buf_readahead(fx.fs, ra, SCAN), 0);
	st = stats(&fx);
	ck_assert_uint_le(st.peak_bytes, 64 * BS);
	ck_assert_uint_eq(st.bytes, 64 * BS);
	ck_assert_uint_eq(st.over_bound, 0);
	/* The first entries were the ones read: blocks 1 to 63 are hits. */
	scan(&fx, 1, 64);
	ck_assert_uint_eq(stats(&fx).hits, st.hits + 63);
	xfsj_buf_rele(fx.fs, bp);
	/* Past the end of the device: an error, and nothing cached. */
	ra[0] = (struct xfsj_buf_ra){ (64ULL << 20) >> 9, BS };
	ck_assert_int_lt(xfsj_buf_readahead(fx.fs, ra, 1), 0);
	ck_assert_int_lt(xfsj_buf_read_ref(fx.fs, ra[0].daddr, BS, &bp), 0);
	fs_fixture_free(&fx);
}
END_TEST

START_TEST(test_shrink_bound)
{
	struct fs_fixture fx;

	make(&fx, 1000 * BS);
	scan(&fx, 0, 500);
	ck_assert_uint_eq(stats(&fx).bytes, 500 * BS);
	xfsj_fs_set_cache_bound(fx.fs, 10 * BS);
	ck_assert_uint_eq(stats(&fx).bytes, 10 * BS);
	ck_assert_uint_eq(stats(&fx).evictions, 490);
	/* Least recently released went first: 490 to 499 are left. */
	scan(&fx, 490, 500);
	ck_assert_uint_eq(stats(&fx).hits, 10);
	fs_fixture_free(&fx);
}
END_TEST

/*
 * A full cache takes the buffer it evicts for the next block of that
 * length: a block read into it holds its own bytes, a block got zeroed
 * holds zeroes, never the evicted block's.
 */
START_TEST(test_evicted_buffer_reused)
{
	struct fs_fixture fx;
	struct xfsj_buf *bp;
	uint8_t zero[BS];
	uint64_t ev;

	memset(zero, 0, sizeof(zero));
	make(&fx, 1 * BS);
	scan(&fx, 0, 1);
	ev = stats(&fx).evictions;
	ck_assert_int_eq(xfsj_buf_get_zero_ref(fx.fs, blk(&fx, 1), BS, &bp),
			 0);
	ck_assert(!memcmp(bp->data, zero, BS));
	ck_assert(bp->dirty);
	ck_assert_uint_eq(bp->daddr, blk(&fx, 1));
	xfsj_buf_rele(fx.fs, bp);
	/* The dirty block stays; block 2 needs room of its own. */
	ck_assert_uint_gt(stats(&fx).evictions, ev);
	/* Each evicts the one before; the dirty block stays. */
	scan(&fx, 2, 6);
	ck_assert_uint_ge(stats(&fx).evictions, ev + 4);
	ck_assert_int_eq(xfsj_buf_read_ref(fx.fs, blk(&fx, 1), BS, &bp), 0);
	ck_assert(!memcmp(bp->data, zero, BS));
	xfsj_buf_rele(fx.fs, bp);
	fs_fixture_free(&fx);
}
END_TEST

Suite *buf_cache_suite(void)
{
	Suite *s = suite_create("buf_cache");
	TCase *tc = tcase_create("buf_cache");

	tcase_add_test(tc, test_default_bound);
	tcase_add_test(tc, test_scan_stays_bounded);
	tcase_add_test(tc, test_dirty_pinned);
	tcase_add_test(tc, test_dirty_header_flushed);
	tcase_add_test(tc, test_held_and_kept_stay);
	tcase_add_test(tc, test_forget_held);
	tcase_add_test(tc, test_readahead);
	tcase_add_test(tc, test_shrink_bound);
	tcase_add_test(tc, test_evicted_buffer_reused);
	suite_add_tcase(s, tc);
	return s;
}
